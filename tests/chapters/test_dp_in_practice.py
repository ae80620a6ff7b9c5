"""Tests for chapter 08 (DP in practice): exact discrete Laplace sampling, the floating-point
attack on numpy's Laplace sampler, the Gaussian calibrations, the exponential mechanism and the
reconstruction attack.

Statistical checks use fixed seeds and state their tolerance; every check can fail.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import chisquare

import helpers
from conftest import glued
from notebook_code import notebook_namespace

CHAPTER = "dp-in-practice"


@pytest.fixture(scope="module")
def ns():
    return notebook_namespace(CHAPTER, [
        "numpy_laplace_model", "possible_under", "TWO_53",
        "exponential_mechanism_gumbel",
        "report_noisy_max_laplace", "reconstruct",
    ])


# ---------------------------------------------------------------------------------------------
# Discrete Laplace sampler (helpers.discrete_laplace_noise)
# ---------------------------------------------------------------------------------------------
# ---------------------------------------------------------------------------------------------
# Mironov's attack on numpy's floating-point Laplace sampler
# ---------------------------------------------------------------------------------------------
def independent_numpy_laplace(u: np.ndarray, scale: float) -> np.ndarray:
    """numpy's random_laplace with loc = 0, one scalar at a time with the C library's log."""
    out = []
    for x in u.tolist():
        if x >= 0.5:
            out.append(0.0 - scale * math.log((2.0 - x) - x))
        else:
            out.append(0.0 + scale * math.log(x + x))
    return np.array(out)


@pytest.mark.parametrize("scale, seed", [(10.0, 0), (1.0, 1), (0.37, 2), (250.0, 3)])
def test_sampler_model_is_bit_exact(ns, scale, seed):
    n = 50_000
    draws = helpers.make_rng(seed).laplace(0.0, scale, n)
    uniforms = helpers.make_rng(seed).random(n)
    assert np.array_equal(draws, independent_numpy_laplace(uniforms, scale))
    assert np.array_equal(draws, ns["numpy_laplace_model"](uniforms, 0.0, scale))


def test_float_attack_is_certain_far_above_the_bound(ns):
    possible_under = ns["possible_under"]
    epsilon, scale = 0.1, 1.0 / 0.1
    bound = math.exp(epsilon) / (1 + math.exp(epsilon))
    rng = helpers.make_rng(123)
    truth = rng.integers(0, 2, 20_000)
    y = helpers.laplace_mechanism(truth.astype(float), 1.0, epsilon, rng=rng)
    could_0, could_1 = possible_under(y, 0.0, scale), possible_under(y, 1.0, scale)
    # the true answer is always judged possible: the attack never rules out the truth
    assert np.all(np.where(truth == 1, could_1, could_0))
    certain = could_0 != could_1
    assert certain.mean() > 0.7 > bound + 0.15
    # a certain decision is always right
    assert np.all(could_1[certain] == (truth[certain] == 1))


def test_float_attack_window_finds_exact_noise(ns):
    """Releases of the exact sampler outputs are always recognised under hypothesis 0."""
    grid = np.arange(1, 2001, dtype=np.int64) * (2**53 // 2001)  # spread over (0, 1)
    uniforms = grid / ns["TWO_53"]
    noise = independent_numpy_laplace(uniforms, 10.0)
    assert np.all(ns["possible_under"](noise, 0.0, 10.0))


def test_discrete_sampler_gives_the_attack_nothing():
    epsilon = 0.1
    bound = math.exp(epsilon) / (1 + math.exp(epsilon))
    rng = helpers.make_rng(321)
    truth = rng.integers(0, 2, 20_000)
    y = truth + helpers.discrete_laplace_noise(Fraction(10), rng, size=len(truth))
    assert y.dtype.kind == "i"
    # the best test stays at the bound (sd of the estimate is about 0.0035)
    success = float(np.mean((y >= 1) == (truth == 1)))
    assert abs(success - bound) < 0.015


# ---------------------------------------------------------------------------------------------
# Exponential mechanism on Adult occupations
# ---------------------------------------------------------------------------------------------
def test_occupation_counts_and_exponential_mechanism(ns, adult):
    counts = adult["occupation"].value_counts()  # NaN excluded: not a candidate
    assert len(counts) == 14
    assert counts.index[0] == "Prof-specialty" and counts.iloc[0] == 4140
    assert counts.index[1] == "Craft-repair" and counts.iloc[1] == 4099
    u = counts.to_numpy().astype(float)
    p = helpers.exponential_mechanism_probabilities(u, 0.1, 1.0)
    assert p.sum() == pytest.approx(1.0)
    assert p[0] / p[1] == pytest.approx(math.exp(0.1 * 41 / 2))
    draws = ns["exponential_mechanism_gumbel"](u, 0.1, helpers.make_rng(7), 40_000)
    freq = np.bincount(draws, minlength=len(u)) / len(draws)
    assert np.max(np.abs(freq - p)) < 0.01  # Gumbel-max samples the same distribution
    rnm = ns["report_noisy_max_laplace"](u, 0.1, helpers.make_rng(8), 40_000)
    assert np.mean(rnm == 0) > p[0]  # Lap(1/eps) has less noise than Gumbel(2/eps)


# ---------------------------------------------------------------------------------------------
# Reconstruction attack (Dinur-Nissim)
# ---------------------------------------------------------------------------------------------
def test_reconstruction_exact_vs_noisy(ns):
    reconstruct = ns["reconstruct"]
    rng = np.random.default_rng(77)
    n, m, repeats = 150, 750, 10
    secret = rng.integers(0, 2, n)
    queries = rng.integers(0, 2, (m, n))
    exact = (queries @ secret).astype(float)
    assert np.mean(reconstruct(queries, exact) == secret) >= 0.95
    small = exact[:, None] + rng.laplace(0, 1.0, (m, repeats))  # eps = 1 per query
    assert np.mean(reconstruct(queries, small) == secret[:, None]) >= 0.95
    big = exact[:, None] + rng.normal(0, math.sqrt(n), (m, repeats))
    assert np.mean(reconstruct(queries, big) == secret[:, None]) <= 0.75
    huge = exact[:, None] + rng.laplace(0, m, (m, repeats))  # total eps = 1
    assert np.mean(reconstruct(queries, huge) == secret[:, None]) <= 0.6


def test_a_seeded_exact_release_is_replayed_exactly(adult):
    g = glued("dp-in-practice")
    true_count = int((adult["age"] >= 40).sum())
    assert g["practice_replay_recovered"] == f"{true_count:,}" == "14,237"
    assert g["practice_replay_exact"] == "exactly"
    assert g["practice_replay_published"] != g["practice_replay_recovered"]  # noise was added

"""Tests for chapter 08 (DP in practice) and its going-deeper pages: exact discrete Laplace
sampling and the floating-point attack on numpy's Laplace sampler (the core and
"low-bit-attack-up-close"), the audit of the exact sampler ("auditing-and-opendp-samplers"), the
Gaussian calibrations ("gaussian-mechanism-and-l2-sensitivity"), the exponential mechanism
("exponential-mechanism-and-noisy-max") and the reconstruction attack ("reconstruction-attack").

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
UP_CLOSE = "low-bit-attack-up-close"
AUDIT = "auditing-and-opendp-samplers"
GAUSSIAN = "gaussian-mechanism-and-l2-sensitivity"
SELECTION = "exponential-mechanism-and-noisy-max"
RECONSTRUCTION = "reconstruction-attack"


@pytest.fixture(scope="module")
def ns():
    """The core's attack code, and the code of the pages that moved out of the core."""
    namespace = notebook_namespace(CHAPTER, ["numpy_laplace_model", "possible_under", "TWO_53"])
    namespace.update(notebook_namespace(SELECTION, [
        "exponential_mechanism_gumbel", "report_noisy_max_laplace"]))
    namespace.update(notebook_namespace(RECONSTRUCTION, ["reconstruct"]))
    return namespace


@pytest.fixture(scope="module")
def up_close():
    return notebook_namespace(UP_CLOSE, ["numpy_laplace_model", "possible_under"])


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


@pytest.mark.parametrize("seed", [4, 5])
def test_the_up_close_page_re_creates_the_cores_attack(ns, up_close, seed):
    """The section page runs alone with its own copy of the model and the test: same results."""
    rng = helpers.make_rng(seed)
    uniforms = rng.random(20_000)
    assert np.array_equal(up_close["numpy_laplace_model"](uniforms, 0.0, 10.0),
                          independent_numpy_laplace(uniforms, 10.0))
    y = helpers.laplace_mechanism(rng.integers(0, 2, 5_000).astype(float), 1.0, 0.1, rng=rng)
    for h in (0.0, 1.0):
        assert np.array_equal(up_close["possible_under"](y, h, 10.0),
                              ns["possible_under"](y, h, 10.0))


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


def test_the_best_test_against_discrete_laplace_is_exactly_the_bound():
    """The core's exercise: Pr[Y >= 0] = 1 / (1 + e^(-1/t)), against the exact sampler."""
    for t in (Fraction(10), Fraction(2)):
        draws = helpers.discrete_laplace_noise(t, helpers.make_rng(int(t)), size=20_000)
        expected = 1 / (1 + math.exp(-1 / float(t)))
        # sd of the estimate is about 0.0035; 4 sd
        assert abs(float(np.mean(draws >= 0)) - expected) < 0.015
    assert glued(CHAPTER)["practice_discrete_success"] == glued(CHAPTER)["practice_bound"]


def test_the_audit_of_the_exact_sampler_finds_no_violation():
    g = glued(AUDIT)
    assert 0 <= float(g["practice_audit_discrete"]) <= 0.1


# ---------------------------------------------------------------------------------------------
# Gaussian mechanism against Laplace on Adult's one-way tables
# ---------------------------------------------------------------------------------------------
def test_gaussian_crossovers_follow_the_closed_form():
    g = glued(GAUSSIAN)
    # classical sigma below Laplace's sqrt(2) k / eps iff k > ln(1.25 / delta)
    assert g["practice_cross_classical"] == math.floor(math.log(1.25 / 1e-6)) + 1 == 15
    assert g["practice_ex_cross_small"] == math.floor(math.log(1.25 / 1e-12)) + 1
    assert g["practice_cross_analytic"] < g["practice_cross_classical"]  # analytic: less noise
    assert g["practice_sd_laplace"] == f"{math.sqrt(2) * 8 / 0.5:.1f}"
    sigma = math.sqrt(8) * math.sqrt(2 * math.log(1.25 / 1e-6)) / 0.5
    assert g["practice_sd_classical"] == f"{sigma:.1f}"


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


def test_noise_values_are_further_apart_than_doubles_near_the_release():
    """The core's 'why': at U = 1/4 (noise -b ln 2, of median size) the noise values of
    consecutive uniforms are several doubles apart, so most doubles there are impossible
    outputs. Checked on 1,000 consecutive uniforms with the independent sampler model, and
    the glued numbers against the exact calculus (b / U · 2^-53) and math.ulp."""
    scale = 10.0
    k = np.arange(2**51, 2**51 + 1000, dtype=np.int64)
    noise = independent_numpy_laplace(k / 2.0**53, scale)
    gaps = np.abs(np.diff(noise))
    ulp = math.ulp(scale * math.log(2))
    assert gaps.min() >= 2 * ulp
    g = glued(CHAPTER)
    assert float(g["practice_double_gap"]) == pytest.approx(ulp, rel=0.05)
    assert float(g["practice_noise_gap"]) == pytest.approx(scale / 0.25 * 2.0**-53, rel=0.05)
    assert float(g["practice_noise_gap"]) > 2 * float(g["practice_double_gap"])

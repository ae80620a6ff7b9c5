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
from scipy import integrate
from scipy.stats import chisquare

import helpers
from notebook_code import notebook_namespace

CHAPTER = "08-dp-in-practice"


@pytest.fixture(scope="module")
def ns():
    return notebook_namespace(CHAPTER, [
        "numpy_laplace_model", "possible_under", "TWO_53",
        "classical_gaussian_sigma", "gaussian_delta", "analytic_gaussian_sigma",
        "exponential_mechanism_probs", "exponential_mechanism_gumbel",
        "report_noisy_max_laplace", "reconstruct",
    ])


# ---------------------------------------------------------------------------------------------
# Discrete Laplace sampler (helpers.discrete_laplace_noise)
# ---------------------------------------------------------------------------------------------
def discrete_laplace_pmf(y: np.ndarray, t: float) -> np.ndarray:
    """Pr[Y = y] = (e^{1/t} - 1)/(e^{1/t} + 1) e^{-|y|/t}, written independently of helpers."""
    c = (math.exp(1 / t) - 1) / (math.exp(1 / t) + 1)
    return c * np.exp(-np.abs(y) / t)


def discrete_laplace_upper_tail(k: int, t: float) -> float:
    """Pr[Y >= k] for k >= 1 (geometric series)."""
    c = (math.exp(1 / t) - 1) / (math.exp(1 / t) + 1)
    return c * math.exp(-k / t) / (1 - math.exp(-1 / t))


def chi_square_pvalue(sample: np.ndarray, t: float) -> float:
    """Chi-square goodness of fit to the discrete Laplace(t) pmf; tails pooled so every
    expected count is >= 5."""
    n = len(sample)
    k = 0
    while n * discrete_laplace_upper_tail(k + 1, t) >= 5 and n * discrete_laplace_pmf(k + 1, t) >= 5:
        k += 1
    values = np.arange(-k, k + 1)
    expected = n * discrete_laplace_pmf(values, t)
    tail = n * discrete_laplace_upper_tail(k + 1, t)
    observed = np.array([np.sum(sample == v) for v in values])
    obs = np.concatenate([[np.sum(sample < -k)], observed, [np.sum(sample > k)]])
    exp = np.concatenate([[tail], expected, [tail]])
    assert abs(exp.sum() - n) < 1e-6 * n  # the pmf sums to 1
    return float(chisquare(obs, exp).pvalue)


@pytest.mark.parametrize("scale, seed", [(1.0, 1), (2.5, 2), (10.0, 3)])
def test_discrete_laplace_matches_pmf(scale, seed):
    sample = helpers.discrete_laplace_noise(scale, helpers.make_rng(seed), size=20_000)
    assert sample.dtype == np.int64
    # a correct sampler gives p < 0.001 with probability 0.001; at this fixed seed it must not
    assert chi_square_pvalue(sample, scale) > 1e-3
    # power: the same sample must be rejected against a pmf whose scale is 30% off
    assert chi_square_pvalue(sample, scale * 1.3) < 1e-3
    assert chi_square_pvalue(sample, scale / 1.3) < 1e-3


def test_discrete_laplace_moments():
    t = 2.5
    sample = helpers.discrete_laplace_noise(t, helpers.make_rng(5), size=20_000)
    variance = 2 * math.exp(1 / t) / (math.exp(1 / t) - 1) ** 2
    se_mean = math.sqrt(variance / len(sample))
    assert abs(sample.mean()) < 4 * se_mean
    assert abs(sample.var() / variance - 1) < 0.05  # relative sd of the variance is about 1.5%


def test_discrete_laplace_scalar_and_exact_scales():
    value = helpers.discrete_laplace_noise(3, helpers.make_rng(0))
    assert type(value) is int
    # 2.5, "2.5" and Fraction(5, 2) are the same exact scale: identical streams
    a = helpers.discrete_laplace_noise(2.5, helpers.make_rng(9), size=200)
    b = helpers.discrete_laplace_noise("2.5", helpers.make_rng(9), size=200)
    c = helpers.discrete_laplace_noise(Fraction(5, 2), helpers.make_rng(9), size=200)
    assert np.array_equal(a, b) and np.array_equal(a, c)
    assert helpers.discrete_laplace_noise(1.0, helpers.make_rng(0), size=0).shape == (0,)


@pytest.mark.parametrize("scale, error", [
    (0, ValueError), (-1.0, ValueError), (float("nan"), ValueError), (float("inf"), ValueError),
    ("abc", ValueError), (Fraction(0), ValueError), (True, TypeError), (None, TypeError),
    ([1.0], TypeError),
])
def test_discrete_laplace_rejects_bad_scale(scale, error):
    with pytest.raises(error):
        helpers.discrete_laplace_noise(scale, helpers.make_rng(0), size=3)


@pytest.mark.parametrize("kwargs, error", [
    ({"rng": np.random.default_rng(0).bit_generator}, TypeError),
    ({"rng": 42}, TypeError),
    ({"size": -1}, ValueError),
    ({"size": 2.0}, TypeError),
    ({"size": True}, TypeError),
])
def test_discrete_laplace_rejects_bad_arguments(kwargs, error):
    args = {"scale": 1.0, "rng": helpers.make_rng(0), "size": 3}
    args.update(kwargs)
    with pytest.raises(error):
        helpers.discrete_laplace_noise(**args)


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
    # every integer has positive probability under both hypotheses: no certain decision
    positive_0 = discrete_laplace_pmf(y - 0, 10.0) > 0
    positive_1 = discrete_laplace_pmf(y - 1, 10.0) > 0
    assert int(np.sum(positive_0 != positive_1)) == 0
    # the best test stays at the bound (sd of the estimate is about 0.0035)
    success = float(np.mean((y >= 1) == (truth == 1)))
    assert abs(success - bound) < 0.015


# ---------------------------------------------------------------------------------------------
# Gaussian mechanism
# ---------------------------------------------------------------------------------------------
def delta_by_integration(sigma: float, epsilon: float, l2: float) -> float:
    """delta(eps) = E[(1 - e^{eps - L})_+], privacy loss L ~ N(eta, 2 eta), eta = l2^2/(2 sigma^2)."""
    eta = l2**2 / (2 * sigma**2)
    sd = math.sqrt(2 * eta)

    def integrand(x):
        return (1 - math.exp(epsilon - x)) * math.exp(-((x - eta) ** 2) / (2 * sd**2)) / (sd * math.sqrt(2 * math.pi))

    value, _ = integrate.quad(integrand, epsilon, eta + 40 * sd, epsabs=1e-14, limit=200)
    return value


@pytest.mark.parametrize("epsilon, delta, l2", [(0.5, 1e-6, math.sqrt(8)), (0.9, 1e-5, 1.0), (0.1, 1e-3, 3.0)])
def test_gaussian_calibrations(ns, epsilon, delta, l2):
    classical = ns["classical_gaussian_sigma"](epsilon, delta, l2)
    assert classical == pytest.approx(l2 * math.sqrt(2 * math.log(1.25 / delta)) / epsilon)
    analytic = ns["analytic_gaussian_sigma"](epsilon, delta, l2)
    assert analytic < classical
    # the chapter's exact delta agrees with an independent numerical integration
    for sigma in (analytic, classical):
        assert ns["gaussian_delta"](sigma, epsilon, l2) == pytest.approx(
            delta_by_integration(sigma, epsilon, l2), rel=1e-4, abs=1e-12)
    assert delta_by_integration(analytic, epsilon, l2) == pytest.approx(delta, rel=1e-3)
    assert delta_by_integration(classical, epsilon, l2) <= delta
    assert delta_by_integration(0.95 * analytic, epsilon, l2) > delta  # analytic is the smallest


def test_classical_gaussian_refuses_large_epsilon(ns):
    with pytest.raises(ValueError):
        ns["classical_gaussian_sigma"](1.0, 1e-6, 1.0)


# ---------------------------------------------------------------------------------------------
# Exponential mechanism on Adult occupations
# ---------------------------------------------------------------------------------------------
def test_occupation_counts_and_exponential_mechanism(ns):
    adult = helpers.load_adult()
    counts = adult["occupation"].value_counts()  # NaN excluded: not a candidate
    assert len(counts) == 14
    assert counts.index[0] == "Prof-specialty" and counts.iloc[0] == 4140
    assert counts.index[1] == "Craft-repair" and counts.iloc[1] == 4099
    u = counts.to_numpy().astype(float)
    p = ns["exponential_mechanism_probs"](u, 0.1)
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

"""Pure ε-DP mechanisms (chapters/dpcourse/mechanisms.py): Laplace, randomized response, discrete Laplace."""

from __future__ import annotations

import math
import re
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from scipy.stats import chisquare

import helpers
from dpcourse import mechanisms


# --------------------------------------------------------------------------------------------
# laplace_mechanism
# --------------------------------------------------------------------------------------------


N = 200_000


@pytest.mark.parametrize("sensitivity, epsilon", [(1.0, 0.5), (1.0, 1.0), (2.0, 0.1), (80.0, 1.0)])
def test_noise_matches_laplace_with_scale_sensitivity_over_epsilon(sensitivity, epsilon):
    """KS test at a fixed seed: noise ~ Lap(Δ/ε). Tolerance: p-value > 0.001."""
    noise = helpers.laplace_mechanism(np.zeros(N), sensitivity, epsilon, helpers.make_rng(6))
    scale = sensitivity / epsilon
    assert stats.kstest(noise, stats.laplace(scale=scale).cdf).pvalue > 1e-3
    # the same test must reject the classic wrong scales (so the test can fail)
    for wrong in (epsilon, math.sqrt(scale), scale / math.sqrt(2)):
        if not math.isclose(wrong, scale):
            assert stats.kstest(noise, stats.laplace(scale=wrong).cdf).pvalue < 1e-6


@pytest.mark.parametrize("b", [0.5, 2.0, 10.0])
def test_variance_is_two_b_squared(b):
    """Var[Lap(b)] = 2b²: the sample variance's relative sd is sqrt(20/N)/2 ≈ 0.5%; tolerance 3%."""
    noise = helpers.laplace_mechanism(np.zeros(N), b, 1.0, helpers.make_rng(60))
    assert noise.var() == pytest.approx(2 * b**2, rel=0.03)
    assert noise.std() == pytest.approx(math.sqrt(2) * b, rel=0.015)
    assert abs(noise.mean()) < 5 * math.sqrt(2) * b / math.sqrt(N)
    assert not noise.std() == pytest.approx(b, rel=0.1)  # b is not the standard deviation


def test_laplace_shapes_and_zero_sensitivity():
    rng = helpers.make_rng(3)
    out = helpers.laplace_mechanism(5, 1, 1.0, rng)
    assert isinstance(out, float)
    vec = helpers.laplace_mechanism([[1, 2], [3, 4]], 1, 1.0, rng)
    assert vec.shape == (2, 2)
    assert helpers.laplace_mechanism([1.5, 2.5], 0, 1.0, rng).tolist() == [1.5, 2.5]


def test_laplace_is_reproducible():
    a = helpers.laplace_mechanism(np.arange(5), 1, 1.0, helpers.make_rng(9))
    b = helpers.laplace_mechanism(np.arange(5), 1, 1.0, helpers.make_rng(9))
    assert np.array_equal(a, b)


@pytest.mark.parametrize(
    "kwargs, exc, word",
    [
        (dict(epsilon=0), ValueError, "epsilon"),
        (dict(epsilon=-1), ValueError, "epsilon"),
        (dict(epsilon=float("nan")), ValueError, "epsilon"),
        (dict(epsilon=float("inf")), ValueError, "epsilon"),
        (dict(epsilon="1"), TypeError, "epsilon"),
        (dict(epsilon=True), TypeError, "epsilon"),
        (dict(sensitivity=-1), ValueError, "sensitivity"),
        (dict(sensitivity=float("nan")), ValueError, "sensitivity"),
        (dict(sensitivity=None), TypeError, "sensitivity"),
        (dict(value=float("nan")), ValueError, "value"),
        (dict(value=[]), ValueError, "value"),
        (dict(value="abc"), TypeError, "value"),
        (dict(value=[1, float("inf")]), ValueError, "value"),
        (dict(rng=np.random.RandomState(0)), TypeError, "rng"),
        (dict(rng=None), TypeError, "rng"),
    ],
)
def test_laplace_bad_input(kwargs, exc, word):
    args = dict(value=1.0, sensitivity=1.0, epsilon=1.0, rng=helpers.make_rng(0))
    args.update(kwargs)
    with pytest.raises(exc, match=f"^{word} must"):  # the message opens with the parameter
        helpers.laplace_mechanism(**args)


# --------------------------------------------------------------------------------------------
# randomized response
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("epsilon", [0.1, 1.0, math.log(3), 4.0])
def test_keep_probability_gives_exact_epsilon(epsilon):
    p = helpers.randomized_response_keep_probability(epsilon)
    # worst-case ratio of the two output probabilities equals e^epsilon exactly
    assert math.isclose(math.log(p / (1 - p)), epsilon, rel_tol=1e-12)
    alpha = 2 * p - 1  # truthful with prob alpha, else a fair coin
    assert math.isclose(alpha, math.tanh(epsilon / 2), rel_tol=1e-12)


def test_randomized_response_keeps_at_the_right_rate():
    epsilon, n = 1.0, 200_000
    bits = np.tile([0, 1], n // 2)
    out = helpers.randomized_response(bits, epsilon, helpers.make_rng(4))
    kept = np.mean(out == bits)
    p = math.e / (1 + math.e)
    assert abs(kept - p) < 4 * math.sqrt(p * (1 - p) / n)  # 4 standard errors
    assert set(np.unique(out)) <= {0, 1}
    assert out.shape == bits.shape


def test_randomized_response_accepts_booleans():
    out = helpers.randomized_response(np.array([True, False, True]), 2.0, helpers.make_rng(0))
    assert out.dtype == np.int64


def test_estimator_is_unbiased():
    """Mean of 400 estimates is within 4 standard errors of the true share."""
    rng = helpers.make_rng(5)
    epsilon, n, true_share = 0.5, 2_000, 0.3
    bits = (np.arange(n) < true_share * n).astype(int)
    estimates = [helpers.estimate_proportion(helpers.randomized_response(bits, epsilon, rng),
                                             epsilon) for _ in range(400)]
    p = helpers.randomized_response_keep_probability(epsilon)
    q = p * true_share + (1 - p) * (1 - true_share)
    sd_one = math.sqrt(q * (1 - q) / n) / (2 * p - 1)
    assert abs(np.mean(estimates) - true_share) < 4 * sd_one / math.sqrt(400)
    assert abs(np.std(estimates) - sd_one) < 0.15 * sd_one


def test_estimator_exact_on_expected_counts():
    # if the reports are exactly at their expectation, the estimate is the true share
    p = helpers.randomized_response_keep_probability(1.0)
    responses = np.array([1] * 6 + [0] * 4)  # mean 0.6
    expected = (0.6 - (1 - p)) / (2 * p - 1)
    assert math.isclose(helpers.estimate_proportion(responses, 1.0), expected)


@pytest.mark.parametrize(
    "bits, epsilon, exc, word",
    [
        ([0, 1], 0.0, ValueError, "epsilon"),
        ([0, 1], float("nan"), ValueError, "epsilon"),
        ([0, 2], 1.0, ValueError, "bits"),
        ([], 1.0, ValueError, "bits"),
        (["a", "b"], 1.0, TypeError, "bits"),
    ],
)
def test_randomized_response_bad_input(bits, epsilon, exc, word):
    with pytest.raises(exc, match=f"^{word} must"):
        helpers.randomized_response(bits, epsilon, helpers.make_rng(0))


def test_randomized_response_bad_rng():
    with pytest.raises(TypeError, match="^rng must"):
        helpers.randomized_response([0, 1], 1.0, rng=42)


@pytest.mark.parametrize("responses, epsilon, exc, word", [
    ([0, 1], -1.0, ValueError, "epsilon"),
    ([0.5], 1.0, ValueError, "responses"),
    ([], 1.0, ValueError, "responses"),
])
def test_estimate_proportion_bad_input(responses, epsilon, exc, word):
    with pytest.raises(exc, match=f"^{word} must"):
        helpers.estimate_proportion(responses, epsilon)


# --------------------------------------------------------------------------------------------
# discrete Laplace
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("gamma", [Fraction(1, 3), Fraction(1), Fraction(5, 2)])
def test_exact_bernoulli_exp_minus(gamma):
    """The exact Bernoulli(exp(-gamma)) building block, within 4 standard errors."""
    rng = helpers.make_rng(17)
    n = 20_000
    hits = sum(mechanisms._bernoulli_exp_minus(gamma, rng) for _ in range(n))
    p = math.exp(-float(gamma))
    assert abs(hits / n - p) < 4 * math.sqrt(p * (1 - p) / n)


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


@pytest.mark.parametrize("scale", [2.3, "2.3", np.float64(2.3), np.float32(2.3)])
def test_discrete_laplace_reads_a_float_scale_as_its_shortest_decimal(scale):
    """2.3 is exactly 23/10, not the binary double nearest to it (2.29999999999999982...):
    the same stream as Fraction(23, 10), and numpy's floats are read the same way."""
    exact = helpers.discrete_laplace_noise(Fraction(23, 10), helpers.make_rng(9), size=300)
    binary = helpers.discrete_laplace_noise(Fraction(2.3), helpers.make_rng(9), size=300)
    assert not np.array_equal(exact, binary)  # the two readings can be told apart
    assert np.array_equal(helpers.discrete_laplace_noise(scale, helpers.make_rng(9), size=300),
                          exact)
    assert np.array_equal(helpers.discrete_laplace_noise(np.int64(3), helpers.make_rng(2), size=50),
                          helpers.discrete_laplace_noise(3, helpers.make_rng(2), size=50))


@pytest.mark.parametrize("scale, error, message", [
    (0, ValueError, "> 0, got 0"), (0.0, ValueError, "> 0"), ("0", ValueError, "> 0"),
    (-1.0, ValueError, "> 0"), (Fraction(0), ValueError, "> 0"),
    (float("nan"), ValueError, "finite, got nan"), (float("inf"), ValueError, "finite, got inf"),
    ("abc", ValueError, "a finite number: "), ("1/0", ValueError, "a finite number: "),
    (True, TypeError, "a number, Fraction or numeric string, got bool"),
    (None, TypeError, "a number, Fraction or numeric string, got NoneType"),
    ([1.0], TypeError, "a number, Fraction or numeric string, got list"),
])
def test_discrete_laplace_rejects_bad_scale(scale, error, message):
    """A scale of 0 is refused by the check itself (not by a later division or empty range)."""
    with pytest.raises(error, match="^scale must be " + re.escape(message)):
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
    with pytest.raises(error, match=f"^{next(iter(kwargs))} must"):
        helpers.discrete_laplace_noise(**args)


def test_estimate_proportion_along_an_axis_matches_row_by_row():
    reports = helpers.randomized_response(np.tile([0, 1, 1, 0, 1], (4, 40)), 1.0,
                                          helpers.make_rng(20))
    by_row = helpers.estimate_proportion(reports, 1.0, axis=1)
    assert by_row.shape == (4,)
    assert np.allclose(by_row, [helpers.estimate_proportion(r, 1.0) for r in reports])
    assert np.allclose(helpers.estimate_proportion(reports, 1.0, axis=0),
                       [helpers.estimate_proportion(c, 1.0) for c in reports.T])
    assert isinstance(helpers.estimate_proportion(reports, 1.0), float)
    with pytest.raises(ValueError, match="^axis 2 is out of bounds for responses with 2 dimension"):
        helpers.estimate_proportion(reports, 1.0, axis=2)
    with pytest.raises(ValueError, match="^axis -3 is out of bounds"):
        helpers.estimate_proportion(reports, 1.0, axis=-3)
    assert np.allclose(helpers.estimate_proportion(reports, 1.0, axis=-2),
                       helpers.estimate_proportion(reports, 1.0, axis=0))  # -ndim is valid
    with pytest.raises(TypeError, match="^axis must"):
        helpers.estimate_proportion(reports, 1.0, axis=1.0)


def test_discrete_laplace_from_the_secure_source_has_the_same_pmf():
    """The secure path draws the same exact distribution (chi-square, reject at p < 1e-6).

    The secure source has no seed, so this test is random: a correct sampler fails it with
    probability 1e-6.
    """
    t, n = 2.0, 6_000
    draws = helpers.discrete_laplace_noise(t, helpers.SecureRandom(), size=n)
    support = np.arange(-8, 9)
    pmf = (math.exp(1 / t) - 1) / (math.exp(1 / t) + 1) * np.exp(-np.abs(support) / t)
    observed = np.array([np.sum(draws == y) for y in support] + [np.sum(np.abs(draws) > 8)])
    expected = np.append(pmf, 1 - pmf.sum()) * n
    assert stats.chisquare(observed, expected).pvalue > 1e-6
    assert isinstance(helpers.discrete_laplace_noise(1, helpers.SecureRandom()), int)


def test_discrete_laplace_rejects_other_random_sources():
    with pytest.raises(TypeError, match="^rng must"):
        helpers.discrete_laplace_noise(1, np.random.RandomState(0))

"""The exponential mechanism (chapters/dpcourse/selection.py): exact probabilities, exact privacy
checks on neighbouring utilities, and sampling against the exact distribution."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

import helpers


def max_log_ratio(u: np.ndarray, v: np.ndarray, epsilon: float, monotone: bool) -> float:
    p = helpers.exponential_mechanism_probabilities(u, epsilon, 1.0, monotone)
    q = helpers.exponential_mechanism_probabilities(v, epsilon, 1.0, monotone)
    return float(np.max(np.abs(np.log(p) - np.log(q))))


def test_probabilities_are_the_softmax_of_eps_u_over_two_delta():
    u = np.array([3.0, 1.0, 0.0, 2.0])
    p = helpers.exponential_mechanism_probabilities(u, 1.0, 1.0)
    w = np.exp(u / 2)
    assert np.allclose(p, w / w.sum(), rtol=1e-12)
    pm = helpers.exponential_mechanism_probabilities(u, 1.0, 1.0, monotone=True)
    assert np.allclose(pm, np.exp(u) / np.exp(u).sum(), rtol=1e-12)
    # the sensitivity divides: exp(ε u / (2 Δu)) with Δu = 2, ε = 3
    p2 = helpers.exponential_mechanism_probabilities(u, 3.0, 2.0)
    assert np.allclose(p2, np.exp(3 * u / 4) / np.exp(3 * u / 4).sum(), rtol=1e-12)
    # huge scores do not overflow
    big = helpers.exponential_mechanism_probabilities([1e6, 1e6 - 2], 1.0, 1.0)
    assert big == pytest.approx([1 / (1 + math.e**-1), 1 / (1 + math.e)])


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 3.0])
def test_epsilon_dp_on_every_neighbouring_utility_vector(epsilon):
    """Exact check: every utility vector in {0,1,2}^3 and every neighbour within ±1 per score."""
    worst = 0.0
    for u in itertools.product(range(3), repeat=3):
        for shift in itertools.product((-1, 0, 1), repeat=3):
            worst = max(worst, max_log_ratio(np.array(u, float), np.add(u, shift), epsilon, False))
    assert worst <= epsilon + 1e-12
    # with many candidates the bound is attained: one score up, all others down
    u = np.zeros(5_000)
    v = np.full(5_000, -1.0)
    v[0] = 1.0
    assert epsilon * 0.99 < max_log_ratio(u, v, epsilon, False) <= epsilon + 1e-12


def test_monotone_variant_needs_monotone_neighbours():
    u = np.array([2.0, 0.0, 0.0])
    # counts under add/remove: every score moves the same way, loss stays <= epsilon
    assert max_log_ratio(u, u + np.array([1.0, 1.0, 0.0]), 1.0, True) <= 1.0 + 1e-12
    # scores moving in opposite directions (replace-one histogram): factor 1 breaks epsilon
    assert max_log_ratio(u, u + np.array([1.0, -1.0, 0.0]), 1.0, True) > 1.0


def test_sampling_matches_the_exact_distribution():
    u = np.array([3.0, 1.0, 0.0, 2.0])
    p = helpers.exponential_mechanism_probabilities(u, 1.0, 1.0)
    draws = helpers.exponential_mechanism(u, 1.0, 1.0, helpers.make_rng(40), size=50_000)
    observed = np.bincount(draws, minlength=4)
    assert stats.chisquare(observed, p * 50_000).pvalue > 0.001
    one = helpers.exponential_mechanism(u, 1.0, 1.0, helpers.make_rng(40))
    assert isinstance(one, int) and one == draws[0]
    assert helpers.exponential_mechanism([0.0, 1e9], 1.0, 1.0, helpers.make_rng(1)) == 1


@pytest.mark.parametrize("kwargs, exc, word", [
    (dict(utilities=[]), ValueError, "utilities"),
    (dict(utilities=[[1.0, 2.0]]), ValueError, "utilities"),
    (dict(utilities=[1.0, float("nan")]), ValueError, "utilities"),
    (dict(epsilon=0.0), ValueError, "epsilon"),
    (dict(epsilon=float("nan")), ValueError, "epsilon"),
    (dict(sensitivity=0.0), ValueError, "sensitivity"),
    (dict(sensitivity=-1.0), ValueError, "sensitivity"),
    (dict(rng=3), TypeError, "rng"),
    (dict(monotone="yes"), TypeError, "monotone"),
    (dict(size=-1), ValueError, "size"),
])
def test_bad_input_is_rejected(kwargs, exc, word):
    args = dict(utilities=[1.0, 2.0], epsilon=1.0, sensitivity=1.0, rng=helpers.make_rng(0))
    args.update(kwargs)
    with pytest.raises(exc, match=f"^{word} must"):  # the message opens with the parameter
        helpers.exponential_mechanism(**args)


def test_quantile_utility_counts_values_strictly_below_and_strictly_above():
    """-|(1 - τ) #{x < r} - τ #{x > r}|, by hand: values equal to a candidate count on neither side."""
    assert helpers.quantile_utility([1, 2, 3, 4], [0, 2, 5], 0.5).tolist() == [-2.0, -0.5, -2.0]
    assert helpers.quantile_utility([1, 2, 2, 3], [2, 2.5], 0.5).tolist() == [0.0, -1.0]
    assert helpers.quantile_utility([2, 2, 2], [2], 0.25).tolist() == [0.0]


def test_quantile_utility_peaks_at_the_quantile_and_has_sensitivity_max_q():
    """The score is largest at the q-quantile, and adding or removing one value moves every
    score by at most max(q, 1 - q) (checked over random data, additions and removals)."""
    rng = np.random.default_rng(31)
    values = rng.integers(1, 60, 300).astype(float)
    grid = np.arange(0.0, 70.0)
    for q in (0.1, 0.5, 0.9, 0.99):
        scores = helpers.quantile_utility(values, grid, q)
        best = grid[np.argmax(scores)]
        assert abs(best - np.quantile(values, q)) <= 1     # within one step of the grid
        for extra in (0.0, 1.0, 30.0, 59.0, 1e6):
            moved = helpers.quantile_utility(np.r_[values, extra], grid, q) - scores
            assert np.abs(moved).max() <= max(q, 1 - q) + 1e-12
        for i in (0, 5, int(np.argmax(values))):
            moved = helpers.quantile_utility(np.delete(values, i), grid, q) - scores
            assert np.abs(moved).max() <= max(q, 1 - q) + 1e-12
    # attained: adding a value below every candidate moves each score by exactly 1 - q or q
    moved = helpers.quantile_utility(np.r_[values, -1.0], grid, 0.9) - helpers.quantile_utility(values, grid, 0.9)
    assert np.isclose(np.abs(moved).max(), 0.1)


@pytest.mark.parametrize("kwargs, exc, word", [
    (dict(values=[]), ValueError, "values"),
    (dict(values=[1.0, float("nan")]), ValueError, "values"),
    (dict(candidates="abc"), TypeError, "candidates"),
    (dict(tau=0.0), ValueError, "tau"),
    (dict(tau=1.0), ValueError, "tau"),
    (dict(tau="0.5"), TypeError, "tau"),
])
def test_quantile_utility_rejects_bad_input(kwargs, exc, word):
    args = dict(values=[1.0, 2.0, 3.0], candidates=[0.0, 2.0], tau=0.5)
    args.update(kwargs)
    with pytest.raises(exc, match=f"^{word} must"):
        helpers.quantile_utility(**args)


class FixedDraw(np.random.Generator):
    """A ``numpy.random.Generator`` whose uniform draws are all ``u``: the sampler's edges."""

    def __init__(self, u: float):
        super().__init__(np.random.PCG64(0))
        self.u = u

    def random(self, size=None):
        return self.u if size is None else np.full(size, self.u)


def test_sampling_by_inversion_at_the_ends_of_the_unit_interval():
    """The largest draw below 1 picks the last candidate even when the probabilities' running
    sum rounds below 1 (9 equal candidates: 0.9999999999999997); a draw of exactly 0 never picks
    a candidate whose probability underflows to 0."""
    top = FixedDraw(float(np.nextafter(1.0, 0.0)))
    assert helpers.exponential_mechanism(np.zeros(9), 1.0, 1.0, top) == 8
    assert helpers.exponential_mechanism(np.zeros(9), 1.0, 1.0, top, size=3).tolist() == [8] * 3
    zero = FixedDraw(0.0)
    assert helpers.exponential_mechanism_probabilities([-1e9, 0.0], 1.0, 1.0)[0] == 0.0
    assert helpers.exponential_mechanism([-1e9, 0.0], 1.0, 1.0, zero) == 1
    assert helpers.exponential_mechanism([-1e9, 0.0], 1.0, 1.0, zero, size=2).tolist() == [1, 1]


def test_zero_draws_give_an_empty_int64_array():
    out = helpers.exponential_mechanism([1.0, 2.0], 1.0, 1.0, helpers.make_rng(0), size=0)
    assert out.shape == (0,) and out.dtype == np.int64


# ------------------------------------------------------------------ report-noisy-max, exactly


def test_noisy_max_two_laplace_candidates_match_the_convolution():
    # P[u0 + Z0 > u1 + Z1] = P[Z1 - Z0 < gap]; the difference of two Laplace(b) variables has
    # P[. < t] = 1 - exp(-t/b) (1 + t/(2b)) / 2 for t >= 0
    for gap, b in [(0.0, 1.0), (1.5, 1.0), (3.0, 0.5)]:
        p = helpers.noisy_max_probabilities([gap, 0.0], "laplace", b)
        expected = 1 - 0.5 * math.exp(-gap / b) * (1 + gap / (2 * b))
        assert p == pytest.approx([expected, 1 - expected], abs=1e-6)


def test_noisy_max_with_gumbel_noise_is_the_softmax():
    scores = np.array([2.0, -1.0, 0.5])
    for scale in (0.5, 2.0):
        softmax = np.exp(scores / scale) / np.exp(scores / scale).sum()
        assert helpers.noisy_max_probabilities(scores, "gumbel", scale) == pytest.approx(
            softmax, abs=1e-6)


def test_noisy_max_with_exponential_noise_on_two_candidates():
    # permute-and-flip on two candidates, gap g, scale b: the best wins unless the other is
    # visited first and accepted, probability exp(-g/b)/2
    for gap, b in [(1.0, 1.0), (0.0, 2.0), (4.0, 2.0)]:
        p = helpers.noisy_max_probabilities([gap, 0.0], "exponential", b)
        assert p[1] == pytest.approx(0.5 * math.exp(-gap / b), abs=1e-6)


def test_noisy_max_probabilities_sum_to_one_and_favour_the_best():
    p = helpers.noisy_max_probabilities([5.0, 1.0, 3.0, 3.0], "laplace", 1.0, n_grid=4001)
    assert p.sum() == pytest.approx(1.0, abs=1e-12)
    assert p[2] == pytest.approx(p[3], abs=1e-9)
    assert p[0] > p[2] > p[1]


@pytest.mark.parametrize("kwargs, error, name", [
    ({"scores": [1.0, 2.0], "noise": "normal", "scale": 1.0}, ValueError, "noise"),
    ({"scores": [1.0, 2.0], "noise": "laplace", "scale": 0.0}, ValueError, "scale"),
    ({"scores": [[1.0, 2.0]], "noise": "laplace", "scale": 1.0}, ValueError, "scores"),
    ({"scores": "12", "noise": "laplace", "scale": 1.0}, TypeError, "scores"),
    ({"scores": [1.0, np.nan], "noise": "laplace", "scale": 1.0}, ValueError, "scores"),
    ({"scores": [1.0, 2.0], "noise": "laplace", "scale": 1.0, "n_grid": 2}, ValueError, "n_grid"),
])
def test_noisy_max_probabilities_rejects_bad_input(kwargs, error, name):
    with pytest.raises(error, match=name):
        helpers.noisy_max_probabilities(**kwargs)

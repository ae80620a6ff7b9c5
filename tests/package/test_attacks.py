"""What an attacker can achieve (chapters/dpcourse/attacks.py): the test bound and the Igor attack."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, stats

import helpers


# --------------------------------------------------------------------------------------------
# hypothesis_test_bound
# --------------------------------------------------------------------------------------------


def test_hypothesis_test_bound_matches_the_best_test_on_randomized_response():
    """Randomized response attains the bound: its best test (report = guess) keeps with p."""
    for epsilon in (0.0, 0.1, 1.0, 3.0):
        bound = helpers.hypothesis_test_bound(epsilon)
        assert isinstance(bound, float)
        assert math.isclose(bound, math.exp(epsilon) / (1 + math.exp(epsilon)), rel_tol=1e-12)
        if epsilon > 0:
            assert math.isclose(bound, helpers.randomized_response_keep_probability(epsilon))
    grid = helpers.hypothesis_test_bound(np.array([[0.0, 1.0], [2.0, 50.0]]))
    assert grid.shape == (2, 2) and grid[0, 0] == 0.5 and 0.999 < grid[1, 1] <= 1.0
    assert np.all(np.diff(helpers.hypothesis_test_bound(np.linspace(0, 5, 50))) > 0)


@pytest.mark.parametrize("epsilon, exc", [(-0.1, ValueError), (float("nan"), ValueError),
                                          (float("inf"), ValueError), ([0.1, -1], ValueError),
                                          ("1", TypeError), (True, TypeError), ([], ValueError),
                                          ({"a": 1}, TypeError)])
def test_hypothesis_test_bound_bad_input(epsilon, exc):
    with pytest.raises(exc, match="epsilon"):
        helpers.hypothesis_test_bound(epsilon)


# --------------------------------------------------------------------------------------------
# differencing attack
# --------------------------------------------------------------------------------------------


# The attack on Igor: success against exact values, normal approximations and the composed bound
EPSILON = 0.1
SCALE = 1 / EPSILON


def exact_success_one_answer(scale: float) -> float:
    """P[correct] for one answer per count: 1 - P[L1 - L2 > 1/2], by numerical integration."""
    tail, _ = integrate.quad(
        lambda x: stats.laplace.pdf(x, scale=scale) * stats.laplace.sf(0.5 + x, scale=scale),
        -np.inf, np.inf)
    return 1 - tail


def composed_bound(total_epsilon: float) -> float:
    return math.exp(total_epsilon) / (1 + math.exp(total_epsilon))


@pytest.mark.parametrize("epsilon", [0.1, 0.5, 1.0, 2.0, 5.0])
def test_one_answer_success_is_the_difference_of_two_laplace_draws(epsilon):
    """Pr[Y1 - Y2 < 1/2] for Y1, Y2 ~ Lap(1/ε); tolerance 5 standard errors at 100,000 trials."""
    b, t = 1 / epsilon, 0.5
    closed_form = 1 - (2 + t / b) * math.exp(-t / b) / 4
    assert exact_success_one_answer(b) == pytest.approx(closed_form, abs=1e-9)
    simulated = helpers.differencing_attack_success(epsilon, helpers.make_rng(64), n_trials=100_000)
    assert abs(simulated - closed_form) < 5 * math.sqrt(0.25 / 100_000)
    assert simulated <= composed_bound(epsilon) + 5 * math.sqrt(0.25 / 100_000)


@pytest.mark.parametrize("k, n_trials, tol", [(10, 100_000, 0.01), (1000, 20_000, 0.015)])
def test_many_answers_match_the_normal_approximation(k, n_trials, tol):
    # mean of k Lap(b) per count; the difference has variance 2 * 2 b^2 / k
    sd = math.sqrt(2 * 2 * SCALE**2 / k)
    theory = stats.norm.cdf(0.5 / sd)
    simulated = helpers.differencing_attack_success(
        EPSILON, helpers.make_rng(7), n_trials=n_trials, n_repeats=k)
    assert abs(simulated - theory) < tol
    assert simulated <= composed_bound(k * EPSILON) + tol


@pytest.mark.parametrize("k", [1, 3, 10, 30])
def test_attack_never_beats_the_composed_bound(k):
    simulated = helpers.differencing_attack_success(
        EPSILON, helpers.make_rng(100 + k), n_trials=50_000, n_repeats=k)
    assert simulated <= composed_bound(k * EPSILON) + 0.01  # 4.5 standard errors
    assert helpers.differencing_attack_success(100.0, helpers.make_rng(k), n_trials=1_000) == 1.0


@pytest.mark.parametrize("kwargs, exc, word", [
    (dict(epsilon=0), ValueError, "epsilon"),
    (dict(n_trials=1), ValueError, "n_trials"),
    (dict(n_repeats=0), ValueError, "n_repeats"),
    (dict(n_repeats=1.5), TypeError, "n_repeats"),
])
def test_differencing_attack_bad_input(kwargs, exc, word):
    args = dict(epsilon=1.0, rng=helpers.make_rng(0), n_trials=10)
    args.update(kwargs)
    with pytest.raises(exc, match=word):
        helpers.differencing_attack_success(**args)


def canonical_approximate_mechanism(epsilon: float, delta: float) -> tuple[np.ndarray, np.ndarray]:
    """The (ε, δ) pair every (ε, δ)-DP mechanism post-processes (Kairouz, Oh, Viswanath 2015)."""
    e = math.exp(epsilon)
    p = np.array([delta, (1 - delta) * e / (1 + e), (1 - delta) / (1 + e), 0.0])
    return p, p[::-1].copy()


@pytest.mark.parametrize("epsilon, delta", [(0.5, 0.01), (1.0, 1e-5), (2.0, 0.2), (0.0, 0.1)])
def test_bound_with_delta_is_attained_by_the_canonical_mechanism(epsilon, delta):
    p, q = canonical_approximate_mechanism(epsilon, delta)
    # it is (ε, δ)-DP: check every one of the 16 output sets, both orders
    for mask in range(16):
        s = np.array([(mask >> i) & 1 for i in range(4)], dtype=bool)
        assert p[s].sum() <= math.exp(epsilon) * q[s].sum() + delta + 1e-12
        assert q[s].sum() <= math.exp(epsilon) * p[s].sum() + delta + 1e-12
    best_test = 0.5 * np.maximum(p, q).sum()  # guess the likelier dataset for every output
    assert helpers.hypothesis_test_bound(epsilon, delta) == pytest.approx(best_test, rel=1e-12)


@pytest.mark.parametrize("delta, exc", [(-0.1, ValueError), (1.5, ValueError),
                                        (float("nan"), ValueError), ("0", TypeError)])
def test_hypothesis_test_bound_bad_delta(delta, exc):
    with pytest.raises(exc, match="delta"):
        helpers.hypothesis_test_bound(1.0, delta)


@pytest.mark.parametrize("call, exc, message", [
    (lambda: helpers.hypothesis_test_bound(-0.1), ValueError, r"^epsilon must be >= 0$"),
    (lambda: helpers.hypothesis_test_bound([0.1, math.nan]), ValueError,
     r"^epsilon must be finite \(no NaN or infinity\)$"),
    (lambda: helpers.hypothesis_test_bound(1.0, -0.1), ValueError,
     r"^delta must be in \[0, 1\], got -0.1$"),
    (lambda: helpers.hypothesis_test_bound(1.0, 1.5), ValueError,
     r"^delta must be in \[0, 1\], got 1.5$"),
    (lambda: helpers.hypothesis_test_bound(1.0, "0"), TypeError, r"^delta must be a real number"),
    (lambda: helpers.differencing_attack_success(0.0, helpers.make_rng(0)), ValueError,
     r"^epsilon must be > 0, got 0.0$"),
    (lambda: helpers.differencing_attack_success(1.0, 0), TypeError,
     r"^rng must be a numpy.random.Generator"),
    (lambda: helpers.differencing_attack_success(1.0, helpers.make_rng(0), n_trials=1), ValueError,
     r"^n_trials must be >= 2, got 1$"),
    (lambda: helpers.differencing_attack_success(1.0, helpers.make_rng(0), n_trials=2.0),
     TypeError, r"^n_trials must be an integer"),
    (lambda: helpers.differencing_attack_success(1.0, helpers.make_rng(0), n_repeats=0),
     ValueError, r"^n_repeats must be >= 1, got 0$"),
])
def test_messages_start_with_the_parameter(call, exc, message):
    with pytest.raises(exc, match=message):
        call()


def test_the_edges_of_the_parameters_are_accepted():
    # δ = 1 allows anything: the bound is 1; δ = 0 and ε = 0: a coin flip
    assert helpers.hypothesis_test_bound(0.5, 1.0) == 1.0
    assert helpers.hypothesis_test_bound(0.0, 0.0) == 0.5
    # the fewest trials: one world each; ε = 100 (noise scale 0.01) tells them apart surely
    assert helpers.differencing_attack_success(100.0, helpers.make_rng(1), n_trials=2) == 1.0
    # one answer per count and 100,000 trials by default
    a = helpers.differencing_attack_success(0.5, helpers.make_rng(2), n_trials=1_000)
    b = helpers.differencing_attack_success(0.5, helpers.make_rng(2), n_trials=1_000, n_repeats=1)
    assert a == b
    assert (helpers.differencing_attack_success(0.5, helpers.make_rng(3))
            == helpers.differencing_attack_success(0.5, helpers.make_rng(3), n_trials=100_000))

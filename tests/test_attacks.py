"""What an attacker can achieve (dpcourse/attacks.py): the test bound and the Igor attack."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from scipy import stats

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


def test_differencing_attack_exact_at_one_repeat():
    """At one repeat the success probability is P(L1 - L2 > -1/2) for two Lap(b) draws."""
    epsilon = 0.5
    b = 1 / epsilon
    x = 0.5
    # P(0 < L1 - L2 < x): the difference has density (1 + |z|/b) e^{-|z|/b} / (4b)
    between = 0.5 - (2 + x / b) * math.exp(-x / b) / 4
    expected = 0.5 + between
    got = helpers.differencing_attack_success(epsilon, helpers.make_rng(8), n_trials=200_000)
    assert abs(got - expected) < 4 * math.sqrt(0.25 / 200_000)


def test_differencing_attack_respects_bound_and_grows_with_repeats():
    rng = helpers.make_rng(9)
    once = helpers.differencing_attack_success(0.1, rng, n_trials=40_000)
    many = helpers.differencing_attack_success(0.1, rng, n_trials=4_000, n_repeats=1_000)
    assert once <= math.exp(0.1) / (1 + math.exp(0.1)) + 0.01
    assert 0.74 < many < 0.82  # normal approximation gives 0.785
    assert helpers.differencing_attack_success(100.0, rng, n_trials=1_000) == 1.0


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

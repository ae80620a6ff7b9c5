"""Empirical auditing (chapters/dpcourse/auditing.py)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import helpers


# --------------------------------------------------------------------------------------------
# audit_epsilon
# --------------------------------------------------------------------------------------------


def test_audit_passes_correct_laplace():
    for seed, epsilon in [(10, 0.5), (11, 1.0), (12, 2.0)]:
        mech = lambda d, rng, size, e=epsilon: helpers.laplace_mechanism(
            np.full(size, float(d)), 1.0, e, rng)
        result = helpers.audit_epsilon(mech, 0, 1, helpers.make_rng(seed))
        assert result.epsilon_lower_bound <= epsilon
        assert result.epsilon_lower_bound > 0.5 * epsilon  # the audit has power
        assert result.n_samples == 200_000 and result.confidence == 0.95


def test_audit_catches_buggy_mechanisms():
    epsilon = 0.5
    wrong_scale = lambda d, rng, size: d + rng.laplace(0, epsilon, size)  # scale = epsilon
    gaussian = lambda d, rng, size: d + rng.normal(0, 1 / epsilon, size)  # "sold as eps-DP"
    r1 = helpers.audit_epsilon(wrong_scale, 0, 1, helpers.make_rng(13))
    assert r1.epsilon_lower_bound > epsilon
    r2 = helpers.audit_epsilon(gaussian, 0, 1, helpers.make_rng(14), n_samples=1_000_000)
    assert r2.epsilon_lower_bound > epsilon
    assert ">=" in r2.event or "<" in r2.event


def test_audit_no_evidence_gives_zero():
    same = lambda d, rng, size: rng.laplace(0, 1, size)  # ignores the data: 0-DP
    result = helpers.audit_epsilon(same, 0, 1, helpers.make_rng(15), n_samples=20_000)
    assert result.epsilon_lower_bound < 0.1
    constant = lambda d, rng, size: np.full(size, 3.0)
    assert helpers.audit_epsilon(constant, 0, 1, helpers.make_rng(0),
                                 n_samples=1_000).epsilon_lower_bound == 0.0


def test_audit_discrete_outputs_randomized_response():
    epsilon = 1.0
    rr = lambda bit, rng, size: helpers.randomized_response(np.full(size, bit), epsilon, rng)
    result = helpers.audit_epsilon(rr, 1, 0, helpers.make_rng(16), n_samples=100_000)
    assert 0.8 < result.epsilon_lower_bound <= epsilon


@pytest.mark.parametrize("kwargs, exc, word", [
    (dict(mechanism=3), TypeError, "mechanism"),
    (dict(n_samples=10), ValueError, "n_samples"),
    (dict(n_samples=1e5), TypeError, "n_samples"),
    (dict(confidence=1.0), ValueError, "confidence"),
    (dict(confidence="high"), TypeError, "confidence"),
    (dict(n_thresholds=0), ValueError, "n_thresholds"),
    (dict(n_thresholds=2.0), TypeError, "n_thresholds"),
    (dict(rng=1), TypeError, "rng"),
    (dict(mechanism=lambda d, rng, size: np.zeros(3)), ValueError, "shape"),
    (dict(mechanism=lambda d, rng, size: np.full(size, np.nan)), ValueError, "NaN"),
])
def test_audit_bad_input(kwargs, exc, word):
    args = dict(mechanism=lambda d, rng, size: rng.laplace(d, 1, size), dataset=0, neighbour=1,
                rng=helpers.make_rng(0), n_samples=1_000)
    args.update(kwargs)
    with pytest.raises(exc, match=word):
        helpers.audit_epsilon(**args)


def test_audit_with_delta_passes_a_calibrated_gaussian_and_catches_a_sensitivity_bug():
    """Claim (1, 1e-5): σ from the exact calibration for Δ2 = 1. A query whose real
    sensitivity is 3 (a person in 9 bins, Δ2 = √9) breaks the claim, and the audit says so."""
    sigma = helpers.gaussian_sigma(1.0, 1e-5)
    right = lambda d, rng, size: helpers.gaussian_mechanism(np.full(size, float(d)), sigma, rng)
    wrong = lambda d, rng, size: helpers.gaussian_mechanism(np.full(size, 3.0 * d), sigma, rng)
    ok = helpers.audit_epsilon(right, 0, 1, helpers.make_rng(18), n_samples=400_000, delta=1e-5)
    bad = helpers.audit_epsilon(wrong, 0, 1, helpers.make_rng(19), n_samples=400_000, delta=1e-5)
    assert ok.epsilon_lower_bound <= 1.0 and ok.delta == 1e-5
    assert bad.epsilon_lower_bound > 1.0


def test_audit_delta_lowers_the_bound():
    mech = lambda d, rng, size: rng.laplace(d, 1.0, size)
    plain = helpers.audit_epsilon(mech, 0, 1, helpers.make_rng(21), n_samples=20_000)
    slack = helpers.audit_epsilon(mech, 0, 1, helpers.make_rng(21), n_samples=20_000, delta=0.05)
    assert slack.epsilon_lower_bound < plain.epsilon_lower_bound


@pytest.mark.parametrize("delta, exc", [(-0.1, ValueError), (1.0, ValueError), ("0", TypeError)])
def test_audit_bad_delta(delta, exc):
    with pytest.raises(exc, match="delta"):
        helpers.audit_epsilon(lambda d, rng, size: rng.laplace(d, 1, size), 0, 1,
                              helpers.make_rng(0), n_samples=1_000, delta=delta)

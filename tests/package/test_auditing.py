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


# --------------------------------------------------------------------------------------------
# The Clopper-Pearson bounds and the audit's arithmetic, against independent references
# --------------------------------------------------------------------------------------------


def scipy_bounds(k: int, n: int, alpha: float) -> tuple[float, float]:
    """SciPy's exact (Clopper-Pearson) one-sided bounds at level 1 - alpha, found by root
    finding on the binomial distribution (not from beta quantiles)."""
    lower = stats.binomtest(k, n, alternative="greater").proportion_ci(1 - alpha, "exact").low
    upper = stats.binomtest(k, n, alternative="less").proportion_ci(1 - alpha, "exact").high
    return lower, upper


@pytest.mark.parametrize("n", [20, 1_000, 100_000])
@pytest.mark.parametrize("alpha", [0.025, 0.1])
def test_clopper_pearson_bounds_equal_scipys_exact_interval(n, alpha):
    from dpcourse.auditing import _clopper_pearson

    ks = np.array(sorted({0, 1, 2, n // 3, n // 2, n - 2, n - 1, n}))
    lower, upper = _clopper_pearson(ks, n, alpha)
    assert lower.dtype == float and upper.dtype == float
    for k, lo, hi in zip(ks, lower, upper):
        ref_lo, ref_hi = scipy_bounds(int(k), n, alpha)
        # SciPy's root finder stops at an absolute 2e-12
        assert lo == pytest.approx(ref_lo, rel=1e-7, abs=1e-11), (k, n)
        assert hi == pytest.approx(ref_hi, rel=1e-7, abs=1e-11), (k, n)
    assert lower[0] == 0.0 and upper[-1] == 1.0  # no success: no lower bound; all: no upper


class Recorder:
    """A mechanism that hands out prepared outputs and keeps what it gave, in call order."""

    def __init__(self, outputs: dict):
        self.outputs, self.calls = outputs, []

    def __call__(self, data, rng, size):
        out = self.outputs[data](rng, size)
        self.calls.append(np.asarray(out))
        return out


def parse_event(event: str) -> tuple[str, float, int]:
    """("ge" or "lt", threshold, index of the dataset the event is more likely on)."""
    words = event.split()
    assert words[0] == "output" and words[1] in (">=", "<"), event
    assert event.endswith(("(more likely on the dataset)", "(more likely on the neighbour)"))
    return ("ge" if words[1] == ">=" else "lt", float(words[2]),
            0 if event.endswith("dataset)") else 1)


def check_audit(result, recorder: Recorder, n_samples: int, n_thresholds: int,
                confidence: float, delta: float) -> None:
    """Check a result against the documented procedure, recomputed by brute force:

    * the first half (n_samples // 2) of each sample selects, the rest tests;
    * candidate thresholds are the pooled selection half's quantiles at i / (n_thresholds + 1);
    * the event maximises ln((k_S + 1) / (k'_S + 1)) over the selection half's counts (k_S on
      the dataset it is more likely on), over both kinds and both directions;
    * p_hat, q_hat are the event's frequencies in the test halves, and the bound is
      ln((p_low - delta) / q_high) from SciPy's exact intervals at (1 - confidence) / 2 each.
    """
    assert len(recorder.calls) == 2
    half = n_samples // 2
    select = [s[:half] for s in recorder.calls]
    test = [s[half:] for s in recorder.calls]
    levels = [(i + 1) / (n_thresholds + 1) for i in range(n_thresholds)]
    thresholds = np.unique(np.quantile(np.concatenate(select), levels))

    def inside(x, kind, c):
        return x >= c if kind == "ge" else x < c

    scores = {}
    for big in (0, 1):
        for kind in ("ge", "lt"):
            for c in thresholds:
                k_big = int(np.sum(inside(select[big], kind, c)))
                k_small = int(np.sum(inside(select[1 - big], kind, c)))
                scores[(big, kind, float(c))] = math.log((k_big + 1) / (k_small + 1))
    kind, c_shown, big = parse_event(result.event)
    # the threshold as printed has 6 significant digits: find the candidate it names
    named = [key for key in scores if key[:2] == (big, kind) and f"{key[2]:.6g}" == f"{c_shown:.6g}"]
    assert len(named) == 1, (result.event, named)
    chosen = named[0]
    assert scores[chosen] >= max(scores.values()) - 1e-9, (result.event, max(scores.values()))
    k_p = int(np.sum(inside(test[big], kind, chosen[2])))
    k_q = int(np.sum(inside(test[1 - big], kind, chosen[2])))
    n_test = n_samples - half
    assert (result.p_hat, result.q_hat) == (k_p / n_test, k_q / n_test)
    alpha = (1 - confidence) / 2
    p_low, _ = scipy_bounds(k_p, n_test, alpha)
    _, q_high = scipy_bounds(k_q, n_test, alpha)
    expected = math.log((p_low - delta) / q_high) if p_low > delta else 0.0
    assert result.epsilon_lower_bound == pytest.approx(max(expected, 0.0), rel=1e-6, abs=1e-9)
    assert (result.n_samples, result.confidence, result.delta) == (n_samples, confidence, delta)


SCENARIOS = {
    # name: (outputs on the dataset, on the neighbour): continuous, discrete, one-sided supports
    "laplace": (lambda rng, size: rng.laplace(1.0, 1.0, size),
                lambda rng, size: rng.laplace(0.0, 1.0, size)),
    "geometric": (lambda rng, size: rng.geometric(0.3, size),
                  lambda rng, size: rng.geometric(0.4, size)),
    "exponential shift, lower support": (lambda rng, size: 1.0 + rng.exponential(1.0, size),
                                         lambda rng, size: rng.exponential(1.0, size)),
    "exponential shift, upper support": (lambda rng, size: 1.0 - rng.exponential(1.0, size),
                                         lambda rng, size: -rng.exponential(1.0, size)),
    "binomial": (lambda rng, size: rng.binomial(8, 0.3, size),
                 lambda rng, size: rng.binomial(8, 0.45, size)),
    "rare events": (lambda rng, size: rng.poisson(0.05, size),
                    lambda rng, size: rng.poisson(0.02, size)),
}


@pytest.mark.parametrize("name", SCENARIOS)
@pytest.mark.parametrize("n_samples, n_thresholds, confidence, delta", [
    (2_001, 200, 0.95, 0.0), (301, 7, 0.9, 0.0), (5_001, 50, 0.99, 0.01), (400, 1, 0.95, 0.0)])
def test_audit_follows_its_documented_procedure(name, n_samples, n_thresholds, confidence,
                                                delta):
    on_dataset, on_neighbour = SCENARIOS[name]
    recorder = Recorder({"D": on_dataset, "D'": on_neighbour})
    result = helpers.audit_epsilon(recorder, "D", "D'", helpers.make_rng(len(name)),
                                   n_samples=n_samples, n_thresholds=n_thresholds,
                                   confidence=confidence, delta=delta)
    check_audit(result, recorder, n_samples, n_thresholds, confidence, delta)


def test_audit_defaults_are_200_thresholds_and_95_percent():
    on_dataset, on_neighbour = SCENARIOS["laplace"]
    recorder = Recorder({0: on_dataset, 1: on_neighbour})
    result = helpers.audit_epsilon(recorder, 0, 1, helpers.make_rng(3), n_samples=4_000)
    check_audit(result, recorder, 4_000, 200, 0.95, 0.0)


def test_one_threshold_is_the_pooled_median():
    recorder = Recorder({0: lambda rng, size: rng.normal(0.3, 1.0, size),
                         1: lambda rng, size: rng.normal(0.0, 1.0, size)})
    result = helpers.audit_epsilon(recorder, 0, 1, helpers.make_rng(5), n_samples=1_001,
                                   n_thresholds=1)
    median = np.median(np.concatenate([s[:500] for s in recorder.calls]))
    assert parse_event(result.event)[1] == pytest.approx(median, rel=1e-5)


def test_the_event_names_the_dataset_it_is_more_likely_on():
    """Outputs >= 1 happen only on the dataset (1 + Exp), outputs < 0 only on the neighbour."""
    up = Recorder({1: lambda rng, size: 1.0 + rng.exponential(1.0, size),
                   0: lambda rng, size: rng.exponential(1.0, size)})
    down = Recorder({1: lambda rng, size: 1.0 - rng.exponential(1.0, size),
                     0: lambda rng, size: -rng.exponential(1.0, size)})
    r_up = helpers.audit_epsilon(up, 1, 0, helpers.make_rng(6), n_samples=2_000)
    r_down = helpers.audit_epsilon(down, 1, 0, helpers.make_rng(7), n_samples=2_000)
    assert r_up.event.startswith("output < ") and r_up.event.endswith("on the neighbour)")
    assert r_down.event.startswith("output >= ") and r_down.event.endswith("on the dataset)")
    assert r_up.q_hat == 0.0 and r_down.q_hat == 0.0
    assert r_up.epsilon_lower_bound > 2 and r_down.epsilon_lower_bound > 2


def test_boolean_and_integer_outputs_are_audited_as_numbers():
    epsilon = 1.0
    keep = math.exp(epsilon) / (1 + math.exp(epsilon))
    as_bool = lambda bit, rng, size: (rng.random(size) < keep) == bool(bit)
    as_int = lambda bit, rng, size: as_bool(bit, rng, size).astype(int)
    r_bool = helpers.audit_epsilon(as_bool, 1, 0, helpers.make_rng(8), n_samples=20_000)
    r_int = helpers.audit_epsilon(as_int, 1, 0, helpers.make_rng(8), n_samples=20_000)
    assert r_bool == r_int
    assert 0.5 < r_bool.epsilon_lower_bound <= epsilon


@pytest.mark.parametrize("kwargs, exc, message", [
    (dict(mechanism=3), TypeError, r"^mechanism must be callable"),
    (dict(n_samples=99), ValueError, r"^n_samples must be >= 100, got 99$"),
    (dict(n_samples=1e5), TypeError, r"^n_samples must be an integer"),
    (dict(confidence=0.0), ValueError, r"^confidence must be in \(0, 1\), got 0.0$"),
    (dict(confidence=1.0), ValueError, r"^confidence must be in \(0, 1\), got 1.0$"),
    (dict(confidence="high"), TypeError, r"^confidence must be a real number"),
    (dict(n_thresholds=0), ValueError, r"^n_thresholds must be >= 1, got 0$"),
    (dict(n_thresholds=2.0), TypeError, r"^n_thresholds must be an integer"),
    (dict(delta=-0.1), ValueError, r"^delta must be in \[0, 1\), got -0.1$"),
    (dict(delta="0"), TypeError, r"^delta must be a real number"),
    (dict(rng=1), TypeError, r"^rng must be a numpy.random.Generator"),
    (dict(mechanism=lambda d, rng, size: np.zeros(3)), ValueError,
     r"^mechanism must return shape \(1000,\), got \(3,\)$"),
    (dict(mechanism=lambda d, rng, size: np.full(size, np.inf)), ValueError,
     r"^mechanism returned NaN or infinite outputs$"),
])
def test_audit_errors_name_the_parameter(kwargs, exc, message):
    args = dict(mechanism=lambda d, rng, size: rng.laplace(d, 1, size), dataset=0, neighbour=1,
                rng=helpers.make_rng(0), n_samples=1_000)
    args.update(kwargs)
    with pytest.raises(exc, match=message):
        helpers.audit_epsilon(**args)


def test_smallest_allowed_sizes_are_accepted():
    mech = lambda d, rng, size: rng.laplace(d, 1.0, size)
    result = helpers.audit_epsilon(mech, 0, 1, helpers.make_rng(9), n_samples=100,
                                   n_thresholds=1)
    assert result.n_samples == 100 and result.epsilon_lower_bound >= 0.0

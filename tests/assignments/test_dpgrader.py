"""The grading library of the instructor edition (``assignments/dpgrader.py``).

Each check is tested against an independent fact (a textbook sensitivity, an exact ratio of
randomized response) and on the side it must fail; the audit is run on a correct mechanism over
200 seeds, at the sample size the problems use.
"""

from __future__ import annotations

import math
import time

import numpy as np
import pytest

import dpgrader


def laplace_count(scale):
    def mechanism(data, rng, size):
        return len(data) + rng.laplace(0.0, scale, size=size)
    return mechanism


def test_audit_passes_a_correct_mechanism_over_200_seeds():
    # A correct 1-DP count fails with probability <= 1e-6 per seed by design (the audit's
    # Clopper-Pearson bounds at confidence 1 - 1e-6), so 200 seeds all pass unless the design
    # is wrong; with 5,000 samples per side, as the problems use.
    assert dpgrader.audit_confidence() == 1 - 1e-6
    for seed in range(200):
        dpgrader.check_audit(laplace_count(1.0), [1, 2, 3], [1, 2, 3, 4], 1.0, seed=seed,
                             n_samples=5_000)


def test_audit_catches_a_gross_violation_on_every_seed_but_not_always_a_moderate_one():
    # A missing clip or a swapped epsilon and sensitivity gives a true epsilon of 10 or more:
    # caught on every seed. A 4x violation (true epsilon 4) is missed on some seeds at this
    # sample size, which is why the problems also compare the noise's spread with the
    # reference's (check_noise_scale).
    for seed in range(20):
        with pytest.raises(dpgrader.CheckFailed, match=r"is not 1-DP: .* its true ε is at least"):
            dpgrader.check_audit(laplace_count(0.1), [1, 2, 3], [1, 2, 3, 4], 1.0, seed=seed,
                                 n_samples=5_000)
    caught = 0
    for seed in range(20):
        try:
            dpgrader.check_audit(laplace_count(0.25), [1, 2, 3], [1, 2, 3, 4], 1.0, seed=seed,
                                 n_samples=5_000)
        except dpgrader.CheckFailed:
            caught += 1
    assert 10 <= caught < 20


def test_noise_scale_accepts_the_right_spread_and_refuses_double():
    sd = math.sqrt(2)
    for seed in range(50):
        dpgrader.check_noise_scale(laplace_count(1.0), [1], sd, seed=seed, n_samples=5_000)
    with pytest.raises(dpgrader.CheckFailed, match="standard deviation"):
        dpgrader.check_noise_scale(laplace_count(2.0), [1], sd, seed=0, n_samples=5_000)


def rr(epsilon):
    keep = math.exp(epsilon) / (1 + math.exp(epsilon))
    return lambda bit: {bit: keep, 1 - bit: 1 - keep}


def test_exact_check_of_randomized_response():
    dpgrader.check_pure_dp_exact(rr(1.0), [(0, 1)], 1.0, tight=True)
    with pytest.raises(dpgrader.CheckFailed,
                       match=r"output ratio on neighbouring inputs reached 7.39, above "
                             r"e\^ε = 2.72"):
        dpgrader.check_pure_dp_exact(rr(2.0), [(0, 1)], 1.0)
    with pytest.raises(dpgrader.CheckFailed, match="more private than asked"):
        dpgrader.check_pure_dp_exact(rr(0.5), [(0, 1)], 1.0, tight=True)
    with pytest.raises(dpgrader.CheckFailed, match="infinite"):
        dpgrader.check_pure_dp_exact(lambda b: {b: 1.0}, [(0, 1)], 5.0)
    with pytest.raises(dpgrader.CheckFailed, match="sum to 1"):
        dpgrader.check_pure_dp_exact(lambda b: {0: 0.5, 1: 0.6}, [(0, 1)], 1.0)


def test_brute_force_sensitivity_of_textbook_queries():
    count = lambda d: len(d)  # noqa: E731
    total = lambda d: float(np.clip(d, 0, 5).sum()) if d else 0.0  # noqa: E731
    histogram = lambda d: [d.count(v) for v in "abc"]  # noqa: E731
    assert dpgrader.brute_force_sensitivity(count, "ab", 3, "add-remove") == 1
    assert dpgrader.brute_force_sensitivity(count, "ab", 3, "replace-one") == 0
    assert dpgrader.brute_force_sensitivity(total, (-2, 0, 3, 9), 2, "add-remove") == 5
    assert dpgrader.brute_force_sensitivity(histogram, "abc", 2, "add-remove") == 1
    assert dpgrader.brute_force_sensitivity(histogram, "abc", 2, "replace-one") == 2
    assert dpgrader.brute_force_sensitivity(histogram, "abc", 2, "replace-one", norm=2) == \
        pytest.approx(math.sqrt(2))
    with pytest.raises(dpgrader.CheckFailed, match="too small"):
        dpgrader.check_sensitivity(1, histogram, "abc", 2, "replace-one", what="Δ")
    with pytest.raises(dpgrader.CheckFailed, match="wastes accuracy"):
        dpgrader.check_sensitivity(3, histogram, "abc", 2, "replace-one", what="Δ")


def test_neighbours_of_a_multiset():
    assert sorted(dpgrader.neighbours((1, 1), (1, 2), "add-remove")) == [
        (1,), (1,), (1, 1, 1), (1, 1, 2)]
    assert sorted(dpgrader.neighbours((1, 1), (1, 2), "replace-one")) == [(1, 2), (2, 1)]
    with pytest.raises(ValueError, match="notion"):
        list(dpgrader.neighbours((1,), (1,), "bounded"))


def test_accountant_check():
    dpgrader.check_accountant(3.0, 3.0)
    with pytest.raises(dpgrader.CheckFailed, match="under-counts"):
        dpgrader.check_accountant(2.0, 3.0)
    with pytest.raises(dpgrader.CheckFailed, match="looser"):
        dpgrader.check_accountant(4.0, 3.0)


def test_cost_check_accepts_every_correct_bound_and_refuses_an_overspend():
    from fractions import Fraction

    exact, bound = Fraction(1, 2), Fraction(4, 5)  # per-bin 0.1 and 0.4 under replace-one
    for charged in (exact, Fraction(3, 5), bound):
        dpgrader.check_cost(charged, exact, bound)
    with pytest.raises(dpgrader.CheckFailed, match="less than the true cost 1/2.*overspend"):
        dpgrader.check_cost(Fraction(2, 5), exact, bound)
    with pytest.raises(dpgrader.CheckFailed, match="loosest bound accepted is 4/5"):
        dpgrader.check_cost(Fraction(9, 10), exact, bound)
    with pytest.raises(dpgrader.CheckFailed, match="not an exact Fraction"):
        dpgrader.check_cost(0.5, exact, bound)
    # without a bound, only the exact cost passes
    dpgrader.check_cost(Fraction(1, 2), exact)
    with pytest.raises(dpgrader.CheckFailed, match="more than the true cost"):
        dpgrader.check_cost(Fraction(3, 5), exact)


def test_call_stops_an_endless_loop_and_reports_errors_in_words():
    def spin():
        while True:
            pass

    start = time.perf_counter()
    with pytest.raises(dpgrader.CheckFailed, match=r"did not finish within 0.5 s"):
        dpgrader.call(spin, seconds=0.5)
    assert time.perf_counter() - start < 3

    def stub(x):
        raise NotImplementedError()

    def broken(x):
        return x / 0

    with pytest.raises(dpgrader.CheckFailed, match=r"`stub\(1\)` is not written yet"):
        dpgrader.call(stub, 1)
    with pytest.raises(dpgrader.CheckFailed, match=r"`broken\(1\)` raised ZeroDivisionError"):
        dpgrader.call(broken, 1)
    with pytest.raises(dpgrader.CheckFailed, match="should be a function"):
        dpgrader.call(3)


def test_checks_of_values():
    dpgrader.check_close(0.1 + 0.2, 0.3, "x")
    with pytest.raises(dpgrader.CheckFailed, match="x is 2, but it should be 1"):
        dpgrader.check_close(2, 1, "x")
    with pytest.raises(dpgrader.CheckFailed, match="should be a number"):
        dpgrader.check_close("a", 1, "x")
    with pytest.raises(dpgrader.CheckFailed, match="it lacks \\[3\\]"):
        dpgrader.check_equal([1, 2], [1, 2, 3], "the list")


def test_samples_follow_an_exact_distribution():
    from fractions import Fraction

    rng = np.random.default_rng(3)
    # the discrete Laplace with scale 1: P(k) proportional to exp(-|k|), from its geometric form
    q = math.exp(-1)
    pmf = {k: (1 - q) / (1 + q) * q ** abs(k) for k in range(-12, 13)}
    for seed in range(20):
        rng = np.random.default_rng(seed)
        exact = rng.geometric(1 - q, 20_000) - rng.geometric(1 - q, 20_000)
        dpgrader.check_samples_follow(exact, pmf)
    rounded = np.round(rng.laplace(0, 1, 20_000))  # rounding a continuous Laplace: not it
    with pytest.raises(dpgrader.CheckFailed, match=r"gave -?\d+ \d+ times in 20000 samples"):
        dpgrader.check_samples_follow(rounded, pmf)
    with pytest.raises(dpgrader.CheckFailed, match="never takes"):
        dpgrader.check_samples_follow([0, 1, 2], {0: Fraction(1, 2), 1: Fraction(1, 2)})


def test_laplace_noise_check_passes_laplace_and_refuses_a_shift_a_scale_and_a_shape():
    # A correct sample passes on 200 seeds (each fails with probability 1e-6 by design: the KS
    # p-value of the true distribution is uniform); 3,000 samples, as clipped-sum draws.
    for seed in range(200):
        sample = 50 + np.random.default_rng(seed).laplace(0.0, 4.0, size=3_000)
        dpgrader.check_laplace_noise(sample, 50, 4.0)
    draw = np.random.default_rng(7)
    # the largest gap between the CDFs: 0.125 for twice the scale, 0.12 for a shift of a
    # quarter scale, 0.062 for a Gaussian of the same variance; the KS statistic sqrt(n)·gap
    # must pass about 2.7 to reach a p-value of 1e-6 (3,000 samples: 6.8 and 6.4; the shape
    # needs more: 30,000 give 10.7)
    wrong = {"twice the scale": 50 + draw.laplace(0.0, 8.0, size=3_000),
             "centred elsewhere": 51 + draw.laplace(0.0, 4.0, size=3_000),
             "Gaussian of the same variance": 50 + draw.normal(0.0, 4.0 * math.sqrt(2), 30_000),
             "no noise": np.full(3_000, 50.0)}
    for name, sample in wrong.items():
        with pytest.raises(dpgrader.CheckFailed, match="Kolmogorov-Smirnov p-value"):
            dpgrader.check_laplace_noise(sample, 50, 4.0)

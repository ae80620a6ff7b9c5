"""Tests for the local differential privacy chapter.

The chapter's protocols are loaded from the notebooks (the core ``local-dp`` has k-RR and its
estimator; ``unary-encoding-and-local-hashing`` the other protocols; ``choosing-a-frequency-oracle``
the variance check and the comparison of protocols; ``memoisation-and-the-shuffle-model`` no
tested code) and checked against independent computations: exact output distributions, the
exact distribution of a support count (a convolution of two binomials), simulations with their
own seeds, and closed forms.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import helpers
from conftest import chapter_fixtures, glued
from notebook_code import notebook_namespace

CORE_NAMES = ["grr_probabilities", "grr", "krr_estimate", "krr_sd"]
PROTOCOL_NAMES = ["grr_probabilities", "grr", "ue", "ue_probabilities", "olh_g", "olh",
                  "support_probabilities", "estimate_counts", "exact_variance"]

ch, g = chapter_fixtures("local-dp", CORE_NAMES)


@pytest.fixture(scope="module")
def pr():
    """The protocols of the going-deeper pages (and the comparison of their variances)."""
    namespace = notebook_namespace("unary-encoding-and-local-hashing", PROTOCOL_NAMES)
    choosing = notebook_namespace("choosing-a-frequency-oracle",
                                  ["support_probabilities", "var_star_per_person"])
    namespace["var_star_per_person"] = choosing["var_star_per_person"]
    return namespace


@pytest.fixture(scope="module")
def g_hashing():
    return glued("unary-encoding-and-local-hashing")


@pytest.fixture(scope="module")
def g_choosing():
    return glued("choosing-a-frequency-oracle")


def test_glued_data_facts(g, g_choosing, adult):
    assert g["ldp_n_occupation"] == f"{adult['occupation'].notna().sum():,}"
    assert g_choosing["ldp_n_country"] == f"{adult['native_country'].notna().sum():,}"
    assert (g["ldp_k_occupation"], g_choosing["ldp_k_country"]) == (14, 41)
    counts = adult["occupation"].value_counts()
    assert g["ldp_smallest_name"] == counts.idxmin() and g["ldp_smallest_count"] == counts.min()


@pytest.mark.parametrize("epsilon", [0.3, 1.0, 2.5])
@pytest.mark.parametrize("k", [2, 5, 14])
def test_grr_output_frequencies_and_exact_epsilon(ch, epsilon, k):
    p, q = ch["grr_probabilities"](epsilon, k)
    assert p + (k - 1) * q == pytest.approx(1.0)
    assert math.log(p / q) == pytest.approx(epsilon)
    reports = ch["grr"](np.full(60_000, 1), k, epsilon, helpers.make_rng(5))
    observed = np.bincount(reports, minlength=k)
    expected = np.full(k, q * 60_000)
    expected[1] = p * 60_000
    assert stats.chisquare(observed, expected).pvalue > 1e-3


def test_two_value_grr_is_the_courses_randomized_response(ch):
    for epsilon in (0.1, 1.0, 3.0):
        assert ch["grr_probabilities"](epsilon, 2)[0] == pytest.approx(
            helpers.randomized_response_keep_probability(epsilon), rel=1e-12)


def test_the_core_estimator_on_two_values_is_the_randomized_response_estimator(ch):
    """Exercise ex-ldp-binary-krr: k-RR's share estimate is helpers.estimate_proportion."""
    bits = helpers.make_rng(3).integers(0, 2, size=5_000)
    for epsilon in (0.5, 1.0, 2.0):
        reports = helpers.randomized_response(bits, epsilon, helpers.make_rng(4))
        share = ch["krr_estimate"](reports, 2, epsilon)[1] / reports.size
        assert share == pytest.approx(helpers.estimate_proportion(reports, epsilon), rel=1e-12)


def test_the_core_estimator_is_unbiased_with_the_formulas_spread(ch):
    """Seeded: mean within 5 standard errors of the truth; the spread within 15% of krr_sd,
    whose square is the mean over values of the exact variance (two binomials convolved)."""
    rng = helpers.make_rng(11)
    k, epsilon, repetitions = 6, 1.0, 400
    values = rng.integers(0, k, size=3_000)
    truth = np.bincount(values, minlength=k)
    runs = np.array([ch["krr_estimate"](ch["grr"](values, k, epsilon, rng), k, epsilon)
                     for _ in range(repetitions)])
    p, r = math.exp(epsilon) / (math.exp(epsilon) + k - 1), 1 / (math.exp(epsilon) + k - 1)
    exact = [exact_support_variance(int(n_v), values.size - int(n_v), p, r) / (p - r) ** 2
             for n_v in truth]
    assert np.all(np.abs(runs.mean(axis=0) - truth) < 5 * np.sqrt(exact) / math.sqrt(repetitions))
    assert ch["krr_sd"](values.size, k, epsilon) == pytest.approx(
        math.sqrt(np.mean(exact)), rel=1e-9)
    assert math.sqrt(np.mean((runs - truth) ** 2)) == pytest.approx(
        math.sqrt(np.mean(exact)), rel=0.15)


@pytest.mark.parametrize("variant", ["SUE", "OUE"])
def test_unary_encoding_is_exactly_epsilon_ldp(pr, variant):
    for epsilon in (0.5, 1.0, 4.0):
        p, q = pr["ue_probabilities"](epsilon, variant)
        assert math.log(p * (1 - q) / ((1 - p) * q)) == pytest.approx(epsilon)


def exact_support_variance(n_v: int, n_other: int, p: float, q: float) -> float:
    """Variance of S_v from its exact distribution: Binomial(n_v, p) + Binomial(n_other, q)."""
    a = stats.binom.pmf(np.arange(n_v + 1), n_v, p)
    b = stats.binom.pmf(np.arange(n_other + 1), n_other, q)
    pmf = np.convolve(a, b)
    s = np.arange(pmf.size)
    mean = float(np.sum(s * pmf))
    return float(np.sum((s - mean) ** 2 * pmf))


@pytest.mark.parametrize("protocol", ["k-RR", "SUE", "OUE", "OLH"])
def test_exact_variance_formula_against_the_exact_distribution(pr, protocol):
    k, n, n_v, epsilon = 6, 300, 70, 1.3
    p_star, q_star = pr["support_probabilities"](protocol, epsilon, k)
    var_support = exact_support_variance(n_v, n - n_v, p_star, q_star)
    assert pr["exact_variance"](protocol, epsilon, k, n, n_v / n) == pytest.approx(
        var_support / (p_star - q_star) ** 2, rel=1e-9)


def test_olh_supports_other_values_with_probability_one_over_g(pr):
    """The reason each person needs their own hash: q* = 1/g for non-holders."""
    epsilon, k, n = 1.0, 5, 200_000
    values = np.zeros(n, dtype=int)  # everyone holds value 0
    support = pr["olh"](values, k, epsilon, helpers.make_rng(8))
    gg = pr["olh_g"](epsilon)
    p = math.exp(epsilon) / (math.exp(epsilon) + gg - 1)
    se_q = math.sqrt(n * (1 / gg) * (1 - 1 / gg))
    assert abs(support[0] - n * p) < 5 * math.sqrt(n * p * (1 - p))
    assert np.all(np.abs(support[1:] - n / gg) < 5 * se_q)


@pytest.mark.parametrize("protocol", ["k-RR", "SUE", "OUE", "OLH"])
def test_estimator_is_unbiased(pr, protocol):
    rng = helpers.make_rng(9)
    k, epsilon = 6, 1.0
    values = rng.integers(0, k, size=5_000)
    truth = np.bincount(values, minlength=k)
    runs = []
    for _ in range(60):
        if protocol == "k-RR":
            support = np.bincount(pr["grr"](values, k, epsilon, rng), minlength=k)
        elif protocol == "OLH":
            support = pr["olh"](values, k, epsilon, rng)
        else:
            support = pr["ue"](values, k, *pr["ue_probabilities"](epsilon, protocol), rng)
        runs.append(pr["estimate_counts"](support, values.size, protocol, epsilon, k))
    sd = np.sqrt(pr["exact_variance"](protocol, epsilon, k, values.size, truth / values.size))
    assert np.all(np.abs(np.mean(runs, axis=0) - truth) < 5 * sd / math.sqrt(60))


def test_glued_variance_check_and_winners(g_choosing, pr):
    g = g_choosing
    assert float(g["ldp_variance_worst"].rstrip("%")) < 20
    assert g["ldp_variance_runs"] == 16
    for column, k in (("occupation", 14), ("native_country", 41)):
        for epsilon in (1, 4):
            best = min(["k-RR", "SUE", "OUE", "OLH"],
                       key=lambda name: pr["var_star_per_person"](name, float(epsilon), k))
            assert g[f"ldp_best_{column}_{epsilon}"] == best


def test_crossover_is_k_minus_two_below_three_e_to_the_epsilon(g_choosing, pr):
    g = g_choosing
    for epsilon, key in ((1.0, "ldp_crossover_eps1"), (3.0, "ldp_crossover_eps3")):
        grr_wins = [k for k in range(2, 200) if pr["var_star_per_person"]("k-RR", epsilon, k)
                    < pr["var_star_per_person"]("OUE", epsilon, k)]
        assert g[key] == max(grr_wins) == math.ceil(3 * math.exp(epsilon) + 2) - 1
    assert g["ldp_crossover_exact"] == f"{math.log(14 / 3):.3f}"
    # OLH against k-RR for the core's 14 occupations at epsilon 1 (g = 4), from closed forms
    e = math.e
    olh = (1 / 4) * (3 / 4) / (e / (e + 3) - 1 / 4) ** 2
    krr = (e + 12) / (e - 1) ** 2
    assert g["ldp_olh_vs_krr_14"] == f"{math.sqrt(olh / krr):.2f}"


def test_glued_exact_epsilons_and_the_daily_attack(g, g_hashing):
    assert g_hashing["ldp_exact_eps"].count("1.000000000000") == 4
    day1 = float(g["ldp_attack_day1"].rstrip("%")) / 100
    p = float(g["ldp_attack_p"])
    assert p == pytest.approx(math.e / (math.e + 13), abs=5e-4)
    assert abs(day1 - p) < 0.03  # 2,000 phones: standard error about 0.008
    assert float(g["ldp_attack_day30"].rstrip("%")) > 50


def test_local_error_grows_like_root_n_and_central_does_not(g):
    assert 0.4 < float(g["ldp_slope"]) < 0.6
    n, k = 30_718, 14
    p, q = math.e / (math.e + k - 1), 1 / (math.e + k - 1)  # k-RR at epsilon 1
    # root mean square over the k counts of the exact sd (the shares average 1/k)
    local_sd = math.sqrt(n * q * (1 - q) / (p - q) ** 2 + n / k * (1 - p - q) / (p - q))
    assert float(g["ldp_local_sd_full"]) == pytest.approx(local_sd, rel=0.15)
    # central: Lap(2/epsilon) per count (replace-one, as the local reports), sd 2 sqrt(2)
    assert float(g["ldp_ratio_full"]) == pytest.approx(local_sd / (2 * math.sqrt(2)), rel=0.2)


def test_rappor_budget_exercise_is_four_ln_three():
    """Exercise ex-ldp-rappor-budget: 2h bits differ, each ln((1 - f/2)/(f/2)) = ln 3."""
    ns = notebook_namespace("memoisation-and-the-shuffle-model", ["h", "f", "eps_infinity"])
    assert (ns["h"], ns["f"]) == (2, 0.5)
    assert ns["eps_infinity"] == pytest.approx(4 * math.log(3), rel=1e-12)


def test_more_people_exercise_answers(g):
    """Exercise ex-ldp-more-people (k = 2, ε = 1): the local count's sd from the exact
    distribution of S_1 (two binomials convolved), the same for every share of 1s, over the
    central sd 2√2/ε of Lap(2/ε); the n where they are equal; and the smallest n whose share
    is as accurate as a curator's on 1,000 people, found by search, not by the formula."""
    epsilon = 1.0
    p = helpers.randomized_response_keep_probability(epsilon)  # r = 1 - p
    central = 2 * math.sqrt(2) / epsilon

    def local_sd(n):
        sds = {math.sqrt(exact_support_variance(n_1, n - n_1, p, 1 - p)) / (2 * p - 1)
               for n_1 in (0, n // 3, n)}
        assert max(sds) == pytest.approx(min(sds), rel=1e-9)  # whatever the share of 1s
        return max(sds)

    ratios = {n: local_sd(n) / central for n in (100, 10_000)}
    assert g["ldp_ex_ratio_100"] == f"{ratios[100]:.3g}" == "3.39"
    assert g["ldp_ex_ratio_10000"] == f"{ratios[10_000]:.3g}" == "33.9"
    assert g["ldp_ex_factor"] == "10" and ratios[10_000] / ratios[100] == pytest.approx(10)
    n_equal = float(g["ldp_ex_n_equal"])
    assert local_sd(8) < central < local_sd(9)  # the ratio crosses 1 between 8 and 9 people
    assert n_equal == pytest.approx(central ** 2 * (2 * p - 1) ** 2 / (p * (1 - p)), abs=5e-3)

    def local_share_sd(n):  # sd of the share estimate, from the binomial variance
        return math.sqrt(n * p * (1 - p)) / (2 * p - 1) / n

    target = central / 1_000
    lo, hi = 1, 10**7  # smallest n with local_share_sd(n) <= target, by bisection
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if local_share_sd(mid) <= target else (mid + 1, hi)
    assert g["ldp_ex_n_needed"] == f"{lo:,}"
    assert float(g["ldp_ex_times"]) == pytest.approx(lo / 1_000, abs=0.5)
    assert g["ldp_ex_share_local"] == f"{local_sd(100_000) / 100_000:.2%}"
    assert g["ldp_ex_share_central"] == f"{target:.2%}"
    assert local_share_sd(100_000) > target  # the explorable's n = 100,000 is not yet enough

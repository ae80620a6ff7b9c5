"""Tests for the local differential privacy chapter.

The chapter's protocols are loaded from the notebook and checked against independent
computations: exact output distributions, the exact distribution of a support count (a
convolution of two binomials), simulations with their own seeds, and closed forms.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import helpers
from conftest import chapter_fixtures

NAMES = ["grr_probabilities", "grr", "ue", "ue_probabilities", "olh_g", "olh",
         "support_probabilities", "estimate_counts", "exact_variance", "var_star_per_person"]


ch, g = chapter_fixtures("local-dp", NAMES)


def test_glued_data_facts(g, adult):
    assert g["ldp_n_occupation"] == f"{adult['occupation'].notna().sum():,}"
    assert g["ldp_n_country"] == f"{adult['native_country'].notna().sum():,}"
    assert (g["ldp_k_occupation"], g["ldp_k_country"]) == (14, 41)
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


@pytest.mark.parametrize("variant", ["SUE", "OUE"])
def test_unary_encoding_is_exactly_epsilon_ldp(ch, variant):
    for epsilon in (0.5, 1.0, 4.0):
        p, q = ch["ue_probabilities"](epsilon, variant)
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
def test_exact_variance_formula_against_the_exact_distribution(ch, protocol):
    k, n, n_v, epsilon = 6, 300, 70, 1.3
    p_star, q_star = ch["support_probabilities"](protocol, epsilon, k)
    var_support = exact_support_variance(n_v, n - n_v, p_star, q_star)
    assert ch["exact_variance"](protocol, epsilon, k, n, n_v / n) == pytest.approx(
        var_support / (p_star - q_star) ** 2, rel=1e-9)


def test_olh_supports_other_values_with_probability_one_over_g(ch):
    """The reason each person needs their own hash: q* = 1/g for non-holders."""
    epsilon, k, n = 1.0, 5, 200_000
    values = np.zeros(n, dtype=int)  # everyone holds value 0
    support = ch["olh"](values, k, epsilon, helpers.make_rng(8))
    gg = ch["olh_g"](epsilon)
    p = math.exp(epsilon) / (math.exp(epsilon) + gg - 1)
    se_q = math.sqrt(n * (1 / gg) * (1 - 1 / gg))
    assert abs(support[0] - n * p) < 5 * math.sqrt(n * p * (1 - p))
    assert np.all(np.abs(support[1:] - n / gg) < 5 * se_q)


@pytest.mark.parametrize("protocol", ["k-RR", "SUE", "OUE", "OLH"])
def test_estimator_is_unbiased(ch, protocol):
    rng = helpers.make_rng(9)
    k, epsilon = 6, 1.0
    values = rng.integers(0, k, size=5_000)
    truth = np.bincount(values, minlength=k)
    runs = []
    for _ in range(60):
        if protocol == "k-RR":
            support = np.bincount(ch["grr"](values, k, epsilon, rng), minlength=k)
        elif protocol == "OLH":
            support = ch["olh"](values, k, epsilon, rng)
        else:
            support = ch["ue"](values, k, *ch["ue_probabilities"](epsilon, protocol), rng)
        runs.append(ch["estimate_counts"](support, values.size, protocol, epsilon, k))
    sd = np.sqrt(ch["exact_variance"](protocol, epsilon, k, values.size, truth / values.size))
    assert np.all(np.abs(np.mean(runs, axis=0) - truth) < 5 * sd / math.sqrt(60))


def test_glued_variance_check_and_winners(g, ch):
    assert float(g["ldp_variance_worst"].rstrip("%")) < 20
    assert g["ldp_variance_runs"] == 16
    for column, k in (("occupation", 14), ("native_country", 41)):
        for epsilon in (1, 4):
            best = min(["k-RR", "SUE", "OUE", "OLH"],
                       key=lambda name: ch["var_star_per_person"](name, float(epsilon), k))
            assert g[f"ldp_best_{column}_{epsilon}"] == best


def test_crossover_is_k_minus_two_below_three_e_to_the_epsilon(g, ch):
    for epsilon, key in ((1.0, "ldp_crossover_eps1"), (3.0, "ldp_crossover_eps3")):
        grr_wins = [k for k in range(2, 200) if ch["var_star_per_person"]("k-RR", epsilon, k)
                    < ch["var_star_per_person"]("OUE", epsilon, k)]
        assert g[key] == max(grr_wins) == math.ceil(3 * math.exp(epsilon) + 2) - 1
    assert g["ldp_crossover_exact"] == f"{math.log(14 / 3):.3f}"


def test_glued_exact_epsilons_and_the_daily_attack(g):
    assert g["ldp_exact_eps"].count("1.000000000000") == 4
    day1 = float(g["ldp_attack_day1"].rstrip("%")) / 100
    p = float(g["ldp_attack_p"])
    assert p == pytest.approx(math.e / (math.e + 13), abs=5e-4)
    assert abs(day1 - p) < 0.03  # 2,000 phones: standard error about 0.008
    assert float(g["ldp_attack_day30"].rstrip("%")) > 50


def test_local_error_grows_like_root_n_and_central_does_not(g):
    assert 0.4 < float(g["ldp_slope"]) < 0.6
    n = 30_718
    p, q = math.e / (math.e + 3), 1 / 4  # OLH at epsilon 1: g = round(e) + 1 = 4
    local_sd = math.sqrt(n * q * (1 - q)) / (p - q)
    assert float(g["ldp_local_sd_full"]) == pytest.approx(local_sd, rel=0.15)
    # central: Lap(2/epsilon) per count (replace-one, as the local reports), sd 2 sqrt(2)
    assert float(g["ldp_ratio_full"]) == pytest.approx(local_sd / (2 * math.sqrt(2)), rel=0.2)

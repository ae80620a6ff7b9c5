"""Tests for the Laplace mechanism: the chapter's core and its "Going deeper" sections.

Statistical checks use fixed seeds and state their tolerance. The buggy mechanisms the audit
must catch are defined here independently of the notebooks.

The code lives in six notebooks: the core (``laplace-mechanism``: the count, the audit of the
correct mechanism and of bug 1, the exercises) and its sections ``laplace-implementation-bugs``
(bugs 2 and 3), ``differencing-attack-under-noise`` (the attack on Igor),
``laplace-vector-queries`` (the histogram), ``laplace-privacy-proof`` (the privacy loss) and
``laplace-accuracy`` (the variance, the tail and the error against ε).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import helpers
from notebook_code import notebook_namespace

N = 200_000


# --------------------------------------------------------------------------------------------
# Distribution of the noise
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("beta", [0.01, 0.05, 0.2, 0.5])
def test_tail_bound_is_exact(beta):
    """Pr[|noise| >= (Δ/ε) ln(1/β)] = β; tolerance 5 binomial standard errors."""
    sensitivity, epsilon, n = 1.0, 0.5, 400_000
    noise = helpers.laplace_mechanism(np.zeros(n), sensitivity, epsilon, helpers.make_rng(61))
    rate = np.mean(np.abs(noise) >= sensitivity / epsilon * math.log(1 / beta))
    assert abs(rate - beta) <= 5 * math.sqrt(beta * (1 - beta) / n)


# --------------------------------------------------------------------------------------------
# Facts the chapter states about Adult
# --------------------------------------------------------------------------------------------
def test_age_40_plus_count(adult):
    assert int((adult["age"] >= 40).sum()) == 14_237
    assert int((adult["age"] > 40).sum()) == 13_443


def test_age_band_histogram_sensitivity_add_remove_vs_replace(adult):
    """Fixed disjoint bins: removing a row moves L1 by exactly 1; replacing by at most 2."""
    edges = [17, 25, 35, 45, 55, 65, 91]
    hist = np.histogram(adult["age"], bins=edges)[0]
    assert hist.sum() == len(adult)  # the bins cover every age (17-90)
    rows = adult.sample(50, random_state=0).index
    for i in rows:
        removed = np.histogram(adult["age"].drop(index=i), bins=edges)[0]
        assert np.abs(hist - removed).sum() == 1
    replaced_ages = adult["age"].copy()
    replaced_ages.iloc[0] = 90 if replaced_ages.iloc[0] < 65 else 17
    assert np.abs(hist - np.histogram(replaced_ages, bins=edges)[0]).sum() == 2


def test_int_truncation_bias_is_minus_half():
    """Mean of floor(c + Lap(1)) - c is -1/2; round is unbiased. Tolerance 0.02 (≈ 7 SE)."""
    noisy = 14_237 + helpers.laplace_mechanism(np.zeros(N), 1.0, 1.0, helpers.make_rng(63))
    assert np.mean(np.trunc(noisy) - 14_237) == pytest.approx(-0.5, abs=0.02)
    assert np.mean(np.round(noisy) - 14_237) == pytest.approx(0.0, abs=0.02)


# --------------------------------------------------------------------------------------------
# Audit: passes the real mechanism, catches independently defined bugs
# --------------------------------------------------------------------------------------------
EPS = 0.5
SAMPLES = 1_000_000


def test_notebook_buggy_variants_are_the_described_ones():
    """The notebook's mechanisms (on the Adult pair) give the verdicts the chapter claims."""
    ns = notebook_namespace("laplace-implementation-bugs", [
        "adult", "D", "D_prime", "correct_laplace", "buggy_scale_is_epsilon", "buggy_b_is_variance",
        "buggy_gaussian",
    ])
    D, D_prime = ns["D"], ns["D_prime"]
    assert len(D) - len(D_prime) == 1                      # add/remove neighbours
    assert int((D["age"] >= 40).sum()) - int((D_prime["age"] >= 40).sum()) == 1
    rng = helpers.make_rng(5)
    ok = helpers.audit_epsilon(ns["correct_laplace"](EPS), D, D_prime, rng, n_samples=SAMPLES)
    assert ok.epsilon_lower_bound <= EPS
    for name in ("buggy_scale_is_epsilon", "buggy_b_is_variance", "buggy_gaussian"):
        bad = helpers.audit_epsilon(ns[name](EPS), D, D_prime, rng, n_samples=SAMPLES)
        assert bad.epsilon_lower_bound > EPS, name
    # the buggy scales are what the chapter says they are
    out = ns["buggy_scale_is_epsilon"](EPS)(D, helpers.make_rng(8), N) - 14_237
    assert out.std() == pytest.approx(math.sqrt(2) * EPS, rel=0.02)
    out = ns["buggy_b_is_variance"](EPS)(D, helpers.make_rng(8), N) - 14_237
    assert out.std() == pytest.approx(math.sqrt(2) * math.sqrt(1 / EPS), rel=0.02)


# --------------------------------------------------------------------------------------------
# Attack success against the DP bound
# --------------------------------------------------------------------------------------------
def test_chapter_tables_are_consistent():
    """The notebooks' audit and attack tables agree with the claims in their prose: the core's
    audit is the first two rows of the section's (same seed), and its glued bounds are theirs."""
    from conftest import glued

    core = notebook_namespace("laplace-mechanism", [
        "adult", "D", "D_prime", "correct_laplace", "buggy_scale_is_epsilon", "audit"])
    section = notebook_namespace("laplace-implementation-bugs", [
        "adult", "D", "correct_laplace", "buggy_scale_is_epsilon", "buggy_b_is_variance",
        "buggy_gaussian", "audit",
    ])
    audit: pd.DataFrame = section["audit"]
    verdicts = dict(zip(audit["mechanism"], audit["verdict"]))
    assert verdicts.pop("laplace_mechanism") == "no violation found"
    assert set(verdicts.values()) == {"VIOLATION"}
    core_audit: pd.DataFrame = core["audit"]
    assert list(core_audit["verdict"]) == ["no violation found", "VIOLATION"]
    assert np.array_equal(core_audit["audited lower bound"].to_numpy(),
                          audit["audited lower bound"].to_numpy()[:2])
    g_core, g_bugs = glued("laplace-mechanism"), glued("laplace-implementation-bugs")
    for key in ("lap_audit_correct", "lap_audit_bug1"):
        assert g_core[key] == g_bugs[key]
    attack: pd.DataFrame = notebook_namespace("differencing-attack-under-noise",
                                              ["attack"])["attack"]
    assert bool(attack["below bound"].all())


def test_best_test_with_other_rows_known_is_exact_and_below_bound(health):
    """The chapter's dashed curve: an attacker who knows the other nine rows sees q1 = 4 or 3
    plus Lap(1/ε) noise and guesses "obese" above the midpoint. Simulated independently
    (tolerance 5 binomial SE) and checked to lie strictly below e^ε/(1+e^ε) on a fine grid."""
    obese = health["problem"] == "Obesity"
    q1_real = int(obese.sum())
    q1_neighbour = q1_real - int(obese.loc[helpers.IGOR_INDEX])  # Igor gets another problem
    assert (q1_real, q1_neighbour) == (4, 3)
    rng = np.random.default_rng(66)
    n = 200_000
    for epsilon in (0.1, 1.0, 3.0):
        is_obese = rng.random(n) < 0.5
        released = np.where(is_obese, q1_real, q1_neighbour) + rng.laplace(0, 1 / epsilon, n)
        success = np.mean((released > (q1_real + q1_neighbour) / 2) == is_obese)
        formula = 1 - 0.5 * math.exp(-epsilon / 2)
        assert abs(success - formula) <= 5 * math.sqrt(formula * (1 - formula) / n)
    ns = notebook_namespace("differencing-attack-under-noise", ["attack"])
    attack = ns["attack"]
    expected = 1 - 0.5 * np.exp(-attack["epsilon"].to_numpy() / 2)
    assert np.allclose(attack["knows other 9 rows (exact)"].to_numpy(), expected)
    grid = np.linspace(1e-3, 20, 20_000)
    assert np.all(1 - 0.5 * np.exp(-grid / 2) < np.exp(grid) / (1 + np.exp(grid)))


def test_error_bound_exercise_answers():
    """Exercise on the error bound: each glued answer turns the exact tail around, computed here
    from the tail of scipy's Laplace distribution (an independent implementation)."""
    from conftest import glued

    g = glued("laplace-mechanism")
    # (a) the 99.9% half-width at ε = 0.5 is the 0.9995 quantile of Lap(2); one more nine adds
    # the difference of two such quantiles
    assert float(g["lap_ex_t999"]) == pytest.approx(stats.laplace.ppf(0.9995, scale=2), abs=0.005)
    step = stats.laplace.ppf(0.9995, scale=2) - stats.laplace.ppf(0.995, scale=2)
    assert float(g["lap_ex_nine_step"]) == pytest.approx(step, abs=0.005)
    # (b) the smallest ε whose 95% bound is 10: Pr[|Lap(1/ε)| >= 10] = 0.05 at that ε
    eps = float(g["lap_ex_min_eps"])
    # (rounded to 3 decimals, which moves the tail by at most 10 × 0.0005 relative: 1%)
    assert 2 * stats.laplace.sf(10, scale=1 / eps) == pytest.approx(0.05, rel=1e-2)
    # (c) sensitivity 80 at ε gives the same bound as a count at 0.5 when 80/ε = 1/0.5
    assert float(g["lap_ex_sum_eps"]) == 80 / 2
    assert g["lap_ex_sum_eps"] == "40"


def test_misjudged_share_exercise_answers():
    """Exercise on the attacker's error: the glued share is the error rate of the nearer-centre
    guess, simulated here at three sensitivities (seeded; 5 binomial standard errors) and read
    from scipy's Laplace CDF; the glued bound is the logistic function at -1; and the share is
    above the bound at every ε of a grid, as part (c) proves."""
    from conftest import glued
    from scipy import special

    g = glued("laplace-mechanism")
    share = float(g["lap_ex_misjudged_1"].rstrip("%")) / 100
    assert share == pytest.approx(stats.laplace.cdf(-0.5, scale=1.0), abs=5e-5)
    rng, n = helpers.make_rng(2024), 400_000
    for sens in (0.5, 1.0, 5.0):  # ε = 1: M(D) = f(D) + Lap(Δf); the guess errs below -Δf/2
        rate = np.mean(rng.laplace(0.0, sens, n) < -sens / 2)
        assert abs(rate - share) <= 5 * math.sqrt(share * (1 - share) / n), sens
    assert float(g["lap_ex_bound_1"].rstrip("%")) / 100 == pytest.approx(special.expit(-1),
                                                                         abs=5e-5)
    eps = np.linspace(0.01, 10, 1000)
    assert np.all(stats.laplace.cdf(-eps / 2) > special.expit(-eps))


def test_the_inline_cores_match_the_helpers():
    """The chapter's one-line mechanism and the section's few-line attack draw the same numbers
    as the course's helpers from the same seed (the pages say the helpers do the same)."""
    ns = notebook_namespace("laplace-mechanism", ["laplace_core"])
    for value in (100.0, np.array([1.0, 2.0, 3.0])):
        assert np.array_equal(ns["laplace_core"](value, 2, 0.5, helpers.make_rng(5)),
                              helpers.laplace_mechanism(value, 2, 0.5, helpers.make_rng(5)))
    ns = notebook_namespace("differencing-attack-under-noise", ["attack_core", "q1_real"])
    for epsilon, seed in ((1.0, 3), (0.1, 4)):
        assert ns["attack_core"](epsilon, helpers.make_rng(seed), 100_000) == \
            helpers.differencing_attack_success(epsilon, helpers.make_rng(seed))


# --------------------------------------------------------------------------------------------
# Going deeper: vector queries and the privacy loss
# --------------------------------------------------------------------------------------------
def test_union_bound_section_claims():
    """The six-bin union bound: the glued bound is ln(6/0.05), the glued exact share is
    1 - (1 - 0.05/6)^6 computed here, and the simulated share lies within 5 binomial SE of it."""
    from conftest import glued

    g = glued("laplace-vector-queries")
    assert g["lap_vec_bound"] == f"{math.log(6 / 0.05):.2f}"
    exact = 1 - (1 - 0.05 / 6) ** 6
    assert g["lap_vec_exact"] == f"{exact:.3f}" and exact < 0.05
    assert abs(float(g["lap_vec_share"]) - exact) <= 5 * math.sqrt(exact * (1 - exact) / 1e5) + 5e-4
    # the same probability from scipy's Laplace tail, an independent implementation
    one_bin = 2 * stats.laplace.sf(math.log(6 / 0.05), scale=1.0)
    assert 1 - (1 - one_bin) ** 6 == pytest.approx(exact, rel=1e-12)


def test_privacy_loss_section_reaches_epsilon_and_twice_epsilon():
    """Laplace noise of scale 1/ε on a histogram: privacy loss at most ε against an add/remove
    neighbour, up to 2ε against a replace-one neighbour (checked here on fresh draws)."""
    from conftest import glued

    g = glued("laplace-privacy-proof")
    assert (g["lap_proof_loss_removed"], g["lap_proof_loss_replaced"]) == ("0.500", "1.000")
    eps, k = 0.5, 6
    y = np.random.default_rng(67).laplace(0.0, 1 / eps, size=(50_000, k))
    removed, replaced = np.zeros(k), np.zeros(k)
    removed[0], replaced[0], replaced[1] = -1, -1, 1

    def loss(other):
        return eps * (np.abs(y - other).sum(axis=1) - np.abs(y).sum(axis=1))
    assert np.abs(loss(removed)).max() <= eps + 1e-12
    assert np.abs(loss(replaced)).max() == pytest.approx(2 * eps)


def test_accuracy_section_claims():
    """The accuracy page: the glued sample variance and standard deviation of 200,000 Lap(2)
    draws lie within 5 standard errors of 2b² = 8 and √2·b (the variance of a sample variance of
    Laplace draws is (μ4 - σ⁴)/n with μ4 = 24b⁴); the glued 95% bounds are 2 ln 20 and
    ln(20)/ε at ε = 0.01 and 10; the simulated tail share is within 5 binomial SE of 0.05."""
    from conftest import glued

    g = glued("laplace-accuracy")
    b, n = 2.0, 200_000
    se_var = math.sqrt((24 * b**4 - (2 * b**2) ** 2) / n)
    assert g["lap_var_theory"] == "8"
    assert float(g["lap_var_emp"]) == pytest.approx(2 * b**2, abs=5 * se_var + 0.005)
    assert g["lap_sd_theory"] == f"{math.sqrt(2) * b:.3f}"
    assert float(g["lap_sd_emp"]) == pytest.approx(math.sqrt(2) * b,
                                                    abs=5 * se_var / (2 * math.sqrt(2) * b))
    assert g["lap_tail_t95"] == f"{2 * math.log(20):.2f}"
    assert abs(float(g["lap_tail_emp95"]) - 0.05) <= 5 * math.sqrt(0.05 * 0.95 / 400_000)
    assert g["lap_bound95_eps001"] == f"{math.log(20) / 0.01:.0f}"
    assert g["lap_bound95_eps10"] == f"{math.log(20) / 10:.2f}"
    assert g["lap_true_count"] == glued("laplace-mechanism")["lap_true_count"] == "14,237"


def test_publishing_section_claims():
    """The rounding section's glued biases are -1/2 and 0 up to 5 standard errors of a mean of
    200,000 draws (sd of the error at most √2 + 1), and "all four errors lie within their 95%
    bounds" holds for the stored releases against ln(20)/ε computed here."""
    from conftest import glued

    g = glued("publishing-noisy-counts")
    se = 5 * (math.sqrt(2) + 1) / math.sqrt(200_000)
    assert float(g["lap_bias_int"]) == pytest.approx(-0.5, abs=se)
    assert float(g["lap_bias_round"]) == pytest.approx(0.0, abs=se)
    releases = notebook_namespace("publishing-noisy-counts", ["releases"])["releases"]
    errors = (releases["noisy release"] - 14_237).abs().to_numpy()
    within = errors < np.log(20) / releases["epsilon"].to_numpy()
    assert g["lap_pub_all_within"] == ("all" if within.all() else "not all") == "all"

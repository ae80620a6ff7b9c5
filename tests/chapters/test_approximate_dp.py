"""Tests for the approximate-DP chapter and its going-deeper sections.

The chapter's claims are recomputed independently: exact distributions by counting, the
Gaussian privacy profile from scipy's normal CDF, Google's ``dp_accounting`` (its closed-form
calibration, a search over its PLD accountant, and PLD epsilons), and numerical integration.
"""

from __future__ import annotations

import math
from pathlib import Path

import dp_accounting as dpa
import numpy as np
import pandas as pd
import pytest
from scipy import integrate, stats
from scipy.optimize import brentq

import helpers
from conftest import gaussian_delta, glued
from notebook_code import notebook_namespace

#: the core page and its going-deeper sections, with the names each one's tests load
CODE = {
    "approximate-dp": ["SIGMA_1"],
    "privacy-profile-proofs": ["published", "record_distribution"],
    "gaussian-calibration": ["classic_sigma", "classic_excess"],
    "auditing-gaussian-releases": [],
    "privacy-profiles-and-attackers": ["SIGMA_1", "laplace_delta", "catastrophe_delta"],
    "laplace-or-gaussian-workload": ["queries", "true_counts"],
}


@pytest.fixture(scope="module")
def ch():
    namespace = {}
    for notebook, names in CODE.items():
        if names:
            loaded = notebook_namespace(notebook, names)
            namespace.update({name: loaded[name] for name in names})
    return namespace


@pytest.fixture(scope="module")
def g():
    # every value glued on the core page or a section; no key is glued twice
    values = {}
    for notebook in CODE:
        glue = glued(notebook)
        assert not values.keys() & glue.keys(), notebook
        values.update(glue)
    return values


def delta_scipy(sigma, epsilon, l2=1.0):
    # Balle and Wang (2018), Theorem 8 (conftest.gaussian_delta), in this file's argument order
    return gaussian_delta(epsilon, sigma, l2)


def test_random_record_delta_on_a_small_table_with_duplicates(ch):
    df = pd.DataFrame({"a": [1, 1, 1, 2, 3], "b": ["x", "x", "x", "y", "z"]})
    n = len(df)
    for removed, copies in [(0, 3), (3, 1)]:
        p = ch["record_distribution"](df)
        q = ch["record_distribution"](df.drop(index=removed)).reindex(p.index, fill_value=0.0)
        forward = float(np.clip(p - q, 0, None).sum())
        backward = float(np.clip(q - p, 0, None).sum())
        expected = (n - copies) / (n * (n - 1))  # the proof's total variation distance
        assert forward == pytest.approx(expected) and backward == pytest.approx(expected)
    assert expected == pytest.approx(1 / n)  # a unique row gives exactly 1/n


def test_random_record_glue_is_one_over_n(ch, g, adult):
    assert g["approx_n"] == f"{len(adult):,}"
    assert g["approx_one_over_n"] == helpers.scientific(1 / len(adult))


def test_random_record_attains_delta_equal_to_the_loss_tail(ch, g, adult):
    # delta(eps) <= Pr[L > eps] in general; the random-record mechanism attains equality because
    # its loss is +inf on the unique published row and ln((n-1)/n) < 0 on every other row
    p = ch["record_distribution"](adult)
    q = ch["record_distribution"](adult.drop(index=ch["published"].name)).reindex(p.index, fill_value=0.0)
    with np.errstate(divide="ignore"):
        loss = np.log(p / q)
    assert np.isinf(loss).sum() == 1 and loss[np.isfinite(loss)].max() < 0
    for eps in (0.0, 0.5, 1.0, 10.0):
        delta = float(np.clip(p - math.exp(eps) * q, 0, None).sum())
        assert float(p[loss > eps].sum()) == pytest.approx(delta, rel=1e-12)
        assert delta == pytest.approx(1 / len(adult), rel=1e-12)
    assert g["approx_record_tail"] == helpers.scientific(1 / len(adult))
    # a Gaussian's tail is strictly larger (the chapter's profile table shows it)
    assert float(g["approx_plrv_tail1"]) > float(g["approx_plrv_delta1"])


def test_exposure_shares_match_the_binomial(g, adult):
    n = len(adult)
    assert float(g["approx_expose_share_1n"].rstrip("%")) == pytest.approx(
        100 * (1 - (1 - 1 / n) ** n), abs=1)
    assert float(g["approx_expose_share_1e6"].rstrip("%")) == pytest.approx(
        100 * (1 - (1 - 1e-6) ** n), abs=0.2)


def test_gaussian_privacy_profile_at_sigma_one(g):
    assert g["approx_plrv_delta1"] == f"{delta_scipy(1.0, 1.0):.4f}"
    assert g["approx_plrv_tail1"] == f"{stats.norm.sf(1.0, 0.5, 1.0):.4f}"
    assert float(g["approx_plrv_tail1"]) > float(g["approx_plrv_delta1"])


def test_where_the_classical_sigma_breaks(ch, g):
    def excess(eps, delta):
        sigma = math.sqrt(2 * math.log(1.25 / delta)) / eps
        return math.log(delta_scipy(sigma, eps) / delta)

    for key, delta in [("approx_break_1e3", 1e-3), ("approx_break_1e5", 1e-5),
                       ("approx_ex_break_1e12", 1e-12)]:
        assert g[key] == f"{brentq(excess, 1.0, 15.0, args=(delta,)):.2f}"
    true_delta = delta_scipy(float(ch["classic_sigma"](1.0, 1e-5)), 1.0)
    assert g["approx_classic_true_delta"] == helpers.scientific(true_delta)
    assert true_delta < 1e-5 / 100


def test_analytic_to_classical_ratios_with_dp_accounting(g):
    def ratio(eps):
        return dpa.get_sigma_gaussian(eps, 1e-5) / (math.sqrt(2 * math.log(1.25e5)) / eps)

    assert g["approx_ratio_01"] == f"{ratio(0.1):.3f}"
    assert g["approx_ratio_1"] == f"{ratio(1.0):.3f}"
    assert g["approx_ratio_10"] == f"{ratio(10.0):.3f}" and ratio(10.0) > 1


def test_course_sigma_equals_a_search_over_the_pld_accountant(g):
    searched = dpa.calibrate_dp_mechanism(dpa.pld.PLDAccountant, dpa.GaussianDpEvent, 1.0, 1e-5)
    assert float(g["approx_sigma_1"]) == pytest.approx(searched, abs=1e-4)
    # the audit page calibrates its own sigma the same way
    assert g["approx_audit_sigma"] == g["approx_sigma_1"]


def test_core_sigma_and_the_classical_formula_at_epsilon_ten(ch):
    # the core's comparison: the classical sigma breaks delta = 1e-5 at epsilon = 10
    assert ch["SIGMA_1"] == pytest.approx(dpa.get_sigma_gaussian(1.0, 1e-5), rel=1e-6)
    classic_10 = math.sqrt(2 * math.log(1.25e5)) / 10
    assert delta_scipy(classic_10, 10.0) > 1e-5
    assert delta_scipy(math.sqrt(2 * math.log(1.25e5)), 1.0) < 1e-5


def test_every_section_is_listed_under_the_chapter():
    root = Path(__file__).resolve().parents[2]
    from course_site.archive import toc_sections

    assert toc_sections(root)["chapters/approximate-dp"] == [
        f"chapters/{name}" for name in CODE if name != "approximate-dp"]


def test_audit_glue_is_sound_and_catches_both_bugs(g):
    sigma = helpers.gaussian_sigma(1.0, 1e-5)
    for key_true, key_lb, l2 in [("approx_audit_true_hist", "approx_audit_lb_hist", math.sqrt(2)),
                                 ("approx_audit_true_nine", "approx_audit_lb_nine", 3.0)]:
        accountant = dpa.pld.PLDAccountant(value_discretization_interval=1e-4)
        accountant.compose(dpa.GaussianDpEvent(sigma / l2))  # noise multiplier sigma / sensitivity
        assert float(g[key_true]) == pytest.approx(accountant.get_epsilon(1e-5), abs=0.006)
        assert 1.0 < float(g[key_lb]) <= float(g[key_true])
    assert float(g["approx_audit_lb_ok"]) <= 1.0


def test_attacker_success(g):
    sigma = dpa.get_sigma_gaussian(1.0, 1e-5)
    assert g["approx_test_bound"] == f"{(math.e + 1e-5) / (1 + math.e):.1%}"
    assert g["approx_test_exact"] == f"{stats.norm.cdf(1 / (2 * sigma)):.1%}"


@pytest.mark.parametrize("epsilon0", [0.5, 1.0, 2.0])
def test_laplace_privacy_profile_by_integration(ch, epsilon0):
    for eps in (0.0, epsilon0 / 3, 0.9 * epsilon0, epsilon0, 2 * epsilon0):
        def excess(y):  # (p_D - e^eps p_D')_+ for Laplace(1, 1/eps0) against Laplace(0, 1/eps0)
            p = epsilon0 / 2 * math.exp(-epsilon0 * abs(y - 1))
            q = epsilon0 / 2 * math.exp(-epsilon0 * abs(y))
            return max(p - math.exp(eps) * q, 0.0)

        numeric = sum(integrate.quad(excess, lo, hi, limit=200)[0]
                      for lo, hi in [(-60, 0), (0, 1), (1, 61)])
        assert float(ch["laplace_delta"](eps, epsilon0)) == pytest.approx(numeric, abs=1e-7)


def test_catastrophe_profile_has_a_floor(ch, g):
    eps = np.array([1.0, 2.0, 10.0, 50.0])
    assert np.allclose(ch["catastrophe_delta"](eps), 1e-5, rtol=0, atol=1e-18)
    assert ch["catastrophe_delta"](0.5) > 1e-5
    sigma = helpers.gaussian_sigma(1.0, 1e-5)
    assert g["approx_gauss_delta_2"] == helpers.scientific(delta_scipy(sigma, 2.0))


def test_workload_queries_and_crossover(ch, g, adult):
    queries, counts = ch["queries"], ch["true_counts"]
    assert len(queries) == 172 and len(set(queries)) == 172
    for (column, threshold), count in list(zip(queries, counts))[:20]:
        assert count == (adult[column] >= threshold).sum()
    sigma_one = dpa.get_sigma_gaussian(1.0, 1e-6)
    d = np.arange(1, 173)
    assert g["approx_cross_d"] == int(d[np.argmax(sigma_one * np.sqrt(d) < math.sqrt(2) * d)])
    # simulated errors within 5 % of the noise standard deviations (172 x 200 draws each)
    assert float(g["approx_w_lap_172"]) == pytest.approx(math.sqrt(2) * 172, rel=0.05)
    assert float(g["approx_w_gauss_172"]) == pytest.approx(sigma_one * math.sqrt(172), rel=0.05)
    assert g["approx_w_median"] == f"{np.median(counts):,.0f}"


def test_the_cores_crossover_is_dp_accountings(g):
    """The core's figure (the static one of the explorable gaussian-laplace) finds where the
    analytic Gaussian for (1, 1e-5) beats Laplace at epsilon = 1; dp_accounting's sigma finds
    the same d, from which the Gaussian stays ahead."""
    sigma_one = dpa.get_sigma_gaussian(1.0, 1e-5)
    d = np.arange(1, 1001)
    wins = sigma_one * np.sqrt(d) < math.sqrt(2) * d
    assert g["approx_gl_cross"] == int(d[np.argmax(wins)])
    assert wins[g["approx_gl_cross"] - 1:].all() and not wins[:g["approx_gl_cross"] - 1].any()


def test_exercise_answers(g):
    assert g["approx_ex_loss_a"] == f"{0.5 + math.log(2):.3f}"
    assert float(g["approx_ex_sigma_r1"]) / float(g["approx_ex_sigma_ar"]) == pytest.approx(
        math.sqrt(2), abs=0.01)
    sigma = dpa.get_sigma_gaussian(1.0, 1e-5)
    accountant = dpa.pld.PLDAccountant(value_discretization_interval=1e-4)
    accountant.compose(dpa.GaussianDpEvent(sigma / 3))
    assert float(g["approx_ex_group_eps"]) == pytest.approx(accountant.get_epsilon(1e-5), abs=0.006)
    assert g["approx_ex_group_exact"].startswith(f"{delta_scipy(sigma, 3.0, 3.0):.1e}"[:3])


def test_crossover_exercise_answers(g):
    """Exercise on where the Gaussian beats Laplace: dp_accounting's analytic sigma, compared
    with Laplace's sqrt(2) d / epsilon at every d up to 1,000, gives the glued crossovers (and
    the Gaussian stays ahead from there); the glued ratios and edge are sigma_1 sqrt(d) against
    sqrt(2) d; the classical crossover is the same at every epsilon < 1; and, as parts (b) and
    (c) prove, it bounds the analytic one and, at a fixed epsilon * sigma, scipy's exact delta
    rises with epsilon, so the crossover rises over the explorable's epsilons."""
    d = np.arange(1, 1001)

    def first_win(sigma_one, eps):
        wins = sigma_one * np.sqrt(d) < math.sqrt(2) * d / eps
        first = int(d[np.argmax(wins)])
        assert wins[first - 1:].all() and not wins[:first - 1].any()
        return first

    def cross(eps, delta):
        return first_win(dpa.get_sigma_gaussian(eps, delta), eps)

    sigma = dpa.get_sigma_gaussian(1.0, 1e-5)
    assert g["approx_ex_gl_ratio_1"] == f"{sigma / math.sqrt(2):.3f}"
    assert g["approx_ex_gl_ratio_100"] == f"{sigma * 10 / (math.sqrt(2) * 100):.3f}"
    assert g["approx_ex_gl_edge"] == f"{sigma**2 / 2:.3g}"
    assert g["approx_ex_gl_cross"] == cross(1.0, 1e-5) == g["approx_gl_cross"]
    assert g["approx_ex_gl_cross_1e10"] == cross(1.0, 1e-10)
    assert g["approx_ex_gl_cross_eps01"] == cross(0.1, 1e-5)
    assert g["approx_ex_gl_cross_eps5"] == cross(5.0, 1e-5)
    classical = math.sqrt(2 * math.log(1.25 / 1e-5))  # epsilon * sigma, any epsilon
    assert g["approx_ex_gl_classic_edge"] == f"{classical**2 / 2:.3g}"
    for eps in (0.1, 0.5, 0.9):
        assert g["approx_ex_gl_classic_cross"] == first_win(classical / eps, eps)
    epsilons = [0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5]  # the explorable's slider
    for delta in (1e-10, 1e-5, 1e-3):
        crossings = [cross(eps, delta) for eps in epsilons]
        assert crossings == sorted(crossings) and crossings[0] < crossings[-1], delta
        bound = math.floor(math.log(1.25 / delta)) + 1
        assert all(c <= bound for eps, c in zip(epsilons, crossings) if eps < 1), delta
    for b in (2.0, 3.0, 4.0):  # fixed epsilon * sigma: the exact delta rises with epsilon
        deltas = [delta_scipy(b / eps, eps) for eps in np.linspace(0.1, 5, 50)]
        assert np.all(np.diff(deltas) > 0), b

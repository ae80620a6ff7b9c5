"""Tests for chapter 7, composition and the privacy budget.

Every expected value is computed independently of the code under test: counts with plain
pandas, attack success probabilities from the Laplace distribution (numerical integration for
one answer, the normal approximation for many), budgets by hand with exact fractions.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from scipy import integrate
from scipy.stats import laplace, norm

import helpers
from notebook_code import notebook_namespace

EPSILON = 0.1
SCALE = 1 / EPSILON


@pytest.fixture(scope="module")
def ns():
    return notebook_namespace(
        "composition",
        ["adult", "EDUCATION_LEVELS", "noisy_hist", "clean_histogram", "income_records",
         "RECORDS_STABILITY", "CountingTable", "private_count", "private_histogram"],
    )


@pytest.fixture(scope="module")
def adult():
    return helpers.load_adult()


def composed_bound(total_epsilon: float) -> float:
    return math.exp(total_epsilon) / (1 + math.exp(total_epsilon))


# --------------------------------------------------------------------------------------------
# The accountant
# --------------------------------------------------------------------------------------------
def test_accountant_refuses_before_spending_and_leaves_state_unchanged():
    acc = helpers.PrivacyAccountant(1.0)
    acc.spend(0.6, "first")
    ledger, spent, remaining = list(acc.ledger), acc.spent, acc.remaining_exact
    with pytest.raises(helpers.BudgetExceededError):
        acc.spend(0.5, "too much")
    with pytest.raises(helpers.BudgetExceededError):
        acc.spend_parallel([0.1, 0.5], "too much in parallel")
    assert acc.ledger == ledger
    assert acc.spent == spent
    assert acc.remaining_exact == remaining == Fraction(2, 5)
    acc.spend(0.4, "the rest fits exactly")
    assert acc.remaining_exact == 0


def test_exact_arithmetic_three_spends_of_0_3():
    naive = 1.0 - 0.3 - 0.3 - 0.3
    assert naive != 0.1
    assert repr(naive) == "0.09999999999999998"
    acc = helpers.PrivacyAccountant(1.0)
    for _ in range(3):
        acc.spend(0.3)
    assert acc.remaining_exact == Fraction(1, 10)
    assert acc.remaining == 0.1
    acc.spend(0.1)  # a float accountant (0.0999...) would refuse this
    assert acc.remaining_exact == 0
    with pytest.raises(helpers.BudgetExceededError):
        acc.spend(0.1)


def test_parallel_composition_charges_the_largest_epsilon_once():
    acc = helpers.PrivacyAccountant(1.0)
    acc.spend_parallel([0.3] * 16, "histogram")
    assert acc.remaining_exact == Fraction(7, 10)
    assert len(acc.ledger) == 1
    acc2 = helpers.PrivacyAccountant(1.0)
    acc2.spend_parallel([0.1, 0.5, 0.2])
    assert acc2.remaining_exact == Fraction(1, 2)


# --------------------------------------------------------------------------------------------
# The chapter's release functions
# --------------------------------------------------------------------------------------------
def test_private_count_refused_query_does_not_read_the_data(ns, adult):
    table = ns["CountingTable"](adult)
    acc = helpers.PrivacyAccountant(0.5)
    rng = helpers.make_rng(0)
    older = ns["private_count"](table, acc, lambda df: df["age"] >= 40, 0.3, rng, "age")
    assert table.reads == 1
    assert abs(older - int((adult["age"] >= 40).sum())) < 100  # Lap(1/0.3): P(fail) ~ e^-30
    ledger = list(acc.ledger)
    with pytest.raises(helpers.BudgetExceededError):
        ns["private_count"](table, acc, lambda df: df["sex"] == "Female", 0.3, rng, "women")
    assert table.reads == 1
    assert acc.ledger == ledger
    assert acc.remaining_exact == Fraction(1, 5)


def test_private_count_answers_the_right_query(ns, adult):
    table = ns["CountingTable"](adult)
    acc = helpers.PrivacyAccountant(1e6)
    noisy = ns["private_count"](table, acc, lambda df: df["income"] == ">50K", 1e6,
                                helpers.make_rng(1), "income")
    assert round(noisy) == 7841  # data-facts.md: income >50K in 7,841 rows


def test_private_histogram_is_charged_once_and_counts_fixed_bins(ns, adult):
    table = ns["CountingTable"](adult)
    acc = helpers.PrivacyAccountant(1.0)
    levels = ns["EDUCATION_LEVELS"]
    assert len(levels) == 16 and len(set(levels)) == 16
    assert set(adult["education"].unique()) == set(levels)
    hist = ns["private_histogram"](table, acc, "education", levels, 0.3,
                                   helpers.make_rng(2), "education")
    assert acc.remaining_exact == Fraction(7, 10)
    assert len(acc.ledger) == 1 and table.reads == 1
    expected = adult.groupby("education").size()
    assert list(hist.index) == levels
    # Lap(1/0.3) noise on 16 bins: |noise| < 100 fails with probability ~16 e^-30
    assert np.all(np.abs(hist.to_numpy() - expected.reindex(levels).to_numpy()) < 100)


def test_clean_histogram_is_pure_post_processing(ns):
    noisy = pd.Series([-3.4, 0.6, 10.5, 7.49], index=list("abcd"))
    clean = ns["clean_histogram"](noisy)
    assert clean["released count"].tolist() == [0, 1, 10, 7]  # round half to even, clip at 0
    assert clean["share (%)"].sum() == pytest.approx(100.0)


def test_income_records_is_three_stable(ns, adult):
    records = ns["income_records"](adult)
    expected = int((adult["hours_per_week"] > 0).sum() + (adult["capital_gain"] > 0).sum()
                   + (adult["capital_loss"] > 0).sum())
    assert len(records) == expected
    assert records.groupby("person").size().max() <= ns["RECORDS_STABILITY"] == 3
    # adding one person with every income source adds exactly 3 records
    newcomer = adult.iloc[[0]].copy()
    newcomer[["hours_per_week", "capital_gain", "capital_loss"]] = [40, 1000, 500]
    bigger = pd.concat([adult, newcomer], ignore_index=True)
    assert len(ns["income_records"](bigger)) - len(records) == 3


# --------------------------------------------------------------------------------------------
# Repetition: Monte Carlo against theory and against the composed bound
# --------------------------------------------------------------------------------------------
def exact_success_one_answer(scale: float) -> float:
    """P[correct] for one answer per count: 1 - P[L1 - L2 > 1/2], by numerical integration."""
    tail, _ = integrate.quad(
        lambda x: laplace.pdf(x, scale=scale) * laplace.sf(0.5 + x, scale=scale),
        -np.inf, np.inf)
    return 1 - tail


def test_exact_one_answer_value():
    # the closed form quoted in the chapter: 1 - (2 + t/b) e^{-t/b} / 4 at t = 1/2
    assert exact_success_one_answer(SCALE) == pytest.approx(
        1 - (2 + 0.5 / SCALE) * math.exp(-0.5 / SCALE) / 4, abs=1e-9)
    assert exact_success_one_answer(SCALE) == pytest.approx(0.5125, abs=5e-4)


def test_monte_carlo_one_answer_matches_exact():
    n = 200_000  # standard error 0.0011
    simulated = helpers.differencing_attack_success(EPSILON, helpers.make_rng(2024), n_trials=n)
    assert abs(simulated - exact_success_one_answer(SCALE)) < 0.006
    assert simulated <= composed_bound(EPSILON) + 0.006


@pytest.mark.parametrize("k, n_trials, tol", [(10, 100_000, 0.01), (1000, 20_000, 0.015)])
def test_monte_carlo_many_answers_matches_normal_approximation(k, n_trials, tol):
    # mean of k Lap(b) per count; the difference has variance 2 * 2 b^2 / k
    sd = math.sqrt(2 * 2 * SCALE**2 / k)
    theory = norm.cdf(0.5 / sd)
    simulated = helpers.differencing_attack_success(
        EPSILON, helpers.make_rng(7), n_trials=n_trials, n_repeats=k)
    assert abs(simulated - theory) < tol
    assert simulated <= composed_bound(k * EPSILON) + tol


def test_k1000_is_about_78_percent():
    simulated = helpers.differencing_attack_success(
        EPSILON, helpers.make_rng(11), n_trials=20_000, n_repeats=1000)
    assert 0.77 < simulated < 0.80


@pytest.mark.parametrize("k", [1, 3, 10, 30])
def test_attack_never_beats_the_composed_bound(k):
    simulated = helpers.differencing_attack_success(
        EPSILON, helpers.make_rng(100 + k), n_trials=50_000, n_repeats=k)
    assert simulated <= composed_bound(k * EPSILON) + 0.01  # 4.5 standard errors


# --------------------------------------------------------------------------------------------
# Group privacy and OpenDP
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("c", [1, 4, 8])
def test_group_privacy_midpoint_test(c):
    eps, n = 0.5, 200_000
    rng = helpers.make_rng(5)
    with_group = helpers.laplace_mechanism(np.full(n, 100.0), 1, eps, rng)
    without = helpers.laplace_mechanism(np.full(n, 100.0 - c), 1, eps, rng)
    simulated = (np.mean(with_group > 100 - c / 2) + np.mean(without <= 100 - c / 2)) / 2
    # each world errs when its noise crosses the midpoint, at distance c/2, on one side
    exact = 1 - laplace.sf(c / 2, scale=1 / eps)
    assert exact == pytest.approx(1 - 0.5 * math.exp(-c * eps / 2))
    assert abs(simulated - exact) < 0.005
    assert simulated <= composed_bound(c * eps) + 0.005


def test_opendp_compositor_refuses_the_fourth_query():
    import opendp.prelude as dp

    dp.enable_features("contrib")
    context = dp.Context.compositor(
        data=[30, 40, 50], privacy_unit=dp.unit_of(contributions=1),
        privacy_loss=dp.loss_of(epsilon=1.0), split_evenly_over=3)
    for _ in range(3):
        context.query().count().laplace().release()
    with pytest.raises(ValueError, match="exhausted"):
        context.query().count().laplace().release()

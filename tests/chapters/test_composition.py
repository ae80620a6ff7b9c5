"""Tests for chapter 7, composition and the privacy budget, and its going-deeper sections.

Every expected value is computed independently of the code under test: counts with plain
pandas, attack success probabilities from the Laplace distribution (numerical integration for
one answer, the normal approximation for many), budgets by hand with exact fractions.
"""

from __future__ import annotations

import json
import math
import re
from fractions import Fraction

import numpy as np
import pytest
from scipy import integrate
from scipy.stats import laplace

import helpers
from conftest import glued
from notebook_code import CHAPTERS, notebook_namespace

EPSILON = 0.1
SCALE = 1 / EPSILON


@pytest.fixture(scope="module")
def ns():
    # the going-deeper sections' code is tested in their own files (test_<section>.py)
    return notebook_namespace(
        "composition", ["adult", "EDUCATION_LEVELS", "private_count", "private_histogram"])


def composed_bound(total_epsilon: float) -> float:
    return math.exp(total_epsilon) / (1 + math.exp(total_epsilon))


# --------------------------------------------------------------------------------------------
# The accountant
# --------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------
# The chapter's release functions
# --------------------------------------------------------------------------------------------
def test_private_count_refused_query_does_not_read_the_data(ns, adult):
    table = helpers.CountingTable(adult)
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
    table = helpers.CountingTable(adult)
    acc = helpers.PrivacyAccountant(1e6)
    noisy = ns["private_count"](table, acc, lambda df: df["income"] == ">50K", 1e6,
                                helpers.make_rng(1), "income")
    assert round(noisy) == 7841  # data-facts.md: income >50K in 7,841 rows


def test_private_histogram_is_charged_once_and_counts_fixed_bins(ns, adult):
    table = helpers.CountingTable(adult)
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


# --------------------------------------------------------------------------------------------
# Repetition: Monte Carlo against theory and against the composed bound
# --------------------------------------------------------------------------------------------
def test_core_glued_attack_values_and_standard_error():
    """The core's glued successes match its simulation table (k = 1 and k = 1000), within the
    glued standard error of the exact value (k = 1) and the normal approximation (k = 1000)."""
    g, theory = glued("composition"), glued("repeated-queries-in-theory")
    # binomial sd at p = 1/2 with the smallest number of simulated attacks (10,000)
    assert g["comp_max_se"] == f"{100 * math.sqrt(0.25 / 10_000):.2f}" == "0.50"
    k1, kmax = float(g["comp_k1_success"][:-1]), float(g["comp_kmax_success"][:-1])
    assert abs(k1 - float(theory["comp_k1_exact"][:-1])) < 4 * 100 * math.sqrt(0.25 / 50_000)
    assert abs(kmax - float(theory["comp_kmax_normal"][:-1])) < 4 * 0.5
    assert g["comp_bound_k1"] == f"{100 * composed_bound(EPSILON):.1f}%"


def _split_success(k: int, total: float) -> float:
    """Pr[S <= total/2], S a sum of 2k Lap(1) written as G1 - G2 with G1, G2 ~ Gamma(2k), by
    quadrature over G2 (not the chapter's Poisson/negative-binomial sum)."""
    from scipy.stats import gamma

    m = 2 * k
    tail, _ = integrate.quad(lambda g: gamma.pdf(g, m) * gamma.sf(g + total / 2, m),
                             0, m + 60 * math.sqrt(m), points=[m - 1],
                             epsabs=1e-13, epsrel=1e-12, limit=500)
    return 1 - tail


def test_split_budget_exercise_answers():
    """Exercise ex-comp-split, kε = 1 split into k = 1, 10, 100 answers per count at threshold
    1/2: each glued success is the exact one by quadrature (and the closed form at k = 1), and a
    seeded run of the course's attack (helpers.differencing_attack_success at ε = 1/k) lands
    within 5 binomial standard errors of it; it falls with k towards the normal approximation
    Φ(kε/(4√k)), below the glued bound e/(1 + e); the glued sd is 2√k/(kε). The question names
    the explorable's three sliders as differencing-attack.mjs labels them."""
    from scipy.stats import norm

    g = glued("composition")
    total, repeats = 1.0, (1, 10, 100)
    bound = math.exp(total) / (1 + math.exp(total))
    assert float(g["comp_split_bound"].rstrip("%")) / 100 == pytest.approx(bound, abs=5e-5)
    exact = {k: _split_success(k, total) for k in repeats}
    assert exact[1] == pytest.approx(1 - (2 + total / 2) * math.exp(-total / 2) / 4, abs=1e-12)
    rng, trials = helpers.make_rng(2025), 100_000
    for k in repeats:
        glued_success = float(g[f"comp_split_success_{k}"].rstrip("%")) / 100
        assert glued_success == pytest.approx(exact[k], abs=5e-5), k
        simulated = helpers.differencing_attack_success(total / k, rng, n_trials=trials,
                                                        n_repeats=k)
        assert abs(simulated - exact[k]) < 5 * math.sqrt(exact[k] * (1 - exact[k]) / trials), k
        assert float(g[f"comp_split_sd_{k}"]) == pytest.approx(2 * math.sqrt(k) / total,
                                                               abs=5e-3), k
    assert bound > exact[1] > exact[10] > exact[100] > 0.5
    gaps = [abs(exact[k] - norm.cdf(total / (4 * math.sqrt(k)))) for k in repeats]
    assert gaps[0] > gaps[1] > gaps[2] and gaps[2] < 1e-4
    mjs = (CHAPTERS.parent / "_static" / "explorables" / "differencing-attack.mjs").read_text(
        encoding="utf-8")
    sliders = re.findall(r'ui\.slider\(\{key: "\w+", label: "([^"]+)"', mjs)
    assert len(sliders) == 3, sliders
    cells = json.loads((CHAPTERS / "composition.ipynb").read_text(encoding="utf-8"))["cells"]
    (question,) = ["".join(c["source"]) for c in cells
                   if ":label: ex-comp-split" in "".join(c["source"])]
    question = question.split("::::\n")[0]
    assert all(label in question for label in sliders), sliders


# --------------------------------------------------------------------------------------------
# The sketch of one attack: its counts come from the health table
# --------------------------------------------------------------------------------------------
def test_igor_sketch_uses_the_count_without_igor_from_the_data():
    sketch = notebook_namespace("composition", ["health", "n_without_igor", "one_attack"])
    health = helpers.load_health()
    igor = health["name"] == "Igor Fritz"
    assert igor.sum() == 1 and health.index[igor][0] == 9
    # the count without Igor, by another route: obese patients other than Igor
    expected = int(((health["problem"] == "Obesity") & ~igor).sum())
    assert sketch["n_without_igor"] == expected == 3
    # with (almost) no noise the sketch guesses right; at epsilon = 0.1 and k = 1 it is a
    # coin flip at best: success within 0.02 of the exact one-answer value over 20,000 runs
    rng = helpers.make_rng(3)
    assert sketch["one_attack"](expected, 5, 1e-9, rng)
    wins = np.mean([sketch["one_attack"](expected, 1, SCALE, rng) for _ in range(20_000)])
    tail, _ = integrate.quad(
        lambda x: laplace.pdf(x, scale=SCALE) * laplace.sf(0.5 + x, scale=SCALE), -np.inf, np.inf)
    assert abs(wins - (1 - tail)) < 0.02


# --------------------------------------------------------------------------------------------
# Parallel composition under replace-one: 2 max is a bound; a histogram's exact cost
# --------------------------------------------------------------------------------------------
def _exact_histogram_cost_by_loss(per_bin_eps):
    # the sup over outputs y of ln p_D(y) / p_D'(y), over every move of one row from bin j to
    # bin l, for independent Laplace(1/eps_i) counts, with scipy's density: the loss separates
    # over bins, and each bin's term is largest far in one tail (|y| = 50)
    eps = [float(Fraction(e)) for e in per_bin_eps]
    worst = 0.0
    for j in range(len(eps)):
        for l in range(len(eps)):
            shift = [(-1 if i == j else 0) + (1 if i == l else 0) for i in range(len(eps))]
            total = 0.0
            for e, s in zip(eps, shift):
                total += max(laplace.logpdf(y, scale=1 / e) - laplace.logpdf(y - s, scale=1 / e)
                             for y in (-50.0, 0.0, 50.0))
            worst = max(worst, total)
    return worst


@pytest.mark.parametrize("per_bin", [["0.5"] * 16, ["0.1", "0.4"], ["0.3"],
                                     ["0.1", "0.2", "0.3", "0.4", "0.5"], ["0.2", "0.7", "0.7"]])
def test_replace_one_cost_of_a_histogram_is_the_worst_laplace_loss(per_bin):
    cost = notebook_namespace("composition-proofs",
                              ["replace_one_cost"])["replace_one_cost"](per_bin)
    assert isinstance(cost, Fraction)
    assert float(cost) == pytest.approx(_exact_histogram_cost_by_loss(per_bin), abs=1e-9)
    assert cost <= 2 * max(Fraction(e) for e in per_bin)  # the theorem's bound


def test_replace_one_glued_costs():
    g = glued("composition-proofs")
    assert (g["comp_r1_exact_uneven"], g["comp_r1_bound_uneven"]) == ("0.5", "0.8")
    assert float(g["comp_r1_exact_uneven"]) == pytest.approx(
        _exact_histogram_cost_by_loss(["0.1", "0.4"]))


def test_replace_one_cost_of_exercise_c():
    # sex at 0.2 per bin (2 bins) and race at 0.3 per bin (5 bins): the solution's 1.0 is exact
    exercise = (_exact_histogram_cost_by_loss(["0.2"] * 2)
                + _exact_histogram_cost_by_loss(["0.3"] * 5))
    assert exercise == pytest.approx(1.0)
    cells = json.loads((CHAPTERS / "composition.ipynb").read_text(encoding="utf-8"))["cells"]
    (solution,) = ["".join(c["source"]) for c in cells
                   if "::::{solution} ex-comp-costs" in "".join(c["source"])]
    assert "$2 \\times 0.2 + 2 \\times 0.3 = 1.0$" in solution


def _markdown_text(stem: str) -> str:
    cells = json.loads((CHAPTERS / f"{stem}.ipynb").read_text(encoding="utf-8"))["cells"]
    return " ".join(" ".join("".join(c["source"]) for c in cells
                             if c["cell_type"] == "markdown").split())


@pytest.mark.parametrize("stem", ["composition", "composition-proofs"])
def test_parallel_composition_proof_calls_two_max_a_bound(stem):
    text = _markdown_text(stem)
    assert "even when $j = l$" not in text
    assert "The factor 2 is an upper bound on the replace-one cost" in text
    assert "costs twice its per-bin" not in text


def test_the_core_states_the_exact_histogram_cost_the_plan_cost_problem_names():
    # assignments/problems/composition/plan-cost.md asks for "the chapter's upper bound
    # (twice the largest per-bin ε of each histogram)" or down to the exact cost
    text = _markdown_text("composition")
    assert "general only $2\\max_j \\varepsilon_j$-DP, an upper bound" in text
    assert "its exact cost is the sum of its two largest per-bin $\\varepsilon$'s" in text

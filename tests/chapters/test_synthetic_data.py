"""Tests for the synthetic-data chapter.

The generator's budget is checked against OpenDP's conversion and the zCDP rules; the marginals
against pandas crosstabs over the public domain; the sampler against the model it samples from
(a chi-square test with a fixed seed); the selection score's sensitivity by adding a person.
Its "Going deeper" pages are tested here too: ``synthetic-data-utility`` (the evaluation across
ε, which re-creates the core's generator) and ``synthetic-data-budget-in-opendp`` (the budget at
a smaller δ, checked with OpenDP).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import helpers
from conftest import chapter_fixtures, glued
from notebook_code import notebook_namespace

NAMES = ["encode", "marginal", "to_probabilities", "mst_lite", "sample", "reproduced_share",
         "COLUMNS", "SIZES", "real_train", "real_holdout", "train", "perturbed"]


ch, g = chapter_fixtures("synthetic-data", NAMES)


@pytest.fixture(scope="module")
def utility():
    return glued("synthetic-data-utility")


@pytest.fixture(scope="module")
def budget():
    return glued("synthetic-data-budget-in-opendp")


@pytest.fixture(scope="module")
def utility_ns():
    return notebook_namespace("synthetic-data-utility",
                              ["mst_lite", "sample", "holdout_accuracy", "real_train",
                               "real_holdout", "COLUMNS"])


def test_encoding_uses_the_public_domain(ch):
    codes = ch["real_train"]
    assert codes.shape[1] == 11 and (codes >= 0).all() and (codes < ch["SIZES"]).all()
    # a one-row table gets the same codes as in the full table: nothing is learnt from the data
    one = ch["encode"](ch["train"].iloc[[5]])
    assert (one == codes[5]).all()


def test_marginal_matches_pandas_over_the_full_domain(ch):
    codes, sizes = ch["real_train"], ch["SIZES"]
    counts = ch["marginal"](codes, (0, 3)).reshape(sizes[0], sizes[3])
    expected = pd.crosstab(codes[:, 0], codes[:, 3]).reindex(index=range(sizes[0]), columns=range(sizes[3]),
                                                            fill_value=0)
    assert (counts == expected.to_numpy()).all() and counts.sum() == len(codes)


def test_budget_split_adds_up(ch):
    rho = helpers.dp_to_zcdp(1.0, 1e-6)  # what mst_lite spends, tested in test_accounting
    model = ch["mst_lite"](ch["real_train"], 1.0, 1e-6, helpers.make_rng(0))
    d = len(ch["COLUMNS"])
    rho_one_way = d / (2 * model["sigma_1"] ** 2)            # L2 sensitivity sqrt(d)
    rho_select = (d - 1) * (math.sqrt(8 * (rho / 3) / (d - 1)) ** 2) / 8   # exponential mechanism
    rho_two_way = (d - 1) / (2 * model["sigma_2"] ** 2)      # L2 sensitivity sqrt(d - 1)
    assert rho_one_way + rho_select + rho_two_way == pytest.approx(rho, rel=1e-9)
    assert len(model["edges"]) == d - 1
    # the chosen pairs form a spanning tree
    parent = list(range(d))

    def find(i):
        while parent[i] != i:
            i = parent[i]
        return i

    for a, b in model["edges"]:
        assert find(a) != find(b)
        parent[find(a)] = find(b)


def test_selection_score_sensitivity_is_one(ch):
    # the score |M_ab(D) - n~ p_a (x) p_b|_1 with fixed (already released) n~, p_a, p_b
    codes, sizes = ch["real_train"], ch["SIZES"]
    rng = np.random.default_rng(4)
    p_a, p_b = rng.dirichlet(np.ones(sizes[1])), rng.dirichlet(np.ones(sizes[4]))
    estimate = 26_000.0 * np.outer(p_a, p_b).ravel()
    base = np.abs(ch["marginal"](codes, (1, 4)) - estimate).sum()
    for row in rng.integers(0, len(codes), 50):
        added = np.vstack([codes, codes[row]])
        assert abs(np.abs(ch["marginal"](added, (1, 4)) - estimate).sum() - base) <= 1 + 1e-9


def test_sampler_follows_the_model(ch):
    model = ch["mst_lite"](ch["real_train"], 10.0, 1e-6, helpers.make_rng(1))
    rows = ch["sample"](model, 60_000, helpers.make_rng(2))
    sizes = ch["SIZES"]
    root = np.bincount(rows[:, 0], minlength=sizes[0])
    expected = ch["to_probabilities"](model["one_way"][0]) * len(rows)
    keep = expected > 5
    assert stats.chisquare(root[keep], expected[keep] * root[keep].sum() / expected[keep].sum()).pvalue > 1e-3
    # an edge's conditional distribution, for the most common parent value
    a, b = model["edges"][0]
    table = np.clip(model["two_way"][(a, b)].reshape(sizes[a], sizes[b]), 0, None)
    parent_value = int(np.argmax(np.bincount(rows[:, a], minlength=sizes[a])))
    child = rows[rows[:, a] == parent_value, b]
    probs = table[parent_value] / table[parent_value].sum()
    observed = np.bincount(child, minlength=sizes[b])
    keep = probs * len(child) > 5
    assert stats.chisquare(observed[keep], probs[keep] / probs[keep].sum() * observed[keep].sum()).pvalue > 1e-3


def test_opendp_conversion_glue(g, budget):
    assert budget["synth_ex_opendp_eps"] == "1.0000"
    # the section page recomputes the core's budget; both pages must agree
    assert budget["synth_budget_rho_6"] == g["synth_rho_1"]
    rho_6, rho_9 = float(g["synth_rho_1"]), float(budget["synth_ex_rho_9"])
    # the simple conversion rho + 2 sqrt(rho ln(1/delta)) = 1 bounds rho from below
    for rho, delta in [(rho_6, 1e-6), (rho_9, 1e-9)]:
        simple = (math.sqrt(math.log(1 / delta) + 1) - math.sqrt(math.log(1 / delta))) ** 2
        assert simple <= rho < 2 * simple
    assert rho_9 < rho_6
    assert float(budget["synth_ex_sigma_factor"]) == pytest.approx(math.sqrt(rho_6 / rho_9),
                                                                   abs=0.02)
    assert budget["synth_ex_rounds"] == g["synth_n_columns"] - 1 == 10  # the core's d - 1
    assert float(budget["synth_ex_eps_round"]) == pytest.approx(math.sqrt(8 * (rho_9 / 3) / 10), abs=2e-3)


def test_support_leak_numbers(g, adult):
    present = adult.groupby(["age", "occupation"]).size()
    assert g["synth_ex_present"] == f"{len(present):,}"
    assert g["synth_ex_domain"] == f"{74 * 14:,}"
    assert len(present) < 74 * 14


def test_perturbing_generator_links_and_copies(ch, g):
    assert int(g["synth_linked"].replace(",", "")) > 0 and g["synth_linked_income"] == "100.0%"
    seen = float(g["synth_copy_perturb_seen"].rstrip("%"))
    unseen = float(g["synth_copy_perturb_unseen"].rstrip("%"))
    assert seen > unseen + 20
    dp_seen, dp_unseen = float(g["synth_copy_dp_seen"].rstrip("%")), float(g["synth_copy_dp_unseen"].rstrip("%"))
    assert abs(dp_seen - dp_unseen) < 3


def test_copied_records_compare_sets_of_the_same_size(ch, g, adult):
    # the held-out fifth of Adult, and as many training rows: the prose's row count is glued
    held_out = len(adult) - int(0.8 * len(adult))
    assert len(ch["real_holdout"]) == held_out
    assert g["synth_copy_rows"] == f"{held_out:,}"


def test_reproduced_share_on_a_toy_table(ch):
    sizes = ch["SIZES"]
    reference = np.zeros((4, len(sizes)), dtype=int)
    reference[1, 0] = 1
    reference[2, 0] = 2
    reference[3, 0] = 2  # rows 0 and 1 are unique, rows 2 and 3 are duplicates
    synthetic = reference[[0, 2]]
    assert ch["reproduced_share"](reference, synthetic) == 0.5


def test_evaluation_glue(utility):
    g = utility
    assert float(g["synth_2way_1"]) < float(g["synth_2way_ind_1"])
    assert float(g["synth_2way_01"]) > float(g["synth_2way_1"])
    assert float(g["synth_acc_real"].rstrip("%")) > float(g["synth_acc_majority"].rstrip("%"))
    assert g["synth_income_links"] == "relationship"


def test_the_utility_page_re_creates_the_core_generator(ch, utility_ns):
    # same data, same seed: the section page's copy of the generator and sampler must give the
    # core's model and rows, or its evaluation would be of another generator
    core = ch["mst_lite"](ch["real_train"], 1.0, 1e-6, helpers.make_rng(5))
    copy = utility_ns["mst_lite"](utility_ns["real_train"], 1.0, 1e-6, helpers.make_rng(5))
    assert (utility_ns["real_train"] == ch["real_train"]).all()
    assert core["edges"] == copy["edges"]
    assert all((core["two_way"][e] == copy["two_way"][e]).all() for e in core["edges"])
    rows = ch["sample"](core, 500, helpers.make_rng(6))
    assert (rows == utility_ns["sample"](copy, 500, helpers.make_rng(6))).all()


def test_holdout_accuracy_against_sklearn_naive_bayes(utility_ns):
    # an independent reference: scikit-learn's categorical naive Bayes with add-one smoothing,
    # trained on the same rows and tested on the held-out rows
    from sklearn.naive_bayes import CategoricalNB

    train, holdout = utility_ns["real_train"], utility_ns["real_holdout"]
    sizes = [int(train[:, c].max(initial=0)) + 1 for c in range(train.shape[1] - 1)]
    sizes = [max(s, int(holdout[:, c].max()) + 1) for c, s in enumerate(sizes)]
    model = CategoricalNB(alpha=1.0, min_categories=sizes).fit(train[:, :-1], train[:, -1])
    expected = float(np.mean(model.predict(holdout[:, :-1]) == holdout[:, -1]))
    assert utility_ns["holdout_accuracy"](train) == pytest.approx(expected, abs=2e-3)


def test_prose_facts_about_the_perturbing_generator_and_the_support(ch, g, adult):
    real = ch["train"].drop(columns=["name", "dob", "ssn", "zip"])
    identical = ch["perturbed"].merge(real, how="inner").shape[0]
    assert g["synth_identical"] == f"{identical:,}" and 0 < identical < len(real) // 10
    oldest = int(adult.loc[adult["occupation"] == "Armed-Forces", "age"].max())
    assert g["synth_ex_armed_age"] == oldest
    assert ((adult["occupation"] == "Armed-Forces") & (adult["age"] == oldest)).any()


def test_the_numbers_the_prose_uses_are_printed_where_they_are_computed(g):
    # issue 38, a learner's read: rho, sigma, the exact copies and the domain size were glued
    # into the prose but never printed
    import json

    from conftest import ROOT
    cells = json.loads((ROOT / "chapters" / "synthetic-data.ipynb").read_text(encoding="utf-8"))
    cells = {c["id"]: c for c in cells["cells"]}

    def printed(cell_id):
        cell = cells[cell_id]
        assert "remove-input" not in cell["metadata"].get("tags", []), cell_id
        return "".join("".join(o.get("text", "")) for o in cell["outputs"])

    assert f"{g['synth_identical']} perturbed rows equal a real row" in printed("synth-003-count")
    assert f"{g['synth_n_columns']} columns, {g['synth_n_cells']} possible rows" in printed(
        "synth-006")
    assert f"rho = {g['synth_rho_1']}, sigma_1 = {g['synth_sigma1']}" in printed("synth-012-run")
    # the copies compare the held-out fifth with as many training rows, "the first" of a
    # shuffled order: the prose says both
    prose = "".join(cells["synth-013"]["source"])
    assert "the first {glue:text}`synth_copy_rows`" in prose and "shuffled" in prose

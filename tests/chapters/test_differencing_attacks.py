"""Tests for differencing-attacks: the attack on Igor and neighbouring datasets (the tracker and
the mean attack are its going-deeper page's, tests/chapters/test_trackers_and_averages.py).

Expected values are computed here independently with pandas; the chapter's own functions are
loaded from the notebooks and must agree with them.
"""

from __future__ import annotations

import pandas as pd
import pytest

import helpers
from conftest import glued
from notebook_code import notebook_namespace

PROBLEMS = ["Obesity", "Chest pain", "Hypertension", "Shortness of breath"]


@pytest.fixture(scope="module")
def core():
    return notebook_namespace("differencing-attacks", [
        "health", "count", "PROBLEMS", "make_count_server", "difference", "white", "white_male",
        "add_remove_distance",
    ])


def _pandas_naive(h, problem):
    has = h["problem"] == problem
    return int(has.sum()), int((has & (h["ethnicity"] != "White")).sum())


def _pandas_correct(h, problem):
    has = h["problem"] == problem
    white_male = (h["ethnicity"] == "White") & (h["sex"] == "Male")
    return int(has.sum()), int((has & ~white_male).sum())


def test_problem_list_is_complete(core, health):
    assert sorted(core["PROBLEMS"]) == sorted(health["problem"].unique())


def test_igor_is_the_only_white_male_and_there_are_two_white_patients(health):
    white = health["ethnicity"] == "White"
    assert int(white.sum()) == 2
    white_male = health[white & (health["sex"] == "Male")]
    assert list(white_male.index) == [9]
    assert white_male.loc[9, "name"].startswith("Igor")
    assert white_male.loc[9, "problem"] == "Obesity"


def test_naive_pair_flags_obesity_and_chest_pain(health):
    # the chapter's claims: 4 - 3 = 1 for obesity, 2 - 1 = 1 for chest pain, 0 otherwise
    assert _pandas_naive(health, "Obesity") == (4, 3)
    assert _pandas_naive(health, "Chest pain") == (2, 1)
    assert _pandas_naive(health, "Hypertension") == (2, 2)
    assert _pandas_naive(health, "Shortness of breath") == (2, 2)


def test_correct_pair_flags_only_obesity(health):
    assert _pandas_correct(health, "Obesity") == (4, 3)
    for problem in PROBLEMS[1:]:
        total, not_igor = _pandas_correct(health, problem)
        assert total - not_igor == 0


@pytest.mark.parametrize("problem", PROBLEMS)
def test_notebook_pairs_match_pandas(core, health, problem):
    count = core["make_count_server"](health)
    total, non_white = _pandas_naive(health, problem)
    assert core["difference"](count, problem, core["white"]) == total - non_white
    total, not_igor = _pandas_correct(health, problem)
    assert core["difference"](count, problem, core["white_male"]) == total - not_igor
    # the correct difference is exactly Igor's indicator for this problem
    assert total - not_igor == int(health.loc[9, "problem"] == problem)


def test_neighbour_distances(core, health):
    dist = core["add_remove_distance"]
    replaced = health.copy()
    replaced.loc[9, "problem"] = "Hypertension"
    swapped = health.copy()
    swapped.loc[[8, 9], "problem"] = health.loc[[9, 8], "problem"].to_numpy()
    assert dist(health, health) == 0
    assert dist(health, health.drop(index=9)) == 1
    assert dist(health, pd.concat([health, health.loc[[9]]])) == 1   # duplicate = new person
    assert dist(health, replaced) == 2                                # replace = remove + add
    assert dist(health, swapped) == 4
    # the problem histogram: L1 change 1 for add/remove, 2 for replace-one
    base = health["problem"].value_counts()
    removed = health.drop(index=9)["problem"].value_counts().reindex(base.index, fill_value=0)
    assert int((base - removed).abs().sum()) == 1
    rep = replaced["problem"].value_counts().reindex(base.index, fill_value=0)
    assert int((base - rep).abs().sum()) == 2


def test_glued_counts_of_the_attack(health):
    g = glued("differencing-attacks")
    has = {p: health["problem"] == p for p in PROBLEMS}
    white = health["ethnicity"] == "White"
    white_male = white & (health["sex"] == "Male")
    assert g["diff_n_patients"] == len(health) and g["diff_n_obese"] == int(has["Obesity"].sum())
    assert (g["diff_n_white"], g["diff_n_white_male"]) == (int(white.sum()), int(white_male.sum()))
    assert g["diff_naive_nonwhite_obesity"] == int((has["Obesity"] & ~white).sum())
    assert g["diff_naive_chest_nonwhite"] == int((has["Chest pain"] & ~white).sum())
    assert g["diff_correct_notigor_obesity"] == int((has["Obesity"] & ~white_male).sum())
    assert g["diff_naive_n_positive"] == sum(int((has[p] & white).sum()) > 0 for p in PROBLEMS)
    assert g["diff_correct_obesity"] == 1 and g["diff_correct_others_max"] == 0
    # the problem histogram between neighbours: 1 under add/remove, 2 under replace-one
    assert (g["diff_l1_removed"], g["diff_l1_added"], g["diff_l1_replaced"]) == (1, 1, 2)
    assert g["diff_dist_replaced"] == 2 and g["diff_obesity_change_removed"] == -1

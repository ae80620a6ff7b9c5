"""Tests for chapter 3: differencing attacks, the tracker, the mean attack and neighbours.

Expected values are computed here independently with pandas; the chapter's own functions are
loaded from the notebook and must agree with them.
"""

from __future__ import annotations

import pandas as pd
import pytest

import helpers
from notebook_code import notebook_namespace

PROBLEMS = ["Obesity", "Chest pain", "Hypertension", "Shortness of breath"]


@pytest.fixture(scope="module")
def ns():
    return notebook_namespace("differencing-attacks", [
        "PROBLEMS", "QueryRefused", "make_count_server", "naive_difference",
        "correct_difference", "igor_has", "tracker_count", "make_mean_server",
        "mean_difference_attack", "add_remove_distance",
    ])


def _pandas_naive(h, problem):
    has = h["problem"] == problem
    return int(has.sum()), int((has & (h["ethnicity"] != "White")).sum())


def _pandas_correct(h, problem):
    has = h["problem"] == problem
    white_male = (h["ethnicity"] == "White") & (h["sex"] == "Male")
    return int(has.sum()), int((has & ~white_male).sum())


def test_problem_list_is_complete(ns, health):
    assert sorted(ns["PROBLEMS"]) == sorted(health["problem"].unique())


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
def test_notebook_pairs_match_pandas(ns, health, problem):
    count = ns["make_count_server"](health)
    total, non_white = _pandas_naive(health, problem)
    assert ns["naive_difference"](count, problem) == (total, non_white, total - non_white)
    total, not_igor = _pandas_correct(health, problem)
    assert ns["correct_difference"](count, problem) == (total, not_igor, total - not_igor)
    # the correct difference is exactly Igor's indicator for this problem
    assert total - not_igor == int(health.loc[9, "problem"] == problem)


def test_size_restriction_refuses_small_and_large_queries(ns, health):
    guarded = ns["make_count_server"](health, min_size=3)
    with pytest.raises(ns["QueryRefused"]):
        guarded(ns["igor_has"]("Obesity"))                      # 1 row
    with pytest.raises(ns["QueryRefused"]):
        guarded(lambda t: pd.Series(True, index=t.index))       # 10 rows > n - k
    assert guarded(lambda t: t["problem"] == "Obesity") == 4


@pytest.mark.parametrize("tracker_name", ["female", "married", "zip_02139"])
def test_tracker_recovers_igor_through_the_restriction(ns, health, tracker_name):
    trackers = {
        "female": lambda t: t["sex"] == "Female",
        "married": lambda t: t["marital_status"] == "Married",   # not disjoint-by-design
        "zip_02139": lambda t: t["zip"] == "02139",
    }
    guarded = ns["make_count_server"](health, min_size=3)
    for problem in PROBLEMS:
        got = ns["tracker_count"](guarded, ns["igor_has"](problem), trackers[tracker_name])
        assert got == int(health.loc[9, "problem"] == problem)


def test_tracker_also_isolates_the_white_female(ns, health):
    guarded = ns["make_count_server"](health, min_size=3)
    for problem in PROBLEMS:
        target = (lambda p: lambda t: (t["ethnicity"] == "White") & (t["sex"] == "Female")
                  & (t["problem"] == p))(problem)
        got = ns["tracker_count"](guarded, target, lambda t: t["zip"] == "02139")
        assert got == int(health.loc[8, "problem"] == problem)


def _unique_targets(adult, n):
    qi = ["age", "sex", "race", "native_country", "workclass"]
    size = adult.groupby(qi, dropna=False)["age"].transform("size")
    eligible = adult[(size == 1) & (adult["capital_gain"] > 0) & adult[qi].notna().all(axis=1)]
    return qi, eligible.head(n)


def _target_and_group(row, qi):
    """Predicates for the rows matching ``row`` on ``qi``, and for the rows of its sex."""
    def matches(t):
        mask = pd.Series(True, index=t.index)
        for col in qi:
            mask &= t[col] == row[col]
        return mask

    def group(t):
        return t["sex"] == row["sex"]

    return matches, group


def test_mean_attack_recovers_exact_values(ns, adult):
    qi, targets = _unique_targets(adult, 5)
    assert len(targets) == 5
    count, mean = ns["make_mean_server"](adult, "capital_gain", min_size=100)
    for _, row in targets.iterrows():
        is_target, group = _target_and_group(row, qi)
        x = ns["mean_difference_attack"](count, mean, group, is_target)
        assert abs(x - row["capital_gain"]) < 1e-4
        assert round(x) == row["capital_gain"]
        # independent pandas version of |D| mean(D) - |D'| mean(D')
        d = adult[adult["sex"] == row["sex"]]
        d_prime = d.drop(index=row.name)
        x_pd = len(d) * d["capital_gain"].mean() - len(d_prime) * d_prime["capital_gain"].mean()
        assert round(x_pd) == row["capital_gain"]


def test_mean_server_refuses_small_groups(ns, adult):
    _, mean = ns["make_mean_server"](adult, "capital_gain", min_size=100)
    with pytest.raises(ns["QueryRefused"]):
        mean(lambda t: t["age"] == 90)  # 43 rows < 100


def test_neighbour_distances(ns, health):
    dist = ns["add_remove_distance"]
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


def test_mean_attack_on_a_known_value_counts_the_matched_rows(ns, adult):
    # ex-diff-mean-age: the predicate fixes the age, so the recovered "age" is age x (rows matched);
    # getting back the known age proves the predicate isolates one person.
    qi = ["age", "sex", "race", "native_country", "workclass"]
    size = adult.groupby(qi, dropna=False)["age"].transform("size")
    count, mean = ns["make_mean_server"](adult, "age", min_size=100)
    for class_size in (1, 2, 3):
        row = adult[(size == class_size) & adult[qi].notna().all(axis=1)].iloc[0]
        matches, group = _target_and_group(row, qi)
        got = ns["mean_difference_attack"](count, mean, group, matches)
        assert round(got) == class_size * int(row["age"])

"""Tests for trackers-and-averages, the going-deeper page of differencing-attacks: the server
with a query-set-size rule, the tracker and the mean attack.

Expected values are computed here independently with pandas; the page's own functions are
loaded from the notebook and must agree with them.
"""

from __future__ import annotations

import pandas as pd
import pytest

from conftest import glued
from notebook_code import notebook_namespace

PROBLEMS = ["Obesity", "Chest pain", "Hypertension", "Shortness of breath"]


@pytest.fixture(scope="module")
def ns():
    """The going-deeper page: the server with a size rule, the tracker, the mean attack."""
    return notebook_namespace("trackers-and-averages", [
        "PROBLEMS", "QueryRefused", "make_count_server", "difference", "white_male",
        "igor_has", "guarded", "tracker_count", "make_mean_server", "mean_difference_attack",
    ])


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


def test_the_page_recreates_the_cores_recipe(ns, health):
    assert ns["PROBLEMS"] == PROBLEMS
    count = ns["make_count_server"](health)
    white_male = (health["ethnicity"] == "White") & (health["sex"] == "Male")
    for problem in PROBLEMS:
        has = health["problem"] == problem
        expected = int(has.sum()) - int((has & ~white_male).sum())
        assert ns["difference"](count, problem, ns["white_male"]) == expected


def test_glued_results(health, adult):
    g = glued("trackers-and-averages")
    assert (g["diff_min_size"], g["diff_max_size"]) == (3, len(health) - 3)
    obese = health["problem"] == "Obesity"
    white_male = (health["ethnicity"] == "White") & (health["sex"] == "Male")
    assert g["diff_guarded_obesity_all"] == int(obese.sum())
    assert g["diff_guarded_obesity_not_igor"] == int((obese & ~white_male).sum())
    assert g["diff_guarded_chest_all"] == int((health["problem"] == "Chest pain").sum()) < 3
    female = health["sex"] == "Female"
    assert (g["diff_pad_big"], g["diff_pad_small"]) == (
        int((female | (obese & white_male)).sum()), int(female.sum()))
    assert g["diff_pad_diff"] == 1
    assert (g["diff_tracker_obesity"], g["diff_tracker_others_max"]) == (1, 0)
    assert g["diff_x_star_int"] == g["diff_true_gain"]
    gain = int(g["diff_true_gain"].replace(",", ""))
    assert g["diff_n_same_gain"] == f"{int((adult['capital_gain'] == gain).sum()):,}"

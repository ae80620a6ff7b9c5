"""The linkage-attacks chapter: unicity, the targeted attack, the voter-list linkage.

Every expected value is recomputed here from ``helpers.load_adult()`` with plain pandas or
Python (a ``Counter`` over value tuples rather than the notebook's ``duplicated``), and the
numbers glued into each chapter's prose are read back from the executed notebook and compared.
"""

from __future__ import annotations

from collections import Counter

import pandas as pd
import pytest

import helpers
from conftest import glued


#: The twelve quasi-identifiers of the unicity curve, in the order the chapter adds them.
STEPS = [
    ["age"],
    ["sex", "race"],
    ["native_country"],
    ["workclass"],
    ["education"],
    ["marital_status"],
    ["occupation"],
    ["relationship"],
    ["hours_per_week"],
    ["capital_gain"],
    ["capital_loss"],
]
#: content.md, chapter 1: unicity (%) after the first five steps, and after all twelve attributes.
CONTENT_MD_UNICITY = {0: 0.01, 1: 0.20, 2: 4.1, 3: 7.3, 4: 18.2}
CONTENT_MD_ALL_ABOUT = 80.0


def n_unique(df: pd.DataFrame, columns: list[str]) -> int:
    """Rows whose value tuple on ``columns`` occurs once; missing values count as a value."""
    keys = list(zip(*(df[c].astype(object).where(df[c].notna(), "<missing>") for c in columns)))
    counts = Counter(keys)
    return sum(1 for k in keys if counts[k] == 1)


def thousands(n: int) -> str:
    return f"{n:,}"


# --------------------------------------------------------------------------------------------
# The targeted attack
# --------------------------------------------------------------------------------------------
def _shortlist(adult: pd.DataFrame) -> pd.DataFrame:
    q = adult.query("age == 35 and native_country == 'United-States' and workclass == 'State-gov'")
    return q


def test_targeted_attack_counts(adult):
    base = _shortlist(adult)
    assert len(base) == 30
    gain = base[base["capital_gain"] > 0]
    assert len(gain) == 2
    assert sorted(gain["capital_gain"].tolist()) == [2977, 7298]
    # one more everyday fact singles out one row and reveals a sensitive value
    male = gain[gain["sex"] == "Male"]
    assert len(male) == 1
    assert int(male["capital_gain"].iloc[0]) == 7298
    assert male["income"].iloc[0] == ">50K"


def test_targeted_attack_glue(adult):
    g = glued("linkage-attacks")
    n_age = int((adult["age"] == 35).sum())
    n_country = int(((adult["age"] == 35) & (adult["native_country"] == "United-States")).sum())
    assert g["linkage_attack_n_age"] == thousands(n_age)
    assert g["linkage_attack_n_country"] == thousands(n_country)
    assert g["linkage_attack_n_state_gov"] == "30"
    assert g["linkage_attack_n_gain"] == "2"
    assert g["linkage_attack_gain_low"] == "2,977"
    assert g["linkage_attack_gain_high"] == "7,298"
    assert g["linkage_attack_n_final"] == 1
    assert g["linkage_attack_guess"] == "50%"  # a blind guess between the two remaining rows
    assert g["linkage_target_gain"] == "7,298"
    assert g["linkage_target_income"] == ">50K"
    assert g["linkage_target_occupation"] == "Craft-repair"


# --------------------------------------------------------------------------------------------
# Unicity
# --------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def unicity_curve(adult) -> list[float]:
    """Unicity in percent after each step, computed with a Counter over value tuples."""
    curve, columns = [], []
    for added in STEPS:
        columns = columns + added
        curve.append(100 * n_unique(adult, columns) / len(adult))
    return curve


def test_unicity_matches_content_md(unicity_curve):
    for step, expected in CONTENT_MD_UNICITY.items():
        decimals = len(str(expected).split(".")[1])
        assert round(unicity_curve[step], decimals) == pytest.approx(expected), (step, unicity_curve)
    assert abs(unicity_curve[-1] - CONTENT_MD_ALL_ABOUT) < 1.0
    assert len([c for added in STEPS for c in added]) == 12


def test_unicity_is_monotone(unicity_curve):
    # adding an attribute can only split groups, never merge them
    assert all(b >= a for a, b in zip(unicity_curve, unicity_curve[1:]))


def test_unique_on_five_quasi_identifiers(adult):
    five = ["age", "sex", "race", "native_country", "workclass"]
    assert n_unique(adult, five) == 2_361
    assert round(100 * 2_361 / len(adult), 2) == 7.25


def test_missing_values_count_as_values(adult):
    # rows with an unknown workclass are among the unique ones: dropping them would undercount
    five = ["age", "sex", "race", "native_country", "workclass"]
    complete = adult.dropna(subset=five)
    assert n_unique(complete, five) < n_unique(adult, five)


def test_unicity_glue(adult, unicity_curve):
    g = glued("linkage-attacks")
    keys = {"age": 0, "sex_race": 1, "native_country": 2, "workclass": 3, "education": 4,
            "occupation": 6, "all": 10}
    for key, step in keys.items():
        assert g[f"linkage_unicity_{key}"] == f"{unicity_curve[step]:.2f}%", key
    assert g["linkage_n_attributes_all"] == 12
    assert g["linkage_n_unique_five"] == "2,361"
    assert g["linkage_share_unique_five"] == "7.25%"


def test_unicity_function_in_notebook(adult):
    from notebook_code import notebook_namespace

    unicity = notebook_namespace("linkage-attacks", ["unicity"])["unicity"]
    df = pd.DataFrame({"a": [1, 1, 2, None, None, 3], "b": ["x", "x", "y", "z", "z", None]})
    assert unicity(df, ["a"]) == pytest.approx(2 / 6)  # 2 and 3; the two missing are a pair
    assert unicity(df, ["a", "b"]) == pytest.approx(2 / 6)
    assert unicity(adult, ["age"]) == pytest.approx(n_unique(adult, ["age"]) / len(adult))


# --------------------------------------------------------------------------------------------
# The voter-list linkage
# --------------------------------------------------------------------------------------------
def test_voter_list_linkage_glue(adult):
    g = glued("linkage-attacks")
    keys = list(zip(adult["dob"], adult["zip"], adult["sex"]))
    counts = Counter(keys)
    unique_rows = sum(1 for k in keys if counts[k] == 1)
    assert g["linkage_n_unique_dob_zip_sex"] == thousands(unique_rows)
    voter_rows = helpers.make_rng(42).choice(len(adult), size=1_000, replace=False)
    reidentified = sum(1 for i in voter_rows if counts[keys[i]] == 1)
    assert g["linkage_n_voters"] == "1,000"
    assert g["linkage_n_reidentified"] == thousands(reidentified)
    assert g["linkage_n_release"] == thousands(len(adult))

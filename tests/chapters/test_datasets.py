"""The datasets chapter: every fact it glues, recomputed from the loaded data."""

from __future__ import annotations

from conftest import glued


def thousands(n: int) -> str:
    return f"{n:,}"


# --------------------------------------------------------------------------------------------
# The glued facts about the datasets
# --------------------------------------------------------------------------------------------
def test_datasets_chapter_glue(adult, health):
    g = glued("datasets")
    assert g["data_n_health"] == len(health) == 10
    assert g["data_n_rows"] == "32,561"
    assert g["data_n_cols"] == 19
    assert g["data_n_age_40_plus"] == "14,237"
    assert g["data_n_male"] == "21,790"
    assert g["data_n_female"] == "10,771"
    assert g["data_n_low_income"] == "24,720"
    assert g["data_n_high_income"] == "7,841"
    assert g["data_n_state_gov"] == "1,298"
    assert g["data_n_capital_gain"] == "2,712"
    assert g["data_max_capital_gain"] == "99,999"
    assert g["data_n_capital_gain_max"] == thousands(int((adult["capital_gain"] == 99_999).sum()))
    assert (g["data_age_min"], g["data_age_max"]) == (17, 90)
    assert g["data_age_median"] == int(adult["age"].median())
    assert g["data_n_missing_workclass"] == "1,836"
    # workclass, occupation and native_country are the only columns with "?" in adult.data
    assert g["data_n_missing_cols"] == int((adult.isna().sum() > 0).sum()) == 3
    assert g["data_n_any_missing"] == thousands(int(adult.isna().any(axis=1).sum()))
    zero = [z for z in adult["zip"] if z[0] == "0"]
    assert g["data_n_zip_zero"] == thousands(len(zero))
    assert g["data_zip_zero_example"] == zero[0] and len(zero[0]) == 5
    assert g["data_n_distinct_ssn"] == "32,561"
    assert g["data_n_distinct_names"] == thousands(adult["name"].nunique())
    female_share = ((adult["sex"] == "Female") & (adult["income"] == ">50K")).sum() / (
        adult["sex"] == "Female").sum()
    assert g["data_share_high_female"] == f"{100 * female_share:.1f}%"


def test_datasets_chapter_synthetic_pii_rules(adult):
    g = glued("datasets")
    areas = [int(s[:3]) for s in adult["ssn"]]
    assert (g["data_ssn_area_min"], g["data_ssn_area_max"]) == (min(areas), max(areas))
    assert all(900 <= a <= 999 for a in areas)
    # age in completed years on 1994-07-01, recomputed from the date parts
    mismatches = 0
    for dob, age in zip(adult["dob"], adult["age"]):
        y, m, d = (int(p) for p in dob.split("-"))
        mismatches += (1994 - y - ((m, d) > (7, 1))) != age
    assert mismatches == 0
    assert g["data_n_age_mismatch"] == 0

"""The datasets chapter (chapters/datasets.ipynb): every fact it glues, recomputed from the
loaded data with pandas. (That the loaded data are UCI Adult's published figures is
tests/package/test_data.py's job.)"""

from __future__ import annotations

from conftest import glued


def thousands(n: int) -> str:
    return f"{n:,}"


# --------------------------------------------------------------------------------------------
# The glued facts about the datasets
# --------------------------------------------------------------------------------------------
def test_datasets_chapter_glue(adult, health):
    g = glued("datasets")
    assert g["data_n_health"] == len(health)
    assert g["data_n_rows"] == thousands(len(adult))
    assert g["data_n_cols"] == adult.shape[1]
    assert g["data_n_age_40_plus"] == thousands(int((adult["age"] >= 40).sum()))
    sexes = adult["sex"].value_counts()
    assert g["data_n_male"] == thousands(int(sexes["Male"]))
    assert g["data_n_female"] == thousands(int(sexes["Female"]))
    incomes = adult["income"].value_counts()
    assert g["data_n_low_income"] == thousands(int(incomes["<=50K"]))
    assert g["data_n_high_income"] == thousands(int(incomes[">50K"]))
    assert g["data_n_state_gov"] == thousands(int((adult["workclass"] == "State-gov").sum()))
    assert g["data_n_capital_gain"] == thousands(int((adult["capital_gain"] > 0).sum()))
    top = int(adult["capital_gain"].max())
    assert g["data_max_capital_gain"] == thousands(top)
    assert g["data_n_capital_gain_max"] == thousands(int((adult["capital_gain"] == top).sum()))
    assert (g["data_age_min"], g["data_age_max"]) == (adult["age"].min(), adult["age"].max())
    assert g["data_age_median"] == int(adult["age"].median())
    assert g["data_n_missing_workclass"] == thousands(int(adult["workclass"].isna().sum()))
    # workclass, occupation and native_country are the only columns with "?" in adult.data
    assert g["data_n_missing_cols"] == int((adult.isna().sum() > 0).sum()) == 3
    assert g["data_n_any_missing"] == thousands(int(adult.isna().any(axis=1).sum()))
    zero = [z for z in adult["zip"] if z[0] == "0"]
    assert g["data_n_zip_zero"] == thousands(len(zero))
    assert g["data_zip_zero_example"] == zero[0] and len(zero[0]) == 5
    female_share = ((adult["sex"] == "Female") & (adult["income"] == ">50K")).sum() / (
        adult["sex"] == "Female").sum()
    assert g["data_share_high_female"] == f"{100 * female_share:.1f}%"


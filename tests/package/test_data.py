"""The datasets as the course loads them (chapters/dpcourse/data.py): schema, row counts, the
facts in data-facts.md, synthetic PII, Igor's row, the public category lists, the loaders' errors.

(That the files are what data/build_data.py builds: tests/site/test_data_build.py.)"""

from __future__ import annotations

import datetime as dt

import numpy as np
import pandas as pd
import pytest

import dpcourse.data
import helpers


def test_adult_schema(adult):
    assert list(adult.columns) == [
        "name", "dob", "ssn", "zip", "age", "workclass", "fnlwgt", "education",
        "education_num", "marital_status", "occupation", "relationship", "race", "sex",
        "capital_gain", "capital_loss", "hours_per_week", "native_country", "income",
    ]
    for col in ["age", "fnlwgt", "education_num", "capital_gain", "capital_loss",
                "hours_per_week"]:
        assert adult[col].dtype == np.int64, col
    for col in ["name", "dob", "ssn", "zip", "workclass", "sex", "income"]:
        assert pd.api.types.is_string_dtype(adult[col]), col
    assert adult["zip"].str.len().eq(5).all()


def test_adult_facts(adult):
    """Every figure in data-facts.md for adult.data."""
    assert len(adult) == 32_561
    assert int((adult["age"] >= 40).sum()) == 14_237
    assert int((adult["age"] > 40).sum()) == 13_443
    assert (adult["age"].min(), adult["age"].max()) == (17, 90)
    assert adult["sex"].value_counts().to_dict() == {"Male": 21_790, "Female": 10_771}
    assert adult["income"].value_counts().to_dict() == {"<=50K": 24_720, ">50K": 7_841}
    assert int((adult["workclass"] == "State-gov").sum()) == 1_298
    assert int((adult["capital_gain"] > 0).sum()) == 2_712
    assert int(adult["capital_gain"].max()) == 99_999
    real = adult.drop(columns=["name", "dob", "ssn", "zip"])
    assert int(real.duplicated().sum()) == 24
    qi = ["age", "sex", "race", "native_country", "workclass"]
    assert int((~real.duplicated(subset=qi, keep=False)).sum()) == 2_361
    target = adult[(adult["age"] == 35) & (adult["native_country"] == "United-States")
                   & (adult["workclass"] == "State-gov")]
    assert len(target) == 30
    assert sorted(target.loc[target["capital_gain"] > 0, "capital_gain"]) == [2977, 7298]


def test_missing_values_are_missing_not_question_marks(adult):
    assert not adult.isin(["?"]).any().any()
    assert adult["workclass"].isna().sum() == 1_836
    assert adult[["name", "dob", "ssn", "zip", "age", "income"]].notna().all().all()


def test_synthetic_ssns_cannot_be_real(adult, health):
    for table in (adult, health):
        parts = table["ssn"].str.extract(r"^(\d{3})-(\d{2})-(\d{4})$")
        assert parts.notna().all().all()  # every SSN has the ddd-dd-dddd format
        area = parts[0].astype(int)
        assert area.between(900, 999).all()  # never issued by the US
        assert (parts[1] != "00").all() and (parts[2] != "0000").all()
        assert table["ssn"].is_unique


def test_dob_consistent_with_age_on_reference_date(adult):
    ref = dt.date(1994, 7, 1)
    dob = pd.to_datetime(adult["dob"])
    before = (dob.dt.month < ref.month) | ((dob.dt.month == ref.month) & (dob.dt.day <= ref.day))
    age = ref.year - dob.dt.year - (~before).astype(int)
    assert (age == adult["age"]).all()


# --------------------------------------------------------------------------------------------
# Loaders
# --------------------------------------------------------------------------------------------


def test_load_adult_dtypes_and_shape():
    adult = helpers.load_adult()
    assert adult.shape == (32_561, 19)
    assert adult["age"].dtype == np.int64
    assert pd.api.types.is_string_dtype(adult["zip"])
    assert adult["zip"].str.fullmatch(r"\d{5}").all()
    assert adult["zip"].str.startswith("0").any()  # leading zeros survive the round trip
    assert adult["workclass"].isna().sum() > 0  # "?" became missing


def test_loaders_work_from_any_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert len(helpers.load_health()) == 10
    assert len(helpers.load_adult()) == 32_561


def test_loader_missing_data_gives_clear_error(tmp_path, monkeypatch):
    monkeypatch.setattr(dpcourse.data, "_DATA_DIR", tmp_path)
    with pytest.raises(FileNotFoundError, match="data/ folder"):
        helpers.load_health()


def test_missing_data_error_names_the_file_and_the_fix(tmp_path, monkeypatch):
    monkeypatch.setattr(dpcourse.data, "_DATA_DIR", tmp_path)
    for load, name in ((helpers.load_health, "health.csv"),
                       (helpers.load_adult, "adult_with_pii.csv")):
        with pytest.raises(FileNotFoundError) as err:
            load()
        assert str(err.value) == (
            f"{tmp_path / name} not found. The notebooks need the course's data/ folder beside "
            "chapters/: download the whole course archive (or clone the repository) rather than "
            "one notebook.")


def test_only_an_empty_field_is_missing(tmp_path, monkeypatch):
    """Text that pandas would take for missing by default ("NA", "None", "null") is a value: a
    person can be called Null or come from NA (Namibia); only the empty field is missing."""
    (tmp_path / "health.csv").write_text(
        "name,ssn,dob,marital_status,sex,zip,ethnicity,problem\n"
        "Null,900-01-0001,1970-01-01,NA,Male,02138,None,\n", encoding="utf-8")
    monkeypatch.setattr(dpcourse.data, "_DATA_DIR", tmp_path)
    row = helpers.load_health().iloc[0]
    assert (row["name"], row["marital_status"], row["ethnicity"]) == ("Null", "NA", "None")
    assert pd.isna(row["problem"])


def test_health_schema(health):
    assert len(health) == 10
    assert list(health.columns) == ["name", "ssn", "dob", "marital_status", "sex", "zip",
                                    "ethnicity", "problem"]
    assert pd.api.types.is_string_dtype(health["zip"])
    assert health["zip"].str.fullmatch(r"\d{5}").all()


def test_load_health_igor():
    health = helpers.load_health()
    assert health["name"].str.startswith("Igor ").sum() == 1  # IGOR_INDEX names the only Igor
    igor = health.loc[helpers.IGOR_INDEX]
    assert (igor["marital_status"], igor["sex"], igor["zip"], igor["ethnicity"],
            igor["problem"]) == ("Single", "Male", "02138", "White", "Obesity")
    assert igor["name"].startswith("Igor ")


def test_adult_categories_are_the_documented_lists_and_cover_the_data():
    adult = helpers.load_adult()
    for column, categories in helpers.ADULT_CATEGORIES.items():
        assert len(set(categories)) == len(categories), column
        assert set(adult[column].dropna()) <= set(categories), column
    assert len(helpers.ADULT_CATEGORIES["occupation"]) == 14
    assert len(helpers.ADULT_CATEGORIES["native_country"]) == 41

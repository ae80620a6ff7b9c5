"""The course's two datasets and the public facts about them.

Everything here is public knowledge in the sense differential privacy needs: the file layout,
the category lists documented with UCI Adult (``adult.names``) and which row of the teaching
table is Igor. No function here looks at the
data to decide a domain.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

__all__ = ["ADULT_CATEGORIES", "IGOR_INDEX", "load_adult", "load_health"]

#: Folder holding the course's CSV files: ``data/`` beside ``chapters/``.
_DATA_DIR = Path(__file__).resolve().parent.parent.parent / "data"

#: Row index of Igor, the target of the differencing attack, in :func:`load_health`.
IGOR_INDEX = 9

#: The category lists published with UCI Adult (``adult.names``), in that file's order. A
#: release must take its domain from here, never from the values present in the data.
ADULT_CATEGORIES: dict[str, tuple[str, ...]] = {
    "workclass": ("Private", "Self-emp-not-inc", "Self-emp-inc", "Federal-gov", "Local-gov",
                  "State-gov", "Without-pay", "Never-worked"),
    "education": ("Bachelors", "Some-college", "11th", "HS-grad", "Prof-school", "Assoc-acdm",
                  "Assoc-voc", "9th", "7th-8th", "12th", "Masters", "1st-4th", "10th",
                  "Doctorate", "5th-6th", "Preschool"),
    "marital_status": ("Married-civ-spouse", "Divorced", "Never-married", "Separated", "Widowed",
                       "Married-spouse-absent", "Married-AF-spouse"),
    "occupation": ("Tech-support", "Craft-repair", "Other-service", "Sales", "Exec-managerial",
                   "Prof-specialty", "Handlers-cleaners", "Machine-op-inspct", "Adm-clerical",
                   "Farming-fishing", "Transport-moving", "Priv-house-serv", "Protective-serv",
                   "Armed-Forces"),
    "relationship": ("Wife", "Own-child", "Husband", "Not-in-family", "Other-relative",
                     "Unmarried"),
    "race": ("White", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other", "Black"),
    "sex": ("Female", "Male"),
    "native_country": ("United-States", "Cambodia", "England", "Puerto-Rico", "Canada",
                       "Germany", "Outlying-US(Guam-USVI-etc)", "India", "Japan", "Greece",
                       "South", "China", "Cuba", "Iran", "Honduras", "Philippines", "Italy",
                       "Poland", "Jamaica", "Vietnam", "Mexico", "Portugal", "Ireland", "France",
                       "Dominican-Republic", "Laos", "Ecuador", "Taiwan", "Haiti", "Columbia",
                       "Hungary", "Guatemala", "Nicaragua", "Scotland", "Thailand", "Yugoslavia",
                       "El-Salvador", "Trinadad&Tobago", "Peru", "Hong", "Holand-Netherlands"),
    "income": ("<=50K", ">50K"),
}

_ADULT_DTYPES = {
    "name": "str", "dob": "str", "ssn": "str", "zip": "str", "age": "int64",
    "workclass": "str", "fnlwgt": "int64", "education": "str", "education_num": "int64",
    "marital_status": "str", "occupation": "str", "relationship": "str", "race": "str",
    "sex": "str", "capital_gain": "int64", "capital_loss": "int64",
    "hours_per_week": "int64", "native_country": "str", "income": "str",
}
_HEALTH_DTYPES = {
    "name": "str", "ssn": "str", "dob": "str", "marital_status": "str", "sex": "str",
    "zip": "str", "ethnicity": "str", "problem": "str",
}


def _read_csv(filename: str, dtypes: dict[str, str]) -> pd.DataFrame:
    path = _DATA_DIR / filename
    if not path.exists():
        raise FileNotFoundError(
            f"{path} not found. The notebooks need the course's data/ folder beside chapters/: "
            "download the whole course archive (or clone the repository) rather than one notebook."
        )
    return pd.read_csv(path, dtype=dtypes, keep_default_na=False, na_values={
        col: [""] for col, dtype in dtypes.items() if dtype == "str"
    })


def load_adult() -> pd.DataFrame:
    """Load UCI Adult (all 32,561 training rows) with synthetic PII columns.

    ``name``, ``dob``, ``ssn`` and ``zip`` are synthetic (see ``data/README.md``); every other
    column is the real census value. Missing values (``?`` in the original file) are ``NaN``.

    Returns
    -------
    pandas.DataFrame
        One row per person; ``zip`` and ``ssn`` are strings, counts are ``int64``.
    """
    return _read_csv("adult_with_pii.csv", _ADULT_DTYPES)


def load_health() -> pd.DataFrame:
    """Load the 10-patient health table of the differencing-attack example.

    Igor, the attack's target, is the row :data:`IGOR_INDEX`. ``name``, ``ssn`` and ``dob`` are
    synthetic.

    Returns
    -------
    pandas.DataFrame
        Columns ``name, ssn, dob, marital_status, sex, zip, ethnicity, problem``; all strings.
    """
    return _read_csv("health.csv", _HEALTH_DTYPES)

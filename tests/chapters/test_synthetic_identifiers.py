"""Going deeper from datasets (chapters/synthetic-identifiers.ipynb): the rules the synthetic
columns follow, recomputed here from the loaded data with plain Python, against the glued
values."""

from __future__ import annotations

from collections import Counter

from conftest import glued


def thousands(n: int) -> str:
    return f"{n:,}"


def test_synthetic_pii_rules(adult):
    g = glued("synthetic-identifiers")
    assert g["data_n_distinct_ssn"] == thousands(adult["ssn"].nunique())
    assert g["data_n_distinct_names"] == thousands(adult["name"].nunique())
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


def test_zip_codes_and_names(adult):
    g = glued("synthetic-identifiers")
    assert g["synth_n_rows"] == thousands(len(adult))
    assert g["data_n_distinct_zip"] == thousands(len(set(adult["zip"])))
    names = Counter(adult["name"])
    assert g["data_n_rows_shared_name"] == thousands(sum(n for n in names.values() if n > 1))
    assert (g["data_dob_min"], g["data_dob_max"]) == (min(adult["dob"]), max(adult["dob"]))

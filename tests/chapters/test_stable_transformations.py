"""Tests for the going-deeper section stable-transformations (of composition)."""

from __future__ import annotations

import pandas as pd
import pytest

from conftest import glued
from notebook_code import notebook_namespace


@pytest.fixture(scope="module")
def ns():
    return notebook_namespace("stable-transformations", ["income_records", "RECORDS_STABILITY"])


def test_income_records_is_three_stable(ns, adult):
    records = ns["income_records"](adult)
    expected = int((adult["hours_per_week"] > 0).sum() + (adult["capital_gain"] > 0).sum()
                   + (adult["capital_loss"] > 0).sum())
    assert len(records) == expected
    assert records.groupby("person").size().max() <= ns["RECORDS_STABILITY"] == 3
    # adding one person with every income source adds exactly 3 records
    newcomer = adult.iloc[[0]].copy()
    newcomer[["hours_per_week", "capital_gain", "capital_loss"]] = [40, 1000, 500]
    bigger = pd.concat([adult, newcomer], ignore_index=True)
    assert len(ns["income_records"](bigger)) - len(records) == 3


def test_glued_record_counts(adult):
    g = glued("stable-transformations")
    sources = ((adult["hours_per_week"] > 0).astype(int) + (adult["capital_gain"] > 0)
               + (adult["capital_loss"] > 0))
    assert g["comp_records_n"] == f"{int(sources.sum()):,}"
    # nobody reports both a capital gain and a capital loss: at most 2 records here
    assert not ((adult["capital_gain"] > 0) & (adult["capital_loss"] > 0)).any()
    assert g["comp_records_maxobs"] == int(sources.max()) == 2

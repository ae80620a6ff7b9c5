"""Tests for the going-deeper page ``local-sensitivity``: the median's local sensitivity is 0 at
the chapter's sample and its global sensitivity is at least half the range."""

from __future__ import annotations

import numpy as np
import pytest

import helpers
from conftest import glued
from notebook_code import notebook_namespace


@pytest.fixture(scope="module")
def ns():
    return notebook_namespace("local-sensitivity", ["measured_sensitivity", "clipped_median"])


def test_median_local_sensitivity_is_zero_at_the_chapter_sample_but_not_globally(ns, adult):
    # The chapter's sample (seed 42, 1,000 rows) has a median age that no single addition or
    # removal can move: the two middle clipped ages are equal. Check that with every integer
    # age as a candidate, and that a tiny dataset reaches half the range [20, 80].
    rows = np.sort(helpers.make_rng(42).choice(len(adult), size=1000, replace=False))
    ages = adult["age"].to_numpy()[rows].astype(float)
    middle = np.sort(np.clip(ages, 20, 80))[[499, 500]]
    assert middle[0] == middle[1]
    clipped_median = ns["clipped_median"]  # the page's median of ages clipped to [20, 80]
    every_age = np.arange(0, 121, dtype=float)
    assert ns["measured_sensitivity"](clipped_median, ages, "add/remove", every_age) == 0
    tiny = np.array([20.0, 20.0, 80.0, 80.0])
    assert ns["measured_sensitivity"](clipped_median, tiny, "add/remove", every_age) == 30


def test_local_sensitivity_page_glues_the_median_values():
    g = glued("local-sensitivity")
    assert g["sens_median_local"] == "0"
    assert g["sens_median_tiny"] == f"{(80 - 20) / 2:g}"  # half the range [20, 80]

"""Tests for the going-deeper section post-processing-and-group-privacy (of composition)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import laplace

import helpers
from conftest import glued
from notebook_code import notebook_namespace


@pytest.fixture(scope="module")
def ns():
    return notebook_namespace("post-processing-and-group-privacy",
                              ["noisy_hist", "clean_histogram", "EDUCATION_LEVELS"])


def test_the_section_re_creates_the_core_education_bins(ns):
    core = notebook_namespace("composition", ["adult", "EDUCATION_LEVELS"])
    assert ns["EDUCATION_LEVELS"] == core["EDUCATION_LEVELS"]
    assert list(ns["noisy_hist"].index) == core["EDUCATION_LEVELS"]


def test_clean_histogram_is_pure_post_processing(ns):
    noisy = pd.Series([-3.4, 0.6, 10.5, 7.49], index=list("abcd"))
    clean = ns["clean_histogram"](noisy)
    assert clean["released count"].tolist() == [0, 1, 10, 7]  # round half to even, clip at 0
    assert clean["share (%)"].sum() == pytest.approx(100.0)


def test_glued_total_is_near_the_number_of_rows(adult):
    # 16 Lap(2) counts, rounded and clipped: the total's sd is about 11; 100 is over 8 sd
    total = int(glued("post-processing-and-group-privacy")["comp_hist_total"].replace(",", ""))
    assert abs(total - len(adult)) < 100


def composed_bound(total_epsilon: float) -> float:
    return math.exp(total_epsilon) / (1 + math.exp(total_epsilon))


@pytest.mark.parametrize("c", [1, 4, 8])
def test_group_privacy_midpoint_test(c):
    eps, n = 0.5, 200_000
    rng = helpers.make_rng(5)
    with_group = helpers.laplace_mechanism(np.full(n, 100.0), 1, eps, rng)
    without = helpers.laplace_mechanism(np.full(n, 100.0 - c), 1, eps, rng)
    simulated = (np.mean(with_group > 100 - c / 2) + np.mean(without <= 100 - c / 2)) / 2
    # each world errs when its noise crosses the midpoint, at distance c/2, on one side
    exact = 1 - laplace.sf(c / 2, scale=1 / eps)
    assert exact == pytest.approx(1 - 0.5 * math.exp(-c * eps / 2))
    assert abs(simulated - exact) < 0.005
    assert simulated <= composed_bound(c * eps) + 0.005


def test_glued_group_factor():
    assert glued("post-processing-and-group-privacy")["comp_group_factor_8"] == "54.6"  # e^4

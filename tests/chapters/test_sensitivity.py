"""Tests for the sensitivity chapter's core: its loop lab agrees with the batch lab of
``vectorised-neighbour-lab``, its glued values are the formulas' (count 1; histogram 1 or 2;
clipped sum max(|L|, |U|) or U - L; mean with public n (U - L)/n, written here, not copied from
the notebook), and the privacy unit's numbers are the event table's."""

from __future__ import annotations

import numpy as np
import pytest

import helpers
from conftest import glued
from notebook_code import notebook_namespace


@pytest.fixture(scope="module")
def core():
    return notebook_namespace("sensitivity", ["neighbours", "measured_sensitivity"])


@pytest.fixture(scope="module")
def ns():
    return notebook_namespace("vectorised-neighbour-lab", [
        "neighbour_batches", "neighbour_distances", "measured_sensitivity", "make_count",
        "make_histogram", "make_clipped_sum", "make_clipped_mean",
    ])


def test_core_neighbours_match_explicit_construction(core):
    data = np.array([3.0, 1.0, 4.0, 1.0, 5.0])
    cands = np.array([0.0, 9.0])
    got = [sorted(d) for d in core["neighbours"](data, "add/remove", cands)]
    assert got == ([sorted(np.delete(data, i)) for i in range(len(data))]
                   + [sorted(np.append(data, c)) for c in cands])
    got = sorted(tuple(d) for d in core["neighbours"](data, "replace-one", cands))
    expected = sorted(tuple(np.where(np.arange(len(data)) == i, c, data))
                      for i in range(len(data)) for c in cands)
    assert got == expected
    with pytest.raises(ValueError):  # an unknown notion yields no neighbour: max() fails
        core["measured_sensitivity"](len, data, "swap", cands)


def test_core_loop_lab_agrees_with_the_batch_lab(core, ns):
    rng = helpers.make_rng(5)
    for _ in range(10):
        data = rng.uniform(-50, 150, size=int(rng.integers(2, 30)))
        lower, upper = np.sort(rng.uniform(-20, 100, size=2))
        cands = rng.uniform(-200, 300, size=5)
        pairs = [  # (query on one 1-D dataset, the same query on a batch)
            (lambda d: np.clip(d, lower, upper).sum(), ns["make_clipped_sum"](lower, upper)),
            (lambda d: (d >= 40).sum(), ns["make_count"](40)),
            (lambda d: np.bincount(np.digitize(d, [0, 50, 100]), minlength=4),
             ns["make_histogram"]([0, 50, 100])),
        ]
        for one, batch in pairs:
            for notion in ["add/remove", "replace-one"]:
                assert core["measured_sensitivity"](one, data, notion, cands) == pytest.approx(
                    ns["measured_sensitivity"](batch, data, notion, cands))


def test_core_glued_sensitivities_are_the_formulas():
    g = glued("sensitivity")
    lower, upper, n = 20, 80, 1000
    assert g["sens_lab_matches"] == "every"
    assert g["sens_sum_ar"] == f"{max(abs(lower), abs(upper)):g}"
    assert g["sens_sum_r1"] == f"{upper - lower:g}"
    assert g["sens_hist_r1"] == "2"
    assert g["sens_mean_r1"] == f"{(upper - lower) / n:g}"
    assert g["sens_clipped_ar"] == g["sens_clipped_r1"] == "10,000"  # [0, 10,000]
    assert g["sens_unclipped_ar"] == "1,000,000,000"  # the billion-dollar newcomer


def test_the_failure_is_the_samples_largest_gain(adult):
    g = glued("sensitivity")
    rows = np.sort(helpers.make_rng(42).choice(len(adult), size=1000, replace=False))
    largest = int(adult["capital_gain"].to_numpy()[rows].max())
    assert g["sens_max_gain_sample"] == f"{largest:,}"
    assert g["sens_sample_max_ratio"] == f"{largest / 10_000:.0f}"
    assert largest > 10_000


def test_privacy_unit_numbers_are_the_event_tables(adult):
    g = glued("sensitivity")
    events = helpers.event_table(adult)
    per_person = np.bincount(events["person_id"].to_numpy())
    assert g["sens_events"] == f"{len(events):,}"
    assert g["sens_people"] == f"{np.count_nonzero(per_person):,}"
    assert g["sens_rows_max"] == f"{per_person.max():,}"
    cap = int(g["sens_cap"])
    # removing one person changes the capped count by min(n_u, cap) <= cap, and the heaviest
    # person reaches the cap; the uncapped count moves by n_u, unbounded by any cap
    capped = np.minimum(per_person, cap)
    assert capped.max() == cap < per_person.max()
    assert int(capped.sum()) - int(np.delete(capped, per_person.argmax()).sum()) == cap

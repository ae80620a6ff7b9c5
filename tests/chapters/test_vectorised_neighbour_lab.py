"""Tests for the going-deeper page ``vectorised-neighbour-lab``: the batch lab builds exactly
the neighbours a loop would, reproduces the sensitivity table, and shows clipping at work.

The theoretical values are written here from the formulas (count 1; histogram 1 or 2; clipped
sum max(|L|, |U|) or U - L; mean with public n (U - L)/n), not copied from the notebook.
"""

from __future__ import annotations

import numpy as np
import pytest

import helpers
from notebook_code import notebook_namespace


@pytest.fixture(scope="module")
def ns():
    return notebook_namespace("vectorised-neighbour-lab", [
        "neighbour_batches", "neighbour_distances", "measured_sensitivity", "make_count",
        "make_histogram", "make_clipped_sum", "make_clipped_mean",
    ])


@pytest.fixture(scope="module")
def ages(adult):
    rows = helpers.make_rng(2024).choice(len(adult), size=400, replace=False)
    return adult["age"].to_numpy()[np.sort(rows)].astype(float)


@pytest.fixture(scope="module")
def gains(adult):
    rows = helpers.make_rng(7).choice(len(adult), size=400, replace=False)
    return adult["capital_gain"].to_numpy()[np.sort(rows)].astype(float)


def test_neighbour_batches_match_explicit_construction(ns):
    data = np.array([3.0, 1.0, 4.0, 1.0, 5.0])
    cands = np.array([0.0, 9.0])
    expected_ar = ([sorted(np.delete(data, i)) for i in range(len(data))]
                   + [sorted(np.append(data, c)) for c in cands])
    got_ar = [sorted(row) for *_, batch in ns["neighbour_batches"](data, "add/remove", cands)
              for row in batch]
    assert got_ar == expected_ar
    expected_r1 = []
    for c in cands:
        for i in range(len(data)):
            d = data.copy()
            d[i] = c
            expected_r1.append(sorted(d))
    got_r1 = [sorted(row) for *_, batch in ns["neighbour_batches"](data, "replace-one", cands)
              for row in batch]
    assert got_r1 == expected_r1


def test_unknown_notion_raises(ns):
    with pytest.raises(ValueError, match="notion"):
        list(ns["neighbour_batches"](np.array([1.0, 2.0]), "swap", np.array([0.0])))


@pytest.mark.parametrize("lower, upper", [(20, 80), (17, 90), (30, 60)])
def test_lab_reproduces_the_table(ns, ages, lower, upper):
    n = len(ages)
    cands = np.array([0, 17, lower, 50, upper, 90, 120], dtype=float)
    measure = ns["measured_sensitivity"]
    cases = {
        # query: (theory under add/remove, theory under replace-one)
        "count": (ns["make_count"](40), 1, 1),
        "histogram": (ns["make_histogram"]([30, 40, 50, 60, 70]), 1, 2),
        "clipped sum": (ns["make_clipped_sum"](lower, upper), max(abs(lower), abs(upper)),
                        upper - lower),
    }
    for name, (f, ar, r1) in cases.items():
        assert measure(f, ages, "add/remove", cands) == pytest.approx(ar), name
        assert measure(f, ages, "replace-one", cands) == pytest.approx(r1), name
    mean = ns["make_clipped_mean"](lower, upper, n)
    assert measure(mean, ages, "replace-one", cands) == pytest.approx((upper - lower) / n,
                                                                      rel=1e-9)


def test_signed_bounds(ns, ages):
    # shifted ages cover negative values: add/remove gives max(|L|, |U|), replace-one U - L
    data = ages - 40
    f = ns["make_clipped_sum"](-10, 30)
    cands = np.array([-100.0, -10.0, 0.0, 30.0, 100.0])
    assert ns["measured_sensitivity"](f, data, "add/remove", cands) == 30
    assert ns["measured_sensitivity"](f, data, "replace-one", cands) == 40
    f = ns["make_clipped_sum"](-30, 10)
    assert ns["measured_sensitivity"](f, data, "add/remove", cands) == 30


def test_histogram_vector_and_l1(ns):
    hist = ns["make_histogram"]([30, 40])
    out = hist(np.array([[10.0, 35.0, 35.0, 50.0]]))
    assert out.tolist() == [[1, 2, 1]]
    d = ns["neighbour_distances"](hist, np.array([10.0, 35.0]), "replace-one", np.array([50.0]))
    assert d["distance"].tolist() == [2.0, 2.0]


def test_public_n_mean_rejects_other_sizes(ns):
    with pytest.raises(ValueError, match="public size"):
        ns["make_clipped_mean"](0, 1, 5)(np.zeros((2, 4)))


def test_measured_never_exceeds_theory_on_random_data(ns):
    rng = helpers.make_rng(11)
    for _ in range(20):
        data = rng.uniform(-50, 150, size=int(rng.integers(2, 40)))
        lower, upper = np.sort(rng.uniform(-20, 100, size=2))
        cands = rng.uniform(-200, 300, size=6)
        f = ns["make_clipped_sum"](lower, upper)
        ar = ns["measured_sensitivity"](f, data, "add/remove", cands)
        r1 = ns["measured_sensitivity"](f, data, "replace-one", cands)
        assert ar <= max(abs(lower), abs(upper)) + 1e-9
        assert r1 <= upper - lower + 1e-9
        hist = ns["make_histogram"]([0, 25, 50, 75])
        assert ns["measured_sensitivity"](hist, data, "add/remove", cands) <= 1
        assert ns["measured_sensitivity"](hist, data, "replace-one", cands) <= 2


def test_outlier_breaks_unclipped_sum_and_clipping_bounds_it(ns, gains, adult):
    assumed = 10_000

    def plain_sum(batch):
        return batch.sum(axis=1)

    cands = np.array([0, 1_000, assumed, 99_999, 10**9], dtype=float)
    for notion in ["add/remove", "replace-one"]:
        unclipped = ns["measured_sensitivity"](plain_sum, gains, notion, cands)
        assert unclipped > 1000 * assumed
        d = ns["neighbour_distances"](ns["make_clipped_sum"](0, assumed), gains, notion, cands)
        assert (d["distance"] <= assumed).all()
        assert d["distance"].max() == assumed
    # a real Adult outlier alone (no synthetic newcomer) already exceeds the assumed bound
    adult_max = float(adult["capital_gain"].max())
    data = np.append(gains, adult_max)
    removed = ns["measured_sensitivity"](plain_sum, data, "add/remove", np.array([0.0]))
    assert removed == adult_max > assumed

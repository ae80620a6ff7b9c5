"""Tests for the sensitivity chapter and its going-deeper pages: the neighbour labs reproduce the
sensitivity table, clipping works, and the privacy unit's numbers are the event table's.

The chapter's core (``sensitivity``) has a loop lab; ``vectorised-neighbour-lab`` has the batch
lab (``neighbour_batches`` and the query factories); ``sensitivity-proofs`` checks the table
exhaustively on small datasets; ``local-sensitivity`` has the median. The theoretical values are
written here from the formulas (count 1; histogram 1 or 2; clipped sum max(|L|, |U|) or U - L;
mean with public n (U - L)/n), not copied from the notebooks.
"""

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


def test_median_local_sensitivity_is_zero_at_the_chapter_sample_but_not_globally(ns, adult):
    # The chapter's sample (seed 42, 1,000 rows) has a median age that no single addition or
    # removal can move: the two middle clipped ages are equal. Check that with every integer
    # age as a candidate, and that a tiny dataset reaches half the range [20, 80].
    rows = np.sort(helpers.make_rng(42).choice(len(adult), size=1000, replace=False))
    ages = adult["age"].to_numpy()[rows].astype(float)
    middle = np.sort(np.clip(ages, 20, 80))[[499, 500]]
    assert middle[0] == middle[1]

    def clipped_median(batch):
        return np.median(np.clip(batch, 20, 80), axis=1)

    every_age = np.arange(0, 121, dtype=float)
    assert ns["measured_sensitivity"](clipped_median, ages, "add/remove", every_age) == 0
    tiny = np.array([20.0, 20.0, 80.0, 80.0])
    assert ns["measured_sensitivity"](clipped_median, tiny, "add/remove", every_age) == 30


# --- the core's loop lab, its glued numbers and the privacy unit ---------------------------------

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


# --- the going-deeper pages --------------------------------------------------------------------

def test_exhaustive_check_counts_its_pairs_and_finds_the_mean_add_remove_bound():
    from math import comb

    g = glued("sensitivity-proofs")
    domain, max_rows = 5, 3
    multisets = [comb(domain + s - 1, s) for s in range(max_rows + 1)]
    # each dataset of size s: one add/remove pair per value, s replace-one pairs per value
    pairs = sum(m * domain * (1 + s) for s, m in enumerate(multisets))
    assert g["sens_exhaustive_pairs"] == f"{pairs:,}"
    assert g["sens_exhaustive_matches"] == "every"
    assert g["sens_mean_ar_small"] == f"{(80 - 20) / 2:g}"  # from {L} to {L, U}


def test_local_sensitivity_page_glues_the_median_values():
    g = glued("local-sensitivity")
    assert g["sens_median_local"] == "0"
    assert g["sens_median_tiny"] == f"{(80 - 20) / 2:g}"  # half the range [20, 80]

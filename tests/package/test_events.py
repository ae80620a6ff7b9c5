"""``dpcourse.events``: the event table of Part VI against its specification, and the bounding
of contributions against a pandas reference, exact bounds, uniform choices and stability.

The expected numbers are those of the course's Part VI specification (computed there by an
independent prototype); the draws are re-done here with numpy directly where that is cheap.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import helpers
from dpcourse.events import bound_contributions, event_table


@pytest.fixture(scope="module")
def events(adult) -> pd.DataFrame:
    return event_table(adult)


def test_default_table_is_the_specified_generator(adult, events):
    """Re-draw the specification's generator line by line and compare every column."""
    rng = np.random.default_rng(2026)
    n_u = 1 + np.floor(rng.pareto(1.5, len(adult))).astype(np.int64)
    pid = np.repeat(np.arange(len(adult)), n_u)
    n = len(pid)
    day = rng.integers(1, 366, n)
    amount = np.round(rng.lognormal(3.0, 1.0, n)).astype(np.int64)
    merchant = rng.zipf(1.5, n)
    assert list(events.columns) == ["person_id", "day", "amount", "merchant", "education"]
    np.testing.assert_array_equal(events["person_id"], pid)
    np.testing.assert_array_equal(events["day"], day)
    np.testing.assert_array_equal(events["amount"], amount)
    np.testing.assert_array_equal(events["merchant"], merchant)
    np.testing.assert_array_equal(events["education"].astype(str),
                                  adult["education"].to_numpy()[pid])
    for col in ["person_id", "day", "amount", "merchant"]:
        assert events[col].dtype == np.int64, col


def test_default_table_facts(events):
    """The specification: 87,630 events; n_u median 1, p90 4, p99 21, max 3,324; top 1 % hold 27.2 %;
    2,861 merchants, 1,932 of them used by one person."""
    assert len(events) == 87_630
    n_u = events.groupby("person_id").size().to_numpy()
    assert len(n_u) == 32_561
    assert np.median(n_u) == 1
    assert np.quantile(n_u, 0.9) == 4
    assert np.quantile(n_u, 0.99) == 21
    assert n_u.max() == 3_324
    top = np.sort(n_u)[::-1][: int(np.ceil(0.01 * len(n_u)))]
    assert round(100 * top.sum() / n_u.sum(), 1) == 27.2
    people_per_merchant = events.groupby("merchant")["person_id"].nunique()
    assert len(people_per_merchant) == 2_861
    assert int((people_per_merchant == 1).sum()) == 1_932
    assert events["day"].between(1, 365).all()
    assert (events["amount"] >= 0).all() and (events["merchant"] >= 1).all()
    assert list(events["education"].cat.categories) == list(helpers.ADULT_CATEGORIES["education"])


@pytest.mark.parametrize(("n_rows", "people", "largest"), [
    (10**5, 37_058, 3_324),
    (10**6, 378_113, 10_498),
])
def test_n_rows_gives_the_specified_people(adult, n_rows, people, largest):
    table = event_table(adult, n_rows=n_rows)
    assert len(table) == n_rows
    n_u = table.groupby("person_id").size()
    assert len(n_u) == people
    assert n_u.max() == largest
    assert n_u.min() >= 1
    assert table["person_id"].is_monotonic_increasing


def test_ten_million_rows_people_count_from_the_counts_alone():
    """The 10^7 table would take seconds to build; its number of people and largest count
    depend only on the counts, which are drawn first (the Part VI specification: 3,752,285 and 237,863)."""
    counts = 1 + np.floor(np.random.default_rng(2026).pareto(1.5, 10**7)).astype(np.int64)
    k = int(np.argmax(np.cumsum(counts) >= 10**7)) + 1
    assert k == 3_752_285
    assert counts[:k].max() == 237_863


def test_n_rows_draws_people_with_replacement_after_the_counts(adult):
    """The counts come first, then the source rows: re-draw both for a small table."""
    n_rows = 500
    rng = np.random.default_rng(2026)
    counts = 1 + np.floor(rng.pareto(1.5, n_rows)).astype(np.int64)
    k = int(np.argmax(np.cumsum(counts) >= n_rows)) + 1
    source = rng.integers(0, len(adult), k)
    table = event_table(adult, n_rows=n_rows)
    first_rows = table.groupby("person_id").head(1)
    np.testing.assert_array_equal(first_rows["education"].astype(str),
                                  adult["education"].to_numpy()[source])
    # the first people's counts are those of the default table (same stream, same order)
    np.testing.assert_array_equal(table.groupby("person_id").size().to_numpy()[:-1],
                                  counts[: k - 1])


@pytest.mark.parametrize(("kwargs", "exc", "message"), [
    ({"people": [1, 2]}, TypeError, r"^people must be a pandas DataFrame, got list$"),
    ({"people": pd.DataFrame({"education": []})}, ValueError,
     r"^people must have at least one row$"),
    ({"people": pd.DataFrame({"age": [30]})}, ValueError,
     r"^people must have an 'education' column$"),
    ({"people": pd.DataFrame({"education": ["Bachelors", "PhD", "MBA"]})}, ValueError,
     r"^people\['education'\] has values outside the public levels: \['MBA', 'PhD'\]$"),
    ({"n_rows": 0}, ValueError, r"^n_rows must be >= 1, got 0$"),
    ({"n_rows": 10.5}, TypeError, r"^n_rows must be an integer, got float$"),
    ({"seed": -1}, ValueError, r"^seed must be >= 0, got -1$"),
    ({"seed": "2026"}, TypeError, r"^seed must be an integer, got str$"),
])
def test_error_messages_start_with_the_parameter(adult, kwargs, exc, message):
    args = {"people": adult.head(5), **kwargs}
    people = args.pop("people")
    with pytest.raises(exc, match=message):
        event_table(people, **args)


def test_the_message_lists_the_first_five_unknown_levels():
    people = pd.DataFrame({"education": ["Bachelors", "A", "B", "C", "D", "E", "F"]})
    with pytest.raises(ValueError, match=r": \['A', 'B', 'C', 'D', 'E'\]$"):
        event_table(people)


def test_smallest_table_and_seed_zero():
    people = pd.DataFrame({"education": ["Doctorate", "Preschool"]})
    one = event_table(people, n_rows=1, seed=0)
    assert len(one) == 1 and one["person_id"].tolist() == [0]
    assert len(event_table(people, seed=0)) >= 2


def test_seed_changes_the_table(adult):
    a = event_table(adult.head(100), seed=1)
    b = event_table(adult.head(100), seed=1)
    c = event_table(adult.head(100), seed=2)
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(c)


@pytest.mark.parametrize(("kwargs", "exc", "name"), [
    ({"people": [1, 2]}, TypeError, "people"),
    ({"people": pd.DataFrame({"education": []})}, ValueError, "people"),
    ({"people": pd.DataFrame({"age": [30]})}, ValueError, "education"),
    ({"people": pd.DataFrame({"education": ["Bachelors", "PhD"]})}, ValueError, "education"),
    ({"n_rows": 0}, ValueError, "n_rows"),
    ({"n_rows": 10.5}, TypeError, "n_rows"),
    ({"n_rows": True}, TypeError, "n_rows"),
    ({"seed": -1}, ValueError, "seed"),
    ({"seed": "2026"}, TypeError, "seed"),
])
def test_bad_input_names_the_parameter(adult, kwargs, exc, name):
    args = {"people": adult.head(5), **kwargs}
    people = args.pop("people")
    with pytest.raises(exc, match=name):
        event_table(people, **args)


def test_build_script_prints_the_facts(capsys, tmp_path):
    """data/build_events.py: the documented script writes the same table and its facts."""
    import importlib.util
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "data" / "build_events.py"
    spec = importlib.util.spec_from_file_location("build_events", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = tmp_path / ("events" + ".csv")
    assert module.main(["--rows", "1000", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "events: 1,000" in printed
    written = pd.read_csv(out)
    assert len(written) == 1_000
    assert list(written.columns) == ["person_id", "day", "amount", "merchant", "education"]
    with pytest.raises(SystemExit):
        module.main(["--out", str(tmp_path / ("events" + ".txt"))])


def _bound_with_pandas(person, key, max_partitions, max_per_partition, priority):
    """An independent reference: group-by ranks over a DataFrame."""
    rows = pd.DataFrame({"person": person, "key": key, "p_pair": priority[:, 0],
                         "p_row": priority[:, 1]})
    rank_in_pair = rows.groupby(["person", "key"])["p_row"].rank(method="first")
    first = rows.groupby(["person", "key"], sort=False).head(1)     # each pair's first row
    pair_rank = first.groupby("person")["p_pair"].rank(method="first")
    pair_rank = pd.Series(pair_rank.to_numpy(), index=pd.MultiIndex.from_frame(first[["person", "key"]]))
    rows_pair_rank = pair_rank.reindex(pd.MultiIndex.from_frame(rows[["person", "key"]])).to_numpy()
    return ((rank_in_pair <= max_per_partition) & (rows_pair_rank <= max_partitions)).to_numpy()


@pytest.mark.parametrize(("max_partitions", "max_per_partition"), [(1, 1), (2, 3), (6, 100)])
def test_bound_contributions_matches_a_pandas_reference(max_partitions, max_per_partition):
    rng = np.random.default_rng(5)
    person, key = rng.integers(0, 50, 3_000), rng.integers(0, 6, 3_000)
    priority = rng.random((3_000, 2))
    keep = bound_contributions(person, key, max_partitions, max_per_partition, priority)
    np.testing.assert_array_equal(
        keep, _bound_with_pandas(person, key, max_partitions, max_per_partition, priority))


def test_bound_contributions_keeps_exactly_what_the_bounds_allow(events):
    """Per person at most l keys, per key at most C rows, and nothing more is dropped."""
    person, days = events["person_id"].to_numpy(), events["day"].to_numpy()
    for l0, linf in [(1, 1), (5, 2), (3, 10)]:
        kept = events[bound_contributions(person, days, l0, linf, np.random.default_rng(3))]
        per_pair = kept.groupby(["person_id", "day"]).size()
        full = events.groupby(["person_id", "day"]).size()
        assert per_pair.equals(full.loc[per_pair.index].clip(upper=linf))
        assert kept.groupby("person_id")["day"].nunique().equals(
            events.groupby("person_id")["day"].nunique().clip(upper=l0))


def test_bound_contributions_picks_partitions_uniformly():
    """A person with partitions of 1, 1 and 10 rows keeps each with probability 1/3 at l = 1,
    whatever their sizes (a priority taken from the partition's smallest row would favour the
    big one). Seeded; tolerance 4 standard errors."""
    person = np.zeros(12, dtype=np.int64)
    keys = np.array([0, 1] + [2] * 10)
    rng = np.random.default_rng(8)
    picked = np.zeros(3)
    trials = 3_000
    for _ in range(trials):
        picked[np.unique(keys[bound_contributions(person, keys, 1, 100, rng)])] += 1
    assert picked.sum() == trials
    assert np.all(np.abs(picked / trials - 1 / 3) < 4 * math.sqrt(2 / 9 / trials))


def test_bound_contributions_picks_rows_uniformly():
    """Of 10 rows in one partition, C = 3 are kept: each with probability 3/10."""
    person, keys = np.zeros(10, dtype=np.int64), np.zeros(10, dtype=np.int64)
    rng = np.random.default_rng(9)
    trials = 3_000
    kept = sum(bound_contributions(person, keys, 1, 3, rng).astype(int) for _ in range(trials))
    assert kept.sum() == 3 * trials
    assert np.all(np.abs(kept / trials - 0.3) < 4 * math.sqrt(0.3 * 0.7 / trials))


def test_removing_a_person_leaves_the_others_rows_unchanged(adult):
    """Fixed priorities per row: the stability that makes the sensitivity l*C."""
    table = event_table(adult.head(300), seed=4)
    person, days = table["person_id"].to_numpy(), table["day"].to_numpy()
    priority = np.random.default_rng(1).random((len(table), 2))
    keep = bound_contributions(person, days, 3, 2, priority)
    for u in np.unique(person)[:60]:
        mask = person != u
        np.testing.assert_array_equal(
            bound_contributions(person[mask], days[mask], 3, 2, priority[mask]), keep[mask])


def test_bound_contributions_of_an_empty_table():
    empty = np.array([], dtype=np.int64)
    assert bound_contributions(empty, empty, 1, 1, np.random.default_rng(0)).shape == (0,)


@pytest.mark.parametrize(("args", "exc", "name"), [
    ({"person": np.array([0.5, 1.0])}, TypeError, "person"),
    ({"key": np.array(["a", "b"])}, TypeError, "key"),
    ({"key": np.array([0, 1, 2])}, ValueError, "same length"),
    ({"person": np.zeros((2, 1), dtype=int)}, ValueError, "person"),
    ({"max_partitions": 0}, ValueError, "max_partitions"),
    ({"max_partitions": 1.5}, TypeError, "max_partitions"),
    ({"max_per_partition": 0}, ValueError, "max_per_partition"),
    ({"priority": np.zeros((2, 3))}, ValueError, "priority"),
    ({"priority": np.array([[0.1, np.nan], [0.2, 0.3]])}, ValueError, "priority"),
    ({"priority": "random"}, TypeError, "priority"),
])
def test_bound_contributions_bad_input_names_the_parameter(args, exc, name):
    call = {"person": np.array([0, 1]), "key": np.array([3, 3]), "max_partitions": 1,
            "max_per_partition": 1, "priority": np.random.default_rng(0), **args}
    with pytest.raises(exc, match=name):
        bound_contributions(**call)

"""Tests for the dp-engines chapter.

* the chapter's bounding is checked exactly against a brute-force count per person;
* each engine's noise (the course's numpy code, OpenDP on Polars, PipelineDP on a list and on a
  real Spark in ``local[2]``) is compared with the scale the engine declares, and that scale with
  the one the bounds give, by a Kolmogorov-Smirnov test over hundreds of keys released at once;
* each engine defect the chapter describes is kept as a test that FAILS once the pinned version
  fixes it, so that the chapter is updated rather than left stale;
* the numbers glued into the prose are checked against values computed here independently.
"""

from __future__ import annotations

import importlib.metadata as metadata
import math
import re

import numpy as np
import pandas as pd
import polars as pl
import pytest
from scipy import stats

from conftest import glued
from notebook_code import notebook_namespace

NAMES = ["EDUCATION", "EPSILON", "MAX_GROUPS", "MAX_ROWS", "AMOUNT_BOUNDS", "opendp_query"]
#: The core's going-deeper sections (issue 38): PipelineDP and the course's numpy code, the
#: thresholds, defects 2 and 3, the scale benchmark.
PIPELINE = "pipelinedp-on-spark"
PIPELINE_NAMES = ["numpy_release", "pipelinedp_release", "start_spark", "spark_release"]
SELECTION = "partition-selection-in-engines"
SCALE = "engine-scale-benchmark"
DEFECTS = "opendp-defects"
#: Keys released at once: each key's noise is one draw, so one release gives this many draws.
KEYS = 600
#: Significance level of the KS tests (fixed seeds where seeding is possible).
ALPHA = 1e-3
FIXED = "the pinned version fixed this defect: update chapters/dp-engines.ipynb and this test"


@pytest.fixture(scope="module")
def ch():
    return {**notebook_namespace("dp-engines", NAMES),
            **notebook_namespace(PIPELINE, PIPELINE_NAMES)}


def test_the_sections_recreate_the_cores_query_and_bounds():
    """The thresholds section re-creates the core's opendp_query (folded) and the PipelineDP
    section the core's bounds: the copies must not drift from the core."""
    def source(notebook, name):
        cells = _cells(notebook)
        return next("".join(c["source"]) for c in cells if c["cell_type"] == "code"
                    and f"def {name}(" in "".join(c["source"]))
    core = source("dp-engines", "opendp_query")
    start = core.index("def opendp_query(")
    assert core[start:] in source(SELECTION, "opendp_query")
    assert core[start:] in source(DEFECTS, "opendp_query")
    section = notebook_namespace(PIPELINE, ["EDUCATION", "EPSILON", "MAX_GROUPS", "MAX_ROWS",
                                            "AMOUNT_BOUNDS"])
    chapter = notebook_namespace("dp-engines", NAMES)
    for name in ("EDUCATION", "EPSILON", "MAX_GROUPS", "MAX_ROWS", "AMOUNT_BOUNDS"):
        assert section[name] == chapter[name], name


@pytest.fixture(scope="module")
def known():
    """A table whose bounded answer is known: person p has 3 + p % 20 rows, all in key p % KEYS,
    every amount 7. With C = 10, key k's bounded count is the sum of min(n_p, 10)."""
    people = np.arange(KEYS * 5)
    n = 3 + people % 20
    person = np.repeat(people, n)
    events = pd.DataFrame({"person_id": person, "key": person % KEYS, "amount": 7})
    bounded = pd.Series(np.minimum(n, 10)).groupby(people % KEYS).sum()
    return events, bounded.reindex(range(KEYS)).to_numpy()


def _laplace_ks(noise: np.ndarray, scale: float) -> float:
    return stats.kstest(noise, stats.laplace(scale=scale).cdf).pvalue


def _discrete_laplace_ks(noise: np.ndarray, scale: float) -> float:
    # KS with a discrete law is conservative (p-values too large), so a wrong scale still fails
    return stats.kstest(noise, stats.dlaplace(1 / scale).cdf).pvalue


def test_pinned_versions_the_defects_belong_to():
    assert metadata.version("opendp") == "0.16.0"
    assert metadata.version("polars") == "1.36.1"
    assert metadata.version("pipeline-dp") == "0.3.1"
    assert metadata.version("pyspark").startswith("4.0.")


def test_numpy_release_keeps_exactly_min_rows_and_keys_per_person(ch, known):
    """The release's counts before noise: with a huge epsilon the noise is negligible, and
    every key's count is the sum of min(n_p, C) (helpers.bound_contributions itself is tested
    in tests/package/test_events.py)."""
    events, bounded = known
    released = ch["numpy_release"](events, list(range(KEYS)), np.random.default_rng(2), by="key",
                                   epsilon=1e9)
    np.testing.assert_allclose(released["count"].to_numpy(), bounded, atol=1e-3)
    np.testing.assert_allclose(released["sum"].to_numpy(), 7 * bounded, atol=1e-2)


def test_numpy_release_noise_has_the_derived_scale(ch, known):
    events, bounded = known
    released = ch["numpy_release"](events, list(range(KEYS)), np.random.default_rng(11), by="key")
    assert _laplace_ks(released["count"].to_numpy() - bounded, 20.0) > ALPHA
    assert _laplace_ks(released["sum"].to_numpy() - 7 * bounded, 2000.0) > ALPHA
    # and it is not the scale of the wrong (record-level) sensitivity
    assert _laplace_ks(released["count"].to_numpy() - bounded, 2.0) < ALPHA


def test_opendp_declares_the_derived_scale_and_draws_it(ch, known):
    events, bounded = known
    data = pl.from_pandas(events).lazy()
    query = ch["opendp_query"](data, "key", list(range(KEYS)))
    scales = dict(zip(*query.summarize()[["column", "scale"]].to_dict(as_series=False).values()))
    assert scales == {"len": 40.0, "amount": 4000.0}      # k = ell + 1: twice 20 and 2,000
    released = query.release().collect().to_pandas().set_index("key").loc[range(KEYS)]
    noise = released["len"].to_numpy() - bounded
    assert np.issubdtype(released["len"].dtype, np.integer)  # integer (discrete) Laplace
    assert _discrete_laplace_ks(noise, 40.0) > ALPHA
    assert _discrete_laplace_ks(noise, 20.0) < ALPHA
    assert _discrete_laplace_ks(released["amount"].to_numpy() - 7 * bounded, 4000.0) > ALPHA


def test_pipelinedp_local_declares_and_draws_the_derived_scale(ch, known):
    import pipeline_dp
    events, bounded = known
    rows = list(zip(events["person_id"], events["key"], events["amount"]))
    result, report = ch["pipelinedp_release"](rows, pipeline_dp.LocalBackend(), list(range(KEYS)))
    released = dict(result)
    assert re.findall(r"parameter=([\d.]+)", report.text()) == ["20.0", "2000.0"]
    counts = np.array([released[k].count for k in range(KEYS)])
    sums = np.array([released[k].sum for k in range(KEYS)])
    assert _laplace_ks(counts - bounded, 20.0) > ALPHA
    assert _laplace_ks(counts - bounded, 40.0) < ALPHA
    assert _laplace_ks(sums - 7 * bounded, 2000.0) > ALPHA


def test_pipelinedp_on_spark_local2_declares_and_draws_the_derived_scale(ch, known, tmp_path):
    events, bounded = known
    path = tmp_path / "events.parquet"
    events.to_parquet(path, index=False)
    spark = ch["start_spark"](2)
    try:
        assert spark.sparkContext.master == "local[2]"
        collected, report = ch["spark_release"](spark, str(path), by="key", keys=list(range(KEYS)))
    finally:
        spark.stop()
    released = dict(collected)
    assert re.findall(r"parameter=([\d.]+)", report.text()) == ["20.0", "2000.0"]
    counts = np.array([released[k].count for k in range(KEYS)])
    assert _laplace_ks(counts - bounded, 20.0) > ALPHA
    assert _laplace_ks(counts - bounded, 40.0) < ALPHA


# ----------------------------------------------------------------------------------------------
# Defects: each assertion holds for the pinned version and fails once it is fixed.
# ----------------------------------------------------------------------------------------------

def test_defect_opendp_truncate_num_groups_keeps_k_minus_one_groups(ch, known):
    events, bounded = known
    data = pl.from_pandas(events).lazy()
    query = ch["opendp_query"](data, "key", list(range(KEYS)), num_groups=1)
    scales = query.summarize()["scale"].to_list()
    assert scales == [20.0, 2000.0]                        # calibrated for one key per person ...
    released = query.release().collect()
    total = int(released["len"].sum())
    # ... but no row survives: the noise total has sd ~ 20 * sqrt(2 * KEYS) ~ 700
    assert abs(total) < 10_000, FIXED
    assert int(bounded.sum()) > 20_000                     # what correct bounding keeps


def test_defect_opendp_keep_sample_fails_at_release(ch, known):
    import opendp.prelude as dp
    events, _ = known
    query = ch["opendp_query"](pl.from_pandas(events).lazy(), "key", list(range(KEYS)),
                               keep="sample")
    assert query.summarize()["scale"].to_list() == [40.0, 4000.0]
    try:
        query.release().collect()
    except dp.OpenDPException as err:
        assert "Duplicate" in str(err)
    else:
        pytest.fail(FIXED)


def test_defect_pipelinedp_report_says_max_for_min(ch, known):
    import pipeline_dp
    events, _ = known
    rows = list(zip(events["person_id"], events["key"], events["amount"]))[:100]
    _, report = ch["pipelinedp_release"](rows, pipeline_dp.LocalBackend(), list(range(KEYS)))
    assert "randomly select max(actual_contributions_per_partition, 10)" in report.text(), FIXED


# ----------------------------------------------------------------------------------------------
# The prose's numbers
# ----------------------------------------------------------------------------------------------

def test_glued_numbers(adult):
    g = glued("dp-engines")
    s = glued(SELECTION)
    n_u = 1 + np.floor(np.random.default_rng(2026).pareto(1.5, len(adult))).astype(np.int64)
    assert g["engines_events"] == f"{n_u.sum():,}" == "87,630"         # the content specification
    assert g["engines_max_events"] == "3,324"
    assert g["engines_expected_kept"] == f"{np.minimum(n_u, 10).sum():,}"
    assert g["engines_scale_count"] == "20" and g["engines_scale_sum"] == "2,000"
    assert g["engines_survivors_k1"] == "0"
    assert g["engines_survivors_k2"] == "87,630"
    assert g["engines_opendp_ratio"] == "2"
    tau = 1 + 3 * math.log(1 / (2 * 1e-6))                               # Wilson et al. 2020
    assert s["engines_pipeline_threshold"] == f"{tau:.2f}"
    # published when 1 + Z > t: the smallest t with 2 P(Z >= t) <= delta, for scale 4
    exact = next(t for t in range(1, 1000) if 2 * _dlaplace_at_least(t, 4.0) <= 1e-6)
    assert s["engines_opendp_threshold"] == exact == 56
    assert s["engines_opendp_formula"] == f"{1 + 4 * math.log(2 / (2 * 1e-6)):.2f}"
    assert g["engines_ex_l10"] == 21                                     # (22/21)^2 < 1.1


def _cells(notebook: str) -> list[dict]:
    import json
    from pathlib import Path
    path = Path(__file__).resolve().parents[2] / "chapters" / f"{notebook}.ipynb"
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _stored_text(cell_id: str, notebook: str = SELECTION) -> str:
    """The text/plain output stored for one cell of a notebook (the thresholds section)."""
    cell = next(c for c in _cells(notebook) if c.get("id") == cell_id)
    return "".join("".join(o["data"]["text/plain"]) for o in cell["outputs"]
                   if "text/plain" in o.get("data", {}))


def test_selection_table_charges_opendp_the_counts_share_of_epsilon(ch):
    """OpenDP thresholds the count's own noise, so selection costs the count's share of
    epsilon, sensitivity / scale = epsilon / 2, not the whole epsilon (issue 37, finding 9).
    The scale comes from OpenDP's summarize on a small table, the share from the bounds."""
    people = 300
    data = pl.LazyFrame({"person_id": range(people), "merchant": range(people),
                         "amount": [1] * people})
    query = ch["opendp_query"](data, "merchant", epsilon=1.0, delta=1e-6, max_rows=1)
    scale = float(query.summarize()["scale"][0])
    keys = ch["MAX_GROUPS"] + 1                       # defect 1: calibrated for l + 1 keys
    assert keys / scale == pytest.approx(ch["EPSILON"] / 2)
    g = glued(SELECTION)
    assert float(g["engines_opendp_selection_eps"]) == pytest.approx(keys / scale)
    opendp_row = next(line for line in _stored_text("908a3b4d").splitlines()
                      if line.startswith("OpenDP"))
    assert float(opendp_row.split(")")[1].split()[0]) == pytest.approx(ch["EPSILON"] / 2)
    # PipelineDP's own step: the epsilon its explain report gives the selection
    import pipeline_dp
    rows = [(person, person % 10, 1) for person in range(100)]
    _, report = ch["pipelinedp_release"](rows, pipeline_dp.LocalBackend(), epsilon=1.0,
                                         delta=1e-6, max_rows=1)
    step = re.search(r"Thresholding.*?epsilon=([\d.]+)", report.text(), re.S)
    pipeline_row = next(line for line in _stored_text("908a3b4d").splitlines()
                        if line.startswith("PipelineDP"))
    assert float(pipeline_row.split(")")[1].split()[0]) == round(float(step.group(1)), 2)


def _scale_report() -> dict:
    import json
    from pathlib import Path
    return json.loads((Path(__file__).resolve().parents[2] / "benchmarks" / "report.json")
                      .read_text(encoding="utf-8"))["scale"]


def test_scale_report_covers_every_engine_and_size():
    report = _scale_report()
    measured = {(r["engine"], r["rows"]) for r in report["runs"]}
    assert {10**5, 10**6, 2 * 10**6, 5 * 10**6, 10**7} <= set(report["sizes"])
    for engine in ("numpy", "opendp"):
        assert {(engine, n) for n in report["sizes"]} <= measured
    # a Spark size may be missing only if the report says it did not finish, and why
    assert {("spark", 10**5), ("spark", 10**6)} <= measured
    for n in report["sizes"]:
        assert ("spark", n) in measured or f"spark at {n:,} rows" in report["unfinished"]
    spark = [r for r in report["runs"] if r["engine"].startswith("spark")]
    assert all(r["startup_s"] + r["release_s"] < r["wall_s"] for r in spark)
    # what Spark measured itself, and the run conditions, for every run
    for r in spark:
        m = r["spark_metrics"]
        assert m["stages"] and m["tasks_s"] > 0
        assert min(m["gc_s"], m["memory_spilled_mib"], m["disk_spilled_mib"]) >= 0
    assert all(r["tree_cpu_s"] > 0 and "load_before" in r for r in report["runs"])


def test_scale_prose_matches_the_measurements():
    """The scale section's claims against report.json (issue 37, finding 5): Spark grows
    faster than linearly past its fixed costs, so an extrapolation from one slope fitted to all
    sizes falls below even linear growth from the largest size; the spill and the conditions
    the prose states are the report's."""
    report, g = _scale_report(), glued(SCALE)
    # the page extrapolates from this run, which must have had the machine to itself
    assert max(r["load_before"] for r in report["runs"]) <= report["cpu_count"]
    idle = sorted((r["rows"], r["release_s"]) for r in report["runs"]
                  if r["engine"] == "spark")
    (n0, t0), (n1, t1), (n2, t2) = idle[0], idle[-2], idle[-1]
    step = math.log(t2 / t1) / math.log(n2 / n1)
    assert g["engines_idle_growth"] == f"{t2 / t1:.1f}"
    assert g["engines_idle_slope"] == f"{step:.2f}"
    assert step > 1                                     # "grows faster than linearly"
    assert math.log(t1 / t0) / math.log(n1 / n0) < 1     # "the step below it": fixed costs
    fit = float(np.polyfit(np.log([n for n, _ in idle]), np.log([t for _, t in idle]), 1)[0])
    linear, stepped, fitted = (t2 * 1e8 / n2, t2 * (1e8 / n2) ** step, t2 * (1e8 / n2) ** fit)
    assert g["engines_1e8_linear"] == f"{linear:,.0f}"
    assert g["engines_1e8_step"] == f"{stepped:,.0f}"
    assert g["engines_1e8_all"] == f"{fitted:,.0f}"
    assert fitted < linear < stepped                    # "below even the linear estimate"
    assert g["engines_all_slope"] == f"{fit:.2f}" and fit < 1
    # this run: spill and conditions
    spark = sorted((r for r in report["runs"] if r["engine"] == "spark"),
                   key=lambda r: r["rows"])
    spilled = [r["spark_metrics"]["memory_spilled_mib"] + r["spark_metrics"]["disk_spilled_mib"]
               for r in spark]
    at = next(i for i, b in enumerate(spilled) if b > 0)             # "Spilling began at"
    assert at > 0 and g["engines_spill_text"].startswith(
        f"Spilling began at {spark[at]['rows']:,} rows")
    stages = [st for st in spark[at]["spark_metrics"]["stages"]
              if st["memory_spilled_mib"] + st["disk_spilled_mib"] > 0]
    assert g["engines_spill_stages"] == len(stages) == 3        # "all 3 ... reduceByKey stages"
    assert all(st["name"].startswith("reduceByKey") for st in stages)
    assert len(stages) == sum(st["name"].startswith("reduceByKey")         # "all"
                              for st in spark[at]["spark_metrics"]["stages"])
    rows = spark[at]["rows"] / spark[at - 1]["rows"]
    for key, name in (("release_s", "release"), ("tree_cpu_s", "cpu")):
        growth = spark[at][key] / spark[at - 1][key]
        assert g[f"engines_spill_{name}_growth"] == f"{growth:.1f}"
        assert growth > rows                            # "turns super-linear here"
    last = spark[-1]["spark_metrics"]
    assert last["gc_s"] < 0.05 * last["tasks_s"]        # "garbage collection is not the cause"
    busy = max(r["load_before"] for r in report["runs"]) > report["cpu_count"]
    assert g["engines_conditions"].startswith("while other jobs ran" if busy else "with nothing")
    text = "".join("".join(_markdown(c, SCALE)) for c in ("46442235-steps-md", "263f56cc"))
    assert "are below 1" not in text and "fixed costs dominate the small tables" not in text


# ----------------------------------------------------------------------------------------------
# Thresholds: OpenDP's Polars path publishes only counts strictly above its threshold; the
# lower-level make_laplace_threshold publishes at equality but declares delta as if it did not
# (OpenDP issue 2922). A release over DRAWS keys, each held by one person with one row, gives
# DRAWS independent draws of "is a key of one person published". The measured rate is compared
# with both candidates in binomial standard errors: within 6 of the right one and more than 12
# from the off-by-one one (they lie more than 20 apart here), so each check fails with
# probability below 1e-8 when the engine behaves as stated, and always on an off-by-one.
# Reference tails from scipy's discrete Laplace, independent of the chapter's `tail`.
# ----------------------------------------------------------------------------------------------

DRAWS = 100_000


def _dlaplace_at_least(k: int, scale: float) -> float:
    """P(Z >= k) for scipy's discrete Laplace with parameter 1 / scale."""
    return float(stats.dlaplace(1 / scale).sf(k - 1))


def _z(published: int, p: float) -> float:
    return abs(published / DRAWS - p) / math.sqrt(p * (1 - p) / DRAWS)


def test_opendp_polars_publishes_only_counts_strictly_above_the_threshold(ch):
    """Would have caught the chapter's claim that a key is published if its noisy count
    "reaches" the threshold (issue 37, finding 4)."""
    import logging
    data = pl.LazyFrame({"person_id": range(DRAWS), "merchant": range(DRAWS),
                         "amount": [1] * DRAWS})
    logging.getLogger("opendp.context").setLevel(logging.ERROR)
    query = ch["opendp_query"](data, "merchant", epsilon=2.0, delta=0.05, max_rows=1)
    summary = query.summarize()
    logging.getLogger("opendp.context").setLevel(logging.NOTSET)
    scale, t = float(summary["scale"][0]), int(summary["threshold"][0])
    assert (scale, t) == (pytest.approx(2.0), 7)
    # the threshold is the smallest integer with 2 * P(Z >= t) <= delta (two keys: defect 1)
    assert 2 * _dlaplace_at_least(t, scale) <= 0.05 < 2 * _dlaplace_at_least(t - 1, scale)
    counts = query.release().collect()["len"]
    assert counts.min() > t                             # never at equality
    right, wrong = _dlaplace_at_least(t, scale), _dlaplace_at_least(t - 1, scale)
    assert _z(len(counts), right) < 6
    assert _z(len(counts), wrong) > 12
    # and the chapter says so
    text = "".join(_markdown("5c30f0c2", SELECTION))
    assert "strictly above the `threshold`" in text
    assert "reaches the `threshold`" not in text


def test_defect_opendp_make_laplace_threshold_understates_delta(ch):
    """OpenDP issue 2922: publishes a count equal to the threshold, charges delta for
    P(Z >= threshold) only."""
    import opendp.prelude as dp
    scale, t = 1.0, 3
    meas = dp.m.make_laplace_threshold(
        dp.map_domain(dp.atom_domain(T=str), dp.atom_domain(T=int)),
        dp.l01inf_distance(dp.absolute_distance(T=int)), scale=scale, threshold=t)
    declared = meas.map((1, 1, 1))[1]
    released = meas({f"key{i}": 1 for i in range(DRAWS)})
    right, claimed = _dlaplace_at_least(t - 1, scale), _dlaplace_at_least(t, scale)
    assert declared == pytest.approx(claimed, rel=1e-9)
    assert min(released.values()) == t, FIXED          # published at equality
    assert _z(len(released), right) < 6
    assert _z(len(released), declared) > 12, FIXED     # the declared delta is too small
    g = glued(DEFECTS)
    assert g["engines_low_delta"] == f"{claimed:.4f}"
    assert g["engines_low_true"] == f"{right:.4f}"
    assert g["engines_rule_t"] == 7 and g["engines_rate_draws"] == f"{DRAWS:,}"
    assert int(g["engines_rate_gap"]) >= 20


def _markdown(cell_id: str, notebook: str) -> list[str]:
    return next(c["source"] for c in _cells(notebook) if c.get("id") == cell_id)


def test_the_core_says_what_its_opendp_arguments_mean():
    """Issue 38, a learner's read: ``contributions=1``, ``split_evenly_over`` and ``max_length``
    were used without a word, δ appeared without a bridge, and an exercise needed an API
    (``dp.polars.Bound``) that the core never shows."""
    cells = _cells("dp-engines")
    prose = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    for argument in ("contributions=1", "split_evenly_over=1", "max_length=10**9"):
        # "`...argument...`: what it means", in the list before the query
        assert re.search(rf"`[^`]*{re.escape(argument)}[^`]*`: \w", prose), argument
    assert "In brief: why keys read from the data need δ" in prose
    assert "dp.polars.Bound" not in prose                  # the exercises need only the core
    # the answer to "why still eps-DP": l C kept, (l + 1) C calibrated, for every l
    ns = notebook_namespace("dp-engines", NAMES)
    keys = list("abcdef")                                  # more keys than l + 1
    data = pl.LazyFrame({"person_id": [0] * 6, "education": keys, "amount": [1] * 6})
    scales = ns["opendp_query"](data, keys=keys, max_groups=2).summarize()["scale"].to_list()
    eps_each = ns["EPSILON"] / 2
    assert scales == [3 * ns["MAX_ROWS"] / eps_each,
                      3 * ns["MAX_ROWS"] * ns["AMOUNT_BOUNDS"][1] / eps_each]


def test_a_declared_key_bound_does_not_give_the_derived_scale():
    """errata 2026-11-27: an exercise's solution suggested declaring the L0 bound
    (``dp.polars.Bound(by=[...], num_groups=l)`` in ``unit_of(contributions=...)``) instead of
    the workaround. With OpenDP 0.16.0 the declared bound, with rows truncated per key as in the
    chapter, gives the count a scale of 10**9, not the derived l C / (eps / 2)."""
    import opendp.prelude as dp
    dp.enable_features("contrib")
    data = pl.LazyFrame({"person_id": [0, 0, 1], "education": ["a", "a", "b"],
                         "amount": [1, 2, 3]})
    context = dp.Context.compositor(
        data=data,
        privacy_unit=dp.unit_of(contributions=[dp.polars.Bound(by=["education"], num_groups=1)],
                                identifier="person_id"),
        privacy_loss=dp.loss_of(epsilon=1.0), split_evenly_over=1,
        margins=[dp.polars.Margin(by=["education"], max_length=10**9)])
    query = (context.query().truncate_per_group(10, by=["education"])
             .group_by("education").agg(dp.len(signed=True))
             .with_keys(pl.LazyFrame({"education": ["a", "b"]})))
    assert query.summarize()["scale"].to_list() == [1e9], FIXED  # derived: 1 * 10 / 1 = 10

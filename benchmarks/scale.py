"""The scale benchmark of Part VI: one user-level release at 10^5 to 10^7 rows.

The release is the one of ``chapters/dp-engines.ipynb``: a count and a sum of ``amount`` per
education level (16 public keys), each person bounded to ``MAX_GROUPS`` key(s) and ``MAX_ROWS``
rows per key, amounts clipped to ``AMOUNT_BOUNDS``, epsilon = 1. Its code is loaded from the
chapter and its page ``pipelinedp-on-spark`` (``benchmarks/notebook_code.py``), so the benchmark
measures what the course teaches, on

* ``numpy``: the course's own code (``numpy_release``), after pandas reads the Parquet file;
* ``opendp``: OpenDP's Polars ``Context`` on ``polars.scan_parquet`` (``opendp_query``);
* ``spark``: PipelineDP on Spark ``local[2]`` (``spark_release``, the RDD API);
* ``spark-dataframe``: PipelineDP's Spark DataFrame API (``pipeline_dp.dataframes``), at the
  smallest size only: its source converts the DataFrame to the same RDD of per-row Python calls
  (``SparkConverter.dataframe_to_collection``), so it cannot be a faster path.

Each run is a fresh Python process, so the wall time includes imports and, for Spark, the start
of the JVM. The child reports the parts it timed itself (Spark's start-up, the release); the
parent samples the summed resident memory of the child's whole process tree (Python driver,
JVM, Python workers) every 0.1 s with psutil, because ``getrusage``'s maximum RSS counts only the
largest single process and misses the JVM.

Spark runs also record what Spark itself measured, from its event log
(``spark.eventLog.enabled``, set through ``PYSPARK_SUBMIT_ARGS`` so that the chapter's
``start_spark`` runs unchanged): per stage, the tasks' run time, the JVM's garbage-collection time,
the bytes spilled from memory and to disk (by the JVM and by the Python workers, which report
their spills to the task), and the shuffle written; and the executor's peak JVM heap. The child's
process tree also reports its CPU seconds, so that a run slowed by other jobs on the machine shows
it (CPU seconds well below ``cores`` x wall).

``benchmarks/run.py`` calls :func:`measure` unless given ``--skip-scale``; run it alone with
``python benchmarks/run.py --scale-only`` (``--resume`` to keep an interrupted measurement's
runs), which writes the ``scale`` entry of ``benchmarks/report.json`` and re-writes
``benchmarks/report.md``. The event tables (0.7 to 70 MB of Parquet) are
written to ``_build/scale/`` once.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA_DIR = ROOT / "_build" / "scale"
EVENT_LOG_DIR = DATA_DIR / "spark-events"
SIZES = (10**5, 10**6, 2 * 10**6, 5 * 10**6, 10**7)
ENGINES = ("numpy", "opendp", "spark", "spark-dataframe")
#: Engines measured only at the smaller sizes (with the reason in the report).
SMALL_ONLY = {"spark-dataframe": 10**5}
#: The issue's target for OpenDP on Polars at 10^7 rows (wall time, seconds, an idle 2-core machine).
POLARS_TARGET_S = 30.0
#: The names the benchmark runs, by the notebook that defines them: the core of dp-engines
#: holds the OpenDP query, its going-deeper page pipelinedp-on-spark the numpy and Spark code.
#: Both define the release's constants (the test checks they agree).
CONSTANTS = ["EDUCATION", "EPSILON", "MAX_GROUPS", "MAX_ROWS", "AMOUNT_BOUNDS"]
NAMES = {"dp-engines": CONSTANTS + ["opendp_query"],
         "pipelinedp-on-spark": CONSTANTS + ["numpy_release", "pipelinedp_release",
                                             "start_spark", "spark_release"]}


def data_path(rows: int) -> Path:
    """The Parquet file of ``helpers.event_table(adult, n_rows=rows)``, written on first use."""
    path = DATA_DIR / f"events-{rows}.parquet"
    if not path.exists():
        sys.path.insert(0, str(ROOT / "chapters"))
        import helpers
        events = helpers.event_table(helpers.load_adult(), n_rows=rows)
        events["education"] = events["education"].astype(str)
        DATA_DIR.mkdir(parents=True, exist_ok=True)
        events.to_parquet(path.with_suffix(".tmp"), index=False)
        path.with_suffix(".tmp").rename(path)
    return path


def chapter_namespace() -> dict[str, object]:
    """The chapters' code the benchmark runs (:data:`NAMES`), loaded from their notebooks."""
    sys.path.insert(0, str(ROOT / "chapters"))
    from notebook_code import notebook_namespace
    ns: dict[str, object] = {}
    for notebook, names in NAMES.items():
        loaded = notebook_namespace(notebook, names)
        ns.update({name: loaded[name] for name in names})
    return ns


def child(engine: str, rows: int) -> dict[str, float]:
    """Run one release in this process and return the parts it timed (seconds)."""
    ns = chapter_namespace()
    path = str(data_path(rows))
    timings: dict[str, float] = {}
    if engine == "numpy":
        import pandas as pd
        import helpers
        start = time.perf_counter()
        events = pd.read_parquet(path, columns=["person_id", "education", "amount"])
        timings["read_s"] = time.perf_counter() - start
        start = time.perf_counter()
        released = ns["numpy_release"](events, ns["EDUCATION"], helpers.make_rng(0))
        timings["release_s"] = time.perf_counter() - start
        assert len(released) == 16
    elif engine == "opendp":
        import polars as pl
        start = time.perf_counter()
        data = pl.scan_parquet(path).select("person_id", "education", "amount")
        released = ns["opendp_query"](data, "education", ns["EDUCATION"]).release().collect()
        timings["release_s"] = time.perf_counter() - start
        assert len(released) == 16
    elif engine in ("spark", "spark-dataframe"):
        start = time.perf_counter()
        spark = ns["start_spark"](2)
        spark.range(1).count()                                  # the JVM and one task are up
        timings["startup_s"] = time.perf_counter() - start
        app_id = spark.sparkContext.applicationId
        start = time.perf_counter()
        if engine == "spark":
            released, _ = ns["spark_release"](spark, path)
        else:
            from pipeline_dp import dataframes
            query = (dataframes.QueryBuilder(spark.read.parquet(path), "person_id")
                     .groupby("education", max_groups_contributed=ns["MAX_GROUPS"],
                              max_contributions_per_group=ns["MAX_ROWS"],
                              public_keys=ns["EDUCATION"])
                     .count()
                     .sum("amount", min_value=ns["AMOUNT_BOUNDS"][0],
                          max_value=ns["AMOUNT_BOUNDS"][1])
                     .build_query())
            released = query.run_query(dataframes.Budget(ns["EPSILON"], 0.0)).collect()
        timings["release_s"] = time.perf_counter() - start
        spark.stop()                                  # closes the event log
        assert len(released) == 16
        timings["spark_metrics"] = spark_metrics(EVENT_LOG_DIR / app_id)
    else:
        raise ValueError(f"engine must be one of {ENGINES}, got {engine!r}")
    return timings


def spark_metrics(log: Path) -> dict[str, object]:
    """What Spark measured, from one application's event log (JSON lines).

    Per stage (in order of completion): its name, number of tasks, duration, and the sums over
    its tasks of run time, JVM garbage-collection time, bytes spilled from memory and to disk
    (``memoryBytesSpilled``, ``diskBytesSpilled``: the same task metrics as the REST API's
    ``/stages``), and shuffle bytes written. Totals over all stages, and the largest JVM heap
    and the garbage-collection counts the executor reported."""
    stages: dict[tuple[int, int], dict[str, object]] = {}
    peak_heap = 0
    gc: dict[str, int] = {}
    for line in log.read_text(encoding="utf-8").splitlines():
        event = json.loads(line)
        kind = event.get("Event")
        if kind == "SparkListenerTaskEnd" and event.get("Task Metrics"):
            m = event["Task Metrics"]
            key = (event["Stage ID"], event["Stage Attempt ID"])
            stage = stages.setdefault(key, {"tasks_s": 0.0, "gc_s": 0.0, "memory_spilled_mib": 0.0,
                                            "disk_spilled_mib": 0.0, "shuffle_written_mib": 0.0})
            stage["tasks_s"] += m["Executor Run Time"] / 1000
            stage["gc_s"] += m["JVM GC Time"] / 1000
            stage["memory_spilled_mib"] += m["Memory Bytes Spilled"] / 2**20
            stage["disk_spilled_mib"] += m["Disk Bytes Spilled"] / 2**20
            stage["shuffle_written_mib"] += (m.get("Shuffle Write Metrics", {})
                                             .get("Shuffle Bytes Written", 0) / 2**20)
        elif kind == "SparkListenerStageCompleted":
            info = event["Stage Info"]
            stage = stages.setdefault((info["Stage ID"], info["Stage Attempt ID"]), {})
            stage.update({"stage": info["Stage ID"], "name": info["Stage Name"],
                          "num_tasks": info["Number of Tasks"],
                          "duration_s": (info["Completion Time"] - info["Submission Time"]) / 1000})
        elif kind in ("SparkListenerStageExecutorMetrics", "SparkListenerExecutorMetricsUpdate"):
            metrics = event.get("Executor Metrics") or {}
            peak_heap = max(peak_heap, metrics.get("JVMHeapMemory", 0))
            for name in ("MinorGCCount", "MinorGCTime", "MajorGCCount", "MajorGCTime"):
                gc[name] = max(gc.get(name, 0), metrics.get(name, 0))
    done = [s for s in stages.values() if "duration_s" in s]
    total = {name: sum(s.get(name, 0.0) for s in done)
             for name in ("tasks_s", "gc_s", "memory_spilled_mib", "disk_spilled_mib",
                          "shuffle_written_mib")}
    return {"stages": done, **total, "peak_jvm_heap_mib": peak_heap / 2**20,
            "executor_gc": gc}


def run(engine: str, rows: int) -> dict[str, object]:
    """One run in a fresh process: wall time, the child's own timings, peak memory, CPU time."""
    import psutil
    data_path(rows)                                   # not timed
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", PYTHONHASHSEED="0")
    if engine.startswith("spark"):
        EVENT_LOG_DIR.mkdir(parents=True, exist_ok=True)
        env["PYSPARK_SUBMIT_ARGS"] = " ".join([
            "--conf spark.eventLog.enabled=true",
            f"--conf spark.eventLog.dir={EVENT_LOG_DIR.as_uri()}",
            "--conf spark.eventLog.logStageExecutorMetrics=true",
            "--conf spark.eventLog.rolling.enabled=false",      # one plain JSON-lines file
            "--conf spark.eventLog.compress=false",
            "pyspark-shell"])
    start = time.perf_counter()
    proc = psutil.Popen([sys.executable, __file__, "--child", engine, str(rows)],
                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    peak = 0
    cpu: dict[int, float] = {}                       # last CPU seconds seen, per process
    loads = []
    while proc.poll() is None:
        try:
            tree = [proc] + proc.children(recursive=True)
            rss = 0
            for p in tree:
                try:
                    rss += p.memory_info().rss
                    times = p.cpu_times()
                    cpu[p.pid] = times.user + times.system
                except psutil.Error:
                    pass
            peak = max(peak, rss)
        except psutil.Error:
            pass
        loads.append(os.getloadavg()[0])
        time.sleep(0.1)
    wall = time.perf_counter() - start
    out = proc.stdout.read()
    if proc.returncode != 0:
        raise RuntimeError(f"{engine} at {rows} rows failed (exit {proc.returncode})")
    result: dict[str, object] = {"engine": engine, "rows": rows, "wall_s": wall,
                                 "peak_tree_mib": peak / 2**20,
                                 "tree_cpu_s": sum(cpu.values()),
                                 "load_max": max(loads, default=os.getloadavg()[0])}
    result.update(json.loads(out.strip().splitlines()[-1]))
    return result


def slope(rows: list[int], seconds: list[float]) -> float:
    """Least-squares slope of log(seconds) against log(rows)."""
    import numpy as np
    return float(np.polyfit(np.log10(rows), np.log10(seconds), 1)[0])


def plan() -> list[tuple[str, int]]:
    """(engine, rows) in the order they run: small sizes first, Spark at 10^7 last."""
    pairs = [(e, n) for n in SIZES for e in ENGINES if n <= SMALL_ONLY.get(e, max(SIZES))]
    return sorted(pairs, key=lambda pair: (pair == ("spark", max(SIZES)), pair[1]))


#: Before each run the 1-minute load average must fall below this (a Spark run leaves a load of
#: about 4 behind it, which would otherwise read as other jobs), waiting at most SETTLE_MAX_S.
SETTLE_LOAD = 1.0
SETTLE_MAX_S = 300.0


def settle(load_below: float = SETTLE_LOAD, max_wait_s: float = SETTLE_MAX_S) -> float:
    """Wait until the previous run's trace has left the 1-minute load average; return the load
    at the start of the next run (above ``load_below`` only if other jobs kept it there)."""
    waited = 0.0
    while os.getloadavg()[0] >= load_below and waited < max_wait_s:
        time.sleep(5)
        waited += 5
    return os.getloadavg()[0]


def measure(save=None, done: list[dict] | None = None) -> dict[str, object]:
    """Every engine at every size, one run each; slopes of release time against rows.

    ``save``, if given, is called with the partial result after every run; runs in ``done``
    (from an interrupted measurement) are kept and not repeated."""
    scale: dict[str, object] = {"sizes": list(SIZES), "runs": list(done or []),
                                "release_slopes": {}, "cpu_count": os.cpu_count()}
    runs = scale["runs"]
    measured = {(r["engine"], r["rows"]) for r in runs}
    for engine, rows in plan():
        if (engine, rows) in measured:
            continue
        load = settle()
        print(f"  {engine} at {rows:,} rows ...", flush=True)
        result = run(engine, rows)
        result["load_before"] = load
        runs.append(result)
        print(f"    {json.dumps(result)}", flush=True)
        scale["local_slopes"] = {}
        for name in ENGINES:
            mine = sorted((r for r in runs if r["engine"] == name), key=lambda r: r["rows"])
            if len(mine) >= 2:
                scale["release_slopes"][name] = slope([r["rows"] for r in mine],
                                                      [r["release_s"] for r in mine])
                # between consecutive sizes: where the growth changes regime
                scale["local_slopes"][name] = [
                    [a["rows"], b["rows"], slope([a["rows"], b["rows"]],
                                                 [a["release_s"], b["release_s"]])]
                    for a, b in zip(mine, mine[1:])]
        scale["measured_at"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        if save is not None:
            save(scale)
    return scale


def markdown(scale: dict) -> list[str]:
    """The report's section on scale."""
    lines = ["", "## Scale: one user-level release on three engines", "",
             f"Measured {scale['measured_at']} by `benchmarks/scale.py`: a count and a sum per "
             "education level (16 public keys, 1 key and 10 rows per person, amounts in "
             "[0, 100], ε = 1) on `helpers.event_table(adult, n_rows=...)` read from Parquet, "
             "one fresh process per run. Wall: the whole process (imports, Spark's JVM). "
             "Peak: summed RSS of the process tree, sampled every 0.1 s. Load: the machine's "
             f"1-minute load average before the run, after waiting up to {SETTLE_MAX_S:.0f} s "
             f"for the previous run's trace to fall below {SETTLE_LOAD:.1f} "
             f"({scale.get('cpu_count', 2)} cores; "
             + ("other jobs ran beside it"
                if max(r["load_before"] for r in scale["runs"]) > scale.get("cpu_count", 2)
                else "nothing else ran") + ").", "",
             "| engine | rows | wall (s) | of which Spark start-up (s) | release (s) | "
             "peak memory (MiB) | load |", "|---|---|---|---|---|---|---|"]
    for r in scale["runs"]:
        startup = f"{r['startup_s']:.1f}" if "startup_s" in r else ""
        lines.append(f"| {r['engine']} | {r['rows']:,} | {r['wall_s']:.1f} | {startup} | "
                     f"{r['release_s']:.2f} | {r['peak_tree_mib']:.0f} | "
                     f"{r['load_before']:.1f} |")
    lines += ["", "Slope of log(release time) against log(rows), all sizes: " + ", ".join(
        f"{engine} {s:.2f}" for engine, s in scale["release_slopes"].items()) + "."]
    if scale.get("local_slopes"):
        lines += ["", "Between consecutive sizes: " + "; ".join(
            f"{engine} " + ", ".join(f"{a:.0e}→{b:.0e} {s:.2f}" for a, b, s in steps)
            for engine, steps in scale["local_slopes"].items()) + "."]
    spark = [r for r in scale["runs"] if "spark_metrics" in r]
    if spark:
        lines += ["", "What Spark measured (its event log; sums over tasks), and the CPU seconds "
                  "of the whole process tree:", "",
                  "| engine | rows | CPU (s) | tasks (s) | JVM GC (s) | spilled, memory (MiB) | "
                  "spilled, disk (MiB) | shuffle written (MiB) | peak JVM heap (MiB) |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for r in spark:
            m = r["spark_metrics"]
            lines.append(f"| {r['engine']} | {r['rows']:,} | {r['tree_cpu_s']:.0f} | "
                         f"{m['tasks_s']:.0f} | {m['gc_s']:.1f} | "
                         f"{m['memory_spilled_mib']:.0f} | {m['disk_spilled_mib']:.0f} | "
                         f"{m['shuffle_written_mib']:.0f} | {m['peak_jvm_heap_mib']:.0f} |")
    polars = [r for r in scale["runs"] if r["engine"] == "opendp" and r["rows"] == max(SIZES)]
    if polars:
        met = "met" if polars[0]["wall_s"] <= POLARS_TARGET_S else "**MISSED**"
        lines += ["", f"Target: OpenDP on Polars at {max(SIZES):,} rows in at most "
                  f"{POLARS_TARGET_S:.0f} s (wall, whole process): {polars[0]['wall_s']:.0f} s, "
                  f"{met}."]
    if scale.get("unfinished"):
        lines += ["", f"Not finished: {scale['unfinished']}."]
    return lines


def main() -> None:
    """One release in this process, for :func:`run`'s child (``--child ENGINE ROWS``)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--child", nargs=2, metavar=("ENGINE", "ROWS"), required=True,
                        help="run one release in this process (used by the parent)")
    args = parser.parse_args()
    print(json.dumps(child(args.child[0], int(args.child[1]))))


if __name__ == "__main__":
    main()

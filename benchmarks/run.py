"""Measure the course's performance budget and write benchmarks/report.{md,json}.

Run with ``make benchmark`` (one BLAS thread, PYTHONHASHSEED=0). Measures, on this machine:

* CI: ``.ci/run`` in a fresh clone of HEAD with a fresh virtual environment (``--skip-ci``
  leaves the last measurement in place, but only if it was made with the same lock files:
  ``lock_hash``);
* ``make book`` in another fresh clone: its time, and the disk its venv and ``node_modules``
  take (it installs only the build's packages);
* builds: a clean website build, a rebuild with nothing changed, and the PDF edition;
* each notebook's run time in a fresh kernel on one core (median of three runs), the total,
  and nbval's wall time;
* the first visit of every page in chromium: bytes of everything it loads, as sent by a plain
  server and as a static host that gzips text would send it;
* Lighthouse on every page, as a phone on a slow connection sees it, text gzipped as GitHub
  Pages sends it (``lighthouse.py``; the issue-23 targets and the before/after table are there);
* the heavy computations on full Adult: the chapter's ``k_anonymity``, Mondrian, ``audit_epsilon``;
* ``make grade`` on N synthetic correct submissions of one chapter (``grading.py``; N from
  ``--grading-students``, default 80; below 80 the report extrapolates to 80 and says so);
* the disk the virtual environment takes.

Targets are in ``TARGETS``, the one place they are written. They inform: the report says which
are met, and no test fails on a measured time (a chapter nobody has measured yet passes
``make test``). ``tests/site/test_benchmarks.py`` tests this script's logic, and that the README
quotes the committed report.
"""

from __future__ import annotations

import argparse
import datetime as dt
import functools
import gzip
import hashlib
import http.server
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import unquote, urlparse

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
REPORT = ROOT / "benchmarks" / "report.json"
sys.path[:0] = [str(ROOT / "chapters"), str(ROOT / "_ext")]
import scale  # noqa: E402  (benchmarks/scale.py, beside this file)
import grading  # noqa: E402  (benchmarks/grading.py: make grade on N submissions, issue #41)
import mutation  # noqa: E402  (benchmarks/mutation.py: `make mutation` runs --mutation)
import lighthouse  # noqa: E402  (benchmarks/lighthouse.py, beside this file)
from course_site import tables  # noqa: E402  (_ext/course_site/tables.py: reading times)

#: Issue 38's reading-time targets, by the book's own estimate (``tables.reading_time``): each
#: chapter's core at most this many minutes, the whole core path at most that many.
CORE_CHAPTER_MAX_MIN = 20
CORE_PATH_MAX_MIN = 6 * 60

TARGETS = {
    "notebook_max_s": 10.0,                # every chapter but the engines chapter
    "engines_notebook_s": 60.0,            # dp-engines.ipynb: Spark's start-up counts (issue 24)
    "no_change_rebuild_s": 10.0,
    "k_anonymity_ms": 50.0,
    "chapter_page_max_kib": 2048.0,        # 2 MB (MiB) on a first visit, uncompressed
    "chapter_page_max_gzip_kib": 600.0,    # as a host that gzips text would send it
    "ci_s": 1800.0,                        # the developers' guide: keep CI under 30 minutes
    "fresh_book_s": 60.0,                  # make book on a fresh clone, installs included (#36)
    "fresh_book_mb": 600.0,                # ... and the disk its .venv and node_modules take
}
#: The files that decide what the venv and node_modules hold: the figures measured with them
#: (CI, the venv, make book's installs) are valid only for the same files.
LOCK_FILES = ("requirements-lock.txt", "requirements-build-lock.txt", "package-lock.json")
#: The report's figures that depend on the lock files.
LOCKED_FIGURES = ("ci_s", "venv_install_s", "venv_mb", "ci_measured_at", "fresh_book_s",
                  "fresh_book_mb", "ci_lock_hash")
#: The chapter that starts a JVM (Spark); it has its own run-time target, ``engines_notebook_s``.
ENGINES_NOTEBOOK = "dp-engines.ipynb"
#: Runs of each notebook; the report keeps the median.
NOTEBOOK_RUNS = 3
#: Text types a static host compresses; images and fonts are sent as they are.
COMPRESSED_SUFFIXES = {".html", ".css", ".js", ".svg", ".json", ".txt", ".map", ".ipynb"}


def timed(cmd: list[str], **kwargs) -> float:
    start = time.perf_counter()
    run = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    if run.returncode != 0:
        raise RuntimeError(f"{cmd} failed:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}")
    return time.perf_counter() - start


def lock_hash(root: Path = ROOT) -> str:
    """The first 12 hex digits of the SHA-256 of the lock files, in ``LOCK_FILES`` order."""
    digest = hashlib.sha256()
    for name in LOCK_FILES:
        digest.update((root / name).read_bytes())
    return digest.hexdigest()[:12]


def disk_mb(*folders: Path) -> float:
    """Megabytes (10^6 bytes) of the files under ``folders``; symbolic links are not followed."""
    return sum(f.stat().st_size for folder in folders for f in folder.rglob("*")
               if f.is_file() and not f.is_symlink()) / 1e6


def fresh_book() -> dict[str, float]:
    """``make book`` in a fresh clone: its time, installs included, and what they take on disk."""
    work = Path(tempfile.mkdtemp(prefix="bench-book-"))
    clone = work / "clone"
    subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(clone)],
                   check=True)
    env = {**os.environ}
    env.pop("VIRTUAL_ENV", None)
    seconds = timed(["make", "book"], cwd=clone, env=env)
    size = disk_mb(clone / ".venv", clone / "node_modules")
    shutil.rmtree(work, ignore_errors=True)
    return {"fresh_book_s": seconds, "fresh_book_mb": size}


def ci_time() -> dict[str, float]:
    """``.ci/run`` in a fresh clone (fresh venv, as CI), plus the venv's creation and size."""
    work = Path(tempfile.mkdtemp(prefix="bench-ci-"))
    clone = work / "clone"
    subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(clone)],
                   check=True)
    # four tests read the report this run is about to write (the two pages that quote it, and
    # the lock files its figures were measured with), so they are left out of the measured run;
    # every other test runs, exactly as .ci/run runs them
    env = {**os.environ, "PYTEST_ADDOPTS": " ".join(f"--deselect={test}" for test in (
        "tests/site/test_site.py::test_execution_statistics_come_from_the_benchmark_report",
        "tests/site/test_site.py::test_syllabus_lists_every_chapter_with_reading_and_run_time",
        "tests/site/test_benchmarks.py::test_the_readme_quotes_the_committed_report",
        "tests/site/test_benchmarks.py::"
        "test_the_reports_install_figures_were_measured_with_the_current_lock_files"))}
    env.pop("VIRTUAL_ENV", None)
    venv_s = timed(["make", "venv"], cwd=clone, env=env)
    test_s = timed(["bash", ".ci/run"], cwd=clone, env=env)
    size = disk_mb(clone / ".venv")
    shutil.rmtree(work, ignore_errors=True)
    return {"venv_install_s": venv_s, "ci_s": venv_s + test_s, "venv_mb": size}


def locked_figures(previous: dict, now: str) -> dict:
    """The last report's lock-dependent figures, refused if they were measured with other locks."""
    measured = previous.get("ci_lock_hash")
    if measured != now:
        raise SystemExit(
            f"make benchmark: the last report's CI, venv and make-book figures were measured "
            f"with lock files {measured or '(unrecorded)'}, and the lock files are now {now} "
            f"({', '.join(LOCK_FILES)}); they cannot be carried over: run make benchmark "
            f"without --skip-ci (or with --installs-only)")
    return {k: previous[k] for k in LOCKED_FIGURES if k in previous}


def measure_installs() -> dict:
    """The lock-dependent figures: make book on a fresh clone, then .ci/run on another."""
    print("make book in a fresh clone ...", flush=True)
    results = fresh_book()
    print("CI (.ci/run in a fresh clone) ...", flush=True)
    results.update(ci_time())
    results["ci_measured_at"] = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    results["ci_lock_hash"] = lock_hash()
    return results


def builds() -> dict[str, float]:
    """Clean build, no-change rebuild, PDF."""
    out = Path(tempfile.mkdtemp(prefix="bench-build-"))
    jb = str(BIN / "jupyter-book")
    off = out / "off"
    results = {"clean_build_s": timed([jb, "build", str(ROOT), "--path-output", str(off)])}
    results["no_change_rebuild_s"] = timed([jb, "build", str(ROOT), "--path-output", str(off)])
    if shutil.which("xelatex"):
        results["pdf_build_s"] = timed([jb, "build", str(ROOT), "--builder", "pdflatex",
                                        "--path-output", str(out / "pdf")])
    shutil.rmtree(out, ignore_errors=True)
    return results


def notebook_times(runs: int = NOTEBOOK_RUNS) -> dict[str, list[float]]:
    """Wall time of each notebook in a fresh kernel (start-up included), pinned to one core.

    Each notebook runs ``runs`` times, in rounds over all notebooks; the report keeps every run
    and quotes the median: on a shared virtual machine one run of the same notebook can take
    40 % longer than the next.
    """
    import nbformat
    from nbclient import NotebookClient

    all_cores = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(all_cores)})  # kernels inherit the affinity: one core
    paths = sorted((ROOT / "chapters").glob("*.ipynb"))
    samples: dict[str, list[float]] = {path.name: [] for path in paths}
    for _ in range(runs):
        for path in paths:
            nb = nbformat.read(path, as_version=4)
            client = NotebookClient(nb, timeout=600, kernel_name="python3",
                                    resources={"metadata": {"path": str(path.parent)}})
            start = time.perf_counter()
            client.execute()
            samples[path.name].append(time.perf_counter() - start)
    os.sched_setaffinity(0, all_cores)
    return samples


def nbval_time() -> float:
    return timed([str(BIN / "python"), "-m", "pytest", "--nbval", "chapters",
                  "--nbval-sanitize-with", "tests/sanitize.cfg", "--nbval-current-env", "-q"],
                 cwd=ROOT)


def page_weights() -> dict[str, dict[str, int]]:
    """Bytes of a first visit of every page with everything it loads, raw and gzipped.

    A fresh browser context per page (an empty cache) loads the page until the network is
    idle; every request it made is summed. Figures below the first screen load lazily, as in
    any browser, so they count only when they are near enough to load.
    """
    from playwright.sync_api import sync_playwright

    site = ROOT / "_build" / "html"
    if not (site / "index.html").exists():
        subprocess.run(["make", "book"], cwd=ROOT, check=True, capture_output=True)

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                             functools.partial(Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    pages = sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html")
                   if p.parent.name not in ("_sources", "_static") and p.name != "index.html"
                   and p.name not in ("genindex.html", "search.html", "prf-prf.html"))
    weights = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium") or "/usr/bin/chromium",
                                    args=["--headless", "--no-sandbox", "--disable-gpu",
                                          "--disable-background-networking", "--no-first-run",
                                          "--disable-component-update", "--disable-sync"])
        for page_path in pages:
            context = browser.new_context()
            page = context.new_page()
            page.goto(f"{base}/{page_path}", wait_until="load")
            page.wait_for_load_state("networkidle")
            page.wait_for_timeout(300)
            urls = page.evaluate("""() => performance.getEntries()
                .filter(e => e.entryType === 'navigation' || e.entryType === 'resource')
                .map(e => e.name)""")
            raw = compressed = 0
            for url in set(urls):
                path = site / unquote(urlparse(url).path).lstrip("/")
                if path.is_file():
                    data = path.read_bytes()
                    raw += len(data)
                    compressed += (len(gzip.compress(data, 6))
                                   if path.suffix in COMPRESSED_SUFFIXES else len(data))
            weights[page_path] = {"bytes": raw, "gzip_bytes": compressed}
            context.close()
        browser.close()
    server.shutdown()
    return weights


def computation_timings() -> dict[str, float]:
    import helpers
    from notebook_code import notebook_namespace

    adult = helpers.load_adult()
    chapter = notebook_namespace(
        "information-loss", ["adult", "mondrian", "k_anonymity", "MONDRIAN_QI"])
    qi = ["age", "sex", "race", "native_country", "workclass"]
    runs = []
    for _ in range(20):
        start = time.perf_counter()
        chapter["k_anonymity"](adult, qi)
        runs.append(time.perf_counter() - start)
    out = {"k_anonymity_ms": 1000 * statistics.median(runs)}
    for k in (5, 50):
        start = time.perf_counter()
        chapter["mondrian"](adult, chapter["MONDRIAN_QI"], k)
        out[f"mondrian_k{k}_s"] = time.perf_counter() - start

    def count(d, rng, size):
        return helpers.laplace_mechanism([float(d)] * size, 1.0, 1.0, rng)

    start = time.perf_counter()
    helpers.audit_epsilon(count, 14_237, 14_236, helpers.make_rng(0))
    out["audit_epsilon_200k_s"] = time.perf_counter() - start
    return out


def notebook_summary(samples: dict[str, list[float]]) -> dict[str, object]:
    """Each notebook's median run, their total, the slowest but the engines chapter, and that one.
    """
    medians = {name: statistics.median(values) for name, values in samples.items()}
    out = {"notebooks_s": medians, "notebooks_total_s": sum(medians.values()),
           "notebook_max_s": max(v for k, v in medians.items() if k != ENGINES_NOTEBOOK)}
    if ENGINES_NOTEBOOK in medians:
        out["engines_notebook_s"] = medians[ENGINES_NOTEBOOK]
    return out


def targets_met(results: dict) -> dict[str, bool]:
    """For each target that was measured: is the value strictly below it."""
    return {name: results[name] < limit for name, limit in TARGETS.items() if name in results}


def mutation_only(previous: dict, modules: list[str], jobs: int, missed_only: bool) -> int:
    """``make mutation``: the named modules' scores into the report; 2 for an unknown module or
    an equivalent-mutant entry to review (listed last)."""
    try:
        results, problems = mutation.measure(modules, jobs, missed_only)
    except ValueError as error:
        print(error)
        return 2
    merged = mutation.merged(previous.get("mutation"), results)
    write_report({**previous, "mutation": merged}, show=False)
    print("\n".join(mutation.markdown(merged)))
    for problem in problems:
        print("equivalent-mutants.toml:", problem)
    return 2 if problems else 0


def scale_only(previous: dict, resume: bool, unfinished: str | None) -> int:
    """The engines at scale into the report, written after every run (``resume``: keep the
    last entry's runs; ``unfinished``: only record why the entry is incomplete)."""
    last = previous.get("scale") or {}
    # a new measurement keeps the last one's runs (not its own previous) for comparison
    kept = (last.get("previous") if resume or unfinished else
            {k: last[k] for k in ("measured_at", "cpu_count", "runs") if k in last})

    def save(section: dict) -> None:
        if kept:
            section["previous"] = kept
        write_report({**previous, "scale": section}, show=False)

    if unfinished:
        save(dict(last, unfinished=unfinished))
    else:
        save(scale.measure(save, last.get("runs", []) if resume else []))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--skip-ci", action="store_true",
                        help="keep the CI measurement of the last report (it takes minutes)")
    parser.add_argument("--skip-scale", action="store_true",
                        help="keep the scale measurement of the last report (benchmarks/scale.py)")
    parser.add_argument("--installs-only", action="store_true",
                        help="measure only make book and .ci/run in fresh clones (the figures "
                             "that depend on the lock files); keep the rest of the last report")
    parser.add_argument("--pages-only", action="store_true",
                        help="measure only the pages (weights and Lighthouse) of the built site; "
                             "keep the rest of the last report")
    parser.add_argument("--lighthouse-pages", nargs="+", metavar="PAGE",
                        help="run Lighthouse on these pages only (e.g. chapters/sensitivity.html);"
                             " default: every page (5 runs each: hours)")
    parser.add_argument("--lighthouse-add", metavar="JSON",
                        help="add the pages of a calibrated measurement (`lighthouse.py "
                             "--calibrated --json JSON`, made after the report's) to the "
                             "report's Lighthouse table; each page keeps its own conditions")
    parser.add_argument("--grading-students", type=int, default=grading.CLASS_SIZE,
                        help="how many synthetic submissions the grading benchmark grades "
                             "(below 80, the report extrapolates to 80 and says so)")
    parser.add_argument("--scale-only", action="store_true",
                        help="measure only the engines at scale (benchmarks/scale.py), writing "
                             "the report after every run; keep the rest of the last report")
    parser.add_argument("--resume", action="store_true",
                        help="with --scale-only: keep the runs of the report's scale entry and "
                             "measure the rest")
    parser.add_argument("--unfinished", metavar="TEXT",
                        help="with --scale-only: record in the report's scale entry which runs "
                             "did not finish and why (e.g. stopped for lack of time), measure "
                             "nothing")
    parser.add_argument("--mutation", nargs="*", metavar="MODULE",
                        help="measure only the mutation score of these modules of "
                             "chapters/dpcourse/ (none named: all; `make mutation`); keep the "
                             "rest of the last report")
    parser.add_argument("--missed-only", action="store_true",
                        help="with --mutation: re-run only the mutants the last run missed")
    parser.add_argument("--jobs", type=int, default=1,
                        help="with --mutation: mutmut's worker processes (default 1)")
    parser.add_argument("--grading-only", action="store_true",
                        help="measure only the grading of a class (benchmarks/grading.py); "
                             "keep the rest of the last report")
    args = parser.parse_args()
    if args.grading_students < 1:
        parser.error("--grading-students must be at least 1")
    previous = json.loads(REPORT.read_text(encoding="utf-8")) if REPORT.exists() else {}
    if args.mutation is not None:
        return mutation_only(previous, args.mutation, args.jobs, args.missed_only)
    if args.scale_only:
        return scale_only(previous, args.resume, args.unfinished)
    if args.grading_only:
        print(f"grading {args.grading_students} submissions ...", flush=True)
        return write_report({**previous, "grading": grading.measure(args.grading_students)})
    if args.pages_only:
        return write_report({**previous, **measure_pages(previous, args.lighthouse_pages)})
    if args.lighthouse_add:
        extra = json.loads(Path(args.lighthouse_add).read_text(encoding="utf-8"))
        return write_report(add_lighthouse(previous, extra, dt.datetime.fromtimestamp(
            Path(args.lighthouse_add).stat().st_mtime, dt.timezone.utc)))
    if args.installs_only:
        return write_report({**previous, **measure_installs()})
    results: dict[str, object] = {
        "measured_at": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python "
                   f"{platform.python_version()}",
        "targets": TARGETS,
    }
    if args.skip_ci:  # keep the last CI measurement, if it was made with these lock files
        results.update(locked_figures(previous, lock_hash()))
    else:
        results.update(measure_installs())
    print("builds ...", flush=True)
    results.update(builds())
    print("notebooks ...", flush=True)
    samples = notebook_times()
    results["notebook_runs_s"] = samples  # every run, in the order they ran
    results.update(notebook_summary(samples))
    print("nbval ...", flush=True)
    results["nbval_s"] = nbval_time()
    results.update(measure_pages(previous, args.lighthouse_pages))
    print("computations ...", flush=True)
    results["computations"] = computation_timings()
    results["k_anonymity_ms"] = results["computations"]["k_anonymity_ms"]
    if args.skip_scale:
        results["scale"] = previous.get("scale")
    else:
        print("scale (benchmarks/scale.py) ...", flush=True)
        results["scale"] = scale.measure()
        last = previous.get("scale") or {}
        if last:  # the last measurement's runs, for comparison (not its own previous)
            results["scale"]["previous"] = {k: last[k] for k in ("measured_at", "cpu_count",
                                                                 "runs") if k in last}
    print("grading (benchmarks/grading.py) ...", flush=True)
    results["grading"] = grading.measure(args.grading_students)
    results["mutation"] = previous.get("mutation")  # measured by `make mutation`, not here
    return write_report(results)


#: Lighthouse runs per page: one run's blocking time varied from 366 to 1,679 ms on the same
#: page and build (laplace-mechanism); the report gives each number's median (issue 39: 5).
LIGHTHOUSE_RUNS = 5


def measure_pages(previous: dict | None = None,
                  lighthouse_pages: list[str] | None = None) -> dict[str, object]:
    """First visit of every page (bytes), and Lighthouse calibrated to its reference phone on
    every page (or on ``lighthouse_pages``); the last report's Lighthouse measurement is kept as
    the "before" of the report's table."""
    print("pages ...", flush=True)
    out: dict[str, object] = {"pages": page_weights()}
    chapters = [v for k, v in out["pages"].items() if k.startswith("chapters/")]
    out["chapter_page_max_kib"] = max(v["bytes"] for v in chapters) / 1024
    out["chapter_page_max_gzip_kib"] = max(v["gzip_bytes"] for v in chapters) / 1024
    if previous and "lighthouse" in previous:
        out["lighthouse_previous"] = {"measured_at": previous.get("lighthouse_measured_at", ""),
                                      "pages": previous["lighthouse"]}
    print("lighthouse ...", flush=True)
    out["lighthouse"] = lighthouse.calibrated_pages(ROOT / "_build" / "html", lighthouse_pages,
                                                    runs=LIGHTHOUSE_RUNS)
    out["lighthouse_measured_at"] = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return out


def add_lighthouse(report: dict, extra: dict, measured: dt.datetime) -> dict:
    """``report`` with the calibrated Lighthouse results ``extra`` (page -> record, as
    :func:`lighthouse.calibrated_pages` writes them), measured at ``measured``, added to its
    own: a page measured in both keeps the newer record. Each record keeps the time it was
    measured (``measured_at``), and the report's stamp counts the pages of each time."""
    if not extra or any("cpu_slowdown" not in r for r in extra.values()):
        raise ValueError("extra: a calibrated measurement (lighthouse.py --calibrated) is needed")
    if any("cpu_slowdown" not in r for r in report.get("lighthouse", {}).values()):
        raise ValueError("report: its Lighthouse measurement is not calibrated; measure again")
    when = measured.strftime("%Y-%m-%d %H:%M UTC")
    before = report.get("lighthouse_measured_at", "")
    pages = {**{p: {"measured_at": before, **r} for p, r in report.get("lighthouse", {}).items()
                if p not in extra},
             **{p: {**r, "measured_at": when} for p, r in extra.items()}}
    times: dict[str, int] = {}
    for record in pages.values():
        times[record["measured_at"]] = times.get(record["measured_at"], 0) + 1
    stamp = (" and ".join(f"{t} ({lighthouse.page_count(n)})" for t, n in sorted(times.items()))
             if len(times) > 1 else when)
    return {**report, "lighthouse": pages, "lighthouse_measured_at": stamp}


def write_report(results: dict, show: bool = True) -> int:
    """Write report.json, report.md and the README's quoted numbers; print the report
    (``show``). The benchmark's one writer of them."""
    results["targets_met"] = targets_met(results)

    REPORT.write_text(json.dumps(results, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    (ROOT / "benchmarks" / "report.md").write_text(markdown(results), encoding="utf-8")
    update_readme(results)
    if show:
        print((ROOT / "benchmarks" / "report.md").read_text(encoding="utf-8"))
    return 0


#: The README's timings: report key -> (scale, decimals). ``ci_s`` is quoted in minutes.
README_NUMBERS = {"ci_s": (1 / 60, 1), "venv_install_s": (1, 0), "venv_mb": (1, 0),
                  "clean_build_s": (1, 0), "fresh_book_s": (1, 0), "fresh_book_mb": (1, 0),
                  "pdf_build_s": (1, 0), "nbval_s": (1, 0),
                  "notebooks_total_s": (1, 0)}


def quote_report(text: str, r: dict) -> str:
    """``text`` with the measured value written after each ``<!-- report:key -->`` marker."""
    for key, (scale, decimals) in README_NUMBERS.items():
        if key in r:
            value = f"{r[key] * scale:.{decimals}f}"
            text = re.sub(rf"(<!-- report:{key} -->\s*)[\d.]+", rf"\g<1>{value}", text)
    return text


def update_readme(r: dict) -> None:
    """Write the measured values after each ``<!-- report:key -->`` marker of the README."""
    readme = ROOT / "README.md"
    readme.write_text(quote_report(readme.read_text(encoding="utf-8"), r), encoding="utf-8")


def reading_section(root: Path) -> list[str]:
    """The core path's reading times, per chapter and in all, against issue 38's targets.

    Computed from the notebooks whenever the report is written (the book's own estimate, as
    each page states it), not measured: it needs no run of the benchmark to be current.
    """
    rows = tables.syllabus_rows(root)
    core_total, everything = tables.reading_totals(root)
    over = [row for row in rows if row[3] > CORE_CHAPTER_MAX_MIN]
    lines = ["", "## Reading times: the core path and going deeper", "",
             f"The book's own estimate (`_ext/course_site/tables.py`): prose at "
             f"{tables.WORDS_PER_MINUTE} words a minute, {tables.SECONDS_PER_CODE_LINE} s a shown "
             f"line of code. Targets: each chapter's core at most {CORE_CHAPTER_MAX_MIN} minutes, "
             f"the whole core path at most {CORE_PATH_MAX_MIN // 60} hours.", "",
             "| chapter | core (min) | going deeper (min) | core target |", "|---|---|---|---|"]
    lines += [f"| {Path(doc).name} | {core} | {deeper} | "
              f"{'met' if core <= CORE_CHAPTER_MAX_MIN else '**MISSED**'} |"
              for _, _, doc, core, deeper, _ in rows]
    lines += [f"| **all** | {core_total} ({tables.hours(core_total)}) | "
              f"{everything - core_total} | "
              f"{'met' if core_total <= CORE_PATH_MAX_MIN else '**MISSED**'} |", "",
              f"{len(over)} of {len(rows)} chapters' cores are longer than "
              f"{CORE_CHAPTER_MAX_MIN} minutes; the whole book, going deeper included, takes "
              f"{everything} minutes ({tables.hours(everything)})."]
    return lines


def stale_installs(r: dict, now: str | None = None) -> str:
    """What the report says when its install figures (CI, the venv, make book) were measured
    with other lock files than the repository's now: they inform about those, not these."""
    now = lock_hash() if now is None else now
    if r.get("ci_lock_hash") == now:
        return ""
    return (f" **The lock files have changed since** (now {now}): the CI, venv and `make book` "
            "figures below describe the old ones until `make benchmark ARGS=--installs-only` "
            "measures them again.")


def markdown(r: dict) -> str:
    def ok(name: str) -> str:
        if name not in r["targets_met"]:
            return "not measured"
        return "met" if r["targets_met"][name] else "**MISSED**"

    def value(name: str, fmt: str, scale: float = 1.0) -> str:
        return format(r[name] * scale, fmt) if name in r else "not measured"

    lines = [
        "# Performance report",
        "",
        f"Measured {r['measured_at']} on {r['machine']} by `make benchmark` "
        f"(one BLAS thread, `PYTHONHASHSEED=0`; CI measured {r.get('ci_measured_at', 'never')}, "
        f"with lock files {r.get('ci_lock_hash', 'unrecorded')}: the first 12 hex digits of the "
        f"SHA-256 of {', '.join(f'`{name}`' for name in LOCK_FILES)})." + stale_installs(r),
        "",
        "| measure | value | target | status |",
        "|---|---|---|---|",
        f"| CI: `.ci/run` in a fresh clone, fresh venv included | {value('ci_s', '.0f')} s "
        f"({value('ci_s', '.1f', 1 / 60)} min) | < 1800 s | {ok('ci_s')} |",
        f"| creating the venv from the lock | {value('venv_install_s', '.0f')} s | | |",
        f"| disk taken by the venv | {value('venv_mb', '.0f')} MB | | |",
        f"| `make book` on a fresh clone, installs included | {value('fresh_book_s', '.0f')} s | "
        f"< 60 s | {ok('fresh_book_s')} |",
        f"| disk taken by `make book`'s `.venv` and `node_modules` | "
        f"{value('fresh_book_mb', '.0f')} MB | < 600 MB | {ok('fresh_book_mb')} |",
        f"| clean website build (`make book`) | {r['clean_build_s']:.1f} s | | |",
        f"| no-change rebuild | {r['no_change_rebuild_s']:.1f} s | < 10 s | "
        f"{ok('no_change_rebuild_s')} |",
    ]
    if "pdf_build_s" in r:
        lines.append(f"| PDF edition (`make pdf`) | {r['pdf_build_s']:.1f} s | | |")
    lines += [
        f"| slowest notebook but `{ENGINES_NOTEBOOK}` (fresh kernel, one core, median of "
        f"{NOTEBOOK_RUNS} runs) | {r['notebook_max_s']:.1f} s | < 10 s | {ok('notebook_max_s')} |",
        f"| `{ENGINES_NOTEBOOK}`, Spark's start-up included (same conditions) | "
        f"{value('engines_notebook_s', '.1f')} s | < 60 s | {ok('engines_notebook_s')} |",
        f"| all notebooks | {r['notebooks_total_s']:.1f} s | | |",
        f"| nbval, all notebooks | {r['nbval_s']:.1f} s | | |",
        f"| heaviest chapter page, first visit | {r['chapter_page_max_kib']:.0f} KiB | "
        f"< 2048 KiB | {ok('chapter_page_max_kib')} |",
        f"| heaviest chapter page, first visit, gzip | {r['chapter_page_max_gzip_kib']:.0f} KiB "
        f"| < 600 KiB | {ok('chapter_page_max_gzip_kib')} |",
        f"| `k_anonymity`, full Adult, 5 QIs (median of 20) | {r['k_anonymity_ms']:.1f} ms | "
        f"< 50 ms | {ok('k_anonymity_ms')} |",
    ]
    for name, value in r["computations"].items():
        if name != "k_anonymity_ms":
            lines.append(f"| `{name}` (full Adult) | {value:.2f} s | | |")
    lines += ["", f"## Notebook run times (fresh kernel on one core, start-up included, median of "
              f"{NOTEBOOK_RUNS} runs)", "",
              "| notebook | seconds |", "|---|---|"]
    lines += [f"| {name} | {sec:.1f} |" for name, sec in r["notebooks_s"].items()]
    if "lighthouse" in r:
        lines += lighthouse.markdown_section(r["lighthouse"], r["pages"],
                                             r.get("lighthouse_measured_at", ""),
                                             r.get("lighthouse_previous"))
    lines += ["", "## First visit of each page (everything it loads)", "",
              "| page | KiB | KiB gzip |", "|---|---|---|"]
    lines += [f"| {name} | {w['bytes'] / 1024:.0f} | {w['gzip_bytes'] / 1024:.0f} |"
              for name, w in r["pages"].items()]
    lines += reading_section(ROOT)
    if r.get("scale"):
        lines += scale.markdown(r["scale"])
    if r.get("grading"):
        lines += grading.markdown(r["grading"])
    if r.get("mutation"):
        lines += mutation.markdown(r["mutation"])
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())

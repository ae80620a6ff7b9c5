"""Lighthouse (npm, pinned in package.json) on every page of a built site, as a phone sees it.

Lighthouse's mobile defaults: a Moto G Power sized screen, simulated slow 4G and a 4x slower
CPU. It drives Debian's chromium (``CHROME_PATH``). The site is served by Python's own HTTP
server on 127.0.0.1; ``make benchmark`` sends text gzipped (``compress=True``), as the site's
host, GitHub Pages, does, and each result records whether it was (``"gzip"``).

``make benchmark`` calls :func:`lighthouse_pages` through ``run.py``, three runs a page, and
reports each number's median; on its own, ``python benchmarks/lighthouse.py [SITE_DIR] [--pages
a.html b.html] [--runs N] [--json OUT]`` measures a site (a copy of an older build, say) without
the rest of the benchmark.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import io
import http.server
import json
import os
import shutil
import statistics
import subprocess
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: Installed by ``make venv`` (``npm ci``; package.json pins the version).
LIGHTHOUSE = ROOT / "node_modules" / ".bin" / "lighthouse"
CHROME_FLAGS = "--headless=new --no-sandbox --disable-gpu --disable-background-networking " \
               "--disable-component-update --disable-sync --no-first-run"
#: Lighthouse audits whose numbers the report keeps (milliseconds, bytes, or a unitless score).
AUDITS = {"lcp_ms": "largest-contentful-paint", "tbt_ms": "total-blocking-time",
          "fcp_ms": "first-contentful-paint", "cls": "cumulative-layout-shift",
          "bytes": "total-byte-weight"}


def site_pages(site: Path) -> list[str]:
    """Every HTML page of the built site but the redirect ``index.html``."""
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html")
                  if not {"_sources", "_static", "_images"} & set(p.relative_to(site).parts)
                  and p.relative_to(site).as_posix() != "index.html")


class _Quiet(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".js": "text/javascript"}

    def log_message(self, *args) -> None:
        pass


class _Gzip(_Quiet):
    """Sends text gzipped, as a static host such as GitHub Pages does (``--gzip``)."""

    def send_head(self):  # noqa: D102 (http.server's hook)
        path = Path(self.translate_path(self.path))
        if path.suffix not in (".html", ".css", ".js", ".svg", ".json") or not path.is_file() \
                or "gzip" not in self.headers.get("Accept-Encoding", ""):
            return super().send_head()
        body = gzip.compress(path.read_bytes(), 6)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return io.BytesIO(body)


def cpu_slowdown(benchmark_index: float) -> float:
    """The CPU slowdown that makes this host Lighthouse's reference phone, from its benchmark index.

    Lighthouse's calibration (its throttling documentation's CPU throttling calculator): above an
    index of 1,300 the multiplier is ``3 + (index - 1300) / 233``, 4x at 1,533. Below 1,300 the
    calculator uses other formulas, which this course has not needed: a slower host is refused.
    """
    if isinstance(benchmark_index, bool) or not isinstance(benchmark_index, (int, float)):
        raise TypeError(f"benchmark_index must be a number, got {benchmark_index!r}")
    if not benchmark_index >= 1300:
        raise ValueError(f"benchmark_index must be >= 1300 for this calibration, got "
                         f"{benchmark_index}: measure on a faster or idle host")
    return 3 + (benchmark_index - 1300) / 233


def measure(url: str, slowdown: float | None = None) -> dict[str, float]:
    """One Lighthouse run (performance and accessibility) of ``url``; ``slowdown`` replaces
    Lighthouse's default 4x CPU slowdown (:func:`cpu_slowdown`)."""
    chrome = os.environ.get("CHROME_PATH") or shutil.which("chromium") or "/usr/bin/chromium"
    throttle = [] if slowdown is None else [f"--throttling.cpuSlowdownMultiplier={slowdown:.2f}"]
    run = subprocess.run(
        [str(LIGHTHOUSE), url, "--quiet", "--output=json", "--output-path=stdout", *throttle,
         "--only-categories=performance,accessibility", f"--chrome-flags={CHROME_FLAGS}"],
        capture_output=True, text=True, env={**os.environ, "CHROME_PATH": chrome}, timeout=300)
    if run.returncode != 0:
        raise RuntimeError(f"lighthouse {url} failed:\n{run.stderr[-3000:]}")
    lhr = json.loads(run.stdout)
    out = {name: round(100 * lhr["categories"][name]["score"])
           for name in ("performance", "accessibility")}
    for key, audit in AUDITS.items():
        out[key] = lhr["audits"][audit]["numericValue"]
    out["lighthouse"] = lhr["lighthouseVersion"]
    out["benchmark_index"] = lhr["environment"]["benchmarkIndex"]
    return out


#: A run is at the reference phone's speed when the CPU slowdown it ran at is within this share
#: of the one its own benchmark index asks for (Lighthouse measures the index, unthrottled, at the
#: start of every run).
TOLERANCE = 0.15
#: Runs of one measurement at most, until one is at the reference phone's speed.
TRIES = 3


def calibrated_run(url: str, slowdown: float, tries: int = TRIES) -> tuple[dict, float]:
    """One run of ``url`` at the reference phone's speed, and the slowdown for the next run.

    On a shared 2-core host the index moves by up to 2x within minutes, so one slowdown set at
    the start does not make every run the reference phone. A run whose own index asks for a
    slowdown more than :data:`TOLERANCE` away from the one it ran at (or that is below the
    calculator's range) is run again at the slowdown its index asked for, up to ``tries`` runs;
    the last one is then kept, marked ``"off"``. The run records the slowdown it ran at
    (``cpu_slowdown``) and how many tries it took (``tries``)."""
    for attempt in range(1, tries + 1):
        result = measure(url, slowdown)
        index = result["benchmark_index"]
        wanted = cpu_slowdown(index) if index >= 1300 else None
        result.update(cpu_slowdown=slowdown, tries=attempt)
        if wanted is not None and abs(wanted - slowdown) <= TOLERANCE * wanted:
            return result, wanted
        slowdown = wanted or slowdown
    result["off"] = True
    return result, slowdown


def median_run(runs: list[dict[str, float]]) -> dict[str, float]:
    """Each number's median over ``runs`` of one page (one metric at a time), as Lighthouse
    advises against its run-to-run variance; Lighthouse's CPU benchmark index keeps its lowest
    (``benchmark_index``) and highest (``benchmark_index_max``) values."""
    if not runs:
        raise ValueError("runs: at least one Lighthouse run is needed")
    out = {key: statistics.median(run[key] for run in runs)
           for key in ("performance", "accessibility", *AUDITS)}
    out["lighthouse"] = runs[0]["lighthouse"]
    out["benchmark_index"] = min(run["benchmark_index"] for run in runs)
    out["benchmark_index_max"] = max(run["benchmark_index"] for run in runs)
    return out


def lighthouse_pages(site: Path, pages: list[str] | None = None, save: Path | None = None,
                     compress: bool = False, runs: int = 1) -> dict[str, dict[str, float]]:
    """Lighthouse scores and timings of every page of ``site`` (or of ``pages``), each the
    median of ``runs`` runs (:func:`median_run`); with ``save``, the results so far are written
    there after each page."""
    if not isinstance(runs, int) or runs < 1:
        raise ValueError(f"runs must be a positive integer, got {runs!r}")
    if not LIGHTHOUSE.exists():
        raise RuntimeError(f"{LIGHTHOUSE} is missing: `make venv` installs it (npm ci)")
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_Gzip if compress else _Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    results = {}
    try:
        for page in pages or site_pages(site):
            results[page] = {**median_run([measure(f"{base}/{page}") for _ in range(runs)]),
                             "runs": runs, "gzip": compress}
            if save is not None:
                save.write_text(json.dumps(results, indent=2, sort_keys=True) + "\n",
                                encoding="utf-8")
            print(f"  lighthouse {page}: {results[page]['performance']} / "
                  f"{results[page]['accessibility']}", file=sys.stderr, flush=True)
    finally:
        server.shutdown()
    return results


def calibrated_pages(site: Path, pages: list[str] | None = None, runs: int = 5,
                     save: Path | None = None,
                     calibration_runs: int = 3) -> dict[str, dict[str, float]]:
    """Lighthouse as its reference phone sees ``pages`` (default: every page of ``site``).

    The CPU slowdown comes from this host's benchmark index (:func:`cpu_slowdown`): first the
    median of ``calibration_runs`` runs at Lighthouse's default settings, then, run by run, the
    index the last run measured (:func:`calibrated_run`: a run whose own index disagrees is run
    again). ``runs`` runs a page, interleaved (page 1, page 2, ..., page 1, ...), text gzipped;
    each number is the median (:func:`median_run`). Each page's record also holds the median,
    lowest and highest slowdown of its runs, the first calibration's index, how many runs were
    made again (``runs_redone``) and how many never agreed (``runs_off``), and the highest
    1-minute load average seen during its runs (an idle 2-core machine stays well below 2).
    With ``save``, the medians of the rounds so far are written there after each round."""
    if not isinstance(runs, int) or isinstance(runs, bool) or runs < 1:
        raise ValueError(f"runs must be a positive integer, got {runs!r}")
    if not isinstance(calibration_runs, int) or calibration_runs < 1:
        raise ValueError(f"calibration_runs must be a positive integer, got {calibration_runs!r}")
    pages = list(pages) if pages else site_pages(site)
    if not LIGHTHOUSE.exists():
        raise RuntimeError(f"{LIGHTHOUSE} is missing: `make benchmark` installs it (npm ci)")
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_Gzip, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    results: dict[str, dict[str, float]] = {}
    try:
        index = statistics.median(measure(f"{base}/{pages[0]}")["benchmark_index"]
                                  for _ in range(calibration_runs))
        slowdown = cpu_slowdown(index)
        print(f"  benchmark index {index:.0f}: CPU slowdown {slowdown:.2f}", file=sys.stderr,
              flush=True)
        samples: dict[str, list[dict[str, float]]] = {page: [] for page in pages}
        load: dict[str, float] = {page: 0.0 for page in pages}
        for round_ in range(runs):
            for page in pages:
                load[page] = max(load[page], os.getloadavg()[0])
                result, slowdown = calibrated_run(f"{base}/{page}", slowdown)
                samples[page].append(result)
                load[page] = max(load[page], os.getloadavg()[0])
            print(f"  lighthouse round {round_ + 1} of {runs} done (slowdown now "
                  f"{slowdown:.2f})", file=sys.stderr, flush=True)
            for page in pages:
                slowdowns = [run["cpu_slowdown"] for run in samples[page]]
                results[page] = {**median_run(samples[page]), "runs": round_ + 1, "gzip": True,
                                 "cpu_slowdown": statistics.median(slowdowns),
                                 "cpu_slowdown_min": min(slowdowns),
                                 "cpu_slowdown_max": max(slowdowns),
                                 "runs_redone": sum(r["tries"] - 1 for r in samples[page]),
                                 "runs_off": sum(bool(r.get("off")) for r in samples[page]),
                                 "calibration_index": index, "load_max": load[page]}
            if save is not None:  # the rounds so far survive an interrupted measurement
                save.write_text(json.dumps(results, indent=2, sort_keys=True) + "\n",
                                encoding="utf-8")
    finally:
        server.shutdown()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("site", nargs="?", default=str(ROOT / "_build" / "html"))
    parser.add_argument("--pages", nargs="*")
    parser.add_argument("--json", help="write the results to this file")
    parser.add_argument("--gzip", action="store_true",
                        help="send text gzipped, as a static host such as GitHub Pages does")
    parser.add_argument("--runs", type=int, default=1,
                        help="runs per page; each number reported is its median")
    parser.add_argument("--calibrated", action="store_true",
                        help="as Lighthouse's reference phone: the CPU slowdown from this "
                             "host's benchmark index, runs interleaved, text gzipped")
    args = parser.parse_args()
    if args.calibrated:
        results = calibrated_pages(Path(args.site), args.pages, args.runs,
                                   Path(args.json) if args.json else None)
        print(json.dumps(results, indent=2, sort_keys=True))
        return
    results = lighthouse_pages(Path(args.site), args.pages,
                               Path(args.json) if args.json else None, args.gzip, args.runs)
    print(json.dumps(results, indent=2, sort_keys=True))


if __name__ == "__main__":
    main()


# --------------------------------------------------------------------------------------------
# Targets and the report's section (called from run.py)
# --------------------------------------------------------------------------------------------
#: Issue 23's targets: every page, and every chapter (``chapters/...``).
TARGETS = {"performance_min": 90, "accessibility_min": 100, "chapter_tbt_max_ms": 200.0,
           "chapter_lcp_max_ms": 2500.0, "chapter_first_visit_max_kib": 700.0,
           "chapter_first_visit_max_gzip_kib": 250.0}
#: Lighthouse on the site as it was before formulas were rendered at build time (main at
#: 2ea77f6, MathJax in the browser), measured by this module on this machine, served as the
#: build is (``--gzip``).
BEFORE = Path(__file__).with_name("lighthouse-before.json")


def misses(lighthouse: dict, weights: dict) -> dict[str, list[str]]:
    """For each target, the pages that miss it (an empty list when it is met)."""
    t, out = TARGETS, {}
    out["performance_min"] = [p for p, r in lighthouse.items() if r["performance"] < t["performance_min"]]
    out["accessibility_min"] = [p for p, r in lighthouse.items()
                                if r["accessibility"] < t["accessibility_min"]]
    chapters = {p: r for p, r in lighthouse.items() if p.startswith("chapters/")}
    out["chapter_tbt_max_ms"] = [p for p, r in chapters.items() if r["tbt_ms"] > t["chapter_tbt_max_ms"]]
    out["chapter_lcp_max_ms"] = [p for p, r in chapters.items() if r["lcp_ms"] > t["chapter_lcp_max_ms"]]
    out["chapter_first_visit"] = [
        p for p, w in weights.items() if p.startswith("chapters/")
        and w["bytes"] / 1024 > t["chapter_first_visit_max_kib"]
        and w["gzip_bytes"] / 1024 > t["chapter_first_visit_max_gzip_kib"]]
    return out


def page_count(n: int) -> str:
    """"1 page", "9 pages"."""
    return f"{n} page{'s' if n != 1 else ''}"


def _conditions(results: dict) -> str:
    """How a measurement was made, from its records: throttling, runs, compression, index."""
    first = next(iter(results.values()))
    runs = sorted({r.get("runs", 1) for r in results.values()})
    zipped = {bool(r.get("gzip")) for r in results.values()}
    served = ("text gzipped, as GitHub Pages sends it" if zipped == {True} else
              "without compression" if zipped == {False} else "partly gzipped")
    index = sorted({r.get(key, 0) for r in results.values()
                    for key in ("benchmark_index", "benchmark_index_max")} - {0})
    if "cpu_slowdown" in first:
        calibrations: dict[tuple[float, float], int] = {}
        per_run = [r for r in results.values() if "cpu_slowdown_max" in r]
        for r in results.values():
            if "cpu_slowdown_max" not in r:
                key = (r["cpu_slowdown"], r["calibration_index"])
                calibrations[key] = calibrations.get(key, 0) + 1
        groups = len(calibrations) + bool(per_run)
        each = [f"{slowdown:.2f}x from the host's benchmark index {index:.0f}, the median of "
                "three calibration runs" + (f" ({page_count(n)})" if groups > 1 else "")
                for (slowdown, index), n in calibrations.items()]
        if per_run:
            kept = sum(r["runs"] for r in per_run)
            each.append(
                f"{min(r['cpu_slowdown_min'] for r in per_run):.2f}x to "
                f"{max(r['cpu_slowdown_max'] for r in per_run):.2f}x, set for each run from "
                "the benchmark index the host's last run measured"
                + (f" ({page_count(len(per_run))})" if groups > 1 else "")
                + f"; a run whose own index asked for a slowdown more than {TOLERANCE:.0%} "
                f"away was made again at that slowdown ({sum(r['runs_redone'] for r in per_run)}"
                f" runs made again; {sum(r['runs_off'] for r in per_run)} of the {kept} runs "
                f"kept still disagreed after {TRIES} tries)")
        cpu = (f"calibrated to Lighthouse's reference phone (3 + (index - 1300) / 233, its "
               f"throttling guide's calculator): the CPU slowdown {', and '.join(each)}")
        loads = [r["load_max"] for r in results.values() if "load_max" in r]
        if loads:
            cpu += f"; the machine's 1-minute load average reached {max(loads):.1f}"
    else:
        cpu = "Lighthouse's default 4x CPU slowdown, not calibrated to the host"
    count = ("one run a page" if runs == [1] else
             f"{runs[0]} runs a page, each number its median" if runs == [runs[0]] else
             f"{runs[0]} to {runs[-1]} runs a page, each number a median")
    if "cpu_slowdown" in first:
        count += " (the runs interleaved: page 1, page 2, ..., page 1, ...)"
    spread = (f"; the benchmark index of the runs was {index[0]:.0f} to {index[-1]:.0f}"
              if index else "")
    return f"Lighthouse {first['lighthouse']}, mobile, {cpu}; {count}; {served}{spread}."


def markdown_section(lighthouse: dict, weights: dict, measured_at: str = "",
                     previous: dict | None = None) -> list[str]:
    """The report's Lighthouse section: how it was measured, the targets, then before and
    after, page by page. ``previous`` (``{"measured_at", "pages"}``) is the last measurement,
    the "before"; without it, :data:`BEFORE`.

    A target missed reads "not met" (the report's "MISSED" marks run.py's own targets); the
    misses are explained in tests/site/test_lighthouse_report.py."""
    if previous:
        before, before_when = previous["pages"], previous.get("measured_at", "")
    else:
        before = json.loads(BEFORE.read_text(encoding="utf-8")) if BEFORE.exists() else {}
        before_when = "main at 2ea77f6 (MathJax typesetting in the browser)"
    missed = misses(lighthouse, weights)

    def status(name: str) -> str:
        return "met" if not missed[name] else f"**not met** ({len(missed[name])}: " + \
            ", ".join(missed[name][:4]) + (", ..." if len(missed[name]) > 4 else "") + ")"

    lines = [
        "", "## Lighthouse, mobile", "",
        (f"Measured {measured_at}: " if measured_at else "") + f"{len(lighthouse)} pages, "
        "served by Python's HTTP server on 127.0.0.1 to Debian's chromium. "
        + _conditions(lighthouse), "",
        "| target | status |", "|---|---|",
        f"| performance >= 90 on every page | {status('performance_min')} |",
        f"| accessibility 100 on every page | {status('accessibility_min')} |",
        f"| total blocking time <= 200 ms on every chapter | {status('chapter_tbt_max_ms')} |",
        f"| largest contentful paint <= 2.5 s on every chapter | {status('chapter_lcp_max_ms')} |",
        f"| first visit of every chapter <= 700 KiB, or <= 250 KiB gzip | {status('chapter_first_visit')} |",
        "", f"Before: {before_when}. " + (_conditions(before) if before else "") +
        " After: this build, as above.", "",
        "| page | performance before | after | accessibility before | after | LCP before (s) "
        "| after | TBT before (ms) | after | KiB before | after |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for page, r in sorted(lighthouse.items()):
        b = before.get(page, {})

        def fmt(rec: dict, key: str, scale: float = 1, digits: int = 0) -> str:
            return f"{rec[key] * scale:.{digits}f}" if key in rec else "-"

        lines.append(
            f"| {page} | {fmt(b, 'performance')} | {fmt(r, 'performance')} | "
            f"{fmt(b, 'accessibility')} | {fmt(r, 'accessibility')} | "
            f"{fmt(b, 'lcp_ms', 1e-3, 1)} | {fmt(r, 'lcp_ms', 1e-3, 1)} | "
            f"{fmt(b, 'tbt_ms')} | {fmt(r, 'tbt_ms')} | "
            f"{fmt(b, 'bytes', 1 / 1024)} | {fmt(r, 'bytes', 1 / 1024)} |")
    return lines

"""Measure the course's performance budget and write benchmarks/report.{md,json}.

Run with ``make benchmark`` (it sets one BLAS thread and PYTHONHASHSEED=0). Measures:

* a clean full build with notebook execution forced, and a no-change rebuild;
* each notebook's execution time in a fresh kernel, and the total;
* the nbval wall time;
* the transfer size of each page with everything it loads (measured in chromium);
* the heavy helpers on full Adult: ``k_anonymity``, the chapter-2 Mondrian, ``audit_epsilon``.

Targets (2-core machine): every notebook < 10 s; clean forced build < 90 s; no-change rebuild
< 10 s; ``k_anonymity`` on full Adult < 50 ms.
"""

from __future__ import annotations

import ast
import datetime as dt
import functools
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

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
sys.path[:0] = [str(ROOT / "chapters"), str(ROOT / "tests")]

TARGETS = {
    "notebook_max_s": 10.0,
    "clean_forced_build_s": 90.0,
    "no_change_rebuild_s": 10.0,
    "k_anonymity_ms": 50.0,
}


def timed(cmd: list[str], **kwargs) -> float:
    start = time.perf_counter()
    run = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    if run.returncode != 0:
        raise RuntimeError(f"{cmd} failed:\n{run.stdout[-2000:]}\n{run.stderr[-2000:]}")
    return time.perf_counter() - start


def builds() -> dict[str, float]:
    """Clean build with execution forced, then a rebuild with nothing changed."""
    out = Path(tempfile.mkdtemp(prefix="bench-build-"))
    config = (ROOT / "_config.yml").read_text(encoding="utf-8")
    forced = config.replace('execute_notebooks: "off"', 'execute_notebooks: "force"')
    assert forced != config, "could not switch execute_notebooks to force"
    # paths in a config file are read relative to it: point them back at the book
    forced = forced.replace("course_site: _ext", f"course_site: {ROOT / '_ext'}")
    forced = forced.replace("  - references.bib", f"  - {ROOT / 'references.bib'}")
    forced_config = out / "_config_forced.yml"
    forced_config.write_text(forced, encoding="utf-8")
    jb = str(BIN / "jupyter-book")
    clean = timed([jb, "build", str(ROOT), "--path-output", str(out / "forced"),
                   "--config", str(forced_config)])
    off = out / "off"
    timed([jb, "build", str(ROOT), "--path-output", str(off)])  # prime a normal build
    rebuild = timed([jb, "build", str(ROOT), "--path-output", str(off)])
    shutil.rmtree(out, ignore_errors=True)
    return {"clean_forced_build_s": clean, "no_change_rebuild_s": rebuild}


def notebook_times() -> dict[str, float]:
    """Wall time of each notebook in a fresh kernel (start-up included), pinned to one core."""
    import nbformat
    from nbclient import NotebookClient

    all_cores = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(all_cores)})  # kernels inherit the affinity: one core
    times = {}
    for path in sorted((ROOT / "chapters").glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        client = NotebookClient(nb, timeout=600, kernel_name="python3",
                                resources={"metadata": {"path": str(path.parent)}})
        start = time.perf_counter()
        client.execute()
        times[path.name] = time.perf_counter() - start
    os.sched_setaffinity(0, all_cores)
    return times


def nbval_time() -> float:
    return timed([str(BIN / "python"), "-m", "pytest", "--nbval", "chapters",
                  "--nbval-sanitize-with", "tests/sanitize.cfg", "--nbval-current-env",
                  "-p", "no:cacheprovider", "-q"], cwd=ROOT)


def page_sizes() -> dict[str, int]:
    """Bytes transferred (uncompressed) for a first visit of each page, with every asset it loads.

    Summed from the browser's Resource Timing entries after the network is idle, so MathJax's
    fonts and the figures are included.
    """
    from playwright.sync_api import sync_playwright

    site = ROOT / "_build" / "html"
    if not (site / "index.html").exists():
        subprocess.run(["make", "book"], cwd=ROOT, check=True, capture_output=True)
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

    handler = functools.partial(Quiet, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    pages = sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html")
                   if p.parent.name not in ("_sources", "_static") and p.name != "index.html"
                   and p.name not in ("genindex.html", "search.html", "prf-prf.html"))
    sizes = {}
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=[
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run"])
        for page_path in pages:
            context = browser.new_context()  # empty cache: a first visit
            page = context.new_page()
            page.goto(f"{base}/{page_path}", wait_until="networkidle")
            page.wait_for_timeout(300)
            sizes[page_path] = int(page.evaluate(
                """() => performance.getEntries()
                     .filter(e => e.entryType === 'navigation' || e.entryType === 'resource')
                     .reduce((sum, e) => sum + (e.encodedBodySize || 0), 0)"""))
            context.close()
        browser.close()
    server.shutdown()
    return sizes


def helper_timings() -> dict[str, float]:
    import helpers
    from notebook_code import notebook_namespace

    adult = helpers.load_adult()
    qi = ["age", "sex", "race", "native_country", "workclass"]
    runs = []
    for _ in range(20):
        start = time.perf_counter()
        helpers.k_anonymity(adult, qi)
        runs.append(time.perf_counter() - start)
    out = {"k_anonymity_ms": 1000 * statistics.median(runs)}

    ns = notebook_namespace("k-anonymity", ["mondrian"])
    # the chapter's own quasi-identifier list, read from its source
    source = (ROOT / "chapters" / "k-anonymity.ipynb").read_text(encoding="utf-8")
    mondrian_qi = ast.literal_eval(re.search(r"MONDRIAN_QI = (\[[^\]]*\])", source).group(1)
                                   .replace('\\"', '"'))
    for k in (5, 50):
        start = time.perf_counter()
        ns["mondrian"](adult, mondrian_qi, k)
        out[f"mondrian_k{k}_s"] = time.perf_counter() - start

    def count(d, rng, size):
        return helpers.laplace_mechanism([float(d)] * size, 1.0, 1.0, rng)

    start = time.perf_counter()
    helpers.audit_epsilon(count, 14_237, 14_236, helpers.make_rng(0))
    out["audit_epsilon_200k_s"] = time.perf_counter() - start
    return out


def main() -> None:
    results: dict[str, object] = {
        "measured_at": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python "
                   f"{platform.python_version()}",
        "targets": TARGETS,
    }
    print("builds ...", flush=True)
    results.update(builds())
    print("notebooks ...", flush=True)
    nb = notebook_times()
    results["notebooks_s"] = nb
    results["notebooks_total_s"] = sum(nb.values())
    results["notebook_max_s"] = max(nb.values())
    print("nbval ...", flush=True)
    results["nbval_s"] = nbval_time()
    print("page sizes ...", flush=True)
    results["page_bytes"] = page_sizes()
    print("helpers ...", flush=True)
    results["helpers"] = helper_timings()
    results["k_anonymity_ms"] = results["helpers"]["k_anonymity_ms"]
    results["targets_met"] = {name: results[name] < limit for name, limit in TARGETS.items()}

    (ROOT / "benchmarks" / "report.json").write_text(
        json.dumps(results, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    (ROOT / "benchmarks" / "report.md").write_text(markdown(results), encoding="utf-8")
    print((ROOT / "benchmarks" / "report.md").read_text(encoding="utf-8"))


def markdown(r: dict) -> str:
    ok = lambda name: "met" if r["targets_met"][name] else "**MISSED**"  # noqa: E731
    lines = [
        "# Performance report",
        "",
        f"Measured {r['measured_at']} on {r['machine']} by `make benchmark` "
        "(one BLAS thread, `PYTHONHASHSEED=0`).",
        "",
        "| measure | value | target | status |",
        "|---|---|---|---|",
        f"| clean full build, execution forced | {r['clean_forced_build_s']:.1f} s | < 90 s | "
        f"{ok('clean_forced_build_s')} |",
        f"| no-change rebuild | {r['no_change_rebuild_s']:.1f} s | < 10 s | "
        f"{ok('no_change_rebuild_s')} |",
        f"| slowest notebook (fresh kernel, one core) | {r['notebook_max_s']:.1f} s | < 10 s | "
        f"{ok('notebook_max_s')} |",
        f"| all notebooks | {r['notebooks_total_s']:.1f} s | | |",
        f"| nbval, all notebooks | {r['nbval_s']:.1f} s | | |",
        f"| `k_anonymity`, full Adult, 5 QIs (median of 20) | {r['k_anonymity_ms']:.1f} ms | "
        f"< 50 ms | {ok('k_anonymity_ms')} |",
    ]
    for name, value in r["helpers"].items():
        if name != "k_anonymity_ms":
            lines.append(f"| `{name}` (full Adult) | {value:.2f} s | | |")
    lines += ["", "## Notebook execution (fresh kernel on one core, start-up included)", "",
              "| notebook | seconds |", "|---|---|"]
    lines += [f"| {name} | {sec:.1f} |" for name, sec in r["notebooks_s"].items()]
    lines += ["", "## Transfer size of each page with all its assets", "",
              "| page | KiB |", "|---|---|"]
    lines += [f"| {name} | {size / 1024:.0f} |" for name, size in r["page_bytes"].items()]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()

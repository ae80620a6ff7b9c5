"""The committed performance report is complete, every target in it is met, and the README
quotes it.

`make benchmark` writes benchmarks/report.{md,json}; this test fails if the report is missing a
notebook or a page (a chapter was added without re-measuring), if a measured value misses its
target, or if the README's timings drifted from the report.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REPORT = ROOT / "benchmarks" / "report.json"
TARGETS = {"notebook_max_s": 10.0, "clean_forced_build_s": 90.0, "no_change_rebuild_s": 10.0,
           "k_anonymity_ms": 50.0, "chapter_page_max_kib": 2048.0,
           "chapter_page_max_gzip_kib": 600.0, "ci_s": 1200.0}


def _report() -> dict:
    return json.loads(REPORT.read_text(encoding="utf-8"))


def test_report_covers_every_notebook_and_page():
    report = _report()
    notebooks = sorted(p.name for p in (ROOT / "chapters").glob("*.ipynb"))
    assert sorted(report["notebooks_s"]) == notebooks
    assert report["notebook_max_s"] == max(report["notebooks_s"].values())
    pages = report["pages"]
    assert {f"chapters/{n.removesuffix('.ipynb')}.html" for n in notebooks} <= set(pages)
    chapters = [w for name, w in pages.items() if name.startswith("chapters/")]
    assert report["chapter_page_max_kib"] == max(w["bytes"] for w in chapters) / 1024
    assert report["chapter_page_max_gzip_kib"] == max(w["gzip_bytes"] for w in chapters) / 1024
    assert all(0 < w["gzip_bytes"] < w["bytes"] for w in pages.values())


#: Targets the current report misses, with the reason; the test fails on any other miss, and on
#: a target listed here that is met again (then take it off the list).
KNOWN_MISSES: dict[str, str] = {}


def test_every_target_is_met_or_its_miss_is_explained():
    report = _report()
    assert report["targets"] == TARGETS
    missed = {name for name, limit in TARGETS.items() if name in report and not report[name] < limit}
    assert missed == set(KNOWN_MISSES), f"missed: {sorted(missed)}, explained: {sorted(KNOWN_MISSES)}"
    assert {name for name, ok in report["targets_met"].items() if not ok} == missed
    text = (ROOT / "benchmarks" / "report.md").read_text(encoding="utf-8")
    assert text.count("MISSED") == len(missed)
    # every notebook's own time, not only the slowest
    assert all(t < TARGETS["notebook_max_s"] for t in report["notebooks_s"].values()) or \
        "notebook_max_s" in KNOWN_MISSES


def test_the_readme_quotes_the_report():
    """Every timing in the README's table is the report's, rounded as printed."""
    report = _report()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quoted = dict(re.findall(r"<!-- report:(\w+) -->\s*([\d.]+)", readme))
    measured = {"ci_s", "venv_install_s", "venv_mb", "clean_build_s", "clean_forced_build_s",
                "pdf_build_s", "nbval_s", "notebooks_total_s"} & set(report)
    assert set(quoted) == measured
    for key, text in quoted.items():
        value = report[key] / 60 if key == "ci_s" else report[key]
        assert float(text) == round(value, text.count(".") and len(text.split(".")[1])), key


def test_each_notebook_time_is_the_median_of_its_recorded_runs():
    report = _report()
    runs = report["notebook_runs_s"]
    assert set(runs) == set(report["notebooks_s"])
    for name, values in runs.items():
        assert len(values) == 3, name  # benchmarks/run.py: NOTEBOOK_RUNS
        assert report["notebooks_s"][name] == sorted(values)[1], name
    assert report["notebooks_total_s"] == sum(report["notebooks_s"].values())

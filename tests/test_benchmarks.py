"""The committed performance report is complete and every target in it is met.

`make benchmark` writes benchmarks/report.{md,json}; this test fails if the report is missing a
notebook (a chapter was added without re-measuring) or if a measured value misses its target.
"""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REPORT = ROOT / "benchmarks" / "report.json"


def test_report_covers_every_notebook_and_meets_targets():
    report = json.loads(REPORT.read_text(encoding="utf-8"))
    notebooks = sorted(p.name for p in (ROOT / "chapters").glob("*.ipynb"))
    assert sorted(report["notebooks_s"]) == notebooks
    assert report["notebook_max_s"] == max(report["notebooks_s"].values())
    limits = report["targets"]
    assert limits == {"notebook_max_s": 10.0, "clean_forced_build_s": 90.0,
                      "no_change_rebuild_s": 10.0, "k_anonymity_ms": 50.0}
    for name, limit in limits.items():
        assert report[name] < limit, f"{name} = {report[name]:.2f}, target < {limit}"
    pages = report["page_bytes"]
    assert {f"chapters/{n.removesuffix('.ipynb')}.html" for n in notebooks} <= set(pages)
    assert all(size > 0 for size in pages.values())
    assert (ROOT / "benchmarks" / "report.md").read_text(encoding="utf-8").count("MISSED") == 0

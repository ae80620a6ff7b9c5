"""The committed Lighthouse measurement (``benchmarks/lighthouse.py`` via ``make benchmark``)
covers the book's pages, before and after, and every target it misses is listed here with the reason.

Benchmarks inform and never gate: this checks that the report is complete and honest, not that
the targets are met. A target met again must come off the list.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.site

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
import lighthouse  # noqa: E402

#: Issue 23's targets this measurement misses, and why (see benchmarks/report.md).
KNOWN_MISSES = {
    "performance_min": "chapters with hundreds of formulas: their total blocking time and, on "
                       "the heaviest, their largest paint (below)",
    "chapter_tbt_max_ms": "on load, pydata-sphinx-theme's addTabStopsToScrollableElements "
                          "(0.17.1, unchanged in 0.24.0) reads scrollWidth of every code block "
                          "and output, a forced layout of a page of 10,000 to 15,000 elements "
                          "in one task, besides that page's own parse and layout. Measured on "
                          "two chapters: with content-visibility: auto on their sections and "
                          "that function disabled, 0 ms and performance 97 to 98; disabling "
                          "it would be rewiring the theme",
    "chapter_lcp_max_ms": "style and layout of the whole page before the first paint of the "
                          "heaviest chapters (up to 3.8 s); content-visibility would defer the "
                          "off-screen sections, but the theme's scan above lays them all out",
}


def _report() -> dict:
    return json.loads((ROOT / "benchmarks" / "report.json").read_text(encoding="utf-8"))


def _toc_pages() -> set[str]:
    toc = (ROOT / "_toc.yml").read_text(encoding="utf-8")
    root = re.search(r"^root:\s*(\S+)", toc, flags=re.M)[1]
    return {f"{p}.html" for p in [root] + re.findall(r"^\s*-\s*file:\s*(\S+)", toc, flags=re.M)}


def test_lighthouse_measured_pages_of_the_book_before_and_after():
    # a chapter added since the last `make benchmark` is simply not measured yet (benchmarks
    # inform, they do not gate), but every page of the book measured before is measured after
    after = _report()["lighthouse"]
    before = json.loads(lighthouse.BEFORE.read_text(encoding="utf-8"))
    assert {page for page in before if page in _toc_pages()}
    assert set(before) <= set(after)  # a chapter added since has no "before"
    for result in after.values():
        assert 0 <= result["performance"] <= 100 and 0 <= result["accessibility"] <= 100
        assert result["lcp_ms"] > 0 and result["bytes"] > 0


def test_every_missed_target_is_explained():
    report = _report()
    missed = {name for name, pages in lighthouse.misses(report["lighthouse"], report["pages"]).items()
              if pages}
    assert missed == set(KNOWN_MISSES), f"missed {sorted(missed)}, explained {sorted(KNOWN_MISSES)}"
    text = (ROOT / "benchmarks" / "report.md").read_text(encoding="utf-8")
    section = text[text.index("## Lighthouse"):]
    assert all(f"| {page} |" in section for page in report["lighthouse"])

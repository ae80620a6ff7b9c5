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
    "performance_min": "chapters whose total blocking time or largest paint misses its target "
                       "(below); the report lists them",
    "chapter_tbt_max_ms": "the page's own work, traced in Chromium at 4x slowdown on "
                          "privacy-accounting (2026-11-24, build be3433a): its first style "
                          "and layout once parsed, about 1 s in one task (12,504 elements restyled; KaTeX's HTML and MathML "
                          "are 70 % of the page's 14,751 elements), then a restyle of about "
                          "3,500 MathML elements when KaTeX's fonts arrive. content-visibility: "
                          "auto would defer the off-screen part, but in this Chromium it takes "
                          "that part out of the accessibility tree (on sections: headings 16 to "
                          "1, paragraphs 159 to 23; on the MathML: 760 identifiers to 0), and "
                          "on load pydata-sphinx-theme's addTabStopsToScrollableElements (0.17.1, "
                          "unchanged in 0.24.0) reads scrollWidth of every code block, which "
                          "lays the deferred sections out again. When a page linked one "
                          "stylesheet (a pass that combined them, removed by #40) it painted "
                          "earlier, and more of that same work came after its first paint, "
                          "where blocking time counts it "
                          "(interleaved runs on privacy-accounting, 2026-11-25: median blocking "
                          "time 536 ms with eleven stylesheets, 868 ms with one; first paint "
                          "2.44 s and 1.25 s). And Lighthouse's 4x stands for its reference "
                          "phone only on a host whose CPU benchmark index is about 1,533 (its "
                          "throttling guide's calculator); the report prints the index of its "
                          "runs",
    "chapter_lcp_max_ms": "the heaviest chapters: style and layout of the whole page before "
                          "its first paint (above), on a host whose CPU benchmark index fell "
                          "below the 1,533 for which Lighthouse's calculator gives its 4x "
                          "slowdown (the report prints the index)",
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


def _run(performance: int, lcp_ms: float, tbt_ms: float, index: float) -> dict:
    return {"performance": performance, "accessibility": 100, "lcp_ms": lcp_ms,
            "tbt_ms": tbt_ms, "fcp_ms": 900.0, "cls": 0.0, "bytes": 1024,
            "lighthouse": "12.8.2", "benchmark_index": index}


def test_a_page_reports_each_numbers_median_over_its_runs():
    # the medians come from different runs: no run is the median run of every number
    runs = [_run(90, 3000.0, 100.0, 1500.0), _run(80, 2000.0, 500.0, 2000.0),
            _run(99, 2500.0, 0.0, 1000.0)]
    out = lighthouse.median_run(runs)
    assert (out["performance"], out["lcp_ms"], out["tbt_ms"]) == (90, 2500.0, 100.0)
    assert (out["benchmark_index"], out["benchmark_index_max"]) == (1000.0, 2000.0)
    assert out["accessibility"] == 100 and out["lighthouse"] == "12.8.2"


def test_lighthouse_runs_must_be_a_positive_integer():
    with pytest.raises(ValueError, match="runs"):
        lighthouse.median_run([])
    for runs in (0, -1, 1.5):
        with pytest.raises(ValueError, match="runs"):
            lighthouse.lighthouse_pages(ROOT / "_build" / "html", runs=runs)

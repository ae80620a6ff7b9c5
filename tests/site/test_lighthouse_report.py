"""The committed Lighthouse measurement (``benchmarks/lighthouse.py`` via ``make benchmark``)
covers the book's pages, before and after, and every target it misses is listed here with the reason.

Benchmarks inform and never gate: this checks that the report is complete and honest, not that
the targets are met. A target met again must come off the list.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import lighthouse
from course_site.archive import toc_documents

pytestmark = pytest.mark.site

ROOT = Path(__file__).resolve().parents[2]

#: Issue 23's targets this measurement misses, and why (see benchmarks/report.md).
KNOWN_MISSES = {
    "chapter_tbt_max_ms": "approximate-dp 330 ms, local-dp 256 and privacy-accounting 366 at "
                          "6.0-9.6x (2026-11-28 18:26), laplace-mechanism 223 (16:04); the other "
                          "17 chapters 26-176 ms. Blocking time counts only what each task runs "
                          "past 50 ms, so at a slowdown of 9x (the host's index near 2,800) a "
                          "40 ms task of the page's own parsing, style and layout already counts "
                          "310 ms; the same build of laplace-mechanism had medians of 145 and "
                          "321 ms in two 5-run A/Bs the same hour, and privacy-accounting 273 ms "
                          "at 16:04. Traced at 9.5x, the main thread of laplace-mechanism is "
                          "mostly the browser's own style and layout (1,550 ms) and other work "
                          "(1,372 ms), then scripts (504 ms: Bootstrap's, the theme's, the "
                          "explorable's)",
    "performance_min": "privacy-accounting 89 at 18:26 (93 at 16:04), through its blocking time "
                       "above: a 5-run A/B at 9.5x of the builds before and after its new "
                       "exercise (561 more elements) gave 87 and 86, blocking time 445 and "
                       "441 ms, so the exercise did not move it; the host's spread did",
}


def _report() -> dict:
    return json.loads((ROOT / "benchmarks" / "report.json").read_text(encoding="utf-8"))


def _toc_pages() -> set[str]:
    return {f"{doc}.html" for doc in toc_documents(ROOT)}


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


def _calibrated(performance: int, slowdown: float, index: float) -> dict:
    return {**_run(performance, 2000.0, 100.0, index), "runs": 5, "gzip": True,
            "cpu_slowdown": slowdown, "calibration_index": index, "load_max": 1.5}


def test_a_run_is_made_again_until_its_own_index_agrees_with_its_slowdown(monkeypatch):
    """The host's index moves between runs: a run whose index asks for a slowdown more than 15 %
    away is made again at that one; the next run starts from the last index measured."""
    indexes = iter([2054.0, 2700.0, 2650.0, 1000.0, 1000.0, 1000.0, 2100.0])
    ran_at: list[float] = []

    def measure(url, slowdown):
        ran_at.append(slowdown)
        return {**_run(90, 2000.0, 100.0, next(indexes))}

    monkeypatch.setattr(lighthouse, "measure", measure)
    first, after = lighthouse.calibrated_run("u", lighthouse.cpu_slowdown(2054))
    assert first["tries"] == 1 and "off" not in first and after == lighthouse.cpu_slowdown(2054)
    second, after = lighthouse.calibrated_run("u", after)  # 2700 asks for 9.0x, not 6.24x
    assert second["tries"] == 2 and second["benchmark_index"] == 2650.0
    assert second["cpu_slowdown"] == pytest.approx(lighthouse.cpu_slowdown(2700))
    assert after == pytest.approx(lighthouse.cpu_slowdown(2650))
    third, after = lighthouse.calibrated_run("u", after)  # three runs below the calculator's range
    assert third["tries"] == 3 and third["off"] is True
    assert after == pytest.approx(lighthouse.cpu_slowdown(2650))
    assert len(ran_at) == 6 and ran_at[3:] == [after] * 3
    fourth, _ = lighthouse.calibrated_run("u", 6.0, tries=1)  # 2100 asks for 6.43x: near enough
    assert fourth["tries"] == 1 and "off" not in fourth
    per_run = {**_calibrated(90, 6.5, 2054.0), "cpu_slowdown_min": 5.9, "cpu_slowdown_max": 9.01,
               "runs_redone": 3, "runs_off": 1}
    text = lighthouse._conditions({"a.html": per_run, "b.html": _calibrated(91, 4.59, 1670.0)})
    assert ("5.90x to 9.01x, set for each run from the benchmark index the host's last run "
            "measured (1 page); a run whose own index asked for a slowdown more than 15% away "
            "was made again at that slowdown (3 runs made again; 1 of the 5 runs kept still "
            "disagreed after 3 tries)") in text
    assert "4.59x from the host's benchmark index 1670, the median of three calibration runs (1 page)" in text


def test_a_second_calibrated_measurement_adds_its_pages_with_its_own_conditions():
    import datetime as dt

    import run

    report = {"lighthouse": {"a.html": _calibrated(90, 4.59, 1670.0),
                             "b.html": _calibrated(91, 4.59, 1670.0)},
              "lighthouse_measured_at": "2026-11-28 01:41 UTC", "other": 1}
    extra = {"b.html": _calibrated(70, 3.86, 1500.0), "c.html": _calibrated(95, 3.86, 1500.0)}
    out = run.add_lighthouse(report, extra, dt.datetime(2026, 11, 28, 2, 5,
                                                        tzinfo=dt.timezone.utc))
    assert out["other"] == 1 and sorted(out["lighthouse"]) == ["a.html", "b.html", "c.html"]
    assert out["lighthouse"]["b.html"]["performance"] == 70  # the newer record of a page
    assert out["lighthouse_measured_at"] == ("2026-11-28 01:41 UTC (1 page) and "
                                             "2026-11-28 02:05 UTC (2 pages)")
    assert out["lighthouse"]["a.html"]["measured_at"] == "2026-11-28 01:41 UTC"
    # a third measurement counts each page under the time it was measured
    third = run.add_lighthouse(out, {"a.html": _calibrated(93, 6.24, 2054.0)},
                               dt.datetime(2026, 11, 28, 11, 52, tzinfo=dt.timezone.utc))
    assert third["lighthouse_measured_at"] == ("2026-11-28 02:05 UTC (2 pages) and "
                                               "2026-11-28 11:52 UTC (1 page)")
    text = lighthouse._conditions(out["lighthouse"])
    assert ("4.59x from the host's benchmark index 1670, the median of three calibration runs "
            "(1 page), and 3.86x from the host's benchmark index 1500, the median of three "
            "calibration runs (2 pages)") in text
    one = lighthouse._conditions(report["lighthouse"])
    assert "4.59x from the host's benchmark index 1670, the median of three calibration runs;" in one
    with pytest.raises(ValueError, match="extra"):
        run.add_lighthouse(report, {"c.html": _run(95, 2000.0, 100.0, 1500.0)},
                           dt.datetime.now(dt.timezone.utc))
    with pytest.raises(ValueError, match="report"):
        run.add_lighthouse({"lighthouse": {"a.html": _run(90, 2000.0, 100.0, 1500.0)}}, extra,
                           dt.datetime.now(dt.timezone.utc))

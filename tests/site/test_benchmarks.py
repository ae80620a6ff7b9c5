"""The benchmark script's own logic (benchmarks/run.py), and the README quoting its report.

Benchmarks inform; they never gate: no test here compares a measured time with a target, and a
chapter that nobody has measured yet passes. What could be wrong is the script's arithmetic
(medians, which target is met), its report and the README's quotation of it:
those are tested, with the targets imported from the script, the one place they are written.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))  # as when it runs: modules beside it import
_spec = importlib.util.spec_from_file_location("benchmark_run", ROOT / "benchmarks" / "run.py")
run = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(run)


@pytest.fixture(scope="module")
def report() -> dict:
    """The committed report: real in shape, whatever its numbers."""
    return json.loads((ROOT / "benchmarks" / "report.json").read_text(encoding="utf-8"))


def test_each_notebook_time_is_the_median_of_its_runs():
    summary = run.notebook_summary({"first": [3.0, 1.0, 2.0], "second": [9.0, 4.0, 5.0]})
    assert summary == {"notebooks_s": {"first": 2.0, "second": 5.0},
                       "notebooks_total_s": 7.0, "notebook_max_s": 5.0}


def test_a_target_is_met_strictly_below_it_and_unmeasured_ones_are_left_out():
    names = sorted(run.TARGETS)
    below, at, above = names[:3]
    results = {below: run.TARGETS[below] / 2, at: run.TARGETS[at],
               above: run.TARGETS[above] * 2, "not_a_target_s": 1.0}
    assert run.targets_met(results) == {below: True, at: False, above: False}


def test_the_report_marks_each_missed_target(report):
    # the scale and Lighthouse sections judge their own targets (benchmarks/scale.py and
    # benchmarks/lighthouse.py): leave them out to count run.TARGETS' marks alone
    r = {k: v for k, v in copy.deepcopy(report).items() if k not in ("scale", "lighthouse")}
    name = sorted(set(run.TARGETS) & set(r))[0]
    for key in run.TARGETS:
        if key in r:
            r[key] = run.TARGETS[key] / 2
    assert "MISSED" not in run.markdown({**r, "targets_met": run.targets_met(r)})
    r[name] = 2 * run.TARGETS[name]
    text = run.markdown({**r, "targets_met": run.targets_met(r)})
    assert text.count("**MISSED**") == 1


def test_the_report_says_what_was_not_measured(report):
    r = {key: value for key, value in report.items() if key not in ("ci_s", "ci_measured_at")}
    text = run.markdown({**r, "targets_met": run.targets_met(r)})
    assert "not measured" in text and "CI measured never" in text


def test_the_readme_quotation_is_rewritten_from_the_report():
    text = "CI <!-- report:ci_s --> 1.0 min; nbval <!-- report:nbval_s --> 99 s; <!-- report:x --> 7"
    assert run.quote_report(text, {"ci_s": 630.0, "nbval_s": 79.4, "x": 1.0}) == (
        "CI <!-- report:ci_s --> 10.5 min; nbval <!-- report:nbval_s --> 79 s; <!-- report:x --> 7")


def test_the_readme_quotes_the_committed_report(report):
    """The README's timings are what `make benchmark` wrote: nobody typed them."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "<!-- report:" in readme
    assert run.quote_report(readme, report) == readme

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
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
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


def test_the_engines_chapter_is_judged_apart_from_the_others():
    # Spark's JVM start-up counts in dp-engines' run time: its target is 60 s, every other
    # chapter's 10 s, so it must not be the "slowest notebook" the 10-s target judges
    summary = run.notebook_summary({"first": [3.0, 3.0, 3.0], run.ENGINES_NOTEBOOK: [40.0] * 3})
    assert summary["notebook_max_s"] == 3.0
    assert summary["engines_notebook_s"] == 40.0
    assert summary["notebooks_total_s"] == 43.0
    assert run.targets_met(summary) == {"notebook_max_s": True, "engines_notebook_s": True}
    assert run.targets_met({"engines_notebook_s": 61.0}) == {"engines_notebook_s": False}


def test_a_target_is_met_strictly_below_it_and_unmeasured_ones_are_left_out():
    names = sorted(run.TARGETS)
    below, at, above = names[:3]
    results = {below: run.TARGETS[below] / 2, at: run.TARGETS[at],
               above: run.TARGETS[above] * 2, "not_a_target_s": 1.0}
    assert run.targets_met(results) == {below: True, at: False, above: False}


def test_the_report_marks_each_missed_target(report):
    # the scale, Lighthouse and mutation sections judge their own targets (benchmarks/scale.py,
    # benchmarks/lighthouse.py, benchmarks/mutation.py): leave them out to count run.TARGETS' marks
    r = {k: v for k, v in copy.deepcopy(report).items()
         if k not in ("scale", "lighthouse", "mutation")}
    name = sorted(set(run.TARGETS) & set(r))[0]
    for key in run.TARGETS:
        if key in r:
            r[key] = run.TARGETS[key] / 2
    # the reading section judges the notebooks as they are (reading_section's own test)
    reading = "\n".join(run.reading_section(ROOT)).count("**MISSED**")
    assert run.markdown({**r, "targets_met": run.targets_met(r)}).count("**MISSED**") == reading
    r[name] = 2 * run.TARGETS[name]
    text = run.markdown({**r, "targets_met": run.targets_met(r)})
    assert text.count("**MISSED**") == reading + 1


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
    for key in ("ci_s", "venv_mb", "fresh_book_s", "fresh_book_mb"):
        assert f"<!-- report:{key} -->" in readme, key
    assert run.quote_report(readme, report) == readme


def test_the_report_says_when_its_install_figures_are_for_other_lock_files(report):
    """CI, venv and make-book figures hold only for the lock files they were measured with; a
    benchmark informs and never gates, so a stale figure is said, not failed."""
    fresh = {**report, "ci_lock_hash": "0123456789ab"}
    assert run.stale_installs(fresh, now="0123456789ab") == ""
    said = run.stale_installs(fresh, now="ba9876543210")
    assert "have changed since" in said and "ba9876543210" in said and "--installs-only" in said
    text = (ROOT / "benchmarks" / "report.md").read_text(encoding="utf-8")
    stale = report.get("ci_lock_hash") != run.lock_hash()
    assert ("The lock files have changed since" in text) is stale


def test_the_lock_hash_changes_with_any_lock_file(tmp_path):
    for name in run.LOCK_FILES:
        (tmp_path / name).write_text("a\n", encoding="utf-8")
    first = run.lock_hash(tmp_path)
    assert len(first) == 12 and int(first, 16) >= 0
    for name in run.LOCK_FILES:
        (tmp_path / name).write_text("b\n", encoding="utf-8")
        assert run.lock_hash(tmp_path) != first
        (tmp_path / name).write_text("a\n", encoding="utf-8")


def test_skip_ci_refuses_figures_measured_with_other_lock_files():
    previous = {"ci_s": 900.0, "venv_mb": 2000.0, "ci_lock_hash": "0123456789ab", "nbval_s": 9.0}
    assert run.locked_figures(previous, "0123456789ab") == {
        "ci_s": 900.0, "venv_mb": 2000.0, "ci_lock_hash": "0123456789ab"}
    for other in ({**previous, "ci_lock_hash": "ffffffffffff"},
                  {k: v for k, v in previous.items() if k != "ci_lock_hash"}):
        with pytest.raises(SystemExit, match="cannot be carried over"):
            run.locked_figures(other, "0123456789ab")


# --------------------------------------------------------------------------------------------
# benchmarks/mutation.py (`make mutation`): its arithmetic and the equivalent-mutant list; mutmut
# itself never runs in a test
# --------------------------------------------------------------------------------------------

mutation = run.mutation


def test_the_mutation_score_excludes_only_listed_survivors():
    statuses = {"m.x_f__mutmut_1": "killed", "m.x_f__mutmut_2": "timeout",
                "m.x_f__mutmut_3": "survived", "m.x_f__mutmut_4": "no tests",
                "m.x_f__mutmut_5": "survived", "m.x_f__mutmut_6": "killed"}
    r = mutation.score(statuses, {"m.x_f__mutmut_5", "m.x_f__mutmut_6"})
    # 3 caught of 6 - 1 equivalent; the listed mutant that a test kills is not excluded
    assert r["score"] == pytest.approx(3 / 5)
    assert (r["mutants"], r["equivalent"], r["survived"], r["no_tests"]) == (6, 1, 2, 1)
    assert r["missed"] == ["m.x_f__mutmut_3", "m.x_f__mutmut_4"]
    assert r["killed_but_listed"] == ["m.x_f__mutmut_6"]


def test_an_equivalent_entry_is_compared_with_the_change_mutmut_shows():
    diff = ("--- chapters/dpcourse/m.py\n+++ chapters/dpcourse/m.py\n@@ -1,3 +1,3 @@\n"
            " def f(x):\n-    return x >= 0\n+    return x > 0\n")
    assert mutation.changed_lines(diff) == ["- return x >= 0", "+ return x > 0"]
    assert mutation.module_of("chapters.dpcourse.gaussian.x_gaussian_sigma__mutmut_3") == "gaussian"


def test_make_mutation_refuses_an_unknown_module_and_keeps_the_modules_not_run(monkeypatch,
                                                                              capsys):
    monkeypatch.setattr(run, "write_report", lambda *a, **k: pytest.fail("wrote the report"))
    assert run.mutation_only({}, ["no-such-module"], 1, False) == 2
    assert "unknown modules ['no-such-module']" in capsys.readouterr().out
    old = {"mutmut": "0", "modules": {"gaussian": {"score": 0.9}, "randomness": {"score": 0.97}}}
    new = mutation.merged(old, {"gaussian": {"score": 1.0, "missed": ["x"],
                                             "killed_but_listed": [], "stale_equivalents": []}})
    assert new["modules"] == {"gaussian": {"score": 1.0}, "randomness": {"score": 0.97}}
    assert new["mutmut"] != "0" and old["modules"]["gaussian"] == {"score": 0.9}


def test_the_scale_benchmark_alone_writes_after_every_run_and_keeps_the_last_runs(monkeypatch):
    written = []
    monkeypatch.setattr(run, "write_report", lambda r, show=True: written.append(r) or 0)
    previous = {"scale": {"runs": ["old"], "measured_at": "then"}, "other": 1}

    def measure(save, done):
        assert done == []  # not resumed: every run again
        for n in (1, 2):
            save({"runs": ["new"] * n})
        return {"runs": ["new"] * 2}

    monkeypatch.setattr(run.scale, "measure", measure)
    assert run.scale_only(previous, False, None) == 0
    assert [len(r["scale"]["runs"]) for r in written] == [1, 2, 2] and written[-1]["other"] == 1
    assert written[-1]["scale"]["previous"] == {"runs": ["old"], "measured_at": "then"}
    written.clear()
    assert run.scale_only(previous, False, "stopped for lack of time") == 0
    assert written == [{"scale": {"runs": ["old"], "measured_at": "then",
                                  "unfinished": "stopped for lack of time"}, "other": 1}]


def test_the_benchmark_modules_import_each_other_without_a_circle():
    """``run.py`` writes the report and imports the modules that measure; none imports it back
    (``make mutation`` and the scale benchmark alone go through ``run.py``), and the one module
    they share, ``notebook_code`` (the chapters' code, as the tests load it), imports none. No benchmark imports a module of ``tests/``."""
    import ast

    folder = ROOT / "benchmarks"
    local = {p.stem for p in folder.glob("*.py")}
    imports = {}
    for path in folder.glob("*.py"):
        names = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module:
                names.add(node.module.split(".")[0])
        assert not names & {p.stem for p in (ROOT / "tests").glob("*.py")}, path.name
        imports[path.stem] = names & local
    assert imports["run"] >= {"scale", "mutation", "grading", "lighthouse"}
    assert {name: found for name, found in imports.items() if name != "run" and found} == {
        "scale": {"notebook_code"}}
    assert "notebook_code" in imports["run"]


def test_every_equivalent_mutant_is_in_a_module_and_has_a_reason():
    entries = mutation.load_equivalents()
    assert all(mutation.module_of(name) in mutation.modules() for name in entries)
    assert all(len(e["reason"].split()) >= 5 and e["change"] for e in entries.values())


def test_each_mutant_runs_against_its_own_modules_tests():
    from mutation_paths import own_test_file

    assert own_test_file("chapters.dpcourse.gaussian.x_gaussian_sigma__mutmut_3") == (
        "tests/package/test_gaussian.py")
    assert own_test_file("chapters.dpcourse.randomness.xǁSecureRandomǁintegers__mutmut_1") == (
        "tests/package/test_randomness.py")
    assert own_test_file("stats") is None and own_test_file("") is None


def test_the_reading_section_judges_each_core_and_the_whole_path(tmp_path):
    (tmp_path / "chapters").mkdir()
    (tmp_path / "_toc.yml").write_text(
        "format: jb-book\nroot: intro\nparts:\n  - caption: A\n    chapters:\n      - file: chapters/short\n"
        "      - file: chapters/long\n        sections:\n          - file: chapters/deep\n",
        encoding="utf-8")
    for name, words in (("short", 2000), ("long", 4200), ("deep", 3000)):
        cells = [{"cell_type": "markdown", "source": ["word " * words]}]
        (tmp_path / "chapters" / f"{name}.ipynb").write_text(json.dumps({"cells": cells}),
                                                            encoding="utf-8")
    text = "\n".join(run.reading_section(tmp_path))
    assert "| short | 10 | 0 | met |" in text          # 2,000 words at 200 a minute
    assert "| long | 21 | 15 | **MISSED** |" in text   # 21 > 20; its section 15 minutes
    assert "| **all** | 31 (½ hour) | 15 | met |" in text
    assert "1 of 2 chapters' cores are longer than 20 minutes" in text


def test_the_cpu_slowdown_follows_lighthouses_calculator():
    import lighthouse

    # Lighthouse's throttling documentation: 4x at an index of 1,533, 3x at 1,300, +1 per 233
    assert lighthouse.cpu_slowdown(1533) == pytest.approx(4.0, abs=1e-9)
    assert lighthouse.cpu_slowdown(1300) == pytest.approx(3.0)
    assert lighthouse.cpu_slowdown(3300) == pytest.approx(3 + 2000 / 233)
    with pytest.raises(ValueError, match="benchmark_index"):
        lighthouse.cpu_slowdown(900)
    with pytest.raises(TypeError, match="benchmark_index"):
        lighthouse.cpu_slowdown("fast")
    with pytest.raises(ValueError, match="runs"):
        lighthouse.calibrated_pages(ROOT, ["index.html"], runs=0)
    with pytest.raises(ValueError, match="calibration_runs"):
        lighthouse.calibrated_pages(ROOT, ["index.html"], calibration_runs=0)


def test_the_scale_benchmark_finds_the_code_it_runs_in_the_notebooks():
    # The benchmark runs the chapters' own functions; when a rewrite moves one to another page,
    # this fails here rather than an hour into `make benchmark`.
    spec = importlib.util.spec_from_file_location("benchmark_scale",
                                                  ROOT / "benchmarks" / "scale.py")
    scale = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(scale)
    ns = scale.chapter_namespace()
    from notebook_code import notebook_namespace
    core = notebook_namespace("dp-engines", scale.CONSTANTS)
    assert all(core[name] == ns[name] for name in scale.CONSTANTS)  # one release, two pages
    wanted = {name for names in scale.NAMES.values() for name in names}
    assert wanted <= ns.keys()
    assert all(callable(ns[name]) for name in wanted if name.islower())
    assert ns["AMOUNT_BOUNDS"] == (0, 100) and len(ns["EDUCATION"]) == 16


# --- the grading benchmark (benchmarks/grading.py, issue #41) --------------------------------

def test_grading_is_extrapolated_to_80_students_only_below_80():
    grading = run.grading
    assert grading.extrapolate(12.0, 4) == 240.0  # 3 s a student, times 80
    assert grading.extrapolate(400.0, 80) is None and grading.extrapolate(500.0, 100) is None
    with pytest.raises(ValueError):
        grading.extrapolate(1.0, 0)


def test_the_grading_section_says_n_and_whether_80_is_extrapolated():
    grading = run.grading
    small = {"chapter": "laplace-mechanism", "students": 5, "seconds": 30.0,
             "per_student_s": 6.0, "extrapolated_80_s": 480.0, "full_marks": "10 of 10",
             "measured_at": "2026-11-27 21:00 UTC"}
    text = "\n".join(grading.markdown(small))
    assert "| students (N) | 5 |" in text
    assert "**extrapolated** from N = 5" in text and "480 s (**over** the target" in text
    assert "Not measured at 80: N = 5 < 80" in text
    full = {**small, "students": 80, "seconds": 300.0, "per_student_s": 3.75,
            "extrapolated_80_s": None}
    text = "\n".join(grading.markdown(full))
    assert "extrapolated" not in text and "within the target of 360 s" in text


def test_the_report_has_a_grading_section_only_when_grading_was_measured(report):
    r = {k: v for k, v in copy.deepcopy(report).items() if k != "grading"}
    assert "## Grading a class" not in run.markdown({**r, "targets_met": run.targets_met(r)})
    r["grading"] = {"chapter": "laplace-mechanism", "students": 3, "seconds": 9.0,
                    "per_student_s": 3.0, "extrapolated_80_s": 240.0, "full_marks": "6 of 6",
                    "measured_at": "2026-11-27 21:00 UTC"}
    text = run.markdown({**r, "targets_met": run.targets_met(r)})
    assert "## Grading a class" in text and "extrapolated** from N = 3" in text

"""End to end: ``make assignments`` (nbgrader) and ``make grade`` on one chapter.

The grading of every problem alone is ``test_problems.py``, and a corpus of submissions is
``test_corpus.py``; here a temporary course directory gets the laplace-mechanism assignment
(nbgrader's ``generate_assignment``) and three students are graded into the CSV and nbgrader's
gradebook: the reference solutions (full marks), the untouched release (0, with feedback in
words) and a submission whose first problem raises in one function and loops forever in the
other (0 for that problem only, the second problem full). The same batch holds what must not
stop it: an empty file, invalid JSON, code that kills its process, a misnamed file and a folder
whose name is not a student id; an id with an ``@`` is graded.
"""

from __future__ import annotations

import csv
import json
import shutil
import sys
from pathlib import Path

import pytest

ASSIGNMENTS = Path(__file__).resolve().parents[2] / "assignments"
sys.path.insert(0, str(ASSIGNMENTS))

import build  # noqa: E402
import grade  # noqa: E402
import problems as P  # noqa: E402

CHAPTER = "laplace-mechanism"


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    root = tmp_path_factory.mktemp("course")
    build.main(["--course", str(root), "--chapters", CHAPTER])
    return root


def _cells(path):
    return json.loads(Path(path).read_text(encoding="utf-8"))["cells"]


def test_release_has_no_solution_and_no_hidden_test(course):
    release = course / "release" / CHAPTER
    assert sorted(p.name for p in release.iterdir()) == ["dpcourse", "dpgrader.py",
                                                         f"{CHAPTER}.ipynb"]
    text = "\n".join("".join(c["source"]) for c in _cells(release / f"{CHAPTER}.ipynb"))
    for problem in P.load_problems([CHAPTER]):
        for block in problem.of("test"):
            body = block.code.strip().splitlines()[-1]
            assert (body in text) is not block.hidden, (problem.pid, body)
        solution = problem.one("solution").code
        inner = solution.split(P.BEGIN_SOLUTION)[1].split(P.END_SOLUTION)[0].strip()
        assert inner.splitlines()[0].strip() not in text
    assert "raise NotImplementedError()" in text
    assert "{doc}" not in text and "*The Laplace mechanism*" in text  # the reader's Markdown


def test_variants_change_the_constants_not_the_problems():
    items = P.load_problems([CHAPTER])

    def setups(variant):
        return ["".join(c["source"]) for c in P.chapter_notebook(CHAPTER, items, variant)["cells"]
                if c["metadata"].get("nbgrader", {}).get("grade_id", "").endswith("-setup")]

    base, variant = setups(0), setups(3)
    assert len(base) == len(items) and all(a != b for a, b in zip(base, variant))
    assert setups(3) == variant  # a variant is reproducible


def test_make_grade_scores_reference_release_and_a_broken_submission(tmp_path, course, capsys):
    release = course / "release" / CHAPTER / f"{CHAPTER}.ipynb"
    source = course / "source" / CHAPTER / f"{CHAPTER}.ipynb"
    subs = tmp_path / "submissions"
    (subs / "ref" / CHAPTER).mkdir(parents=True)
    shutil.copy(source, subs / "ref" / CHAPTER / f"{CHAPTER}.ipynb")  # nbgrader's layout
    (subs / "blank").mkdir()
    shutil.copy(release, subs / "blank" / f"{CHAPTER}.ipynb")  # the flat layout
    broken = json.loads(release.read_text(encoding="utf-8"))
    reference = {c["metadata"]["nbgrader"]["grade_id"]: c for c in _cells(source)
                 if "nbgrader" in c["metadata"]}
    for cell in broken["cells"]:
        gid = cell["metadata"].get("nbgrader", {}).get("grade_id")
        if gid == "clipped-sum-solution":
            cell["source"] = ("def clipped_sum_sensitivity(lower, upper):\n"
                              "    while True:\n        pass\n\n"
                              "def private_clipped_sum(values, lower, upper, epsilon, rng):\n"
                              "    raise ValueError('no idea')\n")
        elif gid == "error-bound-solution":
            cell["source"] = reference[gid]["source"]
    (subs / "broken").mkdir()
    (subs / "broken" / f"{CHAPTER}.ipynb").write_text(json.dumps(broken), encoding="utf-8")

    # what must not stop the batch
    for student, content in (("empty", ""), ("garbled", '{"cells": [')):
        (subs / student).mkdir()
        (subs / student / f"{CHAPTER}.ipynb").write_text(content, encoding="utf-8")
    dies = json.loads(json.dumps(broken))
    for cell in dies["cells"]:
        if cell["metadata"].get("nbgrader", {}).get("grade_id") == "clipped-sum-solution":
            cell["source"] = "import os\nos._exit(1)\n"
    (subs / "dies").mkdir()
    (subs / "dies" / f"{CHAPTER}.ipynb").write_text(json.dumps(dies), encoding="utf-8")
    (subs / "jane.doe@uni.edu").mkdir()
    shutil.copy(source, subs / "jane.doe@uni.edu" / f"{CHAPTER}.ipynb")
    shutil.copy(source, subs / "ref" / f"{CHAPTER} (1).ipynb")  # a browser's second download
    (subs / "jane doe").mkdir()
    shutil.copy(source, subs / "jane doe" / f"{CHAPTER}.ipynb")

    out = tmp_path / "grades.csv"
    assert grade.main([str(subs), "--out", str(out), "--course", str(course)]) == 1
    rows = {(r["student"], r["problem"]): r for r in csv.DictReader(out.open(encoding="utf-8"))}
    problems = [p.pid for p in P.load_problems([CHAPTER])]
    students = ("blank", "broken", "dies", "empty", "garbled", "jane.doe@uni.edu", "ref")
    assert sorted(rows) == sorted((s, p) for s in students for p in problems)
    for student, why in (("empty", "empty (0 bytes)"), ("garbled", "not a readable notebook")):
        for pid in problems:
            row = rows[(student, pid)]
            assert row["score"] == "0" and float(row["max_score"]) > 0
            assert row["feedback"].startswith("not graded: ") and why in row["feedback"], row
    for pid in problems:
        jane = rows[("jane.doe@uni.edu", pid)]
        assert jane["score"] == jane["max_score"]
    said = capsys.readouterr().out
    assert f"  ref/{CHAPTER} (1).ipynb: not <chapter>.ipynb for a chapter" in said
    assert "  jane doe: not a valid student id (a student id holds letters" in said
    assert "dies/" not in said  # code that kills its process costs its problem only
    died = rows[("dies", "clipped-sum")]
    assert died["score"] == "0" and "the process running your code ended (exit status 1)" in \
        died["feedback"], died
    assert rows[("dies", "error-bound")]["score"] == rows[("dies", "error-bound")]["max_score"]
    for pid in problems:
        ref = rows[("ref", pid)]
        assert ref["score"] == ref["max_score"] and ref["feedback"] == "all tests passed"
        blank = rows[("blank", pid)]
        assert blank["score"] == "0" and "is not written yet" in blank["feedback"]
        assert "Traceback" not in blank["feedback"]
    stopped = rows[("broken", "clipped-sum")]
    assert stopped["score"] == "0"
    assert "raised ValueError: no idea" in stopped["feedback"]
    assert "did not finish within 5 s" in stopped["feedback"]
    other = rows[("broken", "error-bound")]
    assert other["score"] == other["max_score"]

    # nbgrader's gradebook holds the same scores, test cell by test cell
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for student in ("ref", "blank", "broken", "dies", "jane.doe@uni.edu"):
            total = gb.find_submission(CHAPTER, student).score
            assert total == pytest.approx(sum(float(rows[(student, pid)]["score"])
                                              for pid in problems)), student
    autograded = _cells(course / "autograded" / "blank" / CHAPTER / f"{CHAPTER}.ipynb")
    shown = [o for c in autograded for o in c.get("outputs", []) if o["output_type"] == "error"]
    assert shown and all("is not written yet" in o["evalue"] for o in shown)
    assert not any(P.BEGIN_HIDDEN in "".join(c["source"]) for c in autograded)


def test_a_student_sees_a_failed_check_as_a_sentence_not_a_traceback():
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("import dpgrader"),
                nbformat.v4.new_code_cell("dpgrader.check_close(2, 1, 'x')"),
                nbformat.v4.new_code_cell("print('the next cell runs')")]
    NotebookClient(nb, timeout=60, allow_errors=True, kernel_name="python3",
                   resources={"metadata": {"path": str(ASSIGNMENTS)}}).execute()
    [error] = nb.cells[1].outputs
    assert error["output_type"] == "error" and error["ename"] == "CheckFailed"
    shown = "".join(error["traceback"])
    assert "x is 2, but it should be 1" in shown
    assert "Traceback" not in shown and "File " not in shown and "line " not in shown
    assert nb.cells[2].outputs[0]["text"] == "the next cell runs\n"

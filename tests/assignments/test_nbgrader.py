"""End to end: ``make assignments`` (nbgrader) and ``make grade`` on one chapter.

Beside the scores: the written answer's cell in the release (no rubric), its hand grade through
``grades-written.csv``, the LMS exports and the feedback pages of a real batch (every message,
no hidden test, in the course's pages and in nbgrader's own ``generate_feedback``).

The grading of every problem alone is ``test_problems.py``, and a corpus of submissions is
``test_corpus.py``; here a temporary course directory gets the laplace-mechanism assignment
(nbgrader's ``generate_assignment``) and three students are graded into the CSV and nbgrader's
gradebook: the reference solutions
(full marks), the untouched release (0, with feedback in words) and a submission whose first
problem raises in one function and loops forever in the other (0 for that problem only, the
second problem full). The same batch holds what must not stop it: an empty file, invalid
JSON, code that kills its process, a misnamed file and a folder whose name is not a student id; an id
with an ``@`` is graded.
"""

from __future__ import annotations

import contextlib
import csv
import html
import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import build
import grade
import problems as P
import written

ASSIGNMENTS = Path(__file__).resolve().parents[2] / "assignments"


CHAPTER = "laplace-mechanism"
AUTOGRADED = [p for p in P.load_problems([CHAPTER]) if not p.written]
WRITTEN = [p for p in P.load_problems([CHAPTER]) if p.written]


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """``make assignments``' command for one chapter, under a PATH that holds the venv's
    ``bin/`` and nothing else: no Node.js (``test_without_node.py`` checks the Makefile)."""
    root = tmp_path_factory.mktemp("course")
    bin_dir = str(Path(sys.executable).parent)
    assert shutil.which("node", path=bin_dir) is None and shutil.which("npm", path=bin_dir) is None
    run = subprocess.run([sys.executable, str(ASSIGNMENTS / "build.py"), "--course", str(root),
                          "--chapters", CHAPTER], capture_output=True, text=True,
                         env={**os.environ, "PATH": bin_dir})
    assert run.returncode == 0, run.stdout + run.stderr
    return root


def _cells(path):
    return json.loads(Path(path).read_text(encoding="utf-8"))["cells"]


def test_release_has_no_solution_and_no_hidden_test(course):
    release = course / "release" / CHAPTER
    assert sorted(p.name for p in release.iterdir()) == ["dpcourse", "dpgrader.py",
                                                         f"{CHAPTER}.ipynb"]
    text = "\n".join("".join(c["source"]) for c in _cells(release / f"{CHAPTER}.ipynb"))
    for problem in AUTOGRADED:
        for block in problem.of("test"):
            body = block.code.strip().splitlines()[-1]
            assert (body in text) is not block.hidden, (problem.pid, body)
        solution = problem.one("solution").code
        inner = solution.split(P.BEGIN_SOLUTION)[1].split(P.END_SOLUTION)[0].strip()
        assert inner.splitlines()[0].strip() not in text
    assert "raise NotImplementedError()" in text
    assert "{doc}" not in text and "*The Laplace mechanism*" in text  # the reader's Markdown


def test_a_written_answer_is_released_as_a_manually_graded_cell_without_its_rubric(course):
    [problem] = WRITTEN
    cells = {c["metadata"].get("nbgrader", {}).get("grade_id"): c
             for c in _cells(course / "release" / CHAPTER / f"{CHAPTER}.ipynb")}
    answer = cells[problem.answer_id]
    meta = answer["metadata"]["nbgrader"]
    assert answer["cell_type"] == "markdown" and "".join(answer["source"]) == "YOUR ANSWER HERE"
    assert meta["grade"] and meta["solution"] and meta["points"] == problem.points
    assert problem.title in "".join(cells[f"{problem.pid}-prompt"]["source"])
    released = "\n".join("".join(c["source"]) for c in cells.values())
    source = "\n".join("".join(c["source"]) for c in _cells(course / "source" / CHAPTER /
                                                           f"{CHAPTER}.ipynb"))
    criteria = [line for line in problem.one("rubric").code.splitlines() if line.strip()]
    assert len(criteria) >= 4
    for line in criteria:
        assert line in source and line not in released, line
    assert "Rubric" not in released


def test_variants_change_the_constants_not_the_problems():
    items = P.load_problems([CHAPTER])

    def setups(variant):
        return ["".join(c["source"]) for c in P.chapter_notebook(CHAPTER, items, variant)["cells"]
                if c["metadata"].get("nbgrader", {}).get("grade_id", "").endswith("-setup")]

    base, variant = setups(0), setups(3)
    assert len(base) == len(AUTOGRADED) and all(a != b for a, b in zip(base, variant))
    assert setups(3) == variant  # a variant is reproducible


@pytest.fixture(scope="module")
def batch(tmp_path_factory, course):
    """One ``make grade`` batch: (the CSV, its rows by (student, problem), what it printed)."""
    tmp_path = tmp_path_factory.mktemp("batch")
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
    said = io.StringIO()
    with contextlib.redirect_stdout(said):
        assert grade.main([str(subs), "--out", str(out), "--course", str(course)]) == 1
    rows = {(r["student"], r["problem"]): r for r in csv.DictReader(out.open(encoding="utf-8"))}
    return out, rows, said.getvalue()


def test_make_grade_scores_reference_release_and_a_broken_submission(batch, course):
    out, rows, said = batch
    problems = [p.pid for p in P.load_problems([CHAPTER])]
    autograded = [p.pid for p in AUTOGRADED]
    students = ("blank", "broken", "dies", "empty", "garbled", "jane.doe@uni.edu", "ref")
    assert sorted(rows) == sorted((s, p) for s in students for p in problems)
    for student, why in (("empty", "empty (0 bytes)"), ("garbled", "not a readable notebook")):
        for pid in problems:
            row = rows[(student, pid)]
            assert row["score"] == "0" and float(row["max_score"]) > 0
            assert row["feedback"].startswith("not graded: ") and why in row["feedback"], row
    for pid in autograded:
        jane = rows[("jane.doe@uni.edu", pid)]
        assert jane["score"] == jane["max_score"]
    assert f"  ref/{CHAPTER} (1).ipynb: not <chapter>.ipynb for a chapter" in said
    assert "  jane doe: not a valid student id (a student id holds letters" in said
    assert "dies/" not in said  # code that kills its process costs its problem only
    died = rows[("dies", "clipped-sum")]
    assert died["score"] == "0" and "the process running your code ended (exit status 1)" in \
        died["feedback"], died
    assert rows[("dies", "error-bound")]["score"] == rows[("dies", "error-bound")]["max_score"]
    for pid in autograded:
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
                                              for pid in autograded)), student
    autograded = _cells(course / "autograded" / "blank" / CHAPTER / f"{CHAPTER}.ipynb")
    shown = [o for c in autograded for o in c.get("outputs", []) if o["output_type"] == "error"]
    assert shown and all("is not written yet" in o["evalue"] for o in shown)
    assert not any(P.BEGIN_HIDDEN in "".join(c["source"]) for c in autograded)


def test_written_answers_are_pending_until_graded_by_hand_then_exported(batch, course):
    """A written answer handed in changed is pending (0, an empty cell in the exports); left as
    released it scores 0; a hand grade filled in grades-written.csv reaches the gradebook, the
    per-problem CSV, the exports and the feedback without autograding again."""
    out, rows, said = batch
    [problem] = WRITTEN
    auto_points = sum(p.points for p in AUTOGRADED)
    ref = rows[("ref", problem.pid)]  # the source's answer cell (the rubric) counts as an answer
    assert (ref["score"], ref["max_score"]) == ("0", f"{problem.points:g}")
    assert ref["feedback"].startswith("pending: ")
    blank = rows[("blank", problem.pid)]
    assert blank["score"] == "0" and blank["feedback"].startswith("no answer")
    assert "written answers wait for a hand grade" in said

    canvas = {r["Student"]: r for r in csv.DictReader(
        out.with_name("grades-canvas.csv").open(encoding="utf-8"))}
    column = f"{CHAPTER} (written)"
    assert canvas["Points Possible"][CHAPTER] == f"{auto_points:g}"
    assert canvas["Points Possible"][column] == f"{problem.points:g}"
    assert canvas["ref"][CHAPTER] == f"{auto_points:g}" and canvas["ref"][column] == ""
    assert canvas["blank"][CHAPTER] == "0" and canvas["blank"][column] == "0"
    assert canvas["empty"][CHAPTER] == "0" and canvas["empty"][column] == "0"
    assert canvas["ref"]["SIS Login ID"] == "ref" and "jane doe" not in canvas

    answers = out.with_name("grades-written.csv")
    table = list(csv.DictReader(answers.open(encoding="utf-8")))
    assert sorted(r["student"] for r in table) == ["blank", "broken", "dies", "jane.doe@uni.edu",
                                                   "ref"]
    mine = next(r for r in table if r["student"] == "ref")
    assert problem.one("rubric").code.splitlines()[0] in mine["answer"]
    mine.update(score="3", comment="clear, but the count is public under replace-one")
    too_much = dict(next(r for r in table if r["student"] == "jane.doe@uni.edu"), score="9")
    with answers.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(table[0]))
        writer.writeheader()
        writer.writerows([mine, too_much])
    with pytest.raises(SystemExit, match="score 9 is not between 0 and 4"):
        written.main(["--grades", str(out), "--answers", str(answers), "--course", str(course)])
    with answers.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(table[0]))
        writer.writeheader()
        writer.writerow(mine)
    assert written.main(["--grades", str(out), "--answers", str(answers),
                         "--course", str(course)]) == 0
    again = {(r["student"], r["problem"]): r for r in csv.DictReader(out.open(encoding="utf-8"))}
    assert again[("ref", problem.pid)]["score"] == "3"
    assert again[("ref", problem.pid)]["feedback"] == ("graded by hand: clear, but the count "
                                                        "is public under replace-one")
    assert again[("jane.doe@uni.edu", problem.pid)]["feedback"].startswith("pending: ")
    assert {k: v for k, v in again.items() if k[1] != problem.pid} == \
        {k: v for k, v in rows.items() if k[1] != problem.pid}
    canvas = {r["Student"]: r for r in csv.DictReader(
        out.with_name("grades-canvas.csv").open(encoding="utf-8"))}
    assert canvas["ref"][column] == "3"
    moodle = {r["Student id"]: r for r in csv.DictReader(
        out.with_name("grades-moodle.csv").open(encoding="utf-8"))}
    assert moodle["ref"][column] == "3" and moodle["jane.doe@uni.edu"][column] == ""
    page = (out.parent / "feedback" / "ref" / f"{CHAPTER}.html").read_text(encoding="utf-8")
    assert "clear, but the count is public under replace-one" in page
    assert f"{auto_points + 3:g} of {auto_points + problem.points:g} points" in page


def _hidden_lines() -> list[str]:
    """Lines of the chapter's hidden tests long enough to be recognised in a page."""
    return [line.strip() for p in AUTOGRADED for b in p.of("test") if b.hidden
            for line in b.code.splitlines() if len(line.strip()) >= 25]


def test_feedback_pages_hold_every_message_and_no_hidden_test(batch, course):
    out, _, said = batch
    # the CSV as it is now (a hand grade given in another test rewrites it and the pages)
    rows = {(r["student"], r["problem"]): r for r in csv.DictReader(out.open(encoding="utf-8"))}
    folder = out.parent / "feedback"
    hidden = _hidden_lines()
    assert len(hidden) >= 5
    students = {s for s, _ in rows}
    assert sorted(p.name for p in folder.iterdir()) == sorted(students)
    for (student, pid), row in rows.items():
        page = (folder / student / f"{CHAPTER}.html").read_text(encoding="utf-8")
        assert html.escape(row["feedback"]) in page, (student, pid)
        assert f"{row['score']} / {row['max_score']}" in page
        text = _text(page)
        for line in hidden:
            assert line not in text, (student, line)
    # nbgrader's generate_feedback renders the graded notebook: make grade writes it with the
    # release's test cells only, so nbgrader's pages hold no hidden test either
    build.nbgrader(course, "generate_feedback", CHAPTER, "--student", "broken", "--force")
    theirs = _text((course / "feedback" / "broken" / CHAPTER / f"{CHAPTER}.html")
                   .read_text(encoding="utf-8"))
    assert "clipped_sum_sensitivity" in theirs
    assert not [line for line in hidden if line in theirs]


def _text(page: str) -> str:
    """What a browser shows of an HTML page: tags removed (code is highlighted token by token),
    entities decoded."""
    return html.unescape(re.sub(r"<[^>]+>", "", page))


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

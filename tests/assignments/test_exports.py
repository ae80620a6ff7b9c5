"""What ``make grade`` writes beside its per-problem CSV, from a small synthetic results table.

* the LMS exports (``assignments/exports.py``): Canvas's and Moodle's columns and rows, exactly,
  with 0 for a chapter a student did not submit and an empty cell for a written answer not yet
  graded by hand;
* the feedback pages (``assignments/feedback.py``): every message, escaped, the points, and a
  re-grade that rewrites its own students' pages and no other.

The same files from a real nbgrader batch, and the written answers' hand grades, are
``test_nbgrader.py``'s.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

import exports
import feedback
import problems as P


WRITTEN = {("composition", "averaging-fresh-noise")}


def row(student, chapter, problem, score, max_score, text="all tests passed"):
    return {"student": student, "assignment": chapter, "problem": problem, "title": problem,
            "score": score, "max_score": max_score, "feedback": text}


#: alice: both chapters, her written answer graded 2/3; bob: no composition notebook at all;
#: carol: no laplace-mechanism notebook, her written answer not graded yet.
ROWS = [
    row("alice", "laplace-mechanism", "clipped-sum", 5, 5),
    row("alice", "laplace-mechanism", "error-bound", 1, 3,
        "CheckFailed: the interval is too narrow; CheckFailed: 99.9% <missing> & more"),
    row("alice", "composition", "plan-cost", 4, 4),
    row("alice", "composition", "averaging-fresh-noise", 2, 3, "graded by hand: good"),
    row("bob", "laplace-mechanism", "clipped-sum", 0, 5, "not graded: the file is empty"),
    row("bob", "laplace-mechanism", "error-bound", 3, 3),
    row("carol", "composition", "plan-cost", 1, 4, "CheckFailed: would let the analyst "
        "overspend"),
    row("carol", "composition", "averaging-fresh-noise", 0, 3,
        "pending: written answer, not graded by hand yet"),
]


def lines(path):
    return path.read_text(encoding="utf-8").splitlines()


def test_canvas_and_moodle_exports_have_one_row_per_student_and_zero_for_a_missing_chapter(
        tmp_path):
    out = tmp_path / "grades.csv"
    paths = exports.write_exports(ROWS, out, roster=["dave", "jane.doe@uni.edu"],
                                  written=WRITTEN)
    assert paths == {"canvas": tmp_path / "grades-canvas.csv",
                     "moodle": tmp_path / "grades-moodle.csv"}
    # the book's order: laplace-mechanism (part II) before composition (part III)
    assert lines(paths["canvas"]) == [
        "Student,ID,SIS User ID,SIS Login ID,Section,laplace-mechanism,composition,"
        "composition (written)",
        "Points Possible,,,,,8,4,3",
        "alice,,,alice,,6,4,2",
        "bob,,,bob,,3,0,0",
        "carol,,,carol,,0,1,",
        "dave,,,dave,,0,0,0",
        "jane.doe@uni.edu,,,jane.doe@uni.edu,,0,0,0",
    ]
    assert lines(paths["moodle"]) == [
        "Student id,laplace-mechanism,composition,composition (written)",
        "alice,6,4,2",
        "bob,3,0,0",
        "carol,0,1,",
        "dave,0,0,0",
        "jane.doe@uni.edu,0,0,0",
    ]


def test_canvas_can_match_students_by_sis_user_id_instead(tmp_path):
    columns, table = exports.gradebook(ROWS[:2], written=set())
    path = tmp_path / "export"
    exports.write_canvas(path, columns, table, id_column="SIS User ID")
    assert lines(path)[2] == "alice,,alice,,,6"
    with pytest.raises(ValueError, match="one of"):
        exports.write_canvas(path, columns, table, id_column="Email")


def test_the_exports_read_back_from_the_per_problem_csv(tmp_path):
    out = tmp_path / "grades.csv"
    with out.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(ROWS[0]))
        writer.writeheader()
        writer.writerows(ROWS)
    exports.main([str(out)])
    # the course's own written answers are read from the problem files
    assert ("composition", "averaging-fresh-noise") in exports.written_problems()
    assert lines(tmp_path / "grades-moodle.csv")[3] == "carol,0,1,"


def test_feedback_holds_every_message_and_the_points_and_survives_a_regrade(tmp_path):
    folder = tmp_path / "feedback"
    written = feedback.write_feedback(ROWS, folder)
    assert sorted(p.relative_to(folder).as_posix() for p in written) == [
        "alice/composition.html", "alice/laplace-mechanism.html", "bob/laplace-mechanism.html",
        "carol/composition.html"]
    alice = (folder / "alice" / "laplace-mechanism.html").read_text(encoding="utf-8")
    assert "6 of 8 points" in alice and "1 / 3" in alice and "5 / 5" in alice
    assert "CheckFailed: 99.9% &lt;missing&gt; &amp; more" in alice  # escaped, not markup
    assert "<missing>" not in alice
    for r in ROWS:
        page = (folder / r["student"] / f"{r['assignment']}.html").read_text(encoding="utf-8")
        assert feedback.html.escape(r["feedback"]) in page, r
    assert f"Feedback: {P.chapter_title('laplace-mechanism')}</h1>" in alice
    # a re-grade of bob alone rewrites bob's page and leaves alice's and carol's as they were
    before = {p: p.read_bytes() for p in written}
    again = [dict(ROWS[4], score=5, feedback="all tests passed"), ROWS[5]]
    feedback.write_feedback(again, folder)
    bob = folder / "bob" / "laplace-mechanism.html"
    assert bob.read_bytes() != before[bob] and "8 of 8 points" in bob.read_text("utf-8")
    for path, content in before.items():
        if path != bob:
            assert path.read_bytes() == content

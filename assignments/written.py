"""Written answers, graded by hand: their rows in the grades, and grading them from a CSV.

A written problem (``assignments/problems/<chapter>/<id>.md`` with a ``markdown answer`` and
a ``markdown rubric`` block) is one nbgrader "manually graded answer" cell, ``<id>-answer``.
``autograde`` gives it no score (0 if the student left the cell as handed out); the score is
the one a grader gives, in nbgrader's formgrader or through the CSV below. Both are kept in
nbgrader's gradebook (``assignments/gradebook.db``), where a re-grade keeps them.

* :func:`apply` turns the answer's row of ``make grade`` into the problem's row: the score the
  grader gave and their comment, or 0 with "pending: ..." while nobody has graded it;
* :func:`write_answers` writes ``grades-written.csv`` beside ``grades.csv``: one row per
  student and written answer, with the answer's text and empty ``score`` and ``comment``
  columns to fill in;
* ``make grade-written [WRITTEN=grades-written.csv]`` (:func:`main`) stores the scores and
  comments filled in that file in the gradebook (a score outside 0..points is refused), then
  rewrites ``grades.csv``, the LMS exports and the feedback with every hand grade the
  gradebook holds (the formgrader's included), without autograding again.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

from exports import FIELDS, PENDING, read_rows, write_exports
from feedback import feedback_folder, write_feedback
from problems import HERE, load_problems

ANSWER_FIELDS = ("student", "assignment", "problem", "title", "max_score", "score", "comment",
                 "answer")
NO_ANSWER = "no answer: the cell was handed in as it was handed out"
NOT_GRADED = "not graded: "


def _written() -> dict[tuple[str, str], object]:
    """(chapter, answer cell id) -> the written problem."""
    return {(p.chapter, p.answer_id): p for p in load_problems() if p.written}


def _hand_grade(gb, problem, student: str) -> tuple[float | None, float | None, str]:
    """(manual score, automatic score, the grader's comment) of one answer in the gradebook."""
    try:
        grade = gb.find_grade(problem.answer_id, problem.chapter, problem.chapter, student)
    except Exception:  # noqa: BLE001  (nbgrader's MissingEntry: never autograded)
        return None, None, ""
    try:
        comment = gb.find_comment(problem.answer_id, problem.chapter, problem.chapter,
                                  student).manual_comment or ""
    except Exception:  # noqa: BLE001
        comment = ""
    return grade.manual_score, grade.auto_score, comment


def graded_row(row: dict, problem, gb) -> dict:
    """A written answer's row with its hand grade, pending, or not submitted."""
    row = {**row, "problem": problem.pid, "title": problem.title,
           "max_score": problem.points}
    if str(row["feedback"]).startswith(NOT_GRADED):
        return {**row, "score": 0.0}  # the notebook could not be graded: its reason stays
    manual, auto, comment = _hand_grade(gb, problem, row["student"])
    if manual is not None:
        text = "graded by hand" + (f": {comment}" if comment else "")
        return {**row, "score": float(manual), "feedback": text}
    if auto == 0:
        return {**row, "score": 0.0, "feedback": NO_ANSWER}
    return {**row, "score": 0.0,
            "feedback": f"{PENDING}written answer, not graded by hand yet (counts 0 until then)"}


def apply(rows: list[dict], course: Path = HERE) -> list[dict]:
    """``rows`` with each written answer's row as its problem's (see :func:`graded_row`), in
    the problems' order."""
    written = _written()
    ours = {(p.chapter, p.answer_id) for p in written.values()} | {
        (p.chapter, p.pid) for p in written.values()}
    if not any((r["assignment"], r["problem"]) in ours for r in rows):
        return rows
    from nbgrader.api import Gradebook

    by_pid = {(p.chapter, p.pid): p for p in written.values()}
    out = []
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for row in rows:
            key = (row["assignment"], row["problem"])
            problem = written.get(key) or by_pid.get(key)
            out.append(graded_row(row, problem, gb) if problem is not None else row)
    order = {(p.chapter, p.pid): i for i, p in enumerate(load_problems())}
    return sorted(out, key=lambda r: (r["student"], order.get((r["assignment"], r["problem"]),
                                                               -1)))


def answer_text(course: Path, student: str, problem) -> str:
    """The student's answer, from the notebook ``make grade`` autograded."""
    return cell_text(course / "autograded" / student / problem.chapter
                     / f"{problem.chapter}.ipynb", problem)


def cell_text(path: Path, problem) -> str:
    """The text of ``problem``'s answer cell in the notebook ``path`` ("" if there is none)."""
    try:
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    except (OSError, ValueError, KeyError):
        return ""
    for cell in cells:
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == problem.answer_id:
            source = cell.get("source", "")
            return "".join(source) if isinstance(source, list) else source
    return ""


def answers_path(out: Path) -> Path:
    return out.with_name(f"{out.stem}-written.csv")


def write_answers(rows: list[dict], out: Path, course: Path = HERE) -> Path:
    """``grades-written.csv``: every written answer of ``rows`` to grade, with its text."""
    problems = {(p.chapter, p.pid): p for p in load_problems() if p.written}
    path = answers_path(out)
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=ANSWER_FIELDS)
        writer.writeheader()
        for row in rows:
            problem = problems.get((row["assignment"], row["problem"]))
            if problem is None or str(row["feedback"]).startswith(NOT_GRADED):
                continue
            text = str(row["feedback"])
            graded = text.startswith("graded by hand")  # else pending, or no answer
            writer.writerow({
                "student": row["student"], "assignment": row["assignment"],
                "problem": row["problem"], "title": problem.title,
                "max_score": f"{problem.points:g}",
                "score": f"{float(row['score']):g}" if graded else "",
                "comment": (text.removeprefix("graded by hand").removeprefix(": ") if graded
                            else text if text == NO_ANSWER else ""),
                "answer": answer_text(course, row["student"], problem)})
    return path


def store(answers: Path, course: Path = HERE) -> int:
    """Copy the scores and comments filled in ``answers`` into the gradebook; how many."""
    from nbgrader.api import Gradebook

    problems = {(p.chapter, p.pid): p for p in load_problems() if p.written}
    stored = 0
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for line, row in enumerate(read_rows(answers), 2):
            if not str(row.get("score", "")).strip():
                continue
            problem = problems.get((row["assignment"], row["problem"]))
            if problem is None:
                raise SystemExit(f"{answers}:{line}: {row['assignment']}/{row['problem']} is "
                                 "not a written answer of the course")
            try:
                score = float(row["score"])
            except ValueError:
                raise SystemExit(f"{answers}:{line}: score {row['score']!r} is not a number")
            if not 0 <= score <= problem.points:
                raise SystemExit(f"{answers}:{line}: score {score:g} is not between 0 and "
                                 f"{problem.points:g}")
            try:
                grade = gb.find_grade(problem.answer_id, problem.chapter, problem.chapter,
                                      row["student"])
            except Exception:  # noqa: BLE001  (nbgrader's MissingEntry)
                raise SystemExit(f"{answers}:{line}: the gradebook has no graded submission "
                                 f"of {problem.chapter} by {row['student']!r}") from None
            grade.manual_score = score
            grade.needs_manual_grade = False
            comment = gb.find_comment(problem.answer_id, problem.chapter, problem.chapter,
                                      row["student"])
            comment.manual_comment = row.get("comment", "").strip() or None
            stored += 1
        gb.db.commit()
    return stored


def refresh(grades: Path, course: Path = HERE) -> list[dict]:
    """Rewrite ``grades`` (the per-problem CSV) with the hand grades the gradebook holds now."""
    rows = apply(read_rows(grades), course)
    with grades.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=FIELDS)
        writer.writeheader()
        for row in rows:
            writer.writerow({k: (f"{float(row[k]):g}" if k in ("score", "max_score")
                                 else row[k]) for k in FIELDS})
    return rows


def publish(rows: list[dict], out: Path, course: Path = HERE) -> list[str]:
    """Everything ``make grade`` writes beside the per-problem CSV ``out``: the LMS exports,
    the written answers to grade and the feedback. Returns lines to print."""
    paths = write_exports(rows, out)
    answers = write_answers(rows, out, course)
    folder = feedback_folder(out)
    pages = write_feedback(rows, folder)
    pending = sum(str(r["feedback"]).startswith(PENDING) for r in rows)
    lines = [f"LMS exports: {paths['canvas']} (Canvas), {paths['moodle']} (Moodle)",
             f"feedback: {len(pages)} pages in {folder}/<student>/<chapter>.html"]
    if pending:
        lines.append(f"{pending} written answers wait for a hand grade (empty in the exports): "
                     f"grade them in nbgrader's formgrader, or fill in {answers} and run "
                     "make grade-written")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="store hand grades, rewrite the grades")
    parser.add_argument("--grades", type=Path, default=Path("grades.csv"))
    parser.add_argument("--answers", type=Path, help="grades-written.csv, filled in")
    parser.add_argument("--course", type=Path, default=HERE)
    args = parser.parse_args(argv)
    if not args.grades.exists():
        parser.error(f"{args.grades} does not exist: run make grade first")
    if args.answers is not None:
        print(f"{store(args.answers, args.course)} hand grades stored in "
              f"{args.course / 'gradebook.db'}")
    rows = refresh(args.grades, args.course)
    for line in publish(rows, args.grades, args.course):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""``make grade SUBMISSIONS=<dir> [GRADES=grades.csv]``: autograde with nbgrader, one CSV.

``<dir>`` holds one folder per student, named by the student's id, with each submitted notebook
either in nbgrader's layout (``<student>/<chapter>/<chapter>.ipynb``) or directly
(``<student>/<chapter>.ipynb``). The assignments must have been generated first (``make
assignments``, same variant): the gradebook knows their cells and points.

Each notebook is copied into the course directory's ``submitted/`` (which, with
``autograded/``, is emptied first: it holds one batch; ``SUBMISSIONS=assignments/submitted``
grades what nbgrader collected there, in place) and nbgrader's ``autograde`` runs it: it restores every locked and test cell from the gradebook (a student cannot edit a
test) and overwrites every other file with the source's (``dpgrader.py`` included). Then one
CSV row per student, assignment and problem: the score, the points, and the feedback, in words
(the message of each failed test cell).
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import shutil
import sys
from pathlib import Path

from build import nbgrader
from problems import HERE, load_problems

FIELDS = ("student", "assignment", "problem", "title", "score", "max_score", "feedback")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_STUDENT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


def find_submissions(folder: Path, chapters: list[str]) -> dict[tuple[str, str], Path]:
    """(student, chapter) -> submitted notebook."""
    found = {}
    for student in sorted(p for p in folder.iterdir() if p.is_dir()):
        if not _STUDENT.match(student.name):
            raise SystemExit(f"{student}: a student id may hold letters, digits, '_', '.', '-'")
        for chapter in chapters:
            for path in (student / chapter / f"{chapter}.ipynb", student / f"{chapter}.ipynb"):
                if path.exists():
                    found[(student.name, chapter)] = path
                    break
    return found


def _feedback(cell: dict) -> str:
    messages = []
    for out in cell.get("outputs", []):
        if out.get("output_type") == "error":
            if out["ename"] == "CellTimeoutError":
                messages.append("the cell ran longer than nbgrader's time limit and was stopped")
            elif out["ename"] == "KeyboardInterrupt":
                messages.append("the cell was stopped after nbgrader's time limit")
            else:
                messages.append(_ANSI.sub("", f"{out['ename']}: {out['evalue']}").strip())
    return "; ".join(messages)


def grade(submissions: Path, out: Path, course: Path = HERE) -> list[dict]:
    if not (course / "gradebook.db").exists() or not (course / "source").is_dir():
        raise SystemExit(f"{course} has no gradebook: run `make assignments` first")
    chapters = sorted(p.name for p in (course / "source").iterdir() if p.is_dir())
    found = find_submissions(submissions, chapters)
    if not found:
        raise SystemExit(f"no submitted notebook under {submissions} (expected "
                         f"<student>/<chapter>/<chapter>.ipynb for a chapter of {chapters})")
    if submissions.resolve() != (course / "submitted").resolve():
        # make grade owns submitted/ and autograded/: they hold this batch only
        for stage in ("submitted", "autograded"):
            shutil.rmtree(course / stage, ignore_errors=True)
        for (student, chapter), path in found.items():
            target = course / "submitted" / student / chapter
            target.mkdir(parents=True)
            shutil.copy(path, target / f"{chapter}.ipynb")
    for chapter in sorted({c for _, c in found}):
        nbgrader(course, "autograde", chapter, "--force")

    from nbgrader.api import Gradebook

    titles = {(p.chapter, p.pid): p.title for p in load_problems()}
    rows = []
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for (student, chapter) in sorted(found):
            graded = course / "autograded" / student / chapter / f"{chapter}.ipynb"
            cells = ({c["metadata"].get("nbgrader", {}).get("grade_id"): c for c in
                      json.loads(graded.read_text("utf-8"))["cells"]} if graded.exists()
                     else {})
            notebook = gb.find_submission_notebook(chapter, chapter, student)
            problems: dict[str, dict] = {}
            for g in sorted(notebook.grades, key=lambda g: g.cell.name):
                pid = g.cell.name.rsplit("-test-", 1)[0]
                row = problems.setdefault(pid, {
                    "student": student, "assignment": chapter, "problem": pid,
                    "title": titles.get((chapter, pid), ""), "score": 0.0, "max_score": 0.0,
                    "feedback": []})
                row["score"] += g.score or 0.0
                row["max_score"] += g.max_score
                for name in (f"{pid}-solution", g.cell.name):
                    text = _feedback(cells.get(name, {}))
                    if text and text not in row["feedback"]:
                        row["feedback"].append(text)
            order = [c.get("metadata", {}).get("nbgrader", {}).get("grade_id") for c in
                     cells.values()]
            for pid, row in sorted(problems.items(), key=lambda kv: order.index(
                    f"{kv[0]}-solution") if f"{kv[0]}-solution" in order else 0):
                row["feedback"] = ("all tests passed" if row["score"] == row["max_score"]
                                   else "; ".join(row["feedback"]) or "a test failed")
                rows.append(row)
    with out.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=FIELDS)
        writer.writeheader()
        for row in rows:
            writer.writerow({**row, "score": f"{row['score']:g}",
                             "max_score": f"{row['max_score']:g}"})
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("submissions", type=Path)
    parser.add_argument("--out", type=Path, default=Path("grades.csv"))
    parser.add_argument("--course", type=Path, default=HERE)
    args = parser.parse_args(argv)
    if not args.submissions.is_dir():
        parser.error(f"SUBMISSIONS={args.submissions} is not a folder")
    rows = grade(args.submissions, args.out, args.course)
    students = len({r["student"] for r in rows})
    print(f"{len(rows)} problem grades for {students} students -> {args.out}")


if __name__ == "__main__":
    sys.exit(main())

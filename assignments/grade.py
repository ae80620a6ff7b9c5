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

**A batch never aborts.** A notebook that cannot be graded (an empty file, invalid JSON, not a
notebook, a kernel that dies, a notebook nbgrader fails on) scores 0 on every problem of its
chapter, with the reason in its feedback, and the rest of the batch is graded. A file that is
not ``<chapter>.ipynb`` for a chapter of the course (``laplace-mechanism (1).ipynb``) and a
folder whose name is not a valid student id are reported by name, never dropped silently.
The CSV is always written; the exit status is 1 if anything could not be graded or was
reported, else 0.

**Student ids** (``STUDENT_ID_RULE``): letters, digits and ``_ . - @ +``, starting with a letter
or a digit (``jane.doe@uni.edu`` is one). nbgrader uses the id as a folder name.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import shutil
import sys
from pathlib import Path

import written
from build import nbgrader
from problems import HERE, load_problems

FIELDS = ("student", "assignment", "problem", "title", "score", "max_score", "feedback")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_STUDENT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@+-]*$")
STUDENT_ID_RULE = ("a student id holds letters, digits and '_', '.', '-', '@', '+', and starts "
                   "with a letter or a digit")


def find_submissions(folder: Path, chapters: list[str]
                     ) -> tuple[dict[tuple[str, str], Path], list[str]]:
    """(student, chapter) -> submitted notebook, and what could not be taken, by name.

    A student's folder may hold ``<chapter>.ipynb`` or ``<chapter>/<chapter>.ipynb``; any other
    notebook in it, a folder with an invalid id and a loose file are reported, not graded.
    """
    found, reported = {}, []
    for entry in sorted(folder.iterdir()):
        if not entry.is_dir():
            reported.append(f"{entry.name}: a file beside the student folders (expected one "
                            "folder per student), not graded")
            continue
        if not _STUDENT.match(entry.name):
            reported.append(f"{entry.name}: not a valid student id ({STUDENT_ID_RULE}), "
                            "not graded")
            continue
        taken = set()
        for chapter in chapters:
            for path in (entry / chapter / f"{chapter}.ipynb", entry / f"{chapter}.ipynb"):
                if path.exists():
                    found[(entry.name, chapter)] = path
                    taken.add(path)
                    break
        for path in sorted(entry.rglob("*.ipynb")):
            if path not in taken and ".ipynb_checkpoints" not in path.parts:
                reported.append(f"{entry.name}/{path.relative_to(entry).as_posix()}: not "
                                f"<chapter>.ipynb for a chapter of {chapters}, not graded")
    return found, reported


def unreadable(path: Path) -> str | None:
    """Why ``path`` is not a notebook nbgrader can run, or ``None``."""
    import nbformat

    if path.stat().st_size == 0:
        return "the file is empty (0 bytes)"
    try:
        nb = nbformat.read(path, as_version=4)
    except Exception as error:  # noqa: BLE001  (any reason nbformat gives is the reason)
        return f"not a readable notebook ({type(error).__name__}: {str(error)[:120]})"
    if not any(c.get("cell_type") == "code" for c in nb.get("cells", [])):
        return "the notebook has no code cell"
    return None


def _gradebook_problems(gb, chapter: str) -> dict[str, float]:
    """Each problem of ``chapter``'s assignment with its points, from the gradebook."""
    points: dict[str, float] = {}
    for notebook in gb.find_assignment(chapter).notebooks:
        for cell in notebook.grade_cells:
            pid = cell.name.rsplit("-test-", 1)[0]
            points[pid] = points.get(pid, 0.0) + cell.max_score
    return points


def _nbgrader_reason(log: str, student: str, chapter: str) -> str:
    """nbgrader's own words about one submission (its error lines naming it), if any."""
    lines = [_ANSI.sub("", line).strip() for line in log.splitlines()
             if f"/{student}/{chapter}" in line or "Error" in line and student in line]
    return "; ".join(dict.fromkeys(lines))[:300]


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


def grade(submissions: Path, out: Path, course: Path = HERE
          ) -> tuple[list[dict], list[str]]:
    """Grade every notebook of ``submissions`` into the CSV ``out``.

    Returns the rows and the problems of the batch (notebooks that could not be graded, files
    and folders reported by name); the CSV is written in every case.
    """
    if not (course / "gradebook.db").exists() or not (course / "source").is_dir():
        raise SystemExit(f"{course} has no gradebook: run `make assignments` first")
    chapters = sorted(p.name for p in (course / "source").iterdir() if p.is_dir())
    found, reported = find_submissions(submissions, chapters)
    if not found and not reported:
        raise SystemExit(f"no submitted notebook under {submissions} (expected "
                         f"<student>/<chapter>/<chapter>.ipynb for a chapter of {chapters})")
    failed: dict[tuple[str, str], str] = {}
    for key, path in found.items():
        reason = unreadable(path)
        if reason is not None:
            failed[key] = reason
    runnable = {key: path for key, path in found.items() if key not in failed}
    if submissions.resolve() != (course / "submitted").resolve():
        # make grade owns submitted/ and autograded/: they hold this batch only
        for stage in ("submitted", "autograded"):
            shutil.rmtree(course / stage, ignore_errors=True)
        for (student, chapter), path in runnable.items():
            target = course / "submitted" / student / chapter
            target.mkdir(parents=True)
            shutil.copy(path, target / f"{chapter}.ipynb")
    for chapter in sorted({c for _, c in runnable}):
        # one notebook nbgrader cannot grade (a dead kernel) must not stop the others: nbgrader
        # grades each submission and reports the failures at the end; they are read below
        result = nbgrader(course, "autograde", chapter, "--force", check=False)
        for (student, chap) in runnable:
            graded = course / "autograded" / student / chap / f"{chap}.ipynb"
            if chap == chapter and not graded.exists():
                why = _nbgrader_reason(result.stdout + result.stderr, student, chapter)
                failed[(student, chap)] = ("nbgrader could not grade the notebook (a kernel "
                                           "that died, or a notebook it cannot run)"
                                           + (f": {why}" if why else ""))

    from nbgrader.api import Gradebook

    titles = {(p.chapter, p.pid): p.title for p in load_problems()}
    rows = []
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for (student, chapter) in sorted(found):
            if (student, chapter) in failed:
                reason = f"not graded: {failed[(student, chapter)]}"
                rows += [{"student": student, "assignment": chapter, "problem": pid,
                          "title": titles.get((chapter, pid), ""), "score": 0.0,
                          "max_score": points, "feedback": reason}
                         for pid, points in _gradebook_problems(gb, chapter).items()]
                continue
            rows += _graded_rows(gb, course, student, chapter, titles)
    rows = written.apply(rows, course)  # written answers: hand grades, or pending
    with out.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=FIELDS)
        writer.writeheader()
        for row in rows:
            writer.writerow({**row, "score": f"{row['score']:g}",
                             "max_score": f"{row['max_score']:g}"})
    for line in written.publish(rows, out, course):  # LMS exports, feedback (#41)
        print(line)
    problems = reported + [f"{student}/{chapter}: not graded: {why}"
                           for (student, chapter), why in sorted(failed.items())]
    return rows, problems


def _graded_rows(gb, course: Path, student: str, chapter: str,
                 titles: dict[tuple[str, str], str]) -> list[dict]:
    """One row per problem of a notebook nbgrader graded, with its feedback in words."""
    graded = course / "autograded" / student / chapter / f"{chapter}.ipynb"
    cells = {c["metadata"].get("nbgrader", {}).get("grade_id"): c for c in
             json.loads(graded.read_text("utf-8"))["cells"]}
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
    order = [c.get("metadata", {}).get("nbgrader", {}).get("grade_id") for c in cells.values()]
    rows = []
    for pid, row in sorted(problems.items(), key=lambda kv: order.index(
            f"{kv[0]}-solution") if f"{kv[0]}-solution" in order else 0):
        row["feedback"] = ("all tests passed" if row["score"] == row["max_score"]
                           else "; ".join(row["feedback"]) or "a test failed")
        rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("submissions", type=Path)
    parser.add_argument("--out", type=Path, default=Path("grades.csv"))
    parser.add_argument("--course", type=Path, default=HERE)
    args = parser.parse_args(argv)
    if not args.submissions.is_dir():
        parser.error(f"SUBMISSIONS={args.submissions} is not a folder")
    rows, problems = grade(args.submissions, args.out, args.course)
    students = len({r["student"] for r in rows})
    print(f"{len(rows)} problem grades for {students} students -> {args.out}")
    for problem in problems:
        print(f"  {problem}")
    if problems:
        print(f"{len(problems)} submissions or files could not be graded (listed above; the "
              "CSV gives 0 to a notebook that could not be graded)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

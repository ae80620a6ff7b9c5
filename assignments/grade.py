"""``make grade SUBMISSIONS=<dir> [GRADES=grades.csv]``: grade submitted notebooks, one CSV.

``<dir>`` holds one folder per student, named by the student's id, with each submitted notebook
either in nbgrader's layout (``<student>/<chapter>/<chapter>.ipynb``) or directly
(``<student>/<chapter>.ipynb``). The assignments must have been generated first (``make
assignments``, same variant): the gradebook knows their cells and points.

Each notebook is copied into the course directory's ``submitted/`` (which, with
``autograded/``, is emptied first: it holds one batch; ``SUBMISSIONS=assignments/submitted``
grades what nbgrader collected there, in place). The notebook is not run: of each problem, the
code of its solution cell (``<problem>-solution``, the only cell a student writes) is graded in
a process of its own against the instructor's problem file, with constants and data drawn for
this student and problem, and killed after a time limit (:mod:`isolate`). The scores go into
nbgrader's gradebook (each test cell's automatic score, as ``nbgrader autograde`` records
them) and ``autograded/``, and one CSV row per student, assignment and problem: the score, the
points, and the feedback, in words (the message of each failed test).

**A batch never aborts.** A notebook that cannot be graded (an empty file, invalid JSON, not a
notebook) scores 0 on every problem of its chapter, with the reason in its feedback; code that
kills its process, loops forever or swallows every exception scores 0 on its own problem
only, with the reason; the rest of the batch is graded. A file that is
not ``<chapter>.ipynb`` for a chapter of the course (``laplace-mechanism (1).ipynb``) and a
folder whose name is not a valid student id are reported by name, never dropped silently.
The CSV is always written; the exit status is 1 if anything could not be graded, was
reported or tampered with the checks (listed by name), else 0.

**Student ids** (``STUDENT_ID_RULE``): letters, digits and ``_ . - @ +``, starting with a letter
or a digit (``jane.doe@uni.edu`` is one). nbgrader uses the id as a folder name.
"""

from __future__ import annotations

import argparse
import csv
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import isolate
import written
from exports import FIELDS
from problems import HERE, load_problems

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


def grade(submissions: Path, out: Path, course: Path = HERE, seconds: float | None = None
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
    else:
        shutil.rmtree(course / "autograded", ignore_errors=True)

    variant = _variant(course)
    by_chapter = {chapter: load_problems([chapter]) for chapter in {c for _, c in found}}
    # a written answer is graded by hand (written.py), never run: only code problems here
    coded = {chapter: [p for p in problems if not p.written]
             for chapter, problems in by_chapter.items()}
    rows, results = [], {}
    for (student, chapter), path in sorted(runnable.items()):
        try:
            results[(student, chapter)] = grade_notebook(
                path, student, chapter, coded[chapter], variant, course,
                isolate.PROBLEM_SECONDS if seconds is None else seconds)
        except Exception as error:  # noqa: BLE001  (one notebook must not stop the batch)
            failed[(student, chapter)] = (f"its cells could not be read ({type(error).__name__}:"
                                          f" {str(error)[:120]})")
    tampered = [f"{student}/{chapter}: {result.pid}: tampering: {result.tampering}"
                for (student, chapter), items in sorted(results.items())
                for result in items if result.tampering]
    for (student, chapter) in sorted(found):
        problems = by_chapter[chapter]
        if (student, chapter) in failed:
            reason = f"not graded: {failed[(student, chapter)]}"
            rows += [{"student": student, "assignment": chapter, "problem": p.pid,
                      "title": p.title, "score": 0.0, "max_score": p.points,
                      "feedback": reason} for p in problems]
            continue
        graded = dict(zip((p.pid for p in coded[chapter]), results[(student, chapter)]))
        for problem in problems:
            if problem.written:  # its hand grade, or pending: written.apply below
                rows.append({"student": student, "assignment": chapter, "problem": problem.pid,
                             "title": problem.title, "score": 0.0,
                             "max_score": problem.points, "feedback": ""})
                continue
            result = graded[problem.pid]
            full = result.score == result.points
            rows.append({"student": student, "assignment": chapter, "problem": problem.pid,
                         "title": problem.title, "score": result.score,
                         "max_score": result.points,
                         "feedback": "all tests passed" if full else
                         "; ".join(dict.fromkeys(result.feedback)) or "a test failed"})
    problems = reported + [f"{student}/{chapter}: not graded: {why}"
                           for (student, chapter), why in sorted(failed.items())] + tampered
    try:
        _record(course, results, {key: by_chapter[key[1]] for key in results})
    except Exception as error:  # noqa: BLE001  (the CSV is written; say why the gradebook is not)
        problems.append(f"the gradebook {course / 'gradebook.db'} was not updated "
                        f"({type(error).__name__}: {error}); the CSV holds the grades")
    rows = written.apply(rows, course)  # written answers: hand grades, or pending
    with out.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=FIELDS)
        writer.writeheader()
        for row in rows:
            writer.writerow({**row, "score": f"{row['score']:g}",
                             "max_score": f"{row['max_score']:g}"})
    for line in written.publish(rows, out, course):  # LMS exports, feedback (#41)
        print(line)
    return rows, problems


def _variant(course: Path) -> int:
    """The variant ``make assignments`` built (``variant.txt``), 0 if it wrote none."""
    path = course / "variant.txt"
    return int(path.read_text(encoding="utf-8").strip() or 0) if path.exists() else 0


def solution_cells(nb: dict) -> dict[str, str]:
    """``<problem>-solution`` -> the code of that cell: the only code of a submission that is
    graded (any other cell, and the notebook's outputs, are ignored)."""
    out = {}
    for cell in nb.get("cells", []):
        gid = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id", "")
        if cell.get("cell_type") == "code" and gid.endswith("-solution"):
            source = cell.get("source", "")
            out[gid] = "".join(source) if isinstance(source, list) else str(source)
    return out


def grade_notebook(path: Path, student: str, chapter: str, problems: list, variant: int,
                   course: Path, seconds: float) -> list:
    """Every problem of one submitted notebook, each in a process of its own
    (:func:`isolate.grade_isolated`), with constants drawn for this student."""
    import nbformat

    nb = nbformat.read(path, as_version=4)
    cells = solution_cells(nb)
    where = course / "source" / chapter
    out = []
    for problem in problems:
        code = cells.get(f"{problem.pid}-solution")
        if code is None:
            zeros = [(f"{problem.pid}-test-{i}", 0.0, b.points, "")
                     for i, b in enumerate(problem.of("test"), 1)]
            out.append(isolate.Result(problem.pid, problem.points, zeros, reason=(
                f"the notebook has no cell {problem.pid}-solution (deleted, or its nbgrader "
                "metadata lost?), so the problem was not graded")))
            continue
        seed = isolate.grading_seed(variant, student, chapter, problem.pid)
        out.append(isolate.grade_isolated(problem, code, problem.constants(variant, draw=seed),
                                          seconds=seconds, cwd=where if where.is_dir() else None))
    _write_autograded(course, student, chapter, nb, out)
    return out


def _write_autograded(course: Path, student: str, chapter: str, nb: Any, results: list) -> None:
    """``autograded/<student>/<chapter>/<chapter>.ipynb``, for nbgrader's own tools: the
    submission with the release's test cells, each showing its failure (none if it passed)."""
    import nbformat

    release = course / "release" / chapter / f"{chapter}.ipynb"
    shown = {}
    if release.exists():
        shown = {c.metadata.get("nbgrader", {}).get("grade_id"): c.source
                 for c in nbformat.read(release, as_version=4).cells}
    messages = {}
    for result in results:
        general = result.feedback[:1] if (result.tampering or result.reason) else []
        for index, (gid, score, points, text) in enumerate(result.tests):
            said = (general if index == 0 else []) + ([text] if score < points and text else [])
            messages[gid] = said or (["a test failed"] if score < points else [])
    for cell in nb.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id")
        if gid in messages:
            if gid in shown:
                cell.source = shown[gid]
            cell.outputs = [nbformat.v4.new_output(
                "error", ename="CheckFailed", evalue=text, traceback=[text])
                for text in messages[gid]]
    target = course / "autograded" / student / chapter
    target.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, target / f"{chapter}.ipynb")


def _record(course: Path, results: dict, problems: dict | None = None) -> None:
    """The scores into nbgrader's gradebook (one submission per student and chapter, each test
    cell's automatic score), as nbgrader's ``autograde`` would record them; a written answer
    left as the release gave it scores 0 automatically, any other waits for its hand grade."""
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for (student, chapter), items in sorted(results.items()):
            gb.update_or_create_student(student)
            try:
                gb.find_submission(chapter, student)
            except MissingEntry:
                gb.add_submission(chapter, student)
            for result in items:
                for gid, score, _points, _text in result.tests:
                    try:
                        grade = gb.find_grade(gid, chapter, chapter, student)
                    except MissingEntry:
                        continue  # a cell the gradebook does not know: built from older files
                    grade.auto_score = score
            for problem in (problems or {}).get((student, chapter), []):
                if not problem.written:
                    continue
                try:
                    grade = gb.find_grade(problem.answer_id, chapter, chapter, student)
                except MissingEntry:
                    continue
                if grade.manual_score is None:
                    untouched = (written.answer_text(course, student, problem).strip()
                                 == _release_answer(course, problem).strip())
                    grade.auto_score = 0.0 if untouched else None
            gb.db.commit()


def _release_answer(course: Path, problem: Any) -> str:
    """The text the release gave a written answer's cell (nbgrader's placeholder)."""
    return written.cell_text(course / "release" / problem.chapter / f"{problem.chapter}.ipynb",
                             problem)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("submissions", type=Path)
    parser.add_argument("--out", type=Path, default=Path("grades.csv"))
    parser.add_argument("--course", type=Path, default=HERE)
    parser.add_argument("--time-limit", type=float, default=isolate.PROBLEM_SECONDS,
                        help="seconds for one problem of one notebook (default %(default)g)")
    args = parser.parse_args(argv)
    if not args.submissions.is_dir():
        parser.error(f"SUBMISSIONS={args.submissions} is not a folder")
    rows, problems = grade(args.submissions, args.out, args.course, args.time_limit)
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

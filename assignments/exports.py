"""Gradebook exports an LMS imports: one row per student, one column per assignment.

``make grade`` writes them beside the per-problem CSV (``grades.csv``), from its rows:

* ``grades-canvas.csv``, Canvas's gradebook import format: the columns ``Student``, ``ID``,
  ``SIS User ID``, ``SIS Login ID`` and ``Section``, then one column per assignment, and a
  second row ``Points Possible`` with each column's points. Canvas matches a row to a student
  by one of its id columns: the student id goes in ``SIS Login ID`` (``--canvas-id "SIS User
  ID"`` puts it there instead) and in ``Student``; ``ID`` (Canvas's own number) and
  ``Section`` stay empty.
* ``grades-moodle.csv``, for Moodle's grade import ("Import" > "CSV file"): a column
  ``Student id`` that the import's "Identify user by" maps ("Map from" ``Student id``, "Map
  to" the user field the ids are: ID number, email address or username), then one column per
  assignment, mapped to a grade item or "new grade item". No points row (Moodle would read it
  as a student).

The columns: one per chapter graded in the batch (its id, ``laplace-mechanism``), with the
autograded problems' points, and, for a chapter with written answers, a second column
``<chapter> (written)`` with their points once graded by hand. A student of the batch who
submitted no notebook for a chapter gets 0 in its columns; a written answer not yet graded by
hand leaves its cell empty (both LMSs read an empty cell as "no grade"), so the autograded
column can be imported at once and the written one after grading. Only the chapters of the
batch are columns: importing a batch of one chapter cannot overwrite another chapter's grades.
Students who submitted nothing in the batch have no row, unless ``--roster`` names them (one id
a line): they get 0 everywhere.

``python assignments/exports.py grades.csv [--roster <file>]`` writes them again from a
per-problem CSV.
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

from problems import chapter_order, load_problems

#: The columns of the per-problem CSV that ``make grade`` writes and ``make grade-written``
#: rewrites (``grade.py``, ``written.py``), and that the exports read.
FIELDS = ("student", "assignment", "problem", "title", "score", "max_score", "feedback")
CANVAS_IDS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
CANVAS_ID_COLUMNS = ("SIS Login ID", "SIS User ID")
MOODLE_ID = "Student id"
#: The feedback of a written answer nobody has graded yet starts with this (``written.py``).
PENDING = "pending: "
WRITTEN_SUFFIX = " (written)"


def written_problems() -> set[tuple[str, str]]:
    """(chapter, problem) of every written answer of the course."""
    return {(p.chapter, p.pid) for p in load_problems() if p.written}


def _number(value: float) -> str:
    return f"{value:g}"


def gradebook(rows: list[dict], written: set[tuple[str, str]] | None = None,
              roster: list[str] = ()) -> tuple[list[tuple[str, float]], dict[str, dict]]:
    """The columns (name, points possible) and, per student, each column's value.

    A value is a number, 0 for a chapter the student did not submit, or ``None`` for a written
    answer not yet graded by hand."""
    written = written_problems() if written is None else written
    order = chapter_order()
    points: dict[str, float] = {}
    seen: set[tuple[str, str]] = set()
    for row in rows:  # each (chapter, problem) once: every student's rows carry its points
        key = (row["assignment"], row["problem"])
        column = row["assignment"] + (WRITTEN_SUFFIX if key in written else "")
        points[column] = points.get(column, 0.0) + (0.0 if key in seen else
                                                    float(row["max_score"]))
        seen.add(key)

    def place(column: str) -> tuple:
        chapter = column.removesuffix(WRITTEN_SUFFIX)
        return (order.index(chapter) if chapter in order else len(order), chapter,
                column.endswith(WRITTEN_SUFFIX))

    columns = [(c, points[c]) for c in sorted(points, key=place)]
    students = sorted({r["student"] for r in rows} | set(roster))
    table: dict[str, dict] = {s: {c: 0.0 for c, _ in columns} for s in students}
    for row in rows:
        key = (row["assignment"], row["problem"])
        column = row["assignment"] + (WRITTEN_SUFFIX if key in written else "")
        cell = table[row["student"]]
        if cell[column] is None:
            continue
        if key in written and str(row["feedback"]).startswith(PENDING):
            cell[column] = None  # pending: the whole column waits for the hand grading
        else:
            cell[column] += float(row["score"])
    return columns, table


def write_canvas(path: Path, columns, table, id_column: str = "SIS Login ID") -> None:
    if id_column not in CANVAS_ID_COLUMNS:
        raise ValueError(f"the student id goes in one of {CANVAS_ID_COLUMNS}, not {id_column}")
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow([*CANVAS_IDS, *(c for c, _ in columns)])
        writer.writerow(["Points Possible", "", "", "", "", *(_number(p) for _, p in columns)])
        for student, values in table.items():
            ids = {"Student": student, id_column: student}
            writer.writerow([ids.get(name, "") for name in CANVAS_IDS]
                            + ["" if values[c] is None else _number(values[c])
                               for c, _ in columns])


def write_moodle(path: Path, columns, table) -> None:
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow([MOODLE_ID, *(c for c, _ in columns)])
        for student, values in table.items():
            writer.writerow([student] + ["" if values[c] is None else _number(values[c])
                                         for c, _ in columns])


def export_paths(out: Path) -> dict[str, Path]:
    """The exports' files beside the per-problem CSV ``out`` (``grades.csv`` ->
    ``grades-canvas.csv``, ``grades-moodle.csv``)."""
    return {name: out.with_name(f"{out.stem}-{name}.csv") for name in ("canvas", "moodle")}


def write_exports(rows: list[dict], out: Path, roster: list[str] = (),
                  written: set[tuple[str, str]] | None = None,
                  canvas_id: str = "SIS Login ID") -> dict[str, Path]:
    columns, table = gradebook(rows, written, roster)
    paths = export_paths(out)
    write_canvas(paths["canvas"], columns, table, canvas_id)
    write_moodle(paths["moodle"], columns, table)
    return paths


def read_rows(path: Path) -> list[dict]:
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def read_roster(path: Path | None) -> list[str]:
    if path is None:
        return []
    return [line.strip() for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith("#")]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("grades", type=Path, help="the per-problem CSV make grade wrote")
    parser.add_argument("--roster", type=Path, help="every student's id, one a line")
    parser.add_argument("--canvas-id", default="SIS Login ID", choices=CANVAS_ID_COLUMNS)
    args = parser.parse_args(argv)
    paths = write_exports(read_rows(args.grades), args.grades, read_roster(args.roster),
                          canvas_id=args.canvas_id)
    print(" ".join(str(p) for p in paths.values()))


if __name__ == "__main__":
    main()

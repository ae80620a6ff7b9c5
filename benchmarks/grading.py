"""The grading benchmark (issue #41): ``make grade`` on N synthetic correct submissions.

One chapter's assignment (``CHAPTER`` unless ``--chapter``) is generated into a temporary
nbgrader course directory (``assignments/build.py``), N students each hand in the instructor's
notebook (the reference solutions: every check runs to its end, the slowest case for a correct
class), and ``assignments/grade.py`` grades the batch as ``make grade`` does: each problem of
each notebook in a forked process of its own (``assignments/isolate.py``), nbgrader's gradebook,
the per-problem CSV, the LMS exports and the feedback pages. The generation is not timed; the
grading is, wall clock, once, with the CPU seconds of those processes beside it and the
machine's load average: on a shared machine the wall time says as much about the other jobs as
about the grader.

The issue's target is 80 students in at most ``TARGET_80_S`` seconds. Run at N < 80, the report
also gives the time extrapolated to 80 (linear in N: the notebooks are graded one after the
other) and says that it is an extrapolation; at N >= 80 it gives none.

``python benchmarks/grading.py --students N`` measures and prints, without touching the report;
``make benchmark ARGS="--grading-only --grading-students N"`` writes the ``grading`` entry of
``benchmarks/report.json`` and re-writes ``report.md``; a whole ``make benchmark`` measures it at
``--grading-students`` (default 80).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import io
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ASSIGNMENTS = ROOT / "assignments"
CHAPTER = "laplace-mechanism"
CLASS_SIZE = 80
TARGET_80_S = 360.0


def extrapolate(seconds: float, students: int, to: int = CLASS_SIZE) -> float | None:
    """The time for ``to`` students at the same time per student, or ``None`` when ``students``
    is already at least ``to`` (then the measurement itself answers)."""
    if students <= 0:
        raise ValueError("students must be positive")
    return None if students >= to else seconds / students * to


def measure(students: int, chapter: str = CHAPTER) -> dict:
    if str(ASSIGNMENTS) not in sys.path:
        sys.path.insert(0, str(ASSIGNMENTS))
    import build
    import grade

    work = Path(tempfile.mkdtemp(prefix="bench-grade-"))
    try:
        course = work / "course"
        with contextlib.redirect_stdout(io.StringIO()):
            build.main(["--course", str(course), "--chapters", chapter])
        source = course / "source" / chapter / f"{chapter}.ipynb"
        subs = work / "submissions"
        for i in range(students):
            folder = subs / f"student{i + 1:03d}"
            folder.mkdir(parents=True)
            shutil.copy(source, folder / f"{chapter}.ipynb")
        out = work / "grades.csv"
        load = os.getloadavg()[0]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):
            rows, problems = grade.grade(subs, out, course)
        seconds = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    autograded = [r for r in rows if not str(r["feedback"]).startswith("pending: ")]
    full = sum(r["score"] == r["max_score"] for r in autograded)
    result = {"chapter": chapter, "students": students, "seconds": seconds,
              "per_student_s": seconds / students,
              # CPU seconds of the grading processes (one forked per problem): a busy
              # machine stretches the wall time, not these; and the load average at the start
              "cpu_s": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
              "load_average": load,
              "extrapolated_80_s": extrapolate(seconds, students),
              "full_marks": f"{full} of {len(autograded)} autograded problem grades",
              "batch_problems": len(problems),
              "measured_at": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}
    return result


def markdown(g: dict) -> list[str]:
    lines = ["", "## Grading a class (`make grade`, issue #41)", "",
             f"{g['students']} synthetic correct submissions of `{g['chapter']}` (the reference "
             f"solutions), graded in one batch as `make grade` does (a process per problem, "
             f"gradebook, CSV, exports, feedback), measured {g['measured_at']}: {g['full_marks']} at full marks.", "",
             "| measure | value |", "|---|---|",
             f"| students (N) | {g['students']} |",
             f"| wall time, whole batch | {g['seconds']:.1f} s |",
             f"| per student | {g['per_student_s']:.2f} s |"]
    if "cpu_s" in g:
        lines += [f"| CPU time of the grading processes (one per problem) "
                  f"| {g['cpu_s']:.1f} s |",
                  f"| load average (1 min) when the batch started | {g['load_average']:.1f} |"]
    if g.get("extrapolated_80_s") is not None:
        verdict = "within" if g["extrapolated_80_s"] <= TARGET_80_S else "**over**"
        lines += [f"| 80 students, **extrapolated** from N = {g['students']} (linear in N) | "
                  f"{g['extrapolated_80_s']:.0f} s ({verdict} the target of "
                  f"{TARGET_80_S:.0f} s) |",
                  "", f"Not measured at 80: N = {g['students']} < 80, so the 80-student figure "
                  "is an extrapolation, not a measurement."]
    else:
        verdict = "within" if g["seconds"] <= TARGET_80_S else "**over**"
        lines += ["", f"Measured at N = {g['students']} (no extrapolation): {verdict} the "
                  f"target of {TARGET_80_S:.0f} s for 80 students."]
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=CLASS_SIZE)
    parser.add_argument("--chapter", default=CHAPTER)
    args = parser.parse_args(argv)
    if args.students < 1:
        parser.error("--students must be at least 1")
    print("\n".join(markdown(measure(args.students, args.chapter))))


if __name__ == "__main__":
    main()

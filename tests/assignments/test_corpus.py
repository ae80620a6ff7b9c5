"""The corpus of issue #41 graded in one batch, as ``make grade`` grades a class.

``corpus.py`` writes 31 notebooks of two chapters (laplace-mechanism and composition) and four
files a batch must survive; ``make grade``'s entry point grades them all at once (each problem
in a process of its own, with a time limit of 15 s here), and every score must be the one the
corpus gives, exactly: honest work full marks, each privacy bug what its tests can see,
tampering, hard-coded numbers, ``np.random``, loops and a process that dies 0 on their problem.
A re-grade of two notebooks gives the same rows (the constants are seeded per student and
problem), and two students draw different constants.
"""

from __future__ import annotations

import csv

import pytest

import build
import corpus
import grade
import isolate
from problems import load_problems


SECONDS = 15


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("course")
    build.main(["--course", str(root), "--chapters", corpus.LAP, corpus.COMP])
    subs = root.parent / "corpus"
    corpus.write(root, subs)
    out = root.parent / "grades.csv"
    status, said = _grade(subs, out, root)
    rows = {(r["student"], r["assignment"], r["problem"]): r
            for r in csv.DictReader(out.open(encoding="utf-8"))}
    # the chapters' written answers are graded by hand (test_nbgrader.py): here, code only;
    # no hand grade yet, so each scores 0 for now
    written = {(p.chapter, p.pid) for p in load_problems([corpus.LAP, corpus.COMP])
               if p.written}
    assert all(r["score"] == "0" for k, r in rows.items() if k[1:] in written)
    rows = {k: r for k, r in rows.items() if k[1:] not in written}
    return root, subs, status, said, rows


def _grade(subs, out, root):
    import contextlib
    import io

    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        status = grade.main([str(subs), "--out", str(out), "--course", str(root),
                             "--time-limit", str(SECONDS)])
    return status, text.getvalue()


def test_the_corpus_holds_at_least_30_submissions():
    assert len(corpus.SUBMISSIONS) + len(corpus.SPECIAL) >= 30
    assert len({s.student for s in corpus.SUBMISSIONS}) == len(corpus.SUBMISSIONS)


def test_every_submission_gets_its_expected_score_exactly(graded):
    _root, _subs, status, said, rows = graded
    assert status == 1  # files were reported and tampering was flagged
    expected = {(s.student, s.chapter, pid): score for s in corpus.SUBMISSIONS
                for pid, score in s.expected.items()}
    for student in ("empty", "garbled"):
        for pid in ("clipped-sum", "error-bound"):
            expected[(student, corpus.LAP, pid)] = 0
    wrong = {key: (rows[key]["score"], score, rows[key]["feedback"][:300])
             for key, score in expected.items()
             if key in rows and rows[key]["score"] != f"{score:g}"}
    assert not wrong, wrong
    assert sorted(rows) == sorted(expected)
    for s in corpus.SUBMISSIONS:
        for pid, words in s.says.items():
            assert words in rows[(s.student, s.chapter, pid)]["feedback"], (s.student, pid)
        for pid in s.expected:
            feedback = rows[(s.student, s.chapter, pid)]["feedback"]
            assert "Traceback" not in feedback and 'File "' not in feedback, feedback
            assert (f"{s.student}/{s.chapter}: {pid}: tampering: " in said) is (
                pid in s.flagged), (s.student, pid, said)


def test_what_could_not_be_graded_is_said_by_name(graded):
    _root, _subs, _status, said, rows = graded
    assert rows[("empty", corpus.LAP, "clipped-sum")]["feedback"] == \
        "not graded: the file is empty (0 bytes)"
    assert rows[("garbled", corpus.LAP, "error-bound")]["feedback"].startswith(
        "not graded: not a readable notebook")
    assert f"  honest/{corpus.LAP} (1).ipynb: not <chapter>.ipynb for a chapter" in said
    assert "  jane doe: not a valid student id (a student id holds letters" in said
    limit = rows[("endless", corpus.LAP, "clipped-sum")]["feedback"]
    assert limit.startswith(f"time limit of {SECONDS:g} s: "), limit


def test_a_regrade_gives_the_same_rows_and_students_draw_their_own_constants(graded, tmp_path):
    root, subs, _status, _said, rows = graded
    again = tmp_path / "again"
    for student in ("honest", "one-sided"):
        (again / student).mkdir(parents=True)
        source = next(subs.glob(f"{student}/**/{corpus.LAP}.ipynb"))
        (again / student / f"{corpus.LAP}.ipynb").write_bytes(source.read_bytes())
    status, _ = _grade(again, tmp_path / "again.csv", root)
    assert status == 0
    for row in csv.DictReader((tmp_path / "again.csv").open(encoding="utf-8")):
        key = (row["student"], row["assignment"], row["problem"])
        if key in rows:  # the code problems (a written answer waits for its hand grade)
            assert row == rows[key]
    problem = corpus._problem(corpus.LAP, "clipped-sum")
    draws = {student: problem.constants(0, draw=isolate.grading_seed(0, student, corpus.LAP,
                                                                     "clipped-sum"))
             for student in ("honest", "one-sided", "jane.doe@uni.edu")}
    assert len({tuple(sorted(d.items())) for d in draws.values()}) == 3
    public = problem.constants(0)
    for d in draws.values():  # never the public numbers
        assert all(d[k] != public[k] for k in ("LOWER", "UPPER", "EPSILON")), d

"""The instructors' page (``instructors.md``): every number in its prose is the code's.

The page's problem list is generated from the problem files when the site is built
(``_ext/course_site/assignments.py``; ``tests/site/test_instructors_page.py`` reads it back);
the numbers written in its prose are checked here against the grading library, nbgrader's
configuration and the problems.
"""

from __future__ import annotations

import re
import runpy
from pathlib import Path

import dpgrader
import isolate
import problems as P

ROOT = Path(__file__).resolve().parents[2]


PAGE = (ROOT / "instructors.md").read_text(encoding="utf-8")


class _Config:
    def __getattr__(self, name):
        value = _Section()
        object.__setattr__(self, name, value)
        return value


class _Section:
    pass


def nbgrader_config():
    config = _Config()
    runpy.run_path(str(ROOT / "assignments" / "nbgrader_config.py"),
                   init_globals={"get_config": lambda: config})
    return config


def test_the_numbers_in_the_prose_are_the_codes():
    assert dpgrader.FALSE_FAIL == 1e-6 and "$10^{-6}$" in PAGE
    assert f"stopped after {dpgrader.TIME_LIMIT:g} seconds" in PAGE
    # make grade's limit per problem, and the reason it gives
    assert f"process after {isolate.PROBLEM_SECONDS:g} seconds" in PAGE
    assert f'"time limit of {isolate.PROBLEM_SECONDS:g} s"' in PAGE
    config = nbgrader_config()
    assert config.Execute.interrupt_on_timeout is True
    assert f'course_id = "{config.CourseDirectory.course_id}"' in PAGE


def test_the_example_is_a_real_problem():
    match = re.search(r"`(assignments/problems/[\w/-]+\.md)` is a complete example", PAGE)
    assert match and (ROOT / match.group(1)).exists()
    example = P.load_problem(ROOT / match.group(1))
    assert f"title: {example.title}" in PAGE and f"exercise: {example.meta['exercise']}" in PAGE


def test_the_feedback_quoted_is_what_the_library_says():
    quoted = re.search(r'"(your mechanism\'s output ratio on\s+neighbouring inputs reached '
                       r'[^"]+)"', PAGE).group(1)
    quoted = " ".join(quoted.split())
    import math

    theta = math.exp(1) / (1 + math.exp(1))  # the keep probability used as theta by mistake
    same = theta + (1 - theta) / 2
    try:
        dpgrader.check_pure_dp_exact(lambda b: {b: same, 1 - b: 1 - same}, [(0, 1)], 1.0)
    except dpgrader.CheckFailed as error:
        assert str(error) == quoted
    else:
        raise AssertionError("the quoted failure did not fail")


def test_the_grading_loop_names_the_files_columns_and_words_the_code_writes():
    import exports
    import feedback
    import written

    csv_out = Path("grades.csv")
    paths = exports.export_paths(csv_out)
    for path in (paths["canvas"], paths["moodle"], written.answers_path(csv_out)):
        assert f"`{path.name}`" in PAGE, path.name
    assert feedback.feedback_folder(csv_out) == Path("feedback")
    assert "`feedback/<student>/<chapter>.html`" in PAGE
    canvas = ", ".join(f"`{c}`" for c in exports.CANVAS_IDS)
    assert canvas in " ".join(PAGE.split()) and "`Points Possible`" in PAGE
    assert f"`{exports.MOODLE_ID}`" in PAGE and exports.CANVAS_ID_COLUMNS[0] == "SIS Login ID"
    assert f"`laplace-mechanism{exports.WRITTEN_SUFFIX}`" in PAGE
    assert written.NO_ANSWER.startswith("no answer") and '("no\nanswer")' in PAGE
    class NeverGraded:  # a gradebook that holds no grade: the answer is pending
        def find_grade(self, *args):
            raise KeyError(args)

    problem = next(p for p in P.load_problems() if p.written)
    row = {"student": "s", "assignment": problem.chapter, "problem": problem.answer_id,
           "title": "", "score": 0.0, "max_score": problem.points, "feedback": ""}
    said = written.graded_row(row, problem, NeverGraded())["feedback"]
    quoted = re.search(r'"(pending: [^"]+)"', " ".join(PAGE.split())).group(1)
    assert said.startswith(quoted), (said, quoted)
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    for target in ("assignments", "grade", "grade-written"):
        assert re.search(rf"^{target}: venv-python$", makefile, re.M), target
        assert f"make {target}" in PAGE
    assert "make grade-written WRITTEN=grades-written.csv" in PAGE


def test_the_written_answer_example_is_a_real_written_problem():
    code, words = re.findall(r"`(assignments/problems/[\w/-]+\.md)` is a complete example", PAGE)
    assert not P.load_problem(ROOT / code).written and P.load_problem(ROOT / words).written

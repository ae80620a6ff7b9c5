"""Every problem of the instructor edition, graded as ``make grade`` grades it
(``isolate.run_problem``).

For each problem file in ``assignments/problems/``: the reference solution scores full marks
(in variants 0, 1 and 2), the untouched student release scores 0, every alternative correct
solution scores full marks, and its mutants (wrong solutions) score below full marks, at least
one per problem and at least 95% of all of them. Adding a problem file adds its tests.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

import corpus
import isolate
import problems as P


#: The autograded problems (written answers are graded by hand: test_exports.py checks them).
PROBLEMS = [p for p in P.load_problems() if not p.written]
IDS = [f"{p.chapter}/{p.pid}" for p in PROBLEMS]
#: Mistake kinds issue #26 asks the mutants to cover, and the chapter whose problems must hold
#: one (checked once that chapter has problems).
REQUIRED_KINDS = {"wrong-scale": "laplace-mechanism", "swapped": "laplace-mechanism",
                  "no-clipping": "laplace-mechanism", "wrong-neighbours": "sensitivity",
                  "no-halting": "private-selection", "float-sampler": "dp-in-practice"}


@cache
def outcome(index: int, kind: str, name: str = "", variant: int = 0) -> isolate.Outcome:
    problem = PROBLEMS[index]
    if kind == "reference":
        return isolate.run_problem(problem, variant=variant)
    if kind == "stub":
        return isolate.run_problem(problem, P.student_solution(problem))
    block = next(b for b in problem.of(kind) if b.name == name)
    return isolate.run_problem(problem, block.code)


def test_problems_exist_and_are_named_by_topic():
    assert len(PROBLEMS) >= 14
    for p in PROBLEMS:
        assert p.pid == p.pid.lower() and " " not in p.pid and "_" not in p.pid, p.path
        names = [b.name for b in p.blocks if b.kind in ("mutant", "alternative")]
        assert all(names) and len(names) == len(set(names)), f"{p.path}: unnamed or repeated"


@pytest.mark.parametrize("index", range(len(PROBLEMS)), ids=IDS)
def test_reference_scores_full_marks(index):
    result = outcome(index, "reference")
    assert result.full, f"{IDS[index]}: {result.score}/{result.points}: {result.feedback}"


@pytest.mark.parametrize("variant", [1, 2])
@pytest.mark.parametrize("index", range(len(PROBLEMS)), ids=IDS)
def test_reference_scores_full_marks_in_variants(index, variant):
    problem = PROBLEMS[index]
    if problem.constants(variant) == problem.constants(0):
        assert not problem.meta.get("constants"), f"{IDS[index]}: variant {variant} = variant 0"
    result = outcome(index, "reference", variant=variant)
    assert result.full, f"{IDS[index]} variant {variant}: {result.feedback}"


@pytest.mark.parametrize("index", range(len(PROBLEMS)), ids=IDS)
def test_untouched_release_scores_zero_in_words(index):
    result = outcome(index, "stub")
    assert result.score == 0, f"{IDS[index]}: the stub scored {result.score}"
    assert len(result.feedback) == len(PROBLEMS[index].of("test"))
    assert all("Traceback" not in f for f in result.feedback)


@pytest.mark.parametrize("index", range(len(PROBLEMS)), ids=IDS)
def test_alternative_solutions_score_full_marks(index):
    for block in PROBLEMS[index].of("alternative"):
        result = outcome(index, "alternative", block.name)
        assert result.full, f"{IDS[index]} alternative {block.name}: {result.feedback}"


def _mutants():
    return [(i, b) for i, p in enumerate(PROBLEMS) for b in p.of("mutant")]


@pytest.mark.parametrize("index", range(len(PROBLEMS)), ids=IDS)
def test_every_problem_catches_a_mutant(index):
    caught = [b.name for b in PROBLEMS[index].of("mutant")
              if not outcome(index, "mutant", b.name).full]
    assert caught, f"{IDS[index]}: no mutant scores below full marks"


def test_mutant_catch_rate_is_at_least_95_percent():
    mutants = _mutants()
    missed = [f"{IDS[i]}:{b.name}" for i, b in mutants if outcome(i, "mutant", b.name).full]
    rate = 1 - len(missed) / len(mutants)
    assert rate >= 0.95, f"catch rate {rate:.1%}; missed: {missed}"


def test_the_mistake_kinds_of_the_issue_are_covered():
    chapters = {p.chapter for p in PROBLEMS}
    kinds = {b.catches for p in PROBLEMS for b in p.of("mutant")}
    missing = {k: c for k, c in REQUIRED_KINDS.items() if c in chapters and k not in kinds}
    assert not missing, f"no mutant of these kinds (expected in these chapters): {missing}"


def test_mutant_feedback_is_in_words():
    for i, b in _mutants():
        for text in outcome(i, "mutant", b.name).feedback:
            assert "Traceback" not in text and "File \"" not in text, text


def test_at_least_two_problems_per_chapter_with_problems():
    counts = {}
    for p in PROBLEMS:
        counts[p.chapter] = counts.get(p.chapter, 0) + 1
    assert all(n >= 2 for n in counts.values()), counts


def test_a_solution_cell_that_never_ends_scores_zero_for_its_problem_only():
    # nbgrader interrupts such a cell after its timeout (nbgrader_config.py) and runs on; the
    # in-process grader does the same, here with a 1-second cell limit.
    first, second = PROBLEMS[0], PROBLEMS[1]
    stuck = isolate.run_problem(first, "while True:\n    pass\n", cell_seconds=1)
    assert stuck.score == 0 and all("Traceback" not in f for f in stuck.feedback)
    assert isolate.run_problem(second).full


def test_a_broken_problem_file_is_refused_with_its_name(tmp_path):
    folder = tmp_path / "laplace-mechanism"
    folder.mkdir()
    path = folder / "broken.md"
    path.write_text("---\ntitle: x\norder: 1\nminutes: 5\nconcept: c\nexercise: e\n---\n\n"
                    "```python solution\ndef f():\n    return 1\n```\n\n"
                    "```python test points=1\nassert f() == 1\n```\n", encoding="utf-8")
    with pytest.raises(P.ProblemError, match=r"broken\.md: the solution block needs"):
        P.load_problem(path)
    path.write_text("no front matter", encoding="utf-8")
    with pytest.raises(P.ProblemError, match=r"broken\.md: no YAML front matter"):
        P.load_problem(path)


def test_prompts_refuse_roles_the_build_cannot_resolve():
    with pytest.raises(P.ReaderEditionError, match=r"only \{doc\} roles"):
        P.reader_markdown("See {prf:ref}`thm-laplace`.", "x.md")
    assert P.reader_markdown("See {doc}`/chapters/sensitivity`.", "x.md") == \
        f"See *{P.chapter_title('sensitivity')}*."


# --- plan-cost: replace-one answers between the exact cost and the bound 2·max ---------------

PLAN_COST = next(i for i, p in enumerate(PROBLEMS) if (p.chapter, p.pid) == ("composition",
                                                                              "plan-cost"))

#: A student's tighter, correct answer (each histogram costs its two largest per-bin epsilons,
#: written without sorting), and one halfway between it and the bound 2·max: tests/assignments/
#: corpus.py holds them, for the corpus too.
TIGHTER, HALFWAY = corpus.TIGHTER, corpus.HALFWAY

#: An overspending answer: under replace-one it charges the largest and the smallest epsilon.
OVERSPEND = TIGHTER.replace("total += first + max(rest)", "total += first + min(rest)")


@pytest.mark.parametrize("variant", [0, 1, 2])
@pytest.mark.parametrize("code", [TIGHTER, HALFWAY], ids=["tighter", "halfway"])
def test_plan_cost_gives_full_marks_to_a_tighter_correct_replace_one_cost(code, variant):
    result = isolate.run_problem(PROBLEMS[PLAN_COST], code, variant=variant)
    assert result.full and result.points == 4, result.feedback
    assert not result.feedback


def test_plan_cost_takes_points_from_an_answer_that_would_let_the_analyst_overspend():
    assert OVERSPEND != TIGHTER
    result = isolate.run_problem(PROBLEMS[PLAN_COST], OVERSPEND)
    assert result.score < result.points
    assert any("less than the true cost" in f and "overspend" in f for f in result.feedback), \
        result.feedback


# --- constants drawn at grading time -----------------------------------------------------------

def test_ranges_draw_other_values_than_the_public_one_per_student_and_reproducibly():
    import isolate

    problem = next(p for p in PROBLEMS if (p.chapter, p.pid) == ("laplace-mechanism",
                                                                 "clipped-sum"))
    public = problem.constants(0)
    assert (public["LOWER"], public["UPPER"], public["EPSILON"]) == (10, 80, 1.0)
    draws = [problem.constants(0, draw=isolate.grading_seed(0, f"s{i}", problem.chapter,
                                                            problem.pid)) for i in range(200)]
    for d in draws:
        assert d["LOWER"] != 10 and d["UPPER"] != 80 and d["EPSILON"] != 1.0
        assert d["LOWER"] in range(5, 41, 5) and d["UPPER"] in range(50, 151, 10)
        assert round(d["EPSILON"] * 10) == d["EPSILON"] * 10 and 0.2 <= d["EPSILON"] <= 3.0
    assert len({tuple(sorted(d.items())) for d in draws}) == 200  # the seeds differ at least
    assert len({d["EPSILON"] for d in draws}) == 28  # every value of the grid but the public
    again = problem.constants(0, draw=isolate.grading_seed(0, "s0", problem.chapter,
                                                           problem.pid))
    assert again == draws[0]
    assert isolate.grading_seed(0, "s0", "a", "b") != isolate.grading_seed(1, "s0", "a", "b")


def test_most_constants_are_ranges_and_every_list_says_why():
    """Issue #41: hard-coded answers fail because grading draws each constant afresh. Most are
    ranges of ten values or more; a constant kept as a list (a column, a plan, a pair of
    bounds) says why in a comment on its line."""
    ranges, lists = [], []
    for problem in P.load_problems():
        lines = problem.path.read_text(encoding="utf-8").splitlines()
        for name, spec in (problem.meta.get("constants") or {}).items():
            if isinstance(spec, dict) and "low" in spec:
                ranges.append(len(P._grid(spec, problem.path, name)))
            elif isinstance(spec, list):
                line = next(ln for ln in lines if ln.strip().startswith(f"{name}:"))
                assert re.search(r"\]\s*#\s*\S", line), f"{problem.path}: {name} gives no reason"
                lists.append(name)
    assert len(ranges) >= 4 * len(lists), (len(ranges), len(lists))
    assert sorted(ranges)[len(ranges) // 2] >= 10

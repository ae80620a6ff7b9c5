"""Written answers (``assignments/problems.py``): one per part of the book, each with a rubric
whose points add up to the answer's, turned into nbgrader's "manually graded answer" cell with
the rubric as its solution (which nbgrader's release replaces: ``test_nbgrader.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

import problems as P
from course_site.archive import toc_parts

ROOT = Path(__file__).resolve().parents[2]


def parts() -> dict[str, list[str]]:
    return {caption: [doc.split("/")[-1] for doc in chapters]
            for caption, _, chapters in toc_parts(ROOT) if caption.startswith("Part ")}


def test_every_part_of_the_book_has_a_written_answer_with_a_rubric():
    written = [p for p in P.load_problems() if p.written]
    assert len(parts()) == 6
    for caption, chapters in parts().items():
        here = [p for p in written if p.chapter in chapters]
        assert here, f"{caption}: no written answer"
        for p in here:
            rubric = p.one("rubric").code
            assert p.points == p.one("answer").points > 0 and not p.of("test")
            assert len(P._CRITERION.findall(rubric)) >= 2, p.path


def test_a_written_answer_is_a_manually_graded_cell_with_the_rubric_as_its_solution():
    problem = next(p for p in P.load_problems(["laplace-mechanism"]) if p.written)
    nb = P.chapter_notebook("laplace-mechanism", P.load_problems(["laplace-mechanism"]))
    [cell] = [c for c in nb["cells"]
              if c["metadata"].get("nbgrader", {}).get("grade_id") == problem.answer_id]
    meta = cell["metadata"]["nbgrader"]
    assert cell["cell_type"] == "markdown"
    assert (meta["grade"], meta["solution"], meta["locked"]) == (True, True, False)
    assert meta["points"] == problem.points
    rubric = problem.one("rubric").code.strip()
    source = cell["source"]
    assert source.startswith(P.BEGIN_SOLUTION) and source.endswith(P.END_SOLUTION)
    assert rubric in source
    total = sum(p.points for p in P.load_problems(["laplace-mechanism"]))
    assert f"{total:g} points in all" in nb["cells"][0]["source"]


def test_a_rubric_whose_points_do_not_add_up_is_refused(tmp_path):
    folder = tmp_path / "laplace-mechanism"
    folder.mkdir()
    path = folder / "broken.md"
    path.write_text("---\ntitle: x\norder: 1\nminutes: 5\nconcept: c\nexercise: e\n---\n\n"
                    "Why?\n\n```markdown answer points=3\n```\n\n```markdown rubric\n"
                    "- 1 point: a\n- 1 point: b\n```\n", encoding="utf-8")
    with pytest.raises(P.ProblemError, match=r"add up to 2 points, not the answer's 3"):
        P.load_problem(path)
    path.write_text(path.read_text("utf-8").replace("- 1 point: b", "- 2 points: b"),
                    encoding="utf-8")
    assert P.load_problem(path).points == 3
    path.write_text(path.read_text("utf-8") + "\n```python test points=1\npass\n```\n",
                    encoding="utf-8")
    with pytest.raises(P.ProblemError, match="no python block"):
        P.load_problem(path)

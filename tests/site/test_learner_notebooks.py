"""A learner's path (issue #28), checked on the committed notebooks, without a build.

* Compute visibly, publish invisibly: a code cell that calls ``glue`` is tagged
  ``remove-input`` and does nothing else (each top-level statement is a ``glue(...)`` call, or a
  ``for`` loop of them), so the hidden cell never hides a computation.
* A helper's source is printed at most once in the book, and collapsed: every ``getsource``
  cell is tagged ``hide-output``, and no helper is printed by two cells.
* Each chapter opens with its prerequisites, in the format of the first Markdown cell:
  ``**Prerequisites**`` after the learning objectives, two bullets ("From the course:", naming
  only earlier chapters with ``{doc}`` links, and "From outside:").

``tests/site/test_learner_site.py`` checks the same promises on the built site.
"""

from __future__ import annotations

import ast
import json
import re
from collections import defaultdict
from pathlib import Path

import pytest
from course_site.archive import toc_chapters, toc_sections

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = sorted((ROOT / "chapters").glob("*.ipynb"))
CHECKED = CHAPTERS  # every chapter is on the learner's path


def _cells(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _source(cell: dict) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def _tags(cell: dict) -> set[str]:
    return set(cell.get("metadata", {}).get("tags", []))


def _is_glue_call(node: ast.AST) -> bool:
    return (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Name) and node.value.func.id == "glue")


def _only_publishes(code: str) -> bool:
    """Every top-level statement is a glue call, or a for loop whose body only glues."""
    for statement in ast.parse(code).body:
        if isinstance(statement, ast.For):
            if statement.orelse or not all(_is_glue_call(s) for s in statement.body):
                return False
        elif not _is_glue_call(statement):
            return False
    return True


def glue_problems(cells: list[dict]) -> list[str]:
    """Why each code cell that calls ``glue`` breaks "compute visibly, publish invisibly"."""
    problems = []
    for index, cell in enumerate(cells):
        code = _source(cell)
        if cell["cell_type"] != "code" or not re.search(r"\bglue\(", code):
            continue
        if "remove-input" not in _tags(cell):
            problems.append(f"cell {index} calls glue but is not tagged remove-input")
        elif not _only_publishes(code):
            problems.append(f"cell {index} is tagged remove-input but computes: {code[:120]!r}")
    return problems


@pytest.mark.parametrize("path", CHECKED, ids=lambda p: p.stem)
def test_glue_cells_only_publish_and_are_hidden(path):
    assert glue_problems(_cells(path)) == []


def test_the_glue_check_catches_a_visible_glue_and_a_hidden_computation():
    code = {"cell_type": "code", "metadata": {}, "source": 'x = 1\nglue("x", x, display=False)'}
    hidden = {"cell_type": "code", "metadata": {"tags": ["remove-input"]},
              "source": 'x = 1\nglue("x", x, display=False)'}
    fine = {"cell_type": "code", "metadata": {"tags": ["remove-input"]},
            "source": 'glue("x", x, display=False)\nfor k, v in d.items():\n    glue(k, v)'}
    assert len(glue_problems([code, hidden, fine])) == 2


_GETSOURCE = re.compile(r"getsource\(\s*([\w.]+)\s*\)")


def printed_sources(paths: list[Path]) -> dict[str, list[str]]:
    """Helper name -> the chapters whose cells print its source (one entry per cell)."""
    where: dict[str, list[str]] = defaultdict(list)
    for path in paths:
        for cell in _cells(path):
            if cell["cell_type"] == "code":
                for name in _GETSOURCE.findall(_source(cell)):
                    where[name.split(".")[-1]].append(path.stem)
    return where


@pytest.mark.parametrize("path", CHECKED, ids=lambda p: p.stem)
def test_printed_source_is_collapsed(path):
    for index, cell in enumerate(_cells(path)):
        if cell["cell_type"] == "code" and _GETSOURCE.search(_source(cell)):
            assert "hide-output" in _tags(cell), f"{path.stem} cell {index} prints source openly"


def test_no_helper_source_is_printed_twice_in_the_book():
    twice = {name: chapters for name, chapters in printed_sources(CHECKED).items()
             if len(chapters) > 1}
    assert twice == {}


def test_agreed_placements_of_printed_helpers():
    """make_rng in linkage-attacks; laplace_mechanism in laplace-mechanism and
    differencing_attack_success in its section differencing-attack-under-noise; nowhere else."""
    where = printed_sources(CHECKED)
    for name, chapter in [("make_rng", "linkage-attacks"),
                          ("laplace_mechanism", "laplace-mechanism"),
                          ("differencing_attack_success", "differencing-attack-under-noise")]:
        assert where.get(name, []) in ([chapter], []), (name, where.get(name))


def _toc_order() -> list[str]:
    return [doc.split("/")[-1] for _, doc in toc_chapters(ROOT) if doc.startswith("chapters/")]


def prerequisite_problems(stem: str, first_markdown: str, order: list[str]) -> list[str]:
    """What is wrong with a chapter's prerequisites block (the format of issue #28: bold line, two bullets)."""
    lines = first_markdown.split("\n")
    if "**Prerequisites**" not in lines:
        return ["no **Prerequisites** line in the first Markdown cell"]
    at = lines.index("**Prerequisites**")
    if "**Learning objectives**" not in lines[:at]:
        return ["**Prerequisites** does not follow **Learning objectives**"]
    objectives = lines[lines.index("**Learning objectives**") + 1:at]
    listed = [i for i, line in enumerate(objectives) if line.startswith("- ")]
    if objectives[-1:] != [""] or not listed or any(
            not (line.startswith(("- ", "  ")) or not line.strip())
            for line in objectives[listed[0]:]):
        return ["something other than the objectives' list stands between the two"]
    bullets = [line for line in lines[at + 1:] if line.strip()]
    problems = []
    if len(bullets) < 2 or not bullets[0].startswith("- From the course: ") or not bullets[
            1].startswith("- From outside: "):
        return ["the two bullets must be '- From the course: ...' and '- From outside: ...'"]
    extra = [line for line in bullets[2:] if not line.startswith("  ")]
    if extra and extra[0].startswith("- "):
        problems.append("more than two bullets")
    course = bullets[0]
    earlier = order[:order.index(stem)]
    docs = re.findall(r"\{doc\}`([^`]+)`", course)
    if not docs and course.strip() != "- From the course: none.":
        problems.append("'From the course' names no chapter with {doc} and is not 'none.'")
    for doc in docs:
        target = re.sub(r".*<([^>]+)>", r"\1", doc).split("/")[-1]
        if target not in earlier:
            problems.append(f"{target} is not an earlier chapter")
    return problems


@pytest.mark.parametrize("path", [p for p in CHECKED if p.stem in _toc_order()],
                         ids=lambda p: p.stem)
def test_prerequisites_block(path):
    """A chapter's page opens with its prerequisites; its "Going deeper" section pages (issue 38)
    say in their first paragraph what they assume from the chapter instead."""
    first = next(_source(c) for c in _cells(path) if c["cell_type"] == "markdown")
    assert prerequisite_problems(path.stem, first, _toc_order()) == []


@pytest.mark.parametrize("path", [p for p in CHECKED if p.stem not in _toc_order()],
                         ids=lambda p: p.stem)
def test_a_going_deeper_page_opens_with_what_it_assumes_from_its_chapter(path):
    """A section page has no prerequisites block: its first paragraph names its chapter."""
    family = next([doc, *sections] for doc, sections in toc_sections(ROOT).items()
                  if f"chapters/{path.stem}" in sections)
    first = next(_source(c) for c in _cells(path) if c["cell_type"] == "markdown")
    opening = first.split("\n\n")[1]
    # it names the core (or the page of the same chapter it builds on) and what it takes from it
    named = [page for page in family if f"{{doc}}`{page.split('/')[-1]}`" in opening
             or f"{{doc}}`/{page}`" in opening]
    assert named and re.search(r"\b(assumes|uses|builds on|needs|re-creates)\b", opening), (
        opening)


def test_the_prerequisites_check_catches_a_later_chapter_and_a_missing_block():
    order = ["datasets", "sensitivity", "laplace-mechanism"]
    good = ("# T\n\n**Learning objectives**\n\n- one\n- two\n\n**Prerequisites**\n\n"
            "- From the course: {doc}`datasets` (the table).\n- From outside: none.")
    assert prerequisite_problems("sensitivity", good, order) == []
    later = good.replace("{doc}`datasets`", "{doc}`laplace-mechanism`")
    assert prerequisite_problems("sensitivity", later, order) == [
        "laplace-mechanism is not an earlier chapter"]
    assert prerequisite_problems("sensitivity", "# T\n\n**Learning objectives**\n\n- one",
                                 order) != []

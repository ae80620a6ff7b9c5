"""A learner's path (issue #28), checked on the built site (``make book`` first).

* No code a reader sees on a chapter page calls ``glue``: the cells that publish numbers to the
  prose are tagged ``remove-input``, so the page carries their output (nothing) and not their
  code.
* No helper's source is printed more than once in the book, and a printed source is collapsed:
  a ``def <name>(`` of a ``chapters/dpcourse`` function appears in the outputs of at most one
  cell of the whole site, inside the toggle of a ``hide-output`` cell.
* Each chapter states its reading time right under its title.

``tests/site/test_learner_notebooks.py`` checks the notebooks themselves without a build.
"""

from __future__ import annotations

import ast
import html
import re
from collections import defaultdict
from pathlib import Path

import pytest

from test_learner_notebooks import CHAPTERS, CHECKED

pytestmark = pytest.mark.site

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "_build" / "html"

_CELL = re.compile(r'<div class="cell(?: [^"]*)? docutils container"', re.S)


def _page(stem: str) -> str:
    path = SITE / "chapters" / f"{stem}.html"
    if not path.exists():
        pytest.fail("the site is not built: run `make book` first")
    page = path.read_text(encoding="utf-8")
    return page[page.index('<article class="bd-article">'):page.index("</article>")]


def _cells(article: str) -> list[str]:
    """The HTML of each notebook cell of a page, in order."""
    starts = [m.start() for m in _CELL.finditer(article)] + [len(article)]
    return [article[a:b] for a, b in zip(starts, starts[1:])]


def _text(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


def _inputs(cell: str) -> str:
    return "".join(re.findall(r'<div class="cell_input docutils container">(.*?)</pre>', cell,
                              flags=re.S))


@pytest.mark.parametrize("path", CHECKED, ids=lambda p: p.stem)
def test_no_shown_code_calls_glue(path):
    for cell in _cells(_page(path.stem)):
        code = _text(_inputs(cell))
        assert not re.search(r"\bglue\(", code), (path.stem, code[:300])


def _helper_names() -> set[str]:
    """Every function and method name defined in chapters/dpcourse/."""
    names = set()
    for module in (ROOT / "chapters" / "dpcourse").glob("*.py"):
        for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                names.add(node.name)
    return names


def test_a_helper_source_is_printed_once_at_most_and_collapsed():
    names = _helper_names()
    printed: dict[str, list[str]] = defaultdict(list)
    for path in CHECKED:
        for cell in _cells(_page(path.stem)):
            output = cell.split('<div class="cell_output docutils container">', 1)
            if len(output) < 2:
                continue
            shown = set(re.findall(r"^\s*def (\w+)\(", _text(output[1]), flags=re.M)) & names
            for name in shown:
                printed[name].append(path.stem)
                assert "tag_hide-output" in cell[:200] and "<details" in output[0] + output[1], (
                    f"{path.stem}: the source of {name} is printed open")
    assert {name: where for name, where in printed.items() if len(where) > 1} == {}


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_reading_time_under_the_title(path):
    article = _page(path.stem)
    title = article.index("</h1>")
    line = re.search(r'<p class="reading-time"><em>Reading time: about (\d+) minutes', article)
    assert line and line.start() > title, path.stem
    between = article[title:line.start()]
    assert "<p" not in between, "the reading time is the first paragraph under the title"

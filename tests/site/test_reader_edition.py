"""The reader edition of every chapter (``_ext/reader_edition.py``), checked against the site.

``make book`` writes it where the download button points (``_sources/chapters/*.ipynb``) and
into ``course.zip``. For every chapter:

* no MyST markup is left (roles, ``:::`` fences, ``(label)=`` targets);
* every glued value, every cross-reference and citation text and every block number that the
  built HTML page shows appears in the notebook's Markdown, in the same order (the HTML is
  written by Sphinx's own writers, independently of the conversion);
* every ``{glue:text}`` of the source became text: the HTML has as many glued values as the
  source has roles;
* code cells and outputs are unchanged; every solution is a heading JupyterLab opens folded,
  with the solution's code cells, and only they, under it.
"""

from __future__ import annotations

import html
import json
import re
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.site

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "_build" / "html"
CHAPTERS = sorted((ROOT / "chapters").glob("*.ipynb"))

#: what the HTML shows for a role: a glued value, an internal link (references, citations,
#: solution titles) or a block's number ("Definition 7.2 ")
_SHOWN = re.compile(r'<span class="pasted-text">(?P<glue>.*?)</span>'
                    r'|<a class="reference internal" href="[^"]*"(?: title="[^"]*")?>(?P<ref>.*?)</a>'
                    r'|<span class="caption-number">(?P<number>.*?)</span>', re.S)
_LEFTOVER = re.compile(r"\{[a-z][\w:-]*\}`|^:{3,}|^`{3,}\{|^\([^()\s]+\)=\s*$", re.M)


def _plain(text: str, markdown: bool = False) -> str:
    """Text as a reader sees it: no tags, links, emphasis or escapes; spaces collapsed."""
    if markdown:  # only the tags the reader edition writes ("<" in math is text)
        text = html.unescape(re.sub(r'</?(?:details|summary)>|<a id="[^"]*"></a>', " ", text))
    else:
        text = html.unescape(re.sub(r"<[^>]+>", "", text))
    text = re.sub(r"\]\([^)\s]*\)", "]", text)  # [text](url) -> [text]
    text = re.sub(r"\\(.)", r"\1", text)
    text = text.replace("*", "").replace("[", "").replace("]", "")
    return re.sub(r"\s+", " ", text).strip()


def _cells(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _source(cell: dict) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


@pytest.fixture(scope="module", params=[p.stem for p in CHAPTERS])
def chapter(request) -> str:
    if not (SITE / "_sources" / "chapters" / f"{request.param}.ipynb").exists():
        pytest.fail("the site is not built: run `make book` first")
    return request.param


def test_every_chapter_has_a_reader_edition():
    import nbformat

    served = sorted((SITE / "_sources" / "chapters").glob("*.ipynb"))
    assert [p.name for p in served] == [p.name for p in CHAPTERS]
    for path in served:  # valid notebooks (nbformat's schema), as JupyterLab expects them
        nbformat.validate(nbformat.read(path, as_version=4))
    with zipfile.ZipFile(SITE / "course.zip") as zf:
        for path in served:
            packed = json.loads(zf.read(f"dp-course/chapters/{path.name}"))["cells"]
            served_cells = _cells(path)
            # the same edition (the download may name the archive's URL in its first code cell)
            assert [_source(c) for c in packed if c["cell_type"] == "markdown"] == [
                _source(c) for c in served_cells if c["cell_type"] == "markdown"], path.name
            assert [c.get("outputs") for c in packed] == [c.get("outputs") for c in served_cells]


def test_no_markup_is_left_and_the_page_text_is_there(chapter):
    reader = _cells(SITE / "_sources" / "chapters" / f"{chapter}.ipynb")
    markdown = [_source(c) for c in reader if c["cell_type"] == "markdown"]
    for text in markdown:
        assert not _LEFTOVER.search(text), (chapter, _LEFTOVER.search(text).group(0), text[:300])
    plain = _plain("\n".join(markdown[1:]), markdown=True)  # the first cell is the reader edition's own
    page = (SITE / "chapters" / f"{chapter}.html").read_text(encoding="utf-8")
    article = page[page.index('<article class="bd-article">'):page.index("</article>")]
    shown = [(kind, _plain(value)) for m in _SHOWN.finditer(article)
             for kind, value in m.groupdict().items() if value is not None]
    assert shown, chapter
    cursor = 0
    for kind, text in shown:
        found = plain.find(text, cursor)
        assert found >= 0, (chapter, kind, text, plain[cursor:cursor + 300])
        cursor = found + len(text)
    # every glue role of the source is a value on the page, so all of them were replaced
    source = "\n".join(_source(c) for c in _cells(ROOT / "chapters" / f"{chapter}.ipynb")
                       if c["cell_type"] == "markdown")
    assert source.count("{glue:text}`") == sum(kind == "glue" for kind, _ in shown), chapter
    # the reading time under the title, as on the page
    line = re.search(r'<p class="reading-time"><em>(.*?)</em></p>', article).group(1)
    # the page's typography turns ' into a right single quotation mark ("the chapter’s core")
    line = html.unescape(line).replace("\u2019", "'")
    assert markdown[1].split("\n")[2] == f"*{line}*", chapter


def test_numbers_and_references_match_the_site(chapter):
    """Each numbered reference of the notebook ("Theorem 7.2") is the one the page shows."""
    numbered = re.compile(r"\b(Definition|Theorem|Lemma|Remark|Corollary|Proposition|Example|"
                          r"Exercise) (\d+(?:\.\d+)+)")
    reader = _cells(SITE / "_sources" / "chapters" / f"{chapter}.ipynb")
    in_reader = numbered.findall(_plain("\n".join(
        _source(c) for c in reader[1:] if c["cell_type"] == "markdown"), markdown=True))
    page = (SITE / "chapters" / f"{chapter}.html").read_text(encoding="utf-8")
    article = page[page.index('<article class="bd-article">'):page.index("</article>")]
    prose = re.sub(r'<div class="cell_output.*?</div>\s*</div>', "", article, flags=re.S)
    in_page = numbered.findall(_plain(prose))
    assert in_reader == in_page, chapter


def test_a_link_within_the_chapter_lands_on_its_anchor(chapter):
    """A reference to a place in the same chapter links to an anchor of the notebook, which the
    site's page has too (the same id), and every anchor is linked to."""
    reader = _cells(SITE / "_sources" / "chapters" / f"{chapter}.ipynb")
    markdown = "\n".join(_source(c) for c in reader if c["cell_type"] == "markdown")
    links = set(re.findall(r"\]\(#([^)\s]+)\)", markdown))
    anchors = re.findall(r'<a id="([^"]+)"></a>', markdown)
    assert sorted(anchors) == sorted(links), chapter  # each once
    page = (SITE / "chapters" / f"{chapter}.html").read_text(encoding="utf-8")
    assert all(f'id="{anchor}"' in page for anchor in anchors), chapter


def test_code_is_unchanged_and_solutions_are_collapsed(chapter):
    from reader_markdown import COLLAPSED, SOLUTION_LEVEL, heading_level

    original = _cells(ROOT / "chapters" / f"{chapter}.ipynb")
    reader = _cells(SITE / "_sources" / "chapters" / f"{chapter}.ipynb")
    code = [c for c in reader if c["cell_type"] == "code"]
    assert len(code) == sum(c["cell_type"] == "code" for c in original)
    inside, expected_hidden = False, []
    for cell in original:
        text = _source(cell)
        if cell["cell_type"] == "markdown":
            for marker in re.findall(r"\{solution-(start|end)\}", text):
                inside = marker == "start"
        else:
            expected_hidden.append(inside)
    folded, under_fold = False, []  # whether the heading a cell is under is a folded one
    for cell in reader:
        if cell["cell_type"] == "markdown" and heading_level(_source(cell)) <= SOLUTION_LEVEL:
            folded = cell["metadata"].get(COLLAPSED, False)
            assert folded == _source(cell).startswith("#### Solution to Exercise "), _source(cell)
        elif cell["cell_type"] == "code":
            under_fold.append(folded)
    assert under_fold == expected_hidden, chapter  # every solution's code, and only it
    for before, after in zip([c for c in original if c["cell_type"] == "code"], code):
        assert after["outputs"] == before["outputs"]
        assert after.get("execution_count") == before.get("execution_count")
        if _source(after) != _source(before):  # only the archive's URL, in the first one
            assert after is code[0] and "course.zip" in _source(after), _source(after)
        meta = {k: v for k, v in after["metadata"].items() if k not in ("jupyter", "collapsed")}
        assert meta == before["metadata"]
        removed = "remove-input" in before["metadata"].get("tags", [])  # only publishes numbers
        hide = "hide-output" in before["metadata"].get("tags", [])  # the page folds its output
        records = all("scrapbook" in o.get("metadata", {}) for o in before["outputs"])
        expected = {}  # what the page folds or leaves out, JupyterLab folds
        if removed or "hide-input" in before["metadata"].get("tags", []):
            expected["source_hidden"] = True
        if hide or (removed and records):
            expected["outputs_hidden"] = True
        assert after["metadata"].get("jupyter") == (expected or None), _source(after)
        assert after["metadata"].get("collapsed") == (True if hide else None)
    source = "\n".join(_source(c) for c in original if c["cell_type"] == "markdown")
    solutions = source.count("{solution}") + source.count("{solution-start}")
    headings = [c for c in reader if _source(c).startswith("#### Solution to Exercise ")]
    assert len(headings) == solutions, chapter
    assert all(c["metadata"] == {COLLAPSED: True} and len(_source(c).split("\n")) == 1
               for c in headings)  # the heading alone shows: the solution is under it


# --- the conversion on small inputs: what it refuses, and the solution layout -----------------
from reader_markdown import (COLLAPSED, MYST_EXTENSIONS, ReaderEditionError,  # noqa: E402
                             Resolved, convert_markdown, reader_notebook)


def _nb(*cells: tuple[str, str]) -> dict:
    return {"cells": [{"cell_type": kind, "id": f"c{i}", "metadata": {}, "source": text,
                       **({"outputs": [], "execution_count": None} if kind == "code" else {})}
                      for i, (kind, text) in enumerate(cells)], "metadata": {}, "nbformat": 4,
            "nbformat_minor": 5}


@pytest.mark.parametrize("text, message", [
    ("See {eq}`eq-one`.", "role {eq}"),
    ("See {prf:ref}`thm-x`.", "thm-x"),  # no resolved reference at all
    (":::{figure} a.png\n:::", "directive {figure}"),
    (":::{prf:theorem} No label\nBody.\n:::", "no :label:"),
    (":::{note}\nnever closed", "not closed"),
    ("{glue:text}`missing`", "missing"),
    ("## Exercises\n\n:::{solution} ex-a\nA.\n:::\n\nMore prose.", "starts no heading"),
    (":::{solution-start} ex-a\n:::\nA.", "has no solution-end"),
])
def test_the_conversion_refuses_what_it_cannot_render(text, message):
    resolved = Resolved(numbers={"exercise": {"ex-a": "7.1"}})
    with pytest.raises(ReaderEditionError, match=re.escape(message)):
        reader_notebook(_nb(("markdown", text)), resolved, "intro")


def test_each_role_gets_what_its_own_node_resolved_to():
    """A role is matched to the doctree's node by the role's source, not by its position."""
    resolved = Resolved(xrefs={":term:`laplace mechanism`": "**x**"})
    with pytest.raises(ReaderEditionError, match="prf:ref"):
        reader_notebook(_nb(("markdown", "{prf:ref}`thm-x`")), resolved, "intro")
    with pytest.raises(ReaderEditionError, match="not in the notebook"):
        reader_notebook(_nb(("markdown", "No role here.")), resolved, "intro")
    resolved = Resolved(xrefs={":term:`a`": "*a*", ":ref:`b`": "[B](#b)"})
    text = convert_markdown("{ref}`b`, {term}`a`, `{term}a` and $\\{term\\}$, {term}`a`.",
                            resolved)
    assert text == "[B](#b), *a*, `{term}a` and $\\{term\\}$, *a*."


def test_the_parser_is_configured_as_the_site():
    import yaml

    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    assert sorted(MYST_EXTENSIONS) == sorted(config["parse"]["myst_enable_extensions"])


def test_solutions_are_folded_headings():
    """Each solution is a heading JupyterLab opens folded, over cells of its own (Markdown and
    code), up to the next exercise or section: they stay hidden, also after "Run All"."""
    resolved = Resolved(numbers={"exercise": {"ex-a": "7.1", "ex-b": "7.2"}},
                        glue={"g": "1*2"}, xrefs={":prf:ref:`thm-x`": "[Theorem 7.2](#)"})
    nb = _nb(("markdown", "## Exercises\n\n::::{exercise}\n:label: ex-a\n\nDo it.\n::::\n\n"
                          ":::{solution-start} ex-a\n:class: dropdown\n:::\nBy {prf:ref}`thm-x`."),
             ("code", "x = 1"),
             ("markdown", "More, {glue:text}`g`.\n\n:::{solution-end}\n:::\n"
                          "::::{exercise}\n:label: ex-b\nAgain.\n::::\n\n"
                          ":::{solution} ex-b\nEasy.\n:::\n\n## References"),
             ("code", "y = 2"))
    cells = reader_notebook(nb, resolved, "intro")["cells"]
    assert [("".join(c["source"]), c["metadata"], c["id"]) for c in cells] == [
        ("intro", {}, "reader-edition"),
        ("## Exercises\n\n### Exercise 7.1\n\nDo it.", {}, "c0"),
        ("#### Solution to Exercise 7.1", {COLLAPSED: True}, "c0-2"),
        ("By [Theorem 7.2](#).", {}, "c0-3"),
        ("x = 1", {}, "c1"),  # unchanged: the folded heading hides it
        ("More, 1\\*2.", {}, "c2"),
        ("### Exercise 7.2\n\nAgain.", {}, "c2-2"),
        ("#### Solution to Exercise 7.2", {COLLAPSED: True}, "c2-3"),
        ("Easy.", {}, "c2-4"),
        ("## References", {}, "c2-5"),
        ("y = 2", {}, "c3")]


def test_a_target_the_chapter_links_to_gets_an_anchor():
    resolved = Resolved(numbers={"theorem": {"thm-x": "7.2"}}, anchors={"thm-x": "thm-x",
                                                                        "sec-a": "sec-a"})
    nb = _nb(("markdown", "(sec-a)=\n## A section\n\n:::{prf:theorem} T\n:label: thm-x\nB.\n:::"))
    text = "".join(reader_notebook(nb, resolved, "intro")["cells"][1]["source"])
    assert text == ('## <a id="sec-a"></a>A section\n\n<a id="thm-x"></a>**Theorem 7.2** (T)'
                    '\n\nB.')
    with pytest.raises(ReaderEditionError, match="no place in the notebook"):
        reader_notebook(_nb(("markdown", "No target.")), resolved, "intro")


def test_a_literal_dollar_cannot_open_a_formula_in_jupyterlab():
    """JupyterLab looks for math before it reads Markdown escapes: "\\$50K ... $t$" became one
    italic formula (k-anonymity's solution). Outside code, a literal dollar is an entity."""
    from reader_markdown import escape

    resolved = Resolved(glue={"price": "$5"})
    text = convert_markdown("earn more than \\$50K, so $t = 1 - p$; cost {glue:text}`price`; "
                            "`\\$x` stays", resolved)
    assert text == "earn more than &#36;50K, so $t = 1 - p$; cost &#36;5; `\\$x` stays"
    assert escape("a $ b") == "a &#36; b"


def test_an_output_the_page_folds_is_folded_in_the_notebook():
    nb = {"cells": [{"cell_type": "code", "metadata": {"tags": ["hide-output"]}, "source": "1",
                     "outputs": [{"output_type": "stream", "name": "stdout", "text": "x\n"}]},
                    {"cell_type": "code", "metadata": {}, "source": "2", "outputs": []}],
          "metadata": {}}
    out = reader_notebook(nb, Resolved(), "intro")
    folded, plain = out["cells"][1], out["cells"][2]
    assert folded["metadata"]["jupyter"] == {"outputs_hidden": True}
    assert folded["metadata"]["collapsed"] is True
    assert folded["outputs"] == nb["cells"][0]["outputs"]  # folded, not removed
    assert "jupyter" not in plain["metadata"]


def test_the_notebook_names_the_kernel_ipykernel_installs():
    """Otherwise JupyterLab rewrites the kernelspec on opening: every notebook "modified"."""
    from ipykernel.kernelspec import get_kernel_dict

    from reader_markdown import KERNELSPEC

    out = reader_notebook({"cells": [], "metadata": {"kernelspec": {
        "display_name": "Python 3", "language": "python", "name": "python3"}}},
        Resolved(), "intro")
    spec = get_kernel_dict()
    assert out["metadata"]["kernelspec"] == KERNELSPEC == {
        "display_name": spec["display_name"], "language": spec["language"], "name": "python3"}


def test_a_warning_box_stays_a_box():
    """A {warning} or an admonition is a quoted block with its title, not a plain paragraph."""
    text = convert_markdown(":::{warning}\nDo not reuse a seed.\n\nEver, $t$.\n:::", Resolved())
    assert text == "> **Warning**\n>\n> Do not reuse a seed.\n>\n> Ever, $t$."
    text = convert_markdown(":::{admonition} In brief: post-processing\n:class: tip\nA line.\n:::",
                            Resolved())
    assert text == "> **In brief: post-processing**\n>\n> A line."

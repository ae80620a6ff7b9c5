"""Unit checks of the site extension (``_ext/course_site/``).

The stylesheet pruning, the run-time tables, and one test per upstream workaround that
reproduces the upstream behaviour it works around: when an upgrade fixes it, that test fails
and names the workaround to delete.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from course_site import icons, tables, upstream_workarounds


def test_purge_css_drops_only_selectors_that_name_an_unused_class_id_or_element():
    css = ('.used{a:1}.unused{b:2}.used .unused,.used>p{c:3}'
           '@media (max-width:10px){.unused{d:4}}@media print{.used{e:5}}'
           '.x:not(.unused){f:6}@font-face{font-family:x}@keyframes k{0%{g:7}}'
           '#nowhere p,#main p{i:9}kbd{j:10}')
    out = re.sub(r"\s+", "", icons.purge_css(css, {"used", "x", "main", "p"}))
    for kept in (".used{a:1}", ".used>p{c:3}", "@mediaprint{.used{e:5}}", ".x:not(.unused){f:6}",
                 "@font-face{font-family:x}", "@keyframesk{0%{g:7}}", "#mainp{i:9}"):
        assert kept in out, kept
    for gone in (".unused{b:2}", ".used.unused", "d:4", "#nowhere", "kbd"):
        assert gone not in out, gone


# --- the run-time tables ---------------------------------------------------------------------
def _book(tmp_path: Path, measured: dict[str, float] | None) -> Path:
    """A book of two chapters (one code cell, then two); ``measured`` becomes the report."""
    (tmp_path / "chapters").mkdir()
    (tmp_path / "_toc.yml").write_text(
        "format: jb-book\nroot: intro\nparts:\n  - caption: Part A\n    chapters:\n"
        "      - file: chapters/datasets\n      - file: chapters/sensitivity\n", encoding="utf-8")
    for name, code_cells in (("datasets", 1), ("sensitivity", 2)):
        cells = [{"cell_type": "markdown", "source": ["word " * 1100]}]
        cells += [{"cell_type": "code", "source": ["1"]}] * code_cells
        (tmp_path / "chapters" / f"{name}.ipynb").write_text(json.dumps({"cells": cells}),
                                                            encoding="utf-8")
    if measured is not None:
        (tmp_path / "benchmarks").mkdir()
        (tmp_path / "benchmarks" / "report.json").write_text(
            json.dumps({"notebooks_s": measured}), encoding="utf-8")
    return tmp_path


def test_a_chapter_not_benchmarked_yet_says_so_in_both_tables(tmp_path):
    book = _book(tmp_path, {"datasets.ipynb": 3.26})  # the second chapter was added since
    rows, total = tables.execution_rows(book)
    assert rows == [("chapters/datasets", "datasets.ipynb", 1, "3.3"),
                    ("chapters/sensitivity", "sensitivity.ipynb", 2, "not measured yet")]
    assert total == "3.3 (1 not measured yet)"
    # 1,100 words at 200 a minute (5.5 minutes) and one or two lines of code at 10 seconds
    # each: 5.67 and 5.83 minutes, rounded up to 6
    assert tables.syllabus_rows(book) == [
        (1, "Part A", "chapters/datasets", 6, 0, "3"),
        (2, "Part A", "chapters/sensitivity", 6, 0, "not measured yet")]


def _with_sections(book: Path, measured: dict[str, float]) -> Path:
    """The two-chapter book, with two "Going deeper" sections under its second chapter."""
    (book / "_toc.yml").write_text(
        "format: jb-book\nroot: intro\nparts:\n  - caption: Part A\n    chapters:\n"
        "      - file: chapters/datasets\n      - file: chapters/sensitivity\n"
        "        sections:\n          - file: chapters/sensitivity-proofs\n"
        "          - file: chapters/sensitivity-variants\n", encoding="utf-8")
    for name, words in (("sensitivity-proofs", 1000), ("sensitivity-variants", 2200)):
        cells = [{"cell_type": "markdown", "source": ["word " * words]}]
        (book / "chapters" / f"{name}.ipynb").write_text(json.dumps({"cells": cells}),
                                                        encoding="utf-8")
    (book / "benchmarks" / "report.json").write_text(json.dumps({"notebooks_s": measured}),
                                                     encoding="utf-8")
    return book


def test_a_chapter_core_and_its_going_deeper_sections_are_timed_apart(tmp_path):
    book = _with_sections(_book(tmp_path, {}), {
        "datasets.ipynb": 3.0, "sensitivity.ipynb": 2.0, "sensitivity-proofs.ipynb": 1.25,
        "sensitivity-variants.ipynb": 1.0})
    # the sections: 1,000 words (5 minutes) and 2,200 words (11 minutes); the run time is the
    # chapter's notebooks together
    assert tables.syllabus_rows(book) == [
        (1, "Part A", "chapters/datasets", 6, 0, "3"),
        (2, "Part A", "chapters/sensitivity", 6, 16, "4")]
    assert tables.reading_totals(book) == (12, 28)
    rows, total = tables.execution_rows(book)
    assert [row[0] for row in rows] == ["chapters/datasets", "chapters/sensitivity",
                                        "chapters/sensitivity-proofs",
                                        "chapters/sensitivity-variants"]
    assert total == "7.2"
    chapter = tables.page_reading_line(book, "chapters/sensitivity")
    assert chapter.startswith("Reading time: about 6 minutes for the core (1,100 words and 2 ")
    assert "going deeper: about 16 minutes more, in 2 optional sections." in chapter
    assert "no separate sections" in tables.page_reading_line(book, "chapters/datasets")
    section = tables.page_reading_line(book, "chapters/sensitivity-variants")
    assert section.startswith("Reading time: about 11 minutes (2,200 words and 0 lines")
    assert "optional" in section
    assert tables.page_reading_line(book, "intro") is None


def test_a_missing_run_time_of_a_section_marks_its_chapter_not_measured(tmp_path):
    book = _with_sections(_book(tmp_path, {}), {"datasets.ipynb": 3.0, "sensitivity.ipynb": 2.0})
    assert tables.syllabus_rows(book)[1][-1] == "not measured yet"


def test_hours_round_to_the_nearest_quarter():
    assert [tables.hours(m) for m in (60, 352, 7, 8, 1050, 90)] == [
        "1 hour", "5¾ hours", "0 hours", "¼ hour", "17½ hours", "1½ hours"]


def _reading(tmp_path: Path, *cells: dict) -> tables.ReadingTime:
    path = tmp_path / ("chapter" + ".ipynb")  # a notebook of the given cells
    path.write_text(json.dumps({"cells": list(cells)}), encoding="utf-8")
    return tables.reading_time(path)


def _md(text: str) -> dict:
    return {"cell_type": "markdown", "metadata": {}, "source": text}


def _code(text: str, *tags: str) -> dict:
    return {"cell_type": "code", "metadata": {"tags": list(tags)}, "source": text}


def test_reading_time_counts_what_the_page_shows(tmp_path):
    """Prose words without MyST markup, and the non-blank lines of shown code only."""
    time = _reading(
        tmp_path,
        _md("# Title\n\n(sec-label)=\n:::{prf:definition} Two words\n:label: def-x\n\n"
            "See {doc}`sensitivity`, {glue:text}`key` and {term}`the glossary <Glossary>`.\n:::"),
        _code("x = 1\n\nprint(x)"),                      # 2 lines
        _code('glue("key", x)', "remove-input"),          # hidden on the page: 0
        _code("import inspect", "hide-input"),            # behind a toggle: 0
        _code("y = 2", "hide-output"))                    # the code shows: 1
    # Title / Two words / See sensitivity, N and the glossary.
    assert time == tables.ReadingTime(words=1 + 2 + 6, code_lines=3)


def test_reading_time_leaves_out_folded_solutions(tmp_path):
    time = _reading(
        tmp_path,
        _md("::::{exercise}\n:label: ex-a\n\nOne two three.\n::::\n\n"
            ":::{solution-start} ex-a\n:class: dropdown\n:::\nHidden words here."),
        _code("a = 1\nb = 2"),                           # inside the gated solution
        _md(":::{solution-end}\n:::\n\nFour five."),
        _md("::::{solution} ex-a\n:class: dropdown\n\nAlso hidden.\n::::\nSix."),
        _code("c = 3"))
    assert time == tables.ReadingTime(words=6, code_lines=1)


def test_reading_minutes_use_the_stated_rates():
    assert tables.ReadingTime(words=2000, code_lines=0).minutes == 10     # 200 words a minute
    assert tables.ReadingTime(words=0, code_lines=60).minutes == 10      # 10 seconds a line
    assert tables.ReadingTime(words=2001, code_lines=0).minutes == 11    # rounded up
    assert tables.ReadingTime(words=0, code_lines=0).minutes == 1


def test_a_reading_total_is_rebuilt_when_a_going_deeper_section_changes(tmp_path):
    """``{reading-total}`all``` counts the sections too, so the page that shows it depends on
    their notebooks and on ``_toc.yml`` (an incremental build would keep an old total)."""
    book = _book(tmp_path, None)
    (book / "_toc.yml").write_text(
        (book / "_toc.yml").read_text(encoding="utf-8")
        + "        sections:\n          - file: chapters/sensitivity-proofs\n", encoding="utf-8")
    (book / "chapters" / "sensitivity-proofs.ipynb").write_text(
        json.dumps({"cells": [{"cell_type": "markdown", "source": ["word " * 600]}]}),
        encoding="utf-8")
    noted: list[str] = []
    env = SimpleNamespace(srcdir=str(book), note_dependency=noted.append)
    inliner = SimpleNamespace(document=SimpleNamespace(settings=SimpleNamespace(env=env)))
    shown, messages = tables.ReadingTotal()("reading-total", "", "all", 1, inliner)
    assert messages == [] and shown[0].astext() == "¼ hour"  # 6 + 6 + 3 minutes
    assert sorted(Path(n).relative_to(book).as_posix() for n in noted) == [
        "_toc.yml", "chapters/datasets.ipynb", "chapters/sensitivity-proofs.ipynb",
        "chapters/sensitivity.ipynb"]


def test_without_any_benchmark_report_every_run_time_is_not_measured_yet(tmp_path):
    rows, total = tables.execution_rows(_book(tmp_path, None))
    assert [row[-1] for row in rows] == ["not measured yet"] * 2
    assert total == "0.0 (2 not measured yet)"


def test_every_chapter_measured_gives_a_plain_total(tmp_path):
    _, total = tables.execution_rows(_book(tmp_path, {"datasets.ipynb": 1.04,
                                                      "sensitivity.ipynb": 2.0}))
    assert total == "3.0"


# --- upstream behaviour the workarounds depend on ----------------------------------------------
def test_upstream_sphinx_still_writes_a_late_inline_script_twice(tmp_path):
    """sphinx-doc/sphinx#13402: when this fails, Sphinx writes each script once: delete
    ``upstream_workarounds.drop_repeated_scripts``."""
    from sphinx.application import Sphinx

    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text('extensions = ["sphinx_thebe"]\n', encoding="utf-8")
    (src / "index.rst").write_text("Title\n=====\n\ntext\n", encoding="utf-8")
    app = Sphinx(str(src), str(src), str(tmp_path / "out"), str(tmp_path / "doctrees"), "html",
                 status=None, warning=None, freshenv=True)
    bodies: list[list[str]] = []
    def record(app, pagename, templatename, context, doctree) -> None:
        bodies.append([s.attributes.get("body", "") for s in context["script_files"]])

    app.connect("html-page-context", record, priority=50)
    app.connect("html-page-context", upstream_workarounds.drop_repeated_scripts, priority=100)
    app.connect("html-page-context", record, priority=900)
    app.build()
    thebe = [sum("THEBE_JS_URL" in body for body in page) for page in bodies]
    assert thebe[:2] == [2, 1], thebe  # twice before the workaround, once after it


def test_upstream_docutils_still_marks_citations_as_biblioentries():
    """When this fails, docutils writes valid list items: delete
    ``upstream_workarounds.bibliography_list_items``."""
    from docutils.core import publish_parts

    body = publish_parts("Text [CIT2002]_.\n\n.. [CIT2002] A citation.\n",
                         writer_name="html5")["body"]
    assert 'role="list"' in body and 'role="doc-biblioentry"' in body
    context = {"body": body}
    upstream_workarounds.bibliography_list_items(None, "p", "page.html", context, None)
    assert 'role="doc-biblioentry"' not in context["body"] and 'role="listitem"' in context["body"]


def test_upstream_pybtex_still_scans_entry_points_at_every_lookup(monkeypatch):
    """When this fails, pybtex caches its lookups: delete
    ``upstream_workarounds.remember_bibliography_style``."""
    import pybtex.plugin

    monkeypatch.setattr(pybtex.plugin, "_RUNTIME_PLUGINS", {})  # undone after the test
    scans = []
    real = pybtex.plugin.entry_points
    monkeypatch.setattr(pybtex.plugin, "entry_points", lambda **kw: scans.append(kw) or real(**kw))
    style = pybtex.plugin.find_plugin("pybtex.style.formatting", "alpha")
    pybtex.plugin.find_plugin("pybtex.style.formatting", "alpha")
    assert len(scans) == 2
    app = SimpleNamespace(config=SimpleNamespace(bibtex_default_style="alpha"))
    upstream_workarounds.remember_bibliography_style(app)
    scans.clear()
    assert pybtex.plugin.find_plugin("pybtex.style.formatting", "alpha") is style
    assert scans == []  # the workaround: a dictionary read, the same class


def test_upstream_theme_still_builds_sidebar_toggles_without_a_name():
    """pydata-sphinx-theme's disclosure button of a sidebar entry with children holds only a
    decorative chevron; when it gets a name upstream, delete name_sidebar_toggles."""
    from bs4 import BeautifulSoup
    from pydata_sphinx_theme.toctree import add_collapse_checkboxes

    soup = BeautifulSoup('<ul><li class="toctree-l1 has-children"><a class="reference" '
                         'href="c.html">Chapter</a><ul><li class="toctree-l2"><a class="reference"'
                         ' href="s.html">Section</a></li></ul></li></ul>', "html.parser")
    add_collapse_checkboxes(soup)
    summary = soup.select_one("details > summary")
    assert summary is not None and not summary.get_text(strip=True)
    assert summary.get("aria-label") is None


def test_sidebar_toggles_are_named_after_their_entry():
    html = ('<ul><li class="toctree-l1 has-children"><a class="reference" href="c.html">'
            '<span class="section-number">5. </span>Sensitivity</a><details><summary>'
            '<span class="toctree-toggle" role="presentation"><i></i></span></summary><ul>'
            '</ul></details></li><li><details><summary>Part A</summary></details></li></ul>')
    out = upstream_workarounds.label_summaries(html)
    assert 'aria-label="Sections of 5. Sensitivity"' in out
    assert out.count("aria-label") == 1  # a summary with text keeps its own name
    calls = []

    def generate(kind, *args, **kwargs):
        calls.append(kind)
        return html

    context = {"generate_toctree_html": generate}
    upstream_workarounds.name_sidebar_toggles(None, "p", "t", context, None)
    assert "aria-label" in context["generate_toctree_html"]("sidebar")
    assert context["generate_toctree_html"]("raw") == html and calls == ["sidebar", "raw"]


def _theme_page(tmp_path: Path, extensions: list[str]) -> tuple[str, Path]:
    """The head of a one-page book built with sphinx-book-theme, and its output folder."""
    from sphinx.application import Sphinx

    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "conf.py").write_text(f"extensions = {extensions!r}\n"
                                 'html_theme = "sphinx_book_theme"\n'
                                 'html_context = {"default_mode": "auto"}\n', encoding="utf-8")
    (src / "index.rst").write_text("Title\n=====\n\n.. note::\n\n   text\n", encoding="utf-8")
    app = Sphinx(str(src), str(src), str(out), str(tmp_path / "doctrees"), "html",
                 status=None, warning=None, freshenv=True)
    app.build()
    return (out / "index.html").read_text(encoding="utf-8").split("</head>")[0], out


def test_upstream_theme_still_loads_all_of_font_awesome_and_leaves_the_mode_unresolved(
        tmp_path):
    """pydata-sphinx-theme#2379 and #1857: when this fails, the theme no longer loads its 1.5 MB
    icon script, its search scripts on every page, or no longer sets ``data-theme`` to "auto"
    before its script runs: delete that part of ``templates/layout.html`` (and :mod:`.icons`)."""
    head, out = _theme_page(tmp_path, [])
    assert "scripts/fontawesome.js" in head
    assert (out / "_static" / "scripts" / "fontawesome.js").stat().st_size > 1_000_000
    assert 'dataset.theme = localStorage.getItem("theme") || "auto"' in head
    assert "searchtools.js" in head and "searchindex.js" in head


def test_the_course_head_loads_its_own_icons_and_stylesheet_and_resolves_the_mode(tmp_path):
    """With the workarounds, the page loads the icon script and the theme's stylesheet that
    :mod:`.icons` writes (both exist, the stylesheet smaller and its fonts cut), resolves the
    colour mode in the head, and loads no search script."""
    head, out = _theme_page(tmp_path, ["course_site.upstream_workarounds"])
    static = out / "_static"
    for name in (icons.ICON_SCRIPT, icons.THEME_CSS):
        assert f"_static/{name}" in head and (static / name).is_file(), name
    assert "fontawesome.js" not in head and "pydata-sphinx-theme.css" not in head
    assert "searchtools.js" not in head and "searchindex.js" not in head
    assert 'matchMedia("(prefers-color-scheme: dark)")' in head
    theme = (static / "styles" / "pydata-sphinx-theme.css").read_text(encoding="utf-8")
    ours = (static / icons.THEME_CSS).read_text(encoding="utf-8")
    assert len(ours) < len(theme) / 2 and ".fa-address-book" in theme
    assert ".fa-address-book" not in ours  # no page has that icon
    fonts = static / "vendor" / "fontawesome"
    for font in (fonts / "course-webfonts").glob("*.woff2"):
        assert font.stat().st_size < (fonts / "webfonts" / font.name).stat().st_size / 4
        assert f"course-webfonts/{font.name}" in ours


def _blocking_scripts(head: str) -> list[str]:
    """The scripts of ``head`` that hold up parsing (no defer, async or type="module")."""
    tags = re.findall(r"<script\b([^>]*)\bsrc=\"([^\"?]+)", head)
    return [src.rsplit("/", 1)[-1] for attrs, src in tags
            if not re.search(r"\b(defer|async)\b|type=\"module\"", attrs)]


def test_no_script_of_the_head_holds_up_the_first_paint(tmp_path):
    """Issue #39: every script of a page's head runs once the page is parsed, in its order, but
    documentation_options.js (an inline script of the head extends it at once); the search
    page keeps its scripts as they are (its searchtools.js calls doctools.js as it loads)."""
    extensions = ["sphinx_copybutton", "sphinx_togglebutton"]
    (tmp_path / "stock").mkdir()
    (tmp_path / "course").mkdir()
    stock, _ = _theme_page(tmp_path / "stock", extensions)
    assert {"doctools.js", "copybutton.js", "togglebutton.js"} <= set(_blocking_scripts(stock))
    head, out = _theme_page(tmp_path / "course", [*extensions, "course_site.upstream_workarounds"])
    assert _blocking_scripts(head) == ["documentation_options.js"]
    assert "copybutton.js" in head and "togglebutton.js" in head
    search = (out / "search.html").read_text(encoding="utf-8").split("</head>")[0]
    assert {"doctools.js", "searchtools.js"} <= set(_blocking_scripts(search))


def test_the_archive_packs_the_notebooks_it_is_given_and_refuses_unknown_names(tmp_path):
    import zipfile

    from course_site.archive import ARCHIVE_ROOT, write_course_archive

    root = Path(__file__).resolve().parents[2]
    name = f"{ARCHIVE_ROOT}/chapters/datasets.ipynb"
    out = write_course_archive(root, tmp_path / "course.zip", notebooks={name: b"reader"})
    with zipfile.ZipFile(out) as zf:
        assert zf.read(name) == b"reader"
        assert zf.read(f"{ARCHIVE_ROOT}/chapters/helpers.py") == (
            root / "chapters" / "helpers.py").read_bytes()
    with pytest.raises(ValueError, match="notebooks: not in course.zip"):
        write_course_archive(root, tmp_path / "again.zip",
                             notebooks={f"{ARCHIVE_ROOT}/chapters/nowhere.ipynb": b""})

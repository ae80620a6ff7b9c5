"""The run-time and syllabus tables: directives ``execution-statistics`` and ``syllabus-table``.

What it changes, and why: a reader planning a session wants each chapter's reading time and how
long its notebook runs, and neither may be typed by hand. ``execution-statistics`` lists every
chapter notebook with its code cells and run time; ``syllabus-table`` lists every chapter with
its part, title, reading time and run time. Run times come from ``benchmarks/report.json``
(written by ``make benchmark``); reading times from the chapters' own prose and shown code
(:func:`reading_time`, which the chapter pages and the reader edition also show). A chapter that has
not been benchmarked yet shows "not measured yet": adding a chapter never needs a benchmark run
before the site builds and its tests pass. Titles are links (Sphinx's ``pending_xref``) that
Sphinx fills in with the chapter's own heading.
"""

from __future__ import annotations

import functools
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.transforms import SphinxTransform
from sphinx.util.docutils import SphinxDirective, SphinxRole

from reader_markdown import blocks

from .archive import toc_chapters, toc_sections

WORDS_PER_MINUTE = 200
#: What a run-time cell says for a chapter missing from ``benchmarks/report.json``.
NOT_MEASURED = "not measured yet"


def notebook_run_seconds(srcdir: Path) -> dict[str, float]:
    """Seconds per notebook file name, as measured by ``make benchmark`` (empty without one)."""
    report = srcdir / "benchmarks" / "report.json"
    if not report.exists():
        return {}
    return json.loads(report.read_text(encoding="utf-8")).get("notebooks_s", {})


#: Reading rates (the syllabus page states and cites them): prose at 200 words a minute
#: (Brysbaert 2019 measured 238 for silent reading of English non-fiction; technical prose with
#: formulas is slower) and a line of code in 10 seconds (360 lines an hour, slower than the 500
#: lines an hour above which reviewers in the SmartBear/Cisco study missed defects, Cohen 2006).
SECONDS_PER_CODE_LINE = 10
#: Tags whose code cell shows no source on the page (hide-input: only behind a toggle).
HIDDEN_INPUT_TAGS = {"remove-input", "remove-cell", "hide-input"}
_MARKUP = re.compile(
    r"^\s*(?::{3,}|`{3,})\{[\w:-]+\}"       # a directive's opening fence (its title stays)
    r"|^\s*(?::{3,}|`{3,})\s*$"              # a closing fence
    r"|^:[\w-]+:.*$"                         # a directive option
    r"|^\([^()\s]+\)=\s*$",                  # a target label
    flags=re.M)


@dataclass(frozen=True)
class ReadingTime:
    """What a reader sees by default in one chapter, and how long it takes to read."""

    words: int
    code_lines: int

    @property
    def minutes(self) -> int:
        seconds = self.words / WORDS_PER_MINUTE * 60 + self.code_lines * SECONDS_PER_CODE_LINE
        return max(1, math.ceil(seconds / 60))


def _words(markdown: str) -> int:
    text = _MARKUP.sub(" ", markdown)
    # a role reads as its text: {doc}`title <target>` -> title, {glue:text}`key` -> one word
    text = re.sub(r"\{glue:[a-z]+\}`[^`]*`", " N ", text)
    text = re.sub(r"\{[a-z][\w:-]*\}`([^`<]*)<[^`>]*>`", r" \1 ", text)
    text = re.sub(r"\{[a-z][\w:-]*\}`([^`]*)`", r" \1 ", text)
    text = re.sub(r"[#*>|_]", " ", text)
    return sum(1 for token in text.split() if re.search(r"\w", token))


def _outside_solutions(source: str, inside: bool) -> tuple[str, bool]:
    """The text of a Markdown cell that is not in a (folded) solution, and whether the cell
    ends inside a gated solution (``solution-start`` ... ``solution-end``), read by the
    course's MyST parser (``reader_markdown.blocks``)."""
    kept = []
    for block in blocks(source):
        if block.kind == "directive" and block.name in ("solution", "solution-start",
                                                        "solution-end"):
            inside = {"solution-start": True, "solution-end": False}.get(block.name, inside)
        elif not inside:
            kept.append(block.source)
    return "\n".join(kept), inside


def reading_time(path: Path | str) -> ReadingTime:
    """The words and shown code lines of a chapter notebook, outside its folded solutions.

    Words: the Markdown cells without MyST markup (fences, options, labels, role names).
    Code lines: the non-blank lines of code cells whose source the page shows (not tagged
    ``remove-input``, ``remove-cell`` or ``hide-input``). Outputs do not count. Counted once
    per version of the file.
    """
    stat = Path(path).stat()
    return _reading_time(str(path), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=256)
def _reading_time(path: str, mtime_ns: int, size: int) -> ReadingTime:
    cells = json.loads(Path(path).read_text(encoding="utf-8"))["cells"]
    words = lines = 0
    inside = False
    for cell in cells:
        source = "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            text, inside = _outside_solutions(source, inside)
            words += _words(text)
        elif cell["cell_type"] == "code" and not inside:
            tags = set(cell.get("metadata", {}).get("tags", []))
            if not tags & HIDDEN_INPUT_TAGS:
                lines += sum(1 for line in source.splitlines() if line.strip())
    return ReadingTime(words=words, code_lines=lines)


def notebook_documents(srcdir: Path) -> list[str]:
    """Every chapter, each followed by its going-deeper sections, in reading order."""
    return [d for chapter, sections in toc_sections(srcdir).items() for d in [chapter, *sections]]


def execution_rows(srcdir: Path) -> tuple[list[tuple[str, str, int, str]], str]:
    """(document, notebook name, code cells, run time) per chapter, and the total's cell.

    The total adds the measured chapters and says how many are not measured yet.
    """
    seconds = notebook_run_seconds(srcdir)
    rows, total, missing = [], 0.0, 0
    for doc in notebook_documents(srcdir):
        name = f"{Path(doc).name}.ipynb"
        cells = json.loads((srcdir / f"{doc}.ipynb").read_text(encoding="utf-8"))["cells"]
        rows.append((doc, name, sum(c["cell_type"] == "code" for c in cells),
                     f"{seconds[name]:.1f}" if name in seconds else NOT_MEASURED))
        total += seconds.get(name, 0.0)
        missing += name not in seconds
    total_cell = f"{total:.1f}" + (f" ({missing} {NOT_MEASURED})" if missing else "")
    return rows, total_cell


def syllabus_rows(srcdir: Path) -> list[tuple[int, str, str, int, int, str]]:
    """(number, part, document, core minutes, deeper minutes, run time) per chapter, in order.

    The run time is the chapter's notebook and its sections' notebooks together.
    """
    seconds = notebook_run_seconds(srcdir)
    sections = toc_sections(srcdir)
    rows = []
    for number, (part, doc) in enumerate(toc_chapters(srcdir), start=1):
        docs = [doc, *sections.get(doc, [])]  # its core, then its going-deeper sections
        core, *deeper = [reading_time(srcdir / f"{d}.ipynb") for d in docs]
        names = [f"{Path(d).name}.ipynb" for d in docs]
        run = (NOT_MEASURED if any(n not in seconds for n in names)
               else f"{sum(seconds[n] for n in names):.0f}")
        rows.append((number, part, doc, core.minutes, sum(t.minutes for t in deeper), run))
    return rows


def reading_totals(srcdir: Path) -> tuple[int, int]:
    """Minutes of the whole core path, and of the whole book (core and going deeper)."""
    rows = syllabus_rows(srcdir)
    core = sum(row[3] for row in rows)
    return core, core + sum(row[4] for row in rows)


def reading_sources(srcdir: Path) -> list[Path]:
    """What the book's reading times are read from: ``_toc.yml`` and every chapter's notebook
    with its going-deeper sections' (a page that shows a total is rebuilt when one changes)."""
    return [srcdir / "_toc.yml"] + [srcdir / f"{d}.ipynb" for d in notebook_documents(srcdir)]


def hours(minutes: int) -> str:
    """Minutes as hours to the nearest quarter hour, e.g. "5¾ hours"."""
    quarters = round(minutes / 15)
    whole, part = divmod(quarters, 4)
    text = (str(whole) if whole or not part else "") + ["", "¼", "½", "¾"][part]
    return f"{text} hour" + ("" if 0 < quarters <= 4 else "s")


def _doc_link(env: Any, docname: str, text: str | None = None) -> nodes.paragraph:
    """A link to ``docname``; with no text, its title, filled in when references are resolved."""
    para = nodes.paragraph()
    ref = addnodes.pending_xref("", refdomain="std", reftype="doc", reftarget=f"/{docname}",
                                refexplicit=text is not None, refdoc=env.docname)
    ref += nodes.inline(text=docname if text is None else text)
    para += ref
    return para


def _table(header: list[str], rows: list[list[nodes.Node | str]], widths: list[int],
           classes: list[str]) -> nodes.table:
    table = nodes.table(classes=classes)
    group = nodes.tgroup(cols=len(header))
    table += group
    for width in widths:
        group += nodes.colspec(colwidth=width)
    head, body = nodes.thead(), nodes.tbody()
    group += head
    group += body
    for cells, parent in [(header, head)] + [(r, body) for r in rows]:
        tr = nodes.row()
        for cell in cells:
            entry = nodes.entry()
            entry += cell if isinstance(cell, nodes.Node) else nodes.paragraph(text=cell)
            tr += entry
        parent += tr
    return table


class ExecutionStatistics(SphinxDirective):
    """Table of every chapter notebook with its run time from ``benchmarks/report.json``."""

    def run(self) -> list[nodes.Node]:
        srcdir = Path(self.env.srcdir)
        self.env.note_dependency(str(srcdir / "benchmarks" / "report.json"))
        found, total = execution_rows(srcdir)
        rows: list[list[nodes.Node | str]] = [
            [_doc_link(self.env, doc, name), str(cells), run]
            for doc, name, cells, run in found]
        rows.append([nodes.paragraph(text="Total"), "", total])
        return [_table(["Notebook", "Code cells", "Run time (s)"], rows, [50, 25, 25],
                       ["execution-statistics"])]


class SyllabusTable(SphinxDirective):
    """Every chapter with its part, reading time and run time, in reading order."""

    def run(self) -> list[nodes.Node]:
        srcdir = Path(self.env.srcdir)
        for source in [srcdir / "benchmarks" / "report.json", *reading_sources(srcdir)]:
            self.env.note_dependency(str(source))
        rows: list[list[nodes.Node | str]] = []
        for number, part, doc, core, deeper, run in syllabus_rows(srcdir):
            rows.append([str(number), part, _doc_link(self.env, doc), str(core), str(deeper),
                         run])
        core, everything = reading_totals(srcdir)
        rows.append(["", "", nodes.paragraph(text="Total"), str(core), str(everything - core),
                     ""])
        return [_table(["Chapter", "Part", "Title", "Core (min)", "Going deeper (min)",
                        "Run time (s)"], rows, [8, 24, 40, 9, 10, 9],
                       ["syllabus-table", "longtable", "colwidths-given"])]


def reading_time_sentence(time: ReadingTime, deeper: list[ReadingTime] | None = None,
                          section: bool = False) -> str:
    """The line under a page's title, on the page and in the reader edition.

    A chapter's page is its core path: the line gives its time and that of its "Going deeper"
    sections (``deeper``). A section's page (``section``) says it is optional.
    """
    counts = f"{time.words:,} words and {time.code_lines} lines of code"
    if section:
        return (f"Reading time: about {time.minutes} minutes ({counts}). Going deeper is "
                "optional: the core of the chapter needs none of it.")
    deeper = deeper or []
    more = (f"going deeper: about {sum(t.minutes for t in deeper)} minutes more, in "
            f"{len(deeper)} optional section{'s' if len(deeper) != 1 else ''}"
            if deeper else "going deeper: no separate sections")
    return (f"Reading time: about {time.minutes} minutes for the core ({counts}); {more}. "
            "The exercises take about as long again.")


def page_reading_line(srcdir: Path, docname: str) -> str | None:
    """The reading-time line of a chapter's or a section's page, or ``None`` for other pages."""
    sections = toc_sections(srcdir)
    if docname in sections:
        core, *deeper = [reading_time(srcdir / f"{d}.ipynb") for d in [docname, *sections[docname]]]
        return reading_time_sentence(core, deeper)
    if any(docname in docs for docs in sections.values()):
        return reading_time_sentence(reading_time(srcdir / f"{docname}.ipynb"), section=True)
    return None


class ReadingTotal(SphinxRole):
    """``{reading-total}`core``` or ``{reading-total}`all```: the core path's reading time, or
    the whole book's, in hours (:func:`reading_totals`), so that no page types it."""

    def run(self) -> tuple[list[nodes.Node], list[nodes.system_message]]:
        srcdir = Path(self.env.srcdir)
        for source in reading_sources(srcdir):
            self.env.note_dependency(str(source))
        core, everything = reading_totals(srcdir)
        if self.text not in ("core", "all"):
            msg = self.inliner.reporter.error(
                f"reading-total takes core or all, not {self.text!r}", line=self.lineno)
            return [], [msg]
        return [nodes.inline(text=hours(core if self.text == "core" else everything))], []


def is_chapter_notebook(env: Any, docname: str) -> bool:
    return docname.startswith("chapters/") and Path(env.doc2path(docname)).suffix == ".ipynb"


def next_core_page(app: Any, pagename: str, templatename: str, context: dict,
                   doctree: Any) -> None:
    """On a chapter's page, "next" goes to the next chapter's core, not to the chapter's own
    first going-deeper section, and "previous" to the previous chapter's core, not to its last
    section (``html-page-context``): the pager follows the core path; the sections are listed
    on the page and in the sidebar."""
    chapters = list(toc_sections(Path(app.srcdir)))
    if pagename not in chapters:
        return
    here = chapters.index(pagename)
    for key, there in (("prev", here - 1), ("next", here + 1)):
        if 0 <= there < len(chapters):
            target = chapters[there]
            context[key] = {"link": app.builder.get_relative_uri(pagename, target),
                            "title": app.builder.render_partial(app.env.titles[target])["title"]}


class ReadingTimeLine(SphinxTransform):
    """Put the page's reading time (:func:`page_reading_line`) right under its title: a
    chapter's core and going-deeper times, or a section's own."""

    default_priority = 500

    def apply(self, **kwargs: Any) -> None:
        section = next(iter(self.document.findall(nodes.section)), None)
        if section is None or not isinstance(section[0], nodes.title):
            return
        srcdir = Path(self.env.srcdir)
        text = page_reading_line(srcdir, self.env.docname)
        if text is None:
            return
        # a chapter's line counts its sections: rebuild the page when one changes
        self.env.note_dependency(str(srcdir / "_toc.yml"))
        for doc in toc_sections(srcdir).get(self.env.docname, []):
            self.env.note_dependency(str(srcdir / f"{doc}.ipynb"))
        line = nodes.paragraph(classes=["reading-time"])
        line += nodes.emphasis(text=text)
        section.insert(1, line)

"""The run-time and syllabus tables: directives ``execution-statistics`` and ``syllabus-table``.

What it changes, and why: a reader planning a session wants each chapter's reading time and how
long its notebook runs, and neither may be typed by hand. ``execution-statistics`` lists every
chapter notebook with its code cells and run time; ``syllabus-table`` lists every chapter with
its part, title, reading time and run time. Run times come from ``benchmarks/report.json``
(written by ``make benchmark``); reading times from the chapters' own prose. A chapter that has
not been benchmarked yet shows "not measured yet": adding a chapter never needs a benchmark run
before the site builds and its tests pass. Titles are links (Sphinx's ``pending_xref``) that
Sphinx fills in with the chapter's own heading.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.util.docutils import SphinxDirective

from .archive import toc_chapters

WORDS_PER_MINUTE = 200
#: What a run-time cell says for a chapter missing from ``benchmarks/report.json``.
NOT_MEASURED = "not measured yet"


def notebook_run_seconds(srcdir: Path) -> dict[str, float]:
    """Seconds per notebook file name, as measured by ``make benchmark`` (empty without one)."""
    report = srcdir / "benchmarks" / "report.json"
    if not report.exists():
        return {}
    return json.loads(report.read_text(encoding="utf-8")).get("notebooks_s", {})


def reading_minutes(path: Path) -> int:
    """Reading time of a chapter's prose at 200 words a minute, rounded up to 5 minutes."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    prose = " ".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    prose = re.sub(r"\$\$.*?\$\$|\{[a-z:]+\}`[^`]*`|`[^`]*`|[#*:>|]", " ", prose, flags=re.S)
    words = len(prose.split())
    return max(5, 5 * math.ceil(words / WORDS_PER_MINUTE / 5))


def run_time(seconds: dict[str, float], name: str, decimals: int) -> str:
    """A run-time cell: the measured seconds, or "not measured yet"."""
    value = seconds.get(name)
    return NOT_MEASURED if value is None else f"{value:.{decimals}f}"


def execution_rows(srcdir: Path) -> tuple[list[tuple[str, str, int, str]], str]:
    """(document, notebook name, code cells, run time) per chapter, and the total's cell.

    The total adds the measured chapters and says how many are not measured yet.
    """
    seconds = notebook_run_seconds(srcdir)
    rows, total, missing = [], 0.0, 0
    for _, doc in toc_chapters(srcdir):
        name = f"{Path(doc).name}.ipynb"
        cells = json.loads((srcdir / f"{doc}.ipynb").read_text(encoding="utf-8"))["cells"]
        rows.append((doc, name, sum(c["cell_type"] == "code" for c in cells),
                     run_time(seconds, name, 1)))
        total += seconds.get(name, 0.0)
        missing += name not in seconds
    total_cell = f"{total:.1f}" + (f" ({missing} {NOT_MEASURED})" if missing else "")
    return rows, total_cell


def syllabus_rows(srcdir: Path) -> list[tuple[int, str, str, int, str]]:
    """(number, part, document, reading minutes, run time) per chapter, in reading order."""
    seconds = notebook_run_seconds(srcdir)
    return [(number, part, doc, reading_minutes(srcdir / f"{doc}.ipynb"),
             run_time(seconds, f"{Path(doc).name}.ipynb", 0))
            for number, (part, doc) in enumerate(toc_chapters(srcdir), start=1)]


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

    has_content = False

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

    has_content = False

    def run(self) -> list[nodes.Node]:
        srcdir = Path(self.env.srcdir)
        self.env.note_dependency(str(srcdir / "benchmarks" / "report.json"))
        rows: list[list[nodes.Node | str]] = []
        for number, part, doc, minutes, run in syllabus_rows(srcdir):
            self.env.note_dependency(str(srcdir / f"{doc}.ipynb"))
            rows.append([str(number), part, _doc_link(self.env, doc), str(minutes), run])
        return [_table(["Chapter", "Part", "Title", "Reading (min)", "Run time (s)"], rows,
                       [8, 27, 45, 10, 10], ["syllabus-table"])]

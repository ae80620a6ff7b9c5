"""The instructors' page's problem list: directive ``assignment-problems``.

What it changes, and why: the instructor edition's problems live in text sources
(``assignments/problems/<chapter>/<id>.md``, read by ``assignments/problems.py``); the list an
instructor plans with (each problem's chapter, points, estimated minutes and the concept it
grades) is generated from those same files when the site is built, so it cannot drift from
them. Chapter names are links that Sphinx fills in with the chapter's title.
"""

from __future__ import annotations

import sys
from pathlib import Path

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

from .tables import _doc_link, _table


def _problems(srcdir: Path) -> list:
    folder = str(srcdir / "assignments")
    if folder not in sys.path:
        sys.path.insert(0, folder)
    import problems  # assignments/problems.py

    return problems.load_problems()


def summary(items: list) -> str:
    """One sentence: how many problems, chapters, points and hours."""
    chapters = {p.chapter for p in items}
    minutes = sum(p.meta["minutes"] for p in items)
    points = sum(p.points for p in items)
    mutants = sum(len(p.of("mutant")) for p in items)
    written = sum(p.written for p in items)
    return (f"{len(items)} problems in {len(chapters)} chapters, {points:g} points, about "
            f"{minutes / 60:.1f} hours of work for a student; the tests grade "
            f"{mutants} wrong solutions (mutants) against them. {written} of the problems are "
            "written answers, graded by hand with a rubric.")


class AssignmentProblems(SphinxDirective):
    """A sentence with the totals, then one row per problem, in the book's order."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        srcdir = Path(self.env.srcdir)
        items = _problems(srcdir)
        for p in items:
            self.env.note_dependency(str(p.path))
        rows: list[list[nodes.Node | str]] = []
        for p in items:
            rows.append([_doc_link(self.env, f"chapters/{p.chapter}"),
                         nodes.paragraph(text=f"{p.title} ({p.chapter}/{p.pid})"),
                         f"{p.points:g}", str(p.meta["minutes"]),
                         str(p.meta["concept"]) + (" (a written answer, graded by hand)"
                                                   if p.written else "")])
        return [nodes.paragraph(text=summary(items)),
                _table(["Chapter", "Problem", "Points", "Minutes", "What it grades"], rows,
                       [22, 26, 8, 9, 35], ["assignment-problems"])]

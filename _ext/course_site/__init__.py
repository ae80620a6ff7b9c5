"""Sphinx extension for the course website (``_config.yml`` loads it from ``_ext/``).

What Jupyter Book 1.x does not do on its own, one module per concern; each module's docstring
says what it changes and why:

* course content: :mod:`.location` (where the course lives, the footer), :mod:`.archive`
  (what ``course.zip`` holds), :mod:`.tables` (the run-time and syllabus tables, and each chapter's
  reading time under its title), :mod:`.assignments` (the instructors' problem list),
  :mod:`.explorables` (figures the reader drives, on the pages that declare one);
* page weight: :mod:`.page_weight` (figures that load lazily, no extension assets a page does
  not use);
* :mod:`.upstream_workarounds`: the only place that works around other projects' behaviour,
  each with its upstream issue and a test that fails when upstream changes; the theme's head
  (``templates/layout.html``), its icons and its stylesheet (:mod:`.icons`) among them.

No module sets attributes on another extension or on Sphinx's objects, and none rewrites a
page or an asset that Sphinx wrote: what a page loads is changed through the templates and the
``html-page-context`` event (the one rewrite left is :func:`.archive.name_the_archive_in_downloads`,
on the reader edition's downloads, which ``reader_edition.py`` writes with ``course.zip``).
"""

from __future__ import annotations

from sphinx.application import Sphinx

from . import (archive, assignments, explorables, location, page_weight, tables,
               upstream_workarounds)


def setup(app: Sphinx) -> dict[str, object]:
    app.connect("config-inited", location.on_config_inited)
    app.connect("html-page-context", location.on_page_context, priority=100)
    app.add_directive("execution-statistics", tables.ExecutionStatistics)
    app.add_directive("syllabus-table", tables.SyllabusTable)
    app.add_role("reading-total", tables.ReadingTotal())
    app.add_directive("assignment-problems", assignments.AssignmentProblems)
    app.add_transform(tables.ReadingTimeLine)
    app.connect("html-page-context", tables.next_core_page)
    app.add_post_transform(page_weight.LazyFigures)
    app.connect("html-page-context", page_weight.drop_unused_assets)
    explorables.setup(app)
    upstream_workarounds.setup(app)
    return {"version": "3.0", "parallel_read_safe": True, "parallel_write_safe": True}

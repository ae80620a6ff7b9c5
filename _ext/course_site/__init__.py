"""Sphinx extension for the course website (``_config.yml`` loads it from ``_ext/``).

What Jupyter Book 1.x does not do on its own, one module per concern; each module's docstring
says what it changes and why:

* course content: :mod:`.location` (where the course lives, the footer), :mod:`.archive`
  (``course.zip``), :mod:`.tables` (the run-time and syllabus tables, and each chapter's
  reading time under its title), :mod:`.assignments` (the instructors' problem list),
  :mod:`.explorables` (figures the reader drives, on the pages that declare one);
* page weight: :mod:`.page_weight` runs the passes over the built site, with :mod:`.icons`,
  :mod:`.code_colours` and :mod:`.stylesheets`;
* :mod:`.upstream_workarounds`: the only place that works around other projects' behaviour,
  each with its upstream issue and a test that fails when upstream changes.

No module sets attributes on another extension or on Sphinx's application object.
"""

from __future__ import annotations

from pathlib import Path

from sphinx.application import Sphinx

from . import (archive, assignments, explorables, location, page_weight, tables,
               upstream_workarounds)


def _write_course_archive(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    outdir, where = Path(app.outdir), app.env_course_location
    archive.write_course_archive(Path(app.srcdir), outdir / archive.ARCHIVE_NAME, where)
    archive.name_the_archive_in_downloads(outdir, where)


def setup(app: Sphinx) -> dict[str, object]:
    app.connect("config-inited", location.on_config_inited)
    app.connect("html-page-context", location.on_page_context, priority=100)
    app.add_directive("execution-statistics", tables.ExecutionStatistics)
    app.add_directive("syllabus-table", tables.SyllabusTable)
    app.add_role("reading-total", tables.ReadingTotal())
    app.add_directive("assignment-problems", assignments.AssignmentProblems)
    app.add_transform(tables.ReadingTimeLine)
    app.connect("html-page-context", tables.next_core_page)
    app.connect("builder-inited", page_weight.restore_originals)
    # after the theme rewrites pygments.css with its light and dark styles (priority 500)
    app.connect("build-finished", _write_course_archive, priority=900)
    app.connect("build-finished", page_weight.make_pages_lighter, priority=901)
    explorables.setup(app)
    upstream_workarounds.setup(app)
    return {"version": "3.0", "parallel_read_safe": True, "parallel_write_safe": True}

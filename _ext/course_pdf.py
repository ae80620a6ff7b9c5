"""Sphinx extension for the PDF edition and its link on the website (loaded by ``_config.yml``).

* **Numbers as on the website.** sphinx-jupyterbook-latex sets ``numfig_secnum_depth`` to 2
  when the book has parts, expecting part numbers in front of the chapter numbers. Jupyter
  Book numbers chapters across parts without them (``sphinx-multitoc-numbering``), so the PDF
  said "Definition 4.4.1" where the website says "Definition 4.1". The LaTeX build uses the
  website's depth, 1; ``_ext/latex/course-pdf.sty`` numbers LaTeX's own counters per chapter.
* **Back matter.** The first part of ``_toc.yml`` that is not numbered (the reference pages)
  starts the back matter: ``course-pdf.sty`` learns its title, and its chapters are unnumbered,
  as on the website.
* **Long tables fit the page.** A table long enough to become a LaTeX ``longtable`` gets
  column widths from its content (``LongTableWidths``) instead of one unbreakable line per cell.
* **The website links the PDF only when there is one.** The intro's link to the PDF is kept
  when the PDF edition has been built (``make pdf``), and the PDF is then copied beside the
  pages; after ``make book`` alone the link's list item is left out instead of pointing at a
  missing file.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging
from sphinx.util.texescape import escape

from course_site.archive import toc_parts

LOGGER = logging.getLogger(__name__)


def pdf_name(config) -> str:
    """The PDF edition's file name, from ``latex_documents`` (``<targetname>.pdf``)."""
    target = config.latex_documents[0][1]
    return Path(target).with_suffix(".pdf").name


def built_pdf(app: Sphinx) -> Path:
    """Where ``make pdf`` leaves the PDF: ``_build/latex/`` beside the site's ``_build/html``."""
    return Path(app.outdir).parent / "latex" / pdf_name(app.config)


# --------------------------------------------------------------------------------------------
# Numbers and back matter (LaTeX builder)
# --------------------------------------------------------------------------------------------
def _numbers_as_on_the_site(app: Sphinx) -> None:
    # runs after sphinx-jupyterbook-latex's builder-inited handler (priority 500)
    if app.builder.format == "latex":
        app.config.numfig_secnum_depth = 1


def _back_matter(app: Sphinx, config) -> None:
    """Name the first unnumbered part of ``_toc.yml`` to ``course-pdf.sty``: it starts the
    back matter (``\\coursebackmatterpart``, compared with each part's title)."""
    if not (Path(app.srcdir) / "_toc.yml").exists():
        return  # a plain Sphinx project: no parts, no back matter
    captions = [caption for caption, numbered, _ in toc_parts(Path(app.srcdir))
                if caption and not numbered]
    if captions:
        elements = config.latex_elements
        elements["preamble"] = (elements.get("preamble", "")
                                + "\n\\def\\coursebackmatterpart{%s}\n" % escape(captions[0]))


class EmptyCells(SphinxPostTransform):
    """Drop the code cells that show nothing (LaTeX only).

    A cell tagged ``remove-input`` whose outputs are only glue records (the cells that publish
    numbers to the prose) leaves an empty cell container. The HTML writer ignores it; the LaTeX
    writer turns it into empty environments whose paragraph skips, at the end of an exercise or
    solution box, pushed the box past the page (an overfull vbox of 11 pt).
    """

    default_priority = 390
    formats = ("latex",)

    def run(self, **kwargs) -> None:
        for cell in list(self.document.findall(nodes.container)):
            if "cell" in cell["classes"] and cell.parent is not None and not cell.astext().strip() \
                    and not any(True for _ in cell.findall(nodes.image)) \
                    and not any(True for _ in cell.findall(nodes.raw)):
                cell.parent.remove(cell)


class LongTableWidths(SphinxPostTransform):
    """Give a long table's columns widths from their content (LaTeX only).

    A table of more than 30 rows becomes a ``longtable`` so that it can break across pages,
    and without given widths Sphinx sets its columns as ``l``: one line each, however long,
    so the notation table ran 750 pt off the page. Markdown tables cannot say widths, so each
    column gets a share of the line from what it holds: the longer of its average cell and its
    longest unbreakable piece (a word, or a formula, which cannot break). Tables with given
    widths are left alone.
    """

    default_priority = 400
    formats = ("latex",)
    ROWS = 30  # Sphinx's LaTeX writer uses longtable above this

    def run(self, **kwargs) -> None:
        for table in self.document.findall(nodes.table):
            groups = list(table.findall(nodes.tgroup))
            if not groups or "colwidths-given" in table["classes"]:
                continue
            rows = list(groups[0].findall(nodes.row))
            if len(rows) < self.ROWS:
                continue
            colspecs = list(groups[0].findall(nodes.colspec))
            demand = [0.0] * len(colspecs)
            for i in range(len(colspecs)):
                cells = [row[i] for row in rows if len(row) > i]
                lengths = [len(cell.astext()) for cell in cells]
                pieces = [len(m.astext()) for cell in cells for m in cell.findall(nodes.math)]
                pieces += [len(w) for cell in cells for w in cell.astext().split()]
                demand[i] = max(sum(lengths) / max(len(lengths), 1), max(pieces, default=1))
            total = sum(demand)
            for colspec, d in zip(colspecs, demand):
                colspec["colwidth"] = max(round(100 * d / total), 10)
            table["classes"].append("colwidths-given")


# --------------------------------------------------------------------------------------------
# The website's link to the PDF (HTML builders)
# --------------------------------------------------------------------------------------------
def _pdf_built(app: Sphinx, config) -> None:
    """Whether the PDF is there, as an HTML config value: when it was built or removed since
    the last build, Sphinx rewrites every page (the link follows it)."""
    config.course_pdf_built = built_pdf(app).exists()


def _drop_missing_pdf_link(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    if app.builder.format != "html" or app.config.course_pdf_built:
        return
    href = f'href="{pdf_name(app.config)}"'
    for item in [i for i in doctree.findall(nodes.list_item)
                 if any(href in raw.astext() for raw in i.findall(nodes.raw))]:
        item.parent.remove(item)


def _copy_pdf(app: Sphinx, exception) -> None:
    if exception is None and app.builder.format == "html" and built_pdf(app).exists():
        shutil.copy2(built_pdf(app), Path(app.outdir) / pdf_name(app.config))


def setup(app: Sphinx) -> dict[str, object]:
    app.connect("builder-inited", _numbers_as_on_the_site, priority=900)
    app.connect("config-inited", _back_matter)
    app.add_post_transform(EmptyCells)
    app.add_post_transform(LongTableWidths)
    app.add_config_value("course_pdf_built", False, "html")
    app.connect("config-inited", _pdf_built)
    app.connect("doctree-resolved", _drop_missing_pdf_link)
    app.connect("build-finished", _copy_pdf)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}

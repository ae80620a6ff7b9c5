"""Sphinx extension for the course website (loaded through ``_config.yml``).

It does two things that Jupyter Book 1.x does not:

* writes ``course.zip`` into the site's root at the end of every HTML build: every chapter
  notebook, ``helpers.py``, ``data/``, ``requirements.txt``, ``runtime.txt`` and a short
  ``HOW-TO-RUN.md``. The archive is byte-for-byte reproducible (sorted entries, fixed dates);
* provides the ``execution-statistics`` directive: a table of each notebook's run time, read
  from the cell timing metadata that ``make notebooks`` (nbclient) stores in the notebooks.
  The book itself renders the committed outputs (``execute_notebooks: "off"``), so myst-nb's
  own execution table would be empty.
"""

from __future__ import annotations

import datetime as dt
import json
import zipfile
from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

ARCHIVE_NAME = "course.zip"
ARCHIVE_ROOT = "dp-course"
FIXED_DATE = (2024, 1, 1, 0, 0, 0)

HOW_TO_RUN = """\
# How to run the course on your machine

You need Python 3.11 (3.12 may work; 3.11 is what the outputs were made with).

```bash
cd dp-course
python3.11 -m venv .venv
source .venv/bin/activate            # Windows: .venv\\Scripts\\activate
pip install -r requirements.txt jupyterlab
jupyter lab chapters/
```

Open the chapters in order, starting with `datasets.ipynb`, and run them top to bottom
(*Run > Run All Cells*). Keep the layout as it is: every notebook imports
`chapters/helpers.py` and reads `data/`.

All randomness comes from seeded generators, so you get the numbers printed in the book.
The one exception is OpenDP, which draws its noise from the operating system and cannot be
seeded; the notebooks never print its noisy values.

To run every notebook without opening Jupyter:

```bash
jupyter execute --inplace chapters/*.ipynb   # needs: pip install nbclient (installed above)
```
"""


def _course_files(srcdir: Path) -> list[tuple[Path, str]]:
    """(source path, path inside the archive) for every file the archive holds."""
    files = sorted((srcdir / "chapters").glob("*.ipynb"))
    files += [srcdir / "chapters" / "helpers.py"]
    files += sorted((srcdir / "chapters" / "dpcourse").glob("*.py"))
    files += sorted((srcdir / "data").glob("*.csv")) + [srcdir / "data" / "README.md"]
    files += [srcdir / "requirements.txt", srcdir / "runtime.txt"]
    return [(f, f"{ARCHIVE_ROOT}/{f.relative_to(srcdir).as_posix()}") for f in files]


def write_course_archive(srcdir: Path, destination: Path) -> Path:
    """Write the reproducible course archive to ``destination`` and return its path."""
    destination.parent.mkdir(parents=True, exist_ok=True)
    entries = _course_files(srcdir)
    with zipfile.ZipFile(destination, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for source, arcname in entries:
            info = zipfile.ZipInfo(arcname, date_time=FIXED_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, source.read_bytes())
        info = zipfile.ZipInfo(f"{ARCHIVE_ROOT}/HOW-TO-RUN.md", date_time=FIXED_DATE)
        info.compress_type = zipfile.ZIP_DEFLATED
        info.external_attr = 0o644 << 16
        zf.writestr(info, HOW_TO_RUN)
    return destination


def _on_build_finished(app: Sphinx, exception: Exception | None) -> None:
    if exception is None and app.builder.format == "html":
        write_course_archive(Path(app.srcdir), Path(app.outdir) / ARCHIVE_NAME)


def notebook_run_seconds(path: Path) -> float | None:
    """Wall time of the last top-to-bottom execution, from nbclient's cell timing metadata."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    starts, ends = [], []
    for cell in cells:
        timing = cell.get("metadata", {}).get("execution", {})
        if "iopub.execute_input" in timing and "shell.execute_reply" in timing:
            starts.append(dt.datetime.fromisoformat(timing["iopub.execute_input"].rstrip("Z")))
            ends.append(dt.datetime.fromisoformat(timing["shell.execute_reply"].rstrip("Z")))
    if not starts:
        return None
    return (max(ends) - min(starts)).total_seconds()


class ExecutionStatistics(SphinxDirective):
    """Table of every chapter notebook with its last recorded execution time."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        srcdir = Path(self.env.srcdir)
        notebooks = sorted((srcdir / "chapters").glob("*.ipynb"))
        table = nodes.table(classes=["execution-statistics"])
        group = nodes.tgroup(cols=3)
        table += group
        for width in (50, 25, 25):
            group += nodes.colspec(colwidth=width)
        head = nodes.thead()
        group += head
        body = nodes.tbody()
        group += body

        def row(cells: list[nodes.Node | str], parent: nodes.Element) -> None:
            tr = nodes.row()
            for cell in cells:
                entry = nodes.entry()
                entry += cell if isinstance(cell, nodes.Node) else nodes.paragraph(text=cell)
                tr += entry
            parent += tr

        row(["Notebook", "Code cells", "Run time (s)"], head)
        total = 0.0
        for path in notebooks:
            self.env.note_dependency(str(path))
            seconds = notebook_run_seconds(path)
            n_code = sum(c["cell_type"] == "code"
                         for c in json.loads(path.read_text(encoding="utf-8"))["cells"])
            total += seconds or 0.0
            docname = f"chapters/{path.stem}"
            para = nodes.paragraph()
            ref = addnodes.pending_xref("", refdomain="std", reftype="doc",
                                        reftarget=f"/{docname}", refexplicit=True,
                                        refdoc=self.env.docname)
            ref += nodes.inline(text=path.name)
            para += ref
            row([para, str(n_code), "not recorded" if seconds is None else f"{seconds:.1f}"],
                body)
        row([nodes.paragraph(text="Total"), "", f"{total:.1f}"], body)
        return [table]


def _fix_page_context(app: Sphinx, pagename: str, templatename: str, context: dict,
                      doctree: object) -> None:
    """Drop repeated <script> entries and give the theme a valid default colour mode.

    Jupyter Book registers the inline configuration of sphinx-thebe and sphinx-togglebutton
    twice, and a repeated ``const THEBE_JS_URL`` is a SyntaxError in the browser console.
    """
    seen: set[tuple] = set()
    unique = []
    for script in context.get("script_files", []):
        # the same inline script is registered once with filename None and once with ""
        key = (getattr(script, "filename", script) or "",
               tuple(sorted(getattr(script, "attributes", {}).items())))
        if key not in seen:
            seen.add(key)
            unique.append(script)
    context["script_files"][:] = unique
    # pydata-sphinx-theme writes `dataset.mode = localStorage.mode || "{{ default_mode }}"`;
    # under Jupyter Book the variable is empty, which logs "Got invalid theme mode" on load.
    if not context.get("default_mode"):
        context["default_mode"] = "light"
    # docutils marks the bibliography as role="list" but its entries as "doc-biblioentry",
    # which axe reports as a critical ARIA error (a list must contain list items).
    if "body" in context:
        context["body"] = context["body"].replace('role="doc-biblioentry"', 'role="listitem"')


def setup(app: Sphinx) -> dict[str, object]:
    app.connect("build-finished", _on_build_finished)
    app.connect("html-page-context", _fix_page_context, priority=100)
    app.add_directive("execution-statistics", ExecutionStatistics)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}

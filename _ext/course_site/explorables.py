"""Explorables: figures the reader drives with sliders, computed in the page (issue 42).

What it changes, and why: nothing a reader did on the site changed a figure. Now a chapter can
put an explorable after one of its code cells. Nothing is added to a page without one.

**The contract** (for whoever writes the next explorable):

* **Declaring one.** Tag the code cell whose static figure (or table) the explorable extends
  with ``explorable-<name>``. A tag is cell metadata: the reading-time estimate, the reader
  edition, the PDF and nbval ignore it, and the stored outputs do not change. MyST-NB writes
  it as the class ``tag_explorable-<name>`` of the cell's ``<div>``. The static figure stays
  for the PDF, the notebooks and a reader without JavaScript; the explorable is inserted after
  the cell.
* **Where the JavaScript lives:** ``_static/explorables/``, as ES modules (``.mjs``: Jupyter
  Book links every ``_static/**/*.js`` from every page, never a ``.mjs``; never put a ``.js``
  there). ``<name>.mjs`` draws the explorable: it imports ``register`` and ``fmt`` from
  ``explorables.mjs`` (the shared runtime: labelled sliders, read-outs, d3 charts, lazy
  mounting) and calls ``register("<name>", {title, height, mount(ui)})``. Its numbers come
  from ``<name>-math.mjs``: pure functions and constants, no DOM.
* **What a page loads** (linked here, on pages with a tagged cell only): ``explorables/d3.js``,
  deferred (the d3 modules of :data:`D3_MODULES`, npm, pinned in ``package.json``, their UMD
  builds joined at build time from ``node_modules/``; one file for the whole site, cached once),
  then each ``explorables/<name>.mjs`` as a module (deferred by nature; Sphinx adds a checksum to
  its URL).
* **Testing the numbers:** ``tests/site/test_explorables.py`` imports ``<name>-math.mjs`` under
  Node.js (``node_call``) and compares it with ``dpcourse``, the chapter's code or scipy at
  several settings (1e-9 where exact).
* **What the browser test finds:** ``figure.explorable[data-explorable="<name>"]``, with
  ``data-ready="true"`` once mounted (when it nears the screen: scroll it into view);
  ``input[type=range][data-key=<key>]`` per control, an index into its list of values, the value
  itself in ``output[data-key=<key>]``'s ``data-value``; each read-out
  ``.explorable-readout output[data-key=<key>]``, the number shown as text and the unrounded one in
  ``data-value``; one ``svg[data-chart]`` per chart; ``data-updates`` counts redraws.
* **The runtime's API** (``mount(ui)``): ``ui.slider({key, label, values, value, format})``
  (returns ``{value, input}``), ``ui.chart({title, x: {domain, log, tickFormat}, y, xLabel,
  yLabel, legend: [[cls, text], ...]})``, ``ui.draw(chart, layers)`` with layers ``{kind:
  "line" | "area" | "band" | "dots" | "vline", points, cls}`` (classes ``s1``-``s3`` lines,
  ``a1``-``a3`` areas, in the theme's colours), ``ui.readout([[key, label], ...])`` (returns
  ``{set(key, value, text)}``) and ``ui.onUpdate(handler)``, run at mount and after every change.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError

#: The cell tag that declares an explorable, before its name.
TAG = "explorable-"
#: Where the pages load them from, inside ``_static``.
STATIC = "explorables"
#: The d3 modules joined into ``d3.js``, each after those it needs (their UMD builds read and
#: extend the one global ``d3``). Not d3-time and d3-time-format (5 KiB gzipped), which only
#: ``d3.scaleTime`` and ``d3.scaleUtc`` need.
D3_MODULES = ("d3-array", "d3-color", "d3-interpolate", "d3-format", "d3-scale", "d3-path",
              "d3-shape", "d3-selection", "d3-axis")


def names_on_page(doctree: nodes.Node) -> list[str]:
    """The explorables a page declares (tagged cells), in page order, each once."""
    prefix = f"tag_{TAG}"
    found = [cls[len(prefix):] for node in doctree.findall(nodes.Element)
             for cls in node.get("classes", []) if cls.startswith(prefix)]
    return list(dict.fromkeys(found))


def d3_bundle(node_modules: Path) -> str:
    """The UMD builds of :data:`D3_MODULES`, joined in order (their licence lines kept)."""
    if not (node_modules / "d3-scale").is_dir():
        raise ExtensionError(f"d3 is missing from {node_modules}: `make book` installs it")
    parts = ["// d3 modules (ISC licence: LICENSE-d3.txt beside this file)"]
    for module in D3_MODULES:
        dist = node_modules / module / "dist" / f"{module}.min.js"
        parts.append(dist.read_text(encoding="utf-8").strip())
    return "\n".join(parts) + "\n"


def d3_licences(node_modules: Path) -> str:
    """The licences of :data:`D3_MODULES`, each text once, with the modules it covers."""
    texts: dict[str, list[str]] = {}
    for module in D3_MODULES:
        text = (node_modules / module / "LICENSE").read_text(encoding="utf-8").strip()
        texts.setdefault(text, []).append(module)
    return "\n\n".join(f"{', '.join(modules)}:\n\n{text}"
                       for text, modules in texts.items()) + "\n"


def _stage(app: Sphinx) -> None:
    """Write ``d3.js`` and its licences into a folder that Sphinx copies into ``_static``
    (``builder-inited``); the explorables' modules are in the book's ``_static/explorables/``."""
    if app.builder.format != "html":
        return
    root = Path(app.doctreedir) / "explorables-static"
    target = root / STATIC
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    node_modules = Path(app.srcdir) / "node_modules"
    (target / "d3.js").write_text(d3_bundle(node_modules), encoding="utf-8")
    (target / "LICENSE-d3.txt").write_text(d3_licences(node_modules), encoding="utf-8")
    app.config.html_static_path.append(str(root))


def _link(app: Sphinx, pagename: str, templatename: str, context: dict,
          doctree: nodes.Node | None) -> None:
    """Link the explorables' scripts from a page that declares one (``html-page-context``)."""
    names = names_on_page(doctree) if doctree is not None else []
    if not names:
        return
    app.add_js_file(f"{STATIC}/d3.js", loading_method="defer")
    for name in names:
        app.add_js_file(f"{STATIC}/{name}.mjs", type="module")


def setup(app: Sphinx) -> None:
    app.connect("builder-inited", _stage)
    app.connect("html-page-context", _link)

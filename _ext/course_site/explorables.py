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
* **What a page loads** (linked here, on pages with a tagged cell only): each
  ``explorables/<name>.mjs`` as a module (deferred by nature; Sphinx adds a checksum to its
  URL). The runtime fetches ``explorables/d3.js`` when the first figure nears the screen, not
  with the page (the functions of :data:`D3_EXPORTS`, from npm's d3 modules pinned in
  ``package.json``, bundled by esbuild at build time; one file for the whole site, cached once;
  a new ``d3.<name>`` in a module goes into :data:`D3_EXPORTS`).
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

import json
import shutil
import subprocess
from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError

#: The cell tag that declares an explorable, before its name.
TAG = "explorable-"
#: Where the pages load them from, inside ``_static``.
STATIC = "explorables"
#: What the explorables use of d3 (``d3.<name>`` in ``_static/explorables/*.mjs``), by module:
#: esbuild (npm, pinned in ``package.json``) bundles these and what they import, and nothing
#: else, into ``d3.js``, which defines the global ``d3``. The whole UMD builds of the modules
#: they need weighed 104 KiB (31 KiB gzipped); this bundle weighs 63 KiB (20 KiB gzipped).
D3_EXPORTS = {"d3-scale": ("scaleLinear", "scaleLog"), "d3-axis": ("axisBottom", "axisLeft"),
              "d3-shape": ("line", "area"), "d3-selection": ("select",)}
#: The comment that opens ``d3.js`` (esbuild drops the packages' own licence comments).
BANNER = "// d3 (ISC licence: LICENSE-d3.txt beside this file), bundled by esbuild"


def names_on_page(doctree: nodes.Node) -> list[str]:
    """The explorables a page declares (tagged cells), in page order, each once."""
    prefix = f"tag_{TAG}"
    found = [cls[len(prefix):] for node in doctree.findall(nodes.Element)
             for cls in node.get("classes", []) if cls.startswith(prefix)]
    return list(dict.fromkeys(found))


def d3_bundle(node_modules: Path, out: Path, meta: Path) -> None:
    """Write :data:`D3_EXPORTS` bundled by esbuild, minified, into ``out``, and esbuild's
    metafile (the source files it took) into ``meta``."""
    esbuild = node_modules / ".bin" / "esbuild"
    if not esbuild.exists() or not (node_modules / "d3-scale").is_dir():
        raise ExtensionError(f"d3 or esbuild is missing from {node_modules}: `make book` "
                             "installs them")
    entry = "".join(f"export {{ {', '.join(names)} }} from {json.dumps(module)};\n"
                    for module, names in D3_EXPORTS.items())
    done = subprocess.run(
        [str(esbuild), "--bundle", "--minify", "--format=iife", "--global-name=d3",
         "--legal-comments=none", "--log-level=warning", f"--banner:js={BANNER}",
         f"--outfile={out}", f"--metafile={meta}", "--sourcefile=d3-entry.mjs"],
        input=entry, capture_output=True, text=True, cwd=node_modules.parent)
    if done.returncode != 0 or done.stderr.strip():
        raise ExtensionError(f"esbuild could not bundle d3: {done.stderr.strip()}")


def d3_licences(node_modules: Path, meta: Path) -> str:
    """The licences of the packages esbuild took (its metafile ``meta``), each text once, with
    the packages it covers."""
    inputs = json.loads(meta.read_text(encoding="utf-8"))["inputs"]
    packages = sorted({Path(source).parts[1] for source in inputs
                       if Path(source).parts[0] == "node_modules"})
    texts: dict[str, list[str]] = {}
    for package in packages:
        text = (node_modules / package / "LICENSE").read_text(encoding="utf-8").strip()
        texts.setdefault(text, []).append(package)
    return "\n\n".join(f"{', '.join(names)}:\n\n{text}"
                       for text, names in texts.items()) + "\n"


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
    meta = Path(app.doctreedir) / "d3-esbuild-meta.json"  # not in root: Sphinx copies that
    d3_bundle(node_modules, target / "d3.js", meta)
    (target / "LICENSE-d3.txt").write_text(d3_licences(node_modules, meta), encoding="utf-8")
    app.config.html_static_path.append(str(root))


def _link(app: Sphinx, pagename: str, templatename: str, context: dict,
          doctree: nodes.Node | None) -> None:
    """Link the explorables' modules from a page that declares one (``html-page-context``)."""
    for name in names_on_page(doctree) if doctree is not None else []:
        app.add_js_file(f"{STATIC}/{name}.mjs", type="module")


def setup(app: Sphinx) -> None:
    app.connect("builder-inited", _stage)
    app.connect("html-page-context", _link)

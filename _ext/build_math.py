"""Formulas rendered when the site is built, not in the reader's browser.

The HTML builder hands every formula to KaTeX (from npm: ``package.json`` pins it, ``make venv``
installs it into ``node_modules/``), which runs in one Node.js
process for the whole build (``katex-render.js`` beside this file). KaTeX writes the formula as
HTML, marked ``aria-hidden``, together with its MathML, which screen readers read. No page loads
a script to typeset math.

* **Every formula renders, or the build fails.** KaTeX runs with ``throwOnError`` and
  ``strict: "error"``; a formula it rejects is a warning naming the page and the formula, which
  ``-W`` turns into a failed build.
* **Served by the site.** KaTeX's stylesheet and fonts are copied from the same npm package into
  ``_static/katex/``; only pages with math link the stylesheet, and a browser fetches only the
  fonts a page's formulas use.
* **Numbered equations** get the same number and permalink as with Sphinx's MathJax renderer;
  ``{eq}`` references are resolved by Sphinx's math domain, whatever the renderer.

Why not ``sphinxcontrib-katex``'s prerendering (0.9.11): it connects to its Node.js server as
soon as the socket file exists, before the server listens, and failed on four of five starts on
this machine (leaving the server running); it also ignores ``katex_options`` when prerendering
(its issues #65 and #145), so KaTeX's errors would print red formulas instead of failing the
build. The PDF edition is not touched: the LaTeX builder writes formulas as LaTeX.
"""

from __future__ import annotations

import atexit
import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.locale import _
from sphinx.util import logging
from sphinx.util.math import get_node_equation_number

LOGGER = logging.getLogger(__name__)

#: Where ``make venv`` installs KaTeX, relative to the book (the ``build_math_katex_dist``
#: setting, which may also be absolute).
KATEX_DIST = "node_modules/katex/dist"
RENDER_SCRIPT = Path(__file__).with_name("katex-render.js")
#: Where the site serves KaTeX's stylesheet and fonts, inside ``_static``.
KATEX_CSS = "katex/katex.min.css"
MATH_CLASSES = "math notranslate nohighlight"


def katex_dist(app: Sphinx) -> Path:
    """KaTeX's ``dist`` folder, or a clear error saying how to get it."""
    dist = Path(app.srcdir) / app.config.build_math_katex_dist
    if not (dist / "katex.min.js").exists():
        raise ExtensionError(f"KaTeX is missing ({dist}): `make venv` installs it from npm")
    return dist


class KatexError(ValueError):
    """KaTeX rejected a formula."""


class Katex:
    """One Node.js process rendering formulas with KaTeX, one JSON line per formula."""

    def __init__(self, dist: Path):
        node = shutil.which("node")
        if node is None:
            raise ExtensionError("Node.js (`node`) is needed to render the formulas")
        self.process = subprocess.Popen(
            [node, str(RENDER_SCRIPT), str(dist / "katex.min.js")], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, text=True, encoding="utf-8", bufsize=1)
        self.owner = os.getpid()
        atexit.register(self.close)

    def render(self, latex: str, display: bool) -> str:
        """KaTeX's HTML (with MathML) for ``latex``; :class:`KatexError` if KaTeX rejects it."""
        self.process.stdin.write(json.dumps({"latex": latex, "display": display}) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise ExtensionError(f"the KaTeX process ended (exit code {self.process.poll()})")
        answer = json.loads(line)
        if "error" in answer:
            raise KatexError(answer["error"])
        return answer["html"]

    def close(self) -> None:
        if self.owner == os.getpid() and self.process.poll() is None:
            self.process.stdin.close()
            self.process.wait(timeout=10)


def _katex(builder: Any) -> Katex:
    """This process's KaTeX process, started at its first formula.

    When Sphinx writes pages in parallel, each forked process starts its own: a pipe shared
    between processes would mix their formulas. A forked process's KaTeX ends with it (its
    input pipe closes).
    """
    katex = getattr(builder, "_course_katex", None)
    if katex is None or katex.owner != os.getpid():
        katex = builder._course_katex = Katex(katex_dist(builder.app))
    return katex


def _render(translator: Any, node: nodes.Element, latex: str, display: bool) -> str:
    try:
        return _katex(translator.builder).render(latex, display)
    except KatexError as error:
        LOGGER.warning("KaTeX could not render %r: %s", latex, error, location=node,
                       type="katex", subtype="render")
        return f'<span class="katex-error">{translator.encode(latex)}</span>'


def display_latex(node: nodes.Element) -> str:
    """The LaTeX KaTeX renders for a display formula, as Sphinx's MathJax renderer wraps it.

    Paragraphs of a ``math`` directive become aligned rows; a formula with line breaks is a
    ``split``; ``nowrap`` (amsmath environments such as ``align``) is rendered as written.
    """
    latex = node.astext()
    if node.get("nowrap"):
        return latex
    parts = [part for part in latex.split("\n\n") if part.strip()]
    wrapped = [rf"\begin{{split}}{part}\end{{split}}" if r"\\" in part else part
               for part in parts]
    if len(wrapped) > 1:
        return r"\begin{aligned}" + r"\\".join(wrapped) + r"\end{aligned}"
    return wrapped[0] if wrapped else ""


def visit_math(self: Any, node: nodes.math) -> None:
    self.body.append(self.starttag(node, "span", "", CLASS=MATH_CLASSES))
    self.body.append(_render(self, node, node.astext(), display=False))
    self.body.append("</span>")
    raise nodes.SkipNode


def visit_displaymath(self: Any, node: nodes.math_block) -> None:
    self.body.append(self.starttag(node, "div", CLASS=MATH_CLASSES))
    if node.get("number") and not node.get("nowrap"):
        number = get_node_equation_number(self, node)
        self.body.append(f'<span class="eqno">({number})')
        self.add_permalink_ref(node, _("Link to this equation"))
        self.body.append("</span>")
    self.body.append(_render(self, node, display_latex(node), display=True))
    self.body.append("</div>\n")
    raise nodes.SkipNode


def _link_stylesheet(app: Sphinx, pagename: str, templatename: str, context: dict,
                     doctree: object) -> None:
    """Pages with a formula link KaTeX's stylesheet; the others do not."""
    if 'class="katex' in (context.get("body") or ""):
        app.add_css_file(KATEX_CSS)  # called here, it adds the file to this page only


def _copy_katex(app: Sphinx, exception: Exception | None) -> None:
    """KaTeX's stylesheet and fonts, copied from npm into ``_static/katex/`` (woff2 only:
    every browser the theme supports reads it; the woff and ttf files are for older ones)."""
    builder = app.builder
    if getattr(builder, "_course_katex", None) is not None:
        builder._course_katex.close()
    if exception is not None or builder.format != "html":
        return
    dist = katex_dist(app)
    target = Path(app.outdir) / "_static" / "katex"
    if target.exists():
        shutil.rmtree(target)
    (target / "fonts").mkdir(parents=True)
    css = (dist / "katex.min.css").read_text(encoding="utf-8")
    css = re.sub(r',url\(fonts/[^)]+\.(?:woff|ttf)\) format\("(?:woff|truetype)"\)', "", css)
    (target / "katex.min.css").write_text(css, encoding="utf-8")
    for font in (dist / "fonts").glob("*.woff2"):
        shutil.copyfile(font, target / "fonts" / font.name)
    shutil.copyfile(dist.parent / "LICENSE", target / "LICENSE")


def setup(app: Sphinx) -> dict[str, object]:
    app.add_config_value("build_math_katex_dist", KATEX_DIST, "env", str)
    app.add_html_math_renderer("katex", inline_renderers=(visit_math, None),
                               block_renderers=(visit_displaymath, None))
    app.connect("html-page-context", _link_stylesheet)
    app.connect("build-finished", _copy_katex, priority=800)  # before course_site's pruning
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}

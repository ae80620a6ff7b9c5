"""Formulas rendered as MathML when the site is built, not in the reader's browser.

The HTML builder hands every formula to Temml (npm ``temml``: ``package.json`` pins it, ``make
venv`` installs it into ``node_modules/``), which runs in one Node.js process for the whole build
(``temml-render.js`` beside this file) and writes MathML Core: a ``<math>`` element that the
browser lays out and screen readers read. There is no HTML rendering beside it and no page loads
a script to typeset math. Why MathML alone: KaTeX's HTML and MathML made up about 10,600 of the
15,000 elements of ``privacy-accounting``, and a phone's CPU spent its blocking time styling them
(issue #39); Temml writes the same 282 formulas in about 2,900.

* **Every formula renders, or the build fails.** Temml runs with ``throwOnError`` and
  ``strict``; a formula it rejects is a warning naming the page and the formula, which ``-W``
  turns into a failed build (the page would show Temml's ``temml-error`` node instead).
* **All formulas first.** Once Sphinx has read the sources (``env-updated``), every formula of
  every page is rendered, before any page is written: the characters they use are then known, and
  so is the math font below. Pages are written from those results (a formula that only appears
  while pages are written is rendered then, and fails the build if the font lacks one of its
  characters).
* **A math font served by the site.** Browsers draw MathML with a math font (OpenType ``MATH``
  table: radicals, stretchy delimiters, script sizes); Chromium on Android has none. The site
  serves Latin Modern Math (``fonts/``, GUST Font License) cut down with fontTools' subsetter
  (what ``pyftsubset`` runs) to the characters of the site's formulas, plus the math-italic
  letters browsers substitute for one-letter identifiers and the radical sign they draw for
  ``\\sqrt``; the ``MATH`` table and every glyph it reaches (size variants and assembly pieces)
  stay, but not the script-size letters Chromium never draws (:data:`LAYOUT_FEATURES`). The
  subset is cached beside the doctrees under a digest of the font and the characters, so it is
  cut again only when the symbols change, and served as
  ``_static/math/course-math.<digest>.woff2`` (a new name when its content changes), preloaded
  by every page with a formula, under the family name "Course Math" (the licence asks derived
  fonts to be renamed).
* **Temml's stylesheet**, for the few constructs MathML Core leaves to CSS (column alignment,
  ``\\cancel``, accents' italic correction, AMS equation numbers), is copied from the same npm
  package into ``_static/math/math.css``, without its font faces (the site's are used) and
  without its rule that makes every formula a wrapping flex box (the site does not ask Temml
  for line-break points). ``course.css`` sizes the math to the body text.
* **Numbered equations** get the same number and permalink as with Sphinx's MathJax renderer;
  ``{eq}`` references are resolved by Sphinx's math domain, whatever the renderer.

The PDF edition is not touched: the LaTeX builder writes formulas as LaTeX.
"""

from __future__ import annotations

import atexit
import hashlib
import html
import json
import os
import re
import shutil
import subprocess
import unicodedata
import weakref
from pathlib import Path
from typing import Any, Iterator

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.errors import ExtensionError
from sphinx.locale import _
from sphinx.util import logging
from sphinx.util.math import get_node_equation_number

LOGGER = logging.getLogger(__name__)

#: Where ``make venv`` installs Temml, relative to the book (the ``build_math_temml`` setting,
#: which may also be absolute).
TEMML = "node_modules/temml"
RENDER_SCRIPT = Path(__file__).with_name("temml-render.js")
#: The math font the site's subset is cut from (see ``fonts/README.md``).
FONT_SOURCE = Path(__file__).parent / "fonts" / "latinmodern-math.woff2"
FONT_LICENCE = FONT_SOURCE.with_name("GUST-FONT-LICENSE.txt")
#: The family name of the subset (the GUST Font License asks derived fonts to be renamed).
FONT_FAMILY = "Course Math"
#: Where the site serves the math font and Temml's stylesheet, inside ``_static``.
STATIC = "math"
MATH_CSS = f"{STATIC}/math.css"
MATH_CLASSES = "math notranslate nohighlight"
#: Characters drawn from the math font that are not in any formula's text: the parentheses and
#: digits of Temml's AMS equation numbers (CSS counters), and the space.
ALWAYS = "()0123456789 \u00a0"
#: Characters Temml writes that Latin Modern Math lacks, drawn with the glyph of another:
#: ``\\bar`` is the overline U+203E, which in LaTeX is the macron accent.
ALIASES = {"\u203e": "\u00af"}
#: The font's OpenType features the subset keeps. Latin Modern Math files them all under the
#: script "math", which Chromium does not shape with: it draws a sub- or superscript from the
#: base glyph, made smaller (tests/site/test_math_gallery.py compares the two drawings). The
#: script-size alternates (ssty) that only Firefox draws were 35 of the subset's 65 KB, which
#: every first visit of a page with a formula loaded; they are left out.
LAYOUT_FEATURES = ("dtls",)
#: Bump when the subsetting below changes, so that cached subsets are cut again.
SUBSET_VERSION = "4"


def temml_dir(app: Sphinx) -> Path:
    """Temml's npm folder, or a clear error saying how to get it."""
    folder = Path(app.srcdir) / app.config.build_math_temml
    if not (folder / "dist" / "temml.cjs").exists():
        raise ExtensionError(f"Temml is missing ({folder}): `make venv` installs it from npm")
    return folder


class TemmlError(ValueError):
    """Temml rejected a formula."""


class Temml:
    """One Node.js process rendering formulas with Temml, one JSON line per formula."""

    def __init__(self, folder: Path):
        node = shutil.which("node")
        if node is None:
            raise ExtensionError("Node.js (`node`) is needed to render the formulas")
        self.process = subprocess.Popen(
            [node, str(RENDER_SCRIPT), str(folder / "dist" / "temml.cjs")], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, text=True, encoding="utf-8", bufsize=1)
        self.owner = os.getpid()
        atexit.register(self.close)

    def render(self, latex: str, display: bool) -> str:
        """Temml's MathML for ``latex``; :class:`TemmlError` if Temml rejects it."""
        self.process.stdin.write(json.dumps({"latex": latex, "display": display}) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise ExtensionError(f"the Temml process ended (exit code {self.process.poll()})")
        answer = json.loads(line)
        if "error" in answer:
            raise TemmlError(answer["error"])
        return answer["mathml"]

    def close(self) -> None:
        if self.owner == os.getpid() and self.process.poll() is None:
            self.process.stdin.close()
            self.process.wait(timeout=10)


class MathState:
    """The build's formulas (``(latex, display)`` to MathML, ``None`` when Temml rejected it),
    the characters the font was cut for, and the font's file name."""

    def __init__(self) -> None:
        self.rendered: dict[tuple[str, bool], str | None] = {}
        self.characters: set[str] = set()
        self.font: Path | None = None  # the cached subset
        self.process: Temml | None = None

    def temml(self, app: Sphinx) -> Temml:
        """This process's Temml process, started at its first formula (a page written by a
        forked process that meets a new formula starts its own: a shared pipe would mix them)."""
        if self.process is None or self.process.owner != os.getpid():
            self.process = Temml(temml_dir(app))
        return self.process


#: Each build's :class:`MathState`, keyed by its application (nothing is set on Sphinx's
#: objects; the entry goes with the application).
_STATES: "weakref.WeakKeyDictionary[Sphinx, MathState]" = weakref.WeakKeyDictionary()


def _state(app: Sphinx) -> MathState:
    return _STATES.setdefault(app, MathState())


def display_latex(node: nodes.Element) -> str:
    """The LaTeX Temml renders for a display formula, as Sphinx's MathJax renderer wraps it.

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


def formulas(doctree: nodes.Node) -> Iterator[tuple[str, bool, nodes.Element]]:
    """Every formula of ``doctree``: its LaTeX as rendered, whether it is displayed, its node."""
    for node in doctree.findall(nodes.math):
        yield node.astext(), False, node
    for node in doctree.findall(nodes.math_block):
        yield display_latex(node), True, node


_TEXT = re.compile(r">([^<]+)<")
_ONE_LETTER_MI = re.compile(r"<mi(?![^>]*\bmathvariant=)[^>]*>([^<]+)</mi>")


def math_italic(char: str) -> str | None:
    """The math-italic letter a browser draws for a one-letter ``<mi>`` (MathML Core's
    ``text-transform: math-auto``): ``x`` as U+1D465, ``α`` as U+1D6FC; ``None`` if none."""
    if char == "h":
        return "\u210e"  # PLANCK CONSTANT stands in for the missing MATHEMATICAL ITALIC SMALL H
    name = unicodedata.name(char, "")
    for old, new in (("LATIN SMALL LETTER ", "MATHEMATICAL ITALIC SMALL "),
                     ("LATIN CAPITAL LETTER ", "MATHEMATICAL ITALIC CAPITAL "),
                     ("GREEK SMALL LETTER ", "MATHEMATICAL ITALIC SMALL "),
                     ("GREEK CAPITAL LETTER ", "MATHEMATICAL ITALIC CAPITAL "),
                     ("GREEK LUNATE EPSILON SYMBOL", "MATHEMATICAL ITALIC EPSILON SYMBOL"),
                     ("GREEK ", "MATHEMATICAL ITALIC "),
                     ("LATIN SMALL LETTER DOTLESS ", "MATHEMATICAL ITALIC SMALL DOTLESS "),
                     ("PARTIAL DIFFERENTIAL", "MATHEMATICAL ITALIC PARTIAL DIFFERENTIAL"),
                     ("NABLA", "MATHEMATICAL ITALIC NABLA")):
        if name.startswith(old):
            try:
                return unicodedata.lookup(new + name[len(old):])
            except KeyError:
                continue
    return None


def characters(mathml: str) -> set[str]:
    """The characters a browser draws from the math font for ``mathml``."""
    found = set(html.unescape("".join(_TEXT.findall(mathml))))
    for match in _ONE_LETTER_MI.finditer(mathml):
        letter = html.unescape(match[1])
        if len(letter) == 1 and (italic := math_italic(letter)):
            found.add(italic)
    if "<msqrt" in mathml or "<mroot" in mathml:
        found.add("\u221a")  # the radical sign, drawn by the browser
    if "-" in found or "\u2212" in found:
        found |= {"-", "\u2212"}
    return found


def subset_font(chars: set[str], cache: Path) -> Path:
    """Latin Modern Math cut down to ``chars`` (the ``MATH`` table and the glyphs it reaches
    kept), renamed "Course Math", as WOFF2: a file of ``cache`` named by a digest of the
    source font and the characters, cut only when no such file exists yet."""
    from fontTools import subset

    source = FONT_SOURCE.read_bytes()
    key = hashlib.sha256(b"\0".join([SUBSET_VERSION.encode(), hashlib.sha256(source).digest(),
                                     "".join(sorted(chars)).encode("utf-8")])).hexdigest()[:16]
    target = cache / f"course-math.{key}.woff2"
    if target.is_file():
        return target
    options = subset.Options()
    # dtls (dotless i and j under accents), not ssty (script sizes): see LAYOUT_FEATURES
    options.layout_features = list(LAYOUT_FEATURES)
    options.flavor = "woff2"
    options.hinting = False
    options.desubroutinize = True  # about 3 % smaller once compressed
    options.drop_tables += ["FFTM"]  # FontForge's timestamps, which fontTools cannot subset
    options.recalc_timestamp = False  # the same characters give the same bytes
    font = subset.load_font(str(FONT_SOURCE), options)
    cmap = font.getBestCmap()
    aliases = {c: ALIASES[c] for c in chars if ord(c) not in cmap and ord(ALIASES.get(c, "\0")) in cmap}
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=sorted({ord(c) for c in chars} | {ord(a) for a in aliases.values()}))
    subsetter.subset(font)
    for table in font["cmap"].tables:
        if table.isUnicode():
            for char, alias in aliases.items():
                if ord(alias) in table.cmap and (ord(char) <= 0xFFFF or table.format == 12):
                    table.cmap[ord(char)] = table.cmap[ord(alias)]
    names = font["name"]
    for record in list(names.names):
        if record.nameID in (1, 4, 16, 21):
            names.setName(FONT_FAMILY, record.nameID, record.platformID, record.platEncID,
                          record.langID)
        elif record.nameID == 6:
            names.setName(FONT_FAMILY.replace(" ", "") + "-Regular", 6, record.platformID,
                          record.platEncID, record.langID)
        elif record.nameID == 3:
            names.setName(f"{FONT_FAMILY} (subset of Latin Modern Math) {key}", 3,
                          record.platformID, record.platEncID, record.langID)
    if "CFF " in font:  # the CFF table names the font too
        cff = font["CFF "].cff
        cff.fontNames = [FONT_FAMILY.replace(" ", "") + "-Regular"]
        top = cff.topDictIndex[0]
        top.FullName = top.FamilyName = FONT_FAMILY
    cache.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".part")
    subset.save_font(font, str(partial), options)
    partial.replace(target)
    for old in cache.glob("course-math.*.woff2"):
        if old != target:
            old.unlink()
    return target


def render_everything(app: Sphinx, env: BuildEnvironment) -> list[str]:
    """Every formula of every page rendered, and the math font cut for them (``env-updated``).

    When the font's name or the renderer (Temml's version, ``temml-render.js``) changed since
    the last build, every page is written again (Sphinx writes the returned documents), so that
    no unchanged page keeps an older rendering or preloads a font that is gone."""
    if app.builder.format != "html":
        return []
    state = _state(app)
    warned: set[tuple[str, bool]] = set()
    for docname in sorted(env.found_docs):
        try:
            doctree = env.get_doctree(docname)
        except FileNotFoundError:
            continue
        for latex, display, node in formulas(doctree):
            key = (latex, display)
            if key in state.rendered and key not in warned:
                continue
            try:
                state.rendered[key] = state.temml(app).render(latex, display)
            except TemmlError as error:
                state.rendered[key] = None
                warned.add(key)
                LOGGER.warning("Temml could not render %r: %s", latex, error,
                               location=(docname, node.line), type="temml", subtype="render")
    chars = set(ALWAYS)
    for mathml in state.rendered.values():
        if mathml:
            chars |= characters(mathml)
    state.characters = chars
    state.font = subset_font(chars, Path(app.doctreedir) / "course_math_font")
    from fontTools.ttLib import TTFont

    lacking = chars - {chr(c) for c in TTFont(state.font).getBestCmap()}
    if lacking:  # a browser draws them from another font: say which, and where to add them
        LOGGER.warning("the math font has no glyph for %s: add an alias to build_math.ALIASES",
                       ", ".join(f"U+{ord(c):04X}" for c in sorted(lacking)),
                       type="temml", subtype="font")
    folder = temml_dir(app)
    renderer = hashlib.sha256(RENDER_SCRIPT.read_bytes()
                              + (folder / "package.json").read_bytes()).hexdigest()
    made_with = (state.font.name, renderer)
    if getattr(env, "course_math_made_with", None) != made_with:
        env.course_math_made_with = made_with
        return sorted(env.found_docs)
    return []


def _render(translator: Any, node: nodes.Element, latex: str, display: bool) -> str:
    app = translator.builder.app
    state = _state(app)
    key = (latex, display)
    if key not in state.rendered:  # a formula made while pages are written
        try:
            state.rendered[key] = state.temml(app).render(latex, display)
        except TemmlError as error:
            state.rendered[key] = None
            LOGGER.warning("Temml could not render %r: %s", latex, error, location=node,
                           type="temml", subtype="render")
        else:
            missing = characters(state.rendered[key]) - state.characters
            if missing and state.font is not None:
                LOGGER.warning("the formula %r was made while pages were written, after the "
                               "math font was cut, and the font lacks %r", latex,
                               "".join(sorted(missing)), location=node, type="temml",
                               subtype="font")
    mathml = state.rendered[key]
    if mathml is None:  # warned above: the build fails under -W
        return f'<span class="temml-error">{translator.encode(latex)}</span>'
    return mathml


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


def _link_math_files(app: Sphinx, pagename: str, templatename: str, context: dict,
                     doctree: object) -> None:
    """Pages with a formula link the math stylesheet and preload the math font."""
    if "<math" not in (context.get("body") or ""):
        return
    app.add_css_file(MATH_CSS)  # called here, it adds the file to this page only
    font = _state(app).font
    if font is not None and "pathto" in context:
        href = context["pathto"](f"_static/{STATIC}/{font.name}", 1)
        context["metatags"] = (context.get("metatags") or "") + (
            f'\n<link rel="preload" href="{href}" as="font" type="font/woff2" crossorigin />')


#: Temml's stylesheet, ``dist/Temml-Latin-Modern.css``, less what the site does itself: each
#: piece must be found, so that a new Temml with another stylesheet is noticed.
_TEMML_CSS_DROPPED = {
    "the licence comment (the site serves LICENSE-Temml beside it)": r"/\*.*?\*/",
    "the font faces (the site's are below)": r"@font-face\s*\{[^}]*\}",
    "the font family (course.css sets it)": r'math\s*\{\s*font-family:\s*"Latin Modern Math",\s*math;\s*\}',
    "the flex box that lets Temml's line-break points wrap (the site asks for none)":
        r"math\s*\{\s*display:\s*inline-flex;\s*flex-wrap:\s*wrap;\s*align-items:\s*baseline;\s*\}\s*"
        r"math\s*>\s*mrow\s*\{\s*padding:\s*0\.5ex 0ex;\s*\}",
}


def math_stylesheet(temml: Path, font_name: str) -> str:
    """``_static/math/math.css``: the site's font faces and Temml's rules (see the module)."""
    css = (temml / "dist" / "Temml-Latin-Modern.css").read_text(encoding="utf-8")
    for what, pattern in _TEMML_CSS_DROPPED.items():
        css, count = re.subn(pattern, "", css, flags=re.S)
        if not count:
            raise ExtensionError(f"Temml's stylesheet changed: {what} not found")
    faces = (f'@font-face {{\n  font-family: "{FONT_FAMILY}";\n'
             f'  src: url("{font_name}") format("woff2");\n}}\n'
             '@font-face {\n  font-family: Temml;\n  src: url("Temml.woff2") format("woff2");\n}\n')
    return ("/* Temml (MIT, LICENSE-Temml): its stylesheet for MathML, with the site's fonts: "
            f"{FONT_FAMILY}, a subset of Latin Modern Math (GUST Font License, "
            "GUST-FONT-LICENSE.txt); see _ext/build_math.py */\n"
            + faces + re.sub(r"\n{3,}", "\n\n", css).strip() + "\n")


def _copy_math_files(app: Sphinx, exception: Exception | None) -> None:
    """The math font, Temml's stylesheet and font, and their licences, into ``_static/math/``."""
    state = _state(app)
    if state.process is not None:
        state.process.close()
    if exception is not None or app.builder.format != "html" or state.font is None:
        return
    temml = temml_dir(app)
    target = Path(app.outdir) / "_static" / STATIC
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    shutil.copyfile(state.font, target / state.font.name)
    shutil.copyfile(FONT_LICENCE, target / FONT_LICENCE.name)
    shutil.copyfile(temml / "dist" / "Temml.woff2", target / "Temml.woff2")
    shutil.copyfile(temml / "LICENSE", target / "LICENSE-Temml")
    (target / "math.css").write_text(math_stylesheet(temml, state.font.name), encoding="utf-8")


def setup(app: Sphinx) -> dict[str, object]:
    app.add_config_value("build_math_temml", TEMML, "env", str)
    app.add_html_math_renderer("temml", inline_renderers=(visit_math, None),
                               block_renderers=(visit_displaymath, None))
    app.connect("env-updated", render_everything)
    app.connect("html-page-context", _link_math_files)
    app.connect("build-finished", _copy_math_files)
    return {"version": "2.0", "parallel_read_safe": True, "parallel_write_safe": True}

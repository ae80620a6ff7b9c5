"""The theme's icons and stylesheet, cut to what the site uses (pydata-sphinx-theme#2379).

What it changes, and why: pydata-sphinx-theme 0.17 loads Font Awesome's whole SVG script
(1.5 MB) on every page to draw about ten icons, and its stylesheet carries all of Bootstrap,
86 kB of rules that map ``.fa-name`` classes to glyphs of two icon web fonts (150 kB), and
those fonts' faces. At ``build-finished`` this module writes two new files, which the
course's ``layout.html`` links instead of the theme's (no file Sphinx wrote is changed):

* ``_static/scripts/course-icons.js``: the icons some page or script names, from the same
  Font Awesome build, with the part of its stylesheet that inline icons need. Each
  ``<i class="fa-...">`` becomes an ``<svg>`` that keeps the placeholder's attributes
  (``data-mode``, ``title``, ...): the theme's CSS selects the colour-mode switch's icons by
  ``data-mode``;
* ``_static/styles/course-theme.css``: the theme's stylesheet without the selectors that need a
  class, id or element no page or script names (:func:`purge_css`, PurgeCSS: Bootstrap's
  components and the glyph rule of every icon the site does not use), its icon fonts cut to
  the glyphs the site's CSS draws (admonition titles, external links) and served from
  ``vendor/fontawesome/course-webfonts``.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

from sphinx.errors import ExtensionError

ICON_SCRIPT = "scripts/course-icons.js"
PURGE_SCRIPT = Path(__file__).with_name("purge-css.mjs")
_WORD = re.compile(r"-?[A-Za-z_][\w-]*")
_ICON_ENTRY = re.compile(
    r'(?:"([^"]+)"|([A-Za-z_$][\w$]*)|(\d+)):\[(\d+),(\d+),\[[^\]]*\],"[0-9a-f]*",'
    r'("(?:[^"\\]|\\.)*"|\[[^\]]*\])\]')


def _fontawesome_packs(script: str) -> dict[str, dict[str, tuple[int, int, str]]]:
    """{prefix: {icon name: (width, height, path)}} parsed out of the theme's fontawesome.js."""
    packs: dict[str, dict[str, tuple[int, int, str]]] = {}
    for match in re.finditer(r'var p=\{(.*?)\};', script, flags=re.S):
        tail = script[match.end(): match.end() + 3000]
        prefix = re.search(r'\bd\("(fa[brs])",p\)', tail)
        if prefix is None:
            continue
        icons = {}
        for entry in _ICON_ENTRY.finditer(match.group(1)):
            name = entry.group(1) or entry.group(2) or entry.group(3)
            path = json.loads(entry.group(6))
            icons[name] = (int(entry.group(4)), int(entry.group(5)),
                           path if isinstance(path, str) else " ".join(path))
        packs[prefix.group(1)] = icons
    return packs


def _fontawesome_css(script: str) -> str:
    """The rules of Font Awesome's SVG stylesheet that inline icons need (sizes, alignment).

    Animations, stacking and duotone rules are left out: the theme uses none of them.
    """
    start = script.index("':host,:root{") + 1
    css = script[start: script.index("'", start)]
    keep = []
    for rule in re.findall(r"[^{}]+\{[^{}]*\}", css):
        selector = rule.split("{", 1)[0]
        if re.search(r"svg-inline--fa|\.fa-(?:fw|2xs|xs|sm|lg|xl|2xl|\dx)\b", selector) and not re.search(
                r"fa-(?:beat|bounce|fade|flip|shake|spin|pulse|rotate|stack|layers|duotone|li|ul|"
                r"border|pull|inverse|swap|primary|secondary)|mask", selector):
            keep.append(rule)
    return "".join(keep)


def icon_script(fontawesome_js: str, used: set[str]) -> str:
    """A small script that turns ``<i class="fa-solid fa-name">`` into inline SVG."""
    packs = _fontawesome_packs(fontawesome_js)
    chosen = {prefix: {n: icons[n] for n in sorted(used) if n in icons}
              for prefix, icons in packs.items()}
    header = fontawesome_js.split("*/", 1)[0] if fontawesome_js.startswith("/*") else ""
    return f"""/*! Icons from Font Awesome Free 6 (https://fontawesome.com, icons CC BY 4.0, code MIT),
   reduced by the course's build to the icons its pages use. {header.strip()[2:].strip()} */
(() => {{
  const ICONS = {json.dumps(chosen, separators=(",", ":"))};
  const PREFIX = {{"fa-solid": "fas", "fas": "fas", "fa-regular": "far", "far": "far",
                  "fa-brands": "fab", "fab": "fab"}};
  const style = document.createElement("style");
  style.textContent = {json.dumps(_fontawesome_css(fontawesome_js))};
  document.head.appendChild(style);
  function render(el) {{
    let prefix = "fas", name = null;
    for (const c of el.classList) {{
      if (PREFIX[c]) prefix = PREFIX[c];
      else if (c.startsWith("fa-") && ICONS[prefix] && ICONS[prefix][c.slice(3)]) name = c.slice(3);
      else if (c.startsWith("fa-") && ICONS.fas[c.slice(3)] && name === null) name = c.slice(3);
    }}
    const def = name && ((ICONS[prefix] || {{}})[name] || ICONS.fas[name]);
    if (!def) return;
    const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    for (const a of el.attributes) if (a.name !== "class") svg.setAttribute(a.name, a.value);
    svg.setAttribute("viewBox", `0 0 ${{def[0]}} ${{def[1]}}`);
    svg.setAttribute("class", `svg-inline--fa ${{el.className}}`);
    svg.setAttribute("aria-hidden", "true");
    svg.setAttribute("focusable", "false");
    svg.setAttribute("data-icon", name);
    const path = document.createElementNS("http://www.w3.org/2000/svg", "path");
    path.setAttribute("fill", "currentColor");
    path.setAttribute("d", def[2]);
    svg.appendChild(path);
    el.replaceWith(svg);
  }}
  const selector = "i[class*='fa-'], span[class*='fa-']";
  function renderAll(root) {{
    if (root.matches && root.matches(selector)) render(root);
    if (root.querySelectorAll) root.querySelectorAll(selector).forEach(render);
  }}
  const start = () => {{
    renderAll(document);
    new MutationObserver(records => records.forEach(r => r.addedNodes.forEach(renderAll)))
      .observe(document.body, {{childList: true, subtree: true}});
  }};
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
}})();
"""


def _subset_fonts(static: Path, target: Path) -> None:
    """The theme's Font Awesome web fonts, cut to the glyphs the site's CSS draws with
    ``content`` characters of their private-use area, written into ``target``."""
    from fontTools import subset

    used = set()
    for css in static.rglob("*.css"):
        used |= {ord(ch) for ch in css.read_text(encoding="utf-8", errors="ignore")
                 if 0xE000 <= ord(ch) <= 0xF8FF}
    target.mkdir(parents=True, exist_ok=True)
    for font in (static / "vendor" / "fontawesome" / "webfonts").glob("*"):
        if font.suffix not in (".woff2", ".ttf"):
            continue
        options = subset.Options()
        options.flavor = "woff2" if font.suffix == ".woff2" else None
        options.layout_features = []
        loaded = subset.load_font(str(font), options)
        subsetter = subset.Subsetter(options)
        subsetter.populate(unicodes=used)
        subsetter.subset(loaded)
        subset.save_font(loaded, str(target / font.name), options)


def purge_css(css: str, used: set[str]) -> str:
    """``css`` without the selectors that need a class, id, element or attribute that no word of
    ``used`` names (every word of the site's HTML and scripts, so classes that scripts add at
    run time count): PurgeCSS, from npm, run by ``purge-css.mjs``. What the browser draws does
    not change: a removed selector could match nothing."""
    node = shutil.which("node")
    if node is None:
        raise ExtensionError("Node.js (`node`) is needed to prune the theme's stylesheet")
    done = subprocess.run([node, str(PURGE_SCRIPT)], capture_output=True, text=True,
                          input=json.dumps({"css": css, "words": sorted(used)}),
                          encoding="utf-8")
    if done.returncode != 0:
        raise ExtensionError("PurgeCSS could not prune the theme's stylesheet (`make book` "
                             f"installs it from npm): {done.stderr.strip()[-2000:]}")
    return done.stdout


THEME_CSS = "styles/course-theme.css"


def write_theme_files(app: Any, exception: Exception | None) -> None:
    """``course-icons.js`` and ``course-theme.css`` (``build-finished``; see the module)."""
    static = Path(app.outdir) / "_static"
    fontawesome = static / "scripts" / "fontawesome.js"
    if exception is not None or app.builder.format != "html" or not fontawesome.exists():
        return
    texts = [path.read_text(encoding="utf-8", errors="ignore")
             for path in [*Path(app.outdir).rglob("*.html"), *static.rglob("*.js"),
                         *static.rglob("*.mjs")]
             if path.name not in ("fontawesome.js", "course-icons.js")]
    icons = set(re.findall(r"\bfa-([a-z0-9]+(?:-[a-z0-9]+)*)", "\n".join(texts)))
    script = icon_script(fontawesome.read_text(encoding="utf-8"), icons)
    (static / ICON_SCRIPT).write_text(script, encoding="utf-8")
    _subset_fonts(static, static / "vendor" / "fontawesome" / "course-webfonts")
    used = set(_WORD.findall("\n".join([*texts, script])))
    css = (static / "styles" / "pydata-sphinx-theme.css").read_text(encoding="utf-8")
    css = purge_css(css, used)
    (static / THEME_CSS).write_text(css.replace("/webfonts/", "/course-webfonts/"),
                                    encoding="utf-8")

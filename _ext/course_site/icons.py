"""Icons: only the Font Awesome icons the site uses, drawn as inline SVG.

What it changes, and why: the theme loads Font Awesome's whole SVG script (1.5 MB) on every
page to draw about ten icons, plus two icon web fonts (150 kB) and 86 kB of CSS that maps
``.fa-name`` classes to glyphs of those fonts. After an HTML build this module

* writes ``_static/scripts/course-icons.js``: a few kilobytes holding only the icons some page or
  script names, taken from the same Font Awesome build, with the part of its stylesheet that
  inline icons need; pages load it instead of ``fontawesome.js``, which is deleted. Each
  ``<i class="fa-...">`` becomes an ``<svg>`` that keeps the placeholder's attributes
  (``data-mode``, ``title``, ...): the theme's CSS selects the colour-mode switch's icons by
  ``data-mode``;
* cuts the icon web fonts down to the glyphs the site's CSS uses (admonition titles, external
  links), quietly: fontTools logs every step at INFO level;
* removes the glyph-per-class rules from the theme's CSS.
"""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

ICON_SCRIPT = "scripts/course-icons.js"
_PACKS = {"fab": "fab", "far": "far", "fas": "fas"}
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
        packs[_PACKS[prefix.group(1)]] = icons
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


def write_icon_script(outdir: Path) -> None:
    source = outdir / "_static" / "scripts" / "fontawesome.js"
    if not source.exists():
        return
    used: set[str] = set()
    pages = [p for p in outdir.rglob("*.html")]
    scripts = [outdir / "_static" / "scripts" / "pydata-sphinx-theme.js",
               *sorted((outdir / "_static").glob("*.js"))]
    for path in pages + [s for s in scripts if s.exists()]:
        used |= set(re.findall(r"\bfa-([a-z0-9]+(?:-[a-z0-9]+)*)", path.read_text(encoding="utf-8")))
    (outdir / "_static" / ICON_SCRIPT).write_text(
        icon_script(source.read_text(encoding="utf-8"), used), encoding="utf-8")
    source.unlink()  # nothing loads it any more

def subset_icon_fonts(outdir: Path) -> None:
    """Cut the theme's Font Awesome web fonts down to the glyphs its CSS uses.

    The theme draws a few icons (admonition titles, external links, breadcrumbs) with CSS
    ``content`` characters from the private-use area of these fonts. Every such character in
    the site's CSS is kept; the 150 kB fonts become a few kilobytes.
    """
    from fontTools import subset

    used = set()
    for css in (outdir / "_static").rglob("*.css"):
        used |= {ord(ch) for ch in css.read_text(encoding="utf-8", errors="ignore")
                 if 0xE000 <= ord(ch) <= 0xF8FF}
    quiet = logging.getLogger("fontTools")  # it logs each subsetting step at INFO
    level = quiet.level
    quiet.setLevel(logging.WARNING)
    try:
        for font in (outdir / "_static" / "vendor").rglob("webfonts/*"):
            if font.suffix not in (".woff2", ".ttf"):
                continue
            options = subset.Options()
            options.flavor = "woff2" if font.suffix == ".woff2" else None
            options.layout_features = []
            subsetter = subset.Subsetter(options)
            loaded = subset.load_font(str(font), options)
            subsetter.populate(unicodes=used)
            subsetter.subset(loaded)
            subset.save_font(loaded, str(font), options)
    finally:
        quiet.setLevel(level)


_FA_GLYPH_RULE = re.compile(
    r"\.fa-[a-z0-9-]+(?::before|:after)?(?:,\.fa-[a-z0-9-]+(?::before|:after)?)*"
    r"\{(?:content|--fa):[^}]*\}")


def drop_glyph_rules(outdir: Path) -> None:
    """Remove Font Awesome's glyph-per-class rules (86 kB) from the theme's CSS.

    They map ``.fa-name`` classes to font glyphs; the site draws those icons as inline SVG
    (:func:`icon_script`), so no page uses them.
    """
    css = outdir / "_static" / "styles" / "pydata-sphinx-theme.css"
    if css.exists():
        css.write_text(_FA_GLYPH_RULE.sub("", css.read_text(encoding="utf-8")), encoding="utf-8")


def load_icon_script(html: str) -> str:
    """A page's HTML loading the reduced icon script instead of the theme's ``fontawesome.js``."""
    html = re.sub(r'(<script[^>]*src="[^"]*_static/)scripts/fontawesome\.js(\?[^"]*)?"',
                  rf'\1{ICON_SCRIPT}"', html)
    return re.sub(r'<link[^>]*rel="preload"[^>]*scripts/fontawesome\.js[^>]*>\s*', "", html)

"""What a phone waits for before it paints a page: less of it (loaded through ``_config.yml``).

A browser paints nothing until it has every stylesheet and every plain ``<script src>`` of the
page's head. On a slow phone connection each of them costs a round trip, and the theme's page
had twenty. After the build (and after ``course_site`` has reduced the stylesheets), on every
page but the search page, which keeps its scripts as Sphinx wrote them:

* **Scripts wait for the page** (``defer``): they run in the same order, once the document is
  parsed and before ``DOMContentLoaded``, which is when all of them start their work. The few
  lines of ``documentation_options.js``, which inline scripts of the head read at once, are
  written into the page instead of fetched.
* **No stylesheet a page cannot use**: a stylesheet none of whose rules can match the page (by
  :func:`course_site.prune_css`, with the class names of the page's elements and every word of
  the scripts it runs, so classes that scripts add count too) is not linked from it: the proof boxes' styles on pages
  without a proof, the code colours on pages without code, the notebook cells' on pages that
  are not notebooks.
* **No chained request**: the theme links ``theme.css``, whose only content is an ``@import``
  of Sphinx's ``basic.css``; pages link ``basic.css`` itself.
* **No early fetch of late scripts**: the theme preloads its two scripts (97 kB) at the top of
  the page, where they compete with the stylesheets; they are still loaded, deferred, where the
  theme loads them.
* **No Thebe**: its stylesheet, script and configuration load on every page, but Thebe only runs
  from a launch button that this site does not offer (``launch_buttons`` has no ``thebe``).

And on every page, search page included:

* **The theme's colours from the first paint** (:data:`THEME_BEFORE_THE_BODY`). pydata-sphinx-
  theme colours a page by ``<html data-theme="light">`` or ``"dark"``. The first lines of its
  head set ``data-theme`` to the theme stored by an earlier visit or to ``"auto"``, which no
  stylesheet colours; its script resolves the mode (``setTheme``) only once the page is parsed.
  A first visit was therefore painted without the theme's colours, and then every element of
  the page was styled again: 0.8 s of main thread for ``privacy-accounting`` on a phone's CPU
  (4x slower), measured in a Chromium trace on 2026-11-24. A line of the head, run before the body is parsed,
  now resolves the mode as ``setTheme`` will; the theme's script then writes the same value,
  which restyles nothing. The theme's own code is untouched.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from urllib.parse import urljoin, urlparse

from sphinx.application import Sphinx

from course_site.stylesheets import _split_selectors, prune_css

_WORD = re.compile(r"-?[A-Za-z_][\w-]*")
_HEAD = re.compile(r"<head>.*?</head>", re.S)
_CLASS_ATTR = re.compile(r'\sclass="([^"]*)"')
_ID_ATTR = re.compile(r'\sid="([^"]*)"')
_INLINE_SCRIPT = re.compile(r"<script(?![^>]*\ssrc=)[^>]*>(.*?)</script>", re.S)
_SCRIPT_SRC = re.compile(r'<script(?P<attrs>[^>]*?)\ssrc="(?P<src>[^"]+)"(?P<rest>[^>]*)>\s*</script>')
_STYLESHEET = re.compile(r'\s*<link\b[^>]*\brel="stylesheet"[^>]*>')
_HREF = re.compile(r'\bhref="([^"]+)"')
_PRELOAD = re.compile(r'\s*<link rel="preload" as="script" href="[^"]*scripts/'
                      r'(?:bootstrap|pydata-sphinx-theme)\.js[^"]*" />')
_THEBE = re.compile(r'\s*(?:<link[^>]*sphinx-thebe\.css[^>]*>|<script[^>]*sphinx-thebe\.js[^>]*>'
                    r'\s*</script>|<script>const THEBE_JS_URL[^<]*</script>)')
_THEME_CSS = re.compile(r'<link href="([^"]*_static/)styles/theme\.css(?:\?[^"]*)?" rel="stylesheet" />')
#: Run in the head, before the body is parsed: ``data-theme`` as pydata-sphinx-theme's
#: ``setTheme`` will set it, from the mode the theme's first lines read (the reader's choice,
#: stored by the theme, or "auto": the system's colour scheme).
THEME_BEFORE_THE_BODY = """(() => {
  const data = document.documentElement.dataset;
  const mode = data.mode === "light" || data.mode === "dark" ? data.mode : "auto";
  data.theme = mode !== "auto" ? mode
    : window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
})();"""
#: Inline scripts of the head read these files' globals as soon as they run.
KEEP_IN_ORDER = ("documentation_options.js",)


@cache
def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="ignore")


@cache
def _words(path: Path) -> frozenset[str]:
    return frozenset(_WORD.findall(path.read_text(encoding="utf-8", errors="ignore")))


_RULE = re.compile(r"([^{}]+)\{([^{}]*)\}")
_ID = re.compile(r"#(-?[_a-zA-Z][\w-]*)")


@cache
def _rules(css: Path, words: frozenset[str]) -> tuple[list[str], str]:
    """What of ``css`` can apply to a page whose class names and ids are ``words``: the custom
    properties (``--x``) that its surviving rules only define, and the text of its other
    surviving rules (empty when none is left)."""
    text = re.sub(r"/\*.*?\*/", "", _text(css), flags=re.S)
    defined, real = [], []
    for head, body in _RULE.findall(prune_css(text, set(words))):
        # prune_css looks at class names; an #id must be on the page (or in a script) too
        if not any(set(_ID.findall(s)) <= words for s in _split_selectors(head)):
            continue
        declarations = [d.strip() for d in body.split(";") if d.strip()]
        if all(d.startswith("--") for d in declarations):
            defined += [d.split(":", 1)[0].strip() for d in declarations]
        else:
            real.append(body)
    return defined, "".join(real)


def needed_stylesheets(sheets: list[Path], words: frozenset[str]) -> set[Path]:
    """The stylesheets of ``sheets`` that a rule of can apply to the page; one whose surviving
    rules only define custom properties is needed when a needed one reads them."""
    rules = {path: _rules(path, words) for path in sheets}
    needed = {path for path, (_, real) in rules.items() if real}
    used = "".join(real for _, real in rules.values())
    needed |= {path for path, (defined, _) in rules.items()
               if any(f"var({name}" in used for name in defined)}
    return needed


def _local(outdir: Path, page: Path, url: str) -> Path | None:
    """The file of the site a page's relative URL points at, if there is one."""
    if "://" in url or url.startswith(("data:", "//")):
        return None
    base = "/" + page.relative_to(outdir).as_posix()
    path = outdir / urlparse(urljoin(base, url)).path.lstrip("/")
    return path if path.is_file() else None


def lighten_head(html: str, page: Path, outdir: Path) -> str:
    """The page with a head that holds the first paint back less (see the module's notes)."""
    head = _HEAD.search(html)
    if head is None:
        return html
    new = _THEBE.sub("", _PRELOAD.sub("", head[0]))
    if (outdir / "_static" / "basic.css").is_file():
        new = _THEME_CSS.sub(r'<link href="\1basic.css" rel="stylesheet" />', new)

    def script(match: re.Match) -> str:
        src = match["src"]
        attrs = match["attrs"] + match["rest"]
        if re.search(r"\b(?:defer|async|type=\"module\")", attrs):
            return match[0]
        path = _local(outdir, page, src)
        if path is not None and path.name in KEEP_IN_ORDER:
            return f"<script>{path.read_text(encoding='utf-8').strip()}</script>"
        return f'<script defer{match["attrs"]} src="{src}"{match["rest"]}></script>'

    new = _SCRIPT_SRC.sub(script, new)
    # the class names the page's rules can match: those of its elements, and every word of its
    # inline scripts and of the scripts it loads (scripts add classes as they run)
    page_text = _THEBE.sub("", html)
    words = {name for value in _CLASS_ATTR.findall(page_text) for name in value.split()}
    words |= set(_ID_ATTR.findall(page_text))
    for inline in _INLINE_SCRIPT.findall(page_text):
        words |= set(_WORD.findall(inline))
    for match in _SCRIPT_SRC.finditer(page_text):
        path = _local(outdir, page, match["src"])
        if path is not None and "sphinx-thebe" not in path.name:
            words |= _words(path)
    frozen = frozenset(words)

    sheets = {}
    for link in _STYLESHEET.findall(new):
        href = _HREF.search(link)
        path = _local(outdir, page, href[1]) if href else None
        if path is not None and path.suffix == ".css":
            sheets[link] = path
    needed = needed_stylesheets(list(sheets.values()), frozen)

    def stylesheet(match: re.Match) -> str:
        path = sheets.get(match[0])
        return match[0] if path is None or path in needed else ""

    new = _STYLESHEET.sub(stylesheet, new)
    return html[:head.start()] + new + html[head.end():]


def _on_build_finished(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    outdir = Path(app.outdir)
    for page in outdir.rglob("*.html"):
        if page.name == "search.html" or "_static" in page.parts or "_sources" in page.parts:
            continue
        text = page.read_text(encoding="utf-8")
        new = lighten_head(text, page, outdir)
        if new != text:
            page.write_text(new, encoding="utf-8")
    for cached in (_rules, _words, _text):
        cached.cache_clear()


def setup(app: Sphinx) -> dict[str, object]:
    # after course_site (900), which rewrites the pages and reduces the stylesheets
    app.connect("build-finished", _on_build_finished, priority=950)
    app.add_js_file(None, body=THEME_BEFORE_THE_BODY, priority=100)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}

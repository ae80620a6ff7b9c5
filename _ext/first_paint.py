"""What a phone waits for before it paints a page: less of it (loaded through ``_config.yml``).

A browser paints nothing until it has every stylesheet and every plain ``<script src>`` of the
page's head. On a slow phone connection each of them costs a round trip, and the theme's page
had twenty. After the build (and after ``course_site`` has reduced the stylesheets), on every
page but the search page, which keeps its scripts as Sphinx wrote them:

* **Scripts wait for the page** (``defer``): they run in the same order, once the document is
  parsed and before ``DOMContentLoaded``, which is when all of them start their work. The few
  lines of ``documentation_options.js``, which inline scripts of the head read at once, are
  written into the page instead of fetched.
* **One stylesheet.** The theme's pages linked up to eleven stylesheets, and a phone fetches
  each before the first paint. Every page now links one (:func:`combine_stylesheets`): the
  stylesheets the pages linked, as ``course_site`` reduced them, in the order the pages link
  them, with their relative ``url()`` values rewritten for the file's place. It is the same
  file for every page, named by its content, so a reader's browser fetches it once for the
  whole site. The math stylesheet (Temml's rules and the math font's face), which Sphinx links
  from the pages with formulas only, holds rules for formulas only; a browser test checks that every element draws as with the stylesheets Sphinx linked from its
  page, in both themes. In Lighthouse's simulation of a phone (three runs each, interleaved
  with the eleven, 2026-11-25), the first contentful paint of ``privacy-accounting``,
  ``query-workloads`` and ``laplace-mechanism`` came 1.19, 0.90 and 0.15 s earlier (medians).
  Their total blocking time rose on the first two (the same work now comes after the first
  paint), and their performance scores moved within the spread of the runs.
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

import hashlib
import json
import posixpath
import re
from pathlib import Path
from urllib.parse import urljoin, urlparse

from sphinx.application import Sphinx


_HEAD = re.compile(r"<head>.*?</head>", re.S)
_SCRIPT_SRC = re.compile(r'<script(?P<attrs>[^>]*?)\ssrc="(?P<src>[^"]+)"(?P<rest>[^>]*)>\s*</script>')
_STYLESHEET = re.compile(r'\s*<link\b[^>]*\brel="stylesheet"[^>]*>')
_HREF = re.compile(r'\bhref="([^"]+)"')
_PRELOAD = re.compile(r'\s*<link rel="preload" as="script" href="[^"]*scripts/'
                      r'(?:bootstrap|pydata-sphinx-theme)\.js[^"]*" />')
_THEBE = re.compile(r'\s*(?:<link[^>]*sphinx-thebe\.css[^>]*>|<script[^>]*sphinx-thebe\.js[^>]*>'
                    r'\s*</script>|<script>const THEBE_JS_URL[^<]*</script>)')
_THEME_CSS = re.compile(r'<link href="([^"]*_static/)styles/theme\.css(?:\?[^"]*)?" rel="stylesheet" />')
_URL = re.compile(r"""url\(\s*(['"]?)([^'")]+)\1\s*\)""")
_CHARSET = re.compile(r'@charset\s+"[^"]*"\s*;')
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
#: The folder of the site's one stylesheet, from the site's root.
COMBINED = "_static/combined"
#: The stylesheets Sphinx linked from each page, kept beside the doctrees: an incremental build
#: does not write unchanged pages again, and the stylesheet is combined again from these.
MANIFEST = "first_paint_stylesheets.json"


def _css(path: Path) -> str:
    """The text of the stylesheet ``path``, without comments and ``@charset``."""
    text = path.read_text(encoding="utf-8")
    text = _CHARSET.sub("", re.sub(r"/\*.*?\*/", "", text, flags=re.S)).strip()
    if "@import" in text:  # its rules would be fetched, not combined
        raise ValueError(f"{path}: a stylesheet with @import cannot be combined")
    return text


def _relocated(css: str, source: Path, target: Path) -> str:
    """``css``, read from the file ``source``, with its relative ``url()`` values rewritten for a
    file in the folder ``target``."""
    def move(match: re.Match) -> str:
        url = match[2].strip()
        if "://" in url or url.startswith(("data:", "#", "/")):
            return match[0]
        path, suffix = re.match(r"([^?#]*)(.*)", url).groups()
        moved = posixpath.relpath(posixpath.normpath(posixpath.join(source.parent.as_posix(), path)),
                                  target.as_posix())
        return f"url({moved}{suffix})"

    return _URL.sub(move, css)


def in_one_order(orders: list[list[Path]]) -> list[Path]:
    """Every stylesheet of ``orders`` (each page's, in the order it links them) in one order that
    keeps each page's; ``ValueError`` if two pages link two sheets in opposite orders."""
    after: dict[Path, set[Path]] = {}
    first_seen: dict[Path, int] = {}
    for order in orders:
        for number, path in enumerate(order):
            first_seen.setdefault(path, len(first_seen))
            after.setdefault(path, set()).update(order[:number])
    result: list[Path] = []
    while len(result) < len(after):
        ready = [p for p in after if p not in result and after[p] <= set(result)]
        if not ready:
            raise ValueError(f"pages link these stylesheets in opposite orders: "
                             f"{sorted(str(p) for p in after if p not in result)}")
        result.append(min(ready, key=first_seen.__getitem__))
    return result


def combine_stylesheets(sheets: list[Path], outdir: Path) -> Path:
    """Write ``sheets`` (paths in the site ``outdir``), in that order, into one stylesheet of
    the folder :data:`COMBINED`, named by a digest of its text; return its path."""
    target = outdir / COMBINED
    text = "\n".join(_relocated(_css(path), path, target) for path in sheets) + "\n"
    path = target / f"{hashlib.sha256(text.encode()).hexdigest()[:16]}.css"
    # written again when another pass of the build changed it (course_site prunes every
    # stylesheet of the site, this one too when it is left from the last build)
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        target.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return path


def _local(outdir: Path, page: Path, url: str) -> Path | None:
    """The file of the site a page's relative URL points at, if there is one."""
    if "://" in url or url.startswith(("data:", "//")):
        return None
    base = "/" + page.relative_to(outdir).as_posix()
    path = outdir / urlparse(urljoin(base, url)).path.lstrip("/")
    return path if path.is_file() else None


def linked_stylesheets(html: str) -> list[str]:
    """The ``href`` of every stylesheet the head of ``html`` links, in order (the theme's
    ``theme.css`` as the ``basic.css`` it imports; not Thebe's, which the page loses)."""
    head = _HEAD.search(html)
    if head is None:
        return []
    head_text = _THEME_CSS.sub(r'<link href="\1basic.css" rel="stylesheet" />',
                               _THEBE.sub("", head[0]))
    return [href[1] for link in _STYLESHEET.findall(head_text) if (href := _HREF.search(link))]


def _local_css(outdir: Path, page: Path, href: str) -> Path | None:
    path = _local(outdir, page, href)
    return path if path is not None and path.suffix == ".css" else None


def lighten_head(html: str, page: Path, outdir: Path, stylesheet: Path | None = None) -> str:
    """The page with a head that holds the first paint back less (see the module's notes).

    ``stylesheet`` (a path in ``outdir``) replaces the page's own stylesheets; by default, they
    are combined into one in the order the page links them.
    """
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
    links = [link for link in _STYLESHEET.findall(new)
             if (href := _HREF.search(link)) and _local_css(outdir, page, href[1])]
    if not links:
        return html[:head.start()] + new + html[head.end():]
    if stylesheet is None:
        stylesheet = combine_stylesheets(
            [_local_css(outdir, page, _HREF.search(link)[1]) for link in links], outdir)
    href = posixpath.relpath(stylesheet.relative_to(outdir).as_posix(),
                             page.parent.relative_to(outdir).as_posix())
    new = new.replace(links[0], f'\n  <link rel="stylesheet" href="{href}" />', 1)
    for link in links[1:]:
        new = new.replace(link, "", 1)
    return html[:head.start()] + new + html[head.end():]


def _pages(outdir: Path) -> list[Path]:
    """The pages of the built site that are lightened: all but the search page."""
    return sorted(p for p in outdir.rglob("*.html") if p.name != "search.html"
                  and not {"_static", "_sources"} & set(p.relative_to(outdir).parts))


def lighten_site(outdir: Path, manifest: Path) -> None:
    """:func:`lighten_head` on every page of the built site but the search page, all with the
    one stylesheet combined from the stylesheets of every page; remove older combined ones.

    ``manifest`` keeps the stylesheets Sphinx linked from each page: a page that an incremental
    build did not write again links the last build's combined stylesheet, and counts with the
    stylesheets it had (which ``course_site`` has reduced again for this build).
    """
    kept = json.loads(manifest.read_text(encoding="utf-8")) if manifest.is_file() else {}
    texts, orders = {}, []
    for page in _pages(outdir):
        key = page.relative_to(outdir).as_posix()
        texts[page] = page.read_text(encoding="utf-8")
        hrefs = linked_stylesheets(texts[page])
        if any(f"{COMBINED.rsplit('/', 1)[-1]}/" in href for href in hrefs):
            hrefs = kept.get(key, hrefs)  # lightened by an earlier build
        kept[key] = hrefs
        orders.append([path for href in hrefs if (path := _local_css(outdir, page, href))])
    sheets = in_one_order(orders)
    combined = combine_stylesheets(sheets, outdir) if sheets else None
    for page, text in texts.items():
        new = lighten_head(text, page, outdir, combined)
        if new != text:
            page.write_text(new, encoding="utf-8")
    for old in (outdir / COMBINED).glob("*.css"):
        if combined is None or old != combined:
            old.unlink()
    manifest.parent.mkdir(parents=True, exist_ok=True)
    manifest.write_text(json.dumps(kept, indent=1, sort_keys=True), encoding="utf-8")


def _on_build_finished(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    lighten_site(Path(app.outdir), Path(app.doctreedir) / MANIFEST)


def setup(app: Sphinx) -> dict[str, object]:
    # after course_site (900), which rewrites the pages and reduces the stylesheets
    app.connect("build-finished", _on_build_finished, priority=950)
    app.add_js_file(None, body=THEME_BEFORE_THE_BODY, priority=100)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}

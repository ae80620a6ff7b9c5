"""What a page's head holds back before the first paint (``_ext/first_paint.py``).

A small page checks :func:`first_paint.lighten_head` rule by rule; the built site (``make
book`` first) checks that every page got it. The browser suites check that the pages still work
and look the same in both themes (deferred scripts that broke would log errors; the download
menu needs Bootstrap; ``test_code_keeps_its_colours...`` reads the code colours).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.site

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "_build" / "html"
sys.path.insert(0, str(ROOT / "_ext"))
from first_paint import COMBINED, in_one_order, lighten_head, lighten_site  # noqa: E402

HEAD = """<!DOCTYPE html>
<html><head>
  <link href="_static/styles/theme.css?digest=1" rel="stylesheet" />
  <link rel="stylesheet" type="text/css" href="_static/used.css" />
  <link rel="stylesheet" type="text/css" href="_static/unused.css" />
  <link rel="stylesheet" type="text/css" href="_static/vars.css" />
  <link rel="stylesheet" type="text/css" href="_static/dead-vars.css" />
  <link rel="stylesheet" type="text/css" href="_static/sphinx-thebe.css?v=1" />
  <link rel="preload" as="script" href="_static/scripts/bootstrap.js?digest=1" />
  <script src="_static/documentation_options.js?v=1"></script>
  <script src="_static/doctools.js?v=1"></script>
  <script async="async" src="_static/other.js"></script>
  <script>DOCUMENTATION_OPTIONS.pagename = 'p';</script>
  <script>const THEBE_JS_URL = "https://example.org/thebe.js"; const x = 1</script>
  <script async="async" src="_static/sphinx-thebe.js?v=1"></script>
</head>
"""
BODY = """<body><div class="box" id="main">text <span class="added-by-script-no">x</span></div>
<script defer src="_static/scripts/bootstrap.js?digest=1"></script></body></html>
"""
FILES = {
    "basic.css": "div.body { margin: 0 }",
    "styles/theme.css": '@import "../basic.css";',
    "used.css": ".box { color: var(--box-colour) } .absent { color: red }",
    "unused.css": ".absent { color: red } #nowhere { color: blue }",
    "vars.css": ":root { --box-colour: #123456 }",
    "dead-vars.css": ":root { --nobody-reads-this: 1px }",
    "sphinx-thebe.css": ".thebe { color: red }",
    "documentation_options.js": "const DOCUMENTATION_OPTIONS = {VERSION: ''};",
    "doctools.js": "document.body.classList.add('doctools-ready');",
    "other.js": "",
    "sphinx-thebe.js": "",
    "scripts/bootstrap.js": "",
}


@pytest.fixture
def site(tmp_path) -> Path:
    for name, text in FILES.items():
        path = tmp_path / "_static" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path


def test_lighten_head_rule_by_rule(site):
    page = site / "page.html"
    out = lighten_head(HEAD + BODY, page, site)
    head, body = out.split("</head>", 1)
    assert body == "\n" + BODY  # the body is left exactly as it was
    # scripts wait for the page, in their order; the options every inline script reads are
    # written into the page; async scripts stay as they are
    assert '<script defer src="_static/doctools.js?v=1"></script>' in head
    assert '<script async="async" src="_static/other.js"></script>' in head
    assert "<script>const DOCUMENTATION_OPTIONS = {VERSION: ''};</script>" in head
    assert "documentation_options.js" not in head
    assert head.index("DOCUMENTATION_OPTIONS = {") < head.index("DOCUMENTATION_OPTIONS.pagename")
    # no Thebe, no preload, no chained @import
    assert "thebe" not in head.lower()
    assert "preload" not in head
    assert "theme.css" not in head  # its @import of basic.css: basic.css's rules, below
    # one stylesheet, in the place of the first: the page's, in their order
    links = re.findall(r'<link rel="stylesheet" href="([^"]+)" />', head)
    assert len(links) == 1 and links[0].startswith(f"{COMBINED}/"), head
    assert head.index(links[0]) < head.index("DOCUMENTATION_OPTIONS")
    assert "used.css" not in head and "basic.css" not in head
    assert (site / links[0]).read_text(encoding="utf-8") == "\n".join(
        FILES[name] for name in ("basic.css", "used.css", "unused.css", "vars.css",
                                 "dead-vars.css")) + "\n"


def test_the_combined_stylesheet_finds_fonts_and_images_from_its_own_folder(site):
    (site / "_static" / "math").mkdir()
    (site / "_static" / "math" / "k.css").write_text(
        '@charset "UTF-8";/* Temml */@font-face{src:url(fonts/a.woff2) format("woff2")}'
        '.box{background:url("../img.png?v=1#x")}.box{b:url(data:image/png;base64,AA==)}'
        ".box{c:url('https://example.org/x.png')}")
    page = site / "chapters" / "page.html"
    page.parent.mkdir()
    html = (HEAD + BODY).replace('"_static/', '"../_static/')
    html = html.replace('href="../_static/used.css"', 'href="../_static/math/k.css"')
    head = lighten_head(html, page, site).split("</head>")[0]
    href = re.search(r'href="(\.\./_static/combined/[^"]+)"', head)[1]
    css = (page.parent / href).read_text(encoding="utf-8")
    assert "url(../math/fonts/a.woff2)" in css and "url(../img.png?v=1#x)" in css
    assert "url(data:image/png;base64,AA==)" in css and "url('https://example.org/x.png')" in css
    assert "@charset" not in css and "Temml" not in css  # valid only at the top; a comment


def test_a_stylesheet_that_imports_another_cannot_be_combined(site):
    (site / "_static" / "used.css").write_text('@import "vars.css"; .box { color: red }')
    with pytest.raises(ValueError, match="used.css.*@import"):
        lighten_head(HEAD + BODY, site / "page.html", site)


def test_lightening_a_lightened_page_changes_nothing(site):
    once = lighten_head(HEAD + BODY, site / "page.html", site)
    assert lighten_head(once, site / "page.html", site) == once
    [css] = (site / COMBINED).iterdir()
    # a file of that name that another pass changed is written again
    text = css.read_text(encoding="utf-8")
    css.write_text("div.body { margin: 0 }", encoding="utf-8")
    lighten_head(HEAD + BODY, site / "page.html", site)
    assert css.read_text(encoding="utf-8") == text


def test_stylesheets_in_one_order_that_keeps_every_pages():
    a, b, c, d = (Path(x) for x in "abcd")
    assert in_one_order([[a, c], [a, b, c], [b, d]]) == [a, b, c, d]
    assert in_one_order([[b], [a, b]]) == [a, b]
    with pytest.raises(ValueError, match="opposite orders"):
        in_one_order([[a, b], [b, a]])


def test_every_page_gets_the_one_stylesheet_and_an_unchanged_page_is_combined_again(site,
                                                                                   tmp_path):
    """Pages share one stylesheet, combined from all of theirs. An incremental build leaves
    unchanged pages as the last build lightened them: they count with the stylesheets Sphinx
    had linked, as they are now."""
    manifest = tmp_path / "doctrees" / "manifest.json"
    (site / "page.html").write_text(HEAD + BODY, encoding="utf-8")
    other = HEAD.replace('href="_static/used.css"', 'href="_static/extra.css"')
    (site / "_static" / "extra.css").write_text(".extra { color: red }")
    (site / "other.html").write_text(other + BODY, encoding="utf-8")
    (site / "search.html").write_text(HEAD + BODY, encoding="utf-8")

    def linked(name: str) -> str:
        return re.search(r'href="([^"]*combined[^"]+)"', (site / name).read_text(encoding="utf-8"))[1]

    lighten_site(site, manifest)
    assert "thebe" not in manifest.read_text(encoding="utf-8")
    first = linked("page.html")
    assert linked("other.html") == first
    css = (site / first).read_text(encoding="utf-8")
    assert ".box { color: var(--box-colour) }" in css and ".extra { color: red }" in css
    assert ".thebe" not in css
    (site / "_static" / "used.css").write_text(".box { color: green }")  # the theme changed
    lighten_site(site, manifest)  # neither page written again
    second = linked("page.html")
    assert second != first and not (site / first).exists() and linked("other.html") == second
    assert ".box { color: green }" in (site / second).read_text(encoding="utf-8")
    # the search page keeps the stylesheets Sphinx linked
    assert (site / "search.html").read_text(encoding="utf-8") == HEAD + BODY


def _pages() -> list[Path]:
    if not (SITE / "index.html").exists():
        pytest.fail("the site is not built: run `make book` first")
    return [p for p in SITE.rglob("*.html")
            if not {"_static", "_sources"} & set(p.relative_to(SITE).parts)
            and p.name not in ("index.html", "search.html")]


def test_every_page_has_the_lighter_head():
    for page in _pages():
        head = page.read_text(encoding="utf-8").split("</head>", 1)[0]
        # a module script (the explorables') is deferred without the attribute
        blocking = re.findall(
            r'<script(?![^>]*(?:\b(?:defer|async)\b|type="module"))[^>]*\ssrc=[^>]*>', head)
        assert blocking == [], f"{page.name}: {blocking}"
        assert "thebe" not in head.lower() and 'rel="preload" as="script"' not in head
        assert "styles/theme.css" not in head


def _stylesheet(name: str) -> Path:
    head = (SITE / name).read_text(encoding="utf-8").split("</head>", 1)[0]
    links = re.findall(r'<link[^>]*rel="stylesheet"[^>]*>', head)
    assert len(links) == 1, f"{name}: {links}"
    href = re.search(r'href="([^"]+)"', links[0])[1]
    assert f"{COMBINED}/" in href, f"{name}: {href}"
    return ((SITE / name).parent / href).resolve()


def test_every_page_links_the_one_stylesheet_and_its_files_exist():
    linked = {_stylesheet(page.relative_to(SITE).as_posix()) for page in _pages()}
    assert len(linked) == 1, linked
    css = linked.pop()
    assert list((SITE / COMBINED).iterdir()) == [css]  # none left from an earlier build
    urls = [u.strip("'\"") for u in re.findall(r"url\(([^)]+)\)", css.read_text(encoding="utf-8"))]
    # the math font and Temml's, the theme's icon fonts and images
    assert any(re.search(r"math/course-math\.\w+\.woff2$", u) for u in urls), urls
    assert any(u.endswith("math/Temml.woff2") for u in urls), urls
    for url in urls:
        if not url.startswith("data:"):
            assert (css.parent / re.sub(r"[?#].*", "", url)).is_file(), url

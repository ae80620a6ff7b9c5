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
from first_paint import lighten_head  # noqa: E402

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
    assert '<link href="_static/basic.css" rel="stylesheet" />' in head and "theme.css" not in head
    # stylesheets: one rule that matches keeps a sheet; custom properties count when read
    assert "used.css" in head and "vars.css" in head
    assert "unused.css" not in head and "dead-vars.css" not in head


def test_a_class_added_by_a_script_keeps_its_stylesheet(site):
    (site / "_static" / "unused.css").write_text(".doctools-ready { color: red }")
    out = lighten_head(HEAD + BODY, site / "page.html", site)
    assert "unused.css" in out.split("</head>")[0]


def _pages() -> list[Path]:
    if not (SITE / "index.html").exists():
        pytest.fail("the site is not built: run `make book` first")
    return [p for p in SITE.rglob("*.html")
            if not {"_static", "_sources"} & set(p.relative_to(SITE).parts)
            and p.name not in ("index.html", "search.html")]


def test_every_page_has_the_lighter_head():
    for page in _pages():
        head = page.read_text(encoding="utf-8").split("</head>", 1)[0]
        blocking = re.findall(r"<script(?![^>]*\b(?:defer|async)\b)[^>]*\ssrc=[^>]*>", head)
        assert blocking == [], f"{page.name}: {blocking}"
        assert "thebe" not in head.lower() and 'rel="preload" as="script"' not in head
        assert "styles/theme.css" not in head


def test_pages_link_the_stylesheets_of_what_they_hold():
    def sheets(name: str) -> set[str]:
        head = (SITE / name).read_text(encoding="utf-8").split("</head>", 1)[0]
        return set(re.findall(r'href="[^"]*?([\w.-]+\.css)(?:\?[^"]*)?"', head))

    # a chapter has proofs and exercises; the introduction has neither, nor a formula
    assert {"proof.css", "exercise.css", "katex.min.css"} <= sheets("chapters/privacy-accounting.html")
    assert not {"proof.css", "exercise.css", "katex.min.css"} & sheets("intro.html")
    assert {"basic.css", "pydata-sphinx-theme.css", "course.css"} <= sheets("intro.html")

"""The formula gallery: one of each construct the course uses, looked at in Debian's chromium.

``tests/site/math_gallery/index.md`` is not part of the site (``tests/`` is outside the book).
This test builds it alone, with the site's math extension (``_ext/build_math.py``: Temml,
MathML only, the subset math font), the site's theme and ``_static/`` (``course.css``,
``wide-math.js``), into ``_build/math-gallery/html``, and opens it in chromium:

* every formula is MathML, drawn with the site's math font, with no Temml error node;
* the labelled equation is numbered, its number sits on the formula's line, to its right, and
  the ``{eq}`` reference links to it; the ``align`` rows get their numbers;
* the formulas take the text's colour in the light and the dark theme;
* on a 390 px phone, the wide display formula scrolls in its box and the page does not widen;
  a long inline formula breaks after its relations and operators, and an inline piece that
  cannot break scrolls in its own box.

It saves screenshots for people to look at (``_build/math-gallery/chromium-*.png``: desktop
in both themes, and a phone); ``firefox-esr --headless --screenshot`` can take the same page
from ``_build/math-gallery/html`` (README.md, "How the formulas are drawn").
"""

from __future__ import annotations

import functools
import http.server
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from test_browser import _QuietHandler, browser, chromium_path  # noqa: F401  (fixtures)

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
GALLERY = Path(__file__).with_name("math_gallery")
OUT = ROOT / "_build" / "math-gallery"

CONF = """
import sys
sys.path.insert(0, {ext!r})
project = "Formula gallery"
extensions = ["myst_parser", "build_math"]
myst_enable_extensions = ["amsmath", "dollarmath"]
html_theme = "sphinx_book_theme"
html_math_renderer = "temml"
build_math_temml = {temml!r}
html_static_path = [{static!r}]
html_css_files = ["course.css"]
html_js_files = ["wide-math.js"]
html_context = {{"default_mode": "auto"}}
html_theme_options = {{"navbar_persistent": []}}
"""


@pytest.fixture(scope="module")
def gallery_url():
    temml = ROOT / "node_modules" / "temml"
    if not (temml / "dist" / "temml.cjs").exists():
        pytest.fail(f"Temml is not installed in {temml}: run `make venv`")
    src = OUT / "src"
    shutil.rmtree(OUT, ignore_errors=True)
    src.mkdir(parents=True)
    (src / "conf.py").write_text(CONF.format(ext=str(ROOT / "_ext"), temml=str(temml),
                                             static=str(ROOT / "_static")), encoding="utf-8")
    shutil.copyfile(GALLERY / "index.md", src / "index.md")
    run = subprocess.run([sys.executable, "-m", "sphinx", "-W", "-n", "-q", "-b", "html",
                          str(src), str(OUT / "html")], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(OUT / "html")))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/index.html"
    server.shutdown()


def _open(browser, url: str, theme: str, width: int):
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    page.add_init_script(f"localStorage.setItem('mode', '{theme}'); "
                         f"localStorage.setItem('theme', '{theme}');")
    page.goto(url, wait_until="load")
    page.wait_for_load_state("networkidle")
    page.evaluate("() => document.fonts.ready")
    return context, page


_FORMULAS = """() => [...document.querySelectorAll('main .math')].map(m => {
  const k = m.querySelector(':scope > math');
  const around = m.parentElement.closest('p, li, section, div');
  return {mathml: !!k && k.namespaceURI === 'http://www.w3.org/1998/Math/MathML',
          font: k ? getComputedStyle(k).fontFamily.split(',')[0].replace(/"/g, '') : null,
          colour: k ? getComputedStyle(k).color : null,
          text: getComputedStyle(around).color};
})"""


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_gallery_renders_every_construct(browser, gallery_url, theme):
    context, page = _open(browser, gallery_url, theme, 1000)
    try:
        assert page.evaluate("() => document.documentElement.dataset.theme") == theme
        formulas = page.evaluate(_FORMULAS)
        assert len(formulas) >= 30
        assert all(f["mathml"] for f in formulas)
        assert {f["font"] for f in formulas} == {"Course Math"}
        assert all(f["colour"] == f["text"] for f in formulas), theme
        assert page.locator(".temml-error").count() == 0
        assert page.evaluate("""() => [...document.fonts].some(f =>
            f.family.replace(/"/g, '') === 'Course Math' && f.status === 'loaded')""")
        # \\mathbb and \\mathcal as Unicode letters, \\operatorname as an upright name
        text = page.locator("main").inner_text()
        assert "ℝ" in text and "𝔼" in text and "ℳ" in text and "Lap" in text
        # the labelled equation: numbered (1), on its formula's line, to its right; the
        # reference links to it
        eq = page.locator("#equation-eq-gallery-advanced")
        number = eq.locator(".eqno")
        assert number.inner_text().startswith("(1)")
        n, f = number.bounding_box(), eq.locator("math").bounding_box()
        assert n["x"] >= f["x"] + f["width"] - 1
        assert n["y"] < f["y"] + f["height"] and f["y"] < n["y"] + n["height"]
        assert page.locator("a.reference[href='#equation-eq-gallery-advanced']").inner_text() == "(1)"
        # the align environment numbers its rows with Temml's CSS counter
        assert page.locator("main .tml-eqn").count() == 2
        assert page.evaluate("""() => getComputedStyle(document.querySelector('main .tml-eqn'),
            '::before').content""") == '"(" counter(tmlEqnNo) ")"'
        page.screenshot(path=str(OUT / f"chromium-{theme}.png"), full_page=True)
    finally:
        context.close()


def test_the_gallery_on_a_phone(browser, gallery_url):
    context, page = _open(browser, gallery_url, "light", 390)
    try:
        # wide-math.js (deferred) marks the inline formula that cannot break; until it has
        # measured, that formula juts out (408 px under load in CI17)
        page.wait_for_function("() => document.documentElement.dataset.wideMath === 'measured'")
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
        wide = page.locator("#equation-eq-gallery-wide")
        assert wide.evaluate("b => b.scrollWidth > b.clientWidth + 20")
        assert wide.evaluate("b => getComputedStyle(b).overflowX") == "auto"
        # the long inline formula breaks between its pieces, onto lines of the page's width
        long = page.locator("span.math", has_text="\u22ef")  # the one with \\cdots
        tops = long.evaluate("s => [...s.querySelector('math').children].map("
                             "c => Math.round(c.getBoundingClientRect().top))")
        assert len(set(tops)) >= 2, tops
        assert long.evaluate("s => s.getBoundingClientRect().right") <= 390
        assert not long.evaluate("s => s.classList.contains('course-wide-math')")
        # the one piece that cannot break is marked, scrolls in its own box, takes focus
        assert page.locator("span.math.course-wide-math").count() == 1
        inline = page.locator("span.math.course-wide-math")
        assert inline.evaluate("s => s.scrollWidth > s.clientWidth + 1")
        assert inline.evaluate("s => s.getBoundingClientRect().right") <= 390
        assert inline.get_attribute("tabindex") == "0"
        page.screenshot(path=str(OUT / "chromium-phone-light.png"), full_page=True)
    finally:
        context.close()


#: scripts at two levels, of letters and digits the gallery's formulas use (so its font has them)
_SCRIPTS = ("<math><msup><mi>x</mi><mrow><mi>\u03b5</mi><mi>n</mi></mrow></msup><msub><mi>X</mi>"
            "<msub><mi>k</mi><mi>i</mi></msub></msub><msubsup><mi>\u03b4</mi><mn>2</mn>"
            "<mi>D</mi></msubsup></math>")


def test_chromium_draws_scripts_without_the_script_size_letters(browser, gallery_url,
                                                               monkeypatch, tmp_path):
    """build_math leaves the font's script-size alternates (ssty) out of the subset, because
    Chromium draws a script from the base glyph. The same scripts drawn with the site's subset
    and with one cut the same way but with the alternates must look the same: the day Chromium
    draws the alternates, this fails, and ``build_math.LAYOUT_FEATURES`` needs ssty again."""
    from fontTools.ttLib import TTFont

    import build_math

    def features(font: Path) -> set[str]:
        return {r.FeatureTag for r in TTFont(font)["GSUB"].table.FeatureList.FeatureRecord}

    site = next((OUT / "html" / "_static" / "math").glob("course-math.*.woff2"))
    chars = set(map(chr, TTFont(site).getBestCmap()))
    # every letter drawn is in the subset, so neither drawing falls back to another font
    assert build_math.characters(_SCRIPTS) <= chars
    monkeypatch.setattr(build_math, "LAYOUT_FEATURES", ("dtls", "ssty"))
    with_alternates = build_math.subset_font(chars, tmp_path)
    assert "ssty" not in features(site) and "ssty" in features(with_alternates)
    assert len(TTFont(with_alternates).getGlyphOrder()) > len(TTFont(site).getGlyphOrder())
    shutil.copyfile(with_alternates, OUT / "html" / "with-alternates.woff2")
    shots = []
    for font in (f"_static/math/{site.name}", "with-alternates.woff2"):
        page_html = (f"<!doctype html><meta charset=utf-8><style>@font-face {{font-family: M; src: url({font})}}"
                     f" math {{font-family: M; font-size: 64px}}</style>{_SCRIPTS}")
        (OUT / "html" / "scripts.html").write_text(page_html, encoding="utf-8")
        context = browser.new_context(viewport={"width": 500, "height": 160})
        try:
            page = context.new_page()
            page.goto(gallery_url.replace("index.html", "scripts.html"), wait_until="load")
            page.evaluate("() => document.fonts.ready")
            assert page.evaluate("() => [...document.fonts].every(f => f.status === 'loaded')")
            shots.append(page.screenshot(path=str(OUT / f"scripts-{len(shots)}.png")))
        finally:
            context.close()
    assert shots[0] == shots[1]

"""Every chapter's formulas in Debian's chromium, in both colour themes (``make book`` first).

The formulas are rendered to MathML when the site is built (Temml, ``_ext/build_math.py``).
For each chapter:

* no script typesets math: the page loads no math script, and with JavaScript switched off the
  same formulas are there, the same MathML;
* every display and inline formula is MathML: each is one ``<math>`` element in MathML's
  namespace (display formulas ``display="block"``), drawn with a size, and nothing else (no
  HTML rendering beside it); no raw ``$...$``, ``\\(`` or ``\\[`` is left in the text, and no
  Temml error node (``temml-error``, what Temml writes for a formula it cannot render) is there;
* the site's math font ("Course Math") is loaded, from the preload, and the formulas are drawn
  with it;
* the formulas take the colour of the text around them, in the light and in the dark theme.

Without a browser the tests skip, unless ``REQUIRE_BROWSER=1`` (set by ``.ci/run``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from test_browser import browser, chromium_path, site_url  # noqa: F401  (fixtures)
from test_build_math import count_source_formulas  # noqa: E402

pytestmark = [pytest.mark.browser, pytest.mark.per_page]

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "_build" / "html"
CHAPTERS = sorted(f"chapters/{p.stem}" for p in (ROOT / "chapters").glob("*.ipynb"))

def _open(browser, url: str, theme: str, javascript: bool = True):
    context = browser.new_context(java_script_enabled=javascript)
    requests: list[str] = []
    context.on("request", lambda r: requests.append(r.url))
    page = context.new_page()
    page.add_init_script(f"localStorage.setItem('mode', '{theme}'); "
                         f"localStorage.setItem('theme', '{theme}');")
    # "load" first: Playwright's "networkidle" alone can fire before a long page is parsed
    page.goto(url, wait_until="load")
    page.wait_for_load_state("networkidle")
    return context, page, requests


#: What is left of the page's text once formulas and code are taken out: TeX must not be.
_LEFT_TEXT = """() => {
  const main = document.querySelector('main').cloneNode(true);
  main.querySelectorAll('.math, pre, code, .highlight, script, style').forEach(e => e.remove());
  return main.textContent;
}"""

_FORMULAS = """() => [...document.querySelectorAll('main .math')].map(m => {
  const k = m.querySelector(':scope > math');
  const box = k ? k.getBoundingClientRect() : null;
  const others = [...m.children].filter(c => c !== k && !c.classList.contains('eqno'));
  return {display: m.tagName === 'DIV',
          mathml: !!k && k.namespaceURI === 'http://www.w3.org/1998/Math/MathML'
                  && k.getAttribute('display') === (m.tagName === 'DIV' ? 'block' : null),
          alone: others.length === 0,
          // drawn with a size, unless it sits in something closed (a solution's dropdown)
          drawn: !!box && ((box.width > 0 && box.height > 0) || !k.checkVisibility()),
          font: k ? getComputedStyle(k).fontFamily : null,
          markup: k ? k.outerHTML : m.outerHTML};
})"""


_COLOURS = """() => [...document.querySelectorAll('main .math')]
    .filter(m => !m.closest('nav')).map(m => {  // a heading's formula in "On this page" is a link
    const around = m.parentElement.closest('p, li, dd, dt, td, th, h1, h2, h3, h4, h5, h6, div, section');
    return [getComputedStyle(m.querySelector(':scope > math')).color, getComputedStyle(around).color];
})"""


def _check_colours(page, theme: str) -> None:
    """The formulas take the colour of the text around them, which is the theme's."""
    state = "() => [document.documentElement.dataset.mode, document.documentElement.dataset.theme]"
    assert page.evaluate(state) == [theme, theme]
    colours = page.evaluate(_COLOURS)
    assert all(math == around for math, around in colours), \
        (theme, [c for c in colours if c[0] != c[1]][:3])
    text_colour = page.evaluate("() => getComputedStyle(document.querySelector('main p')).color")
    r, g, b = map(int, re.findall(r"\d+", text_colour)[:3])
    light_text = (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255 > 0.5
    assert light_text == (theme == "dark"), (theme, text_colour)


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_formulas_arrive_rendered_with_mathml(browser, site_url, chapter):
    url = f"{site_url}/{chapter}.html"
    # JavaScript off: what the server sends is already rendered
    context, page, _ = _open(browser, url, "light", javascript=False)
    try:
        static = page.evaluate(_FORMULAS)
    finally:
        context.close()
    context, page, requests = _open(browser, url, "light")
    try:
        formulas = page.evaluate(_FORMULAS)
        scripts = [u for u in requests
                   if re.search(r"mathjax|katex|temml[^/]*\.js|tex-mml", u, re.I)]
        assert scripts == [], f"a script for math was loaded: {scripts}"
        assert page.evaluate("() => window.MathJax === undefined && window.katex === undefined"
                             " && window.temml === undefined")
        # no script changed a formula
        changed = [(a, b) for a, b in zip(static, formulas) if a != b]
        assert len(formulas) == len(static) and changed == [], (len(static), len(formulas),
                                                               changed[:2])
        unrendered = [f["markup"][:120] for f in formulas
                      if not (f["mathml"] and f["alone"] and f["drawn"])]
        assert unrendered == [], f"{chapter}: not MathML, or not drawn: {unrendered[:5]}"
        assert page.locator(".temml-error").count() == 0
        assert page.locator("main math").count() == len(formulas)  # no math outside the boxes
        if formulas:
            # drawn with the site's math font, which the page preloaded and the browser loaded
            assert {f["font"].split(",")[0].strip('"') for f in formulas} == {"Course Math"}
            fonts = [u for u in requests if re.search(r"/_static/math/course-math\.\w+\.woff2$", u)]
            assert len(fonts) == 1, fonts
            assert page.evaluate("""() => [...document.fonts].some(f =>
                f.family.replace(/"/g, '') === 'Course Math' && f.status === 'loaded')""")
        text = page.evaluate(_LEFT_TEXT)
        raw = re.findall(r"\$[^$\n]{0,80}\\[A-Za-z]+|\\[(\[]|\$\$", text)
        assert raw == [], f"{chapter}: raw TeX in the text: {raw[:5]}"
        cells = json.loads((ROOT / f"{chapter}.ipynb").read_text(encoding="utf-8"))["cells"]
        markdown = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
        if count_source_formulas(markdown):  # a page whose text has a formula shows it
            assert formulas
        # in both themes: the page opens light (saved choice), and the reader's switch, clicked
        # until it shows dark, recolours the same formulas without reloading the page
        _check_colours(page, "light")
        for _ in range(2):
            page.locator("button.theme-switch-button").click()
            if page.evaluate("() => document.documentElement.dataset.mode") == "dark":
                break
        _check_colours(page, "dark")
        assert page.evaluate(_FORMULAS) == formulas
    finally:
        context.close()

"""Browser tests: Debian's chromium, driven by Playwright, against the built site on 127.0.0.1.

Every page in the table of contents is visited once, and that visit is checked in turn: no
console error, every image loaded, no request to any host but the local server; an axe-core
accessibility audit; every formula the MathML the build wrote, in the math font and the
text's colour, in both themes; on notebook pages, the download button; and, narrowed to a
390 px phone, nothing cut off. Then a few pages for the colour modes, the scroll cues and the
pruned theme stylesheet.

Needs ``make book`` first. Without a browser the tests skip, unless ``REQUIRE_BROWSER=1``
(set by ``.ci/run``), which turns the skip into a failure.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import re
import shutil
import threading
import zipfile
from pathlib import Path
from urllib.parse import urlparse

import pytest

from course_site.archive import course_files, toc_documents
from course_site.icons import THEME_CSS
from test_build_math import count_source_formulas

pytestmark = [pytest.mark.browser, pytest.mark.per_page]

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "_build" / "html"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


def _toc_pages() -> list[str]:
    """Every document in _toc.yml, as a path relative to the site root without suffix."""
    return toc_documents(ROOT)


PAGES = _toc_pages()
NOTEBOOK_PAGES = [p for p in PAGES if (ROOT / f"{p}.ipynb").exists()]


def _find_chromium() -> str | None:
    for candidate in (os.environ.get("CHROMIUM"), "/usr/bin/chromium",
                      shutil.which("chromium"), shutil.which("chromium-browser")):
        if candidate and Path(candidate).exists():
            return candidate
    return None


@pytest.fixture(scope="session")
def chromium_path() -> str:
    path = _find_chromium()
    if path is None:
        message = ("no chromium found (install Debian's chromium: apt-get install chromium, "
                   "or set CHROMIUM=/path/to/chromium)")
        if os.environ.get("REQUIRE_BROWSER") == "1":
            pytest.fail(f"REQUIRE_BROWSER=1 but {message}")
        pytest.skip(message)
    return path


@pytest.fixture(scope="session")
def site_url() -> str:
    if not (SITE / "index.html").exists():
        pytest.fail("the site is not built: run `make book` first")
    handler = functools.partial(_QuietHandler, directory=str(SITE))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".js": "text/javascript", ".ipynb": "application/x-ipynb+json"}

    def log_message(self, *args) -> None:  # keep pytest output clean
        pass


# module scope: the other browser suites start Playwright's sync API themselves, which refuses
# to start while another instance's event loop is still running
@pytest.fixture(scope="module")
def browser(chromium_path):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS)
        yield b
        b.close()


def stored_theme(mode: str, theme: str | None = None) -> str:
    """An init script that stores a colour mode (and the theme it resolved to) as
    pydata-sphinx-theme does, so the page opens in it."""
    return (f"localStorage.setItem('mode', '{mode}'); "
            f"localStorage.setItem('theme', '{theme or mode}');")


class PageVisit:
    """A page loaded with every request, console error and page error recorded."""

    def __init__(self, browser, url: str):
        self.url = url
        self.context = browser.new_context(accept_downloads=True)
        self.external: list[str] = []
        self.errors: list[str] = []
        self.failed: list[str] = []
        self.context.route("**/*", self._route)
        self.page = self.context.new_page()
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("requestfailed", lambda r: self.failed.append(r.url))
        response = self.page.goto(url, wait_until="load")
        assert response is not None and response.ok, f"{url}: HTTP {response and response.status}"
        self.page.wait_for_load_state("networkidle")

    def _route(self, route) -> None:
        url = route.request.url
        host = urlparse(url).hostname
        if url.startswith(("data:", "blob:")) or host == "127.0.0.1":
            route.continue_()
        else:
            self.external.append(url)
            route.abort()

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def visit(browser, site_url):
    visits: list[PageVisit] = []

    def _visit(page: str) -> PageVisit:
        v = PageVisit(browser, f"{site_url}/{page}.html")
        visits.append(v)
        return v

    yield _visit
    for v in visits:
        v.close()


@pytest.fixture(scope="module")
def loaded(request, browser, site_url):
    """One visit to the page ``request.param``, shared by that page's tests below.

    The fixture is module-scoped and parametrized indirectly, so pytest runs each page's tests
    one after another on the same visit and closes it before opening the next page. On a
    notebook page the download check comes first (pytest orders the parameters so), and the
    menu it opens closes again. The theme switch (the formulas) and the phone's width come last.
    """
    v = PageVisit(browser, f"{site_url}/{request.param}.html")
    v.name = request.param
    yield v
    v.close()


@pytest.mark.parametrize("loaded", PAGES, indirect=True)
def test_page_loads_cleanly(loaded):
    """No console error (a missing favicon included), no failed or outside request, every
    image loaded once scrolled to (figures load lazily) and every icon drawn."""
    v = loaded
    for i in range(v.page.locator("img").count()):  # lazy images load when scrolled to
        v.page.locator("img").nth(i).scroll_into_view_if_needed()
    v.page.wait_for_load_state("networkidle")
    v.page.wait_for_function("() => [...document.images].every(i => i.complete)")
    assert v.external == [], f"requests left 127.0.0.1: {v.external}"
    assert v.errors == [], f"console errors: {v.errors}"
    assert v.failed == [], f"failed requests: {v.failed}"
    # the reduced icon script turned every Font Awesome placeholder into an SVG icon
    assert v.page.locator("i[class*='fa-']").count() == 0
    assert v.page.locator("svg.svg-inline--fa").count() >= 5
    images = v.page.eval_on_selector_all(
        "img", "imgs => imgs.map(i => [i.currentSrc || i.src, i.complete, i.naturalWidth])")
    broken = [src for src, complete, width in images if not complete or width == 0]
    assert broken == [], f"images that did not load: {broken}"


@pytest.mark.parametrize("loaded", PAGES, indirect=True)
def test_accessibility_axe(loaded):
    """axe-core (bundled in axe-playwright-python) finds no serious or critical violation."""
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(loaded.page)
    bad = [
        (viol["id"], viol["impact"], [n["target"] for n in viol["nodes"]][:3])
        for viol in results.response["violations"]
        if viol["impact"] in ("serious", "critical")
    ]
    assert bad == [], f"{loaded.name}: {bad}"


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

#: The formulas as the server sent them: the page's HTML parsed again, no script run on it.
_SENT = """async () => {
  const sent = new DOMParser().parseFromString(await (await fetch(location.href)).text(),
                                                'text/html');
  return [...sent.querySelectorAll('main .math')].map(m =>
    (m.querySelector(':scope > math') || m).outerHTML);
}"""

_COLOURS = """() => [...document.querySelectorAll('main .math')]
    .filter(m => !m.closest('nav')).map(m => {  // a heading's formula in "On this page" is a link
    const around = m.parentElement.closest(
      'p, li, dd, dt, td, th, h1, h2, h3, h4, h5, h6, div, section');
    return [getComputedStyle(m.querySelector(':scope > math')).color,
            getComputedStyle(around).color];
})"""


def _check_colours(page, theme: str) -> None:
    """The formulas take the colour of the text around them, which is the theme's."""
    assert page.evaluate("() => document.documentElement.dataset.theme") == theme
    colours = page.evaluate(_COLOURS)
    assert all(math == around for math, around in colours), \
        (theme, [c for c in colours if c[0] != c[1]][:3])
    text_colour = page.evaluate("() => getComputedStyle(document.querySelector('main p')).color")
    r, g, b = map(int, re.findall(r"\d+", text_colour)[:3])
    light_text = (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255 > 0.5
    assert light_text == (theme == "dark"), (theme, text_colour)


def _source_text(page: str) -> str:
    """The page's MyST text: a notebook's Markdown cells, or the Markdown page."""
    if (ROOT / f"{page}.ipynb").exists():
        cells = json.loads((ROOT / f"{page}.ipynb").read_text(encoding="utf-8"))["cells"]
        return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    return (ROOT / f"{page}.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("loaded", PAGES, indirect=True)
def test_formulas_arrive_rendered_with_mathml(loaded):
    """The formulas are rendered to MathML when the site is built (Temml,
    ``_ext/build_math.py``), and on every page:

    * no script typesets math: the page loads no math script, and the formulas are the MathML
      the server sent, unchanged;
    * every display and inline formula is one ``<math>`` element in MathML's namespace (display
      formulas ``display="block"``), drawn with a size, and nothing else (no HTML rendering
      beside it); no raw ``$...$``, ``\\(`` or ``\\[`` is left in the text, and no Temml error
      node (``temml-error``) is there; a page whose source has a formula shows one;
    * the site's math font ("Course Math") is loaded, from the preload, and draws them;
    * they take the colour of the text around them, in the light theme and, once the reader's
      switch has turned the page dark, in the dark one.
    """
    v, page = loaded, loaded.name
    loaded_urls = v.page.evaluate(
        "() => performance.getEntriesByType('resource').map(e => e.name)")
    scripts = [u for u in loaded_urls if re.search(r"mathjax|katex|temml[^/]*\.js|tex-mml", u,
                                                   flags=re.I)]
    assert scripts == [], f"a script for math was loaded: {scripts}"
    assert v.page.evaluate("() => window.MathJax === undefined && window.katex === undefined"
                           " && window.temml === undefined")
    formulas = v.page.evaluate(_FORMULAS)
    sent = v.page.evaluate(_SENT)
    changed = [(a, f["markup"]) for a, f in zip(sent, formulas) if a != f["markup"]]
    assert len(sent) == len(formulas) and changed == [], (len(sent), len(formulas), changed[:2])
    unrendered = [f["markup"][:120] for f in formulas
                  if not (f["mathml"] and f["alone"] and f["drawn"])]
    assert unrendered == [], f"{page}: not MathML, or not drawn: {unrendered[:5]}"
    assert v.page.locator(".temml-error, .katex").count() == 0
    assert v.page.locator("main math").count() == len(formulas)  # no math outside the boxes
    if formulas:
        # drawn with the site's math font, which the page preloaded and the browser loaded
        assert {f["font"].split(",")[0].strip('"') for f in formulas} == {"Course Math"}
        fonts = [u for u in loaded_urls
                 if re.search(r"/_static/math/course-math\.\w+\.woff2$", u)]
        assert len(fonts) == 1, fonts
        assert v.page.evaluate("""() => [...document.fonts].some(f =>
            f.family.replace(/"/g, '') === 'Course Math' && f.status === 'loaded')""")
    raw = re.findall(r"\$[^$\n]{0,80}\\[A-Za-z]+|\\[(\[]|\$\$", v.page.evaluate(_LEFT_TEXT))
    assert raw == [], f"{page}: raw TeX in the text: {raw[:5]}"
    if count_source_formulas(_source_text(page)):  # a page whose text has a formula shows it
        assert formulas
    if not formulas:
        return
    # the page opens light (the system's), and the reader's switch, clicked until it shows
    # dark, recolours the same formulas without reloading the page
    _check_colours(v.page, "light")
    for _ in range(3):
        v.page.locator("button.theme-switch-button").click()
        if v.page.evaluate("() => document.documentElement.dataset.theme") == "dark":
            break
    _check_colours(v.page, "dark")
    assert v.page.evaluate(_FORMULAS) == formulas


@pytest.mark.parametrize("loaded", NOTEBOOK_PAGES, indirect=True)
def test_notebook_buttons(loaded):
    """The download button saves the notebook. This build knows no repository, so there is no
    Binder or repository button (tests/site/test_publishing.py checks them in a build that does)."""
    v, page = loaded, loaded.name
    name = Path(page).name + ".ipynb"
    assert v.page.locator("a[href*='mybinder.org']").count() == 0
    assert v.page.locator("a[href*='github.com']").count() == 0
    link = v.page.locator("a.btn-download-source-button")
    assert link.count() == 1
    assert link.get_attribute("download") == name
    # click it the way a reader would: the menu opens, the notebook is saved, not shown
    v.page.locator("button[aria-label='Download this page']").click()
    with v.page.expect_download() as info:
        link.click()
    download = info.value
    link.wait_for(state="hidden", timeout=5000)  # the menu closes: the other checks see the page
    assert download.suggested_filename == name
    notebook = json.loads(Path(download.path()).read_text(encoding="utf-8"))
    assert notebook["nbformat"] == 4
    # the reader edition (tests/site/test_reader_edition.py): same code cells and outputs
    assert notebook["cells"][0]["id"] == "reader-edition"
    original = json.loads((ROOT / f"{page}.ipynb").read_text(encoding="utf-8"))
    assert [(c["source"], c["outputs"]) for c in notebook["cells"] if c["cell_type"] == "code"] == [
        (c["source"], c["outputs"]) for c in original["cells"] if c["cell_type"] == "code"]


def test_course_archive_is_offered_and_complete(visit, site_url, tmp_path):
    v = visit("intro")
    link = v.page.locator("a[href='course.zip']")
    assert link.count() == 1
    with v.page.expect_download() as info:
        link.click()
    path = Path(info.value.path())
    names = set(zipfile.ZipFile(path).namelist())
    expected = {arcname for _, arcname in course_files(ROOT)} | {"dp-course/README.md"}
    assert {f"dp-course/{p}.ipynb" for p in NOTEBOOK_PAGES} <= expected
    assert names == expected, sorted(names ^ expected)


def _overflow_report(page) -> list[str]:
    """Elements wider than the screen that are cut off rather than scrollable with a cue."""
    return page.evaluate("""() => {
      const bad = [];
      // the cue is the scroll box's background: an opaque table row or cell hides it
      const opaque = e => {
        const m = getComputedStyle(e).backgroundColor.match(/[0-9.]+/g) || [];
        return m.length === 3 || (m.length === 4 && parseFloat(m[3]) >= 0.5);
      };
      const hidesCue = box => [...box.querySelectorAll('table, thead, tbody, tr, th, td')]
        .some(opaque);
      const clipped = el => {
        for (let a = el.parentElement; a; a = a.parentElement) {
          const s = getComputedStyle(a);
          if (s.overflowX === 'auto' || s.overflowX === 'scroll') {
            const cue = s.backgroundImage.includes('gradient');
            const wide = a.scrollWidth > a.clientWidth + 1;
            return (wide && !cue) ? 'scrolls without a cue' :
                   (wide && hidesCue(a)) ? 'its table paints over the scroll cue' :
                   a.getBoundingClientRect().right > document.documentElement.clientWidth + 1
                   ? 'its scroll box is wider than the screen' : null;
          }
          if (s.overflowX === 'hidden' || s.overflowX === 'clip') {
            return el.getBoundingClientRect().right > a.getBoundingClientRect().right + 1
                   ? 'cut by an overflow: hidden box' : null;
          }
        }
        return el.getBoundingClientRect().right > document.documentElement.clientWidth + 1
               ? 'cut at the edge of the screen' : null;
      };
      const sel = 'main math, main table, main pre, main img';
      for (const el of document.querySelectorAll(sel)) {
        if (el.getBoundingClientRect().width === 0) continue;
        const why = clipped(el);
        if (why) bad.push(el.tagName + ' (' + Math.round(el.getBoundingClientRect().width) +
                          ' px): ' + why + ': ' + (el.textContent || '').slice(0, 40));
      }
      return bad;
    }""")


@pytest.mark.parametrize("loaded", PAGES, indirect=True)
def test_phone_width_nothing_is_cut_off(loaded):
    """On a 390 px phone screen every wide equation, table, code block and figure either fits
    or scrolls inside its own box, which shows a scroll shadow as the cue (and no table row
    or cell paints over it). The page's visit, its other checks done, is narrowed to the
    phone's width: the browser lays it out again, and wide-math.js measures it again."""
    p = loaded.page
    measured = ("() => !document.querySelector('.bd-content span.math')"
                " || document.documentElement.dataset.wideMath === 'measured'")
    p.wait_for_function(measured)  # wide-math.js measured the page at its first width
    p.evaluate("() => { delete document.documentElement.dataset.wideMath; }")
    p.set_viewport_size({"width": 390, "height": 844})
    p.wait_for_function(measured)  # and again at the phone's
    assert p.evaluate("() => document.documentElement.scrollWidth") <= 390
    assert _overflow_report(p) == []


def test_dark_mode_shows_figures_undimmed_on_white(browser, site_url):
    context = browser.new_context()
    try:
        p = context.new_page()
        p.add_init_script(stored_theme("dark"))
        p.goto(f"{site_url}/chapters/laplace-mechanism.html", wait_until="load")
        p.wait_for_load_state("networkidle")
        assert p.evaluate("() => document.documentElement.dataset.theme") == "dark"
        styles = p.eval_on_selector_all("div.cell_output img", """imgs => imgs.map(i => {
            const s = getComputedStyle(i); return [s.filter, s.backgroundColor]; })""")
        assert styles and all(s == ["none", "rgb(255, 255, 255)"] for s in styles), styles[:3]
    finally:
        context.close()


#: Records every value ``data-theme`` takes while a page loads, and whether the body existed.
THEME_WATCH = """
window.__themes = [];
new MutationObserver(records => {
  for (const r of records) {
    if (r.type === "attributes") {
      window.__themes.push([document.documentElement.dataset.theme, document.body !== null]);
    } else if (r.target === document.documentElement
               && [...r.addedNodes].some(n => n.nodeName === "BODY")) {
      window.__themes.push([document.documentElement.dataset.theme, "body parsed"]);
    }
  }
}).observe(document, {attributes: true, attributeFilter: ["data-theme"], childList: true,
                      subtree: true});  // the init script runs before <html> exists
"""


@pytest.mark.parametrize("system, stored, theme", [
    ("light", None, "light"), ("dark", None, "dark"),
    ("light", ("dark", "dark"), "dark"),
    # the mode is "auto" but the theme stored by a visit under a dark system is dark
    ("light", ("auto", "dark"), "light")])
def test_the_first_paint_has_the_colours_the_page_keeps(browser, site_url, system, stored,
                                                        theme):
    """``data-theme`` has its final value before the body is parsed (``templates/layout.html``,
    pydata-sphinx-theme#1857), and
    keeps it: a page is not painted without the theme's colours, or in the wrong theme, and
    not styled twice while it loads."""
    context = browser.new_context(color_scheme=system)
    try:
        p = context.new_page()
        if stored:
            p.add_init_script(stored_theme(*stored))
        p.add_init_script(THEME_WATCH)
        p.goto(f"{site_url}/chapters/privacy-accounting.html", wait_until="load")
        p.wait_for_load_state("networkidle")
        seen = p.evaluate("() => window.__themes")
        assert [theme, "body parsed"] in seen, seen
        after_body = seen[seen.index([theme, "body parsed"]):]
        assert {value for value, _ in after_body} == {theme}, seen
        # the theme's own script ran and resolved the mode to the same theme
        assert p.evaluate("() => document.documentElement.dataset.theme") == theme
        assert len(after_body) >= 2, seen
    finally:
        context.close()


@pytest.mark.parametrize("system", ["light", "dark"])
def test_colour_mode_follows_the_system_and_the_switch_shows_and_cycles(browser, site_url,
                                                                        system):
    """A first visit follows the reader's system (``prefers-color-scheme``); the switch draws
    the icon of the current mode, one icon at a time, and each click moves to the next mode,
    in both themes."""
    context = browser.new_context(color_scheme=system)
    try:
        p = context.new_page()
        p.goto(f"{site_url}/chapters/sensitivity.html", wait_until="load")
        p.wait_for_load_state("networkidle")
        state = ("() => [document.documentElement.dataset.mode, "
                 "document.documentElement.dataset.theme]")
        assert p.evaluate(state) == ["auto", system]
        seen = []
        for click in range(4):
            mode, theme = p.evaluate(state)
            shown = p.locator(".theme-switch-button .theme-switch:visible")
            assert shown.count() == 1, (mode, theme)
            assert shown.evaluate("e => e.tagName.toLowerCase()") == "svg"  # drawn as an icon
            assert shown.get_attribute("data-mode") == mode
            box = shown.bounding_box()
            assert box and box["width"] >= 10 and box["height"] >= 10, (mode, box)
            seen.append((mode, theme))
            if click < 3:
                p.locator("button.theme-switch-button").click()
        assert {mode for mode, _ in seen} == {"auto", "light", "dark"}
        assert {theme for _, theme in seen} == {"light", "dark"}
        assert seen[3] == seen[0]  # three clicks come back
        assert all(theme == (system if mode == "auto" else mode) for mode, theme in seen)
    finally:
        context.close()


def test_phone_width_wide_table_shows_its_scroll_cue(browser, site_url):
    """The cue is drawn, not only declared: at the right edge of a wide output table on a
    phone, the pixels change when the scroll box's shadows are taken away."""
    context = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        p = context.new_page()
        p.goto(f"{site_url}/chapters/linkage-attacks.html", wait_until="load")
        p.wait_for_load_state("networkidle")
        box = p.locator("div.cell_output .output.text_html:has(table)").first
        box.scroll_into_view_if_needed()
        assert box.evaluate("b => b.scrollWidth > b.clientWidth + 50")  # it is a wide table
        bb = box.bounding_box()
        edge = {"x": bb["x"] + bb["width"] - 12, "y": bb["y"], "width": 12, "height": bb["height"]}
        with_cue = p.screenshot(clip=edge)
        box.evaluate("b => { b.style.background = 'none'; }")
        without_cue = p.screenshot(clip=edge)
        assert with_cue != without_cue, "the scroll shadow is hidden under the table"
    finally:
        context.close()


def test_phone_width_wide_formula_scrolls_with_its_cue(browser, site_url):
    """On a phone, the widest display formula of ``advanced-and-optimal-composition`` (the
    optimal-composition δ, once in ``privacy-accounting``, whose core has no formula that wide)
    scrolls in its own box from its first character to its last (nothing out of reach on the
    left, as a centred or reversed-row formula would be), and the box's shadow is drawn at its
    right edge."""
    context = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        p = context.new_page()
        p.goto(f"{site_url}/chapters/advanced-and-optimal-composition.html", wait_until="load")
        p.wait_for_load_state("networkidle")
        index = p.evaluate("""() => {
            const boxes = [...document.querySelectorAll('main div.math')];
            const extra = boxes.map(b => b.scrollWidth - b.clientWidth);
            return extra.indexOf(Math.max(...extra)); }""")
        box = p.locator("main div.math").nth(index)
        box.scroll_into_view_if_needed()
        assert box.evaluate("b => b.scrollWidth > b.clientWidth + 20")  # it is wider than a phone
        start = box.evaluate("""b => { b.scrollLeft = 0; const m = b.querySelector('math');
            return m.getBoundingClientRect().left - b.getBoundingClientRect().left; }""")
        assert start >= -1, start  # the formula's left edge is inside the box, not cut off
        end = box.evaluate("""b => { b.scrollLeft = b.scrollWidth;
            const m = b.querySelector('math');
            return b.getBoundingClientRect().right - m.getBoundingClientRect().right; }""")
        assert end >= -1, end  # and scrolled to the end, its right edge shows
        box.evaluate("b => { b.scrollLeft = 0; }")
        bb = box.bounding_box()
        edge = {"x": bb["x"] + bb["width"] - 12, "y": bb["y"], "width": 12, "height": bb["height"]}
        with_cue = p.screenshot(clip=edge)
        box.evaluate("b => { b.style.background = 'none'; }")
        without_cue = p.screenshot(clip=edge)
        assert with_cue != without_cue, "no scroll shadow at the right edge of a wide formula"
    finally:
        context.close()


def test_desktop_shows_one_search_field(browser, site_url):
    """One search field on a desktop screen (the sidebar's), not a second one in a top bar."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        p = context.new_page()
        p.goto(f"{site_url}/chapters/sensitivity.html", wait_until="load")
        p.wait_for_load_state("networkidle")
        visible = p.eval_on_selector_all(".search-button-field", """els => els.filter(e => {
            const r = e.getBoundingClientRect(), s = getComputedStyle(e);
            return r.width > 0 && r.height > 0 && s.visibility !== 'hidden'; }).length""")
        assert visible == 1
        assert p.locator("#pst-primary-sidebar .search-button-field").is_visible()
        assert p.evaluate("() => document.querySelector('.bd-header').offsetHeight") == 0
    finally:
        context.close()


#: A signature of each element's computed style, and of its ``::before`` and ``::after`` (icons
#: are drawn there): what a reader sees of it.
STYLE_SIGNATURE = """async () => {
  // transitions in flight (a solution folding away) would be sampled half-way, and a font
  // still loading gives its text another width
  await Promise.all(document.getAnimations().map(a => a.finished.catch(() => null)));
  await document.fonts.ready;
  const props = ['display', 'position', 'float', 'visibility', 'opacity', 'color',
    'background-color', 'background-image', 'font-family', 'font-size', 'font-weight',
    'font-style', 'line-height', 'text-align', 'text-decoration-line', 'text-transform',
    'white-space', 'vertical-align', 'margin-top', 'margin-right', 'margin-bottom',
    'margin-left', 'padding-top', 'padding-right', 'padding-bottom', 'padding-left',
    'border-top-width', 'border-top-style', 'border-top-color', 'border-bottom-width',
    'border-bottom-style', 'border-left-width', 'border-left-color', 'border-right-width',
    'border-radius', 'box-shadow', 'overflow-x', 'overflow-y', 'z-index', 'transform', 'filter',
    'cursor', 'list-style-type', 'width', 'height', 'top', 'left', 'max-width',
    'flex-direction', 'justify-content', 'align-items', 'gap', 'grid-template-columns',
    'outline-style', 'clip', 'clip-path'];
  const out = [];
  for (const e of document.body.querySelectorAll('*')) {
    const s = getComputedStyle(e);
    let text = e.tagName + ' ' + props.map(p => s.getPropertyValue(p)).join(';');
    for (const pseudo of ['::before', '::after']) {
      const q = getComputedStyle(e, pseudo);
      text += ` ${pseudo} ${q.content} ${q.color} ${q.fontFamily} ${q.display} ${q.width}`;
    }
    out.push(text);
  }
  return out;
}"""


def _theme_stylesheet() -> str:
    """The theme's own stylesheet, with its icon fonts as the site serves them."""
    css = (SITE / "_static" / "styles" / "pydata-sphinx-theme.css").read_text(encoding="utf-8")
    return css.replace("/webfonts/", "/course-webfonts/")


@pytest.mark.parametrize("page, theme, width", [
    ("intro", "light", 390), ("intro", "dark", 390),
    ("chapters/privacy-accounting", "light", 390), ("chapters/privacy-accounting", "dark", 390),
    ("chapters/dp-engines", "light", 390), ("chapters/dp-engines", "dark", 1280)])
def test_the_pruned_theme_stylesheet_draws_what_the_theme_draws(browser, site_url, page, theme,
                                                                 width):
    """Pages link the theme's stylesheet pruned to the selectors the site can match
    (``course_site.icons.purge_css``, PurgeCSS). Every element of the page, and its
    ``::before`` and ``::after``, has the same computed style as with the theme's whole
    stylesheet, after the page loads and with the navigation drawer open."""
    reference = _theme_stylesheet()
    seen = {}
    for version in ("pruned", "theme"):
        context = browser.new_context(viewport={"width": width, "height": 900})
        try:
            p = context.new_page()
            p.add_init_script(stored_theme(theme))
            if version == "theme":
                p.route(f"**/_static/{THEME_CSS}*", lambda route: route.fulfill(
                    body=reference, content_type="text/css; charset=utf-8"))
            p.goto(f"{site_url}/{page}.html", wait_until="load")
            p.wait_for_load_state("networkidle")
            # both versions once wide-math.js has marked the inline formulas (when idle)
            p.wait_for_function("() => !document.querySelector('.bd-content span.math')"
                                " || document.documentElement.dataset.wideMath === 'measured'")
            rules = p.evaluate("() => [...document.styleSheets].reduce((n, s) => n + "
                               "s.cssRules.length, 0)")
            loaded = p.evaluate(STYLE_SIGNATURE)
            p.locator("button.primary-toggle").first.click()
            seen[version] = (rules, loaded, p.evaluate(STYLE_SIGNATURE))
        finally:
            context.close()
    assert seen["theme"][0] > seen["pruned"][0] + 1000  # the reference had the whole sheet
    for state, name in ((1, "loaded"), (2, "drawer open")):
        pruned, whole = seen["pruned"][state], seen["theme"][state]
        assert len(pruned) == len(whole) > 300, (name, len(pruned), len(whole))
        differ = [(i, [(x, y) for x, y in zip(a.split(";"), b.split(";")) if x != y])
                  for i, (a, b) in enumerate(zip(pruned, whole)) if a != b]
        assert differ == [], f"{name}: {len(differ)} elements differ, first {differ[:3]}"

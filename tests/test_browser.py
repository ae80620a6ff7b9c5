"""Browser tests: Debian's chromium, driven by Playwright, against the built site on 127.0.0.1.

For every page in the table of contents: no console errors, math typeset where the page has
math, every image loaded, no request to any host but the local server, and, on notebook pages,
working download and Binder buttons. Plus an axe-core accessibility audit of every page.

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

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
SITE = ROOT / "_build" / "html"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


def _toc_pages() -> list[str]:
    """Every document in _toc.yml, as a path relative to the site root without suffix."""
    toc = (ROOT / "_toc.yml").read_text(encoding="utf-8")
    root = re.search(r"^root:\s*(\S+)", toc, flags=re.M).group(1)
    return [root] + re.findall(r"^\s*-\s*file:\s*(\S+)", toc, flags=re.M)


PAGES = _toc_pages()
NOTEBOOK_PAGES = [p for p in PAGES if (ROOT / f"{p}.ipynb").exists()]


def _repository() -> tuple[str, str]:
    config = (ROOT / "_config.yml").read_text(encoding="utf-8")
    url = re.search(r"^repository:\s*\n\s+url:\s*(\S+)", config, flags=re.M).group(1)
    branch = re.search(r"^\s+branch:\s*(\S+)", config, flags=re.M).group(1)
    return url.removeprefix("https://github.com/"), branch


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


@pytest.fixture(scope="session")
def browser(chromium_path):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS)
        yield b
        b.close()


class PageVisit:
    """A page loaded with every request, console error and page error recorded."""

    def __init__(self, browser, url: str):
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


@pytest.mark.parametrize("page", PAGES)
def test_page_loads_cleanly(visit, page):
    v = visit(page)
    assert v.external == [], f"requests left 127.0.0.1: {v.external}"
    assert v.errors == [], f"console errors: {v.errors}"
    assert v.failed == [], f"failed requests: {v.failed}"
    images = v.page.eval_on_selector_all(
        "img", "imgs => imgs.map(i => [i.currentSrc || i.src, i.complete, i.naturalWidth])")
    broken = [src for src, complete, width in images if not complete or width == 0]
    assert broken == [], f"images that did not load: {broken}"


@pytest.mark.parametrize("page", PAGES)
def test_math_is_typeset(visit, page):
    v = visit(page)
    n_math = v.page.locator(".math").count()
    scripts = v.page.eval_on_selector_all(
        "script[src*='tex-mml-chtml']", "els => els.map(e => e.getAttribute('src'))")
    if n_math == 0:  # a page without math should not pay for loading MathJax
        assert scripts == [], f"{page} has no math but loads {scripts}"
        return
    v.page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise")
    v.page.evaluate("() => MathJax.startup.promise")
    typeset = v.page.locator(".math mjx-container, mjx-container.MathJax").count()
    assert typeset >= n_math, f"{page}: {typeset} of {n_math} math elements typeset"
    errors = v.page.locator("mjx-merror").count()
    assert errors == 0, f"{page}: {errors} MathJax errors"
    assert len(scripts) == 1, f"MathJax must load once, found {scripts}"


@pytest.mark.parametrize("page", NOTEBOOK_PAGES)
def test_notebook_buttons(visit, site_url, page):
    v = visit(page)
    name = Path(page).name + ".ipynb"
    repo, branch = _repository()
    binder = v.page.locator("a[href*='mybinder.org/v2/gh/']")
    assert binder.count() == 1
    assert binder.get_attribute("href") == (
        f"https://mybinder.org/v2/gh/{repo}/{branch}?urlpath=lab/tree/{page}.ipynb")
    link = v.page.locator("a.btn-download-source-button")
    assert link.count() == 1
    assert link.get_attribute("download") == name
    # click it the way a reader would: the menu opens, the notebook is saved, not shown
    v.page.locator("button[aria-label='Download this page']").click()
    with v.page.expect_download() as info:
        link.click()
    download = info.value
    assert download.suggested_filename == name
    notebook = json.loads(Path(download.path()).read_text(encoding="utf-8"))
    assert notebook["nbformat"] == 4
    assert notebook == json.loads((ROOT / f"{page}.ipynb").read_text(encoding="utf-8"))


def test_course_archive_is_offered_and_complete(visit, site_url, tmp_path):
    v = visit("intro")
    link = v.page.locator("a[href='course.zip']")
    assert link.count() == 1
    with v.page.expect_download() as info:
        link.click()
    path = Path(info.value.path())
    names = set(zipfile.ZipFile(path).namelist())
    expected = {f"dp-course/{p}.ipynb" for p in NOTEBOOK_PAGES} | {
        "dp-course/chapters/helpers.py", "dp-course/requirements.txt",
        "dp-course/HOW-TO-RUN.md", "dp-course/data/adult_with_pii.csv",
        "dp-course/data/health.csv"}
    assert expected <= names, sorted(expected - names)


@pytest.mark.parametrize("page", PAGES)
def test_accessibility_axe(visit, page):
    """axe-core (bundled in axe-playwright-python) finds no serious or critical violation."""
    from axe_playwright_python.sync_playwright import Axe

    v = visit(page)
    results = Axe().run(v.page)
    bad = [
        (viol["id"], viol["impact"], [n["target"] for n in viol["nodes"]][:3])
        for viol in results.response["violations"]
        if viol["impact"] in ("serious", "critical")
    ]
    assert bad == [], f"{page}: {bad}"

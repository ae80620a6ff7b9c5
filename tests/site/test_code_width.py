"""A code line of 80 columns fits the code box of a page at 1,280 px, in chromium.

Code folded on the page (figure code, solutions) is left out: a solution's box is indented, so
it holds fewer columns (noted in issue 38's follow-up).

The course wraps shown code at 80 columns (``test_core_path.py``); this checks that the page
then shows all of it, without a horizontal scroll, on every chapter already on the core path.
"""

from __future__ import annotations

import pytest

from test_browser import CHROMIUM_ARGS, chromium_path, site_url  # noqa: F401  (fixtures)
from test_core_path import ROOT, toc_sections

pytestmark = pytest.mark.browser

CHAPTERS = [doc.split("/")[-1] for doc in toc_sections(ROOT)]


@pytest.fixture(scope="module")
def browser_page(site_url, chromium_path):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        yield page
        browser.close()


def test_eighty_columns_fit_the_code_box(browser_page, site_url):
    page = browser_page
    page.goto(f"{site_url}/chapters/{CHAPTERS[0]}.html")
    columns = page.evaluate("""() => {
        const pre = document.querySelector('div.cell_input pre');
        const probe = document.createElement('span');
        probe.textContent = 'x'.repeat(80);
        pre.appendChild(probe);
        const style = getComputedStyle(pre);
        const room = pre.clientWidth - parseFloat(style.paddingLeft)
                     - parseFloat(style.paddingRight);
        const width = probe.getBoundingClientRect().width;
        probe.remove();
        return room / (width / 80);
    }""")
    assert columns >= 80, f"the code box holds {columns:.1f} columns at 1,280 px"


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_no_code_cell_of_a_core_scrolls_sideways(browser_page, site_url, chapter):
    page = browser_page
    page.goto(f"{site_url}/chapters/{chapter}.html")
    wide = page.evaluate("""() => [...document.querySelectorAll('div.cell_input pre')]
        .filter(pre => !pre.closest('.tag_hide-input, details, .solution, .dropdown')
                       && pre.scrollWidth > pre.clientWidth + 1)
        .map(pre => pre.textContent.split('\\n').reduce((a, b) => a.length > b.length ? a : b))""")
    assert wide == [], wide

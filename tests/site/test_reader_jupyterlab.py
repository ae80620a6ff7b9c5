"""The reader edition in a real JupyterLab, as a student opens it from ``course.zip``.

JupyterLab (``requirements-dev.txt``) is started from the course's environment on a free port
with a token, over the unpacked archive that ``make book`` wrote; Debian's chromium, driven by
Playwright, opens two chapters. On each: no MyST markup is visible, the values the site glues
into the prose outside solutions are in the text, every solution (Markdown and code) is
collapsed until clicked, math is typeset by JupyterLab's own MathJax, and the browser asks
no host but the local server. Screenshots are kept in ``_build/reader-edition-screenshots/``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
import zipfile
from pathlib import Path
from urllib.parse import urlparse

import pytest

pytestmark = pytest.mark.browser
from reader_markdown import COLLAPSED, SOLUTION_LEVEL, heading_level  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
ARCHIVE = ROOT / "_build" / "html" / "course.zip"
SHOTS = ROOT / "_build" / "reader-edition-screenshots"
TOKEN = "reader-edition-test"
CHAPTERS = ["laplace-mechanism", "composition", "approximate-dp", "local-dp", "privacy-accounting",
            "unknown-ranges"]
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
MARKUP = ("{glue", "{doc}", "{cite", ":::{", "{prf:", "{term}", "{ref}", "{numref}")


@pytest.fixture(scope="module")
def chromium() -> str:
    path = os.environ.get("CHROMIUM") or "/usr/bin/chromium"
    if not Path(path).exists():
        if os.environ.get("REQUIRE_BROWSER") == "1":
            pytest.fail(f"REQUIRE_BROWSER=1 but no chromium at {path}")
        pytest.skip(f"no chromium at {path} (apt-get install chromium)")
    return path


@pytest.fixture(scope="module")
def lab(tmp_path_factory) -> str:
    """JupyterLab serving the unpacked course archive; yields its base URL."""
    if not ARCHIVE.exists():
        pytest.fail("course.zip is missing: run `make book` first")
    home = tmp_path_factory.mktemp("jupyterlab")
    with zipfile.ZipFile(ARCHIVE) as zf:
        zf.extractall(home)
    settings = home / "settings" / "@jupyterlab" / "notebook-extension"
    settings.mkdir(parents=True)
    # render every cell, not only those on screen, so the whole text can be read
    (settings / "tracker.jupyterlab-settings").write_text('{"windowingMode": "none"}')
    news = home / "settings" / "@jupyterlab" / "apputils-extension"
    news.mkdir(parents=True)  # no "get notified about Jupyter news?" prompt on the screenshots
    (news / "notification.jupyterlab-settings").write_text('{"fetchNews": "false"}')
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "HOME": str(home), "JUPYTER_CONFIG_DIR": str(home / "config"),
           "JUPYTER_DATA_DIR": str(home / "data"), "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
           "JUPYTERLAB_SETTINGS_DIR": str(home / "settings"),
           "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces")}
    server = subprocess.Popen(
        [str(Path(sys.executable).parent / "jupyter"), "lab", "--no-browser", f"--port={port}",
         "--ip=127.0.0.1", f"--IdentityProvider.token={TOKEN}",
         f"--ServerApp.root_dir={home / 'dp-course'}", "--LabApp.news_url=None",
         "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
         "--LabApp.extension_manager=readonly",
         *(["--allow-root"] if os.geteuid() == 0 else [])],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(f"{url}/api/status?token={TOKEN}", timeout=2)
                break
            except OSError:
                time.sleep(0.5)
        else:
            pytest.fail("JupyterLab did not start")
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)


def _outside_solutions(source: str) -> list[str]:
    """Glue keys the source shows outside any solution, in order."""
    keys, inside = [], False
    for cell in json.loads(source)["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        parts = re.split(r"\{solution-(start|end)\}", "".join(cell["source"]))
        for i, part in enumerate(parts):
            if i % 2:
                inside = part == "start"
                continue
            if not inside:
                part = re.sub(r"^(:{3,})\{solution\}.*?^\1[ \t]*$", "", part, flags=re.M | re.S)
                keys += re.findall(r"\{glue:text\}`([^`]+)`", part)
    return keys


def _stored_glue(source: str) -> dict[str, str]:
    from reader_edition import stored_glue

    return stored_glue(json.loads(source))


def _reader_cells(chapter: str) -> list[dict]:
    """The reader edition's cells, as course.zip carries them."""
    with zipfile.ZipFile(ARCHIVE) as zf:
        return json.loads(zf.read(f"dp-course/chapters/{chapter}.ipynb"))["cells"]


def _open_solution(page, heading) -> None:
    """Open a folded solution as a reader does: a click on its heading's arrow."""
    heading.locator(".jp-collapseHeadingButton").first.evaluate("b => b.click()")
    page.wait_for_timeout(300)


def _open(page, lab: str, chapter: str):
    """Open a chapter of the unpacked course.zip in a workspace of its own; its notebook."""
    page.goto(f"{lab}/lab/workspaces/{chapter}/tree/chapters/{chapter}.ipynb"
              f"?reset&token={TOKEN}")
    notebook = page.locator(".jp-NotebookPanel .jp-Notebook")
    notebook.wait_for(timeout=120_000)
    page.wait_for_selector(".jp-NotebookPanel mjx-container", timeout=60_000)
    page.wait_for_timeout(1500)  # let MathJax finish the remaining cells
    return notebook


def _eventually(check, seconds: float = 10.0) -> bool:
    """True as soon as ``check()`` is (JupyterLab may still be laying the notebook out)."""
    end = time.monotonic() + seconds
    while not check():
        if time.monotonic() > end:
            return False
        time.sleep(0.2)
    return True


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_a_reader_notebook_reads_like_the_site(lab, chromium, chapter):
    from playwright.sync_api import sync_playwright

    source = (ROOT / "chapters" / f"{chapter}.ipynb").read_text(encoding="utf-8")
    glue = _stored_glue(source)
    expected = [glue[key] for key in _outside_solutions(source)]
    assert expected, chapter
    SHOTS.mkdir(parents=True, exist_ok=True)
    hosts: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.on("request", lambda r: hosts.append(urlparse(r.url).hostname or ""))
        # a workspace of its own: only this notebook is open
        page.goto(f"{lab}/lab/workspaces/{chapter}/tree/chapters/{chapter}.ipynb"
                  f"?reset&token={TOKEN}")
        notebook = page.locator(".jp-NotebookPanel .jp-Notebook")
        notebook.wait_for(timeout=120_000)
        page.wait_for_selector(".jp-NotebookPanel .jp-MarkdownHeadingCollapsed", timeout=60_000)
        page.wait_for_selector(".jp-NotebookPanel mjx-container", timeout=60_000)
        page.wait_for_timeout(1500)  # let MathJax finish the remaining cells
        page.screenshot(path=str(SHOTS / f"{chapter}-top.png"))
        # opened and read, nothing changed: JupyterLab does not mark the notebook as modified
        # (it would if the notebook named another kernel than the installed one)
        page.wait_for_timeout(2000)  # the kernel's start, after which JupyterLab checks
        assert page.locator(".lm-TabBar-tab.jp-mod-dirty").count() == 0, chapter
        prose = notebook.locator(".jp-MarkdownCell .jp-RenderedMarkdown")
        text = "\n".join(prose.all_inner_texts())  # the prose (code cells are code)
        for markup in MARKUP:
            assert markup not in text, (chapter, markup)
        cursor = 0
        for value in expected:  # the glued numbers, in the order of the prose
            found = text.find(value, cursor)
            assert found >= 0, (chapter, value, text[cursor:cursor + 200])
            cursor = found + len(value)
        # math: JupyterLab's MathJax typeset it, no TeX source is left as text
        assert notebook.locator("mjx-container").count() > 20
        assert "\\varepsilon" not in text and "$$" not in text
        # solutions: each a heading JupyterLab shows folded, with its cells hidden under it
        reader = _reader_cells(chapter)
        headings = [i for i, c in enumerate(reader) if c["metadata"].get(COLLAPSED)]
        assert len(headings) >= 2  # a core has two or three exercises
        cells = notebook.locator(".jp-Cell")
        for i in headings:
            assert cells.nth(i).is_visible() and not cells.nth(i + 1).is_visible(), chapter
        first = cells.nth(headings[0])
        first.evaluate("e => e.scrollIntoView({block: 'center'})")
        page.wait_for_timeout(300)
        page.screenshot(path=str(SHOTS / f"{chapter}-solution-closed.png"))
        _open_solution(page, first)  # a reader's click on the heading's arrow
        assert _eventually(lambda: cells.nth(headings[0] + 1).is_visible())
        page.screenshot(path=str(SHOTS / f"{chapter}-solution-open.png"))
        hidden = json.loads((ARCHIVE.parent / "_sources" / "chapters" / f"{chapter}.ipynb")
                            .read_text(encoding="utf-8"))["cells"]
        hidden = sum(bool(c["metadata"].get("jupyter", {}).get("source_hidden")) for c in hidden)
        placeholders = notebook.locator(".jp-InputPlaceholder")
        assert placeholders.count() == hidden
        if hidden:  # the first collapsed code cell opens when its placeholder is clicked
            index = notebook.locator(".jp-Cell").evaluate_all(
                "cells => cells.findIndex(c => c.querySelector('.jp-InputPlaceholder'))")
            cell = notebook.locator(".jp-Cell").nth(index)
            assert cell.locator(".jp-InputArea-editor").count() == 0 or not cell.locator(
                ".jp-InputArea-editor").first.is_visible()
            cell.locator(".jp-InputPlaceholder").click()
            cell.locator(".jp-InputArea-editor").first.wait_for(state="visible", timeout=10_000)
            page.screenshot(path=str(SHOTS / f"{chapter}-solution-code-open.png"))
        browser.close()
    foreign = sorted({h for h in hosts if h not in ("127.0.0.1", "localhost")})
    assert foreign == [], foreign


def test_what_jupyterlab_got_wrong_in_the_reader_edition_stays_right(lab, chromium):
    """Issue #40's defects, each where a reader met it in JupyterLab: a folded helper's output,
    a solution shown once its cells ran, links and glossary terms lost without the site's URL,
    a warning drawn as a plain paragraph. (The literal dollar before a formula is checked on
    the Markdown, in test_reader_edition.py.)"""
    from playwright.sync_api import sync_playwright

    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        chapter = "laplace-mechanism"
        reader = _reader_cells(chapter)
        notebook = _open(page, lab, chapter)
        cells = notebook.locator(".jp-Cell")
        # the helper's source the page folds ("expand to read it") is folded: 54 lines
        folded = [i for i, c in enumerate(reader) if "hide-output" in c["metadata"].get(
            "tags", [])]
        assert folded
        for i in folded:
            assert sum(len(o.get("text", [])) for o in reader[i]["outputs"]) > 50
            # JupyterLab draws one placeholder for a cell whose source and output are folded
            placeholder = ".jp-InputPlaceholder:visible, .jp-OutputPlaceholder:visible"
            assert cells.nth(i).locator(placeholder).count() >= 1, i
            assert not cells.nth(i).locator(".jp-OutputArea-output").first.is_visible(), i
        # the build knew no site: a glossary term stays marked, in italics ...
        source = (ROOT / "chapters" / f"{chapter}.ipynb").read_text(encoding="utf-8")
        term = re.search(r"\{term\}`([^`<]+?)\s*(?:<[^`]*>)?`", source).group(1)
        prose = notebook.locator(".jp-MarkdownCell .jp-RenderedMarkdown")
        assert term in prose.locator("em").all_inner_texts()
        # ... and a reference to this chapter links to its place in the notebook
        links = prose.locator("a[href^='#']:not(.jp-InternalAnchorLink)")  # not a heading's ¶
        anchors = links.evaluate_all("a => a.map(e => e.getAttribute('href').slice(1))")
        assert anchors
        for anchor in set(anchors):  # JupyterLab keeps an id as data-jupyter-id
            assert notebook.locator(f"[data-jupyter-id='{anchor}']").count() == 1, anchor
        link = prose.locator("a[href^='#']:not(.jp-InternalAnchorLink):visible").last
        target = notebook.locator(f"[data-jupyter-id='{link.get_attribute('href')[1:]}']")
        link.evaluate("a => a.scrollIntoView({block: 'center'})")
        link.click()
        in_view = "e => { const r = e.getBoundingClientRect();" \
                  " return r.top >= 0 && r.bottom <= window.innerHeight; }"
        assert _eventually(lambda: target.evaluate(in_view))
        # Run All: every solution ran, and stays folded, its output unseen
        headings = [i for i, c in enumerate(reader) if c["metadata"].get(COLLAPSED)]
        solution_code = []
        for start in headings:
            end = next((j for j in range(start + 1, len(reader)) if reader[j]["cell_type"] ==
                        "markdown" and heading_level("".join(reader[j]["source"]))
                        <= SOLUTION_LEVEL), len(reader))
            solution_code += [j for j in range(start + 1, end) if reader[j]["cell_type"] ==
                              "code" and reader[j]["outputs"] and  # shown, not a glue cell
                              not reader[j]["metadata"].get("jupyter")]
        assert solution_code
        for menu, command in (("Edit", "Clear Outputs of All Cells"), ("Run", "Run All Cells")):
            if menu == "Run":  # the outputs are gone: what shows next, the run wrote
                assert _eventually(lambda: cells.nth(solution_code[0]).locator(
                    ".jp-OutputArea-output").count() == 0)
            page.locator(".lm-MenuBar-itemLabel", has_text=menu).first.click()
            page.locator(".lm-Menu-itemLabel").get_by_text(command, exact=True).click()
        shown = [j for j, c in enumerate(reader) if c["cell_type"] == "code" and c["outputs"]
                 and j not in solution_code and not c["metadata"].get("jupyter")]
        # the run reached the chapter's last shown output, then the kernel went idle
        assert _eventually(lambda: cells.nth(shown[-1]).locator(
            ".jp-OutputArea-output").count() > 0, seconds=300), "Run All"
        idle = page.locator(".jp-StatusBar-Widget", has_text="| Idle")
        assert _eventually(lambda: idle.count() > 0, seconds=300), "Run All"
        page.screenshot(path=str(SHOTS / "run-all-solutions-folded.png"))
        for j in solution_code:
            assert not cells.nth(j).is_visible(), j
        last = solution_code[-1]  # opened, the solution shows what the run wrote
        _open_solution(page, cells.nth(max(i for i in headings if i < last)))
        cells.nth(last).evaluate("e => e.scrollIntoView({block: 'center'})")
        opened = _eventually(lambda: cells.nth(last).locator(
            ".jp-OutputArea-output").first.is_visible(), seconds=120)
        page.screenshot(path=str(SHOTS / "run-all-solution-opened.png"))
        assert opened
        # a warning box is set off from the prose, under its title
        notebook = _open(page, lab, "k-anonymity")
        title = notebook.locator(".jp-RenderedMarkdown blockquote > p:first-child > strong")
        title = title.filter(has_text=re.compile(r"^Warning$"))
        assert title.count() == 1  # k-anonymity has one {warning}
        title.evaluate("e => e.scrollIntoView({block: 'center'})")
        page.screenshot(path=str(SHOTS / "warning-box.png"))
        browser.close()

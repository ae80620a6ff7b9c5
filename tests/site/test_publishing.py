"""Publishing for a real repository: a build that is told where the course lives.

The publishing workflow sets ``COURSE_REPOSITORY_URL``, ``COURSE_BRANCH`` and
``COURSE_SITE_URL`` from the hosting repository. This test builds the site the same way, for
an example fork, and checks in the built HTML that every launch, repository and issue link
uses it, that Binder opens the right notebook in JupyterLab, and that the downloads name the
archive's public URL. (tests/site/test_site.py checks the build that knows no repository.)
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytestmark = [pytest.mark.site, pytest.mark.long]

ROOT = Path(__file__).resolve().parents[2]
REPOSITORY = "https://github.com/example-teacher/dp-course-fork"
BRANCH = "spring-term"
SITE_URL = "https://example-teacher.github.io/dp-course-fork"


@pytest.fixture(scope="module")
def published(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("published")
    env = {**os.environ, "COURSE_REPOSITORY_URL": REPOSITORY, "COURSE_BRANCH": BRANCH,
           "COURSE_SITE_URL": SITE_URL}
    run = subprocess.run([str(Path(sys.executable).parent / "jupyter-book"), "build", str(ROOT),
                          "--path-output", str(out), "-W", "-n", "--keep-going"],
                         env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    return out / "_build" / "html"


def _notebook_pages(site: Path) -> list[Path]:
    return sorted(p for p in (site / "chapters").glob("*.html")
                  if (ROOT / "chapters" / f"{p.stem}.ipynb").exists())


def test_every_binder_link_opens_its_notebook_in_jupyterlab(published):
    pages = _notebook_pages(published)
    assert len(pages) == len(list((ROOT / "chapters").glob("*.ipynb")))
    org_repo = REPOSITORY.removeprefix("https://github.com/")
    for page in pages:
        links = set(re.findall(r'href="(https://mybinder\.org/[^"]+)"', page.read_text(encoding="utf-8")))
        assert links == {f"https://mybinder.org/v2/gh/{org_repo}/{BRANCH}"
                         f"?urlpath=lab/tree/chapters/{page.stem}.ipynb"}, page.name


def test_repository_and_issue_links_use_the_configured_repository(published):
    for page in [published / "intro.html", *_notebook_pages(published)]:
        html = page.read_text(encoding="utf-8")
        external = set(re.findall(r'href="(https?://github\.com[^"]*)"', html))
        assert external, page.name
        assert all(link.startswith(REPOSITORY) for link in external), (page.name, external)
        assert f'href="{REPOSITORY}"' in html  # the repository button
        assert f'class="report-error" href="{REPOSITORY}/issues/new"' in html  # the footer
        assert "dp-by-running-code/dp-course" not in html  # no invented placeholder


def test_downloads_and_archive_name_the_public_site(published):
    for notebook in (published / "_sources" / "chapters").glob("*.ipynb"):
        first = next(c for c in json.loads(notebook.read_text(encoding="utf-8"))["cells"]
                     if c["cell_type"] == "code")
        assert f"{SITE_URL}/course.zip" in "".join(first["source"]), notebook.name
    readme = zipfile.ZipFile(published / "course.zip").read("dp-course/README.md").decode()
    assert f"{SITE_URL}/" in readme and REPOSITORY in readme
    assert f'<link rel="canonical" href="{SITE_URL}/intro.html"' in (
        published / "intro.html").read_text(encoding="utf-8")


def test_reader_edition_links_to_the_public_site(published):
    """With the site's URL known, the reader edition's references, terms and citations link to
    the published pages, and every such link lands on an anchor that the page has."""
    kinds = set()
    for notebook in sorted((published / "_sources" / "chapters").glob("*.ipynb")):
        cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
        first = "".join(cells[0]["source"])
        assert f"{SITE_URL}/chapters/{notebook.stem}.html" in first, notebook.name
        assert f"{SITE_URL}/course.zip" in first, notebook.name
        markdown = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
        for anchor in re.findall(r"\]\(#([^)\s]+)\)", markdown):  # a place in this chapter
            assert f'<a id="{anchor}"></a>' in markdown, (notebook.name, anchor)
        for url in re.findall(rf"\]\(({re.escape(SITE_URL)}/[^)\s]*)\)", markdown):
            path, _, anchor = url.removeprefix(f"{SITE_URL}/").partition("#")
            page = published / path
            assert page.is_file(), (notebook.name, url)
            if anchor:
                assert f'id="{anchor}"' in page.read_text(encoding="utf-8"), (notebook.name, url)
            kinds.add(path if not path.startswith("chapters/") else "chapters")
    assert {"glossary.html", "references.html", "chapters"} <= kinds, kinds

"""Shared pytest setup: the datasets, and reading a chapter's glued values.

Markers, options and import paths live in ``pyproject.toml`` (``make venv`` installs ``dpcourse``,
editable). The tests are arranged by what they test:

* ``tests/package/test_<module>.py``: one per module of ``chapters/dpcourse/`` (and
  ``test_helpers.py`` for the facade);
* ``tests/chapters/test_<topic>.py``: one per chapter, ``chapters/<topic>.ipynb``;
* ``tests/assignments/``: the instructor edition (``assignments/``): its grading library, every
  problem graded as ``make grade`` grades it, a corpus of submissions, and nbgrader end to end;
* ``tests/site/test_<what>.py``: the build, the site, the browser, the PDF, the course archive,
  the workflows and the repository's own checks. Only these may carry the ``site``, ``browser``,
  ``pdf`` and ``bundle`` markers (an explicit ``pytestmark`` in the file); a package or chapter
  test that carries one is an error, so ``make unit`` never silently loses it.

Chapter tests use:

* the ``adult`` and ``health`` fixtures (loaded once per session);
* :func:`chapter_fixtures`, the chapter's own code (``ch``) and its glued values (``g``);
* :func:`glued`, every value a chapter glued into its prose, read back from the executed
  notebook;
* :func:`notebook_code.notebook_namespace` (``benchmarks/notebook_code.py``, which the scale
  benchmark also runs the chapters' code with), to call a function defined in a chapter.
"""

from __future__ import annotations

import ast
import math
import json
import os
import shutil
import urllib.request
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import helpers
from notebook_code import notebook_namespace

ROOT = Path(__file__).resolve().parent.parent
CHAPTERS = ROOT / "chapters"

#: Markers of the tests that need a build (`make book`, `make pdf`) or a fresh environment: the
#: final run of `make test` selects them, `make unit` leaves them out.
BUILD_MARKERS = ("site", "browser", "pdf", "bundle")

GLUE_MIME = "application/papermill.record/text/plain"
_PDF = ROOT / "_build" / "latex" / "dp-by-running-code.pdf"


@cache
def _glued(stem: str) -> dict[str, Any]:
    notebook = json.loads((CHAPTERS / f"{stem}.ipynb").read_text(encoding="utf-8"))
    values: dict[str, Any] = {}
    for cell in notebook["cells"]:
        for out in cell.get("outputs", []):
            name = out.get("metadata", {}).get("scrapbook", {}).get("name")
            if name is not None:
                values[name] = ast.literal_eval(out["data"][GLUE_MIME])
    return values


def gaussian_delta(epsilon: float, sigma: float, sensitivity: float = 1.0) -> float:
    """The exact δ(ε) of the Gaussian mechanism, Balle and Wang (2018), Theorem 8, typed from
    the paper with scipy's normal CDF: the chapters' tests' reference, not the course's code
    (moderate values only)."""
    from scipy import stats

    a, b = sensitivity / (2 * sigma), epsilon * sigma / sensitivity
    return float(stats.norm.cdf(a - b) - math.exp(epsilon) * stats.norm.cdf(-a - b))


def glued(stem: str) -> dict[str, Any]:
    """Every value glued in ``chapters/<stem>.ipynb``, as the Python literal it stored.

    Strings glued as text come back as ``str`` (``"14,237"``), numbers as ``int``/``float``.
    """
    return dict(_glued(stem))


def pages_fixtures(pages: dict[str, list[str]]) -> tuple[Any, Any]:
    """``ch, g`` for a chapter whose code and glue are spread over its core and its going-deeper
    pages: ``pages`` maps each page's stem to the names its tests load from it.

    ``ch`` holds every name, each from the page that defines it; ``g`` every value glued on any
    of the pages, and the fixture fails if two pages glue the same name.
    """
    missing = [stem for stem in pages if not (CHAPTERS / f"{stem}.ipynb").exists()]
    if missing:
        raise LookupError(f"no chapters/{missing[0]}.ipynb")

    @pytest.fixture(scope="module", name="ch")
    def ch() -> dict[str, Any]:
        names: dict[str, Any] = {}
        for stem, defined in pages.items():
            if defined:
                names.update(notebook_namespace(stem, list(defined)))
        return names

    @pytest.fixture(scope="module", name="g")
    def g() -> dict[str, Any]:
        values: dict[str, Any] = {}
        for stem in pages:
            page = glued(stem)
            twice = values.keys() & page.keys()
            assert not twice, f"{stem} glues names another page glues: {sorted(twice)}"
            values.update(page)
        return values

    return ch, g


def chapter_fixtures(chapter: str, names: list[str]) -> tuple[Any, Any]:
    """The two module fixtures of a chapter's tests, for ``ch, g = chapter_fixtures(...)``.

    ``ch`` is the namespace of the chapter's code that defines ``names``
    (:func:`notebook_code.notebook_namespace`); ``g`` is every value the chapter glued
    (:func:`glued`). Both are computed once per test module.
    """
    if not (CHAPTERS / f"{chapter}.ipynb").exists():
        raise LookupError(f"no chapter chapters/{chapter}.ipynb")

    @pytest.fixture(scope="module", name="ch")
    def ch() -> dict[str, Any]:
        return notebook_namespace(chapter, list(names))

    @pytest.fixture(scope="module", name="g")
    def g() -> dict[str, Any]:
        return glued(chapter)

    return ch, g


@pytest.hookimpl(wrapper=True)  # around the other hooks: before xdist, after pytest
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]):
    """Markers follow the folders: a build marker in ``tests/package/`` or ``tests/chapters/``
    is an error (those tests run in ``make unit``, before anything is built).

    And the workers of ``make test`` (pytest-xdist's ``--dist loadgroup``) take a test file
    whole, its module fixtures built once, except a file marked ``per_page``: its tests go
    page by page (each page's tests on one worker, sharing that page's visit), so no worker
    waits while the other runs a hundred pages alone.

    Once the other hooks have run (pytest's own reordering keeps each page's tests together),
    the tests marked ``long`` (minutes each) come first, in their order, and the rest after, in
    theirs. xdist hands the groups out in this order (``--no-loadscope-reorder``): a long test
    handed out last runs on one worker while the other waits (the fresh environment's nbval,
    about eight minutes, ended ``make test``'s last phase that way in CI12).
    """
    for item in items:
        group = item.path.name
        if item.get_closest_marker("per_page") and hasattr(item, "callspec"):
            group += ":" + item.callspec.id
        item.add_marker(pytest.mark.xdist_group(group))
    here = Path(__file__).resolve().parent
    unit_folders = (here / "package", here / "chapters")
    misplaced = [item.nodeid for item in items
                 if any(item.get_closest_marker(m) for m in BUILD_MARKERS)
                 and any(folder in item.path.parents for folder in unit_folders)]
    if misplaced:
        raise pytest.UsageError(f"tests marked {'/'.join(BUILD_MARKERS)} belong in tests/site/: "
                                + ", ".join(misplaced))
    yield
    items.sort(key=lambda item: item.get_closest_marker("long") is None)


@pytest.fixture(scope="session")
def adult():
    """UCI Adult with the synthetic PII columns (``helpers.load_adult``)."""
    return helpers.load_adult()


@pytest.fixture(scope="session")
def health():
    """The 10-patient table of the differencing attack (``helpers.load_health``)."""
    return helpers.load_health()


@pytest.fixture(scope="session")
def package_index() -> str:
    """The package index (PyPI) that network tests download from; skip when unreachable.

    ``REQUIRE_NETWORK=1`` (set by ``.ci/run``) turns the skip into a failure.
    """
    url = os.environ.get("PIP_INDEX_URL", "https://pypi.org/simple").rstrip("/") + "/pip/"
    try:
        with urllib.request.urlopen(url, timeout=15):
            pass
    except OSError as err:
        message = f"no package index reachable at {url} ({err}): offline, so skipped"
        if os.environ.get("REQUIRE_NETWORK") == "1":
            pytest.fail(f"REQUIRE_NETWORK=1 but {message}")
        pytest.skip(message)
    return url


@pytest.fixture(scope="session")
def pdf() -> Path:
    """The PDF edition, built by `make pdf`; poppler's tools must be there to read it."""
    if not _PDF.exists():
        message = "the PDF is not built: run `make pdf` (needs TeX Live, see .ci/run)"
        if os.environ.get("REQUIRE_PDF") == "1" or shutil.which("xelatex"):
            pytest.fail(message)
        pytest.skip(message)
    for tool in ("pdftotext", "pdfinfo", "pdfimages"):
        if shutil.which(tool) is None:
            pytest.fail(f"{tool} not found: install poppler-utils (see .ci/run)")
    return _PDF

"""Shared pytest setup: import paths, the datasets, and reading a chapter's glued values.

Markers and options live in ``pytest.ini``. Chapter tests use:

* the ``adult`` and ``health`` fixtures (loaded once per session);
* :func:`glued`, every value a chapter glued into its prose, read back from the executed
  notebook;
* :func:`notebook_code.notebook_namespace`, to call a function defined in a chapter.
"""

from __future__ import annotations

import ast
import json
import os
import sys
import urllib.request
from functools import cache
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHAPTERS = ROOT / "chapters"
for path in (CHAPTERS, Path(__file__).resolve().parent):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

import helpers  # noqa: E402  (needs the path above)

GLUE_MIME = "application/papermill.record/text/plain"


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


def glued(stem: str) -> dict[str, Any]:
    """Every value glued in ``chapters/<stem>.ipynb``, as the Python literal it stored.

    Strings glued as text come back as ``str`` (``"14,237"``), numbers as ``int``/``float``.
    """
    return dict(_glued(stem))


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

"""A pytest plugin that only ``make mutation`` loads (``pyproject.toml``, ``[tool.mutmut]``).

It does two things, both for mutmut 3 (``benchmarks/mutation.py`` drives it):

1. **One module, two names.** mutmut names a mutant by its file's path
   (``chapters/dpcourse/gaussian.py`` gives ``chapters.dpcourse.gaussian.x_gaussian_sigma__mutmut_3``)
   and switches it on only inside functions whose ``__module__`` is that path. The course, its
   notebooks and its tests import the package as ``dpcourse`` (``chapters/`` on ``sys.path``).
   The import hook below makes ``import dpcourse.gaussian`` return the module
   ``chapters.dpcourse.gaussian`` from mutmut's copy (``mutants/``): one module object under
   both names, so the tests run unchanged and the mutant names match. The package is not
   renamed; outside ``make mutation`` this file is never imported.
2. **Each module against its own tests.** A mutant of ``chapters/dpcourse/<module>.py`` runs only
   the tests of ``tests/package/test_<module>.py``: a mutant that only another module's tests
   notice counts as missed ("no tests" when no test of its own reaches it).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import json
import math
import os
import sys
from pathlib import Path

import pytest

#: The name the course imports, and the name mutmut derives from the file's path.
ALIAS, PACKAGE = "dpcourse", "chapters.dpcourse"


class _DpcourseIsChaptersDpcourse(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """``dpcourse[.x]`` resolves to the already-imported module ``chapters.dpcourse[.x]``."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname == ALIAS or fullname.startswith(ALIAS + "."):
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        module = importlib.import_module(PACKAGE + spec.name[len(ALIAS):])
        if "mutants" not in Path(module.__file__).parts:
            raise ImportError(f"{module.__name__} was imported from {module.__file__}, "
                              "not from mutmut's copy in mutants/")
        return module

    def exec_module(self, module):
        """Nothing to run: :meth:`create_module` returned the executed module."""


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config, parser, args) -> None:
    """Install the hook before ``tests/conftest.py`` imports ``helpers`` (hence ``dpcourse``)."""
    if not any(isinstance(finder, _DpcourseIsChaptersDpcourse) for finder in sys.meta_path):
        sys.meta_path.insert(0, _DpcourseIsChaptersDpcourse())


def own_test_file(mutant: str) -> str | None:
    """``tests/package/test_<module>.py`` for a mutant name, ``None`` when it names no mutant.

    >>> own_test_file("chapters.dpcourse.gaussian.x_gaussian_sigma__mutmut_3")
    'tests/package/test_gaussian.py'
    >>> own_test_file("chapters.dpcourse.randomness.xǁSecureRandomǁintegers__mutmut_1")
    'tests/package/test_randomness.py'
    """
    if not mutant.startswith(PACKAGE + ".") or "__mutmut_" not in mutant:
        return None  # mutmut's other runs: "stats", "fail", "list_all_tests", ""
    module = mutant[len(PACKAGE) + 1:].split(".")[0]
    if module.startswith(("x_", "xǁ")):  # a function of chapters/dpcourse/__init__.py
        module = "helpers"
    return f"tests/package/test_{module}.py"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep the mutant's own tests, quickest first (mutmut stops at the first failure)."""
    own = own_test_file(os.environ.get("MUTANT_UNDER_TEST", ""))
    if own is None:
        return
    root = Path(str(config.rootpath))
    keep = [item for item in items if item.path.relative_to(root).as_posix() == own]
    dropped = [item for item in items if item.path.relative_to(root).as_posix() != own]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    try:  # each test's time in mutmut's first (stats) run
        seconds = json.loads((root / "mutmut-stats.json").read_text())["duration_by_test"]
    except (OSError, ValueError, KeyError):
        seconds = {}
    items[:] = sorted(keep, key=lambda item: seconds.get(item.nodeid, math.inf))

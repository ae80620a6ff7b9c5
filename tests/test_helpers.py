"""``chapters/helpers.py`` keeps its own rule: it holds only what two or more chapters use.

Also: its public surface is exactly the union of the ``dpcourse`` modules' ``__all__``, importing
it changes no global state, the shared input checks behave, and every docstring example runs.
"""

from __future__ import annotations

import ast
import doctest
import importlib
import inspect
import json
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import dpcourse
import helpers
from dpcourse import validation

CHAPTERS = Path(__file__).resolve().parent.parent / "chapters"


def notebook_code(path: Path) -> str:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")


def users_of_each_helper() -> dict[str, list[str]]:
    codes = {p.stem: notebook_code(p) for p in sorted(CHAPTERS.glob("*.ipynb"))}
    return {name: [stem for stem, code in codes.items()
                   if re.search(rf"\bhelpers\.{re.escape(name)}\b", code)]
            for name in helpers.__all__}


def test_every_public_helper_is_used_by_two_chapters():
    lonely = {name: stems for name, stems in users_of_each_helper().items() if len(stems) < 2}
    assert lonely == {}, f"move these into their chapter (or make them private): {lonely}"


def test_the_usage_rule_can_fail():
    assert users_of_each_helper()["laplace_mechanism"]  # used by real chapters


def _modules():
    return [importlib.import_module(f"dpcourse.{m.name}")
            for m in pkgutil.iter_modules(dpcourse.__path__)]


def test_helpers_re_exports_the_union_of_the_modules_all_and_nothing_else():
    declared = [name for module in _modules() for name in module.__all__]
    assert len(declared) == len(set(declared)), "a name is declared by two modules"
    assert helpers.__all__ == sorted(declared)
    for module in _modules():
        for name in module.__all__:
            assert getattr(helpers, name) is getattr(module, name), (module.__name__, name)


def _imported_by_another_module(module, name: str) -> bool:
    short = module.__name__.split(".")[-1]
    for other in _modules():
        if other is module:
            continue
        for node in ast.walk(ast.parse(inspect.getsource(other))):
            if (isinstance(node, ast.ImportFrom) and node.level == 1 and node.module == short
                    and any(alias.name == name for alias in node.names)):
                return True
    return False


def test_every_name_without_underscore_is_exported_or_package_internal():
    # A module-level function, class or constant without a leading underscore is either public
    # (in its module's __all__) or package-internal: imported by another dpcourse module.
    for module in _modules():
        for name, obj in vars(module).items():
            own = getattr(obj, "__module__", module.__name__) == module.__name__
            if (name.startswith("_") or name in module.__all__ or inspect.ismodule(obj)
                    or not own or name == "annotations"):
                continue
            if inspect.isfunction(obj) or inspect.isclass(obj) or name.isupper():
                assert _imported_by_another_module(module, name), (
                    f"{module.__name__}.{name}: add it to __all__, or prefix it with _")


def test_importing_helpers_changes_no_global_state():
    # A fresh interpreter: pandas' options before and after `import helpers` are the same.
    script = ("import pandas as pd; before = pd.describe_option(_print_desc=False); "
              "import helpers; assert pd.describe_option(_print_desc=False) == before; "
              "helpers.set_display_options(); "
              "assert pd.describe_option(_print_desc=False) != before; print('ok')")
    result = subprocess.run([sys.executable, "-c", script], cwd=CHAPTERS, capture_output=True,
                            text=True, timeout=60)
    assert result.stdout.strip() == "ok", result.stderr


def test_every_public_function_has_a_numpy_style_docstring():
    for name in helpers.__all__:
        obj = getattr(helpers, name)
        if inspect.isfunction(obj):
            doc = inspect.getdoc(obj) or ""
            takes_arguments = bool(inspect.signature(obj).parameters)
            assert "Parameters\n----------" in doc or not takes_arguments, name
            assert "Returns\n-------" in doc, name
            hints = inspect.get_annotations(obj)
            assert "return" in hints, f"{name} has no return type hint"


@pytest.mark.parametrize("module", _modules(), ids=lambda m: m.__name__)
def test_doctests(module):
    failures, _ = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert failures == 0


def test_the_package_holds_examples_to_run():
    tried = sum(doctest.testmod(m, optionflags=doctest.ELLIPSIS).attempted for m in _modules())
    assert tried >= 15


# --------------------------------------------------------------------------------------------
# The shared input checks (every public function relies on them)
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("value, exc", [(True, TypeError), (1.5, TypeError), ("3", TypeError),
                                        (np.int64(4), None), (7, None), (-1, ValueError)])
def test_check_integer(value, exc):
    if exc is None:
        assert validation.check_integer(value, "k", minimum=0) == int(value)
        assert type(validation.check_integer(value, "k")) is int
    else:
        with pytest.raises(exc, match="k"):
            validation.check_integer(value, "k", minimum=0)


@pytest.mark.parametrize("value, exc", [(True, TypeError), ("1", TypeError), (None, TypeError),
                                        ([], ValueError), ([1, np.nan], ValueError),
                                        (np.inf, ValueError), ([[1, 2]], None), (3, None)])
def test_check_array(value, exc):
    if exc is None:
        out = validation.check_array(value, "x")
        assert out.dtype == float and out.size > 0
    else:
        with pytest.raises(exc, match="x"):
            validation.check_array(value, "x")


@pytest.mark.parametrize("value, ok", [(1e-9, True), (0.5, True), (0.0, False), (1.0, False),
                                       (-1e-9, False), (float("nan"), False)])
def test_check_delta(value, ok):
    if ok:
        assert validation.check_delta(value) == value
    else:
        with pytest.raises(ValueError, match="delta"):
            validation.check_delta(value)

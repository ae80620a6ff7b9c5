"""``chapters/helpers.py`` keeps its own rule: it holds only what two or more chapters use.

Also: its public surface re-exports the ``dpcourse`` package completely and nothing else, the
shared input checks behave, and every docstring example runs.
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import json
import pkgutil
import re
from pathlib import Path

import numpy as np
import pytest

import dpcourse
import helpers
from dpcourse import validation

CHAPTERS = Path(__file__).resolve().parent.parent / "chapters"

#: Public helpers that fewer than two chapters use, with the reason they are shared anyway.
ALLOWED_WITH_ONE_USER = {
    "AuditResult": "the result type of audit_epsilon; chapters read its fields, never its name",
    "DATA_DIR": "where the loaders look; the tests and a reader's own scripts use it",
    "DEFAULT_SEED": "the default of make_rng, documented for readers",
}
#: Helpers whose second chapter is being written (Parts IV and V); each must leave this list
#: when that chapter lands.
AWAITING_SECOND_CHAPTER: set[str] = {"event_table"}  # dp-engines (Part VI)


def notebook_code(path: Path) -> str:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")


def users_of_each_helper() -> dict[str, list[str]]:
    codes = {p.stem: notebook_code(p) for p in sorted(CHAPTERS.glob("*.ipynb"))}
    return {name: [stem for stem, code in codes.items()
                   if re.search(rf"\bhelpers\.{re.escape(name)}\b", code)]
            for name in helpers.__all__}


def test_every_public_helper_is_used_by_two_chapters_or_says_why():
    users = users_of_each_helper()
    lonely = {name: stems for name, stems in users.items()
              if len(stems) < 2 and name not in ALLOWED_WITH_ONE_USER
              and name not in AWAITING_SECOND_CHAPTER}
    assert lonely == {}, f"move these into their chapter, or give a reason: {lonely}"
    done = {name for name in AWAITING_SECOND_CHAPTER if len(users[name]) >= 2}
    assert done == set(), f"remove from AWAITING_SECOND_CHAPTER, now used twice: {sorted(done)}"


def test_the_usage_rule_can_fail():
    assert users_of_each_helper()["laplace_mechanism"]  # used by real chapters
    assert "load_health" not in ALLOWED_WITH_ONE_USER


def _modules():
    return [importlib.import_module(f"dpcourse.{m.name}")
            for m in pkgutil.iter_modules(dpcourse.__path__)]


def test_helpers_re_exports_every_public_name_of_the_package_and_nothing_else():
    assert sorted(helpers.__all__) == sorted(set(helpers.__all__))
    for name in helpers.__all__:
        assert hasattr(helpers, name), name
    defined = {name for module in _modules() for name, obj in vars(module).items()
               if not name.startswith("_") and getattr(obj, "__module__", None) == module.__name__
               and (inspect.isfunction(obj) or inspect.isclass(obj))
               and module.__name__ != "dpcourse.validation"}
    internal = {"check_random_source"}  # an input check, like those in dpcourse.validation
    assert defined - internal <= set(helpers.__all__), sorted(defined - internal - set(helpers.__all__))


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


def test_check_columns_names_the_missing_column():
    import pandas as pd

    df = pd.DataFrame({"a": [1]})
    with pytest.raises(ValueError, match="'b'"):
        validation.check_columns(df, ["a", "b"], "columns")
    with pytest.raises(TypeError, match="df"):
        validation.check_columns([1], ["a"], "columns")
    with pytest.raises(ValueError, match="empty"):
        validation.check_columns(df.iloc[0:0], ["a"], "columns")
    with pytest.raises(ValueError, match="at least one"):
        validation.check_columns(df, [], "columns")
    assert validation.check_columns(df, "a", "columns") == ["a"]

"""``chapters/helpers.py`` keeps its own rule: it holds only what two or more chapters use.

Also: its public surface re-exports the ``dpcourse`` package completely and nothing else, and
every docstring example runs. (The shared input checks: tests/package/test_validation.py.)
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import json
import pkgutil
import re
from pathlib import Path

import pytest

import dpcourse
import helpers

CHAPTERS = Path(__file__).resolve().parents[2] / "chapters"

#: Public helpers that fewer than two chapters use, with the reason they are shared anyway.
ALLOWED_WITH_ONE_USER = {
    "AuditResult": "the result type of audit_epsilon; chapters read its fields, never its name",
    "DATA_DIR": "where the loaders look; the tests and a reader's own scripts use it",
    "DEFAULT_SEED": "the default of make_rng, documented for readers",
}
#: Helpers whose second chapter is being written (Parts IV and V); each must leave this list
#: when that chapter lands.
AWAITING_SECOND_CHAPTER: set[str] = set()


def notebook_code(path: Path) -> str:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")


def users_of_each_helper(codes: dict[str, str] | None = None) -> dict[str, list[str]]:
    """The chapters (default: every chapter's code) that call each public helper."""
    if codes is None:
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
    """The scan counts chapters that call a helper, not mentions: a second call in the same
    chapter, a longer name that starts with the helper's, or the bare name is no second user."""
    codes = {"one": "helpers.make_rng(1)\nhelpers.make_rng(2)\nhelpers.laplace_mechanism(x, 1, 1, r)",
             "two": "helpers.make_rng_twice()\nmake_rng = 1\nhelpers.laplace_mechanism(y, 1, 1, r)"}
    users = users_of_each_helper(codes)
    assert users["make_rng"] == ["one"]
    assert users["laplace_mechanism"] == ["one", "two"]


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

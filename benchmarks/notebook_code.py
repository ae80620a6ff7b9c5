"""Load chapter-specific code out of a notebook so that tests and benchmarks can call it.

Chapter-specific functions live in their chapter, not in ``helpers.py``. The benchmarks and the
tests (which import this module by name: ``pyproject.toml``'s ``pythonpath``) reach them by
executing, in a fresh namespace, the notebook's first code cell (its imports) and the code cells
that define the requested names, in notebook order.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

CHAPTERS = Path(__file__).resolve().parent.parent / "chapters"


def _defined_names(source: str) -> set[str]:
    names: set[str] = set()
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for sub in ast.walk(target):
                    if isinstance(sub, ast.Name):
                        names.add(sub.id)
    return names


def notebook_namespace(chapter: str, names: list[str]) -> dict[str, Any]:
    """Execute the import cell and the cells defining ``names`` of ``chapters/<chapter>.ipynb``.

    Parameters
    ----------
    chapter : str
        Notebook file name without ``.ipynb``, e.g. ``"k-anonymity"``.
    names : list of str
        Functions, classes or variables to load; every cell that defines one of them runs.

    Returns
    -------
    dict
        The namespace, holding at least every requested name.
    """
    cells = json.loads((CHAPTERS / f"{chapter}.ipynb").read_text(encoding="utf-8"))["cells"]
    code = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    wanted = set(names)
    chosen = [code[0]] + [src for src in code[1:] if _defined_names(src) & wanted]
    namespace: dict[str, Any] = {"__name__": f"notebook_{chapter.replace('-', '_')}"}
    for src in chosen:
        exec(compile(src, f"<notebook {chapter}>", "exec"), namespace)  # noqa: S102
    missing = wanted - namespace.keys()
    if missing:
        raise LookupError(f"{chapter}.ipynb defines no {sorted(missing)}")
    return namespace

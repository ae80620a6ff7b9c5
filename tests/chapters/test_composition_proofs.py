"""Tests for the going-deeper section composition-proofs (of composition).

The replace-one cost of a histogram is checked in test_composition.py against the worst
Laplace privacy loss; here the proofs' page is checked for what it must state.
"""

from __future__ import annotations

import json

from conftest import glued
from notebook_code import CHAPTERS


def _text() -> str:
    cells = json.loads((CHAPTERS / "composition-proofs.ipynb").read_text(encoding="utf-8"))["cells"]
    return " ".join(" ".join("".join(c["source"]) for c in cells
                             if c["cell_type"] == "markdown").split())


def test_both_theorems_are_proved_here():
    text = _text()
    assert "Proof of {prf:ref}`thm-sequential-composition`" in text
    assert "Proof of {prf:ref}`thm-parallel-composition`" in text
    assert text.count(":::{prf:proof}") == 2
    # the theorems themselves stay in the core, once
    assert ":label: thm-" not in text


def test_uneven_bins_cost_less_than_the_bound():
    g = glued("composition-proofs")
    # bins at 0.1 and 0.4: a row moves between them (0.1 + 0.4); the bound is 2 x 0.4
    assert float(g["comp_r1_exact_uneven"]) == 0.1 + 0.4
    assert float(g["comp_r1_bound_uneven"]) == 2 * 0.4

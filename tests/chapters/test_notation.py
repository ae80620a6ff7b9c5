"""The notation page's promise: a symbol it lists with one meaning is used with that meaning only.

Each single-meaning symbol may appear in the math of the chapters where that meaning lives, and
nowhere else; a new use elsewhere must rename, or change the notation page first.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = ROOT / "chapters"

#: symbol (a regex over LaTeX math) -> the only chapters whose prose may use it
SINGLE_MEANING = {
    r"\\alpha\b": {"privacy-accounting", "private-selection"},              # Rényi order
    r"\\theta\b": {"differential-privacy"},                                 # truth probability
    r"\\lambda\b": {"differential-privacy"},                                # P[report = 1]
    r"\\omega\b": {"differential-privacy"},                                 # a prior probability
    r"\\xi\b": {"unknown-ranges"},                                          # smooth sensitivity
    r"\\tau\b": {"unknown-ranges", "user-level-privacy"},                   # quantile level
    r"\\beta\b": {"laplace-mechanism", "unknown-ranges"},                   # failure probability
    r"\\rho\b": {"privacy-accounting", "dp-in-the-wild", "synthetic-data",  # zCDP
                  "user-level-privacy", "continual-release", "query-workloads"},
    r"\\kappa\b": {"user-level-privacy", "dp-engines"},                                # threshold
    r"\\mu\b": {"approximate-dp", "privacy-accounting"},                    # Gaussian test
    # a lone q (no subscript, star or partner p): the sampling rate
    r"(?<![\\\w])q(?![\w^*{])": {"privacy-accounting", "private-machine-learning"},
}


def _math(stem: str) -> str:
    cells = json.loads((CHAPTERS / f"{stem}.ipynb").read_text(encoding="utf-8"))["cells"]
    text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    return "\n".join(re.findall(r"\$\$.*?\$\$|\$[^$]+\$", text, flags=re.S))


def _lone_q_is_a_pair(math: str) -> bool:
    # "p, q" / "p/q" / "P, Q with densities p, q": the local pair of two distributions
    return bool(re.search(r"\bp\s*[,/]\s*q\b|\(p/q\)", math))


@pytest.mark.parametrize("symbol", sorted(SINGLE_MEANING))
def test_a_single_meaning_symbol_stays_in_its_chapters(symbol):
    users = set()
    for path in sorted(CHAPTERS.glob("*.ipynb")):
        for segment in re.findall(r"\$\$.*?\$\$|\$[^$]+\$", _math(path.stem), flags=re.S):
            if re.search(symbol, segment) and not (symbol.startswith("(?<!") and _lone_q_is_a_pair(segment)):
                users.add(path.stem)
    assert users <= SINGLE_MEANING[symbol], sorted(users - SINGLE_MEANING[symbol])
    assert users, f"no chapter uses {symbol}: update the notation page and this test"


def test_the_notation_page_lists_every_single_meaning_symbol():
    page = (ROOT / "notation.md").read_text(encoding="utf-8")
    for latex in (r"\alpha", r"\theta", r"\lambda", r"\omega", r"\xi", r"\tau", r"\beta", r"\rho",
                  r"\mu", r"\bar\varepsilon(\alpha)", "$q$", r"\ell(y)", "$z$", r"\kappa"):
        assert latex in page, latex

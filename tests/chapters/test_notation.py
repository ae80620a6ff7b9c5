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
    r"\\alpha\b": {"privacy-accounting", "selection-under-zcdp",            # Rényi order
                   "renyi-dp-and-zcdp"},
    r"\\theta\b": {"randomized-response-coin-and-spinner"},                 # truth probability
    r"\\lambda\b": {"randomized-response-estimation",                       # P[report = 1]
                   "local-versus-central-model"},
    r"\\omega\b": {"differential-privacy"},                                 # a prior probability
    r"\\xi\b": {"median-from-local-sensitivity"},                           # smooth sensitivity
    r"\\tau\b": {"unknown-ranges", "choosing-the-cap"},                     # quantile level
    r"\\beta\b": {"laplace-mechanism", "laplace-privacy-proof", "laplace-vector-queries",
                  "laplace-accuracy",
                  "unknown-ranges", "error-bars-for-noisy-means"},         # failure probability
    r"\\rho\b": {"privacy-accounting", "dp-in-the-wild", "synthetic-data",  # zCDP
                  "bounding-across-partitions", "continual-release", "query-workloads",
                  "range-strategies-compared", "nonnegative-post-processing",
                  "renyi-dp-and-zcdp", "accountants-compared", "amplification-by-subsampling",
                  "census-2020-in-three-currencies", "six-calibrations-on-adult",
                  "tree-least-squares-and-factorisation", "binary-tree-horizon",
                  "census-2020-accounting", "synthetic-data-budget-in-opendp"},
    r"\\kappa\b": {"partition-selection", "dp-engines",                                # threshold
                   "partition-selection-in-engines"},
    r"\\mu\b": {"approximate-dp", "gaussian-calibration",                    # Gaussian test
                "privacy-profiles-and-attackers", "privacy-accounting",
                "accountants-compared", "amplification-by-subsampling",
                "census-2020-in-three-currencies", "dp-in-the-wild"},
    # a lone q (no subscript, star or partner p): the sampling rate
    r"(?<![\\\w])q(?![\w^*{])": {"privacy-accounting", "private-machine-learning",
                                  "amplification-by-subsampling", "renyi-dp-and-zcdp",
                                  "dp-sgd-accounting", "dp-sgd-accuracy-on-adult"},
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


# --- the notation page as a whole (issue #28): every row is found where it says it is defined,
# every Greek letter and named operator of the book is on the page, and a letter listed in two
# rows is named in the paragraph that gives its several meanings ---------------------------------
GREEK = ("alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu "
         "nu xi pi rho sigma tau upsilon phi varphi chi psi omega Gamma Delta Theta Lambda Xi Pi "
         "Sigma Phi Psi Omega").split()
#: operators that a formula of the book uses, and how the notation page writes their row
OPERATORS = {r"\)_\+|\)_\{\+\}": "$(x)_+$", r"\\mathrm\{KL\}": r"$\mathrm{KL}$",
             r"\\Theta\(": r"$\Theta(g)$"}


def _rows() -> list[tuple[str, str, list[str]]]:
    """(symbol column, meaning, chapters named as defining it) of each notation table row."""
    page = (ROOT / "notation.md").read_text(encoding="utf-8")
    rows = []
    for line in page.splitlines():
        if line.startswith("| ") and not line.startswith(("| symbol", "|---")):
            cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
            rows.append((cells[0], cells[1], re.findall(r"\{doc\}`chapters/([^`]+)`", cells[-1])))
    return rows


def _normal(latex: str) -> str:
    """LaTeX with spacing and synonymous delimiters removed, for a substring search."""
    latex = re.sub(r"\\[lr]vert\b|\\[lr]Vert\b|\\lVert|\\rVert|\\\||\\mid", "|", latex)
    latex = re.sub(r"\\(?:,|;|!|big|Big|left|right)", "", latex)
    return re.sub(r"\s+", "", latex)


def _prose(stem: str) -> str:
    cells = json.loads((CHAPTERS / f"{stem}.ipynb").read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


def _symbols(column: str) -> list[str]:
    found = re.findall(r"\$([^$]+)\$", column)
    return found or [s.strip() for s in column.split(",")]


ROWS = _rows()


def test_every_row_names_a_defining_chapter():
    chapters = {p.stem for p in CHAPTERS.glob("*.ipynb")}
    for symbol, _, where in ROWS:
        assert where, f"the row {symbol} names no chapter"
        assert set(where) <= chapters, (symbol, where)


@pytest.mark.parametrize("symbol, meaning, where", ROWS, ids=[r[0] for r in ROWS])
def test_every_symbol_is_found_in_the_chapter_that_defines_it(symbol, meaning, where):
    text = _normal(_prose(where[0]))
    missing = [s for s in _symbols(symbol) if _normal(s) not in text]
    assert missing == [], f"{where[0]} does not write {missing}"


def test_the_search_is_not_fooled_by_spacing_or_delimiters():
    assert _normal(r"n = \lvert D \rvert") in _normal("the size $n = |D|$ of")
    assert _normal(r"\Delta_1 f") not in _normal(r"$\Delta f$ and $\Delta_2 f$")


def test_the_page_covers_every_greek_letter_and_operator_of_the_book():
    page = (ROOT / "notation.md").read_text(encoding="utf-8")
    used: dict[str, set[str]] = {}
    for path in sorted(CHAPTERS.glob("*.ipynb")):
        for command in re.findall(r"\\([A-Za-z]+)", _math(path.stem)):
            if command in GREEK:
                used.setdefault(command, set()).add(path.stem)
    missing = {g: sorted(c) for g, c in used.items() if f"\\{g}" not in page}
    assert missing == {}, "letters the notation page does not list"
    for pattern, row in OPERATORS.items():
        users = [p.stem for p in sorted(CHAPTERS.glob("*.ipynb")) if re.search(pattern, _math(p.stem))]
        if users:
            assert f"| {row} |" in page, (row, users)


def _letters(column: str) -> set[str]:
    """The single letters a row's symbol column names, alone or as a function: D, D', L, ℓ(y)."""
    letters = set()
    for math in re.findall(r"\$([^$]+)\$", column):
        for token in re.findall(r"\\[A-Za-z]+|[A-Za-z]", re.sub(r"\\(?:mathrm|text|operatorname)\{[^}]*\}", "", math)):
            if token.startswith("\\") and token[1:] not in GREEK + ["ell"]:
                continue
            letters.add(token)
    return letters


#: letters in two rows with ONE meaning: δ (the slack of (ε, δ)-DP, and the smallest such slack
#: as a function of ε); the datasets D, D' (their row, and the neighbour relation
#: between them); f (the query, and its sensitivity Δf); S (the output set, and Pr[M(D) ∈ S]);
#: M (the mechanism, and Pr[M(D) ∈ S]); u (the utility and its sensitivity, one row); \Delta (a
#: sensitivity, of f or u); \varepsilon (the privacy parameter, in δ(ε) and in ε̄(α)); \alpha in
#: ε̄(α) is the Rényi order of its own row; \sigma in N(0, σ²) is the noise's standard deviation
SAME_MEANING = {r"\delta", "D", "f", "S", "M", "u", r"\Delta", r"\varepsilon", r"\alpha", r"\sigma", "n",
                "x", "y", "r", "P", "Q", "b", "X"}


def test_a_letter_in_two_rows_has_its_meanings_stated():
    page = (ROOT / "notation.md").read_text(encoding="utf-8")
    paragraph = page[page.index("Some letters carry more than one meaning"):]
    rows_of: dict[str, list[str]] = {}
    for symbol, _, _ in ROWS:
        for letter in _letters(symbol):
            rows_of.setdefault(letter, []).append(symbol)
    several = {letter: rows for letter, rows in rows_of.items()
               if len(rows) > 1 and letter not in SAME_MEANING}
    unstated = {letter: rows for letter, rows in several.items()
                if f"${letter}$" not in paragraph and f"${letter}(" not in paragraph}
    assert unstated == {}

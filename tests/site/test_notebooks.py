"""Notebook hygiene and chapter structure.

nbval passes a notebook whose outputs were stripped (it only compares cells that have an
execution count), so these checks make sure every committed notebook was executed top to
bottom in one fresh python3 kernel, and that every chapter has the parts the course promises:
objectives, summary, exercises whose solutions (code and output included) stay hidden in their
dropdowns, references, glued numbers and alt text.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from course_site.archive import toc_outline, toc_sections

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "chapters").glob("*.ipynb"))
TOC_FILES = [doc for _, _, docs in toc_outline(ROOT) for doc in docs]
#: "Going deeper" section pages (``sections:`` under a chapter): a chapter's optional depth
SECTION_FILES = [s for sections in toc_sections(ROOT).values() for s in sections]
CHAPTER_NOTEBOOKS = [p for p in NOTEBOOKS if f"chapters/{p.stem}" in TOC_FILES]
SECTION_NOTEBOOKS = [p for p in NOTEBOOKS if f"chapters/{p.stem}" in SECTION_FILES]


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _markdown(nb: dict) -> str:
    return "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")


def test_there_are_notebooks_and_all_are_in_the_toc():
    assert len(NOTEBOOKS) >= 1
    for path in NOTEBOOKS:
        assert f"chapters/{path.stem}" in TOC_FILES + SECTION_FILES, (
            f"{path.name} is not in _toc.yml")
        # topic slugs: lowercase, hyphenated, and no position baked into the name
        assert re.fullmatch(r"[a-z][a-z0-9]*(-[a-z0-9]+)*", path.stem), path.name
        assert not re.match(r"\d", path.stem), f"{path.name}: no chapter number in file names"


def test_chapter_parts_are_numbered_by_the_table_of_contents():
    """Readers see numbers from _toc.yml (``numbered: true``), never typed into a file name."""
    for caption, numbered, docs in toc_outline(ROOT):
        has_notebook = any((ROOT / f"{doc}.ipynb").exists() for doc in docs)
        assert numbered == has_notebook, caption


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_executed_in_order_without_errors(path):
    nb = _load(path)
    assert nb["metadata"]["kernelspec"]["name"] == "python3"
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    counts = [c.get("execution_count") for c in code]
    assert counts == list(range(1, len(code) + 1)), (
        f"{path.name}: execution counts {counts} are not 1..n: the notebook is stripped, "
        "partly executed or executed out of order; run `make notebooks`")
    for cell in code:
        for out in cell.get("outputs", []):
            assert out["output_type"] != "error", f"{path.name}: a cell raised {out.get('ename')}"
            if out["output_type"] == "stream" and out["name"] == "stderr":
                assert "Warning" not in "".join(out["text"]), f"{path.name}: warning in output"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_first_cell_explains_a_missing_helpers_module(path):
    first = next(c for c in _load(path)["cells"] if c["cell_type"] == "code")
    source = "".join(first["source"])
    assert "except ModuleNotFoundError" in source and "course.zip" in source, path.name


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_figure_has_alt_text(path):
    for cell in _load(path)["cells"]:
        if cell["cell_type"] != "code":
            continue
        has_image = any("image/png" in out.get("data", {}) for out in cell.get("outputs", []))
        if has_image:
            alt = cell["metadata"].get("mystnb", {}).get("image", {}).get("alt", "")
            assert len(alt) > 15, f"{path.name}: figure without alt text:\n{''.join(cell['source'])[:200]}"


@pytest.mark.parametrize("path", CHAPTER_NOTEBOOKS, ids=lambda p: p.name)
def test_chapter_structure(path):
    nb = _load(path)
    text = _markdown(nb)
    assert len(re.findall(r"^# ", text, flags=re.M)) == 1, "exactly one H1 title"
    assert re.search(r"learning objectives", text, flags=re.I), "learning objectives"
    assert re.search(r"^## Summary", text, flags=re.M), "a Summary section"
    assert re.search(r"^## Exercises", text, flags=re.M), "an Exercises section"
    assert re.search(r"^## References", text, flags=re.M), "a References section"
    exercises = re.findall(r"\{exercise\}\s*\n:label:\s*(\S+)", text)
    solutions = re.findall(r"\{solution(?:-start)?\}\s+(\S+)", text)
    assert len(exercises) >= 2, f"{path.name}: {len(exercises)} exercises"
    assert set(exercises) <= set(solutions), f"{path.name}: exercise without a solution"
    assert "{cite" in text, f"{path.name}: no citation"
    assert "{term}" in text, f"{path.name}: links no term to the glossary"


@pytest.mark.parametrize("path", SECTION_NOTEBOOKS, ids=lambda p: p.name)
def test_going_deeper_section_structure(path):
    """A section page says it is depth in its title, and cites what it states."""
    text = _markdown(_load(path))
    titles = re.findall(r"^# (.*)$", text, flags=re.M)
    assert len(titles) == 1 and titles[0].startswith("Going deeper: "), titles
    assert re.search(r"^## References", text, flags=re.M), "a References section"
    exercises = re.findall(r"\{exercise\}\s*\n:label:\s*(\S+)", text)
    solutions = re.findall(r"\{solution(?:-start)?\}\s+(\S+)", text)
    assert set(exercises) <= set(solutions), f"{path.name}: exercise without a solution"


def _exercise_section(nb: dict) -> list[dict]:
    cells = nb["cells"]
    heads = ["".join(c["source"]) if c["cell_type"] == "markdown" else "" for c in cells]
    start = next(i for i, h in enumerate(heads) if re.search(r"^## Exercises", h, re.M))
    end = next(i for i, h in enumerate(heads) if re.search(r"^## References", h, re.M))
    return cells[start:end]


def solution_violations(cells: list[dict]) -> list[str]:
    """Code cells of an Exercises section that a reader would see outside a solution dropdown.

    A code cell is hidden only between a ``{solution-start}`` (with ``:class: dropdown``) and
    its ``{solution-end}``; plain ``{solution}`` blocks cannot hold code cells.
    """
    problems, open_label = [], None
    for cell in cells:
        text = "".join(cell["source"])
        if cell["cell_type"] == "code":
            if open_label is None:
                problems.append(f"code cell outside a solution: {text[:80]!r}")
            continue
        for match in re.finditer(r"\{solution-(start|end)\}[ \t]*(\S*)((?:\n:[a-z]+:[^\n]*)*)",
                                 text):
            kind, label, options = match.groups()
            if kind == "start":
                if open_label is not None:
                    problems.append(f"solution {label} starts inside solution {open_label}")
                if "dropdown" not in options:
                    problems.append(f"solution {label} is not a dropdown: readers would see it")
                open_label = label
            else:
                if open_label is None:
                    problems.append("solution-end without a solution-start")
                open_label = None
        for match in re.finditer(r"\{solution\}[ \t]*(\S+)((?:\n:[a-z]+:[^\n]*)*)", text):
            if "dropdown" not in match.group(2):
                problems.append(f"solution {match.group(1)} is not a dropdown")
    if open_label is not None:
        problems.append(f"solution {open_label} is never closed")
    return problems


@pytest.mark.parametrize("path", [p for p in NOTEBOOKS if "## Exercises" in _markdown(_load(p))],
                         ids=lambda p: p.name)
def test_solutions_stay_hidden(path):
    """Every exercise's code and output sit inside its solution's dropdown."""
    assert solution_violations(_exercise_section(_load(path))) == []


def test_solution_check_catches_a_visible_code_cell():
    md = {"cell_type": "markdown", "source": ["::::{exercise}\n:label: ex-a\nQ\n::::\n"]}
    start = {"cell_type": "markdown",
             "source": [":::{solution-start} ex-a\n:class: dropdown\n:::\nA"]}
    end = {"cell_type": "markdown", "source": [":::{solution-end}\n:::"]}
    code = {"cell_type": "code", "source": ["print(1)"]}
    assert solution_violations([md, start, code, end]) == []
    assert len(solution_violations([md, code])) == 1
    assert len(solution_violations([md, start, end, code])) == 1
    assert solution_violations([md, {"cell_type": "markdown", "source": [
        ":::{solution-start} ex-a\n:::\n"]}, code, end]) != []


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_typed_chapter_numbers(path):
    """Cross-references name chapters with {doc} (the TOC numbers them), never "chapter 3"."""
    text = _markdown(_load(path))
    code = "\n".join("".join(c["source"]) for c in _load(path)["cells"] if c["cell_type"] == "code")
    for source in (text, code):
        # a citation of another book's chapter ("Dwork and Roth (chapter 2)") is fine
        hits = [m.group(0) for m in re.finditer(r"[^\n]{0,40}\b[Cc]hapters? \d+[^\n]{0,20}", source)
                if not re.search(r"cite:|Dwork|Roth", m.group(0))]
        assert hits == [], f"{path.name}: typed chapter numbers: {hits}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_glue_keys_and_labels_name_topics_not_positions(path):
    nb = _load(path)
    keys = {out.get("metadata", {}).get("scrapbook", {}).get("name")
            for c in nb["cells"] for out in c.get("outputs", [])} - {None}
    labels = set(re.findall(r":label:\s*(\S+)", _markdown(nb)))
    assert keys, f"{path.name} glues nothing"
    assert [k for k in keys if re.match(r"\d", k)] == []
    assert [lb for lb in labels if re.search(r"-\d\d-", lb)] == []


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_glue_reference_is_defined(path):
    nb = _load(path)
    used = set(re.findall(r"\{glue:(?:text|md)?\}`([^`:]+)", _markdown(nb)))
    defined = set()
    for cell in nb["cells"]:
        for out in cell.get("outputs", []):
            name = out.get("metadata", {}).get("scrapbook", {}).get("name")
            if name:
                defined.add(name)
    assert used <= defined, f"{path.name}: glued keys never computed: {sorted(used - defined)}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_unseeded_randomness(path):
    source = "\n".join("".join(c["source"]) for c in _load(path)["cells"]
                       if c["cell_type"] == "code")
    for pattern in [r"np\.random\.(seed|rand|randn|randint|laplace|normal|choice|random)\(",
                    r"^import random$", r"default_rng\(\)", r"seaborn-whitegrid"]:
        assert not re.search(pattern, source, flags=re.M), f"{path.name}: {pattern}"


TRAPS = [
    (r"\\varepsilon\s*\\le(q)?\s*0", "epsilon <= 0 in a definition"),
    (r"ZIP\s+2139\b", "ZIP without its leading zero"),
    (r"14,235", "wrong count of adults aged 40+"),
    (r"Sweeney[^.]{0,80}Carnegie Mellon", "Sweeney was at MIT in 1997"),
    (r"about\s+2\s*\\?alpha-DP", "randomized response is not about 2 alpha-DP"),
]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_known_traps_are_not_stated(path):
    text = _markdown(_load(path))
    for pattern, why in TRAPS:
        for match in re.finditer(pattern, text):
            line = text[max(0, match.start() - 120): match.end() + 120]
            # stating the mistake in order to correct it is allowed
            assert re.search(r"mistake|misstat|wrong|not |incorrect|never|myth|trap", line, flags=re.I), (
                f"{path.name}: {why}: ...{line}...")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_timing_metadata_is_committed(path):
    """`make notebooks` does not record run times in the cells (the benchmark measures them),
    so re-running an unchanged notebook leaves its file unchanged."""
    for cell in _load(path)["cells"]:
        assert "execution" not in cell.get("metadata", {}), path.name

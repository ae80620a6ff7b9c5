"""Cross-references that a reader or a maintainer follows must lead somewhere.

* every file named in the repository's code, docstrings and pages exists;
* every glossary entry links to the chapter that introduces it, and that chapter exists;
* every ``{doc}`` target in the pages exists.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TRACKED = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout.split()
FILE_MENTION = re.compile(r"(?<![\w/.<-])([A-Za-z0-9_][A-Za-z0-9_./-]*\.(?:py|ipynb|md|csv|yml|txt|cfg|ini|bib|json|cff))\b")
#: Files that exist outside the repository, on purpose.
ELSEWHERE = {
    "HOW-TO-RUN.md": "written into course.zip by _ext/course_site/archive.py",
    "myst.yml": "Jupyter Book 2's configuration, named to say why the course pins 1.x",
    "conf.py": "the Sphinx configuration Jupyter Book generates",
    "data-facts.md": "the course specification, kept beside the repository",
    "content.md": "the course specification, kept beside the repository",
    "CELL.py": "a pattern in tests/sanitize.cfg",
    "index.md": "the page of a small Sphinx project that tests/site/test_build_math.py builds",
    "args.json": "an argparse attribute (the --json option of benchmarks/lighthouse.py)",
    "broken.yml": "a temporary workflow that tests/site/test_workflow.py breaks on purpose",
    "unpinned.txt": "what .github/workflows/newest-releases.yml installs, written in _build",
    "freeze.txt": "pip freeze in .github/workflows/newest-releases.yml, written in _build",
    "chapters.sensitivity.ipynb": "how pytest's JUnit XML names a notebook's cells",
    "chapters.composition.ipynb": "how pytest's JUnit XML names a notebook's cells",
    "person_default.ini": "the Census Bureau's 2020 DAS production code, quoted and cited",
    "prod_default.ini": "the Census Bureau's 2020 DAS production code, quoted and cited",
    "curve.py": "the Census Bureau's 2020 DAS production code, quoted and cited",
    "unit_default.ini": "the 2020 DAS housing-units configuration, printed in the Bureau's certificate",
    "broken.md": "a temporary problem file that tests/assignments/test_problems.py breaks on purpose",
    "x.md": "the name of a problem file in tests/assignments/test_problems.py, never written",
    "variant.txt": "written by make assignments (assignments/build.py) beside the generated files, git-ignored",
    "mutmut-stats.json": "mutmut's statistics, in its git-ignored work directory mutants/",
    "m.py": "a made-up module path in tests/site/test_benchmarks.py's mutation-report tests",
    "grades.csv": "the scores `make grade` writes (assignments/grade.py), git-ignored",
    "LICENSE-d3.txt": "d3's licences, written beside d3.js in the built site by _ext/course_site/explorables.py",
    "d3-esbuild-meta.json": "esbuild's list of what it bundled into d3.js, written in the build's doctree folder by _ext/course_site/explorables.py",
    "empty/laplace-mechanism.ipynb": "a corpus submission tests/assignments/corpus.py writes in a temporary folder",
    "garbled/laplace-mechanism.ipynb": "a corpus submission tests/assignments/corpus.py writes in a temporary folder",
    "jane doe/laplace-mechanism.ipynb": "a corpus submission tests/assignments/corpus.py writes in a temporary folder",
    "doe/laplace-mechanism.ipynb": "part of a corpus submission's path (\"jane doe/...\") in tests/assignments/corpus.py",
    "again.csv": "the re-grade's CSV tests/assignments/test_corpus.py writes in a temporary folder",
    "grades-canvas.csv": "the Canvas export `make grade` writes (assignments/exports.py), git-ignored",
    "grades-moodle.csv": "the Moodle export `make grade` writes (assignments/exports.py), git-ignored",
    "grades-written.csv": "the written answers to grade (assignments/written.py), git-ignored",
    "phases.md": "the table of make test's phases, written by .ci/phases.py in _build/logs",
    "lock-constraints.txt": "the whole lock without hashes, written by make lock in _build",
    "chapter.ipynb": "a notebook tests/site/test_core_path.py writes in a temporary folder",
    "sensitivity-variants.ipynb": "a made-up section of tests/site/test_course_site.py's small book",
    "sensitivity-proofs.ipynb": "a section of tests/site/test_course_site.py's small book",
    "GUST-FONT-LICENSE.txt": "the math font's licence, which the build copies into _static/math/",
    "other.md": "a page of the small Sphinx project that tests/site/test_build_math.py builds",
}


def _text_files() -> list[Path]:
    skip = ("_vendor/", "data/adult_with_pii.csv", "data/health.csv",
            "tests/site/test_cross_references.py")  # this file names a missing file on purpose
    return [ROOT / f for f in TRACKED if not f.startswith(skip)
            and Path(f).suffix in {".py", ".md", ".yml", ".txt", ".cfg", ".ini", ".ipynb", ""}
            and (ROOT / f).is_file()]


def _readable(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".ipynb":  # only what a reader sees: sources, not stored outputs
        cells = json.loads(text)["cells"]
        text = "\n".join("".join(c["source"]) for c in cells)
    return text


def mentioned_files_that_do_not_exist(path: Path, text: str) -> list[str]:
    names = {Path(f).name for f in TRACKED}
    missing = []
    for mention in FILE_MENTION.findall(text):
        clean = mention.removeprefix("dp-course/").removeprefix("./")
        candidates = [ROOT / clean, path.parent / clean]
        if any(c.exists() for c in candidates) or {clean, Path(clean).name} & ELSEWHERE.keys():
            continue
        if "/" not in clean and clean in names:
            continue
        missing.append(mention)
    return missing


@pytest.mark.parametrize("path", _text_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_named_file_exists(path):
    assert mentioned_files_that_do_not_exist(path, _readable(path)) == []


def test_the_file_check_can_fail():
    fake = ROOT / "chapters" / "helpers.py"
    assert mentioned_files_that_do_not_exist(fake, "see chapters/floating-point.ipynb") == [
        "chapters/floating-point.ipynb"]
    assert mentioned_files_that_do_not_exist(fake, "see chapters/dp-in-practice.ipynb") == []


def _glossary_entries() -> dict[str, str]:
    text = (ROOT / "glossary.md").read_text(encoding="utf-8")
    block = text.split("```{glossary}", 1)[1].split("```", 1)[0]
    entries, term = {}, None
    for line in block.splitlines():
        if line and not line.startswith(" "):
            term = line.strip()
            entries[term] = ""
        elif term:
            entries[term] += line + "\n"
    return entries


def test_every_glossary_entry_links_to_an_existing_chapter():
    entries = _glossary_entries()
    assert len(entries) >= 15
    for term, body in entries.items():
        targets = re.findall(r"\{doc\}`([^`<]+?)`|\{doc\}`[^`]*<([^`>]+)>`", body)
        targets = [a or b for a, b in targets]
        assert targets, f"glossary entry {term!r} links to no chapter"
        for target in targets:
            assert (ROOT / f"{target}.ipynb").exists() or (ROOT / f"{target}.md").exists(), (
                term, target)


def _linked_terms() -> set[str]:
    """Every glossary term a chapter's prose links with the ``{term}`` role (lower case, as
    Sphinx matches terms)."""
    linked = set()
    for path in (ROOT / "chapters").glob("*.ipynb"):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] == "markdown":
                for target in re.findall(r"\{term\}`([^`]+)`", "".join(cell["source"])):
                    explicit = re.fullmatch(r".*<([^<>]+)>", target, flags=re.S)
                    linked.add((explicit.group(1) if explicit else target).strip().lower())
    return linked


def test_every_glossary_term_is_linked_from_a_chapter():
    """The glossary says chapters link to it; a term no chapter links is found by no reader."""
    linked = _linked_terms()
    assert "laplace mechanism" in linked  # the parsing finds real links
    assert [term for term in _glossary_entries() if term.lower() not in linked] == []


@pytest.mark.parametrize("page", sorted(p.name for p in ROOT.glob("*.md")
                                        if p.name not in {"README.md"}))
def test_doc_targets_of_every_page_exist(page):
    text = (ROOT / page).read_text(encoding="utf-8")
    for match in re.finditer(r"\{doc\}`(?:[^`<]*<)?([^`>]+)>?`", text):
        target = match.group(1).lstrip("/")  # Sphinx reads /x from the project's root
        assert (ROOT / f"{target}.ipynb").exists() or (ROOT / f"{target}.md").exists(), target


ERRATA_2026_11_23 = {
    # sentence that was wrong -> page it was in
    "whatever the adversary believed before": "chapters/differential-privacy.ipynb",
    "for any prior, the odds that Igor is obese move by at most a factor": "chapters/laplace-mechanism.ipynb",
    "We treat the number of people $n$ as public": "chapters/differential-privacy.ipynb",
    "| $\\delta$ | failure probability": "notation.md",
    "A survey technique (Warner, 1965): answer truthfully": "glossary.md",
    "each count gets $\\mathrm{Lap}(1/\\varepsilon)$ noise": "chapters/local-dp.ipynb",
    "# UCI documentation": "chapters/private-machine-learning.ipynb",
    "relation, which doubles sensitivities": "chapters/dp-in-the-wild.ipynb",
    "overstates it here; in {ref}`ex-approx-two-outputs` it understates it":
        "chapters/approximate-dp.ipynb",
    "The formula $2\\varepsilon\\sqrt{2k\\ln(1/\\delta')}$ is wrong.": "chapters/privacy-accounting.ipynb",
}


@pytest.mark.parametrize("sentence, page", ERRATA_2026_11_23.items())
def test_corrected_sentences_are_gone_and_listed_on_the_errata_page(sentence, page):
    path = ROOT / page
    assert sentence not in _readable(path), f"{page} still says: {sentence}"
    errata = (ROOT / "errata.md").read_text(encoding="utf-8")
    stem = page.removesuffix(".ipynb").removesuffix(".md")
    assert f"{{doc}}`{stem}`" in errata, f"the errata page does not mention {page}"


def test_errata_entries_are_dated_and_newest_first():
    text = (ROOT / "errata.md").read_text(encoding="utf-8")
    dates = re.findall(r"^## (\d{4}-\d{2}-\d{2})$", text, flags=re.M)
    assert dates and dates == sorted(dates, reverse=True)

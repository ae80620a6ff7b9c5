"""The tests are arranged by what they test, so a contributor knows where a test goes.

* ``tests/chapters/test_<topic>.py``: one per chapter ``chapters/<topic>.ipynb`` (hyphens become
  underscores), "Going deeper" section pages included; a page of the book that is not a notebook (``notation.md``) may have one too;
* ``tests/package/test_<module>.py``: only for a module of ``chapters/dpcourse/``, or
  ``test_helpers.py`` for the facade that re-exports them;
* ``tests/assignments/``: the instructor edition (``assignments/``): its grading library, every
  problem, and nbgrader end to end;
* ``tests/site/``: everything about the build and the repository; these files alone may mark
  tests ``site``, ``browser``, ``pdf`` or ``bundle`` (``conftest.py`` refuses the markers
  elsewhere, so ``make unit`` and ``make test``'s final run never disagree about a test).
"""

from __future__ import annotations

from pathlib import Path

from course_site.archive import toc_chapters, toc_documents, toc_sections

TESTS = Path(__file__).resolve().parents[1]
ROOT = TESTS.parent
#: the chapters' notebooks; a "Going deeper" section page (``sections:`` in _toc.yml) is tested
#: in its chapter's test file
CHAPTER_NOTEBOOKS = [ROOT / f"{doc}.ipynb" for _, doc in toc_chapters(ROOT)]
MODULES = sorted(p.stem for p in (ROOT / "chapters" / "dpcourse").glob("*.py") if p.stem != "__init__")


def _test_files(folder: str) -> set[str]:
    return {p.name for p in (TESTS / folder).glob("test_*.py")}


def _test_name(stem: str) -> str:
    return f"test_{stem.replace('-', '_')}.py"


def test_every_chapter_has_its_test_file_and_every_chapter_test_names_a_page():
    """A chapter's "Going deeper" section pages (``sections:`` in ``_toc.yml``) are tested in a
    test file of their own, or in their chapter's test file, which then names each of them."""
    assert {_test_name(nb.stem) for nb in CHAPTER_NOTEBOOKS} <= _test_files("chapters")
    for doc, sections in toc_sections(ROOT).items():
        for section in sections:
            name = Path(section).name
            if _test_name(name) not in _test_files("chapters"):
                tests = (TESTS / "chapters" / _test_name(Path(doc).name)).read_text(
                    encoding="utf-8")
                assert f'"{name}"' in tests, f"no test file tests {name}"
    pages = toc_documents(ROOT)
    allowed = {_test_name(Path(page).name) for page in pages}
    assert _test_files("chapters") <= allowed, sorted(_test_files("chapters") - allowed)


def test_every_package_test_names_a_module_of_the_package():
    allowed = {f"test_{module}.py" for module in MODULES} | {"test_helpers.py"}
    assert _test_files("package") <= allowed, sorted(_test_files("package") - allowed)


def test_test_file_names_are_unique_across_folders():
    """pytest imports test files by their base name (no ``__init__.py``), so two files with one
    name in two folders would clash."""
    names = [p.name for folder in ("package", "chapters", "assignments", "site")
             for p in (TESTS / folder).glob("test_*.py")]
    assert len(names) == len(set(names))

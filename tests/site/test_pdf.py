"""The PDF edition (`make pdf`), read back with poppler's pdftotext, pdfinfo and pdfimages.

Every chapter title is in it, no cross-reference is left unresolved ("??"), every figure of
every notebook is in it, and the equations are typeset: no TeX source of the prose's math
appears as text.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from course_site.archive import toc_outline, toc_sections

pytestmark = pytest.mark.pdf

ROOT = Path(__file__).resolve().parents[2]
PDF = ROOT / "_build" / "latex" / "dp-by-running-code.pdf"


@pytest.fixture(scope="module")
def text(pdf) -> str:
    return subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True,
                          text=True, check=True).stdout


def _notebooks() -> list[dict]:
    # every chapter and its going-deeper sections: the PDF holds them all
    files = [f for doc, sections in toc_sections(ROOT).items() for f in [doc, *sections]]
    return [json.loads((ROOT / f"{f}.ipynb").read_text(encoding="utf-8"))
            for f in files if (ROOT / f"{f}.ipynb").exists()]


def _squash(s: str) -> str:
    return re.sub(r"\s+", "", s)


def test_the_pdf_is_a_book(pdf):
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    assert "Differential Privacy by Running Code" in info
    assert int(re.search(r"Pages:\s+(\d+)", info).group(1)) > 100


def test_every_chapter_and_part_title_is_in_the_pdf(text):
    flat = _squash(text).replace("\u2019", "'")  # LaTeX curls a title's apostrophe
    for caption, _, _ in toc_outline(ROOT):
        assert _squash(caption) in flat, caption
    for nb in _notebooks():
        title = next(line[2:] for c in nb["cells"] if c["cell_type"] == "markdown"
                     for line in "".join(c["source"]).splitlines() if line.startswith("# "))
        plain = re.sub(r"\$([^$]*)\$", r"\1", title)  # math in a title is typeset
        assert _squash(plain) in flat, title


def test_no_unresolved_reference(text):
    assert "??" not in text


def test_every_figure_is_in_the_pdf(pdf):
    listing = subprocess.run(["pdfimages", "-list", str(pdf)], capture_output=True, text=True,
                             check=True).stdout.splitlines()[2:]
    images = [line for line in listing if line.split()[2] == "image"]
    figures = sum("image/png" in out.get("data", {}) for nb in _notebooks()
                  for c in nb["cells"] for out in c.get("outputs", []))
    assert figures >= 20
    assert len(images) >= figures


def test_equations_are_typeset_not_printed_as_tex(text):
    flat = _squash(text)
    snippets, code = set(), []
    for nb in _notebooks():
        for c in nb["cells"]:
            if c["cell_type"] == "markdown":
                for m in re.finditer(r"\$([^$\n]{3,80})\$", "".join(c["source"])):
                    if "\\" in m.group(1):  # a TeX command that must not survive as text
                        snippets.add(m.group(1))
            else:  # code and its printed output appear verbatim in the PDF, TeX included
                code.append("".join(c["source"]))
                code += ["".join(o.get("text", "")) + "".join(o.get("data", {}).get("text/plain", ""))
                         for o in c.get("outputs", [])]
    code_text = _squash("\n".join(code))
    prose_only = {s for s in snippets if _squash(s) not in code_text}
    assert len(prose_only) > 100
    printed = sorted(s for s in prose_only if _squash(s) in flat)
    assert printed == [], printed[:10]

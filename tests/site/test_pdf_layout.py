"""The PDF edition's layout (after `make pdf`; the numbering test also needs `make book`).

Each test finds one defect a reader saw, mechanically:

* LaTeX's log reports no overfull box beyond a small tolerance (a code block or table that
  runs past the margin);
* no text is drawn between the text block and the running footer, or over the footer
  (poppler's ``pdftotext -bbox`` gives every word's box);
* the contents list each part once, by its own title ("Part I: ...", not "II Part I: ...");
* the reference pages (the toctree ``_toc.yml`` does not number) are unnumbered back matter;
* every theorem-like block and exercise has the number the website gives it.
"""

from __future__ import annotations

import html
import re
import subprocess
from collections import Counter
from pathlib import Path

import pytest
from course_site.archive import toc_outline

pytestmark = pytest.mark.pdf

ROOT = Path(__file__).resolve().parents[2]
LATEX = ROOT / "_build" / "latex"
PDF = LATEX / "dp-by-running-code.pdf"
SITE = ROOT / "_build" / "html"

#: An overfull box up to this size is tolerated. framed.sty splits a long code block's frame at
#: a page break up to 3 pt below the text block; that stays in the 20 pt gap above the footer
#: (the footer test checks the gap). Anything that runs into the margin by more fails.
OVERFULL_TOLERANCE_PT = 4.0

WORD = re.compile(r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">'
                  r"(.*?)</word>")


def overfull_boxes(log: str) -> list[tuple[float, str]]:
    """Every overfull box LaTeX's last pass reported: (points, the log's line)."""
    return [(float(m.group(1)), m.group(0))
            for m in re.finditer(r"Overfull \\[hv]box \(([\d.]+)pt too (?:wide|high)\)[^\n]*", log)]


def pages_words(pdf_path: Path) -> list[list[tuple[float, float, float, float, str]]]:
    """Each page's words with their boxes (points, y downwards), from ``pdftotext -bbox``."""
    out = subprocess.run(["pdftotext", "-bbox", str(pdf_path), "-"], capture_output=True,
                         text=True, check=True).stdout
    return [[(float(a), float(b), float(c), float(d), html.unescape(t))
             for a, b, c, d, t in WORD.findall(page)] for page in out.split("<page ")[1:]]


def footer_band_intrusions(pages) -> list[str]:
    """Words drawn below the text block, in the gap above the running footer or over it.

    The footer's line is where most pages have their lowest words; the text block ends where
    most pages' body text ends. Text lower than halfway between the two, other than the footer
    line itself, is out of place, and so are footer-line words that overlap each other."""
    footer_top = Counter(round(max(w[1] for w in ws)) for ws in pages if ws).most_common(1)[0][0]
    body_bottom = Counter(round(max((w[3] for w in ws if w[1] < footer_top - 2), default=0))
                          for ws in pages if ws).most_common(1)[0][0]
    assert footer_top - body_bottom > 10, (footer_top, body_bottom)
    band_top = (body_bottom + footer_top) / 2
    found = []
    for number, words in enumerate(pages, start=1):
        footer = [w for w in words if abs(w[1] - footer_top) <= 1.5]
        for w in words:
            if w not in footer and w[3] > band_top:
                found.append(f"page {number}: {w[4]!r} at y = {w[1]:.0f}-{w[3]:.0f} pt "
                             f"(text block ends at {body_bottom}, footer at {footer_top})")
        for i, a in enumerate(footer):
            for b in footer[i + 1:]:
                if a[0] < b[2] - 0.5 and b[0] < a[2] - 0.5:
                    found.append(f"page {number}: {a[4]!r} and {b[4]!r} overprint the footer")
    return found


def _contents(pdf_path: Path) -> list[str]:
    """The lines of the table of contents (pdftotext -layout): from the first part's title to
    the last entry, the index."""
    text = subprocess.run(["pdftotext", "-layout", "-l", "20", str(pdf_path), "-"],
                          capture_output=True, text=True, check=True).stdout
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    first = toc_outline(ROOT)[0][0]
    start = next(i for i, line in enumerate(lines) if first in line)
    end = next(i for i in range(start, len(lines)) if re.match(r"^Index\s+\d+$", lines[i]))
    return lines[start:end + 1]


def _title(docname: str) -> str:
    """The title of a Markdown page (the reference pages are Markdown)."""
    text = (ROOT / f"{docname}.md").read_text(encoding="utf-8")
    return re.search(r"^# (.+)$", text, flags=re.M).group(1).strip()


def test_no_overfull_box_beyond_the_tolerance(pdf):
    log = (LATEX / "dp-by-running-code.log").read_text(encoding="utf-8", errors="replace")
    assert "Output written on" in log  # the log of the run that made this PDF
    too_big = [line for points, line in overfull_boxes(log) if points > OVERFULL_TOLERANCE_PT]
    assert too_big == [], "\n".join(too_big)


def test_no_text_in_the_footer_band(pdf):
    pages = pages_words(pdf)
    assert len(pages) > 100
    found = footer_band_intrusions(pages)
    assert found == [], "\n".join(found[:20])


def test_contents_name_each_part_once(pdf):
    contents = _contents(pdf)
    captions = [caption for caption, _, _ in toc_outline(ROOT)]
    doubled = [line for line in contents if re.match(r"^[IVXLC]+\s+\S", line)]
    assert doubled == [], doubled  # a LaTeX part number before the part's own title
    for caption in captions:
        lines = [line for line in contents if re.sub(r"\s+\d+$", "", line) == caption]
        assert len(lines) == 1, (caption, lines)


def test_reference_pages_are_unnumbered_back_matter(pdf):
    parts = toc_outline(ROOT)
    numbered = [doc for _, is_numbered, docs in parts if is_numbered for doc in docs]
    back = [(caption, docs) for caption, is_numbered, docs in parts if not is_numbered]
    assert len(back) == 1 and back[0][0] == parts[-1][0] and len(back[0][1]) >= 5
    contents = _contents(pdf)
    # the chapters are numbered 1 to 17, as on the website, and nothing after them
    chapters = [int(m.group(1)) for line in contents if (m := re.match(r"^(\d+) \S", line))]
    assert chapters == list(range(1, len(numbered) + 1))
    for doc in back[0][1]:
        title = _title(doc)
        assert any(line.startswith(title) for line in contents), title
    # and from the back matter's part page on, no running footer says "Chapter N."
    pages = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True,
                           text=True, check=True).stdout.split("\f")
    start = next(i for i, page in enumerate(pages)  # the part's page: its title, a page number
                 if [line.strip() for line in page.splitlines() if line.strip()][:1]
                 == [back[0][0]] and len(page.split()) <= 3)
    footers = [[line for line in page.splitlines() if line.strip()][-1]
               for page in pages[start:] if page.strip()]
    assert len(footers) > 10
    assert [f for f in footers if re.search(r"Chapter \d+\.", f)] == []


def site_numbers() -> dict[str, str]:
    """label -> "Definition 4.1" for every sphinx-proof block and exercise on the website."""
    if not (SITE / "index.html").exists():
        pytest.fail("the site is not built: run `make book` first")
    found = {}
    block = re.compile(r'<div class="(?:proof [a-z]+|exercise) admonition" id="([^"]+)">\s*'
                       r'<p class="admonition-title"><span class="caption-number">([^<]+?)\s*</span>')
    for page in SITE.rglob("*.html"):
        for label, number in block.findall(page.read_text(encoding="utf-8")):
            found[label] = html.unescape(number)
    return found


def pdf_numbers(tex: str) -> dict[str, str]:
    """label -> "Definition 4.1" for every block the LaTeX source (and so the PDF) numbers."""
    block = re.compile(r"\\label\{(?:\\detokenize\{)?[^{}]*?:([^{}:]+)\}\}?\s*"
                       r"\\begin\{sphinxadmonition\}\{note\}\{([A-Z][a-z]+ [\d.]+)")
    return dict(block.findall(tex))


def test_numbers_match_the_site(pdf):
    site = site_numbers()
    tex = (LATEX / "dp-by-running-code.tex").read_text(encoding="utf-8")
    printed = pdf_numbers(tex)
    assert sum(n.startswith("Exercise") for n in site.values()) >= 70
    assert sum(not n.startswith("Exercise") for n in site.values()) >= 55  # proofs: no number
    assert set(printed) == set(site), sorted(set(printed) ^ set(site))[:10]
    differ = {label: (site[label], printed[label]) for label in site if printed[label] != site[label]}
    assert differ == {}, list(differ.items())[:10]
    # and the PDF shows those numbers (as the block's title)
    text = re.sub(r"\s+", " ", subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True,
                                              text=True, check=True).stdout)
    missing = [n for n in set(site.values()) if n + " " not in text and n + "\n" not in text]
    assert missing == [], sorted(missing)[:10]
    # references to them ({prf:ref}, {numref}) print the same numbers as on the website
    refs = re.findall(r"\\hyperref\[(?:\\detokenize\{)?[^\]]*?:([^\]:{}]+)\}?\]"
                      r"\{\\sphinxcrossref\{([A-Z][a-z]+ [\d.]+)\}\}", tex)
    assert len(refs) > 20
    wrong = sorted({(label, n) for label, n in refs if label in site and site[label] != n})
    assert wrong == [], wrong[:10]


def test_cells_that_show_nothing_leave_nothing_in_the_latex(pdf):
    """The cells that only glue numbers into the prose (tagged remove-input, outputs hidden)
    are dropped from the LaTeX (course_pdf.EmptyCells), not written as empty environments."""
    tex = (LATEX / "dp-by-running-code.tex").read_text(encoding="utf-8")
    assert "\\DUrole{pasted-text}" in tex  # the glued numbers themselves are there
    assert "{tag_remove-input}" not in tex

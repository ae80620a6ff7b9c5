"""The website links the PDF edition only when there is one (``_ext/course_pdf.py``).

After ``make book`` alone the intro's link to the PDF would be a 404. A small Sphinx project
with the course's extension is built three times, as a reader's sequence of commands would:
without the PDF, after it was built, and after it was removed again.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.site

ROOT = Path(__file__).resolve().parents[2]

PAGE = """Title
=====

- Read it on the web.
- Read it on paper: :raw-html:`<a href="book.pdf">book.pdf</a>`, solutions included.
"""


def _build(src: Path) -> str:
    from sphinx.application import Sphinx

    app = Sphinx(str(src), str(src), str(src / "_build" / "html"),
                 str(src / "_build" / ".doctrees"), "html", status=io.StringIO(),
                 warning=io.StringIO(), freshenv=False)
    app.build()
    assert app.statuscode == 0
    return (src / "_build" / "html" / "index.html").read_text(encoding="utf-8")


def test_the_pdf_link_follows_the_pdf(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "_ext"))
    sys.modules.pop("course_pdf", None)
    (tmp_path / "conf.py").write_text(
        "extensions = ['course_pdf']\n"
        "latex_documents = [('index', 'book.tex', 'Book', 'A', 'manual')]\n"
        "rst_prolog = '.. role:: raw-html(raw)\\n   :format: html\\n'\n", encoding="utf-8")
    (tmp_path / "index.rst").write_text(PAGE, encoding="utf-8")
    pdf = tmp_path / "_build" / "latex" / "book.pdf"

    page = _build(tmp_path)  # make book alone: no PDF, no link, the rest of the list kept
    assert "book.pdf" not in page and "Read it on the web" in page
    assert not (tmp_path / "_build" / "html" / "book.pdf").exists()

    pdf.parent.mkdir(parents=True)
    pdf.write_bytes(b"%PDF-1.5 stand-in\n")
    page = _build(tmp_path)  # make pdf, then make book: the page is rewritten with the link
    assert 'href="book.pdf"' in page
    assert (tmp_path / "_build" / "html" / "book.pdf").read_bytes() == pdf.read_bytes()

    pdf.unlink()
    (tmp_path / "_build" / "html" / "book.pdf").unlink()
    page = _build(tmp_path)  # the PDF is gone again: so is the link
    assert "book.pdf" not in page


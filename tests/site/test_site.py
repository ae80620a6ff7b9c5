"""Checks on the built HTML (after `make book`): no broken internal link, anchor or asset."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from course_site.archive import toc_documents, toc_sections

pytestmark = pytest.mark.site

SITE = Path(__file__).resolve().parents[2] / "_build" / "html"


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        if tag == "a" and "name" in attrs:
            self.ids.add(attrs["name"])
        for key in ("href", "src"):
            if attrs.get(key) and not (tag == "link" and attrs.get("rel") in ("canonical",)):
                self.links.append(attrs[key])


def _parse(path: Path) -> _Collector:
    collector = _Collector()
    collector.feed(path.read_text(encoding="utf-8"))
    return collector


def _pages() -> list[Path]:
    """Every page of the site (not the root's redirect to intro.html)."""
    if not (SITE / "index.html").exists():
        pytest.fail("the site is not built: run `make book` first")
    return sorted(p for p in SITE.rglob("*.html")
                  if "_static" not in p.parts and p != SITE / "index.html")


def test_no_broken_internal_links():
    pages = _pages()
    parsed = {p: _parse(p) for p in pages}
    broken = []
    for page, info in parsed.items():
        for link in info.links:
            url = urlparse(link)
            if url.scheme or link.startswith(("//", "mailto:", "javascript:", "data:")):
                continue
            target = page if not url.path else (page.parent / unquote(url.path)).resolve()
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():  # the PDF too: the site links it only when it is built
                broken.append(f"{page.relative_to(SITE)} -> {link}")
                continue
            if url.fragment and target.suffix == ".html":
                ids = parsed[target].ids if target in parsed else _parse(target).ids
                if unquote(url.fragment) not in ids:
                    broken.append(f"{page.relative_to(SITE)} -> {link} (no such anchor)")
    assert len(pages) >= 12
    assert broken == [], "\n".join(broken[:40])


def test_a_page_loads_an_extensions_assets_only_if_it_shows_what_they_style():
    """sphinx-design's, sphinx-proof's and sphinx-exercise's stylesheets and scripts are linked
    from a page exactly when its article holds one of their components; sphinx-thebe's, which
    no page uses, from none (``course_site.page_weight``)."""
    pages = [SITE / f"{doc}.html" for doc in toc_documents(SITE.parents[1])]
    design = r'class="[^"]*\bsd-'
    kinds = {"sphinx-design.min.css": design, "design-tabs.js": design,
             "proof.css": r'class="proof\b', "exercise.css": r'class="(exercise|solution)\b'}
    linked = {name: 0 for name in kinds}
    for page in pages:
        html = page.read_text(encoding="utf-8")
        head, article = html.split("</head>", 1)
        assert "thebe" not in head.lower(), page.name
        for name, component in kinds.items():
            has = re.search(rf'(href|src)="[^"]*/_static/{re.escape(name)}\b', head) is not None
            assert has == bool(re.search(component, article)), (page.name, name)
            linked[name] += has
    # proofs and exercises are on some pages and not on others: the check saw both cases
    assert all(0 < linked[name] < len(pages) for name in ("proof.css", "exercise.css")), linked


def test_only_the_site_itself_is_loaded():
    """No <script>, stylesheet or image is fetched from another host (links to other sites,
    e.g. Binder and the repository, are fine: they are not loaded)."""
    offenders = []
    for page in _pages():
        html = page.read_text(encoding="utf-8")
        for tag in re.findall(r"<(?:script|img|iframe|link)\b[^>]*>", html):
            if re.search(r"\b(?:src|href)=\"(?:https?:)?//", tag) and "rel=\"canonical\"" not in tag:
                offenders.append(f"{page.relative_to(SITE)}: {tag[:120]}")
    assert offenders == [], "\n".join(offenders[:20])


def test_execution_statistics_come_from_the_benchmark_report():
    import json

    html = (SITE / "execution-statistics.html").read_text(encoding="utf-8")
    report = json.loads((SITE.parent.parent / "benchmarks" / "report.json").read_text(
        encoding="utf-8"))["notebooks_s"]
    notebooks = sorted((SITE.parent.parent / "chapters").glob("*.ipynb"))
    measured = [nb for nb in notebooks if nb.name in report]  # a new chapter may not be yet
    for nb in notebooks:
        assert nb.name in html
        if nb.name in report:
            assert f"<td><p>{report[nb.name]:.1f}</p></td>" in html, nb.name
    assert html.count("<td><p>not measured yet</p></td>") == len(notebooks) - len(measured)
    cell = r"<td><p>(\d+\.\d)(?: \(\d+ not measured yet\))?</p></td>"  # the total says so too
    times = [float(t) for t in re.findall(cell, html)]
    assert len(times) == len(measured) + 1  # one per measured notebook plus the total
    assert times[-1] == pytest.approx(sum(report[nb.name] for nb in measured), abs=0.1)


def test_syllabus_lists_every_chapter_with_reading_and_run_time():
    html = (SITE / "syllabus.html").read_text(encoding="utf-8")
    table = re.search(r'<table class="[^"]*syllabus-table.*?</table>', html, flags=re.S).group(0)
    rows = re.findall(r"<tr.*?</tr>", table, flags=re.S)[1:]
    chapters = toc_sections(SITE.parent.parent)
    assert len(rows) == len(chapters) + 1  # and the total
    core_total = deeper_total = 0
    for row in rows[:-1]:
        cells = re.findall(r"<td><p>(.*?)</p></td>", row, flags=re.S)
        core, deeper = int(cells[-3]), int(cells[-2])
        assert core >= 1 and deeper >= 0
        core_total, deeper_total = core_total + core, deeper_total + deeper
        assert cells[-1] == "not measured yet" or 0 < float(cells[-1])    # run seconds
        # the same minutes as the line under the chapter's title
        href = re.search(r'href="(chapters/[^"#]+)"', row).group(1)
        page = (SITE / href).read_text(encoding="utf-8")
        line = re.search(r'<p class="reading-time"><em>Reading time: about (\d+) minutes for '
                         r"the core[^<]*going deeper: (?:about (\d+) minutes more|no separate)",
                         page)
        assert line and line.group(1) == cells[-3], href
        assert int(line.group(2) or 0) == deeper, href
    total = re.findall(r"<td><p>(.*?)</p></td>", rows[-1], flags=re.S)
    assert total[-3:-1] == [str(core_total), str(deeper_total)]


def test_every_going_deeper_section_says_it_is_optional_with_its_time():
    for docs in toc_sections(SITE.parent.parent).values():
        for doc in docs:
            page = (SITE / f"{doc}.html").read_text(encoding="utf-8")
            assert re.search(r'<p class="reading-time"><em>Reading time: about \d+ minutes '
                             r"[^<]*Going deeper is optional", page), doc


def test_syllabus_titles_are_the_chapters_own_headings():
    """The titles are filled in when references are resolved, from each chapter's heading."""
    html = (SITE / "syllabus.html").read_text(encoding="utf-8")
    table = re.search(r'<table class="[^"]*syllabus-table.*?</table>', html, flags=re.S).group(0)
    links = re.findall(r'<a class="reference internal" href="(chapters/[^"#]+)">'
                       r'<span class="doc">([^<]*)</span>', table)
    assert len(links) == len(toc_sections(SITE.parent.parent))  # chapters, not their sections
    for href, title in links:
        page = (SITE / href).read_text(encoding="utf-8")
        heading = re.search(r'<h1><span class="section-number">[^<]*</span>([^<]*)<', page)
        assert heading and heading.group(1) == title, href


def test_pages_without_a_repository_show_no_dead_links():
    """The default build does not know where the course lives: no Binder, repository or
    issue link, and the footer says so (tests/site/test_publishing.py builds with one)."""
    for page in _pages():
        html = page.read_text(encoding="utf-8")
        assert "mybinder.org/v2/" not in html, page  # no launch link
        # no link to a repository (a citation's hover text may name one; only links count)
        assert 'href="https://github.com' not in html or page.name == "references.html", page
        assert "this build does not know the course" in html, page
        assert ">Errata</a>" in html, page


def test_every_page_names_the_licences_in_its_footer():
    for page in _pages():
        html = page.read_text(encoding="utf-8")
        assert "CC BY 4.0" in html and "MIT" in html and "UCI Adult" in html, page


def test_every_table_has_a_header_row():
    """Screen readers announce table cells by their column header: every table needs one."""
    missing = []
    for page in _pages():
        html = page.read_text(encoding="utf-8")
        for table in re.findall(r"<table\b.*?</table>", html, flags=re.S):
            # Sphinx's generated indices (genindex, the proof index) are layout tables
            if "<th" not in table and "indextable" not in table[:80]:
                missing.append(f"{page.relative_to(SITE)}: {table[:100]!r}")
    assert missing == [], "\n".join(missing[:20])


def test_every_figure_has_alt_text():
    missing = []
    for page in _pages():
        for img in re.findall(r"<img\b[^>]*>", page.read_text(encoding="utf-8")):
            alt = re.search(r'\balt="([^"]*)"', img)
            if alt is None or len(alt.group(1).strip()) < 5:
                missing.append(f"{page.relative_to(SITE)}: {img[:120]}")
    assert missing == [], "\n".join(missing[:20])


def test_next_on_a_chapter_page_is_the_next_chapters_core():
    """Following "next" is the core path: a chapter's going-deeper sections are listed on its
    page, and the button skips them; the last section's "next" is the next chapter too."""
    chapters = list(toc_sections(SITE.parent.parent))
    for here, following in zip(chapters, chapters[1:]):
        page = (SITE / f"{here}.html").read_text(encoding="utf-8")
        link = re.search(r'<a class="right-next"\s+href="([^"]+)"', page)
        assert link and link.group(1) == f"{following.split('/')[-1]}.html", here
        title = re.search(r'<a class="right-next".*?<p class="prev-next-title">(.*?)</p>', page,
                          flags=re.S).group(1)
        assert re.match(r'<span class="section-number">\d+\. </span>\S', title), title


def test_previous_on_a_chapter_page_is_the_previous_chapters_core():
    """And back: "previous" on a chapter's page skips the previous chapter's going-deeper
    sections (a learner's read landed on an optional page)."""
    chapters = list(toc_sections(SITE.parent.parent))
    for before, here in zip(chapters, chapters[1:]):
        page = (SITE / f"{here}.html").read_text(encoding="utf-8")
        link = re.search(r'<a class="left-prev"\s+href="([^"]+)"', page)
        assert link and link.group(1) == f"{before.split('/')[-1]}.html", here

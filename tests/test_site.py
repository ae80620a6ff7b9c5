"""Checks on the built HTML (after `make book`): no broken internal link, anchor or asset."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

pytestmark = pytest.mark.site

SITE = Path(__file__).resolve().parent.parent / "_build" / "html"


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
    if not (SITE / "index.html").exists():
        pytest.fail("the site is not built: run `make book` first")
    return sorted(p for p in SITE.rglob("*.html") if "_static" not in p.parts)


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
            if not target.exists():
                broken.append(f"{page.relative_to(SITE)} -> {link}")
                continue
            if url.fragment and target.suffix == ".html":
                ids = parsed[target].ids if target in parsed else _parse(target).ids
                if unquote(url.fragment) not in ids:
                    broken.append(f"{page.relative_to(SITE)} -> {link} (no such anchor)")
    assert len(pages) >= 12
    assert broken == [], "\n".join(broken[:40])


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


def test_execution_statistics_lists_every_notebook():
    html = (SITE / "execution-statistics.html").read_text(encoding="utf-8")
    notebooks = sorted((SITE.parent.parent / "chapters").glob("*.ipynb"))
    for nb in notebooks:
        assert nb.name in html
    assert "not recorded" not in html, "a notebook was committed without timing metadata"
    times = [float(t) for t in re.findall(r"<td><p>(\d+\.\d)</p></td>", html)]
    assert len(times) == len(notebooks) + 1  # one per notebook plus the total
    assert all(0 < t < 10 for t in times[:-1]), times


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

"""The instructors' page as built (after `make book`): its problem list is the problem files'."""

from __future__ import annotations

import html as html_lib
import re
from pathlib import Path

import pytest

import problems as P
from course_site.assignments import summary

pytestmark = pytest.mark.site

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "_build" / "html"


def test_the_problem_table_lists_every_problem_file_in_order():
    page = (SITE / "instructors.html").read_text(encoding="utf-8")
    table = re.search(r'<table class="[^"]*assignment-problems.*?</table>', page,
                      flags=re.S).group(0)
    rows = re.findall(r"<tr.*?</tr>", table, flags=re.S)[1:]
    items = P.load_problems()
    assert len(rows) == len(items) >= 14
    for row, problem in zip(rows, items):
        cells = [html_lib.unescape(re.sub(r"<[^>]+>", "", c)).strip().replace("\u2019", "'")  # smart quotes
                 for c in re.findall(r"<td>(.*?)</td>", row, flags=re.S)]
        assert cells[1] == f"{problem.title} ({problem.chapter}/{problem.pid})"
        assert cells[2:4] == [f"{problem.points:g}", str(problem.meta["minutes"])]
        assert f'href="chapters/{problem.chapter}.html"' in row
    text = html_lib.unescape(re.sub(r"<[^>]+>", "", page))
    assert summary(items) in " ".join(text.split())

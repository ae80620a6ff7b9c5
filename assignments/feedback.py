"""Feedback a student can read: one HTML file per student and chapter.

``make grade`` writes ``feedback/<student>/<chapter>.html`` beside the per-problem CSV (the
folder ``feedback/`` next to ``grades.csv``), from the graded rows: for each problem its title,
its points out of its maximum and every message its checks gave, in words; the chapter's total;
a written answer's state (graded by hand, with the grader's comment, or pending). A re-grade
rewrites the files of the students and chapters it graded and leaves every other file alone.

It is written from the results, not from the graded notebook: nbgrader's ``generate_feedback``
renders the autograded notebook, which holds every hidden test's code (``autograde`` restores
the test cells from the instructor's source), so its HTML would hand the hidden tests to the
student. Here only the messages reach the page.
"""

from __future__ import annotations

import html
from pathlib import Path

from problems import chapter_title

STYLE = ("body{font-family:system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;"
         "line-height:1.5}table{border-collapse:collapse;width:100%}th,td{border:1px solid #ccc;"
         "padding:.4rem;text-align:left;vertical-align:top}td.points{white-space:nowrap}")


def _title(chapter: str) -> str:
    try:
        return chapter_title(chapter)
    except (OSError, ValueError):
        return chapter


def _points(value) -> str:
    return f"{float(value):g}"


def page(student: str, chapter: str, rows: list[dict]) -> str:
    """One student's feedback on one chapter, as a self-contained HTML page."""
    e = html.escape
    score = sum(float(r["score"]) for r in rows)
    total = sum(float(r["max_score"]) for r in rows)
    body = [f"<h1>Feedback: {e(_title(chapter))}</h1>",
            f"<p>Student: <strong>{e(student)}</strong>. Assignment <code>{e(chapter)}</code>: "
            f"<strong>{_points(score)} of {_points(total)} points</strong>.</p>",
            "<table><thead><tr><th>Problem</th><th>Points</th><th>Feedback</th></tr></thead>"
            "<tbody>"]
    for r in rows:
        name = r.get("title") or r["problem"]
        body.append(f"<tr><td>{e(name)} <small>({e(r['problem'])})</small></td>"
                    f"<td class=\"points\">{_points(r['score'])} / {_points(r['max_score'])}"
                    f"</td><td>{e(str(r['feedback']))}</td></tr>")
    body.append("</tbody></table>")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{e(_title(chapter))}: feedback for {e(student)}</title>"
            f"<style>{STYLE}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")


def write_feedback(rows: list[dict], folder: Path) -> list[Path]:
    """``folder/<student>/<chapter>.html`` for every student and chapter of ``rows``; files of
    other students and chapters are left as they are."""
    groups: dict[tuple[str, str], list[dict]] = {}
    for row in rows:
        groups.setdefault((row["student"], row["assignment"]), []).append(row)
    written = []
    for (student, chapter), items in sorted(groups.items()):
        path = folder / student / f"{chapter}.html"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(page(student, chapter, items), encoding="utf-8")
        written.append(path)
    return written


def feedback_folder(out: Path) -> Path:
    """Where ``make grade`` writes the feedback: ``feedback/`` beside the CSV ``out``."""
    return out.parent / "feedback"

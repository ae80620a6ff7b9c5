"""A build prints only what needs attention and keeps its whole output as a log file.

``make book`` and ``make pdf`` run through ``.ci/quiet``: warnings and errors reach the
terminal, a failure shows its cause (LaTeX's error and the end of the log), everything else is
in ``_build/logs/<step>.log``. The last test rebuilds a copy of the site as ``make book`` does
after a first build: two lines on the terminal, no noise in the log, the same site.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "_build" / "html"
QUIET = ROOT / ".ci" / "quiet"


def _quiet(tmp_path: Path, script: str) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(QUIET), "step", "bash", "-c", script], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)


def test_a_quiet_step_shows_warnings_and_keeps_the_rest_in_its_log(tmp_path):
    warning = "chapters/sensitivity.ipynb:3: \\033[91mWARNING: undefined label\\033[0m"
    run = _quiet(tmp_path, f"echo 'reading sources... [ 50%] intro'; printf '{warning}\\n'; "
                           "echo 'INFO fontTools.subset: glyphs retained'")
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == "== step (full log: _build/logs/step.log)"
    assert lines[1] == "chapters/sensitivity.ipynb:3: WARNING: undefined label"  # no colour codes
    assert lines[2].startswith("== step: done in ") and len(lines) == 3
    log = (tmp_path / "_build" / "logs" / "step.log").read_text(encoding="utf-8")
    assert "reading sources" in log and "fontTools" in log and "\x1b" not in log


def test_a_failing_step_shows_its_cause_and_keeps_its_exit_status(tmp_path):
    noise = "; ".join(f"echo '(/usr/share/texlive/package{i}.sty)'" for i in range(200))
    run = _quiet(tmp_path, f"{noise}; echo '! Undefined control sequence.'; "
                           "echo 'l.42 \\setminuss'; echo 'more context'; "
                           "echo 'Latexmk: Errors, so I did not complete making targets'; exit 3")
    assert run.returncode == 3
    assert "== step FAILED (exit status 3)" in run.stdout
    assert "! Undefined control sequence." in run.stdout and "l.42 \\setminuss" in run.stdout
    assert "Latexmk: Errors" in run.stdout  # the end of the log
    assert run.stdout.count("texlive/package") <= 40  # not the whole log


def test_make_book_and_make_pdf_run_quietly():
    """What ``make book pdf`` runs (make's dry run, ``-n``, which runs nothing): each Jupyter
    Book build goes through ``.ci/quiet``, named after its step."""
    run = subprocess.run(["make", "-n", "book", "pdf"], cwd=ROOT, capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    builds = [line for line in run.stdout.splitlines() if "jupyter-book build" in line]
    assert [line.split()[:3] for line in builds] == [["bash", ".ci/quiet", "book"],
                                                     ["bash", ".ci/quiet", "pdf"]], builds


@pytest.mark.site
def test_a_rebuild_prints_two_lines_logs_no_noise_and_gives_the_same_site(tmp_path):
    """``make book`` again, on a copy of the build (so that the site under test stays as it is):
    the quiet step prints two lines, and the log has no fontTools chatter and no "will
    overwrite data" (the page-weight passes' rewrites are undone before Sphinx copies again)."""
    if not (SITE / "index.html").exists():
        pytest.fail("no built site: run `make book` first")
    copy = tmp_path / "_build"
    for part in ("html", ".doctrees", "jupyter_execute"):
        if (ROOT / "_build" / part).exists():
            shutil.copytree(ROOT / "_build" / part, copy / part, symlinks=True)
    pdf = "dp-by-running-code.pdf"
    if f'href="{pdf}"' in (SITE / "intro.html").read_text(encoding="utf-8"):
        # built after the PDF, the site links it (_ext/course_pdf.py): the copy has the PDF too
        (copy / "latex").mkdir()
        shutil.copy2(ROOT / "_build" / "latex" / pdf, copy / "latex" / pdf)

    def digest(site: Path) -> dict[str, str]:
        # Sphinx adds a checksum (?v=...) to the link of a stylesheet that already exists when
        # it writes a page: on a clean build, extensions copy theirs only after the pages
        def content(path: Path) -> bytes:
            data = path.read_bytes()
            return re.sub(rb"\?v=[0-9a-f]{8}\"", b'"', data) if path.suffix == ".html" else data

        return {str(p.relative_to(site)): hashlib.sha256(content(p)).hexdigest()
                for p in sorted(site.rglob("*")) if p.is_file() and p.name != ".buildinfo"}

    env = {k: v for k, v in os.environ.items() if not k.startswith("COURSE_")}
    jupyter_book = Path(sys.executable).parent / "jupyter-book"
    run = subprocess.run(["bash", str(QUIET), "book", str(jupyter_book), "build", str(ROOT),
                          "--path-output", str(tmp_path), "-W", "-n", "--keep-going"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    lines = run.stdout.splitlines()
    assert lines[0] == "== book (full log: _build/logs/book.log)" and len(lines) == 2, lines
    assert lines[1].startswith("== book: done in "), lines
    log = (copy / "logs" / "book.log").read_text(encoding="utf-8")
    assert "build succeeded" in log
    assert "fontTools" not in log
    assert "will overwrite data" not in log
    assert digest(copy / "html") == digest(SITE)

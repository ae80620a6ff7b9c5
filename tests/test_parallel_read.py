"""A build that reads and writes in two processes gives the same site as ``make book``.

Jupyter Book's command line has no ``--jobs``; the course's extension reads in parallel when
the build executes the notebooks (``course_read_jobs``, see ``_ext/course_site.py``). This test
forces two processes on the build from stored outputs, which is deterministic, and compares
every file with the serial build in ``_build/html``: what the parallel read merges (the
proofs' domain, the exercises, the bibliography, titles used across pages) must come out the
same.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

pytestmark = pytest.mark.site

ROOT = Path(__file__).resolve().parent.parent
SITE = ROOT / "_build" / "html"


@pytest.fixture(scope="module")
def parallel_build(tmp_path_factory) -> tuple[Path, str]:
    if not (SITE / "index.html").exists():
        pytest.fail("no built site: run `make book` first")
    out = tmp_path_factory.mktemp("parallel")
    env = {k: v for k, v in os.environ.items() if not k.startswith("COURSE_")}
    run = subprocess.run([str(Path(sys.executable).parent / "jupyter-book"), "build", str(ROOT),
                          "--path-output", str(out), "-W", "-n", "--keep-going"],
                         env={**env, "COURSE_READ_JOBS": "2"}, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "doing serial" not in run.stderr  # Sphinx's warning when an extension is not safe
    return out / "_build" / "html", run.stdout


#: In ``_build/html`` but not made by the build: ``make pdf`` copies the PDF edition there.
NOT_BUILT = {yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
             ["latex"]["latex_documents"]["targetname"].removesuffix(".tex") + ".pdf"}


def _files(site: Path) -> dict[str, Path]:
    return {str(p.relative_to(site)): p for p in site.rglob("*")
            if p.is_file() and p.name != ".buildinfo" and p.name not in NOT_BUILT}


def test_the_build_did_read_and_write_in_two_processes(parallel_build):
    _, log = parallel_build
    assert "course_site: 2 processes read the sources and write the pages" in log
    plain = re.sub(r"\x1b\[[0-9;]*m", "", log)
    # Sphinx shows a chunk of pages, "first .. last", only when it works in parallel
    assert re.search(r"^reading sources\.\.\. \[ *\d+%\] \S+ \.\. \S+$", plain, flags=re.M)
    assert re.search(r"^writing output\.\.\. \[ *\d+%\] \S+ \.\. \S+$", plain, flags=re.M)


def test_parallel_and_serial_builds_give_the_same_files(parallel_build):
    site, _ = parallel_build
    serial, parallel = _files(SITE), _files(site)
    assert set(parallel) == set(serial)
    differ = [name for name in sorted(serial)
              if serial[name].read_bytes() != parallel[name].read_bytes()]
    assert differ == []

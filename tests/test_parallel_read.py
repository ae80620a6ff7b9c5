"""A build that reads its sources in two processes gives the same site as ``make book``.

Jupyter Book's command line has no ``--jobs``; the course's extension reads in parallel when
the build executes the notebooks (``course_read_jobs``, see ``_ext/course_site.py``). This test
forces two processes on the build from stored outputs, which is deterministic, and compares
every file with the serial build in ``_build/html``: what the parallel read merges (the
proofs' domain, the exercises, the bibliography, titles used across pages) must come out the
same.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

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
    return out / "_build" / "html", run.stdout


def _files(site: Path) -> dict[str, Path]:
    return {str(p.relative_to(site)): p for p in site.rglob("*")
            if p.is_file() and p.name != ".buildinfo"}


def test_the_build_did_read_in_two_processes(parallel_build):
    _, log = parallel_build
    assert "course_site: reading the sources in 2 processes" in log
    assert "doing serial read" not in log


def test_parallel_and_serial_builds_give_the_same_files(parallel_build):
    site, _ = parallel_build
    serial, parallel = _files(SITE), _files(site)
    assert set(parallel) == set(serial)
    differ = [name for name in sorted(serial)
              if serial[name].read_bytes() != parallel[name].read_bytes()]
    assert differ == []

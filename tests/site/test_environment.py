"""The build and test environment is locked and checked.

* ``requirements-lock.txt`` pins every package of the build and test environment, transitive
  ones included, with hashes, and agrees with the short lists people edit
  (``requirements.txt`` for readers, ``requirements-build.txt`` for the site build,
  ``requirements-dev.txt`` for the tests and tools);
* ``requirements-build-lock.txt``, all that ``make book`` installs, is the build's part of that
  lock: the same versions and hashes, and none of the notebooks' or the tests' packages;
* ``make venv`` stops at once, with a clear message, under a Python other than the one
  ``runtime.txt`` names.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _pins(path: Path) -> dict[str, str]:
    pins = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#")[0].strip()
        if line and not line.startswith(("-", "--")):
            name, version = re.fullmatch(r"([A-Za-z0-9_.\-\[\]]+)==([\w.]+)\s*\\?", line).groups()
            name = re.sub(r"\[.*\]", "", name)  # opendp[polars] pins opendp
            pins[re.sub(r"[-_.]+", "-", name).lower()] = version
    return pins


def test_the_lock_pins_every_direct_requirement_at_the_same_version():
    lock = _pins(ROOT / "requirements-lock.txt")
    for short in ("requirements.txt", "requirements-build.txt", "requirements-dev.txt"):
        for name, version in _pins(ROOT / short).items():
            assert lock.get(name) == version, f"{short}: {name}=={version}, lock: {lock.get(name)}"
    assert len(lock) > 3 * len(_pins(ROOT / "requirements-dev.txt"))  # transitive ones too


def _locked(path: Path) -> dict[str, tuple[str, list[str]]]:
    """Each package of a lock file: its version and sorted hashes."""
    text = path.read_text(encoding="utf-8")
    locked = {}
    for block in re.split(r"\n(?=[A-Za-z0-9])", text.split("\n", 1)[1]):
        match = re.match(r"([A-Za-z0-9][\w.\-]*)==(\S+)", block)
        if match:
            locked[match[1].lower()] = (match[2], sorted(re.findall(r"sha256:(\w+)", block)))
    return locked


def test_every_locked_package_has_a_hash():
    for name in ("requirements-lock.txt", "requirements-build-lock.txt"):
        locked = _locked(ROOT / name)
        assert locked and all(hashes for _, hashes in locked.values()), name


def test_the_build_installs_the_builds_part_of_the_lock_and_nothing_else():
    whole, build = _locked(ROOT / "requirements-lock.txt"), _locked(ROOT / "requirements-build-lock.txt")
    assert {name: whole.get(name) for name in build} == build  # same versions, same hashes
    for name in _pins(ROOT / "requirements-build.txt"):
        assert name in build
    # the notebooks' heavy packages and the test tools stay out of `make book`
    for heavy in ("numpy", "pandas", "pyspark", "opendp", "polars", "pyarrow", "playwright",
                  "jupyterlab", "nbgrader", "mutmut", "pytest"):
        assert heavy not in build, heavy


def test_make_refuses_another_python_with_a_clear_message(tmp_path):
    fake = tmp_path / "python3.12"
    fake.write_text(f"#!{sys.executable}\n"
                    "import sys\nsys.version_info = (3, 12, 0, 'final', 0)\nexec(sys.argv[2])\n")
    fake.chmod(0o755)
    run = subprocess.run(["make", "-s", "python-version", f"PYTHON={fake}"], cwd=ROOT,
                         capture_output=True, text=True)
    assert run.returncode != 0
    assert "runtime.txt asks for Python 3.11" in run.stderr + run.stdout
    assert "is Python 3.12" in run.stderr + run.stdout
    good = subprocess.run(["make", "-s", "python-version", f"PYTHON={sys.executable}"],
                          cwd=ROOT, capture_output=True, text=True)
    assert good.returncode == 0, good.stderr

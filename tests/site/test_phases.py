"""``make test`` runs every phase even after one fails, and ends with a table (.ci/phases.py);
``make nbval-kernels`` skips the OpenBLAS kernels this CPU cannot run (.ci/blas_kernels.py)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / ".ci" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


phases = _load("phases")
blas_kernels = _load("blas_kernels")

JUNIT = ('<testsuites><testsuite tests="{n}" failures="{f}" errors="0" skipped="{s}">'
         "</testsuite></testsuites>")


def test_a_failing_phase_lets_the_others_run_and_the_table_says_so(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(phases, "LOGS", tmp_path)
    monkeypatch.setattr(phases, "pdf_possible", lambda: True)
    ran = []
    # unit fails 2 of 10 tests; the book fails; the rest pass
    results = {"unit": (1, (8 + 2, 2, 0)), "nbval": (0, (5, 0, 1)),
               "book": (2, None), "pdf": (0, None), "built": (0, (7, 0, 0))}

    def fake_run(command, cwd=None, **kwargs):
        target = command[2]
        ran.append(target)
        status, tests = results[target]
        if tests is not None:
            xml = Path(command[3].split("=", 1)[1])
            xml.write_text(JUNIT.format(n=tests[0], f=tests[1], s=tests[2]), encoding="utf-8")
        return subprocess.CompletedProcess(command, status)

    monkeypatch.setattr(phases.subprocess, "run", fake_run)
    assert phases.main() == 1
    # every phase ran but the one whose build failed; the builds beside unit, book first
    assert sorted(ran) == ["book", "nbval", "pdf", "unit"]
    assert ran.index("book") < ran.index("pdf") and ran[-1] == "nbval"
    out = capsys.readouterr().out
    table = (tmp_path / "phases.md").read_text(encoding="utf-8")
    assert table in out and out.rstrip().endswith(table.rstrip())
    assert "| unit | FAILED (exit 1) | 8 passed, 2 failed, 0 skipped |" in table
    assert "| book | FAILED (exit 2) | 1 step failed |" in table
    assert "| built | NOT RUN |" in table and "needs book, which failed" in table
    assert "phases: 2 passed, 3 failed (unit, book, built)" in table
    assert table.rstrip().splitlines()[-1] == "tests: 12 passed, 2 failed, 1 skipped"


def test_every_phase_passing_exits_zero(tmp_path, monkeypatch):
    monkeypatch.setattr(phases, "LOGS", tmp_path)
    monkeypatch.setattr(phases, "pdf_possible", lambda: False)
    monkeypatch.setattr(phases.subprocess, "run",
                        lambda command, cwd=None, **kw: subprocess.CompletedProcess(command, 0))
    assert phases.main() == 0
    table = (tmp_path / "phases.md").read_text(encoding="utf-8")
    assert "| pdf | skipped |" in table and "phases: 5 passed, 0 failed\n" in table


def test_the_builds_run_beside_the_unit_tests_and_their_output_waits(tmp_path, monkeypatch,
                                                                      capsys):
    monkeypatch.setattr(phases, "LOGS", tmp_path)
    monkeypatch.setattr(phases, "pdf_possible", lambda: True)
    pdf_done = threading.Event()
    seen = []

    def fake_run(command, cwd=None, **kwargs):
        target = command[2]
        if target == "unit":  # the unit phase ends only once the PDF is built beside it
            assert pdf_done.wait(timeout=10), "the builds did not run during the unit phase"
            print("unit's own output")
        if target == "pdf":
            pdf_done.set()
        seen.append((target, "stdout" in kwargs and "preexec_fn" in kwargs))
        return subprocess.CompletedProcess(command, 0, stdout=f"{target}'s log line\n")

    monkeypatch.setattr(phases.subprocess, "run", fake_run)
    assert phases.main() == 0
    # the builds' output is held (piped) and they run at the lowest priority; not the tests'
    assert dict(seen) == {"unit": False, "book": True, "pdf": True, "nbval": False,
                          "built": False}
    out = capsys.readouterr().out
    # held until the unit phase ends, then printed before the next phase starts
    assert out.index("unit's own output") < out.index("book's log line") \
        < out.index("pdf's log line") < out.index("==== phase nbval")
    rows = [line.split(" | ")[0] for line in out.split("==== make test: the phases")[1]
            .splitlines() if line.startswith("| ") and "---" not in line][1:]
    assert rows == ["| unit", "| nbval", "| book", "| pdf", "| built"]


def test_the_kernel_probe_runs_the_default_kernel_and_refuses_an_unknown_one():
    import threadpoolctl

    info = [i for i in threadpoolctl.threadpool_info() if i.get("internal_api") == "openblas"]
    if not info:
        pytest.skip("numpy does not use OpenBLAS here")
    assert blas_kernels.probe(info[0]["architecture"]) is None
    assert "no such core" in blas_kernels.probe("NoSuchCore")


def test_the_kernel_check_fails_if_the_command_fails_under_a_kernel(monkeypatch, capsys):
    monkeypatch.setattr(blas_kernels, "probe", lambda k: None if k != "SkylakeX" else "dies")
    assert blas_kernels.main(["Haswell", "SkylakeX", "--", sys.executable, "-c",
                              "import os, sys; sys.exit(os.environ['OPENBLAS_CORETYPE'] == 'Haswell')"]) == 1
    out = capsys.readouterr().out
    assert "| Haswell | FAILED (exit 1) |" in out and "| SkylakeX | skipped | dies |" in out
    assert blas_kernels.main(["--", "true"]) == 2


def test_the_workers_take_a_test_file_whole():
    """``--dist loadgroup`` sends a file's tests to one worker (tests/conftest.py groups them),
    so its module fixtures are built once. pytest 9.2 with xdist 3.8 silently drops the groups
    (pytest-xdist#1386), which ran each heavy fixture once per worker."""
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "tests/package/test_formatting.py", "-n", "2",
         "--dist", "loadgroup", "-v", "-p", "no:cacheprovider", "--no-cov"],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-2000:]
    ran = [line.split()[0] for line in result.stdout.splitlines()
           if line.startswith("[gw") and "PASSED" in line]
    assert len(ran) >= 10 and len(set(ran)) == 1, ran

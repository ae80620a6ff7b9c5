"""The weekly check against the newest releases: what it installs and what its summary says
(``.ci/newest_releases.py``; the workflow itself is linted in the workflow tests)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("newest_releases",
                                               ROOT / ".ci" / "newest_releases.py")
newest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(newest)

#: What pytest writes (JUnit XML, its default xunit2 flavour) for nbval's cells.
NBVAL_XML = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" errors="0" failures="2" tests="4">
<testcase classname="chapters.sensitivity.ipynb" name="Cell 0"/>
<testcase classname="chapters.sensitivity.ipynb" name="Cell 4">
  <failure message="nbval: cell 4 produced different outputs">the diff</failure></testcase>
<testcase classname="chapters.composition.ipynb" name="Cell 2">
  <failure message="ModuleNotFoundError: No module named 'opendp.mod'&#10;more">tb</failure></testcase>
<testcase classname="chapters.composition.ipynb" name="Cell 3">
  <skipped message="skipped"/></testcase>
</testsuite></testsuites>"""

UNIT_XML = """<testsuites><testsuite name="pytest">
<testcase classname="tests.test_laplace_mechanism" name="test_scale"/>
<testcase classname="tests.test_gaussian" name="test_rdp_curve">
  <error message="fixture 'x' | not found">e</error></testcase>
</testsuite></testsuites>"""


def test_the_check_installs_the_readers_packages_unpinned_and_the_tools_pinned():
    text = newest.unpinned(
        "# readers\nnumpy==2.4.6\nmyst-nb[x]==1.4.0  # glue\n",
        "-r requirements.txt\njupyter-book==1.0.4.post1  # 1.x\n\npytest==9.2.0\n")
    assert text.splitlines() == ["numpy", "myst-nb[x]", "jupyter-book==1.0.4.post1",
                                 "pytest==9.2.0"]


def test_the_real_requirements_lose_every_pin_and_only_those():
    readers = newest.pins((ROOT / "requirements.txt").read_text(encoding="utf-8"))
    dev = "".join((ROOT / name).read_text(encoding="utf-8")
                  for name in ("requirements-build.txt", "requirements-dev.txt"))
    lines = newest.unpinned((ROOT / "requirements.txt").read_text(encoding="utf-8"), dev)
    # an extra stays on its package (opendp[polars]): compare the package names
    unpinned = {newest.canonical(line.split("[")[0]) for line in lines.splitlines()
                if "==" not in line}
    assert unpinned == set(readers) and len(readers) >= 10
    assert newest.pins(lines) == newest.pins(dev)  # every tool keeps its pin


def test_changed_versions_compare_pip_freeze_with_the_pins():
    pinned = {"numpy": "2.4.6", "pandas": "3.1.1", "opendp": "0.16.0"}
    freeze = "NumPy==2.5.0\npandas==3.1.1\nscipy==1.18.0\n"
    assert newest.changed_versions(pinned, freeze) == [("numpy", "2.4.6", "2.5.0"),
                                                       ("opendp", "0.16.0", "not installed")]


def test_failures_name_the_notebook_cell_and_the_first_line_of_why():
    assert newest.failures(NBVAL_XML) == [
        ("chapters/sensitivity.ipynb::Cell 4", "nbval: cell 4 produced different outputs"),
        ("chapters/composition.ipynb::Cell 2", "ModuleNotFoundError: No module named 'opendp.mod'")]
    assert newest.failures(UNIT_XML) == [("tests.test_gaussian::test_rdp_curve",
                                          "fixture 'x' | not found")]


def test_the_summary_says_which_notebook_failed_and_which_package_changed():
    text = newest.summary({"nbval": NBVAL_XML, "unit": UNIT_XML.replace("error", "skipped"),
                           "later": ""}, {"numpy": "2.4.6", "scipy": "1.17.1"},
                          "numpy==2.5.0\nscipy==1.17.1\n")
    assert "| numpy | 2.4.6 | 2.5.0 |" in text and "scipy" not in text
    assert "## nbval: 2 failed" in text
    assert ("Notebooks that failed: `chapters/composition.ipynb`, `chapters/sensitivity.ipynb`"
            in text)
    assert "## unit: passed" in text
    assert "## later: 1 failed" in text and "the step did not run" in text


def test_nothing_new_upstream_is_said_plainly():
    text = newest.summary({"unit": UNIT_XML.replace("error", "skipped")}, {"numpy": "2.4.6"},
                          "numpy==2.4.6\n")
    assert "nothing new upstream" in text and "| package |" not in text


def test_the_command_line_writes_the_summary(tmp_path, capsys):
    (tmp_path / "nbval.xml").write_text(NBVAL_XML, encoding="utf-8")
    (tmp_path / "freeze.txt").write_text("numpy==0.1\n", encoding="utf-8")
    assert newest.main(["summary", "--freeze", str(tmp_path / "freeze.txt"),
                        "--junit", f"nbval={tmp_path / 'nbval.xml'}",
                        f"unit={tmp_path / 'missing.xml'}"]) == 0
    out = capsys.readouterr().out
    assert "| numpy |" in out and "## nbval: 2 failed" in out and "## unit: 1 failed" in out


def test_an_install_that_failed_is_said_plainly(tmp_path, capsys):
    assert newest.main(["summary", "--freeze", str(tmp_path / "freeze.txt"),
                        "--junit", f"nbval={tmp_path / 'nbval.xml'}"]) == 0
    assert "could not be installed together" in capsys.readouterr().out

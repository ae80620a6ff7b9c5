"""Real licences and a way to cite the course, consistent wherever they are stated."""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def test_the_content_licence_is_the_cc_by_4_legal_code():
    text = (ROOT / "LICENSE-CONTENT").read_text(encoding="utf-8")
    assert "Creative Commons Attribution 4.0 International Public License" in text
    for section in ("Section 1 – Definitions.", "Section 2 – Scope.",
                    "Section 3 – License Conditions.", "Section 8 – Interpretation."):
        assert section in text, section
    assert "UCI Adult" in text and "Becker and Kohavi" in text  # the data's own attribution


def test_citation_file_agrees_with_the_bibliography_and_the_intro():
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert cff["cff-version"] == "1.2.0"
    assert {"message", "title", "authors", "version", "date-released", "license"} <= set(cff)
    assert cff["license"] == ["CC-BY-4.0", "MIT"]
    bib = (ROOT / "references.bib").read_text(encoding="utf-8")
    entry = re.search(r"@misc\{dpbyrunningcode2026,(.*?)\n\}", bib, flags=re.S).group(1)
    assert f"title        = {{{cff['title']}}}" in entry
    assert cff["version"] in entry and cff["authors"][0]["name"] in entry
    intro = (ROOT / "intro.md").read_text(encoding="utf-8")
    assert "## How to cite" in intro and "{cite:p}`dpbyrunningcode2026`" in intro
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "CITATION.cff" in readme and "CC BY 4.0" in readme and "MIT" in readme


def test_the_installed_package_is_the_course_at_its_cited_version_and_licence():
    """``make venv`` installs ``dpcourse`` from ``pyproject.toml``: the same version as the
    citation file, the code's licence (MIT), the package from ``chapters/``, and not the facade
    ``helpers``, which a notebook imports from its own folder (a notebook run alone says what
    to fetch: tests/site/test_bundle.py)."""
    import importlib.metadata

    import dpcourse

    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    meta = importlib.metadata.metadata("dpcourse")
    assert meta["Version"] == cff["version"]
    assert meta["License-Expression"] == "MIT"
    assert Path(dpcourse.__file__).parent == ROOT / "chapters" / "dpcourse"
    # outside the repository, the install makes dpcourse importable and helpers not
    probe = ("import importlib.util as u; "
             "print(u.find_spec('dpcourse') is not None, u.find_spec('helpers') is None)")
    run = subprocess.run([sys.executable, "-c", probe], cwd=tempfile.gettempdir(),
                         capture_output=True, text=True, check=True, env={"PATH": ""})
    assert run.stdout.split() == ["True", "True"], run.stdout + run.stderr

"""Binder's path: ``postBuild`` (which repo2docker runs after installing) makes the launched
copy's notebooks the reader edition, on a fresh clone, and leaves nothing else behind.

The clone gets the course's environment on its ``PATH`` (what repo2docker has installed), so
the script's pip step finds every locked package already there.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.site, pytest.mark.long]

ROOT = Path(__file__).resolve().parents[2]


def test_postbuild_converts_a_fresh_clone(tmp_path):
    clone = tmp_path / "clone"
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True,
                          text=True, check=True).stdout.strip()
    subprocess.run(["git", "clone", "--quiet", "--no-checkout", str(ROOT), str(clone)], check=True)
    subprocess.run(["git", "-C", str(clone), "checkout", "--quiet", head], check=True)
    assert os.access(clone / "postBuild", os.X_OK), "repo2docker runs postBuild only if executable"
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    run = subprocess.run(["./postBuild"], cwd=clone, env=env, capture_output=True, text=True,
                         timeout=900)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    notebooks = sorted((clone / "chapters").glob("*.ipynb"))
    assert len(notebooks) == len(list((ROOT / "chapters").glob("*.ipynb")))
    for path in notebooks:
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        assert cells[0]["id"] == "reader-edition", path.name
        markdown = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
        assert not re.search(r"\{[a-z][\w:-]*\}`|^:{3,}", markdown, re.M), path.name
        original = json.loads((ROOT / "chapters" / path.name).read_text(encoding="utf-8"))
        assert [c["outputs"] for c in cells if c["cell_type"] == "code"] == [
            c["outputs"] for c in original["cells"] if c["cell_type"] == "code"], path.name
    # only the notebooks changed: nothing generated is left in the launched copy
    status = subprocess.run(["git", "-C", str(clone), "status", "--porcelain", "--ignored"],
                            capture_output=True, text=True, check=True).stdout.split("\n")
    changed = sorted(line[3:] for line in status if line.strip())
    assert changed == sorted(f"chapters/{p.name}" for p in notebooks), changed

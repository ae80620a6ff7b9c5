"""Shared pytest setup: make ``chapters/helpers.py`` importable and register markers."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHAPTERS = ROOT / "chapters"
for path in (CHAPTERS, Path(__file__).resolve().parent):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))


def pytest_configure(config):
    config.addinivalue_line("markers", "browser: drives a real browser against the built site")
    config.addinivalue_line("markers", "bundle: runs the course archive in a fresh venv (slow)")
    config.addinivalue_line("markers", "site: checks the built HTML")

"""The weekly check against the newest releases (.github/workflows/newest-releases.yml).

Two commands:

``requirements``
    Print what the check installs: every package of ``requirements.txt`` without its pin (so
    pip takes the newest release that fits), and the tools of ``requirements-build.txt`` and
    ``requirements-dev.txt`` as they are pinned (the build and test tools are not what a reader installs).
``summary --junit XML... --freeze FILE``
    Print, as Markdown for the run's summary, which notebooks and tests failed (from pytest's
    JUnit XML files) and which of ``requirements.txt``'s packages now install at another version
    than their pin (from ``pip freeze``).
"""

from __future__ import annotations

import argparse
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PIN = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)(\[[^\]]*\])?\s*==\s*([^\s;#]+)")


def canonical(name: str) -> str:
    """A package name as pip compares them (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def pins(text: str) -> dict[str, str]:
    """``{package: pinned version}`` of a requirements file's ``name==version`` lines."""
    found = {}
    for line in text.splitlines():
        match = PIN.match(line)
        if match:
            found[canonical(match[1])] = match[3]
    return found


def unpinned(requirements: str, dev_requirements: str) -> str:
    """The readers' packages without pins, then the pinned tools (``-r`` lines left out)."""
    names = [PIN.match(line) for line in requirements.splitlines()]
    lines = [f"{m[1]}{m[2] or ''}" for m in names if m]
    lines += [line.split("#")[0].strip() for line in dev_requirements.splitlines()
              if line.split("#")[0].strip() and not line.lstrip().startswith("-")]
    return "\n".join(lines) + "\n"


def changed_versions(pinned: dict[str, str], freeze: str) -> list[tuple[str, str, str]]:
    """(package, pinned, installed) for every pinned package installed at another version."""
    installed = pins(freeze)
    return [(name, version, installed.get(name, "not installed"))
            for name, version in sorted(pinned.items()) if installed.get(name) != version]


def failures(junit_xml: str) -> list[tuple[str, str]]:
    """(what failed, first line of why) for every failed or erroring test case.

    pytest's JUnit XML names a case by a dotted class name and a name: nbval's cells as
    ``chapters.sensitivity.ipynb`` and ``Cell 3``, which become
    ``chapters/sensitivity.ipynb::Cell 3``; other tests as ``tests.test_gaussian::test_x``.
    """
    out = []
    for case in ET.fromstring(junit_xml).iter("testcase"):
        for problem in (*case.findall("failure"), *case.findall("error")):
            where = case.get("classname", "")
            if where.endswith(".ipynb"):  # a notebook: its path, as nbval runs it
                where = where.removesuffix(".ipynb").replace(".", "/") + ".ipynb"
            name = f"{where}::{case.get('name')}" if where else case.get("name", "?")
            message = (problem.get("message") or problem.text or "").strip().splitlines()
            out.append((name, message[0][:200] if message else problem.tag))
    return out


def summary(junit: dict[str, str], pinned: dict[str, str], freeze: str) -> str:
    """The run's summary in Markdown. ``junit`` maps a step's name to its JUnit XML."""
    lines = ["# Newest releases of requirements.txt", ""]
    changed = changed_versions(pinned, freeze)
    if changed:
        lines += ["| package | pinned | installed |", "|---|---|---|"]
        lines += [f"| {name} | {old} | {new} |" for name, old, new in changed]
    else:
        lines.append("Every package installed at its pinned version: nothing new upstream.")
    for step, xml in junit.items():
        failed = failures(xml) if xml else [("(no report)", "the step did not run")]
        notebooks = sorted({name.split("::")[0] for name, _ in failed if ".ipynb" in name})
        lines += ["", f"## {step}: " + (f"{len(failed)} failed" if failed else "passed")]
        if notebooks:
            lines.append("Notebooks that failed: " + ", ".join(f"`{n}`" for n in notebooks))
        if failed:
            lines += ["", "| test | why |", "|---|---|"]
            lines += [f"| `{name}` | {why.replace('|', '/')} |" for name, why in failed]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("requirements", help="print what the check installs")
    report = commands.add_parser("summary", help="print the run's summary as Markdown")
    report.add_argument("--junit", nargs="+", default=[], metavar="STEP=XML",
                        help="a step's name and its pytest JUnit XML file")
    report.add_argument("--freeze", required=True, help="the output of `pip freeze`")
    args = parser.parse_args(argv)
    requirements = (ROOT / "requirements.txt").read_text(encoding="utf-8")
    if args.command == "requirements":
        tools = "".join((ROOT / name).read_text(encoding="utf-8")
                        for name in ("requirements-build.txt", "requirements-dev.txt"))
        sys.stdout.write(unpinned(requirements, tools))
        return 0
    junit = {}
    for item in args.junit:
        step, _, path = item.partition("=")
        junit[step] = Path(path).read_text(encoding="utf-8") if Path(path).is_file() else ""
    freeze = Path(args.freeze)
    if not freeze.is_file():  # pip could not install the newest releases together
        sys.stdout.write("# Newest releases of requirements.txt\n\nThe newest releases could not "
                         "be installed together: the install step's log says which.\n")
        return 0
    sys.stdout.write(summary(junit, pins(requirements), freeze.read_text(encoding="utf-8")))
    return 0


if __name__ == "__main__":
    sys.exit(main())

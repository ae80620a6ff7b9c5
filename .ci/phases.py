"""``make test``: every phase, even after one fails, then a table of the phases.

Each phase is a ``make`` target. The pytest phases write JUnit XML into ``_build/logs/``, from
which the table counts the tests passed, failed and skipped; a build phase counts as one step.
The phases that read the built site run only if the builds they need succeeded (otherwise they
are reported as not run, and count as failed). The table is also written to
``_build/logs/phases.md`` (``.ci/run`` prints it again last), and the exit status is non-zero
if any phase failed.

The book and the PDF are built beside the unit tests, one after the other, at the lowest CPU
priority: a build is one process, and pytest's two workers leave a core idle in their start and
their tail, which the builds take. Their output is held and printed when the unit phase ends.
Measured on a 2-core host: one after the other, the builds took 135 s (CI14). Beside the unit
tests at the same priority they slowed them: the unit phase took 578 s, against 462 s alone
(CI15). At the lowest priority the book ended within the unit phase (440 s), and only the PDF's
59 s came after it (CI16).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOGS = ROOT / "_build" / "logs"


@dataclass
class Phase:
    name: str
    target: str
    what: str
    junit: bool = True
    needs: tuple[str, ...] = ()
    when: str = ""  # an environment check: "pdf" runs only if xelatex exists or REQUIRE_PDF=1
    beside: str = ""  # runs in the background during that phase, after the earlier such phases


PHASES = [
    Phase("unit", "unit", "unit, chapter, data and structure tests; coverage of chapters/"),
    Phase("nbval", "nbval", "every notebook re-run, stored outputs compared"),
    Phase("book", "book", "the website, warning-free", junit=False, beside="unit"),
    Phase("pdf", "pdf", "the PDF edition, warning-free", junit=False, when="pdf", beside="unit"),
    Phase("built", "built", "site, browser, archive (nbval under OpenBLAS's generic kernel) and "
          "PDF tests", needs=("book", "pdf")),
]


def counts(xml: Path) -> tuple[int, int, int]:
    """Tests passed, failed (failures and errors) and skipped in a JUnit XML file."""
    root = ET.parse(xml).getroot()
    suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
    total = sum(int(s.get("tests", 0)) for s in suites)
    failed = sum(int(s.get("failures", 0)) + int(s.get("errors", 0)) for s in suites)
    skipped = sum(int(s.get("skipped", 0)) for s in suites)
    return total - failed - skipped, failed, skipped


def pdf_possible() -> bool:
    found = subprocess.run(["sh", "-c", "command -v xelatex"], capture_output=True).returncode == 0
    return found or os.environ.get("REQUIRE_PDF") == "1"


def _lowest_priority() -> None:
    """In a background phase's process, before it starts: the lowest CPU priority, so that it
    takes the cores the foreground phase leaves idle rather than slowing its tests."""
    os.nice(19)


def run(phase: Phase, ok: dict[str, bool], held: list[str] | None = None
        ) -> tuple[str, str, str, str, str]:
    """Run one phase; its row of the table. With ``held``, its output is appended there instead
    of printed."""
    if phase.when == "pdf" and not pdf_possible():
        ok[phase.name] = True
        return phase.name, "skipped", "", "", "xelatex not found (.ci/run installs TeX Live)"
    broken = [need for need in phase.needs if not ok.get(need, True)]
    if broken:
        ok[phase.name] = False
        return phase.name, "NOT RUN", "", "", f"needs {' and '.join(broken)}, which failed"
    title = f"\n==== phase {phase.name}: {phase.what}"
    if held is None:
        print(title, flush=True)
    xml = LOGS / f"phase-{phase.name}.xml"
    command = ["make", "--no-print-directory", phase.target]
    if phase.junit:
        command.append(f"JUNIT={xml}")
    start = time.monotonic()
    if held is None:
        status = subprocess.run(command, cwd=ROOT).returncode
    else:
        done = subprocess.run(command, cwd=ROOT, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, preexec_fn=_lowest_priority)
        status = done.returncode
        held.append(title + f" (beside {phase.beside})\n" + (done.stdout or ""))
    seconds = f"{time.monotonic() - start:.0f} s"
    ok[phase.name] = status == 0
    result = "passed" if status == 0 else f"FAILED (exit {status})"
    if phase.junit and xml.exists():
        passed, failed, skipped = counts(xml)
        return phase.name, result, f"{passed} passed, {failed} failed, {skipped} skipped", \
            seconds, phase.what
    return phase.name, result, "1 step" if status == 0 else "1 step failed", seconds, phase.what


def table(rows: list[tuple[str, ...]]) -> str:
    lines = ["| phase | result | tests | time | what |", "|---|---|---|---|---|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def main() -> int:
    LOGS.mkdir(parents=True, exist_ok=True)
    for stale in LOGS.glob("phase-*.xml"):  # a phase not run this time counts nothing
        stale.unlink()
    ok: dict[str, bool] = {}
    rows: dict[str, tuple[str, ...]] = {}
    for phase in PHASES:
        if phase.beside:
            continue
        background = [p for p in PHASES if p.beside == phase.name]
        held: list[str] = []

        def builds(background: list[Phase] = background, held: list[str] = held) -> None:
            for other in background:
                rows[other.name] = run(other, ok, held)

        thread = threading.Thread(target=builds)
        thread.start()
        rows[phase.name] = run(phase, ok)
        thread.join()
        print("".join(held), end="", flush=True)
    totals = [0, 0, 0]
    for phase in PHASES:
        xml = LOGS / f"phase-{phase.name}.xml"
        if phase.junit and xml.exists():
            totals = [a + b for a, b in zip(totals, counts(xml))]
    failed_phases = [phase.name for phase in PHASES if not ok[phase.name]]
    text = table([rows[phase.name] for phase in PHASES])
    text += (f"\nphases: {len(PHASES) - len(failed_phases)} passed, {len(failed_phases)} failed"
             + (f" ({', '.join(failed_phases)})" if failed_phases else "") + "\n")
    text += f"tests: {totals[0]} passed, {totals[1]} failed, {totals[2]} skipped\n"
    (LOGS / "phases.md").write_text(text, encoding="utf-8")
    print("\n==== make test: the phases\n" + text, end="")
    return 1 if failed_phases else 0


if __name__ == "__main__":
    sys.exit(main())

"""The mutation score of ``chapters/dpcourse/``, module by module, into benchmarks/report.{md,json}.

Run with ``make mutation`` (every module) or ``make mutation MODULES="randomness gaussian"``,
which calls ``benchmarks/run.py --mutation`` (the report's one writer) and that :func:`measure`;
how to read and act on the result: README.md, "The mutation score". Not part of ``make test``.

For each module, one at a time, this runs mutmut 3 (configured in ``pyproject.toml``,
``[tool.mutmut]``) on the module's mutants only, each mutant against the module's own tests,
``tests/package/test_<module>.py`` (``tests/mutation_paths.py`` selects them). Then:

* it checks the reviewed list of equivalent mutants, ``benchmarks/equivalent-mutants.toml``:
  an entry counts only while ``mutmut show`` still prints the change it records, and while no
  test kills it (a mutant a test kills is not equivalent);
* the score is ``(killed + timed out) / (mutants - equivalent)``: a survivor and a mutant that no
  test of its own module reaches both count as missed;
* ``run.py`` writes each module's counts into ``report.json`` (key ``mutation``, :func:`merged`:
  the modules not run keep their last result) and rewrites ``report.md`` from it.

``make mutation`` exits 0 when it ran, whatever the scores (benchmarks inform, they do not
gate); 2 for an unknown module or an equivalent-mutant entry that no longer matches its mutant.
"""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "chapters" / "dpcourse"
EQUIVALENTS = ROOT / "benchmarks" / "equivalent-mutants.toml"
MUTMUT = Path(sys.executable).parent / "mutmut"
#: The issue-27 target: every module at least this score, equivalent mutants excluded.
TARGET = 0.95
#: mutmut's exit codes of a mutant's test run, as ``mutmut.stats.status_by_exit_code`` reads them.
STATUS = {0: "survived", 1: "killed", 3: "killed", 5: "no tests", 33: "no tests", 34: "skipped",
          36: "timeout", 24: "timeout", -24: "timeout", 152: "timeout", 255: "timeout",
          37: "killed", None: "not checked"}


def modules() -> list[str]:
    """Every module of the package (``__init__.py`` holds no function for mutmut to change)."""
    return sorted(p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__")


def load_equivalents(path: Path = EQUIVALENTS) -> dict[str, dict]:
    """The reviewed equivalent mutants: name -> {"change": [...], "reason": "..."}."""
    entries = tomllib.loads(path.read_text(encoding="utf-8")).get("equivalent", [])
    out = {}
    for entry in entries:
        missing = {"mutant", "change", "reason"} - set(entry)
        if missing or not entry["reason"].strip():
            raise ValueError(f"{path.name}: entry {entry.get('mutant')} needs mutant, change and "
                             f"a reason (missing: {sorted(missing) or ['reason']})")
        out[entry["mutant"]] = {"change": [line.strip() for line in entry["change"]],
                                "reason": entry["reason"]}
    return out


def changed_lines(diff: str) -> list[str]:
    """The removed and added lines of a unified diff (as ``mutmut show`` prints one), stripped."""
    return [line[0] + " " + line[1:].strip() for line in diff.splitlines()
            if line[:1] in "+-" and not line.startswith(("+++", "---"))]


def module_of(mutant: str) -> str:
    """``chapters.dpcourse.gaussian.x_gaussian_sigma__mutmut_3`` -> ``gaussian``."""
    return mutant.removeprefix("chapters.dpcourse.").split(".")[0]


def score(statuses: dict[str, str], equivalent: set[str]) -> dict[str, object]:
    """Counts and score of one module from each mutant's status.

    ``equivalent`` are the valid equivalent entries of this module; one that a test kills is not
    excluded (it is reported instead: it was not equivalent).
    """
    counts = {key: 0 for key in ("killed", "timeout", "survived", "no tests", "not checked",
                                 "skipped")}
    for status in statuses.values():
        counts[status] = counts.get(status, 0) + 1
    excluded = sorted(m for m in equivalent if statuses.get(m) in ("survived", "no tests"))
    missed = sorted(m for m, s in statuses.items()
                    if s in ("survived", "no tests", "not checked") and m not in excluded)
    caught = counts["killed"] + counts["timeout"]
    considered = len(statuses) - len(excluded) - counts["skipped"]
    return {"mutants": len(statuses), "killed": counts["killed"], "timeout": counts["timeout"],
            "survived": counts["survived"], "no_tests": counts["no tests"],
            "equivalent": len(excluded), "score": caught / considered if considered else 1.0,
            "missed": missed,
            "killed_but_listed": sorted(m for m in equivalent
                                        if statuses.get(m) in ("killed", "timeout"))}


def statuses_of(module: str) -> dict[str, str]:
    meta = ROOT / "mutants" / "chapters" / "dpcourse" / f"{module}.py.meta"
    codes = json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"]
    return {name: STATUS.get(code, "suspicious") for name, code in codes.items()}


def show(mutant: str) -> str:
    run = subprocess.run([str(MUTMUT), "show", mutant], cwd=ROOT, capture_output=True, text=True)
    return run.stdout if run.returncode == 0 else ""


def mutmut_run(module: str, patterns: list[str], jobs: int) -> None:
    log = ROOT / "mutants" / f"mutmut-{module}.log"
    log.parent.mkdir(exist_ok=True)
    with log.open("a", encoding="utf-8") as out:
        done = subprocess.run([str(MUTMUT), "run", "--max-children", str(jobs), *patterns],
                              cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
    if done.returncode != 0:
        raise RuntimeError(f"mutmut failed on {module}: see {log}")


def run_module(module: str, jobs: int, missed_only: bool = False) -> dict[str, object]:
    """mutmut over one module, the score, and the equivalent entries checked against it.

    ``missed_only`` re-runs only the mutants that the last run of this module did not catch (and
    any mutmut has not checked since their function changed); the caught ones keep their verdict.
    Adding or tightening tests cannot let a caught mutant survive, so this is the quick loop
    while writing tests; the full run stays the reference.
    """
    log = ROOT / "mutants" / f"mutmut-{module}.log"
    log.parent.mkdir(exist_ok=True)
    log.write_text("", encoding="utf-8")
    print(f"mutmut: {module} (log: {log.relative_to(ROOT)}) ...", flush=True)
    meta = ROOT / "mutants" / "chapters" / "dpcourse" / f"{module}.py.meta"
    copy, source = meta.with_suffix(""), PACKAGE / f"{module}.py"
    if copy.exists() and source.stat().st_mtime > copy.stat().st_mtime:
        missed_only = False  # the module changed since its mutants were made: run them all
    if missed_only and meta.exists():
        missed = [m for m, s in statuses_of(module).items() if s not in ("killed", "timeout")]
        if missed:
            mutmut_run(module, missed, jobs)  # regenerates changed functions' mutants first
        unchecked = [m for m, s in statuses_of(module).items() if s == "not checked"]
        if unchecked:
            mutmut_run(module, unchecked, jobs)
    else:
        mutmut_run(module, [f"chapters.dpcourse.{module}.*"], jobs)
    statuses = statuses_of(module)
    listed = {m: e for m, e in load_equivalents().items() if module_of(m) == module}
    stale = [m for m, e in listed.items() if changed_lines(show(m)) != e["change"]]
    result = score(statuses, set(listed) - set(stale))
    result["stale_equivalents"] = stale
    result["measured_at"] = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    result["run"] = "missed only" if missed_only and meta.exists() else "full"
    return result


def markdown(mutation: dict) -> list[str]:
    """The report's section: one row per module."""
    lines = ["", "## Mutation score of `chapters/dpcourse/` (`make mutation`)", "",
             f"mutmut {mutation.get('mutmut', '?')}: each module's mutants against its own tests "
             "(`tests/package/test_<module>.py`). Score = (killed + timed out) / (mutants - "
             "equivalent); a survivor and a mutant no test of its module reaches count as "
             f"missed. Equivalent mutants: `benchmarks/equivalent-mutants.toml`, each with its "
             f"reason. Target: at least {TARGET:.0%} for every module.", "",
             "| module | mutants | killed | timed out | survived | no tests | equivalent | score "
             "| target | measured |", "|---|---|---|---|---|---|---|---|---|---|"]
    # a module last measured by --missed-only: its caught mutants keep the verdict of its last
    # full run (tests only grew since), which the table says
    for name, m in sorted(mutation["modules"].items()):
        status = "met" if m["score"] >= TARGET else "**MISSED**"
        lines.append(f"| {name} | {m['mutants']} | {m['killed']} | {m['timeout']} | "
                     f"{m['survived']} | {m['no_tests']} | {m['equivalent']} | "
                     f"{100 * m['score']:.1f}% | {status} | {m['measured_at']}"
                     f"{' (missed ones re-run)' if m.get('run') == 'missed only' else ''} |")
    return lines


def merged(mutation: dict | None, results: dict[str, dict]) -> dict:
    """The report's ``mutation`` entry with the modules just measured in place (the others keep
    their last result)."""
    from importlib.metadata import version

    mutation = dict(mutation or {"modules": {}})
    mutation["modules"] = dict(mutation["modules"])
    mutation["mutmut"] = version("mutmut")
    for module, r in results.items():
        mutation["modules"][module] = {k: v for k, v in r.items()
                                       if k not in ("missed", "killed_but_listed",
                                                    "stale_equivalents")}
    return mutation


def measure(wanted: list[str], jobs: int = 1,
            missed_only: bool = False) -> tuple[dict[str, dict], list[str]]:
    """Each module of ``wanted`` (all when empty) run by mutmut, one at a time: its counts, and
    the problems found in ``equivalent-mutants.toml``. ``ValueError`` for an unknown module or a
    malformed entry, before minutes of mutation."""
    wanted = wanted or modules()
    unknown = sorted(set(wanted) - set(modules()))
    if unknown:
        raise ValueError(f"unknown modules {unknown}; chapters/dpcourse/ has {modules()}")
    load_equivalents()
    results, problems = {}, []
    for module in wanted:
        r = results[module] = run_module(module, jobs, missed_only)
        print(f"  {module}: {100 * r['score']:.1f}% ({r['killed'] + r['timeout']} caught of "
              f"{r['mutants'] - r['equivalent']}, {r['equivalent']} equivalent excluded)")
        for m in r["missed"]:
            print(f"    missed: {m}   (mutmut show '{m}')")
        for m in r["stale_equivalents"]:
            problems.append(f"{m}: its change in {EQUIVALENTS.name} no longer matches "
                            "`mutmut show`; review the entry")
        for m in r["killed_but_listed"]:
            problems.append(f"{m}: listed as equivalent, but a test kills it; remove the entry")
    return results, problems



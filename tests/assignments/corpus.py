"""The corpus of submissions of issue #41, written from the instructor's source so it stays in step.

Each :class:`Submission` is one student's notebook of one chapter: the release notebook with
some solution cells replaced (the reference solution, one of a problem file's alternatives or
mutants, or code written here: tampering, hard-coded numbers, ``np.random``, loops), and the
score each problem must get, reasoned from what the hidden tests check (never read off the
grader). ``SPECIAL`` are the files a batch must survive. ``python tests/assignments/corpus.py
COURSE OUT`` writes the corpus into ``OUT`` for ``make grade SUBMISSIONS=OUT`` (``COURSE``: a
course directory ``make assignments`` built, with the release of both chapters).

Why each expected score holds whatever constants a student draws (clipped-sum: 1 point for the
sensitivity, 1 for a release near the clipped sum of values with outliers, 3 for the audit with
its median check, 1 for the Kolmogorov-Smirnov test of the noise; error-bound: 1 + 2 for the
bound, 1 for the simulation; plan-cost: 1 for a Fraction, 2 for the costs, 1 for ValueError):

* no clipping: the release, the median and the noise are off by ≥ 9·UPPER, far beyond
  5·Δ/ε·ln(10⁶) for ε ≥ 0.2: 1/6 (the sensitivity);
* ε and Δ swapped, variance as scale: the noise is at least 4 times too small for the smallest
  Δ/ε of the ranges (50/3), which the audit and the KS test see: 2/6;
* replace-one sensitivity: the sensitivity is wrong and the noise twice the exact one (the KS
  test fails), the release is still private and centred: 4/6;
* one-sided tail: the bound is wrong, the simulation right: 1/4; the standard deviation as
  scale: a share β^(1/√2) instead of β (at least 0.03 away, 5 standard errors are at most
  0.005): 3/4;
* plan-cost: charging max per histogram under replace-one, or the largest plus the smallest
  epsilon, undercharges the fixed plan [0.1, 0.7, 0.2]: 2/4; floats: 1/4 (bad input still
  raises); no validation: 3/4; a tighter or halfway correct cost: 4/4;
* hard-coded numbers of the public solution: the constants (ε, bounds, β) and the data are drawn
  for each student, never the public values: 0;
* no noise, ``np.random`` or a fixed seed instead of ``rng``: the generator checks fail, and
  the problem scores 0 (error-bound's simulation, too);
* tampering, however written: 0 on the problem, flagged.
"""

from __future__ import annotations

import json
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

import problems as P


LAP, COMP = "laplace-mechanism", "composition"
REF, STUB = "<reference>", "<stub>"


def _problem(chapter: str, pid: str) -> P.Problem:
    return next(p for p in P.load_problems([chapter]) if p.pid == pid)


def block(chapter: str, pid: str, kind: str, name: str = "") -> str:
    """The code of a problem file's block (``solution``, or a ``mutant``/``alternative`` by
    name): the corpus follows the problem files."""
    problem = _problem(chapter, pid)
    if kind == "solution":
        return problem.one("solution").code
    return next(b.code for b in problem.of(kind) if b.name == name)


def _ref(pid: str) -> str:
    return block(LAP, pid, "solution")


CLIP_REF, ERR_REF = _ref("clipped-sum"), _ref("error-bound")

TAMPER_CHECKS = """
import dpgrader
dpgrader.check_audit = lambda *args, **kwargs: None
dpgrader.check_noise_scale = lambda *args, **kwargs: None
dpgrader.check_laplace_noise = lambda *args, **kwargs: None
dpgrader.check_sensitivity = lambda *args, **kwargs: None
dpgrader.check_close = lambda *args, **kwargs: None


def clipped_sum_sensitivity(lower, upper):
    return 0


def private_clipped_sum(values, lower, upper, epsilon, rng):
    return float(sum(values))  # no noise at all
"""

TAMPER_CHECKS_ERR = """
import dpgrader
dpgrader.check_close = lambda *args, **kwargs: None


def laplace_error_bound(sensitivity, epsilon, beta):
    return 0.0


def share_beyond(sensitivity, epsilon, t, n, rng):
    return 0.05
"""

TAMPER_SYS_MODULES = """
import sys
for name, module in list(sys.modules.items()):
    if hasattr(module, "check_audit"):
        module.check_audit = lambda *args, **kwargs: None
import numpy
numpy.std = lambda *args, **kwargs: 1.0
""" + CLIP_REF

TAMPER_FRAMES = """
import sys


def clipped_sum_sensitivity(lower, upper):
    return max(abs(lower), abs(upper))


def private_clipped_sum(values, lower, upper, epsilon, rng):
    frame = sys._getframe(1)
    while frame is not None:  # the caller's globals: the tests' namespace
        checks = frame.f_globals.get("dpgrader")
        if checks is not None:
            frame.f_globals["dpgrader"] = type(sys)("dpgrader")
            frame.f_globals["dpgrader"].__dict__.update(vars(checks))
            frame.f_globals["dpgrader"].check_audit = lambda *a, **k: None
        frame = frame.f_back
    return float(sum(values))
"""

TAMPER_BUILTINS = """
import builtins
builtins.abs = lambda x: 0
builtins.max = lambda *args, **kwargs: 0
""" + CLIP_REF

TAMPER_CODE = """
import dpcourse.auditing


def _never_fails(*args, **kwargs):
    return None


dpcourse.auditing.audit_epsilon.__code__ = _never_fails.__code__
""" + CLIP_REF

FLOAT_THAT_AGREES = """
class Agreeable(float):
    def __eq__(self, other):
        return True

    def __sub__(self, other):
        return Agreeable(0.0)

    __rsub__ = __sub__

    def __abs__(self):
        return 0.0


def clipped_sum_sensitivity(lower, upper):
    return Agreeable(0.0)


def private_clipped_sum(values, lower, upper, epsilon, rng):
    return Agreeable(rng.laplace())
"""

NO_NOISE = """
def clipped_sum_sensitivity(lower, upper):
    return max(abs(lower), abs(upper))


def private_clipped_sum(values, lower, upper, epsilon, rng):
    return float(np.clip(np.asarray(values, dtype=float), lower, upper).sum())
"""

NP_RANDOM_CLIP = CLIP_REF.replace("rng.laplace(", "np.random.laplace(")
NP_RANDOM_ERR = ERR_REF.replace("rng.laplace(", "np.random.laplace(")
FIXED_SEED = CLIP_REF.replace("rng.laplace(", "np.random.default_rng(2024).laplace(")

BARE_EXCEPT = CLIP_REF.replace("    total = float(", """    while True:  # retry until it works
        try:
            return float(sum(values)) + rng.laplace(0.0, undefined_scale)
        except:  # noqa: E722  (also catches the grader's time-out)
            pass
    total = float(""")

ENDLESS = CLIP_REF + "\n\nwhile True:  # an endless loop after a correct function\n    pass\n"
DIES = CLIP_REF + "\n\nimport os\nos._exit(1)\n"

#: The public solution's numbers (variant 0: LOWER = 10, UPPER = 80, EPSILON = 1, the chapter's
#: count at ε = 0.5 and β = 0.05), hard-coded.
HARD_CODED_CLIP = """
def clipped_sum_sensitivity(lower, upper):
    return 80


def private_clipped_sum(values, lower, upper, epsilon, rng):
    return 131.9
"""
HARD_CODED_ERR = """
def laplace_error_bound(sensitivity, epsilon, beta):
    return 5.991464547107979


def share_beyond(sensitivity, epsilon, t, n, rng):
    return 0.05
"""

#: plan-cost: a tighter, correct replace-one cost (each histogram's two largest per-bin epsilons),
#: and one halfway between it and the bound 2·max (test_problems.py grades them too).
TIGHTER = """
from fractions import Fraction


def plan_cost(plan, neighbours):
    if neighbours not in ("add/remove", "replace-one"):
        raise ValueError(neighbours)
    total = Fraction(0)
    for histogram in plan:
        eps = [Fraction(e) for e in histogram]
        if not eps:
            raise ValueError("a histogram needs a bin")
        if neighbours == "add/remove":
            total += max(eps)
        elif len(eps) > 1:
            first = max(eps)
            rest = list(eps)
            rest.remove(first)
            total += first + max(rest)
    return total
"""
HALFWAY = TIGHTER.replace("            total += first + max(rest)\n",
                          "            total += (first + max(rest) + 2 * first) / 2\n")


@dataclass
class Submission:
    student: str
    chapter: str
    kind: str
    cells: dict[str, str]  # problem id -> code (REF, STUB or code)
    expected: dict[str, float]  # problem id -> score
    flagged: tuple[str, ...] = ()  # problems whose tampering the batch must list
    says: dict[str, str] = field(default_factory=dict)  # problem id -> words in its feedback


def _lap(student: str, kind: str, clip: str, err: str, clip_score: float, err_score: float,
         **extra) -> Submission:
    return Submission(student, LAP, kind, {"clipped-sum": clip, "error-bound": err},
                      {"clipped-sum": clip_score, "error-bound": err_score}, **extra)


def _comp(student: str, kind: str, plan: str, plan_score: float) -> Submission:
    """A composition notebook: plan-cost as given; the other two problems solved by the
    reference (their points, from the problem files) in the honest one, untouched (0) else."""
    full = plan == REF
    others = ("capped-visits", "charge-first")
    return Submission(student, COMP, kind,
                      {"plan-cost": plan, **{o: REF if full else STUB for o in others}},
                      {"plan-cost": plan_score,
                       **{o: _problem(COMP, o).points if full else 0 for o in others}})


def _mutant(pid: str, name: str) -> str:
    return block(LAP, pid, "mutant", name)


SUBMISSIONS = [
    _lap("honest", "honest: the reference solutions", REF, REF, 6, 4),
    _lap("honest-alt", "honest: the problem files' alternative solutions",
         block(LAP, "clipped-sum", "alternative", "exponential-difference"),
         block(LAP, "error-bound", "alternative", "quantile-and-loop"), 6, 4),
    _lap("jane.doe@uni.edu", "honest, an id with @", REF, REF, 6, 4),
    _lap("untouched", "the untouched release", STUB, STUB, 0, 0,
         says={"clipped-sum": "is not written yet"}),
    _lap("tamper-checks", "overwrites dpgrader.check_* with no-ops, no noise at all",
         TAMPER_CHECKS, TAMPER_CHECKS_ERR, 0, 0, flagged=("clipped-sum", "error-bound"),
         says={"clipped-sum": "tampering: your solution cell replaced `dpgrader.check_"}),
    _lap("tamper-sys-modules", "patches every module holding check_audit, and numpy.std",
         TAMPER_SYS_MODULES, REF, 0, 4, flagged=("clipped-sum",),
         says={"clipped-sum": "tampering:"}),
    _lap("tamper-frames", "rebinds dpgrader in the tests' namespace through the caller's frame",
         TAMPER_FRAMES, REF, 0, 4, flagged=("clipped-sum",),
         says={"clipped-sum": "changed a name of the tests' namespace"}),
    _lap("tamper-builtins", "replaces builtins.abs and builtins.max", TAMPER_BUILTINS, REF, 0, 4,
         flagged=("clipped-sum",), says={"clipped-sum": "changed `builtins."}),
    _lap("tamper-code", "swaps the code of the audit function", TAMPER_CODE, REF, 0, 4,
         flagged=("clipped-sum",), says={"clipped-sum": "audit_epsilon.__code__"}),
    _lap("float-subclass", "returns a float subclass equal to anything", FLOAT_THAT_AGREES, REF,
         0, 4, says={"clipped-sum": "returned an object of class Agreeable"}),
    _lap("hard-coded", "hard-codes the public solution's numbers", HARD_CODED_CLIP,
         HARD_CODED_ERR, 0, 0),
    _lap("np-random", "np.random instead of the given rng", NP_RANDOM_CLIP, NP_RANDOM_ERR, 0, 0,
         says={"clipped-sum": "drew from a global generator",
               "error-bound": "drew from a global generator"}),
    _lap("fixed-seed", "a generator seeded inside the function", FIXED_SEED, REF, 0, 4,
         says={"clipped-sum": "it ignores its argument `rng`"}),
    _lap("no-noise", "no noise at all", NO_NOISE, REF, 0, 4,
         says={"clipped-sum": "never drew from its argument `rng`"}),
    _lap("bare-except", "a retry loop with a bare except", BARE_EXCEPT, REF, 0, 4,
         says={"clipped-sum": "time limit of"}),
    _lap("endless", "an endless loop after a correct function", ENDLESS, REF, 0, 4,
         says={"clipped-sum": "time limit of"}),
    _lap("dies", "kills its process (a dead kernel)", DIES, REF, 0, 4,
         says={"clipped-sum": "the process running your code ended"}),
    _lap("no-clipping", "privacy bug: no clipping", _mutant("clipped-sum", "no-clipping"), REF,
         1, 4),
    _lap("swapped", "privacy bug: ε and Δ swapped",
         _mutant("clipped-sum", "epsilon-and-sensitivity-swapped"), REF, 2, 4),
    _lap("variance-scale", "privacy bug: the variance as the scale",
         _mutant("clipped-sum", "variance-as-scale"), REF, 2, 4),
    _lap("replace-one", "the replace-one sensitivity under add/remove",
         _mutant("clipped-sum", "replace-one-sensitivity"), REF, 4, 4),
    _lap("one-sided", "a one-sided tail bound", REF, _mutant("error-bound", "one-sided-tail"),
         6, 1),
    _lap("sd-scale", "the standard deviation as the scale", REF,
         _mutant("error-bound", "standard-deviation-as-scale"), 6, 3),
    _comp("comp-honest", "honest: the reference solutions", REF, 4),
    _comp("comp-tighter", "a tighter, correct replace-one cost", TIGHTER, 4),
    _comp("comp-halfway", "a cost halfway between the exact one and the bound", HALFWAY, 4),
    _comp("comp-max-only", "privacy bug: no factor two under replace-one",
          block(COMP, "plan-cost", "mutant", "no-factor-two-under-replace-one"), 2),
    _comp("comp-overspend", "privacy bug: the largest plus the smallest epsilon",
          block(COMP, "plan-cost", "mutant", "replace-one-largest-plus-smallest"), 2),
    _comp("comp-float", "floating point instead of a Fraction",
          block(COMP, "plan-cost", "mutant", "floating-point"), 1),
    _comp("comp-no-validation", "no ValueError on bad input",
          block(COMP, "plan-cost", "mutant", "no-validation"), 3),
]

#: Files a batch must survive: (path under the corpus, content, what the grader must do).
SPECIAL = [
    ("empty/laplace-mechanism.ipynb", "", "0 on every problem: the file is empty (0 bytes)"),
    ("garbled/laplace-mechanism.ipynb", '{"cells": [', "0 on every problem: not a readable "
     "notebook"),
    ("honest/laplace-mechanism (1).ipynb", None, "listed by name, not graded"),
    ("jane doe/laplace-mechanism.ipynb", None, "listed: not a valid student id"),
]


def notebook(course: Path, sub: Submission) -> dict:
    """The release notebook of ``sub.chapter`` with ``sub``'s solution cells."""
    path = course / "release" / sub.chapter / f"{sub.chapter}.ipynb"
    nb = json.loads(path.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        gid = cell["metadata"].get("nbgrader", {}).get("grade_id", "")
        pid = gid.removesuffix("-solution")
        if gid.endswith("-solution") and sub.cells.get(pid, STUB) != STUB:
            code = sub.cells[pid]
            cell["source"] = block(sub.chapter, pid, "solution") if code == REF else code
    return nb


def write(course: Path, out: Path) -> None:
    """The corpus in ``out``: ``<student>/<chapter>.ipynb`` (the first two in nbgrader's layout,
    ``<student>/<chapter>/<chapter>.ipynb``), and the special files."""
    if out.exists():
        shutil.rmtree(out)
    for index, sub in enumerate(SUBMISSIONS):
        folder = out / sub.student / (sub.chapter if index < 2 else "")
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{sub.chapter}.ipynb").write_text(
            json.dumps(notebook(course, sub), indent=1, ensure_ascii=False) + "\n",
            encoding="utf-8")
    honest = next(s for s in SUBMISSIONS if s.student == "honest")
    for relative, content, _what in SPECIAL:
        path = out / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(notebook(course, honest)) if content is None else content,
                        encoding="utf-8")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit("usage: python tests/assignments/corpus.py COURSE OUT")
    write(Path(sys.argv[1]), Path(sys.argv[2]))
    print(f"{len(SUBMISSIONS) + len(SPECIAL)} submissions in {sys.argv[2]}")

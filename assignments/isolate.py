"""Grading where a submission cannot reach the checks: one fresh process per problem.

``make grade`` does not run a student's notebook. For each submitted notebook and each problem it
takes the code of the problem's solution cell (the cell nbgrader marks ``<problem>-solution``:
the only code a student writes; every other cell is ignored) and grades it with
:func:`grade_isolated`:

1. **a process of its own.** The grader (which has imported the course's ``dpgrader`` and the
   libraries the checks use) forks; the child runs the problem's setup with the constants drawn
   for this student (:func:`grading_seed`), then the student's code, then the hidden and visible
   tests of the instructor's problem file (``assignments/problems/``, never the submitted
   notebook's cells). Whatever the student's code does (``os._exit``, an endless loop, a crash
   of the interpreter) ends that child only; the batch and the student's other problems go on.
2. **a time limit from outside.** The parent kills the child (and anything it started) after
   ``seconds`` (:data:`PROBLEM_SECONDS`); the problem scores 0 with the reason "time limit of
   N s". No ``except`` in the child can stop a ``SIGKILL``.
3. **checks out of reach.** The student's code runs in a namespace of its own, with a private
   copy of ``dpgrader`` (redefining or patching it changes the copy only). The tests run in
   another namespace that holds the setup's names, the grader's own ``dpgrader`` and, for each
   name the reference solution defines, the student's object behind a guard (:class:`_Guard`)
   that, after every call, checks that no module the checks use (``builtins``, ``numpy``,
   ``math``, ``fractions``, ``scipy.stats``, ``dpgrader``, ``dpcourse.auditing``, ...) nor the
   tests' namespace was changed, and turns what the call returns into plain values (a number,
   a list, an array, a ``Fraction``, a ``DataFrame``: never an object whose methods run student
   code inside a check). Nothing of the student's may run in the middle of a check: the
   garbage collector runs between cells only, and a signal handler, a ``gc`` callback or an
   import hook the student sets is a change. An audit hook (:func:`sys.addaudithook`, which
   cannot be removed) refuses, once the student's code can run, to change a class or a
   function of a library or of the setup (``__code__``, class attributes), tracing,
   ``ctypes``, ``gc``'s object lists, starting processes, sending signals, sockets and writing
   files. A change found scores the problem 0 with the feedback "tampering: ..." and the
   batch lists it.
4. **the given generator.** For a function with an ``rng`` parameter, calls the tests make
   (up to three with different arguments, among the first twelve) are replayed (:func:`_check_generator`):
   the same generator state must give the same output, numpy's and Python's global generators
   must not move, a continuous output must change with another seed, and one of the calls at
   least must draw from ``rng``. A failure scores the problem 0, with what to change.

Why this design, and not nbgrader's ``autograde``: that runs the hidden tests in the student's
kernel, after the student's cells, where any cell can replace them, and its time limit is an
interrupt a bare ``except:`` catches. A fork per problem is the simplest way to a process of its
own: numpy, scipy, pandas and the checks are imported once for the whole batch (a kernel per
notebook costs seconds), a crash or a kill costs one problem, and nothing carries over from one
problem or student to the next. The scores still go into nbgrader's gradebook (``grade.py``).

What this does not stop: code written against the grader itself inside the same process (a
student who reads this file and writes a forged result to the grader's pipe). Problems are
graded from code, not from what a notebook printed, so none of this depends on the student's
outputs.
"""

from __future__ import annotations

import builtins
import copy
import gc
import hashlib
import importlib.util
import json
import math
import os
import random
import select
import signal
import sys
import threading
import time
import types
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import dpgrader as _checks  # noqa: E402  (the grader's own copy: the tests use this one)
import problems as P  # noqa: E402

# what the checks import when they first run, imported before any student code can
import dpcourse.auditing  # noqa: E402,F401
import pandas  # noqa: E402,F401
import scipy.stats  # noqa: E402,F401
import statistics  # noqa: E402,F401

#: Default time limit, in seconds, for everything one problem runs (its setup, the student's
#: cell, its tests, the generator checks), enforced by killing the process.
PROBLEM_SECONDS = 60.0
#: How many calls (with different arguments) of a function with an ``rng`` are replayed.
_RECORDED_CALLS = 3
#: Modules the checks use, watched after every call of a student's function.
WATCHED = ("builtins", "numpy", "numpy.random", "numpy.linalg", "math", "fractions",
           "statistics", "itertools", "functools", "operator", "copy", "random",
           "dpcourse.auditing", "scipy.stats", "pandas", "json", "os", "select")
#: Packages whose every module is compared after each cell (a patch of ``numpy``'s internals).
#: Not pandas': its modules cache values in their globals as they run (``find_stack_level``
#: sets ``pandas.util._exceptions._pkg_dir``); its top level is watched after every call.
FULL_PACKAGES = ("numpy", "scipy", "dpcourse", "builtins", "math", "fractions",
                 "statistics", "itertools", "functools", "operator", "copy", "random", "json",
                 "os", "posixpath", "select", "collections", "decimal", "numbers", "abc")


class Tampering(BaseException):
    """The student's code changed what the checks use (a BaseException: no test catches it)."""


def grading_seed(variant: int, student: str, chapter: str, pid: str) -> int:
    """The seed of one student's constants and data for one problem: the same on a re-grade,
    different for two students (and unknown to them while ``VARIANT`` is secret)."""
    text = f"{variant}\0{student}\0{chapter}\0{pid}".encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "big") >> 1


# ---------------------------------------------------------------- plain values only

_PLAIN = (type(None), bool, int, float, complex, str, bytes)
_NUMPY_SCALARS = frozenset(t for t in np.sctypeDict.values() if isinstance(t, type))
_PLAIN_SET = frozenset(_PLAIN) | _NUMPY_SCALARS


def _all_plain(values: Any) -> bool:
    """Every item of ``values`` of a plain type (a fast pass for big columns and arrays)."""
    return set(map(type, values)) <= _PLAIN_SET


def plain(value: Any, what: str, depth: int = 0) -> Any:
    """``value`` as plain data, or :class:`dpgrader.CheckFailed`: an object of the student's
    class (a ``float`` subclass whose ``__eq__`` says yes) never reaches a check."""
    import collections

    kind = type(value)
    if depth > 50:
        raise _checks.CheckFailed(f"{what} returned a value nested too deeply")
    if kind in _PLAIN or kind in _NUMPY_SCALARS:
        return value
    if kind is Fraction:
        n, d = value.numerator, value.denominator
        if type(n) is int and type(d) is int:
            return Fraction(n, d)
    elif kind in (list, tuple, set, frozenset):
        if _all_plain(value):
            return kind(value)
        return kind(plain(v, what, depth + 1) for v in value)
    elif kind in (dict, collections.Counter, collections.OrderedDict,
                  collections.defaultdict):
        items = {plain(k, what, depth + 1): plain(v, what, depth + 1) for k, v in value.items()}
        return dict(items) if kind is collections.defaultdict else kind(items)
    elif kind is np.ndarray:
        if value.dtype == object:
            flat = value.reshape(-1).tolist()
            if not _all_plain(flat):
                flat = [plain(item, what, depth + 1) for item in flat]
            out = np.empty(len(flat), dtype=object)
            out[:] = flat
            return out.reshape(value.shape)
        return np.array(value, copy=True)
    elif kind is np.random.Generator or kind is range:
        return value
    else:
        import pandas as pd

        if kind in (pd.DataFrame, pd.Series, pd.Index):
            frame = value.copy()
            parts = [frame.index] if kind is not pd.Index else [frame]
            if kind is pd.DataFrame:
                parts += [frame.columns] + [frame[c] for c in frame.columns]
            elif kind is pd.Series:
                parts.append(frame)
            for part in parts:
                if part.dtype == object and not _all_plain(part):
                    plain(list(part), what, depth + 1)
            return frame
    raise _checks.CheckFailed(
        f"{what} returned an object of class {kind.__name__}; return plain values (numbers, "
        "strings, lists, tuples, dicts, numpy arrays, Fractions or DataFrames)")


def _plain_error(error: BaseException, known: set[int] | frozenset = frozenset()
                 ) -> BaseException:
    """The exception itself if a library raised it (its class is one of ``known``, its arguments
    plain), else a builtin exception of the same kind with plain arguments (no student code runs
    when a check prints it)."""
    if id(type(error)) in known and isinstance(error, Exception) and all(
            type(a) in _PLAIN for a in error.args):
        return error
    base = next((k for k in type(error).__mro__ if k.__module__ == "builtins"
                 and issubclass(k, Exception)), None)
    args = [a if type(a) in _PLAIN else f"<{type(a).__name__}>" for a in error.args]
    if base is None:  # SystemExit, KeyboardInterrupt, a BaseException of the student's
        return RuntimeError(f"{type(error).__name__} (not an exception a function may raise)")
    try:
        return base(*args)
    except Exception:  # noqa: BLE001  (a builtin that needs other arguments)
        return base(str(args[0]) if args else "")


# ---------------------------------------------------------------- the guard

def _dict_state(d: dict) -> tuple:
    return list(d), list(map(id, d.values())), list(d.values())


def _functions_of(module: types.ModuleType) -> list:
    out = []
    for value in vars(module).values():
        if isinstance(value, types.FunctionType) and value.__module__ == module.__name__:
            out.append(value)
        elif isinstance(value, type) and value.__module__ == module.__name__:
            out.extend(v for v in vars(value).values() if isinstance(v, types.FunctionType))
    return out


def _version_reader(d: dict) -> Any:
    """A reader of CPython's version tag of the dict ``d`` (PEP 509: it changes at every
    change of the dict), or ``None`` where it is not where CPython 3.11 keeps it. Made before
    the audit hook refuses ``ctypes``; reading it afterwards costs well under a microsecond."""
    import ctypes

    if sys.implementation.name != "cpython" or sys.version_info[:2] != (3, 11):
        return None
    offset = 2 * ctypes.sizeof(ctypes.c_void_p) + ctypes.sizeof(ctypes.c_ssize_t)
    reader = ctypes.c_uint64.from_address(id(d) + offset)
    return reader


def _versions_work() -> bool:
    scratch = {"a": 1}
    reader = _version_reader(scratch)
    if reader is None:
        return False
    first = reader.value
    same = reader.value == first
    scratch["a"] = 2
    return same and reader.value != first


#: The signals a submission could have delivered later, in the middle of a check: its timers'
#: (sending a signal to a process, or limiting its CPU time, is refused by the audit hook).
_SIGNALS = [getattr(signal, n) for n in ("SIGALRM", "SIGVTALRM", "SIGPROF")
            if hasattr(signal, n)]


def _is_time_limit_handler(handler: Any) -> bool:
    """The handler :func:`dpgrader.time_limit` (the grader's copy) sets during a call."""
    return (isinstance(handler, types.FunctionType)
            and handler.__code__ in _TIME_LIMIT_CODES)


_TIME_LIMIT_CODES = tuple(c for c in _checks.time_limit.__wrapped__.__code__.co_consts
                          if isinstance(c, types.CodeType))


class _Guard:
    """What the checks use, compared after every call of the student's functions and after
    every cell: the entries of the watched modules and of the tests' namespace, the modules in
    ``sys.modules``, the code of the checks' functions, and, after each cell, every module of
    the packages the checks use. A module's entries are compared by CPython's dict version tag
    (PEP 509: a few microseconds), entry by entry only where the tag moved."""

    def __init__(self, tests: dict) -> None:
        self.tampered: str | None = None
        self.tests = tests
        self.student_checks: tuple | None = None
        modules = [sys.modules[name] for name in WATCHED if name in sys.modules]
        modules += [_checks]
        # after every call: the watched modules and every module of numpy and dpcourse
        every = modules + [m for name, m in list(sys.modules.items())
                           if name.split(".")[0] in ("numpy", "dpcourse") and name not in WATCHED
                           and isinstance(m, types.ModuleType)]
        self.light = [(f"{m.__name__}", vars(m), _dict_state(vars(m))) for m in every]
        self.fast = _versions_work()
        self.readers = [_version_reader(d) if self.fast else None for _, d, _ in self.light]
        self.tags = [r.value if r is not None else 0 for r in self.readers]
        self.tests_reader = _version_reader(tests) if self.fast else None
        self.code = [(f, f.__code__, f.__defaults__, f.__kwdefaults__)
                     for m in modules for f in _functions_of(m)]
        self.modules = dict(sys.modules)
        self.watched_modules = [(n, self.modules[n]) for n in WATCHED + (
            "dpcourse", "scipy", "statistics") if n in self.modules]
        self.full = [(name, vars(m), _dict_state(vars(m)))
                     for name, m in self.modules.items()
                     if isinstance(m, types.ModuleType)
                     and name.split(".")[0] in FULL_PACKAGES]
        self.full_readers = [_version_reader(d) if self.fast else None for _, d, _ in self.full]
        self.full_tags = [r.value if r is not None else 0 for r in self.full_readers]
        self.names = {name for name in self.modules if name != "__main__"}
        # what could run the student's code in the middle of a check: signal handlers, the
        # garbage collector's callbacks and finalizers, import and display hooks
        gc.disable()  # cyclic garbage (a __del__ of the student's) is collected between cells
        self.signals = {s: signal.getsignal(s) for s in _SIGNALS}
        self.hooks = [(name, getattr(sys, name), list(getattr(sys, name))
                       if isinstance(getattr(sys, name), list) else None)
                      for name in ("meta_path", "path_hooks", "displayhook", "excepthook",
                                   "unraisablehook", "breakpointhook")]
        self.callbacks = list(gc.callbacks)

    def _asynchronous(self, where: str) -> None:
        if gc.isenabled() or gc.callbacks != self.callbacks:
            self.flag(f"{where} changed the garbage collector, which could run code during "
                      "the checks")
        for number, handler in self.signals.items():
            now = signal.getsignal(number)
            if now is not handler and not _is_time_limit_handler(now):
                self.flag(f"{where} set a handler for signal {number}, which could run code "
                          "during the checks")
        for name, value, items in self.hooks:
            now = getattr(sys, name)
            if now is not value or (items is not None and now != items):
                self.flag(f"{where} changed sys.{name}")

    def before_call(self) -> Any:
        if self.tests_reader is not None:
            return self.tests_reader.value
        return _dict_state(self.tests)

    def _compare(self, entries: list, where: str) -> None:
        for index, (label, d, state) in enumerate(entries):
            keys, ids, _values = state
            if list(map(id, d.values())) == ids and list(d) == keys:
                continue
            known = dict(zip(keys, ids))
            changed = [k for k in keys if k not in d or id(d[k]) != known[k]]
            # a submodule imported for the first time is added to its package: not a change
            added = [k for k in d if k not in known and not isinstance(d[k], types.ModuleType)]
            if changed or added:
                self.flag(f"{where} changed `{label}.{(changed or added)[0]}`, which the "
                          "checks use")
            entries[index] = (label, d, _dict_state(d))

    def _compare_tagged(self, entries: list, readers: list, tags: list, where: str) -> None:
        """:meth:`_compare`, entry by entry only for the dicts whose version tag moved."""
        if not self.fast:
            self._compare(entries, where)
            return
        for index, reader in enumerate(readers):
            if reader.value != tags[index]:
                entry = [entries[index]]
                self._compare(entry, where)
                entries[index] = entry[0]
                tags[index] = reader.value

    def after_call(self, where: str, tests_before: Any = None) -> None:
        if self.tampered is not None:
            raise Tampering(self.tampered)
        self._compare_tagged(self.light, self.readers, self.tags, where)
        if self.fast:
            if tests_before is not None and self.tests_reader.value != tests_before:
                self.flag(f"{where} changed a name of the tests' namespace, which the checks "
                          "use")
        elif tests_before is not None:
            self._compare([("the tests' namespace", self.tests, tests_before)], where)
        for name, module in self.watched_modules:
            if sys.modules.get(name) is not module:
                self.flag(f"{where} replaced the module `{name}` in sys.modules")
        self._asynchronous(where)

    def after_cell(self, where: str) -> None:
        if self.tampered is not None:
            raise Tampering(self.tampered)
        self._asynchronous(where)
        gc.collect()  # the student's finalizers run now, and are checked below
        if self.student_checks is not None:
            label, d, (keys, ids, _values) = self.student_checks
            known = dict(zip(keys, ids))
            changed = [k for k in keys if k not in d or id(d[k]) != known[k]]
            if changed:
                self.flag(f"{where} replaced `dpgrader.{changed[0]}` (the grader runs its own "
                          "copy of the checks, so this changed nothing but is flagged)")
        self._compare_tagged(self.light, self.readers, self.tags, where)
        for f, code, defaults, kwdefaults in self.code:
            if (f.__code__ is not code or f.__defaults__ is not defaults
                    or f.__kwdefaults__ is not kwdefaults):
                self.flag(f"{where} changed the function `{f.__module__}.{f.__name__}`")
        self._compare_tagged(self.full, self.full_readers, self.full_tags, where)
        for name in self.names:
            if sys.modules.get(name) is not self.modules[name] and name != "dpgrader":
                self.flag(f"{where} replaced the module `{name}` in sys.modules")
        if threading.active_count() != 1:
            self.flag(f"{where} started a thread, which could change the checks while they run")

    def flag(self, message: str) -> None:
        if self.tampered is None:
            self.tampered = message
        raise Tampering(self.tampered)


_BLOCKED_PREFIXES = ("ctypes.", "socket.", "subprocess.", "shutil.", "os.exec", "os.spawn",
                     "os.posix_spawn", "pty.")
_BLOCKED = {"sys.settrace", "sys.setprofile", "sys.addaudithook", "gc.get_objects",
            "gc.get_referrers", "gc.get_referents", "os.fork", "os.forkpty", "os.system",
            "os.kill", "os.killpg", "os.remove", "os.unlink", "os.rename", "os.rmdir",
            "os.truncate", "os.chmod", "os.chown", "os.link", "os.symlink", "os.setsid",
            "os.setpgid", "signal.pthread_kill", "resource.setrlimit"}
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


def _library_objects(names: list[str]) -> set[int]:
    """The ids of the functions and classes (and the classes' functions) of these modules: the
    objects whose code or attributes a submission may not change."""
    ids: set[int] = set()
    for name in names:
        module = sys.modules.get(name)
        if not isinstance(module, types.ModuleType):
            continue
        for value in list(vars(module).values()):
            if isinstance(value, types.FunctionType):
                ids.add(id(value))
            elif isinstance(value, type):
                ids.add(id(value))
                ids.update(id(v) for v in list(vars(value).values())
                           if isinstance(v, types.FunctionType))
    return ids


#: The library objects of the grader's process (computed once, before the first fork; each
#: child adds those of the modules its setup imported).
_KNOWN: dict[str, set[int]] = {}


def _known_objects() -> set[int]:
    names = [n for n in list(sys.modules) if n != "__main__" and n not in _KNOWN]
    for name in names:
        _KNOWN[name] = _library_objects([name])
    return set().union(*_KNOWN.values())


_TAMPERING = {"sys.settrace", "sys.setprofile", "sys.addaudithook", "gc.get_objects",
              "gc.get_referrers", "gc.get_referents"}


def _install_audit_hook(known: set[int], guard: _Guard) -> None:
    """From now on (in this process, for good) refuse what only tampering needs; what can only
    be tampering (changing a library's function or class, tracing, ``ctypes``, ``gc``'s lists
    of objects) is also recorded as tampering in ``guard``."""

    def refuse(what: str, tampering: bool) -> None:
        if tampering and guard.tampered is None:
            guard.tampered = f"your code tried {what}, which the grader does not allow"
        raise PermissionError(f"the grader does not allow {what} in a submission")

    def hook(event: str, args: tuple) -> None:
        if event in _BLOCKED or event.startswith(_BLOCKED_PREFIXES):
            refuse(event, event in _TAMPERING or event.startswith("ctypes."))
        if event == "open":
            mode, flags = args[1], args[2]
            if (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
                    isinstance(flags, int) and flags & _WRITE_FLAGS):
                refuse("writing files", False)
        elif event in ("object.__setattr__", "object.__delattr__"):
            target = args[0]
            if id(target) in known and isinstance(target, (type, types.FunctionType)):
                try:
                    where = (f"{type.__getattribute__(target, '__module__')}."
                             f"{type.__getattribute__(target, '__qualname__')}"
                             if isinstance(target, type) else
                             f"{target.__module__}.{target.__qualname__}")
                except Exception:  # noqa: BLE001
                    where = "a library's object"
                refuse(f"changing `{where}.{args[1]}`", True)

    sys.addaudithook(hook)


# ---------------------------------------------------------------- the generator

def _same(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray):
        return a.shape == b.shape and bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))
    if isinstance(a, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if hasattr(a, "equals"):
        return bool(a.equals(b))
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001
        return repr(a) == repr(b)


def _continuous(value: Any) -> bool:
    """Does ``value`` hold a float that is not a whole number (so two seeds almost never give
    the same)?"""
    if isinstance(value, (float, np.floating)):
        return math.isfinite(value) and value != round(value)
    if isinstance(value, np.ndarray) and value.dtype.kind == "f":
        finite = value[np.isfinite(value)]
        return bool(np.any(finite != np.round(finite)))
    if isinstance(value, (list, tuple)):
        return any(_continuous(v) for v in value)
    if isinstance(value, dict):
        return any(_continuous(v) for v in value.values())
    return False


def _global_state() -> tuple:
    state = np.random.get_state()
    return int(state[2]), int(state[1][0]), int(state[1][-1]), random.getstate()[1][:4]


_GLOBAL_GENERATOR = (
    "drew from a global generator (np.random.laplace, np.random.rand, random.random, ...), "
    "not from its argument `rng`: draw the noise with `rng.laplace(...)` (or `rng.normal`, "
    "`rng.random`, ...), so that the grader's seeded generator decides it")


def _check_generator(name: str, fn: Any, calls: list[tuple]) -> None:
    """Replay recorded calls of ``fn`` (each ``(args, kwargs, slot)``, the ``rng`` at ``slot``,
    an index into args or a keyword) and raise :class:`dpgrader.CheckFailed` if it does not
    draw its randomness from that ``rng``: the same state must give the same output without
    moving numpy's or Python's global generators; a continuous output must change with the
    seed; and at least one of the calls must draw from ``rng`` at all."""

    def run(args: tuple, kwargs: dict, slot: Any, generator: Any = None) -> tuple[Any, bool]:
        a, k = copy.deepcopy((args, kwargs))
        if generator is not None:
            if isinstance(slot, int):
                a = a[:slot] + (generator,) + a[slot + 1:]
            else:
                k[slot] = generator
        used = a[slot] if isinstance(slot, int) else k[slot]
        start = copy.deepcopy(used.bit_generator.state)
        before = _global_state()
        out = fn(*a, **k)
        if _global_state() != before:
            raise _checks.CheckFailed(f"your `{name}` {_GLOBAL_GENERATOR}")
        return out, used.bit_generator.state != start

    moved_any = False
    continuous_checked = False
    for args, kwargs, slot in calls:
        first, moved = run(args, kwargs, slot)
        second, _ = run(args, kwargs, slot)
        if not _same(first, second):
            raise _checks.CheckFailed(
                f"your `{name}` gave two different outputs for the same `rng` state: it draws "
                "its randomness from somewhere else (np.random's global functions, an unseeded "
                "np.random.default_rng(), the random module); draw every random number from "
                "`rng`")
        moved_any = moved_any or moved
        if _continuous(first) and not continuous_checked:
            continuous_checked = True
            if all(_same(run(args, kwargs, slot, np.random.default_rng([seed, 2026]))[0], first)
                   for seed in (1, 2, 3)):
                raise _checks.CheckFailed(
                    f"your `{name}` gave the same output for 3 differently seeded `rng`s: it "
                    "ignores its argument `rng` (a generator seeded inside the function?); "
                    "draw every random number from `rng`")
    if not moved_any:
        raise _checks.CheckFailed(
            f"your `{name}` never drew from its argument `rng` in {len(calls)} call"
            f"{'s' if len(calls) != 1 else ''} of the tests: draw the noise from `rng` "
            "(rng.laplace(...), rng.random(...), ...), not from a generator of your own")


# ---------------------------------------------------------------- one problem

def _defined_names(problem: P.Problem) -> list[str]:
    """The names the reference solution defines at its top level (what the tests may use)."""
    import ast

    names = []
    for node in ast.parse(problem.one("solution").code).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, ast.Assign):
            names += [t.id for t in node.targets if isinstance(t, ast.Name)]
    return names


def _rng_slots(problem: P.Problem) -> dict[str, int]:
    """Each function of the reference solution with an ``rng`` parameter: its position."""
    import ast

    out = {}
    for node in ast.parse(problem.one("solution").code).body:
        if isinstance(node, ast.FunctionDef):
            params = [a.arg for a in node.args.args]
            if "rng" in params:
                out[node.name] = params.index("rng")
    return out


def _student_dpgrader() -> types.ModuleType:
    """A fresh copy of ``dpgrader`` for the student's namespace (what it does to it stays
    there)."""
    spec = importlib.util.spec_from_file_location("dpgrader", HERE / "dpgrader.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@dataclass
class Result:
    """One problem graded: the score of each test cell and the feedback, in words."""

    pid: str
    points: float
    tests: list[tuple[str, float, float, str]] = field(default_factory=list)
    reason: str = ""  # why the problem was not graded (time limit, a process that died)
    tampering: str = ""

    @property
    def score(self) -> float:
        return sum(s for _, s, _, _ in self.tests)

    @property
    def feedback(self) -> list[str]:
        out = [f"tampering: {self.tampering}; the problem scores 0"] if self.tampering else []
        out += [self.reason] if self.reason else []
        return out + [text for _, s, p, text in self.tests if s < p and text]

    def as_json(self) -> dict:
        return {"pid": self.pid, "points": self.points, "tests": self.tests,
                "reason": self.reason, "tampering": self.tampering}


def run_cells(problem: P.Problem, code: str, constants: dict[str, Any],
              cell_seconds: float = 30.0) -> Result:
    """Set up, run the student's ``code`` in its own namespace, then the tests in theirs.

    Only in a child process of its own (:func:`grade_isolated`): the audit hook it installs
    stays for good, and ``sys.modules["dpgrader"]`` becomes the student's copy.
    """
    import contextlib
    import io

    # What the grader's process holds (numpy, scipy, pandas, the checks) is not garbage: the
    # collections after each cell (:meth:`_Guard.after_cell`) need only look at what this child
    # makes from here on (the setup's data, the student's objects), not the whole heap again.
    gc.freeze()
    result = Result(pid=problem.pid, points=problem.points)
    trusted: dict[str, Any] = {"__name__": "__grader__", "__builtins__": builtins,
                               "dpgrader": _checks}
    setup = problem.setup_code(constants=constants)
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink):
        exec(compile(setup, f"<{problem.pid} setup>", "exec"), trusted)
    student: dict[str, Any] = {}
    for name, value in trusted.items():
        if name.startswith("__"):
            continue
        if isinstance(value, (types.ModuleType, types.FunctionType, type)):
            student[name] = value  # shared, and out of reach: see the audit hook
        else:  # the student's own copy of the data: changing it changes nothing the tests use
            try:
                student[name] = copy.deepcopy(value)
            except Exception:  # noqa: BLE001
                student[name] = value
    copy_for_student = _student_dpgrader()
    student.update(__name__="__main__", __builtins__=builtins, dpgrader=copy_for_student)
    tests: dict[str, Any] = dict(trusted)
    watch = _Guard(tests)
    sys.modules["dpgrader"] = copy_for_student  # `import dpgrader` in the student's cell
    known = _known_objects()
    for value in trusted.values():  # the setup's own functions and classes
        if isinstance(value, (types.FunctionType, type)):
            known.add(id(value))
            if isinstance(value, type):
                known.update(id(v) for v in vars(value).values()
                             if isinstance(v, types.FunctionType))
    _install_audit_hook(known, watch)
    # changing the student's own copy of the checks changes nothing, but it is flagged
    watch.student_checks = ("dpgrader (your copy)", vars(copy_for_student),
                            _dict_state(vars(copy_for_student)))
    slots = _rng_slots(problem)
    recorded: dict[str, list] = {}
    seen: dict[str, int] = {}

    def guarded(name: str, fn: Any) -> Any:
        def proxy(*args: Any, **kwargs: Any) -> Any:
            seen[name] = seen.get(name, 0) + 1
            if (name in slots and seen[name] <= 4 * _RECORDED_CALLS
                    and len(recorded.setdefault(name, [])) < _RECORDED_CALLS):
                slot = slots[name] if len(args) > slots[name] else "rng"
                if isinstance(slot, int) or "rng" in kwargs:
                    try:
                        call = (copy.deepcopy(args), copy.deepcopy(kwargs), slot)
                        rng = call[0][slot] if isinstance(slot, int) else call[1][slot]
                        if isinstance(rng, np.random.Generator) and not any(
                                _same(call[0], c[0]) and _same(call[1], c[1])
                                for c in recorded[name]):
                            recorded[name].append(call)
                    except Exception:  # noqa: BLE001  (an argument that cannot be copied)
                        pass
            names = watch.before_call()
            try:
                out = fn(*args, **kwargs)
            except (_checks._TimeUp, Tampering):
                raise
            except BaseException as error:  # noqa: BLE001  (any error, as plain data)
                watch.after_call(f"your `{name}`", names)
                raise _plain_error(error, known) from None
            watch.after_call(f"your `{name}`", names)
            return plain(out, f"your `{name}`")

        proxy.__name__ = proxy.__qualname__ = name
        return proxy

    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(io.StringIO()):
        try:
            with _checks.time_limit(cell_seconds, "the solution cell"):
                exec(compile(code, f"<{problem.pid} solution>", "exec"), student)
        except BaseException:  # noqa: BLE001  (the student's cell raised: the tests say what)
            pass
        try:
            watch.after_cell("your solution cell")
        except Tampering as error:
            result.tampering = str(error)
        if watch.tampered and not result.tampering:
            result.tampering = watch.tampered
        if not result.tampering:
            for name in _defined_names(problem):
                if name not in student:
                    continue  # the tests say it is not defined
                value = student[name]
                if callable(value) and not isinstance(value, type):
                    tests[name] = guarded(name, value)
                else:
                    try:
                        tests[name] = plain(value, f"your `{name}`")
                    except _checks.CheckFailed:
                        pass
        for i, block in enumerate(problem.of("test"), 1):
            gid = f"{problem.pid}-test-{i}"
            if result.tampering:
                result.tests.append((gid, 0.0, block.points, ""))
                continue
            try:
                with _checks.time_limit(cell_seconds, "the test cell"):
                    points = P._run_test_cell(block, tests, problem.pid)
                watch.after_cell("your code")
            except Tampering as error:
                result.tampering = str(error)
                result.tests.append((gid, 0.0, block.points, ""))
            except Exception as error:  # noqa: BLE001  (nbgrader: any error scores 0)
                result.tests.append((gid, 0.0, block.points,
                                     f"{type(error).__name__}: {error}"))
            else:
                result.tests.append((gid, min(points, block.points), block.points, ""))
        generator_failure = ""
        if not result.tampering:
            for name, calls in recorded.items():
                if generator_failure or not calls or name not in student:
                    continue
                try:
                    _check_generator(name, tests[name], calls)
                    watch.after_cell("your code")
                except Tampering as error:
                    result.tampering = str(error)
                except _checks.CheckFailed as failure:
                    generator_failure = str(failure)
                except Exception:  # noqa: BLE001  (it raised: its tests said so already)
                    pass
    if watch.tampered and not result.tampering:
        result.tampering = watch.tampered
    if result.tampering:
        result.tests = [(g, 0.0, p, "") for g, _, p, _ in result.tests]
    elif generator_failure and result.score > 0:
        result.tests = [(g, 0.0, p, text) for g, _, p, text in result.tests]
        result.reason = f"CheckFailed: {generator_failure} (so the problem scores 0)"
    return result


def grade_isolated(problem: P.Problem, code: str, constants: dict[str, Any],
                   seconds: float = PROBLEM_SECONDS, cwd: Path | None = None,
                   cell_seconds: float = 30.0) -> Result:
    """Grade ``code`` for ``problem`` in a child process killed after ``seconds``."""
    _known_objects()  # once in the grader, shared by every child
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        status = 0
        try:
            os.close(read)
            os.setpgid(0, 0)
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            if cwd is not None:
                os.chdir(cwd)
            result = run_cells(problem, code, constants, cell_seconds)
            data = json.dumps(result.as_json()).encode()
            view = memoryview(data)
            while view:
                view = view[os.write(write, view):]
        except BaseException as error:  # noqa: BLE001  (said below, then this process ends)
            status = 1
            try:
                zeros = [(f"{problem.pid}-test-{i}", 0.0, b.points, "")
                         for i, b in enumerate(problem.of("test"), 1)]
                said = (f"the grader could not finish this problem ({type(error).__name__}: "
                        f"{str(error)[:200]}), so it scores 0")
                os.write(write, json.dumps({"tests": zeros, "reason": said,
                                            "tampering": ""}).encode())
            except BaseException:  # noqa: BLE001
                pass
        finally:
            os._exit(status)
    os.close(write)
    try:
        os.setpgid(pid, pid)
    except OSError:
        pass
    chunks, deadline, timed_out = [], time.monotonic() + seconds, False
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            timed_out = True
            break
        ready, _, _ = select.select([read], [], [], min(left, 1.0))
        if ready:
            chunk = os.read(read, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    os.close(read)
    status = None
    while not timed_out:  # the pipe is closed: the child ends (or hangs after closing it)
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() >= deadline:
            timed_out = True
        else:
            time.sleep(0.005)
    if timed_out:
        for target in (-pid, pid):
            try:
                os.kill(target, signal.SIGKILL)
            except OSError:
                pass
        _, status = os.waitpid(pid, 0)
    zeros = [(f"{problem.pid}-test-{i}", 0.0, b.points, "")
             for i, b in enumerate(problem.of("test"), 1)]
    if timed_out:
        return Result(problem.pid, problem.points, zeros,
                      reason=f"time limit of {seconds:g} s: the problem's code and tests did "
                             "not finish in time (an endless loop, or a loop that catches "
                             "every exception?), so they were stopped")
    try:
        data = json.loads(b"".join(chunks).decode())
        if [t[0] for t in data["tests"]] != [z[0] for z in zeros]:
            raise ValueError("tests")
        tests = [(gid, min(max(float(t[1]), 0.0), points), points, str(t[3]))
                 for (gid, _, points, _), t in zip(zeros, data["tests"])]
        return Result(problem.pid, problem.points, tests, reason=str(data["reason"]),
                      tampering=str(data["tampering"]))
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        code_text = (f"signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status)
                     else f"exit status {os.WEXITSTATUS(status)}")
        return Result(problem.pid, problem.points, zeros,
                      reason=f"the process running your code ended ({code_text}) before "
                             "its tests finished (os._exit, or a crash of Python?), so the "
                             "problem scores 0")


@dataclass
class Outcome:
    """What grading one problem gave: per test block, passed and the feedback."""

    score: float
    points: float
    feedback: list[str]
    tampering: str = ""

    @property
    def full(self) -> bool:
        return self.score == self.points


def run_problem(problem: P.Problem, solution: str | None = None, variant: int = 0,
                cell_seconds: float = 30.0, seconds: float | None = None,
                draw: int | None = None) -> Outcome:
    """Grade ``problem`` as ``make grade`` does, with ``solution`` (code) in place of the
    solution block.

    ``solution=None`` runs the reference; pass ``problems.student_solution(problem)`` for the
    untouched release. The code and the tests run in a process of their own
    (:func:`grade_isolated`), killed after ``seconds`` (:data:`PROBLEM_SECONDS` by default);
    each cell is also stopped after ``cell_seconds``. A test cell scores its points when it
    raises nothing, as in nbgrader. ``draw`` draws the constants as ``make grade`` does for one
    student.
    """
    code = problem.one("solution").code if solution is None else solution
    constants = problem.constants(variant, draw=draw)
    result = grade_isolated(problem, code, constants,
                            seconds=PROBLEM_SECONDS if seconds is None else seconds,
                            cwd=P.ROOT, cell_seconds=cell_seconds)
    return Outcome(score=result.score, points=problem.points, feedback=result.feedback,
                   tampering=result.tampering)

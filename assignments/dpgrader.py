"""The grading library of the course's assignments: checks of the privacy property, in words.

Every check raises :class:`CheckFailed` (an ``AssertionError``, so nbgrader scores the test cell
0) with a sentence a student can act on, never a traceback: in a notebook, importing this module
tells IPython to show a :class:`CheckFailed` as its message alone. A student's function is
always called through :func:`call`, which stops it after a time limit and turns whatever it
raises into a sentence. The checks:

* :func:`check_close`, :func:`check_equal`: a number or a value against the reference;
* :func:`check_pure_dp_exact`: a discrete mechanism's exact output probabilities on every pair
  of neighbouring inputs, each ratio within :math:`e^\\varepsilon`;
* :func:`check_audit`: a continuous mechanism through the course's seeded audit
  (``dpcourse.auditing.audit_epsilon``) at a confidence chosen so that a correct mechanism
  fails with probability at most ``false_fail`` (:data:`FALSE_FAIL`, 10⁻⁶) by design;
* :func:`brute_force_sensitivity` and :func:`check_sensitivity`: a sensitivity against the
  largest change over every neighbour of every dataset in a small domain;
* :func:`check_samples_follow`: a sampler's output against its exact distribution;
* :func:`check_laplace_noise`: a Laplace mechanism's outputs against the exact Laplace
  distribution around the true value (Kolmogorov-Smirnov, false-fail probability 10⁻⁶);
* :func:`check_accountant`: an accountant's total against a reference accountant;
* :func:`check_cost`: an exact privacy cost between the true cost and an accepted upper bound.

Every check returns ``None``: nbgrader takes a number shown by a test cell as a partial score,
and anything written to stderr (a warning) as a failure. It is copied beside every assignment
notebook, for the visible tests a student runs. ``make grade`` never uses that copy: it runs the
checks from the instructor's own copy, in a process where the student's code cannot replace
them (``isolate.py``), and :func:`call`'s time limit there is only a courtesy: the grader kills
a problem's process after its own limit, which no ``except`` can catch.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import signal
import threading
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

#: The probability with which :func:`check_audit` fails a correct mechanism, by design.
FALSE_FAIL = 1e-6
#: Default time limit, in seconds, for one call of a student's function.
TIME_LIMIT = 5.0
NOTIONS = ("add-remove", "replace-one")


class CheckFailed(AssertionError):
    """A check failed; the message says what, in words."""


class _TimeUp(BaseException):
    """Raised inside a student's code when its time is up (not an Exception: not catchable by
    a student's ``except Exception``)."""


@contextlib.contextmanager
def time_limit(seconds: float, what: str) -> Iterator[None]:
    """Stop the block after ``seconds`` with :class:`CheckFailed` (main thread only: SIGALRM)."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "SIGALRM"):
        yield
        return

    def handler(signum: int, frame: Any) -> None:
        raise _TimeUp

    previous = signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    except _TimeUp:
        raise CheckFailed(f"{what} did not finish within {seconds:g} s (an endless loop?), so it "
                          "was stopped") from None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _describe_call(fn: Callable, args: Sequence, kwargs: dict) -> str:
    name = getattr(fn, "__name__", "your function")
    shown = [_short(a) for a in args] + [f"{k}={_short(v)}" for k, v in kwargs.items()]
    return f"`{name}({', '.join(shown)})`"


def _short(value: Any) -> str:
    if isinstance(value, np.random.Generator):
        return "rng"
    if callable(value) and hasattr(value, "__name__"):
        return value.__name__
    if hasattr(value, "shape") and hasattr(value, "columns"):
        return f"a DataFrame of {len(value)} rows"
    text = repr(value)
    if isinstance(value, np.ndarray) and value.size > 6:
        text = f"array of shape {value.shape}"
    return text if len(text) <= 40 else text[:37] + "..."


def call(fn: Any, *args: Any, seconds: float = TIME_LIMIT, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)``, stopped after ``seconds``; whatever it raises becomes words."""
    what = _describe_call(fn, args, kwargs) if callable(fn) else repr(fn)
    return call_as(what, fn, *args, seconds=seconds, **kwargs)


def call_as(what: str, fn: Any, *args: Any, seconds: float = TIME_LIMIT, **kwargs: Any) -> Any:
    """:func:`call`, naming the call ``what`` in the feedback."""
    if not callable(fn):
        raise CheckFailed(f"{what} should be a function, but it is a {type(fn).__name__}")
    try:
        # a warning is written to stderr, which nbgrader scores as a failed test: hide them
        with time_limit(seconds, f"your {what}"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*args, **kwargs)
    except CheckFailed:
        raise
    except NotImplementedError:
        raise CheckFailed(f"{what} is not written yet: it still raises NotImplementedError") \
            from None
    except Exception as error:  # the student's bug, reported in one sentence
        raise CheckFailed(f"your {what} raised {type(error).__name__}: {error}") from None


def check_equal(actual: Any, expected: Any, what: str) -> None:
    """``actual == expected`` (element-wise for arrays), or say what differs."""
    same = (np.array_equal(np.asarray(actual), np.asarray(expected))
            if isinstance(expected, (np.ndarray, list, tuple)) else actual == expected)
    if not same:
        if isinstance(expected, (list, tuple)) and isinstance(actual, (list, tuple)):
            extra = [x for x in actual if x not in expected]
            lacking = [x for x in expected if x not in actual]
            if extra or lacking:
                raise CheckFailed(
                    f"{what} is wrong: it holds {len(actual)} items where it should hold "
                    f"{len(expected)}" + (f"; it should not hold {_short(extra)}" if extra else "")
                    + (f"; it lacks {_short(lacking)}" if lacking else ""))
        raise CheckFailed(f"{what} is {_short(actual)}, but it should be {_short(expected)}")


def check_close(actual: Any, expected: float, what: str, rel: float = 1e-9,
                abs_tol: float = 1e-12) -> None:
    """``actual`` is a finite number within ``rel`` (relative) of ``expected``."""
    try:
        value = float(actual)
    except (TypeError, ValueError):
        raise CheckFailed(f"{what} should be a number, but it is {_short(actual)}") from None
    if not math.isfinite(value) or not math.isclose(value, expected, rel_tol=rel,
                                                    abs_tol=abs_tol):
        raise CheckFailed(f"{what} is {value:.6g}, but it should be {expected:.6g}")


# ---------------------------------------------------------------- neighbours and sensitivity

def neighbours(dataset: Sequence, domain: Iterable, notion: str) -> Iterator[tuple]:
    """Every neighbour of ``dataset`` (a tuple of records) whose records come from ``domain``.

    ``"add-remove"``: one record added (any value of the domain) or one removed;
    ``"replace-one"``: one record replaced by another value of the domain.
    """
    if notion not in NOTIONS:
        raise ValueError(f"notion must be one of {NOTIONS}, got {notion!r}")
    data, domain = tuple(dataset), tuple(domain)
    if notion == "add-remove":
        for i in range(len(data)):
            yield data[:i] + data[i + 1:]
        for value in domain:
            yield data + (value,)
    else:
        for i, value in itertools.product(range(len(data)), domain):
            if value != data[i]:
                yield data[:i] + (value,) + data[i + 1:]


def datasets(domain: Iterable, max_size: int, min_size: int = 0) -> Iterator[tuple]:
    """Every dataset (multiset, as a sorted tuple) of ``min_size`` to ``max_size`` records."""
    domain = tuple(domain)
    for size in range(min_size, max_size + 1):
        yield from itertools.combinations_with_replacement(domain, size)


def brute_force_sensitivity(f: Callable[[tuple], Any], domain: Iterable, max_size: int,
                            notion: str, norm: int = 1, min_size: int = 0) -> float:
    """The largest L1 (or L2, ``norm=2``) change of ``f`` between neighbours, over every dataset
    of ``min_size`` to ``max_size`` records from ``domain`` (an add/remove neighbour may have
    one record more or less)."""
    domain, worst = tuple(domain), 0.0
    for data in datasets(domain, max_size, min_size):
        here = np.atleast_1d(np.asarray(f(data), dtype=float))
        for other in neighbours(data, domain, notion):
            change = np.atleast_1d(np.asarray(f(other), dtype=float)) - here
            worst = max(worst, float(np.linalg.norm(change, ord=norm)))
    return worst


def check_sensitivity(claimed: Any, f: Callable[[tuple], Any], domain: Iterable,
                      max_size: int, notion: str, what: str, norm: int = 1,
                      min_size: int = 0) -> None:
    """A claimed sensitivity equals the brute-force one over a small domain."""
    truth = brute_force_sensitivity(f, domain, max_size, notion, norm, min_size)
    try:
        value = float(claimed)
    except (TypeError, ValueError):
        raise CheckFailed(f"{what} should be a number, but it is {_short(claimed)}") from None
    if value < truth - 1e-9:
        raise CheckFailed(
            f"{what} is {value:g}, but two {notion} neighbours change the output by {truth:g}: "
            "the sensitivity is too small, so noise calibrated to it is not private")
    if value > truth + 1e-9:
        raise CheckFailed(f"{what} is {value:g}, but no two {notion} neighbours change the "
                          f"output by more than {truth:g}: it is private but wastes accuracy")


# ---------------------------------------------------------------- privacy of mechanisms

def _as_pmf(result: Any, what: str) -> dict:
    if not isinstance(result, dict) or not result:
        raise CheckFailed(f"{what} should return a non-empty dict output -> probability, "
                          f"but it returned {_short(result)}")
    total = sum(Fraction(p) if isinstance(p, (int, Fraction)) else p for p in result.values())
    if any(p < 0 for p in result.values()) or abs(float(total) - 1) > 1e-9:
        raise CheckFailed(f"{what}'s probabilities should be non-negative and sum to 1, "
                          f"they sum to {float(total):.6g}")
    return result


def check_pure_dp_exact(pmf: Callable[[Any], dict], pairs: Iterable[tuple[Any, Any]],
                        epsilon: float, what: str = "your mechanism",
                        tight: bool = False) -> None:
    """Exact output probabilities on each pair of neighbouring inputs; every ratio ≤ e^ε.

    With ``tight=True`` the largest ratio must also reach e^ε: a mechanism asked to be exactly
    ε-DP that is more private wastes accuracy.

    ``pmf(data)`` returns ``{output: probability}`` (floats or Fractions, exact). Both
    directions of each pair are checked; an output possible on one input and impossible on
    the other is an infinite ratio.
    """
    bound, worst = math.exp(epsilon), (1.0, None)
    for a, b in pairs:
        pa = _as_pmf(call(pmf, a), what)
        pb = _as_pmf(call(pmf, b), what)
        for x, y, px, py in ((a, b, pa, pb), (b, a, pb, pa)):
            for output in set(px) | set(py):
                p, q = float(px.get(output, 0)), float(py.get(output, 0))
                ratio = math.inf if q == 0 and p > 0 else (p / q if q else 1.0)
                if ratio > worst[0]:
                    worst = (ratio, (output, x, y))
    ratio, where = worst
    if ratio > bound * (1 + 1e-9):
        output, x, y = where
        shown = "infinite (an output possible on one input is impossible on the other)" \
            if math.isinf(ratio) else f"{ratio:.3g}"
        raise CheckFailed(
            f"{what}'s output ratio on neighbouring inputs reached {shown}, above "
            f"e^ε = {bound:.3g} (ε = {epsilon:g}): output {output!r} on {_short(x)} against "
            f"{_short(y)}")
    if tight and ratio < bound * (1 - 1e-9):
        raise CheckFailed(
            f"{what}'s largest output ratio on neighbouring inputs is {ratio:.4g}, below "
            f"e^ε = {bound:.4g} (ε = {epsilon:g}): it is more private than asked, so it "
            "adds more noise than it needs")


def audit_confidence(false_fail: float = FALSE_FAIL) -> float:
    """The audit's confidence that makes a correct mechanism fail with ``false_fail``."""
    return 1.0 - false_fail


def check_audit(mechanism: Callable[[Any, np.random.Generator, int], Any], dataset: Any,
                neighbour: Any, epsilon: float, seed: int, n_samples: int = 100_000,
                false_fail: float = FALSE_FAIL, delta: float = 0.0,
                what: str = "your mechanism", seconds: float = TIME_LIMIT) -> None:
    """The course's seeded audit of a continuous mechanism on one pair of neighbours.

    ``mechanism(data, rng, size)`` returns ``size`` outputs. The audit's lower bound on ε holds
    with probability ``1 - false_fail`` for any mechanism, so an (ε, δ)-DP mechanism fails this
    check with probability at most ``false_fail`` (10⁻⁶ by default); a mechanism whose true ε
    is well above the claim fails it.
    """
    from dpcourse.auditing import audit_epsilon

    def sampled(data: Any, rng: np.random.Generator, size: int) -> np.ndarray:
        out = call_as(what, mechanism, data, rng, size, seconds=seconds)
        try:
            out = np.asarray(out, dtype=float).reshape(-1)
        except (TypeError, ValueError):
            raise CheckFailed(f"{what} should return numbers, it returned {_short(out)}") \
                from None
        if out.shape != (size,):
            raise CheckFailed(f"{what} should return {size} outputs for size={size}, "
                              f"it returned {out.size}")
        if not np.all(np.isfinite(out)):
            raise CheckFailed(f"{what} returned NaN or infinite outputs")
        return out

    result = audit_epsilon(sampled, dataset, neighbour, np.random.default_rng(seed),
                           n_samples=n_samples, confidence=audit_confidence(false_fail),
                           delta=delta)
    if result.epsilon_lower_bound > epsilon:
        raise CheckFailed(
            f"{what} is not {epsilon:g}-DP: on two neighbouring inputs the event "
            f"'{result.event}' had frequencies {result.p_hat:.4f} and {result.q_hat:.4f}, "
            f"so its true ε is at least {result.epsilon_lower_bound:.3g} (a correct "
            f"mechanism fails this audit with probability below {false_fail:g})")


def check_noise_scale(mechanism: Callable[[Any, np.random.Generator, int], Any], data: Any,
                      expected_sd: float, seed: int, n_samples: int = 10_000,
                      what: str = "your mechanism", kurtosis: float = 6.0,
                      false_fail: float = FALSE_FAIL, seconds: float = TIME_LIMIT) -> None:
    """The spread of the outputs on one input is the reference's: catches too little noise
    (which the audit may miss at small sample sizes) and too much (which it cannot see).

    The sample standard deviation of ``n`` draws has relative standard error about
    :math:`\\sqrt{(\\kappa - 1) / (4n)}` (κ: the noise's kurtosis, 6 for Laplace, 3 for a
    Gaussian); the tolerance is that many standard errors that a correct mechanism lands
    outside it with probability about ``false_fail`` (normal approximation).
    """
    from statistics import NormalDist

    z = NormalDist().inv_cdf(1 - false_fail / 2)
    tolerance = z * math.sqrt((kurtosis - 1) / (4 * n_samples))
    out = np.asarray(call_as(what, mechanism, data, np.random.default_rng(seed), n_samples,
                             seconds=seconds), dtype=float)
    sd = float(np.std(out))
    if not abs(sd - expected_sd) <= tolerance * expected_sd:
        raise CheckFailed(f"{what}'s outputs have standard deviation {sd:.4g}, but a correct "
                          f"mechanism's is {expected_sd:.4g} (±{100 * tolerance:.0f}%): check "
                          "the noise scale")


def check_samples_follow(samples: Any, pmf: dict, what: str = "your sampler",
                         false_fail: float = FALSE_FAIL) -> None:
    """Samples of a discrete distribution against its exact ``pmf`` ({value: probability}).

    Every count (and the count of values outside ``pmf``'s keys, whose probability is
    ``1 - sum(pmf)``) must lie within its exact two-sided binomial interval at level
    ``false_fail / (number of bins)``: a correct sampler fails with probability at most
    ``false_fail`` (union bound). A value of probability 0 (not a key, and ``pmf`` summing to 1)
    fails at once. Another valid sampler passes; a floating-point approximation of an exact
    distribution, or the wrong distribution, fails when the sample is large enough to show it.
    """
    from scipy.stats import binom

    values = np.asarray(samples).reshape(-1)
    n = values.size
    if n == 0:
        raise CheckFailed(f"{what} returned no samples")
    probs = {k: float(v) for k, v in pmf.items()}
    rest = max(0.0, 1.0 - sum(probs.values()))
    uniq, counts = np.unique(values, return_counts=True)
    seen = dict(zip(uniq.tolist(), counts.tolist()))
    outside = sum(c for v, c in seen.items() if v not in probs)
    if outside and rest <= 1e-15:
        example = next(v for v in seen if v not in probs)
        raise CheckFailed(f"{what} returned {example!r}, a value the distribution never takes")
    bins = [(repr(k), seen.get(k, 0), p) for k, p in probs.items()] + [("other values",
                                                                        outside, rest)]
    alpha = false_fail / len(bins)
    for name, count, p in bins:
        low, high = binom.ppf(alpha / 2, n, p), binom.isf(alpha / 2, n, p)
        if not low <= count <= high:
            raise CheckFailed(
                f"{what} gave {name} {count} times in {n} samples; the exact distribution "
                f"gives it with probability {p:.4g}, so between {low:.0f} and {high:.0f} times "
                f"(a correct sampler lands outside with probability below {false_fail:g})")


def check_laplace_noise(samples: Any, center: float, scale: float,
                        what: str = "your mechanism", false_fail: float = FALSE_FAIL) -> None:
    """Outputs of a Laplace mechanism against Lap(``center``, ``scale``): the one-sample
    Kolmogorov-Smirnov test (:func:`scipy.stats.kstest`) at level ``false_fail``.

    The KS p-value of a correct mechanism is uniform on [0, 1], so a correct mechanism fails
    with probability ``false_fail`` (10⁻⁶ by default). It catches a release that is not centred
    on the true value, a wrong noise scale (too little or too much) and noise of another shape,
    once the sample is large enough: at 10⁻⁶ the largest gap between the two CDFs must exceed
    about 2.7/√n (3,000 samples: a scale off by a factor 2 or a shift of a quarter of the
    scale fails almost surely; a scale off by 20% needs about 15,000).
    """
    from scipy.stats import kstest

    values = np.asarray(samples, dtype=float).reshape(-1)
    if values.size == 0 or not np.all(np.isfinite(values)):
        raise CheckFailed(f"{what} returned no outputs, or NaN or infinite ones")
    result = kstest(values, "laplace", args=(center, scale))
    if not result.pvalue >= false_fail:
        median, spread = float(np.median(values)), float(np.mean(np.abs(values - center)))
        raise CheckFailed(
            f"{what}'s outputs do not follow the Laplace distribution centred on the true value "
            f"{center:.6g} with scale {scale:.4g}: their median is {median:.6g} and their mean "
            f"distance from the true value {spread:.4g} (it should be about {scale:.4g}); "
            f"Kolmogorov-Smirnov p-value {result.pvalue:.2g}, below {false_fail:g} (a correct "
            f"mechanism fails this test with probability {false_fail:g})")


def check_accountant(spent: Any, reference: float, what: str = "your accountant's total ε",
                     rel: float = 1e-9) -> None:
    """An accountant's total against the reference accountant's."""
    try:
        value = float(spent)
    except (TypeError, ValueError):
        raise CheckFailed(f"{what} should be a number, it is {_short(spent)}") from None
    if value < reference * (1 - rel):
        raise CheckFailed(f"{what} is {value:.6g}, below the true {reference:.6g}: the "
                          "accountant under-counts, so it would let you overspend")
    if value > reference * (1 + rel):
        raise CheckFailed(f"{what} is {value:.6g}, above the reference {reference:.6g}: "
                          "valid but looser than this accountant should be")


def _fraction_text(value: Fraction) -> str:
    return str(value) if value.denominator == 1 else f"{value} (= {float(value):g})"


def check_cost(charged: Any, exact: Any, bound: Any = None,
               what: str = "the privacy cost you charged") -> None:
    """A privacy cost, charged as an exact ``Fraction``, between ``exact`` and ``bound``.

    ``exact`` is the true cost (the smallest ε the release satisfies): a charge below it would
    let an analyst overspend. ``bound`` is the loosest upper bound the problem accepts (for
    instance the factor 2 of replace-one neighbours); any charge from ``exact`` to ``bound`` is a
    correct bound and passes. ``bound=None`` accepts the exact cost only.
    """
    exact = Fraction(exact)
    bound = exact if bound is None else Fraction(bound)
    accepted = "" if bound == exact else f" (up to {_fraction_text(bound)} is accepted)"
    if not isinstance(charged, Fraction):
        raise CheckFailed(f"{what} is {_short(charged)}, not an exact Fraction: the cost is "
                          f"{_fraction_text(exact)}{accepted}")
    if charged < exact:
        raise CheckFailed(f"{what} is {_fraction_text(charged)}, less than the true cost "
                          f"{_fraction_text(exact)}: an accountant using it would let the "
                          "analyst overspend")
    if charged > bound:
        looser = ("" if bound == exact else
                  f"; the loosest bound accepted is {_fraction_text(bound)}")
        raise CheckFailed(f"{what} is {_fraction_text(charged)}, more than the true cost "
                          f"{_fraction_text(exact)}{looser}")


# ---------------------------------------------------------------- data beside the notebook

_ADULT: dict[str, Any] = {}


def load_adult() -> Any:
    """UCI Adult with the course's synthetic PII, from ``data/`` beside the notebook (read once;
    each call returns a copy)."""
    import pandas as pd
    from pathlib import Path

    path = Path("data") / "adult_with_pii.csv"
    key = str(path.resolve())
    if key in _ADULT:
        return _ADULT[key].copy()
    if not path.exists():
        raise FileNotFoundError(f"{path.resolve()} not found: open the notebook from its "
                                "assignment folder, which holds data/")
    text = {c: "str" for c in ("name", "dob", "ssn", "zip", "workclass", "education",
                               "marital_status", "occupation", "relationship", "race", "sex",
                               "native_country", "income")}
    _ADULT[key] = pd.read_csv(path, dtype=text, keep_default_na=False,
                              na_values={c: [""] for c in text})
    return _ADULT[key].copy()


# ---------------------------------------------------------------- feedback in a notebook

def _show_in_words(shell: Any, etype: type, value: BaseException, tb: Any,
                   tb_offset: Any = None) -> list[str]:
    """IPython's handler for :class:`CheckFailed`: show the exception's line, no traceback.

    IPython (9.x) shows nothing itself after a custom handler, so the handler displays the
    error through IPython's public ``showtraceback(exception_only=True)``: the cell gets an
    error output (nbgrader scores it 0) that reads "CheckFailed: <the sentence>".
    """
    if shell is not None:
        shell.showtraceback((etype, value, tb), exception_only=True)
    return []


def _install() -> None:
    try:
        shell = get_ipython()  # type: ignore[name-defined]  # noqa: F821
    except NameError:
        return
    if shell is not None:
        shell.set_custom_exc((CheckFailed,), _show_in_words)


_install()

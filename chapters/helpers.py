"""Shared code for the course *Differential Privacy by Running Code*.

Every chapter imports this module. It holds only what two or more chapters use:

* data loading: :func:`load_adult`, :func:`load_health`;
* randomness: :func:`make_rng`, the seeded generator every notebook passes around;
* mechanisms: :func:`laplace_mechanism`, :func:`randomized_response` (with
  :func:`randomized_response_keep_probability` and :func:`estimate_proportion`),
  :func:`discrete_laplace_noise`, and :func:`differencing_attack_success` (the Igor attack
  under Laplace noise);
* what ε means: :func:`hypothesis_test_bound`, the best any attacker can do;
* anonymity measures: :func:`k_anonymity`, :func:`l_diversity`;
* bookkeeping: :class:`PrivacyAccountant` and :class:`BudgetExceededError`;
* testing mechanisms: :func:`audit_epsilon`.

Every public function validates its inputs and raises :class:`ValueError` or
:class:`TypeError` with a message that names the offending parameter.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "DATA_DIR",
    "AuditResult",
    "BudgetExceededError",
    "PrivacyAccountant",
    "audit_epsilon",
    "differencing_attack_success",
    "discrete_laplace_noise",
    "estimate_proportion",
    "hypothesis_test_bound",
    "k_anonymity",
    "l_diversity",
    "laplace_mechanism",
    "load_adult",
    "load_health",
    "make_rng",
    "randomized_response",
    "randomized_response_keep_probability",
]

# One place for display settings, so that stored notebook outputs do not depend on the
# reader's defaults (nbval compares the printed tables).
pd.set_option("display.width", 100)
pd.set_option("display.max_columns", 20)
pd.set_option("display.max_rows", 30)
pd.set_option("display.precision", 4)

#: Folder holding the course's CSV files: ``data/`` beside ``chapters/``.
DATA_DIR = Path(__file__).resolve().parent.parent / "data"

#: The seed every chapter uses unless it says otherwise.
DEFAULT_SEED = 42

_ADULT_DTYPES = {
    "name": "str", "dob": "str", "ssn": "str", "zip": "str", "age": "int64",
    "workclass": "str", "fnlwgt": "int64", "education": "str", "education_num": "int64",
    "marital_status": "str", "occupation": "str", "relationship": "str", "race": "str",
    "sex": "str", "capital_gain": "int64", "capital_loss": "int64",
    "hours_per_week": "int64", "native_country": "str", "income": "str",
}
_HEALTH_DTYPES = {
    "name": "str", "ssn": "str", "dob": "str", "marital_status": "str", "sex": "str",
    "zip": "str", "ethnicity": "str", "problem": "str",
}


# --------------------------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------------------------
def _check_real(value: Any, name: str) -> float:
    """Return ``value`` as a finite float, or raise naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}")
    return value


def _check_epsilon(epsilon: Any, name: str = "epsilon") -> float:
    epsilon = _check_real(epsilon, name)
    if epsilon <= 0:
        raise ValueError(f"{name} must be > 0, got {epsilon}")
    return epsilon


def _check_generator(rng: Any) -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):
        raise TypeError(
            f"rng must be a numpy.random.Generator (use helpers.make_rng), got {type(rng).__name__}"
        )
    return rng


def _check_columns(df: Any, columns: str | Sequence[str], name: str) -> list[str]:
    """Check ``df`` is a non-empty DataFrame holding every column in ``columns``."""
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"df must be a pandas DataFrame, got {type(df).__name__}")
    if df.empty:
        raise ValueError("df must not be empty")
    cols = [columns] if isinstance(columns, str) else list(columns)
    if not cols:
        raise ValueError(f"{name} must name at least one column")
    missing = [c for c in cols if c not in df.columns]
    if missing:
        raise ValueError(f"{name}: column(s) {missing} not in df (columns: {list(df.columns)})")
    return cols


# --------------------------------------------------------------------------------------------
# Data and randomness
# --------------------------------------------------------------------------------------------
def make_rng(seed: int = DEFAULT_SEED) -> np.random.Generator:
    """Return the seeded random generator that a chapter passes to every random function.

    Parameters
    ----------
    seed : int, default 42
        A non-negative integer. The same seed gives the same stream on every machine.

    Returns
    -------
    numpy.random.Generator
        A PCG64 generator.

    Examples
    --------
    >>> rng = make_rng(7)
    >>> float(rng.random()) == float(make_rng(7).random())
    True
    """
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"seed must be an integer, got {type(seed).__name__}")
    if seed < 0:
        raise ValueError(f"seed must be >= 0, got {seed}")
    return np.random.default_rng(int(seed))


def _read_csv(filename: str, dtypes: dict[str, str]) -> pd.DataFrame:
    path = DATA_DIR / filename
    if not path.exists():
        raise FileNotFoundError(
            f"{path} not found. The notebooks need the course's data/ folder beside chapters/: "
            "download the whole course archive (or clone the repository) rather than one notebook."
        )
    return pd.read_csv(path, dtype=dtypes, keep_default_na=False, na_values={
        col: [""] for col, dtype in dtypes.items() if dtype == "str"
    })


def load_adult() -> pd.DataFrame:
    """Load UCI Adult (all 32,561 training rows) with synthetic PII columns.

    ``name``, ``dob``, ``ssn`` and ``zip`` are synthetic (see ``data/README.md``); every other
    column is the real census value. Missing values (``?`` in the original file) are ``NaN``.

    Returns
    -------
    pandas.DataFrame
        One row per person; ``zip`` and ``ssn`` are strings, counts are ``int64``.
    """
    return _read_csv("adult_with_pii.csv", _ADULT_DTYPES)


def load_health() -> pd.DataFrame:
    """Load the 10-patient health table of the differencing-attack example.

    Igor, the attack's target, is index 9. ``name``, ``ssn`` and ``dob`` are synthetic.

    Returns
    -------
    pandas.DataFrame
        Columns ``name, ssn, dob, marital_status, sex, zip, ethnicity, problem``; all strings.
    """
    return _read_csv("health.csv", _HEALTH_DTYPES)


# --------------------------------------------------------------------------------------------
# Mechanisms
# --------------------------------------------------------------------------------------------
def laplace_mechanism(
    value: float | Sequence[float] | np.ndarray,
    sensitivity: float,
    epsilon: float,
    rng: np.random.Generator,
) -> float | np.ndarray:
    r"""Release ``value + Lap(sensitivity / epsilon)``, the Laplace mechanism.

    If ``value`` is the true answer :math:`f(D)` of a query with global L1 sensitivity
    ``sensitivity`` (:math:`\Delta f`), the release is ``epsilon``-differentially private under
    the neighbour relation for which :math:`\Delta f` was computed (in exact arithmetic; see
    the floating-point chapter).

    Parameters
    ----------
    value : float or array_like of float
        The true answer. For a vector, independent noise of the same scale is added to every
        coordinate, and ``sensitivity`` must be the L1 sensitivity of the whole vector.
    sensitivity : float
        Global L1 sensitivity, ``>= 0``.
    epsilon : float
        Privacy parameter, ``> 0``.
    rng : numpy.random.Generator
        Source of randomness (see :func:`make_rng`).

    Returns
    -------
    float or numpy.ndarray
        A float for a scalar ``value``, otherwise an array of the same shape.

    Raises
    ------
    ValueError
        If ``epsilon <= 0``, ``sensitivity < 0``, or any of them (or ``value``) is not finite.
    TypeError
        If an argument has the wrong type.

    Examples
    --------
    >>> noisy = laplace_mechanism(100, sensitivity=1, epsilon=0.5, rng=make_rng(0))
    >>> isinstance(noisy, float)
    True
    """
    sensitivity = _check_real(sensitivity, "sensitivity")
    if sensitivity < 0:
        raise ValueError(f"sensitivity must be >= 0, got {sensitivity}")
    epsilon = _check_epsilon(epsilon)
    rng = _check_generator(rng)
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as err:
        raise TypeError(f"value must be a number or an array of numbers: {err}") from None
    if arr.size == 0:
        raise ValueError("value must not be empty")
    if not np.all(np.isfinite(arr)):
        raise ValueError("value must be finite (no NaN or infinity)")
    noisy = arr + rng.laplace(loc=0.0, scale=sensitivity / epsilon, size=arr.shape)
    return float(noisy) if noisy.ndim == 0 else noisy


def hypothesis_test_bound(epsilon: float | Sequence[float] | np.ndarray) -> float | np.ndarray:
    r"""Highest success probability of any test telling two neighbours apart: e^ε / (1 + e^ε).

    If a mechanism is ``epsilon``-DP, an attacker who must guess which of two neighbouring
    datasets produced its output, each a priori equally likely, is right with probability at
    most :math:`e^\varepsilon / (1 + e^\varepsilon)`, whatever test they use. ``epsilon = 0``
    gives 1/2: a coin flip.

    Parameters
    ----------
    epsilon : float or array_like of float
        Privacy parameter(s), each finite and ``>= 0``.

    Returns
    -------
    float or numpy.ndarray
        A float for a scalar ``epsilon``, otherwise an array of the same shape.

    Examples
    --------
    >>> hypothesis_test_bound(0.0)
    0.5
    >>> round(hypothesis_test_bound(0.1), 4)
    0.525
    """
    if isinstance(epsilon, (bool, str, bytes)):
        raise TypeError(f"epsilon must be a number or an array of numbers, got {epsilon!r}")
    try:
        eps = np.asarray(epsilon, dtype=float)
    except (TypeError, ValueError) as err:
        raise TypeError(f"epsilon must be a number or an array of numbers: {err}") from None
    if eps.size == 0:
        raise TypeError("epsilon must be a non-empty number or array of numbers")
    if not np.all(np.isfinite(eps)):
        raise ValueError("epsilon must be finite (no NaN or infinity)")
    if np.any(eps < 0):
        raise ValueError("epsilon must be >= 0")
    bound = 1.0 / (1.0 + np.exp(-eps))
    return float(bound) if bound.ndim == 0 else bound


def randomized_response_keep_probability(epsilon: float) -> float:
    r"""Probability that randomized response reports the true bit, for exactly ``epsilon``-DP.

    Answering truthfully with probability :math:`\alpha` and otherwise with a fair coin keeps
    the true bit with probability :math:`(1+\alpha)/2`. The mechanism is exactly
    :math:`\ln\frac{1+\alpha}{1-\alpha}`-DP, so :math:`\alpha = \tanh(\varepsilon/2)` and the
    keep probability is :math:`e^\varepsilon / (1 + e^\varepsilon)`.

    Parameters
    ----------
    epsilon : float
        Privacy parameter, ``> 0``.

    Returns
    -------
    float
        A probability in (1/2, 1).
    """
    epsilon = _check_epsilon(epsilon)
    return 1.0 / (1.0 + math.exp(-epsilon))


def _check_bits(bits: Any, name: str) -> np.ndarray:
    arr = np.asarray(bits)
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold 0/1 or booleans, got dtype {arr.dtype}")
    if not np.all((arr == 0) | (arr == 1)):
        raise ValueError(f"{name} must hold only 0/1 (or booleans)")
    return arr.astype(np.int64)


def randomized_response(
    bits: Sequence[int] | np.ndarray, epsilon: float, rng: np.random.Generator
) -> np.ndarray:
    """Randomized response (Warner 1965), applied independently to every bit.

    Each bit is reported truthfully with probability
    :func:`randomized_response_keep_probability` ``(epsilon)`` and flipped otherwise, which makes
    each person's report exactly ``epsilon``-DP (local model: each person randomises their own
    bit, so neighbouring inputs differ in that one bit).

    Parameters
    ----------
    bits : array_like of {0, 1} or bool
        The true answers, one per person.
    epsilon : float
        Privacy parameter, ``> 0``.
    rng : numpy.random.Generator
        Source of randomness.

    Returns
    -------
    numpy.ndarray of int64
        The reported bits, same shape as ``bits``.
    """
    arr = _check_bits(bits, "bits")
    keep = randomized_response_keep_probability(epsilon)
    rng = _check_generator(rng)
    flip = rng.random(arr.shape) >= keep
    return np.where(flip, 1 - arr, arr)


def estimate_proportion(responses: Sequence[int] | np.ndarray, epsilon: float) -> float:
    r"""Unbiased estimate of the true share of 1s from randomized-response reports.

    With keep probability :math:`p`, a report is 1 with probability
    :math:`p\pi + (1-p)(1-\pi)`, where :math:`\pi` is the true share. Solving gives the
    unbiased estimator :math:`\hat\pi = (\bar y - (1 - p)) / (2p - 1)`. It can fall outside
    [0, 1]; clipping it is post-processing (free) but adds bias.

    Parameters
    ----------
    responses : array_like of {0, 1}
        Reports from :func:`randomized_response` run with the same ``epsilon``.
    epsilon : float
        The ``epsilon`` the reports were produced with, ``> 0``.

    Returns
    -------
    float
        The estimate of the true proportion (not clipped).
    """
    arr = _check_bits(responses, "responses")
    keep = randomized_response_keep_probability(epsilon)
    return float((arr.mean() - (1.0 - keep)) / (2.0 * keep - 1.0))


def _check_scale_fraction(scale: Any) -> Fraction:
    if isinstance(scale, bool) or not isinstance(scale, (numbers.Real, str)):
        raise TypeError(f"scale must be a number, Fraction or numeric string, got {type(scale).__name__}")
    if isinstance(scale, float) and not math.isfinite(scale):
        raise ValueError(f"scale must be finite, got {scale}")
    try:
        # str() of a float gives its shortest decimal, so 0.1 means exactly 1/10
        frac = Fraction(str(scale)) if isinstance(scale, (float, str)) else Fraction(scale)
    except (ValueError, ZeroDivisionError) as err:
        raise ValueError(f"scale must be a finite number: {err}") from None
    if frac <= 0:
        raise ValueError(f"scale must be > 0, got {scale}")
    return frac


def _bernoulli_fraction(p: Fraction, rng: np.random.Generator) -> bool:
    """Exact Bernoulli(p) for a rational p in [0, 1] using only uniform integers."""
    return int(rng.integers(0, p.denominator)) < p.numerator


def _bernoulli_exp_minus(gamma: Fraction, rng: np.random.Generator) -> bool:
    """Exact Bernoulli(exp(-gamma)) for rational gamma >= 0 (Canonne, Kamath, Steinke 2020)."""
    while gamma > 1:  # exp(-gamma) = exp(-1)^floor(gamma) * exp(-(gamma - floor(gamma)))
        if not _bernoulli_exp_minus(Fraction(1), rng):
            return False
        gamma -= 1
    k = 1
    while _bernoulli_fraction(gamma / k, rng):
        k += 1
    return k % 2 == 1


def _discrete_laplace_one(scale: Fraction, rng: np.random.Generator) -> int:
    t, s = scale.numerator, scale.denominator  # scale = t / s
    while True:
        u = int(rng.integers(0, t))
        if not _bernoulli_exp_minus(Fraction(u, t), rng):
            continue
        v = 0
        while _bernoulli_exp_minus(Fraction(1), rng):
            v += 1
        y = (u + t * v) // s
        negative = bool(rng.integers(0, 2))
        if negative and y == 0:
            continue
        return -y if negative else y


def discrete_laplace_noise(
    scale: float | Fraction | str, rng: np.random.Generator, size: int | None = None
) -> int | np.ndarray:
    r"""Exact samples from the discrete Laplace distribution with the given ``scale``.

    :math:`\Pr[Y = y] = \frac{e^{1/t} - 1}{e^{1/t} + 1}\, e^{-|y|/t}` for every integer
    :math:`y`, where :math:`t` is ``scale``. The sampler of Canonne, Kamath and Steinke (2020)
    uses only exact rational arithmetic and uniform integers, so no floating-point rounding
    leaks the input. Adding it to an integer query of sensitivity :math:`\Delta` with
    ``scale = Δ/ε`` is ``ε``-DP.

    Parameters
    ----------
    scale : float, fractions.Fraction or str
        Scale :math:`t > 0`. Floats are read through their shortest decimal (``0.1`` means
        exactly 1/10), so pass a :class:`~fractions.Fraction` for other rationals.
    rng : numpy.random.Generator
        Source of uniform integers.
    size : int, optional
        Number of samples; ``None`` returns one Python ``int``.

    Returns
    -------
    int or numpy.ndarray of int64
    """
    frac = _check_scale_fraction(scale)
    rng = _check_generator(rng)
    if size is None:
        return _discrete_laplace_one(frac, rng)
    if isinstance(size, bool) or not isinstance(size, numbers.Integral):
        raise TypeError(f"size must be an integer or None, got {type(size).__name__}")
    if size < 0:
        raise ValueError(f"size must be >= 0, got {size}")
    return np.array([_discrete_laplace_one(frac, rng) for _ in range(int(size))], dtype=np.int64)


def differencing_attack_success(
    epsilon: float,
    rng: np.random.Generator,
    n_trials: int = 100_000,
    n_repeats: int = 1,
) -> float:
    """Monte Carlo success rate of the differencing attack on Igor under Laplace noise.

    The attacker asks two counts of the health table: ``q1`` = patients with obesity, and
    ``q2`` = patients with obesity who are not White males (this excludes Igor, index 9).
    Each count is released ``n_repeats`` times with fresh ``Lap(1/epsilon)`` noise; the attacker
    averages each count's answers and guesses "Igor is obese" when the averages differ by more
    than 1/2. Half of the trials use the real table (Igor obese), half its replace-one
    neighbour in which Igor has another problem, so a coin flip scores 1/2.

    Every answer to ``q1`` is ``epsilon``-DP; ``q2`` does not depend on Igor's row. By
    sequential composition the attacker's view is ``n_repeats * epsilon``-DP with respect to
    Igor's row, so no test can succeed with probability above
    ``exp(n_repeats*epsilon) / (1 + exp(n_repeats*epsilon))``.

    Parameters
    ----------
    epsilon : float
        Privacy parameter of each single answer, ``> 0``.
    rng : numpy.random.Generator
        Source of the noise.
    n_trials : int, default 100_000
        Simulated attacks (``>= 2``).
    n_repeats : int, default 1
        How often each count is asked (``>= 1``).

    Returns
    -------
    float
        The share of trials in which the attacker guessed right.
    """
    epsilon = _check_epsilon(epsilon)
    rng = _check_generator(rng)
    for name, val, low in (("n_trials", n_trials, 2), ("n_repeats", n_repeats, 1)):
        if isinstance(val, bool) or not isinstance(val, numbers.Integral):
            raise TypeError(f"{name} must be an integer, got {type(val).__name__}")
        if val < low:
            raise ValueError(f"{name} must be >= {low}, got {val}")
    health = load_health()
    obese = health["problem"] == "Obesity"
    white_male = (health["ethnicity"] == "White") & (health["sex"] == "Male")
    q2_true = int((obese & ~white_male).sum())            # same in both worlds
    q1_obese = int(obese.sum())                           # real table: Igor is obese
    q1_not = q1_obese - int((obese & white_male).sum())   # neighbour: Igor is not
    igor_obese = np.arange(n_trials) % 2 == 0
    q1_true = np.where(igor_obese, q1_obese, q1_not).astype(float)
    # the mean of n_repeats answers, built in chunks to bound memory
    chunk = max(1, 4_000_000 // n_repeats)
    diff = np.empty(n_trials)
    for start in range(0, n_trials, chunk):
        stop = min(start + chunk, n_trials)
        q1 = laplace_mechanism(np.repeat(q1_true[start:stop, None], n_repeats, axis=1),
                               1.0, epsilon, rng).mean(axis=1)
        q2 = laplace_mechanism(np.full((stop - start, n_repeats), float(q2_true)),
                               1.0, epsilon, rng).mean(axis=1)
        diff[start:stop] = q1 - q2
    guess_obese = diff > 0.5
    return float(np.mean(guess_obese == igor_obese))


# --------------------------------------------------------------------------------------------
# Anonymity measures
# --------------------------------------------------------------------------------------------
def k_anonymity(df: pd.DataFrame, quasi_identifiers: str | Sequence[str]) -> int:
    """Size of the smallest equivalence class: the ``k`` for which ``df`` is k-anonymous.

    An equivalence class is a set of rows that agree on every quasi-identifier. Missing values
    count as a value of their own (two rows with a missing ``workclass`` agree on it).

    Parameters
    ----------
    df : pandas.DataFrame
        The released table (non-empty).
    quasi_identifiers : str or sequence of str
        Columns an attacker could know from other sources.

    Returns
    -------
    int
        ``k >= 1``. A value of 1 means at least one row is unique on the quasi-identifiers.

    Examples
    --------
    >>> table = pd.DataFrame({"zip": ["021", "021", "022"], "sex": ["F", "F", "M"]})
    >>> k_anonymity(table, ["zip", "sex"])
    1
    """
    cols = _check_columns(df, quasi_identifiers, "quasi_identifiers")
    return int(df.groupby(cols, dropna=False, sort=False, observed=True).size().min())


def l_diversity(
    df: pd.DataFrame, quasi_identifiers: str | Sequence[str], sensitive: str
) -> int:
    """Distinct l-diversity: the fewest distinct sensitive values in any equivalence class.

    Parameters
    ----------
    df : pandas.DataFrame
        The released table (non-empty).
    quasi_identifiers : str or sequence of str
        Columns that define the equivalence classes.
    sensitive : str
        The sensitive column; it must not be one of the quasi-identifiers.

    Returns
    -------
    int
        ``l >= 1``. A value of 1 means some class reveals its sensitive value to anyone who
        can place a person in it (a homogeneity attack).

    Examples
    --------
    >>> table = pd.DataFrame({"zip": ["021", "021", "022", "022"],
    ...                       "disease": ["flu", "flu", "flu", "cold"]})
    >>> l_diversity(table, ["zip"], "disease")
    1
    """
    cols = _check_columns(df, quasi_identifiers, "quasi_identifiers")
    if not isinstance(sensitive, str):
        raise TypeError(f"sensitive must be a column name (str), got {type(sensitive).__name__}")
    _check_columns(df, [sensitive], "sensitive")
    if sensitive in cols:
        raise ValueError(f"sensitive column {sensitive!r} must not be a quasi-identifier")
    groups = df.groupby(cols, dropna=False, sort=False, observed=True)[sensitive]
    return int(groups.nunique(dropna=False).min())


# --------------------------------------------------------------------------------------------
# Privacy budget
# --------------------------------------------------------------------------------------------
class BudgetExceededError(RuntimeError):
    """Raised by :class:`PrivacyAccountant` when a spend would exceed the total budget."""


def _exact(epsilon: Any, name: str) -> Fraction:
    """An epsilon as an exact fraction: 0.3 means 3/10, not the double nearest to it."""
    return Fraction(str(_check_epsilon(epsilon, name)))


class PrivacyAccountant:
    """Track an ε budget under sequential composition, refusing any spend that would exceed it.

    Amounts are kept as exact fractions of their decimal forms, so three spends of 0.3 out of
    1.0 leave exactly 0.1 (with floats, 1.0 - 0.3 - 0.3 - 0.3 is 0.09999999999999998).

    Parameters
    ----------
    total_epsilon : float
        The whole budget, ``> 0``.

    Examples
    --------
    >>> acc = PrivacyAccountant(1.0)
    >>> for _ in range(3):
    ...     acc.spend(0.3)
    >>> acc.remaining
    0.1
    >>> acc.spend(0.2)
    Traceback (most recent call last):
    ...
    helpers.BudgetExceededError: spending 0.2 would exceed the budget: 0.1 of 1.0 remains
    """

    def __init__(self, total_epsilon: float) -> None:
        self._total = _exact(total_epsilon, "total_epsilon")
        self._spent = Fraction(0)
        self.ledger: list[tuple[str, float]] = []

    @property
    def total(self) -> float:
        """The whole budget."""
        return float(self._total)

    @property
    def spent(self) -> float:
        """The sum of all accepted spends."""
        return float(self._spent)

    @property
    def remaining(self) -> float:
        """``total - spent``, computed exactly, then rounded once to a float."""
        return float(self._total - self._spent)

    @property
    def remaining_exact(self) -> Fraction:
        """``total - spent`` as an exact fraction."""
        return self._total - self._spent

    def _charge(self, amount: Fraction, label: str, shown: float) -> None:
        if not isinstance(label, str):
            raise TypeError(f"label must be a string, got {type(label).__name__}")
        if self._spent + amount > self._total:
            raise BudgetExceededError(
                f"spending {shown} would exceed the budget: "
                f"{float(self._total - self._spent)} of {float(self._total)} remains"
            )
        self._spent += amount
        self.ledger.append((label, float(amount)))

    def spend(self, epsilon: float, label: str = "query") -> None:
        """Charge one ``epsilon``-DP release (sequential composition: the ε's add).

        Call it *before* touching the data; if it raises, nothing was charged.

        Parameters
        ----------
        epsilon : float
            Cost of the release, ``> 0``.
        label : str, default "query"
            Name recorded in :attr:`ledger`.

        Raises
        ------
        BudgetExceededError
            If ``spent + epsilon`` would exceed the total; the state is left unchanged.
        """
        amount = _exact(epsilon, "epsilon")
        self._charge(amount, label, float(amount))

    def spend_parallel(self, epsilons: Sequence[float], label: str = "parallel queries") -> None:
        """Charge releases on disjoint parts of the data: the cost is the largest ε.

        Parallel composition holds for add/remove neighbours when the partition into parts
        does not depend on the data (for example, fixed histogram bins): one person changes
        at most one part.

        Parameters
        ----------
        epsilons : sequence of float
            The ε of each part's release, each ``> 0``.
        label : str
            Name recorded in :attr:`ledger`.
        """
        if isinstance(epsilons, (str, bytes)) or not isinstance(epsilons, Sequence):
            raise TypeError("epsilons must be a sequence of numbers")
        if len(epsilons) == 0:
            raise ValueError("epsilons must not be empty")
        amount = max(_exact(e, "epsilons") for e in epsilons)
        self._charge(amount, label, float(amount))

    def __repr__(self) -> str:
        return (f"PrivacyAccountant(total={self.total}, spent={self.spent}, "
                f"remaining={self.remaining})")


# --------------------------------------------------------------------------------------------
# Auditing
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class AuditResult:
    """Outcome of :func:`audit_epsilon`.

    Attributes
    ----------
    epsilon_lower_bound : float
        With probability at least ``confidence``, the mechanism's true ε is at least this.
        ``0.0`` when no event gives evidence of any privacy loss.
    event : str
        The output event S that gave the bound, e.g. ``"output >= 2.31"``.
    p_hat, q_hat : float
        Observed frequencies of the event on the two datasets (test half of the samples).
    n_samples : int
        Samples drawn on each dataset.
    confidence : float
        Confidence level of the bound.
    """

    epsilon_lower_bound: float
    event: str
    p_hat: float
    q_hat: float
    n_samples: int
    confidence: float


def _clopper_pearson(k: np.ndarray, n: int, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """One-sided (1 - alpha) Clopper-Pearson lower and upper bounds for k successes in n."""
    from scipy.stats import beta

    k = np.asarray(k, dtype=float)
    lower = np.where(k > 0, beta.ppf(alpha, k, n - k + 1), 0.0)
    upper = np.where(k < n, beta.ppf(1 - alpha, k + 1, n - k), 1.0)
    return lower, upper


def audit_epsilon(
    mechanism: Callable[[Any, np.random.Generator, int], np.ndarray],
    dataset: Any,
    neighbour: Any,
    rng: np.random.Generator,
    n_samples: int = 200_000,
    confidence: float = 0.95,
    n_thresholds: int = 200,
) -> AuditResult:
    r"""Statistical lower bound on the ε of a mechanism with real (or integer) outputs.

    Draws ``n_samples`` outputs on ``dataset`` and on ``neighbour``. The first half of each
    sample picks the most revealing threshold event :math:`S` (``output >= c`` or
    ``output < c``, in either direction); the second half, untouched by that choice, estimates
    :math:`p = \Pr[M(D) \in S]` and :math:`q = \Pr[M(D') \in S]` with Clopper-Pearson bounds.
    The result :math:`\ln(p_{\text{low}} / q_{\text{high}})` is a lower bound on ε that holds
    with probability at least ``confidence``: a claimed ε below it is refuted. An audit can
    only catch violations; passing it proves nothing.

    Parameters
    ----------
    mechanism : callable
        ``mechanism(data, rng, size)`` returns ``size`` independent outputs on ``data`` as a
        1-D array.
    dataset, neighbour : Any
        Two neighbouring datasets, in whatever form ``mechanism`` accepts.
    rng : numpy.random.Generator
        Passed to ``mechanism``.
    n_samples : int, default 200_000
        Outputs drawn per dataset (``>= 100``).
    confidence : float, default 0.95
        In (0, 1).
    n_thresholds : int, default 200
        Candidate thresholds, placed at quantiles of the pooled selection half (``>= 1``).

    Returns
    -------
    AuditResult
    """
    if not callable(mechanism):
        raise TypeError("mechanism must be callable as mechanism(data, rng, size)")
    rng = _check_generator(rng)
    if isinstance(n_samples, bool) or not isinstance(n_samples, numbers.Integral):
        raise TypeError(f"n_samples must be an integer, got {type(n_samples).__name__}")
    if n_samples < 100:
        raise ValueError(f"n_samples must be >= 100, got {n_samples}")
    confidence = _check_real(confidence, "confidence")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    if isinstance(n_thresholds, bool) or not isinstance(n_thresholds, numbers.Integral):
        raise TypeError(f"n_thresholds must be an integer, got {type(n_thresholds).__name__}")
    if n_thresholds < 1:
        raise ValueError(f"n_thresholds must be >= 1, got {n_thresholds}")

    samples = []
    for data in (dataset, neighbour):
        out = np.asarray(mechanism(data, rng, int(n_samples)), dtype=float)
        if out.shape != (n_samples,):
            raise ValueError(f"mechanism must return shape ({n_samples},), got {out.shape}")
        if not np.all(np.isfinite(out)):
            raise ValueError("mechanism returned NaN or infinite outputs")
        samples.append(out)
    half = n_samples // 2
    select = [np.sort(s[:half]) for s in samples]
    test = [np.sort(s[half:]) for s in samples]
    n_test = n_samples - half

    pooled = np.concatenate(select)
    thresholds = np.unique(np.quantile(pooled, np.linspace(0, 1, n_thresholds + 2)[1:-1]))

    def frac_at_least(sorted_sample: np.ndarray, c: np.ndarray) -> np.ndarray:
        return 1.0 - np.searchsorted(sorted_sample, c, side="left") / len(sorted_sample)

    # events: (dataset index with the larger probability, "ge" or "lt", threshold)
    ge = [frac_at_least(s, thresholds) for s in select]
    candidates = []
    for big, small in ((0, 1), (1, 0)):
        for kind, pb, ps in (("ge", ge[big], ge[small]), ("lt", 1 - ge[big], 1 - ge[small])):
            # pseudo-counts keep the selection stable when an event is empty on one side
            score = np.log((pb * half + 1) / (ps * half + 1))
            i = int(np.argmax(score))
            candidates.append((score[i], big, small, kind, thresholds[i]))
    _, big, small, kind, c = max(candidates, key=lambda t: t[0])

    def count(sorted_sample: np.ndarray) -> int:
        n_ge = len(sorted_sample) - int(np.searchsorted(sorted_sample, c, side="left"))
        return n_ge if kind == "ge" else len(sorted_sample) - n_ge

    k_big, k_small = count(test[big]), count(test[small])
    alpha = (1 - confidence) / 2  # Bonferroni over the two one-sided bounds
    p_low, _ = _clopper_pearson(np.array([k_big]), n_test, alpha)
    _, q_high = _clopper_pearson(np.array([k_small]), n_test, alpha)
    bound = float(np.log(p_low[0] / q_high[0])) if p_low[0] > 0 else 0.0
    where = "dataset" if big == 0 else "neighbour"
    event = f"output {'>=' if kind == 'ge' else '<'} {c:.6g} (more likely on the {where})"
    return AuditResult(
        epsilon_lower_bound=max(bound, 0.0),
        event=event,
        p_hat=k_big / n_test,
        q_hat=k_small / n_test,
        n_samples=int(n_samples),
        confidence=confidence,
    )

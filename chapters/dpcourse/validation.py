"""Input checks shared by every public function of the course.

Each check returns the cleaned value or raises :class:`TypeError` (wrong kind of object) or
:class:`ValueError` (right kind, bad value) with a message that names the parameter.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

#: Package-internal: every module imports these checks; ``helpers`` re-exports none of them.
__all__: list[str] = []


def check_real(value: Any, name: str) -> float:
    """Return ``value`` as a finite float, or raise naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}")
    return value


def check_positive(value: Any, name: str) -> float:
    """Return ``value`` as a finite float ``> 0``."""
    value = check_real(value, name)
    if value <= 0:
        raise ValueError(f"{name} must be > 0, got {value}")
    return value


def check_epsilon(epsilon: Any, name: str = "epsilon") -> float:
    """A privacy parameter ε: finite and ``> 0``."""
    return check_positive(epsilon, name)


def check_nonnegative(value: Any, name: str) -> float:
    """Return ``value`` as a finite float ``>= 0``."""
    value = check_real(value, name)
    if value < 0:
        raise ValueError(f"{name} must be >= 0, got {value}")
    return value


def check_delta(delta: Any, name: str = "delta") -> float:
    """A δ of approximate DP: strictly between 0 and 1."""
    delta = check_real(delta, name)
    if not 0 < delta < 1:
        raise ValueError(f"{name} must be in (0, 1), got {delta}")
    return delta


def check_integer(value: Any, name: str, minimum: int | None = None) -> int:
    """Return ``value`` as an ``int`` (bools refused), optionally ``>= minimum``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    value = int(value)
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return value


def check_array(value: Any, name: str) -> np.ndarray:
    """Return ``value`` as a non-empty float array with no NaN or infinity."""
    if value is None or isinstance(value, (bool, str, bytes)):
        raise TypeError(f"{name} must be a number or an array of numbers, got {value!r}")
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as err:
        raise TypeError(f"{name} must be a number or an array of numbers: {err}") from None
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite (no NaN or infinity)")
    return arr


def check_bits(bits: Any, name: str) -> np.ndarray:
    """Return a non-empty 0/1 (or boolean) array as ``int64``."""
    arr = np.asarray(bits)
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold 0/1 or booleans, got dtype {arr.dtype}")
    if not np.all((arr == 0) | (arr == 1)):
        raise ValueError(f"{name} must hold only 0/1 (or booleans)")
    return arr.astype(np.int64)


def check_generator(rng: Any) -> np.random.Generator:
    """A seeded ``numpy.random.Generator`` (see :func:`dpcourse.randomness.make_rng`)."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(
            f"rng must be a numpy.random.Generator (use helpers.make_rng), got {type(rng).__name__}"
        )
    return rng


def as_scalar_or_array(arr: np.ndarray) -> float | np.ndarray:
    """A Python float for a 0-d result, the array otherwise."""
    return float(arr) if arr.ndim == 0 else arr

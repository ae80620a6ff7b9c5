"""Mechanisms for pure ε-differential privacy: Laplace, randomized response, discrete Laplace.

The Gaussian mechanism is in :mod:`dpcourse.gaussian`, the exponential mechanism in
:mod:`dpcourse.selection`.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from .randomness import SecureRandom, check_random_source
from .validation import (as_scalar_or_array, check_array, check_bits, check_epsilon,
                         check_generator, check_integer, check_nonnegative)

__all__ = ["discrete_laplace_noise", "estimate_proportion", "laplace_mechanism",
           "randomized_response", "randomized_response_keep_probability"]


def laplace_mechanism(
    value: float | Sequence[float] | np.ndarray,
    sensitivity: float,
    epsilon: float,
    rng: np.random.Generator,
) -> float | np.ndarray:
    r"""Release ``value + Lap(sensitivity / epsilon)``, the Laplace mechanism.

    If ``value`` is the true answer :math:`f(D)` of a query with global L1 sensitivity
    ``sensitivity`` (:math:`\Delta f`), the release is ``epsilon``-differentially private under
    the neighbour relation for which :math:`\Delta f` was computed, *in exact arithmetic*.
    This floating-point implementation is for teaching: its low bits leak the input (Mironov's
    attack, in ``chapters/dp-in-practice.ipynb``) and a seeded ``rng`` can be replayed. For a
    real release of an integer query use :func:`discrete_laplace_noise` with a
    :class:`~dpcourse.randomness.SecureRandom` source, or a vetted library such as OpenDP.

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
        Seeded source of randomness (see :func:`~dpcourse.randomness.make_rng`).

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
    >>> from dpcourse.randomness import make_rng
    >>> noisy = laplace_mechanism(100, sensitivity=1, epsilon=0.5, rng=make_rng(0))
    >>> isinstance(noisy, float)
    True
    """
    sensitivity = check_nonnegative(sensitivity, "sensitivity")
    epsilon = check_epsilon(epsilon)
    rng = check_generator(rng)
    arr = check_array(value, "value")
    noisy = arr + rng.laplace(loc=0.0, scale=sensitivity / epsilon, size=arr.shape)
    return as_scalar_or_array(noisy)


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
    epsilon = check_epsilon(epsilon)
    return 1.0 / (1.0 + math.exp(-epsilon))


def randomized_response(
    bits: Sequence[int] | np.ndarray, epsilon: float, rng: np.random.Generator
) -> np.ndarray:
    """Randomized response in its coin form, applied independently to every bit.

    Each bit is reported truthfully with probability
    :func:`randomized_response_keep_probability` ``(epsilon)`` and flipped otherwise, which makes
    each person's report exactly ``epsilon``-DP (local model: each person randomises their own
    bit, so neighbouring inputs differ in that one bit). This coin form is Dwork and Roth's;
    Warner's 1965 survey design used a spinner choosing between a statement and its negation,
    which has the same output distribution. A seeded ``rng`` is for teaching: it can be
    replayed.

    Parameters
    ----------
    bits : array_like of {0, 1} or bool
        The true answers, one per person.
    epsilon : float
        Privacy parameter, ``> 0``.
    rng : numpy.random.Generator
        Seeded source of randomness.

    Returns
    -------
    numpy.ndarray of int64
        The reported bits, same shape as ``bits``.
    """
    arr = check_bits(bits, "bits")
    keep = randomized_response_keep_probability(epsilon)
    rng = check_generator(rng)
    flip = rng.random(arr.shape) >= keep
    return np.where(flip, 1 - arr, arr)


def estimate_proportion(
    responses: Sequence[int] | np.ndarray, epsilon: float, axis: int | None = None
) -> float | np.ndarray:
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
    axis : int, optional
        Average along this axis (one estimate per remaining index, e.g. one per simulated
        survey); ``None`` averages every report.

    Returns
    -------
    float or numpy.ndarray
        The estimate(s) of the true proportion (not clipped).
    """
    arr = check_bits(responses, "responses")
    keep = randomized_response_keep_probability(epsilon)
    if axis is not None:
        axis = check_integer(axis, "axis")
        if not -arr.ndim <= axis < arr.ndim:
            raise ValueError(f"axis {axis} is out of bounds for responses with {arr.ndim} dimension(s)")
    estimate = (arr.mean(axis=axis) - (1.0 - keep)) / (2.0 * keep - 1.0)
    return as_scalar_or_array(np.asarray(estimate))


# --------------------------------------------------------------------------------------------
# Exact discrete Laplace (Canonne, Kamath and Steinke 2020)
# --------------------------------------------------------------------------------------------
def _check_scale_fraction(scale: Any) -> Fraction:
    if isinstance(scale, bool) or not isinstance(scale, (numbers.Real, str)):
        raise TypeError(f"scale must be a number, Fraction or numeric string, got {type(scale).__name__}")
    if isinstance(scale, float) and not math.isfinite(scale):
        raise ValueError(f"scale must be finite, got {scale}")
    try:
        # a float (numpy's too) is read through its shortest decimal: 0.1 means exactly 1/10
        frac = Fraction(scale) if isinstance(scale, numbers.Rational) else Fraction(str(scale))
    except (ValueError, ZeroDivisionError) as err:
        raise ValueError(f"scale must be a finite number: {err}") from None
    if frac <= 0:
        raise ValueError(f"scale must be > 0, got {scale}")
    return frac


def _bernoulli_fraction(p: Fraction, rng: np.random.Generator | SecureRandom) -> bool:
    """Exact Bernoulli(p) for a rational p in [0, 1] using only uniform integers."""
    return int(rng.integers(0, p.denominator)) < p.numerator


def _bernoulli_exp_minus(gamma: Fraction, rng: np.random.Generator | SecureRandom) -> bool:
    """Exact Bernoulli(exp(-gamma)) for rational gamma >= 0 (Canonne, Kamath, Steinke 2020)."""
    while gamma > 1:  # exp(-gamma) = exp(-1)^floor(gamma) * exp(-(gamma - floor(gamma)))
        if not _bernoulli_exp_minus(Fraction(1), rng):
            return False
        gamma -= 1
    k = 1
    while _bernoulli_fraction(gamma / k, rng):
        k += 1
    return k % 2 == 1


def _discrete_laplace_one(scale: Fraction, rng: np.random.Generator | SecureRandom) -> int:
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
    scale: float | Fraction | str,
    rng: np.random.Generator | SecureRandom,
    size: int | None = None,
) -> int | np.ndarray:
    r"""Exact samples from the discrete Laplace distribution with the given ``scale``.

    :math:`\Pr[Y = y] = \frac{e^{1/t} - 1}{e^{1/t} + 1}\, e^{-|y|/t}` for every integer
    :math:`y`, where :math:`t` is ``scale``. The sampler of Canonne, Kamath and Steinke (2020)
    uses only exact rational arithmetic and uniform integers, so no floating-point rounding
    leaks the input. Adding it to an integer query of sensitivity :math:`\Delta` with
    ``scale = Δ/ε`` is ``ε``-DP.

    The randomness source decides what the output is good for. With a seeded
    ``numpy.random.Generator`` (:func:`~dpcourse.randomness.make_rng`) the noise is
    reproducible, which is right for teaching and wrong for a release: whoever knows the seed
    replays the generator and subtracts the noise. With
    :class:`~dpcourse.randomness.SecureRandom` the same exact distribution is drawn from the
    operating system's entropy and cannot be replayed.

    Parameters
    ----------
    scale : float, fractions.Fraction or str
        Scale :math:`t > 0`. Floats are read through their shortest decimal (``0.1`` means
        exactly 1/10), so pass a :class:`~fractions.Fraction` for other rationals.
    rng : numpy.random.Generator or SecureRandom
        Source of uniform integers: seeded for teaching, secure for releases.
    size : int, optional
        Number of samples; ``None`` returns one Python ``int``.

    Returns
    -------
    int or numpy.ndarray of int64
    """
    frac = _check_scale_fraction(scale)
    rng = check_random_source(rng)
    if size is None:
        return _discrete_laplace_one(frac, rng)
    size = check_integer(size, "size", minimum=0)
    return np.array([_discrete_laplace_one(frac, rng) for _ in range(size)], dtype=np.int64)

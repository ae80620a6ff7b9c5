r"""The Gaussian mechanism: its calibration for (ε, δ)-DP, and its Rényi DP.

:func:`gaussian_mechanism` adds :math:`\mathcal N(0, \sigma^2)` noise to each coordinate.
:func:`gaussian_delta` gives the *exact* δ that a noise level σ achieves at a given ε
(Balle and Wang 2018, Theorem 8), :func:`gaussian_epsilon` inverts it, and
:func:`gaussian_sigma` finds the noise level for a target (ε, δ): the smallest σ by the exact
condition (``method="analytic"``) or the textbook formula, which is only proved for ε < 1
(``method="classic"``; Dwork and Roth 2014, Thm A.1).

The Gaussian's guarantees in Rényi DP and zCDP sit here too, beside the mechanism:
``gaussian_rho`` and ``gaussian_rdp`` (package-internal: what the accountant of
:mod:`dpcourse.accounting` composes), :func:`gaussian_rdp_epsilon` (repeated releases,
converted once) and :func:`subsampled_gaussian_rdp` (the Poisson-subsampled Gaussian of DP-SGD).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

import numpy as np

# SciPy (0.4 s to import) is imported inside the functions that use it, so `import helpers`
# stays quick in the chapters that never need it.

from .conversions import zcdp_to_dp
from .validation import (as_scalar_or_array, check_array, check_delta, check_epsilon,
                         check_generator, check_integer, check_positive, check_real)

__all__ = ["gaussian_delta", "gaussian_epsilon", "gaussian_mechanism", "gaussian_rdp_epsilon",
           "gaussian_sigma", "subsampled_gaussian_rdp"]


def _log_delta(sigma: float, epsilon: np.ndarray, l2: float) -> np.ndarray:
    """log δ(ε) of a Gaussian mechanism, computed in log space (stable for tiny δ)."""
    from scipy.special import log_ndtr
    a = l2 / (2.0 * sigma)
    b = epsilon * sigma / l2
    first = log_ndtr(a - b)                 # log Φ(Δ/2σ − εσ/Δ)
    second = epsilon + log_ndtr(-a - b)     # log(e^ε Φ(−Δ/2σ − εσ/Δ)), always <= first
    with np.errstate(divide="ignore"):
        return first + np.log(-np.expm1(np.minimum(second - first, 0.0)))


def gaussian_delta(
    sigma: float, epsilon: float | Sequence[float] | np.ndarray, l2_sensitivity: float = 1.0
) -> float | np.ndarray:
    r"""Exact δ of the Gaussian mechanism at privacy level ``epsilon``.

    Adding :math:`\mathcal N(0, \sigma^2 I)` to a query with L2 sensitivity
    :math:`\Delta_2` is :math:`(\varepsilon, \delta)`-DP if and only if

    .. math::

        \delta \ge \Phi\Big(\frac{\Delta_2}{2\sigma} - \frac{\varepsilon\sigma}{\Delta_2}\Big)
        - e^{\varepsilon}\,\Phi\Big(-\frac{\Delta_2}{2\sigma} - \frac{\varepsilon\sigma}{\Delta_2}\Big)

    (Balle and Wang 2018, Theorem 8), under the neighbour relation for which
    :math:`\Delta_2` was computed. The right-hand side is returned, computed in log space so
    that values far below machine epsilon (δ = 1e-30) stay accurate.

    Parameters
    ----------
    sigma : float
        Noise standard deviation, ``> 0``.
    epsilon : float or array_like of float
        Privacy level(s), each ``>= 0``.
    l2_sensitivity : float, default 1.0
        L2 sensitivity :math:`\Delta_2 > 0`.

    Returns
    -------
    float or numpy.ndarray
        The smallest δ for which the mechanism is (ε, δ)-DP; same shape as ``epsilon``.

    Examples
    --------
    >>> round(gaussian_delta(1.0, 1.0), 4)
    0.1269
    """
    sigma = check_positive(sigma, "sigma")
    l2 = check_positive(l2_sensitivity, "l2_sensitivity")
    eps = check_array(epsilon, "epsilon")
    if np.any(eps < 0):
        raise ValueError("epsilon must be >= 0")
    return as_scalar_or_array(np.exp(_log_delta(sigma, eps, l2)))


def gaussian_sigma(
    epsilon: float, delta: float, l2_sensitivity: float = 1.0, method: str = "analytic"
) -> float:
    r"""Noise standard deviation σ that makes the Gaussian mechanism (ε, δ)-DP.

    ``method="analytic"`` returns the smallest σ that satisfies the exact condition of
    :func:`gaussian_delta` (the analytic Gaussian mechanism of Balle and Wang 2018), found by a
    bracketing root search on :math:`\log\delta(\sigma)`, which decreases in σ. It is valid for
    every ε > 0.

    ``method="classic"`` returns :math:`\Delta_2\sqrt{2\ln(1.25/\delta)}/\varepsilon`. Its
    theorem (Dwork and Roth 2014, Theorem A.1) assumes ε < 1, so it raises for ε ≥ 1: past
    ε ≈ 8 the formula really does break its target δ.

    Parameters
    ----------
    epsilon : float
        Target ε, ``> 0`` (and ``< 1`` for ``"classic"``).
    delta : float
        Target δ in (0, 1).
    l2_sensitivity : float, default 1.0
        L2 sensitivity :math:`\Delta_2 > 0`.
    method : {"analytic", "classic"}
        Which calibration.

    Returns
    -------
    float
        σ; the analytic one satisfies ``gaussian_delta(sigma, epsilon, l2_sensitivity) <= delta``.

    Examples
    --------
    >>> round(gaussian_sigma(1.0, 1e-5), 4)
    3.7306
    >>> round(gaussian_sigma(0.5, 1e-5, method="classic"), 4)
    9.6896
    """
    from scipy.optimize import brentq
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    l2 = check_positive(l2_sensitivity, "l2_sensitivity")
    if method == "classic":
        if epsilon >= 1:
            raise ValueError(f"the classic calibration is proved only for epsilon < 1, got "
                             f"epsilon={epsilon}: use method='analytic'")
        return l2 * math.sqrt(2.0 * math.log(1.25 / delta)) / epsilon
    if method != "analytic":
        raise ValueError(f"method must be 'analytic' or 'classic', got {method!r}")
    eps = np.array(epsilon)
    target = math.log(delta)

    def excess(log_sigma: float) -> float:
        return float(_log_delta(math.exp(log_sigma), eps, l2)) - target

    lo, hi = math.log(l2) - 1.0, math.log(l2) + 1.0
    while excess(lo) <= 0:   # δ(σ) falls as σ grows: walk down until δ is too large
        lo -= 1.0
    while excess(hi) > 0:    # ... and up until δ is small enough
        hi += 1.0
    sigma = math.exp(brentq(excess, lo, hi, xtol=1e-14, rtol=1e-14))
    while gaussian_delta(sigma, epsilon, l2) > delta:  # round up, never down
        sigma = math.nextafter(sigma, math.inf)
    return sigma


def gaussian_epsilon(
    sigma: float, delta: float | Sequence[float] | np.ndarray, l2_sensitivity: float = 1.0
) -> float | np.ndarray:
    r"""Smallest ε at which the Gaussian mechanism is (ε, δ)-DP: the inverse of :func:`gaussian_delta`.

    The exact δ(ε) of :func:`gaussian_delta` decreases in ε, so for each target δ the
    smallest ε with ``gaussian_delta(sigma, epsilon, l2_sensitivity) <= delta`` is found by
    bisection (in log space, 80 halvings, rounded up so the returned ε always meets δ).
    Because k Gaussian releases with noise σ compose exactly into one with L2 sensitivity
    :math:`\sqrt{k}\,\Delta_2`, this is also the exact ε of k releases.

    Parameters
    ----------
    sigma : float
        Noise standard deviation, ``> 0``.
    delta : float or array_like of float
        Target δ(s), each in (0, 1).
    l2_sensitivity : float, default 1.0
        L2 sensitivity :math:`\Delta_2 > 0`, under the neighbour relation in use.

    Returns
    -------
    float or numpy.ndarray
        ε ≥ 0, same shape as ``delta``; 0 where the mechanism is already (0, δ)-DP.

    Examples
    --------
    >>> round(gaussian_epsilon(3.730631634815944, 1e-5), 6)
    1.0
    """
    sigma = check_positive(sigma, "sigma")
    l2 = check_positive(l2_sensitivity, "l2_sensitivity")
    target = check_array(delta, "delta")
    if np.any((target <= 0) | (target >= 1)):
        raise ValueError("delta must be in (0, 1)")
    log_target = np.log(target)
    lo = np.zeros_like(target)
    hi = np.ones_like(target)
    while np.any(_log_delta(sigma, hi, l2) > log_target):   # grow the bracket where needed
        hi = np.where(_log_delta(sigma, hi, l2) > log_target, 2.0 * hi, hi)
    for _ in range(80):
        mid = (lo + hi) / 2.0
        too_small = _log_delta(sigma, mid, l2) > log_target
        lo, hi = np.where(too_small, mid, lo), np.where(too_small, hi, mid)
    hi = np.where(_log_delta(sigma, np.zeros_like(target), l2) <= log_target, 0.0, hi)
    return as_scalar_or_array(hi)


def gaussian_mechanism(
    value: float | Sequence[float] | np.ndarray, sigma: float, rng: np.random.Generator
) -> float | np.ndarray:
    r"""Release ``value + N(0, sigma^2)``, independently in every coordinate.

    Choose ``sigma`` with :func:`gaussian_sigma` (or check it with :func:`gaussian_delta`) for
    the query's L2 sensitivity. As with every floating-point sampler in the course, this is
    for teaching: its low bits can leak (Jin et al. 2022 for the Gaussian) and a seeded
    ``rng`` can be replayed. Real releases use an exact discrete Gaussian (OpenDP; the 2020 US
    Census) drawn from a secure source.

    Parameters
    ----------
    value : float or array_like of float
        The true answer.
    sigma : float
        Noise standard deviation, ``> 0``.
    rng : numpy.random.Generator
        Seeded source of randomness.

    Returns
    -------
    float or numpy.ndarray
        Same shape as ``value``.

    Examples
    --------
    >>> from dpcourse.randomness import make_rng
    >>> isinstance(gaussian_mechanism(10.0, 2.0, make_rng(0)), float)
    True
    """
    arr = check_array(value, "value")
    sigma = check_positive(sigma, "sigma")
    rng = check_generator(rng)
    return as_scalar_or_array(arr + rng.normal(0.0, sigma, size=arr.shape))


# --------------------------------------------------------------------------------------------
# Rényi DP and zCDP of the Gaussian (the accountant composes these)
# --------------------------------------------------------------------------------------------
def gaussian_rho(sigma: float, l2_sensitivity: float = 1.0) -> Fraction:
    r"""ρ of one Gaussian release, :math:`\Delta_2^2/(2\sigma^2)`, exactly (Bun and Steinke 2016).

    Package-internal (the accountant's ``mode="zcdp"`` adds these), so not in ``__all__``. The
    fraction is that of the decimal forms of ``sigma`` and ``l2_sensitivity``, so that ρ's add
    without rounding. Inputs are checked by the caller.
    """
    return Fraction(str(l2_sensitivity)) ** 2 / (2 * Fraction(str(sigma)) ** 2)


def gaussian_rdp(sigma: float, orders: np.ndarray, l2_sensitivity: float = 1.0) -> np.ndarray:
    r"""Rényi DP of one Gaussian release, :math:`\alpha\Delta_2^2/(2\sigma^2)` at each order α.

    Package-internal (the accountant's ``mode="rdp"`` adds these curves), so not in ``__all__``
    (Mironov 2017, Prop. 7). Inputs are checked by the caller.
    """
    return orders * l2_sensitivity**2 / (2.0 * sigma**2)


def gaussian_rdp_epsilon(sigma: float, steps: int, delta: float,
                         l2_sensitivity: float = 1.0) -> float:
    r"""ε of ``steps`` Gaussian releases, by Rényi DP with the improved conversion.

    One release with noise σ and L2 sensitivity :math:`\Delta_2` is
    :math:`(\alpha, \alpha\Delta_2^2/(2\sigma^2))`-RDP for every α > 1 (Mironov 2017); RDP adds
    up over releases, so ``steps`` releases are ρ-zCDP with
    :math:`\rho = \text{steps}\cdot\Delta_2^2/(2\sigma^2)`, converted once with
    :func:`zcdp_to_dp`, optimised over every real order.

    Parameters
    ----------
    sigma : float
        Noise standard deviation of each release, ``> 0``.
    steps : int
        Number of releases, ``>= 1``.
    delta : float
        Target δ in (0, 1).
    l2_sensitivity : float, default 1.0
        :math:`\Delta_2 > 0` of each release.

    Returns
    -------
    float
        ε of the whole composition at ``delta``.

    Examples
    --------
    >>> round(gaussian_rdp_epsilon(20.0, 1000, 1e-5), 2)
    8.08
    """
    sigma = check_positive(sigma, "sigma")
    steps = check_integer(steps, "steps", minimum=1)
    l2 = check_positive(l2_sensitivity, "l2_sensitivity")
    return zcdp_to_dp(steps * l2**2 / (2.0 * sigma**2), delta)


def subsampled_gaussian_rdp(sampling_rate: float, noise_multiplier: float,
                            orders: Sequence[float] | np.ndarray) -> np.ndarray:
    r"""Rényi DP of one step of the Poisson-subsampled Gaussian mechanism (DP-SGD).

    Each record enters the batch independently with probability q; the batch's sum of
    contributions (each clipped to L2 norm C) gets :math:`\mathcal N(0, (zC)^2 I)` noise, where
    z is the noise multiplier. Under add/remove neighbours, for integer α ≥ 2,

    .. math::

        \bar\varepsilon(\alpha) = \frac{1}{\alpha-1}\ln\sum_{k=0}^{\alpha}\binom{\alpha}{k}
        (1-q)^{\alpha-k} q^k \exp\Big(\frac{k^2-k}{2z^2}\Big)

    (Mironov, Talwar and Zhang 2019, Sec. 3.3), computed in log space. Orders that are not
    integers get ``inf``: this formula does not cover them, and ``inf`` is a valid (useless)
    bound that :func:`rdp_to_dp` skips.

    Parameters
    ----------
    sampling_rate : float
        q in (0, 1].
    noise_multiplier : float
        z ``> 0``: noise standard deviation divided by the L2 sensitivity C.
    orders : array_like of float
        Orders α ``> 1``.

    Returns
    -------
    numpy.ndarray
        :math:`\bar\varepsilon(\alpha)` for each order.
    """
    from scipy.special import gammaln, logsumexp
    q = check_real(sampling_rate, "sampling_rate")
    if not 0 < q <= 1:
        raise ValueError(f"sampling_rate must be in (0, 1], got {q}")
    z = check_positive(noise_multiplier, "noise_multiplier")
    orders = np.asarray(orders, dtype=float)
    if orders.ndim != 1 or orders.size == 0 or np.any(~np.isfinite(orders)) or np.any(orders <= 1):
        raise ValueError("orders must be a non-empty 1-D array of finite values > 1")
    out = np.full(orders.shape, np.inf)
    for i, alpha in enumerate(orders):
        if alpha != int(alpha):
            continue
        a = int(alpha)
        if q == 1.0:
            out[i] = a / (2.0 * z**2)
            continue
        k = np.arange(a + 1)
        log_terms = (gammaln(a + 1) - gammaln(k + 1) - gammaln(a - k + 1)
                     + (a - k) * math.log1p(-q) + k * math.log(q) + (k * k - k) / (2.0 * z**2))
        out[i] = max(0.0, float(logsumexp(log_terms)) / (a - 1))
    return out

r"""Privacy definitions and the conversions between them: Rényi DP, zCDP and (ε, δ)-DP.

Mechanism modules state their guarantee in the definition that fits them (the Gaussian's Rényi
DP in :mod:`dpcourse.gaussian`); the accountant (:mod:`dpcourse.accounting`) composes those
guarantees and converts the total once, with the functions here:

* :func:`rdp_to_dp` and :func:`zcdp_to_dp` convert with the improved bound of Canonne, Kamath
  and Steinke (2020) and Balle et al. (2020); :func:`dp_to_zcdp` inverts :func:`zcdp_to_dp`;
* ``pure_dp_to_rdp`` (package-internal) gives the Rényi DP curve that every ε-DP mechanism
  satisfies.

Every bound here is an upper bound on the true privacy loss. The tests compare them with
Google's ``dp-accounting``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

# SciPy (0.4 s to import) is imported inside the functions that use it, so `import helpers`
# stays quick in the chapters that never need it.

from .validation import check_delta, check_epsilon, check_nonnegative

__all__ = ["dp_to_zcdp", "rdp_to_dp", "zcdp_to_dp"]


# --------------------------------------------------------------------------------------------
def _improved_conversion(rdp: np.ndarray, orders: np.ndarray, delta: float) -> np.ndarray:
    """ε at each order: ε(α) + ln((α−1)/α) − (ln δ + ln α)/(α − 1)."""
    return (rdp + np.log1p(-1.0 / orders)
            - (math.log(delta) + np.log(orders)) / (orders - 1.0))


def rdp_to_dp(rdp: Sequence[float] | np.ndarray, orders: Sequence[float] | np.ndarray,
              delta: float) -> float:
    r"""Smallest ε, over the given orders, of an (ε, δ)-DP guarantee implied by Rényi DP.

    A mechanism that is :math:`(\alpha, \bar\varepsilon(\alpha))`-RDP is (ε, δ)-DP with

    .. math::

        \varepsilon = \bar\varepsilon(\alpha) + \ln\frac{\alpha-1}{\alpha}
        - \frac{\ln\delta + \ln\alpha}{\alpha - 1}

    for every α > 1 (Canonne, Kamath and Steinke 2020, Prop. 12; Balle et al. 2020,
    Thm 21). It is never larger than Mironov's :math:`\bar\varepsilon(\alpha) +
    \ln(1/\delta)/(\alpha-1)`. Every order gives a valid ε, so taking the smallest is free.

    Parameters
    ----------
    rdp : array_like of float
        :math:`\bar\varepsilon(\alpha)` at each order, ``>= 0`` (``inf`` where unknown).
    orders : array_like of float
        The orders α, each ``> 1``, same length as ``rdp``.
    delta : float
        Target δ in (0, 1).

    Returns
    -------
    float
        ε ``>= 0``.
    """
    delta = check_delta(delta)
    rdp = np.asarray(rdp, dtype=float)
    orders = np.asarray(orders, dtype=float)
    if rdp.shape != orders.shape or rdp.ndim != 1 or rdp.size == 0:
        raise ValueError(f"rdp and orders must be 1-D of equal, non-zero length, got shapes "
                         f"{rdp.shape} and {orders.shape}")
    if np.any(np.isnan(rdp)) or np.any(rdp < 0):
        raise ValueError("rdp must hold values >= 0 (inf allowed, NaN not)")
    if not np.all(np.isfinite(orders)) or np.any(orders <= 1):
        raise ValueError("orders must be finite and > 1")
    return max(0.0, float(np.min(_improved_conversion(rdp, orders, delta))))


def zcdp_to_dp(rho: float, delta: float) -> float:
    r"""ε of an (ε, δ)-DP guarantee implied by ρ-zero-concentrated DP.

    ρ-zCDP means :math:`D_\alpha(M(D)\,\|\,M(D')) \le \rho\alpha` for every α > 1 (Bun and
    Steinke 2016), so the improved conversion of :func:`rdp_to_dp` applies at every real α;
    this function minimises it over α numerically. The result is never larger than the
    simpler :math:`\rho + 2\sqrt{\rho\ln(1/\delta)}` (Bun and Steinke 2016, Prop. 1.3).

    Parameters
    ----------
    rho : float
        ρ ``>= 0``.
    delta : float
        Target δ in (0, 1).

    Returns
    -------
    float
        ε ``>= 0``.

    Examples
    --------
    >>> round(zcdp_to_dp(0.125, 1e-6), 4)
    2.4191
    """
    from scipy.optimize import minimize_scalar
    rho = check_nonnegative(rho, "rho")
    delta = check_delta(delta)
    if rho == 0:
        return 0.0

    def eps_at(log_excess: float) -> float:  # α = 1 + e^x keeps the search inside α > 1
        alpha = np.array([1.0 + math.exp(log_excess)])
        return float(_improved_conversion(rho * alpha, alpha, delta)[0])

    grid = np.linspace(-12.0, 12.0, 241)
    orders = 1.0 + np.exp(grid)
    values = _improved_conversion(rho * orders, orders, delta)
    i = int(np.argmin(values))
    lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)]
    best = minimize_scalar(eps_at, bounds=(lo, hi), method="bounded",
                           options={"xatol": 1e-10})
    return max(0.0, min(float(values[i]), float(best.fun)))


def dp_to_zcdp(epsilon: float, delta: float) -> float:
    r"""The largest ρ whose ρ-zCDP guarantee converts to (ε, δ)-DP: the inverse of
    :func:`zcdp_to_dp`.

    A release planned in zCDP (Gaussian noise, composed by adding ρ) but promised as
    (ε, δ)-DP needs the ρ that :func:`zcdp_to_dp` turns into at most ε. That conversion is
    increasing in ρ, so the largest such ρ is a root of ε(ρ) − ε (Brent's method), and
    the answer is checked: ``zcdp_to_dp(dp_to_zcdp(epsilon, delta), delta) <= epsilon``
    always holds, and ρ is within a relative 1e-9 of the largest value that does.

    Parameters
    ----------
    epsilon : float
        Target ε ``> 0``.
    delta : float
        Target δ in (0, 1).

    Returns
    -------
    float
        ρ ``> 0``.

    Examples
    --------
    >>> rho = dp_to_zcdp(1.0, 1e-6)
    >>> round(rho, 5), zcdp_to_dp(rho, 1e-6) <= 1.0
    (0.02436, True)
    """
    from scipy.optimize import brentq
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    hi = epsilon
    while zcdp_to_dp(hi, delta) <= epsilon:  # ε(ρ) can fall below ρ when δ is close to 1
        hi *= 2.0
    rho = brentq(lambda r: zcdp_to_dp(r, delta) - epsilon, 0.0, hi, rtol=1e-12)
    while zcdp_to_dp(rho, delta) > epsilon:  # the root may sit a rounding error above
        rho *= 1.0 - 1e-12
    return rho


def pure_dp_to_rdp(epsilon: float, orders: np.ndarray) -> np.ndarray:
    """Rényi DP curve that every ε-DP mechanism satisfies: that of randomized response.

    Package-internal (the accountant's ``mode="rdp"`` uses it), so not in ``__all__``.

    Any ε-DP pair of output distributions is a post-processing of randomized response's pair
    (Kairouz, Oh and Viswanath 2015), so by the data-processing inequality its Rényi
    divergence is at most randomized response's, which is computed here in log space.
    """
    log_p = -math.log1p(math.exp(-epsilon))       # ln(e^ε / (1 + e^ε))
    log_q = -math.log1p(math.exp(epsilon))        # ln(1 / (1 + e^ε))
    a = orders
    both = np.logaddexp(a * log_p + (1 - a) * log_q, a * log_q + (1 - a) * log_p)
    return np.minimum(both / (a - 1.0), epsilon)

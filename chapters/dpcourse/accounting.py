r"""Keeping track of privacy loss: the accountant, Rényi DP and zero-concentrated DP.

* :class:`PrivacyAccountant` charges every release against a total budget *before* the data
  are touched and refuses a release that would exceed it. In ``mode="pure"`` it adds ε's
  exactly (sequential composition); in ``mode="zcdp"`` it adds ρ's (Bun and Steinke 2016)
  and in ``mode="rdp"`` whole Rényi-DP curves (Mironov 2017), converting to (ε, δ) once.
* :func:`rdp_to_dp` and :func:`zcdp_to_dp` convert with the improved bound of Canonne, Kamath
  and Steinke (2020) and Balle et al. (2020); :func:`gaussian_rdp_epsilon` applies it to
  repeated Gaussian releases, and :func:`subsampled_gaussian_rdp` gives the Rényi DP of the
  Poisson-subsampled Gaussian that DP-SGD uses (Mironov, Talwar and Zhang 2019).

Every bound here is an upper bound on the true privacy loss: an accountant may overstate it,
never understate it. The tests compare it with Google's ``dp-accounting``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

# SciPy (0.4 s to import) is imported inside the functions that use it, so `import helpers`
# stays quick in the chapters that never need it.

from .validation import (check_delta, check_epsilon, check_integer, check_nonnegative,
                         check_positive, check_real)

#: Rényi orders α used by ``mode="rdp"``: fine steps in (1, 2], then integers, then a few large
#: ones. Fixed in advance, so choosing the best of them is free (it does not look at the data).
RDP_ORDERS = np.concatenate([np.round(np.arange(1.05, 2.0, 0.05), 2), np.arange(2, 65),
                             np.array([72, 80, 96, 128, 192, 256, 384, 512, 1024])]).astype(float)

#: ρ (zCDP, replace-one neighbours) of the 2020 US Census redistricting release's persons file,
#: as the Census Bureau's production code computes it: ``rho = 1 / global_scale ** 2`` with
#: ``global_scale = 339/542`` in ``source/configs/production/pl94/person_default.ini`` of
#: DAS_2020_Redistricting_Production_Code. The noise is the discrete Gaussian.
CENSUS_2020_PERSONS_RHO: float = 1 / (339 / 542) ** 2
#: The δ at which that code states (ε, δ): ``approx_dp_delta`` in
#: ``source/configs/production/prod_default.ini``.
CENSUS_2020_DELTA: float = 1e-10


class BudgetExceededError(RuntimeError):
    """Raised by :class:`PrivacyAccountant` when a spend would exceed the total budget."""


def _exact(epsilon: Any, name: str) -> Fraction:
    """An epsilon as an exact fraction: 0.3 means 3/10, not the double nearest to it."""
    return Fraction(str(check_epsilon(epsilon, name)))


# --------------------------------------------------------------------------------------------
# Conversions to (ε, δ)
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


def _pure_rdp(epsilon: float, orders: np.ndarray) -> np.ndarray:
    """Rényi DP curve that every ε-DP mechanism satisfies: that of randomized response.

    Any ε-DP pair of output distributions is a post-processing of randomized response's pair
    (Kairouz, Oh and Viswanath 2015), so by the data-processing inequality its Rényi
    divergence is at most randomized response's, which is computed here in log space.
    """
    log_p = -math.log1p(math.exp(-epsilon))       # ln(e^ε / (1 + e^ε))
    log_q = -math.log1p(math.exp(epsilon))        # ln(1 / (1 + e^ε))
    a = orders
    both = np.logaddexp(a * log_p + (1 - a) * log_q, a * log_q + (1 - a) * log_p)
    return np.minimum(both / (a - 1.0), epsilon)


# --------------------------------------------------------------------------------------------
# The privacy loss so far, one class per way of counting it (immutable: every charge makes a
# new one, so a refused charge leaves the accountant untouched)
# --------------------------------------------------------------------------------------------
class _PureLoss:
    """Sequential composition of pure ε-DP releases: the ε's add, exactly."""

    def __init__(self, spent: Fraction = Fraction(0)) -> None:
        self.spent = spent

    def plus_pure(self, epsilon: Fraction) -> _PureLoss:
        return _PureLoss(self.spent + epsilon)

    def plus_parallel(self, epsilons: list[Fraction]) -> _PureLoss:
        return _PureLoss(self.spent + max(epsilons))

    def plus_gaussian(self, *args: Any) -> _PureLoss:
        raise ValueError("a Gaussian release is not epsilon-DP for any finite epsilon: "
                         "use PrivacyAccountant(..., delta=..., mode='zcdp' or 'rdp')")

    plus_rho = plus_gaussian

    def epsilon(self) -> Fraction:
        return self.spent


class _ZCDPLoss:
    """zCDP: the ρ's add (exactly, as fractions of their decimal forms); one conversion."""

    def __init__(self, delta: float, rho: Fraction = Fraction(0)) -> None:
        self.delta, self.rho = delta, rho

    def plus_pure(self, epsilon: Fraction) -> _ZCDPLoss:   # ε-DP ⇒ (ε²/2)-zCDP
        return _ZCDPLoss(self.delta, self.rho + epsilon**2 / 2)

    def plus_parallel(self, epsilons: list[Fraction]) -> _ZCDPLoss:
        return _ZCDPLoss(self.delta, self.rho + max(epsilons) ** 2 / 2)

    def plus_gaussian(self, sigma: float, l2: float, count: int, q: float) -> _ZCDPLoss:
        if q != 1.0:
            raise ValueError("zCDP does not track amplification by subsampling: use mode='rdp'")
        rho = Fraction(str(l2)) ** 2 / (2 * Fraction(str(sigma)) ** 2)
        return _ZCDPLoss(self.delta, self.rho + count * rho)

    def plus_rho(self, rho: Fraction) -> _ZCDPLoss:
        return _ZCDPLoss(self.delta, self.rho + rho)

    def epsilon(self) -> float:
        return zcdp_to_dp(float(self.rho), self.delta)


class _RDPLoss:
    """Rényi DP: whole curves over :data:`RDP_ORDERS` add up; one conversion at the end."""

    def __init__(self, delta: float, curve: np.ndarray | None = None) -> None:
        self.delta = delta
        self.curve = np.zeros_like(RDP_ORDERS) if curve is None else curve

    def _plus(self, extra: np.ndarray) -> _RDPLoss:
        return _RDPLoss(self.delta, self.curve + extra)

    def plus_pure(self, epsilon: Fraction) -> _RDPLoss:
        return self._plus(_pure_rdp(float(epsilon), RDP_ORDERS))

    def plus_parallel(self, epsilons: list[Fraction]) -> _RDPLoss:
        return self._plus(_pure_rdp(float(max(epsilons)), RDP_ORDERS))

    def plus_gaussian(self, sigma: float, l2: float, count: int, q: float) -> _RDPLoss:
        return self._plus(count * subsampled_gaussian_rdp(q, sigma / l2, RDP_ORDERS)
                          if q < 1 else count * RDP_ORDERS * l2**2 / (2.0 * sigma**2))

    def plus_rho(self, rho: Fraction) -> _RDPLoss:
        return self._plus(float(rho) * RDP_ORDERS)

    def epsilon(self) -> float:
        if not np.any(self.curve > 0):
            return 0.0
        return rdp_to_dp(self.curve, RDP_ORDERS, self.delta)


_MODES = {"pure": _PureLoss, "zcdp": _ZCDPLoss, "rdp": _RDPLoss}


class PrivacyAccountant:
    """Track a privacy budget, refusing any spend that would exceed it.

    ``mode="pure"`` (the default) composes pure ε-DP releases sequentially: the ε's add.
    Amounts are kept as exact fractions of their decimal forms, so three spends of 0.3 out of
    1.0 leave exactly 0.1 (with floats, 1.0 - 0.3 - 0.3 - 0.3 is 0.09999999999999998).

    ``mode="zcdp"`` and ``mode="rdp"`` account approximate DP at a fixed ``delta``: Gaussian
    releases (:meth:`spend_gaussian`) and pure ε-DP releases (:meth:`spend`) are converted to
    zero-concentrated DP (ρ's add, exactly) or to Rényi-DP curves (which add at every order),
    and the total is turned into one ε at ``delta`` by the improved conversion. Only
    ``mode="rdp"`` tracks amplification by Poisson subsampling (``sampling_rate < 1``).

    In every mode the check happens *before* the data are touched: a spend that would push
    the total past ``total_epsilon`` raises :class:`BudgetExceededError` and changes nothing.

    Parameters
    ----------
    total_epsilon : float
        The whole budget, ``> 0``.
    delta : float, default 0.0
        ``0`` for ``mode="pure"``; in (0, 1) for ``"zcdp"`` and ``"rdp"``.
    mode : {"pure", "zcdp", "rdp"}

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
    dpcourse.accounting.BudgetExceededError: spending 0.2 would exceed the budget: 0.1 of 1.0 remains
    """

    def __init__(self, total_epsilon: float, delta: float = 0.0, mode: str = "pure") -> None:
        self._total = _exact(total_epsilon, "total_epsilon")
        if mode not in _MODES:
            raise ValueError(f"mode must be one of {sorted(_MODES)}, got {mode!r}")
        if mode == "pure":
            if check_real(delta, "delta") != 0:
                raise ValueError("mode='pure' accounts pure epsilon-DP: delta must be 0")
            self._loss = _PureLoss()
        else:
            self._loss = _MODES[mode](check_delta(delta))
        self.mode, self.delta = mode, float(delta)
        self.ledger: list[tuple[str, float]] = []

    @property
    def total(self) -> float:
        """The whole budget."""
        return float(self._total)

    @property
    def spent(self) -> float:
        """ε (at :attr:`delta`) of all accepted spends together."""
        return float(self._loss.epsilon())

    @property
    def remaining(self) -> float:
        """``total - spent``, computed exactly in ``mode="pure"``, then rounded once."""
        return float(self._total - self._loss.epsilon()) if self.mode == "pure" else (
            self.total - self.spent)

    @property
    def remaining_exact(self) -> Fraction:
        """``total - spent`` as an exact fraction (``mode="pure"`` only)."""
        if self.mode != "pure":
            raise ValueError("remaining_exact exists only in mode='pure'")
        return self._total - self._loss.epsilon()

    @property
    def rho(self) -> float:
        """The total ρ so far (``mode="zcdp"`` only)."""
        if self.mode != "zcdp":
            raise ValueError("rho exists only in mode='zcdp'")
        return float(self._loss.rho)

    def _charge(self, new_loss: Any, label: str, shown: float) -> None:
        if not isinstance(label, str):
            raise TypeError(f"label must be a string, got {type(label).__name__}")
        before, after = self._loss.epsilon(), new_loss.epsilon()
        limit = self._total if self.mode == "pure" else self.total
        if after > limit:
            raise BudgetExceededError(
                f"spending {shown} would exceed the budget: "
                f"{self.remaining} of {self.total} remains")
        self._loss = new_loss
        self.ledger.append((label, float(after - before)))

    def spend(self, epsilon: float, label: str = "query") -> None:
        """Charge one ``epsilon``-DP release (sequential composition).

        Call it *before* touching the data; if it raises, nothing was charged. The ledger
        records the label and the ε charged: the increase of the total ε (at :attr:`delta`).

        Parameters
        ----------
        epsilon : float
            Cost of the release, ``> 0``.
        label : str, default "query"
            Name recorded in :attr:`ledger`.

        Raises
        ------
        BudgetExceededError
            If the total would exceed the budget; the state is left unchanged.
        """
        amount = _exact(epsilon, "epsilon")
        self._charge(self._loss.plus_pure(amount), label, float(amount))

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
        amounts = [_exact(e, "epsilons") for e in epsilons]
        self._charge(self._loss.plus_parallel(amounts), label, float(max(amounts)))

    def spend_gaussian(self, sigma: float, l2_sensitivity: float = 1.0, count: int = 1,
                       sampling_rate: float = 1.0, label: str = "Gaussian") -> None:
        r"""Charge ``count`` Gaussian releases with noise σ (``mode="zcdp"`` or ``"rdp"``).

        Each is :math:`\rho = \Delta_2^2/(2\sigma^2)`-zCDP. With ``sampling_rate`` q < 1 each
        release is computed on a Poisson sample (every record kept with probability q, as in
        DP-SGD), which only ``mode="rdp"`` accounts (:func:`subsampled_gaussian_rdp`; add/remove
        neighbours).

        Parameters
        ----------
        sigma : float
            Noise standard deviation, ``> 0``.
        l2_sensitivity : float, default 1.0
            :math:`\Delta_2 > 0` of each release.
        count : int, default 1
            Number of such releases, ``>= 1``.
        sampling_rate : float, default 1.0
            Poisson sampling rate q in (0, 1].
        label : str
            Name recorded in :attr:`ledger`.
        """
        sigma = check_positive(sigma, "sigma")
        l2 = check_positive(l2_sensitivity, "l2_sensitivity")
        count = check_integer(count, "count", minimum=1)
        q = check_real(sampling_rate, "sampling_rate")
        if not 0 < q <= 1:
            raise ValueError(f"sampling_rate must be in (0, 1], got {q}")
        self._charge(self._loss.plus_gaussian(sigma, l2, count, q), label, sigma)

    def spend_rho(self, rho: float, label: str = "zCDP release") -> None:
        """Charge a release known to be ρ-zCDP (``mode="zcdp"`` or ``"rdp"``).

        Parameters
        ----------
        rho : float
            ρ ``> 0``; for example ε²/8 for the exponential mechanism (Cesar and Rogers 2021).
        label : str
            Name recorded in :attr:`ledger`.
        """
        amount = Fraction(str(check_positive(rho, "rho")))
        self._charge(self._loss.plus_rho(amount), label, float(amount))

    def __repr__(self) -> str:
        extra = "" if self.mode == "pure" else f", delta={self.delta}, mode={self.mode!r}"
        return (f"PrivacyAccountant(total={self.total}, spent={self.spent}, "
                f"remaining={self.remaining}{extra})")

r"""Privacy-loss distributions (PLDs): accounting without slack.

A mechanism's privacy loss on a neighbouring pair :math:`(P, Q)` is the random variable
:math:`L = \ln(p(Y)/q(Y))`, :math:`Y \sim P`. Its *privacy profile*

.. math::

    \delta(\varepsilon) = \sup_S \, P(S) - e^\varepsilon Q(S)
    = \mathbb E_P\big[(1 - e^{\varepsilon - L})_+\big]

is the smallest δ for which the pair is (ε, δ)-indistinguishable, and the loss of an
adaptive composition is the sum of independent losses (Sommer, Meiser and Mohammadi 2019;
Zhu, Dong and Wang 2022). So composition is a convolution of loss distributions, which a
fast Fourier transform computes in one step (Koskela, Jälkö and Honkela 2020).

Everything here is an *upper bound* (up to floating-point rounding): the loss is put on a grid of spacing ``interval`` by
Doroshenko, Ghazi, Kamath, Kumar and Manurangsi's "connect the dots" (PoPETs 2022, Alg. 1),
which matches δ(ε) exactly at the grid points and lies above it in between (δ is convex in
:math:`e^\varepsilon`); losses below the grid are rounded up to its first point, the profile
beyond its last point becomes mass at :math:`+\infty`, and negative rounding errors of the FFT
are clipped. The tests compare every result with Google's ``dp-accounting``.

Neighbours are add/remove unless said otherwise. A symmetric mechanism (Gaussian, Laplace) has
one pair; the Poisson-subsampled Gaussian has two, "remove" and "add", and :func:`dpsgd_epsilon`
reports the larger ε. Under replace-one neighbours (one record swapped for another, the
comparison of a membership test on training sets of a fixed size) it has one pair, "replace",
and :func:`dpsgd_delta` at ε = 0 bounds any test's true- minus false-positive rate.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .validation import (as_scalar_or_array, check_delta, check_integer, check_positive,
                         check_real)

#: DP-SGD's ε and δ(ε) are public (``private-machine-learning`` and ``dp-sgd-accounting`` use
#: them); the distributions stay package-level tools, used by the tests, until a chapter needs them.
__all__ = ["dpsgd_delta", "dpsgd_epsilon", "dpsgd_noise_multiplier"]

#: Probability below which a tail of the loss is rounded to the grid's edge (pessimistically).
_TAIL = 1e-18
#: The largest FFT the composition uses (2**22 points of float64: 32 MB).
_MAX_FFT = 2**22
#: Mass allowed outside the FFT window (bounded by Chernoff, then added to the mass at +∞).
_ALIAS = 1e-15


def _check_interval(interval: Any) -> float:
    interval = check_positive(interval, "interval")
    if interval > 0.1:
        raise ValueError(f"interval must be <= 0.1 (a finer grid is tighter), got {interval}")
    return interval


class _PrivacyLossDistribution:
    r"""A privacy-loss distribution on the grid :math:`\{kh\}`, with mass at :math:`+\infty`.

    Build one with :func:`_gaussian_pld`, :func:`_laplace_pld` or :func:`_subsampled_gaussian_pld`
    (or :meth:`from_privacy_profile` for another mechanism), compose with :meth:`compose` and
    :meth:`self_compose`, and read the guarantee with :meth:`delta` or :meth:`epsilon`.

    Parameters
    ----------
    masses : array_like of float
        Probability of the loss :math:`(\text{offset} + k)\,h` for ``k = 0, 1, ...``.
    offset : int
        Grid index of the first mass.
    interval : float
        The grid spacing h.
    infinity_mass : float, default 0.0
        Probability that the loss is :math:`+\infty` (an output that only P can produce).
    """

    def __init__(self, masses: Sequence[float] | np.ndarray, offset: int, interval: float,
                 infinity_mass: float = 0.0) -> None:
        masses = np.asarray(masses, dtype=float)
        if masses.ndim != 1 or masses.size == 0 or np.any(~np.isfinite(masses)):
            raise ValueError("masses must be a non-empty 1-D array of finite values")
        if np.any(masses < 0):
            raise ValueError("masses must be >= 0")
        self.masses = masses
        self.offset = check_integer(offset, "offset")
        self.interval = _check_interval(interval)
        self.infinity_mass = check_real(infinity_mass, "infinity_mass")
        if not 0 <= self.infinity_mass <= 1:
            raise ValueError(f"infinity_mass must be in [0, 1], got {self.infinity_mass}")

    @property
    def losses(self) -> np.ndarray:
        """The grid losses :math:`(\\text{offset} + k)h` that carry ``masses``."""
        return (self.offset + np.arange(self.masses.size)) * self.interval

    # ----------------------------------------------------------------------------------------
    @classmethod
    def from_privacy_profile(cls, delta: Callable[[np.ndarray], np.ndarray], *, lower: float,
                             upper: float, interval: float = 1e-4) -> _PrivacyLossDistribution:
        r"""Discretise a privacy profile pessimistically ("connect the dots").

        With :math:`\delta_k = \delta(kh)` on the grid from ``lower`` to ``upper``, the masses

        .. math::

            p_k = \frac{\delta_{k-1} - \delta_k}{1 - e^{-h}} - \frac{\delta_k - \delta_{k+1}}
            {e^{h} - 1}

        reproduce :math:`\delta_k` exactly at every grid point (Doroshenko et al. 2022,
        Alg. 1). The first point takes the mass below it (its loss is rounded up) and
        :math:`\delta` at the last point becomes mass at :math:`+\infty`: both only raise δ.

        Parameters
        ----------
        delta : callable
            The exact profile δ(ε), vectorised over an array of ε.
        lower, upper : float
            Losses where the grid starts and ends (``lower < upper``). Below ``lower`` the
            loss should have negligible probability, and δ(``upper``) should be negligible;
            either way the result stays an upper bound.
        interval : float, default 1e-4
            Grid spacing h: smaller is tighter and slower.

        Returns
        -------
        _PrivacyLossDistribution
        """
        h = _check_interval(interval)
        lower, upper = check_real(lower, "lower"), check_real(upper, "upper")
        if not lower < upper:
            raise ValueError(f"lower must be < upper, got {lower} and {upper}")
        first, last = math.floor(lower / h), math.ceil(upper / h)
        if last - first + 1 > _MAX_FFT // 2:
            raise ValueError("the grid from lower to upper is too long for interval; "
                             "use a larger interval")
        deltas = np.clip(np.asarray(delta((first + np.arange(last - first + 1)) * h),
                                    dtype=float), 0.0, 1.0)
        # keep the profile non-increasing, as every true profile is (rounding can break it)
        deltas = np.maximum.accumulate(deltas[::-1])[::-1]
        # D_k = (δ_{k-1} - δ_k)/(1 - e^{-h}) for k above the first point, and D = 0 past the
        # last point, whose δ becomes mass at +∞
        d = np.append(-np.diff(deltas) / -math.expm1(-h), 0.0)
        masses = np.empty_like(deltas)
        masses[1:] = d[:-1] - math.exp(-h) * d[1:]
        infinity = float(deltas[-1])
        masses[0] = 0.0
        masses = np.clip(masses, 0.0, None)
        masses[0] = max(0.0, 1.0 - infinity - float(masses[1:].sum()))
        return cls(masses, first, h, infinity)

    # ----------------------------------------------------------------------------------------
    def compose(self, other: _PrivacyLossDistribution) -> _PrivacyLossDistribution:
        """The PLD of running this mechanism and then ``other`` (same grid spacing)."""
        if not isinstance(other, _PrivacyLossDistribution):
            raise TypeError(f"other must be a PrivacyLossDistribution, got "
                            f"{type(other).__name__}")
        if not math.isclose(other.interval, self.interval, rel_tol=1e-12):
            raise ValueError(f"other has interval {other.interval}, not {self.interval}")
        size = self.masses.size + other.masses.size - 1
        n = 1 << max(1, (size - 1).bit_length())
        conv = np.fft.irfft(np.fft.rfft(self.masses, n) * np.fft.rfft(other.masses, n), n)
        infinity = 1.0 - (1.0 - self.infinity_mass) * (1.0 - other.infinity_mass)
        return _PrivacyLossDistribution(np.clip(conv[:size], 0.0, None),
                                       self.offset + other.offset, self.interval, infinity)

    def self_compose(self, count: int) -> _PrivacyLossDistribution:
        r"""The PLD of ``count`` runs of this mechanism, by one FFT.

        The masses are placed on a circle of N points centred on the composed mean and raised
        to the power ``count`` in the Fourier domain. Mass whose composed loss falls outside
        the circle would wrap around (aliasing); a Chernoff bound on it,
        :math:`\min_\lambda e^{-\lambda t} M(\lambda)^{\text{count}}` from the moment-generating
        function M of one run, picks N and is added to the mass at +∞, so the result stays
        an upper bound.
        """
        count = check_integer(count, "count", minimum=1)
        if count == 1:
            return self
        h, p = self.interval, self.masses
        k = np.arange(p.size, dtype=float)
        mean = float(np.dot(k, p) / p.sum())
        n, start, alias = self._window(count, mean)
        raw = np.fft.irfft(np.fft.rfft(p, n) ** count, n)
        # raw[j] is the mass of grid steps s with s ≡ j (mod n), s counted from count*offset;
        # unwrap into the window [start, start + n). Rounding leaves tiny values of both signs:
        # clipping the negative ones only adds mass.
        composed = np.roll(np.clip(raw, 0.0, None), -(start % n))
        infinity = min(1.0, 1.0 - (1.0 - self.infinity_mass) ** count + alias)
        nonzero = np.flatnonzero(composed)
        lo, hi = nonzero[0], nonzero[-1] + 1
        return _PrivacyLossDistribution(composed[lo:hi], count * self.offset + start + int(lo),
                                       h, infinity)

    def _window(self, count: int, mean: float) -> tuple[int, int, float]:
        """The FFT size, the window's first step, and a bound on the mass outside it."""
        p = self.masses
        support = p > 0
        k = np.arange(p.size, dtype=float)[support] - mean
        log_p = np.log(p[support])
        lambdas = np.geomspace(1e-8, 30.0, 40)
        log_m = {}
        for sign in (1, -1):      # log M(±λ) of the centred loss of one run, per λ
            x = log_p[None, :] + sign * np.outer(lambdas, k)
            top = x.max(axis=1)
            log_m[sign] = top + np.log(np.exp(x - top[:, None]).sum(axis=1))
        centre = count * mean
        n = 1 << max(1, int(p.size).bit_length())
        while n <= _MAX_FFT:
            start = math.floor(centre - n / 2)
            alias = sum(float(np.exp(np.min(count * log_m[sign] - lambdas * t)))
                        for sign, t in ((1, start + n - centre), (-1, centre - start)))
            if alias <= _ALIAS:
                return n, start, alias
            n *= 2
        raise ValueError("the composed loss is too wide for one FFT at this interval; "
                         "use a larger interval")

    # ----------------------------------------------------------------------------------------
    def delta(self, epsilon: float | Sequence[float] | np.ndarray) -> float | np.ndarray:
        r"""δ(ε) of this PLD: :math:`\omega + \sum_k p_k (1 - e^{\varepsilon - l_k})_+`.

        Parameters
        ----------
        epsilon : float or array_like of float
            One or more ε (any real; δ is non-increasing in ε).

        Returns
        -------
        float or numpy.ndarray
        """
        eps = np.asarray(epsilon, dtype=float)
        if np.any(~np.isfinite(eps)):
            raise ValueError("epsilon must be finite")
        losses = self.losses
        over = losses[None, :] > eps.reshape(-1, 1)
        gap = np.where(over, eps.reshape(-1, 1) - losses[None, :], 0.0)
        terms = np.where(over, -np.expm1(gap), 0.0) * self.masses[None, :]
        out = self.infinity_mass + terms.sum(axis=1)
        return as_scalar_or_array(np.minimum(out, 1.0).reshape(eps.shape))

    def epsilon(self, delta: float) -> float:
        r"""The smallest ε with δ(ε) ≤ ``delta`` (``inf`` if the mass at +∞ exceeds it).

        Between grid points δ(ε) = A − e^ε B, so the root is found exactly.
        """
        delta = check_delta(delta)
        if self.infinity_mass >= delta:
            return math.inf
        losses, p = self.losses, self.masses
        first = int(np.searchsorted(losses, 0.0))     # only ε >= 0 is asked for
        if first >= p.size:
            return 0.0
        losses, p = losses[first:], p[first:]
        # δ at each grid loss l_k >= 0: ω + sum_{j>k} p_j (1 - e^{l_k - l_j}), from two
        # running sums taken from the top (e^{-l_j} <= 1, so nothing overflows)
        above = np.concatenate((np.cumsum(p[::-1])[::-1][1:], [0.0]))
        weights = p * np.exp(-losses)
        weighted_above = np.concatenate((np.cumsum(weights[::-1])[::-1][1:], [0.0]))
        at_grid = self.infinity_mass + above - np.exp(losses) * weighted_above
        ok = np.flatnonzero(at_grid <= delta)
        if ok.size == 0:  # pragma: no cover - the last grid point has δ = ω < delta
            return math.inf
        k = int(ok[0])
        if k == 0:
            # δ(l_0) is small enough at the first grid loss l_0 >= 0: the root, if any, lies in
            # [0, l_0], where δ(ε) = A - e^ε B over every mass at a loss >= 0
            a, b = self.infinity_mass + float(p.sum()), float(weights.sum())
            if a - b <= delta or b <= 0:
                return 0.0
            return max(0.0, min(math.log((a - delta) / b), float(losses[0])))
        # on (l_{k-1}, l_k]: δ(ε) = A - e^ε B with A, B over the masses at j >= k
        a = self.infinity_mass + above[k - 1]
        b = float(weighted_above[k - 1])
        eps = math.log((a - delta) / b) if b > 0 else float(losses[k - 1])
        return max(0.0, min(max(eps, float(losses[k - 1])), float(losses[k])))


# --------------------------------------------------------------------------------------------
# Mechanisms
# --------------------------------------------------------------------------------------------
def _gaussian_pld(sigma: float, sensitivity: float = 1.0, *,
                 interval: float = 1e-4) -> _PrivacyLossDistribution:
    r"""PLD of the Gaussian mechanism :math:`\mathcal N(0, \sigma^2)` with L2 sensitivity Δ.

    With :math:`\mu = \Delta/\sigma` (the μ of μ-Gaussian DP, as in ``privacy-accounting``), the
    loss is :math:`\mathcal N(\mu^2/2, \mu^2)`, and the profile is Balle and Wang's (2018) exact
    :math:`\delta(\varepsilon) = \Phi(\tfrac{\mu}{2} - \tfrac{\varepsilon}{\mu})
    - e^\varepsilon \Phi(-\tfrac{\mu}{2} - \tfrac{\varepsilon}{\mu})`.
    The pair is symmetric, so this one PLD covers add and remove.

    Examples
    --------
    >>> round(_gaussian_pld(1.0).epsilon(1e-5), 3)
    4.377
    """
    from scipy.special import ndtr
    sigma = check_positive(sigma, "sigma")
    l2 = check_positive(sensitivity, "sensitivity")
    # the loss's mean mu^2/2 and standard deviation mu = l2/sigma, computed as before (the
    # grid's ends must not move by a rounding)
    loss_mean = l2**2 / (2 * sigma**2)
    a, b = l2 / (2 * sigma), sigma / l2           # mu/2 and 1/mu

    def profile(eps: np.ndarray) -> np.ndarray:
        return ndtr(a - eps * b) - np.exp(eps) * ndtr(-a - eps * b)

    spread = 12.0 * math.sqrt(2 * loss_mean)      # twelve standard deviations, 12 mu
    return _PrivacyLossDistribution.from_privacy_profile(
        profile, lower=loss_mean - spread - interval, upper=loss_mean + spread + interval,
        interval=interval)


def _laplace_pld(scale: float, sensitivity: float = 1.0, *,
                interval: float = 1e-4) -> _PrivacyLossDistribution:
    r"""PLD of the Laplace mechanism with scale b and L1 sensitivity Δ (ε₀ = Δ/b).

    The loss lies in [−ε₀, ε₀], with profile
    :math:`\delta(\varepsilon) = 1 - e^{(\varepsilon - \varepsilon_0)/2}` on that interval
    (0 above it, :math:`1 - e^\varepsilon` below). Symmetric, so one PLD covers add and remove.

    Examples
    --------
    >>> round(_laplace_pld(1.0).self_compose(10).epsilon(1e-5), 2)
    9.99
    """
    b = check_positive(scale, "scale")
    eps0 = check_positive(sensitivity, "sensitivity") / b

    def profile(eps: np.ndarray) -> np.ndarray:
        inside = -np.expm1((np.clip(eps, -eps0, eps0) - eps0) / 2)
        return np.where(eps < -eps0, -np.expm1(np.minimum(eps, 0.0)), inside)

    return _PrivacyLossDistribution.from_privacy_profile(
        profile, lower=-eps0, upper=eps0 + interval, interval=interval)


def _subsampled_gaussian_delta(sampling_rate: float, noise_multiplier: float,
                              epsilon: float | Sequence[float] | np.ndarray,
                              direction: str = "remove") -> float | np.ndarray:
    r"""Exact privacy profile of one step of the Poisson-subsampled Gaussian (DP-SGD).

    With rate q and noise multiplier z (sensitivity 1), the "remove" pair is
    :math:`P = (1-q)\mathcal N(0, z^2) + q\mathcal N(1, z^2)`, :math:`Q = \mathcal N(0, z^2)`,
    and with :math:`x^* = z^2\ln\frac{e^\varepsilon - 1 + q}{q} + \frac12`,

    .. math::

        \delta(\varepsilon) = q\,\bar\Phi\big(\tfrac{x^*-1}{z}\big)
        - (e^\varepsilon - 1 + q)\,\bar\Phi\big(\tfrac{x^*}{z}\big).

    The "add" pair swaps P and Q. Both must be checked under add/remove neighbours.

    Under replace-one neighbours one record's clipped gradient g is swapped for g', both of
    norm at most 1, so the worst pair puts them at +1 and −1 (Zhu, Dong and Wang 2022; the
    ``REPLACE_ONE`` pair of Google's ``dp-accounting``): "replace" is
    :math:`P = (1-q)\mathcal N(0, z^2) + q\mathcal N(1, z^2)`,
    :math:`Q = (1-q)\mathcal N(0, z^2) + q\mathcal N(-1, z^2)`. Its loss is increasing in y, and
    :math:`p(y) = e^\varepsilon q(y)` is a quadratic in :math:`u = e^{y/z^2}`,
    :math:`qa\,u^2 - (1-q)(e^\varepsilon - 1)\,u - e^\varepsilon qa = 0` with
    :math:`a = e^{-1/(2z^2)}`; from its positive root :math:`y^* = z^2\ln u`,
    :math:`\delta(\varepsilon) = P(Y > y^*) - e^\varepsilon Q(Y > y^*)`. Q is P mirrored, so the
    pair is symmetric. At ε = 0, :math:`y^* = 0` and δ is the total variation
    :math:`q\,(2\Phi(1/z) - 1)`.

    Parameters
    ----------
    sampling_rate : float
        q in (0, 1].
    noise_multiplier : float
        z > 0.
    epsilon : float or array_like of float
        Where to evaluate δ.
    direction : {"remove", "add", "replace"}, default "remove"

    Returns
    -------
    float or numpy.ndarray
    """
    from scipy.special import ndtr
    q = check_real(sampling_rate, "sampling_rate")
    if not 0 < q <= 1:
        raise ValueError(f"sampling_rate must be in (0, 1], got {q}")
    z = check_positive(noise_multiplier, "noise_multiplier")
    if direction not in _DIRECTIONS:
        raise ValueError(f"direction must be 'remove', 'add' or 'replace', got {direction!r}")
    eps = np.asarray(epsilon, dtype=float)
    if np.any(~np.isfinite(eps)):
        raise ValueError("epsilon must be finite")
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        e = np.exp(eps)
        if direction == "replace":
            a = math.exp(-1 / (2 * z * z))
            b = (1 - q) * (e - 1)                           # the root of q a u^2 - b u - e q a,
            root = np.sqrt(b * b + 4 * (q * a) ** 2 * e)     # written without cancellation
            u = np.where(b >= 0, (b + root) / (2 * q * a), 2 * q * a * e / (root - b))
            x = z**2 * np.log(u)
            tail_p = (1 - q) * ndtr(-x / z) + q * ndtr((1 - x) / z)
            tail_q = (1 - q) * ndtr(-x / z) + q * ndtr((-1 - x) / z)
            out = np.where(np.isfinite(x), tail_p - e * tail_q, -np.expm1(np.minimum(eps, 0)))
        elif direction == "remove":
            c = e - 1 + q                                   # δ = ∫ (q φ1 - c φ0)_+
            x = z**2 * np.log(np.where(c > 0, c / q, 1.0)) + 0.5
            out = np.where(c > 0, q * ndtr((1 - x) / z) - c * ndtr(-x / z), -np.expm1(eps))
        else:
            c = 1 - e * (1 - q)                             # δ = ∫ (c φ0 - e q φ1)_+
            x = z**2 * np.log(np.where(c > 0, c / (q * e), 1.0)) + 0.5
            out = np.where(c > 0, c * ndtr(x / z) - e * q * ndtr((x - 1) / z), 0.0)
    return as_scalar_or_array(np.clip(out, 0.0, 1.0))


def _subsampled_gaussian_pld(sampling_rate: float, noise_multiplier: float, *,
                            direction: str = "remove",
                            interval: float = 1e-4) -> _PrivacyLossDistribution:
    """PLD of one step of the Poisson-subsampled Gaussian in one ``direction``.

    See :func:`_subsampled_gaussian_delta` for the pairs ("remove", "add", "replace"). The
    grid runs from where the loss has less than 1e-18 probability below it (the "remove" loss
    is at least ln(1 − q)) to where δ falls below 1e-18.
    """
    from scipy.special import ndtri
    q = check_real(sampling_rate, "sampling_rate")
    if not 0 < q <= 1:
        raise ValueError(f"sampling_rate must be in (0, 1], got {q}")
    z = check_positive(noise_multiplier, "noise_multiplier")
    h = _check_interval(interval)
    x_hi = float(-ndtri(_TAIL)) * z + 1.0         # P-probability above x_hi is < 1e-18
    x_lo = float(ndtri(_TAIL)) * z                # and below x_lo

    def loss(x: float) -> float:                  # remove pair: ln(p/q) at y = x
        return math.log1p(-q + q * math.exp((2 * x - 1) / (2 * z * z))) if q < 1 else \
            (2 * x - 1) / (2 * z * z)

    if direction == "replace":                    # remove loss + add loss, mirrored: odd in x
        lower = loss(x_lo) - loss(-x_lo)
        upper = loss(x_hi) - loss(-x_hi)
    elif direction == "remove":
        lower = math.log1p(-q) if q < 1 else loss(x_lo)
        upper = loss(x_hi)
    elif direction == "add":                      # the add loss is minus the remove loss,
        lower = -loss(x_hi)                       # taken under N(0, z^2)
        upper = -math.log1p(-q) if q < 1 else -loss(x_lo)
    else:
        raise ValueError(f"direction must be 'remove', 'add' or 'replace', got {direction!r}")
    return _PrivacyLossDistribution.from_privacy_profile(
        lambda eps: _subsampled_gaussian_delta(q, z, eps, direction),
        lower=lower - h, upper=upper + h, interval=h)


# --------------------------------------------------------------------------------------------
# DP-SGD
# --------------------------------------------------------------------------------------------
#: The pairs of one DP-SGD step, by neighbour relation.
_DIRECTIONS = ("remove", "add", "replace")
_PAIRS = {"add/remove": ("remove", "add"), "replace-one": ("replace",)}


def _dpsgd_plds(q: float, z: float, steps: int, neighbours: str,
                interval: float) -> list[_PrivacyLossDistribution]:
    """The composed PLD of each pair that ``neighbours`` must check."""
    if neighbours not in _PAIRS:
        raise ValueError(f"neighbours must be 'add/remove' or 'replace-one', got {neighbours!r}")
    return [_subsampled_gaussian_pld(q, z, direction=d, interval=interval).self_compose(steps)
            for d in _PAIRS[neighbours]]


def _check_dpsgd(sampling_rate: float, steps: int, delta: float) -> tuple[float, int, float]:
    """The checked (sampling_rate, steps, delta) of a DP-SGD run, in (0, 1], >= 1 and (0, 1)."""
    q = check_real(sampling_rate, "sampling_rate")
    if not 0 < q <= 1:
        raise ValueError(f"sampling_rate must be in (0, 1], got {q}")
    return q, check_integer(steps, "steps", minimum=1), check_delta(delta)


def dpsgd_epsilon(sampling_rate: float, noise_multiplier: float, steps: int, delta: float,
                  accountant: str = "pld", *, interval: float = 1e-4,
                  neighbours: str = "add/remove") -> float:
    r"""ε of ``steps`` steps of DP-SGD (Poisson sampling, add/remove neighbours by default).

    Parameters
    ----------
    sampling_rate : float
        q in (0, 1]: the probability that a record enters a batch.
    noise_multiplier : float
        z > 0: the noise standard deviation divided by the clipping norm.
    steps : int
        Number of steps T >= 1.
    delta : float
        Target δ in (0, 1).
    accountant : {"pld", "rdp"}, default "pld"
        ``"pld"``: the privacy-loss distribution of each direction composed by FFT, the
        larger ε of the two; a pessimistic discretisation makes it an upper bound, within
        about 1e-3 of the exact value at the default ``interval``. ``"rdp"``: Rényi DP at
        the integer orders 2–256 only (the exact formula holds there), converted once
        (:func:`~dpcourse.gaussian.subsampled_gaussian_rdp`, :func:`rdp_to_dp`): a looser
        upper bound.
    interval : float, default 1e-4
        The PLD grid (``accountant="pld"`` only).
    neighbours : {"add/remove", "replace-one"}, default "add/remove"
        The neighbour relation (``accountant="pld"`` only); see :func:`dpsgd_delta`.

    Returns
    -------
    float

    Examples
    --------
    >>> round(dpsgd_epsilon(256 / 26048, 1.0, 102, 1e-5), 3)
    0.71
    """
    q, steps, delta = _check_dpsgd(sampling_rate, steps, delta)
    z = check_positive(noise_multiplier, "noise_multiplier")
    if accountant == "rdp" and neighbours != "add/remove":
        raise ValueError("neighbours must be 'add/remove' with accountant='rdp'")
    if accountant == "rdp":
        from .conversions import rdp_to_dp
        from .gaussian import subsampled_gaussian_rdp
        orders = np.arange(2, 257, dtype=float)
        return float(rdp_to_dp(steps * subsampled_gaussian_rdp(q, z, orders), orders, delta))
    if accountant != "pld":
        raise ValueError(f"accountant must be 'pld' or 'rdp', got {accountant!r}")
    return max(p.epsilon(delta) for p in _dpsgd_plds(q, z, steps, neighbours, interval))


def dpsgd_delta(sampling_rate: float, noise_multiplier: float, steps: int, epsilon: float,
                neighbours: str = "add/remove", *, interval: float = 1e-4) -> float:
    r"""δ(ε) of ``steps`` steps of DP-SGD (Poisson sampling): the PLD accountant's profile.

    Under add/remove neighbours the larger δ of the "remove" and "add" pairs; under
    replace-one (one record swapped for another, clipped gradients of norm at most 1 at +1 and
    −1) the one symmetric "replace" pair. At ``epsilon = 0`` the profile is the total variation
    distance :math:`\sup_S P(S) - Q(S)`: no test of D against its neighbour D', a membership
    attack included, has a true-positive rate above its false-positive rate by more. Like
    :func:`dpsgd_epsilon`, an upper bound, within about 1e-3 of the exact value relative to ε
    at the default ``interval``.

    Parameters
    ----------
    sampling_rate : float
        q in (0, 1]: the probability that a record enters a batch.
    noise_multiplier : float
        z > 0: the noise standard deviation divided by the clipping norm.
    steps : int
        Number of steps T >= 1.
    epsilon : float
        Where to read the profile, ε >= 0.
    neighbours : {"add/remove", "replace-one"}, default "add/remove"
        The neighbour relation: one record added or removed (the guarantee DP-SGD is usually
        stated under), or one record swapped for another (training sets of a fixed size, as a
        membership test compares them).
    interval : float, default 1e-4
        The PLD grid.

    Returns
    -------
    float
        δ(ε), in [0, 1].

    Raises
    ------
    TypeError
        If a number is not a real number (``steps``: not an integer); the message names it.
    ValueError
        If a parameter is out of range, or ``neighbours`` is unknown; the message names it.

    Examples
    --------
    >>> round(dpsgd_delta(0.2, 9.278, 150, 0.0, "replace-one"), 3)
    0.208
    """
    q, steps, _ = _check_dpsgd(sampling_rate, steps, 0.5)
    z = check_positive(noise_multiplier, "noise_multiplier")
    eps = check_real(epsilon, "epsilon")
    if eps < 0:
        raise ValueError(f"epsilon must be >= 0, got {eps}")
    return max(float(p.delta(eps)) for p in _dpsgd_plds(q, z, steps, neighbours,
                                                          _check_interval(interval)))


#: The calibration's search range for the noise multiplier.
_Z_MIN, _Z_MAX = 0.05, 1000.0


def _bracket(meets: Callable[[float], bool], start: float, factor: float) -> tuple[float, float]:
    """``(lo, hi)`` with ``hi / lo == factor``, ``meets(hi)`` and not ``meets(lo)``, from ``start``."""
    if meets(start):
        hi, lo = start, start / factor
        while meets(lo):
            if lo < _Z_MIN:
                raise ValueError(f"epsilon is met by every noise multiplier down to {_Z_MIN}: "
                                 "ask for a smaller epsilon")
            hi, lo = lo, lo / factor
    else:
        lo, hi = start, start * factor
        while not meets(hi):
            if hi > _Z_MAX:
                raise ValueError(f"epsilon is not met by any noise multiplier up to {_Z_MAX}: "
                                 "ask for a larger epsilon")
            lo, hi = hi, hi * factor
    return lo, hi


def _bisect(meets: Callable[[float], bool], lo: float, hi: float, rtol: float) -> float:
    """Shrink ``(lo, hi)`` (not ``meets(lo)``, ``meets(hi)``) to ``hi / lo <= 1 + rtol``; return hi."""
    while hi / lo > 1 + rtol:
        mid = math.sqrt(lo * hi)
        lo, hi = (lo, mid) if meets(mid) else (mid, hi)
    return hi


def dpsgd_noise_multiplier(sampling_rate: float, epsilon: float, steps: int, delta: float,
                           accountant: str = "pld", *, rtol: float = 1e-3,
                           interval: float = 1e-4) -> float:
    r"""The smallest noise multiplier whose DP-SGD run is (ε, δ)-DP: :func:`dpsgd_epsilon` inverted.

    DP-SGD's ε falls as the noise multiplier z grows, so a bisection on z finds the smallest z
    (up to a factor ``1 + rtol``) with ``dpsgd_epsilon(sampling_rate, z, steps, delta,
    accountant) <= epsilon``. The returned z always meets the target under the chosen
    accountant. With ``accountant="pld"`` the bisection runs on a grid ten times coarser than
    ``interval`` (several times faster), and its answer is checked on ``interval`` itself
    (and raised by factors ``1 + rtol`` until it meets the target there).

    Parameters
    ----------
    sampling_rate : float
        q in (0, 1]: the probability that a record enters a batch.
    epsilon : float
        Target ε > 0.
    steps : int
        Number of steps T >= 1.
    delta : float
        Target δ in (0, 1).
    accountant : {"pld", "rdp"}, default "pld"
        The accountant whose ε must meet the target (see :func:`dpsgd_epsilon`). The RDP
        bound is looser, so it asks for more noise.
    rtol : float, default 1e-3
        Relative precision of z, in (0, 0.1].
    interval : float, default 1e-4
        The PLD grid (``accountant="pld"`` only).

    Returns
    -------
    float
        The noise multiplier z, between 0.05 and 1000.

    Raises
    ------
    ValueError
        If an argument is out of range, or no z in [0.05, 1000] brackets the target. A
        noise multiplier whose loss is too wide for the FFT counts as missing the target.

    Examples
    --------
    >>> z = dpsgd_noise_multiplier(256 / 26048, 1.0, 102, 1e-5)
    >>> dpsgd_epsilon(256 / 26048, z, 102, 1e-5) <= 1.0
    True
    """
    q, steps, delta = _check_dpsgd(sampling_rate, steps, delta)
    target = check_positive(epsilon, "epsilon")
    if accountant not in ("pld", "rdp"):
        raise ValueError(f"accountant must be 'pld' or 'rdp', got {accountant!r}")
    rtol = check_positive(rtol, "rtol")
    if rtol > 0.1:
        raise ValueError(f"rtol must be in (0, 0.1], got {rtol}")
    h = _check_interval(interval)

    def meets_on(grid: float) -> Callable[[float], bool]:
        def meets(z: float) -> bool:
            try:
                return dpsgd_epsilon(q, z, steps, delta, accountant, interval=grid) <= target
            except ValueError:    # a loss too wide for the FFT: far above any useful target
                return False
        return meets

    fine = meets_on(h)
    if accountant == "rdp":
        return _bisect(fine, *_bracket(fine, 1.0, 2.0), rtol)
    # the search runs on a ten times coarser grid (several times faster; its ε differs from the
    # fine grid's by about one coarse step); the answer is then checked on the fine grid, and
    # raised by factors 1 + rtol until it meets the target there
    coarse = meets_on(min(10 * h, 0.1))
    z = _bisect(coarse, *_bracket(coarse, 1.0, 2.0), rtol)
    while not fine(z):
        z *= 1 + rtol
    return z

r"""Keeping track of privacy loss: the accountant, and the budgets of a real release.

* :class:`PrivacyAccountant` charges every release against a total budget *before* the data
  are touched and refuses a release that would exceed it. In ``mode="pure"`` it adds ε's
  exactly (sequential composition); in ``mode="zcdp"`` it adds ρ's (Bun and Steinke 2016)
  and in ``mode="rdp"`` whole Rényi-DP curves (Mironov 2017), converting to (ε, δ) once.
* :class:`CountingTable` counts how often a table's rows are read, so a chapter can show that
  a refused release never touched the data.
* The 2020 US Census redistricting release's budgets, as its production code states them.

The accountant only composes: each mechanism's guarantee comes from that mechanism's module
(the Gaussian's ρ and Rényi DP from :mod:`dpcourse.gaussian`), and the conversions to
(ε, δ) from :mod:`dpcourse.conversions`. Every bound is an upper bound on the true privacy
loss: an accountant may overstate it, never understate it. The tests compare it with Google's
``dp-accounting``.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd

from .conversions import pure_dp_to_rdp, rdp_to_dp, zcdp_to_dp
from .gaussian import gaussian_rdp, gaussian_rho, subsampled_gaussian_rdp
from .validation import check_delta, check_epsilon, check_integer, check_positive, check_real

__all__ = ["CENSUS_2020_DELTA", "CENSUS_2020_PERSONS_RHO", "CENSUS_2020_UNITS_RHO",
           "BudgetExceededError", "CountingTable", "PrivacyAccountant"]

#: Rényi orders α used by ``mode="rdp"``: fine steps in (1, 2], then integers, then a few large
#: ones. Fixed in advance, so choosing the best of them is free (it does not look at the data).
_RDP_ORDERS = np.concatenate([np.round(np.arange(1.05, 2.0, 0.05), 2), np.arange(2, 65),
                             np.array([72, 80, 96, 128, 192, 256, 384, 512, 1024])]).astype(float)

#: ρ (zCDP, replace-one neighbours) of the 2020 US Census redistricting release's persons file,
#: as the Census Bureau's production code computes it: ``rho = 1 / global_scale ** 2`` with
#: ``global_scale = 339/542`` in ``source/configs/production/pl94/person_default.ini`` of
#: DAS_2020_Redistricting_Production_Code. The noise is the discrete Gaussian. The same
#: repository's certificate for the US persons file
#: (``docs/certificates/DAS-PL94171-PRODUCTION-RUN1A-202106241420-US-Persons.certificate.pdf``)
#: states ρ = 293764/114921 (≈ 2.56), that is (542/339)².
CENSUS_2020_PERSONS_RHO: float = 1 / (339 / 542) ** 2
#: ρ of the same release's housing-units file (table H1), likewise ``1 / global_scale ** 2``
#: with ``global_scale = 12343/3379`` (``pl94/unit_default.ini``, printed on page 9 of
#: ``docs/certificates/DAS-PL94171-PRODUCTION-RUN1A-202106241420-US-Units.certificate.pdf`` in
#: DAS_2020_Redistricting_Production_Code). That certificate states ρ = 11417641/152349649
#: (≈ 0.07), that is (3379/12343)², and ε ≈ 2.47 at the δ below.
CENSUS_2020_UNITS_RHO: float = 1 / (12343 / 3379) ** 2
#: The δ at which that code states (ε, δ): ``approx_dp_delta`` in
#: ``source/configs/production/prod_default.ini``.
CENSUS_2020_DELTA: float = 1e-10


class BudgetExceededError(RuntimeError):
    """Raised by :class:`PrivacyAccountant` when a spend would exceed the total budget.

    Attributes
    ----------
    asked : float or None
        The increase of the total ε (at the accountant's δ) that the refused spend would have
        caused (``None`` when an accountant other than :class:`PrivacyAccountant` raises it).
    remaining : float or None
        The ε that remained, unchanged by the refusal.
    """

    def __init__(self, message: str, *, asked: float | None = None,
                 remaining: float | None = None) -> None:
        super().__init__(message)
        self.asked = asked
        self.remaining = remaining


class CountingTable:
    """A table that counts how often its rows are read.

    A release function charges the accountant first and reads the data second; wrapping the
    data in a ``CountingTable`` makes that order visible: after a refused release,
    :attr:`reads` has not moved.

    Parameters
    ----------
    df : pandas.DataFrame
        The data to guard.

    Examples
    --------
    >>> import pandas as pd
    >>> table = CountingTable(pd.DataFrame({"age": [39, 50]}))
    >>> int(table.read()["age"].sum()), table.reads
    (89, 1)
    """

    def __init__(self, df: pd.DataFrame) -> None:
        if not isinstance(df, pd.DataFrame):
            raise TypeError(f"df must be a pandas DataFrame, got {type(df).__name__}")
        self._df = df
        #: How many times :meth:`read` has been called.
        self.reads = 0

    def read(self) -> pd.DataFrame:
        """Return the data, counting the read.

        Returns
        -------
        pandas.DataFrame
            The wrapped table itself (not a copy).
        """
        self.reads += 1
        return self._df


def _exact(epsilon: Any, name: str) -> Fraction:
    """An epsilon as an exact fraction: 0.3 means 3/10, not the double nearest to it.

    A rational number (an ``int`` or a :class:`~fractions.Fraction`) is kept exactly, so twelve
    spends of ``Fraction(1, 12)`` make exactly 1; the float ``1 / 12`` would leave 4e-17.
    """
    value = check_epsilon(epsilon, name)  # type and range checks, named after the parameter
    return Fraction(epsilon) if isinstance(epsilon, numbers.Rational) else Fraction(str(value))


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
        return _ZCDPLoss(self.delta, self.rho + count * gaussian_rho(sigma, l2))

    def plus_rho(self, rho: Fraction) -> _ZCDPLoss:
        return _ZCDPLoss(self.delta, self.rho + rho)

    def epsilon(self) -> float:
        return zcdp_to_dp(float(self.rho), self.delta)


class _RDPLoss:
    """Rényi DP: whole curves over :data:`_RDP_ORDERS` add up; one conversion at the end."""

    def __init__(self, delta: float, curve: np.ndarray | None = None) -> None:
        self.delta = delta
        self.curve = np.zeros_like(_RDP_ORDERS) if curve is None else curve

    def _plus(self, extra: np.ndarray) -> _RDPLoss:
        return _RDPLoss(self.delta, self.curve + extra)

    def plus_pure(self, epsilon: Fraction) -> _RDPLoss:
        return self._plus(pure_dp_to_rdp(float(epsilon), _RDP_ORDERS))

    def plus_parallel(self, epsilons: list[Fraction]) -> _RDPLoss:
        return self._plus(pure_dp_to_rdp(float(max(epsilons)), _RDP_ORDERS))

    def plus_gaussian(self, sigma: float, l2: float, count: int, q: float) -> _RDPLoss:
        return self._plus(count * subsampled_gaussian_rdp(q, sigma / l2, _RDP_ORDERS)
                          if q < 1 else count * gaussian_rdp(sigma, _RDP_ORDERS, l2))

    def plus_rho(self, rho: Fraction) -> _RDPLoss:
        return self._plus(float(rho) * _RDP_ORDERS)

    def epsilon(self) -> float:
        if not np.any(self.curve > 0):
            return 0.0
        return rdp_to_dp(self.curve, _RDP_ORDERS, self.delta)


_MODES = {"pure": _PureLoss, "zcdp": _ZCDPLoss, "rdp": _RDPLoss}


class PrivacyAccountant:
    """Track a privacy budget, refusing any spend that would exceed it.

    ``mode="pure"`` (the default) composes pure ε-DP releases sequentially: the ε's add.
    Amounts are kept as exact fractions of their decimal forms, so three spends of 0.3 out of
    1.0 leave exactly 0.1 (with floats, 1.0 - 0.3 - 0.3 - 0.3 is 0.09999999999999998). A
    :class:`~fractions.Fraction` is kept as it is: twelve spends of ``Fraction(1, 12)`` use up
    a budget of 1 exactly, and a thirteenth is refused with nothing left.

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

    def _charge(self, new_loss: Any, label: str) -> None:
        if not isinstance(label, str):
            raise TypeError(f"label must be a string, got {type(label).__name__}")
        before, after = self._loss.epsilon(), new_loss.epsilon()
        limit = self._total if self.mode == "pure" else self.total
        if after > limit:
            # the increase of the total epsilon (at delta), as the ledger would record it: in
            # mode="pure" the epsilon asked for; a Gaussian's sigma or a rho is not an epsilon
            raise BudgetExceededError(
                f"spending {float(after - before)} would exceed the budget: "
                f"{self.remaining} of {self.total} remains",
                asked=float(after - before), remaining=self.remaining)
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
        self._charge(self._loss.plus_pure(amount), label)

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
        self._charge(self._loss.plus_parallel(amounts), label)

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
        self._charge(self._loss.plus_gaussian(sigma, l2, count, q), label)

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
        self._charge(self._loss.plus_rho(amount), label)

    def __repr__(self) -> str:
        extra = "" if self.mode == "pure" else f", delta={self.delta}, mode={self.mode!r}"
        return (f"PrivacyAccountant(total={self.total}, spent={self.spent}, "
                f"remaining={self.remaining}{extra})")

"""Empirical privacy auditing: statistical lower bounds on a mechanism's ε.

An audit samples a mechanism on two neighbouring datasets and asks how different the two
output distributions must be. It can refute a privacy claim (a bug in a sensitivity, a noise
scale, a sampler); it can never prove one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .validation import check_generator, check_integer, check_real

__all__ = ["audit_epsilon"]


@dataclass(frozen=True)
class _AuditResult:
    """Outcome of :func:`audit_epsilon` (read its fields; the type itself is not exported).

    Attributes
    ----------
    epsilon_lower_bound : float
        With probability at least ``confidence``, the mechanism is not (ε, δ)-DP for any ε
        below this (δ is the audit's ``delta``). ``0.0`` when no event gives evidence of any
        privacy loss.
    event : str
        The output event S that gave the bound, e.g. ``"output >= 2.31"``.
    p_hat, q_hat : float
        Observed frequencies of the event on the two datasets (test half of the samples).
    n_samples : int
        Samples drawn on each dataset.
    confidence : float
        Confidence level of the bound.
    delta : float
        The δ the bound is stated for (0 for pure ε-DP).
    """

    epsilon_lower_bound: float
    event: str
    p_hat: float
    q_hat: float
    n_samples: int
    confidence: float
    delta: float = 0.0


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
    delta: float = 0.0,
) -> _AuditResult:
    r"""Statistical lower bound on the ε of a mechanism with real (or integer) outputs.

    Draws ``n_samples`` outputs on ``dataset`` and on ``neighbour``. The first half of each
    sample picks the most revealing threshold event :math:`S` (``output >= c`` or
    ``output < c``, in either direction); the second half, untouched by that choice, estimates
    :math:`p = \Pr[M(D) \in S]` and :math:`q = \Pr[M(D') \in S]` with Clopper-Pearson bounds.
    The result :math:`\ln((p_{\text{low}} - \delta) / q_{\text{high}})` is a lower bound on ε
    that holds with probability at least ``confidence``: an (ε, δ)-DP mechanism satisfies
    :math:`p \le e^\varepsilon q + \delta`, so a claimed ε below the bound (at this δ) is
    refuted. With ``delta = 0`` it audits pure ε-DP. An audit can only catch violations;
    passing it proves nothing.

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
    delta : float, default 0.0
        The δ of the claim being audited, in [0, 1).

    Returns
    -------
    _AuditResult
        A frozen record: ``epsilon_lower_bound``, the ``event`` that gave it, ``p_hat`` and
        ``q_hat``, ``n_samples``, ``confidence`` and ``delta``. Chapters read its fields; its
        type is not part of the public surface.
    """
    if not callable(mechanism):
        raise TypeError("mechanism must be callable as mechanism(data, rng, size)")
    rng = check_generator(rng)
    n_samples = check_integer(n_samples, "n_samples", minimum=100)
    confidence = check_real(confidence, "confidence")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    n_thresholds = check_integer(n_thresholds, "n_thresholds", minimum=1)
    delta = check_real(delta, "delta")
    if not 0 <= delta < 1:
        raise ValueError(f"delta must be in [0, 1), got {delta}")

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
    bound = float(np.log((p_low[0] - delta) / q_high[0])) if p_low[0] > delta else 0.0
    where = "dataset" if big == 0 else "neighbour"
    event = f"output {'>=' if kind == 'ge' else '<'} {c:.6g} (more likely on the {where})"
    return _AuditResult(
        epsilon_lower_bound=max(bound, 0.0),
        event=event,
        p_hat=k_big / n_test,
        q_hat=k_small / n_test,
        n_samples=int(n_samples),
        confidence=confidence,
        delta=delta,
    )

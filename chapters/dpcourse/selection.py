r"""Choosing among candidates privately: the exponential mechanism.

The exponential mechanism (McSherry and Talwar 2007; Dwork and Roth 2014, Def. 3.4 and
Thm 3.10) outputs candidate :math:`r` with probability proportional to
:math:`\exp(\varepsilon\,u(D, r)/(2\Delta u))`. It is ε-DP for any utility of sensitivity
:math:`\Delta u`, under the neighbour relation for which :math:`\Delta u` was computed, when the
candidate set does not depend on the data.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

# SciPy (0.4 s to import) is imported inside the functions that use it, so `import helpers`
# stays quick in the chapters that never need it.

from .validation import check_array, check_epsilon, check_generator, check_integer, check_positive

__all__ = ["exponential_mechanism", "exponential_mechanism_probabilities"]


def exponential_mechanism_probabilities(
    utilities: Sequence[float] | np.ndarray, epsilon: float, sensitivity: float,
    monotone: bool = False,
) -> np.ndarray:
    r"""Exact output distribution of :func:`exponential_mechanism`.

    Parameters
    ----------
    utilities, epsilon, sensitivity, monotone
        As in :func:`exponential_mechanism`.

    Returns
    -------
    numpy.ndarray
        :math:`\Pr[\text{output} = r]` for every candidate, summing to 1.
    """
    from scipy.special import logsumexp
    u = check_array(utilities, "utilities")
    if u.ndim != 1:
        raise ValueError(f"utilities must be one-dimensional, got shape {u.shape}")
    epsilon = check_epsilon(epsilon)
    sensitivity = check_positive(sensitivity, "sensitivity")
    if not isinstance(monotone, bool):
        raise TypeError(f"monotone must be True or False, got {monotone!r}")
    factor = 1.0 if monotone else 2.0
    logits = epsilon * u / (factor * sensitivity)
    return np.exp(logits - logsumexp(logits))  # log-sum-exp: no overflow for large scores


def exponential_mechanism(
    utilities: Sequence[float] | np.ndarray,
    epsilon: float,
    sensitivity: float,
    rng: np.random.Generator,
    monotone: bool = False,
    size: int | None = None,
) -> int | np.ndarray:
    r"""Pick a candidate index with the exponential mechanism.

    Candidate :math:`r` is returned with probability proportional to
    :math:`\exp(\varepsilon\,u_r/(2\Delta u))`, which is ε-DP when every utility changes by at
    most :math:`\Delta u` between neighbours. With ``monotone=True`` the factor 2 is dropped:
    that is ε-DP only if, for every pair of neighbours, all utilities move in the same
    direction (counts under add/remove neighbours do; a histogram under replace-one does not).
    The candidates (the positions of ``utilities``) must be fixed before looking at the data.

    Sampling is by inversion of the exact probabilities (:func:`exponential_mechanism_probabilities`,
    computed with log-sum-exp); like every floating-point sampler in the course it is for
    teaching, and a seeded ``rng`` can be replayed.

    Parameters
    ----------
    utilities : array_like of float
        One finite score per candidate, higher is better.
    epsilon : float
        Privacy parameter, ``> 0``.
    sensitivity : float
        :math:`\Delta u > 0`, the largest change of any one score between neighbours.
    rng : numpy.random.Generator
        Seeded source of randomness.
    monotone : bool, default False
        Drop the factor 2 (see above).
    size : int, optional
        Number of independent draws; ``None`` returns one ``int``.

    Returns
    -------
    int or numpy.ndarray of int64
        Index (indices) of the chosen candidate(s).

    Examples
    --------
    >>> from dpcourse.randomness import make_rng
    >>> exponential_mechanism([0.0, 50.0, 1.0], epsilon=1.0, sensitivity=1.0, rng=make_rng(0))
    1
    """
    probabilities = exponential_mechanism_probabilities(utilities, epsilon, sensitivity, monotone)
    rng = check_generator(rng)
    cumulative = np.cumsum(probabilities)
    cumulative[-1] = 1.0
    if size is None:
        return int(np.searchsorted(cumulative, rng.random(), side="right"))
    size = check_integer(size, "size", minimum=0)
    return np.searchsorted(cumulative, rng.random(size), side="right").astype(np.int64)

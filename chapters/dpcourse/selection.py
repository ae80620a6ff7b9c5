r"""Choosing among candidates privately: the exponential mechanism and report-noisy-max.

The exponential mechanism (McSherry and Talwar 2007; Dwork and Roth 2014, Def. 3.4 and
Thm 3.10) outputs candidate :math:`r` with probability proportional to
:math:`\exp(\varepsilon\,u(D, r)/(2\Delta u))`. It is ε-DP for any utility of sensitivity
:math:`\Delta u`, under the neighbour relation for which :math:`\Delta u` was computed, when the
candidate set does not depend on the data. Report-noisy-max releases the index of the largest
noisy score; :func:`noisy_max_probabilities` gives its exact output distribution.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

# SciPy (0.4 s to import) is imported inside the functions that use it, so `import helpers`
# stays quick in the chapters that never need it.

from .validation import check_array, check_epsilon, check_generator, check_integer, check_positive

__all__ = ["exponential_mechanism", "exponential_mechanism_probabilities", "noisy_max_probabilities",
           "quantile_utility"]


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


def quantile_utility(
    values: Sequence[float] | np.ndarray, candidates: Sequence[float] | np.ndarray, tau: float,
) -> np.ndarray:
    r"""Scores of candidate τ-quantiles for the exponential mechanism.

    Candidate :math:`r` scores :math:`-\big|(1 - \tau)\,\#\{x < r\} - \tau\,\#\{x > r\}\big|`, which is
    largest where a fraction :math:`\tau` of the values lies below :math:`r`. Adding or removing one
    value changes one of the two counts by 1, so every score moves by at most
    :math:`\max(\tau, 1 - \tau)` under add/remove neighbours: pass that as the sensitivity of
    :func:`exponential_mechanism` (the score is not monotone, so keep the factor 2). The
    candidates must be a public grid, fixed before looking at the data.

    Parameters
    ----------
    values : array_like of float
        The private values (one per person), finite, at least one.
    candidates : array_like of float
        The public grid of candidate quantiles.
    tau : float
        The quantile level τ, strictly between 0 and 1.

    Returns
    -------
    numpy.ndarray
        One score per candidate (``<= 0``), in the order of ``candidates``.

    Examples
    --------
    >>> quantile_utility([1, 2, 3, 4], [0, 2, 5], 0.5).tolist()
    [-2.0, -0.5, -2.0]
    """
    x = np.sort(check_array(values, "values").ravel())
    grid = check_array(candidates, "candidates").ravel()
    tau = check_positive(tau, "tau")
    if not tau < 1:
        raise ValueError(f"tau must be in (0, 1), got {tau}")
    below = np.searchsorted(x, grid, side="left")
    above = x.size - np.searchsorted(x, grid, side="right")
    return -np.abs((1 - tau) * below - tau * above)


#: The noise families of :func:`noisy_max_probabilities`, by name.
_NOISY_MAX_NOISE = ("laplace", "exponential", "gumbel")


def noisy_max_probabilities(
    scores: Sequence[float] | np.ndarray, noise: str, scale: float, n_grid: int = 20_001,
) -> np.ndarray:
    r"""Exact output distribution of report-noisy-max, by numerical integration.

    Report-noisy-max adds i.i.d. noise :math:`Z_r` to every score :math:`u_r` and releases
    :math:`\arg\max_r (u_r + Z_r)`, never the noisy scores. Candidate :math:`i` wins when its
    noisy score is :math:`x` and every other one is below :math:`x`:

    .. math:: \Pr[\text{output } i] = \int f(x - u_i) \prod_{j \ne i} F(x - u_j)\,dx,

    with :math:`f` and :math:`F` the noise's density and distribution function. The integral is
    evaluated by the trapezoidal rule on ``n_grid`` points from 40 noise scales below the best
    score (from the best score itself for exponential noise, which is never negative) to 40
    scales above it, with the product in log space. With Gumbel noise of scale
    :math:`2\Delta u/\varepsilon` this is the exponential mechanism; with exponential noise of
    that scale it is permute-and-flip (Ding et al. 2021).

    Parameters
    ----------
    scores : array_like of float
        One finite score per candidate, at least one.
    noise : {"laplace", "exponential", "gumbel"}
        The noise family.
    scale : float
        The noise's scale, ``> 0``.
    n_grid : int, default 20001
        Number of grid points, at least 3. The error shrinks with the grid; for scores within a
        few scales of each other, the default gives about six correct decimals.

    Returns
    -------
    numpy.ndarray
        :math:`\Pr[\text{output} = i]` for every candidate, normalised to sum to 1.

    Examples
    --------
    >>> noisy_max_probabilities([0.0, 0.0], "laplace", 1.0).round(6).tolist()
    [0.5, 0.5]
    """
    from scipy import stats
    u = check_array(scores, "scores")
    if u.ndim != 1 or u.size == 0:
        raise ValueError(f"scores must be a non-empty one-dimensional array, got shape {u.shape}")
    if noise not in _NOISY_MAX_NOISE:
        raise ValueError(f"noise must be one of {_NOISY_MAX_NOISE}, got {noise!r}")
    scale = check_positive(scale, "scale")
    n_grid = check_integer(n_grid, "n_grid", minimum=3)
    top = u.max()
    start = top if noise == "exponential" else top - 40 * scale
    x = np.linspace(start, top + 40 * scale, n_grid)
    dist = {"laplace": stats.laplace, "exponential": stats.expon,
            "gumbel": stats.gumbel_r}[noise](scale=scale)
    shifted = x[None, :] - u[:, None]
    log_cdf = np.maximum(dist.logcdf(shifted), -1e4)  # log 0 -> -1e4: exp() gives 0, no nan
    others = log_cdf.sum(axis=0) - log_cdf  # log of prod_{j != i} F(x - u_j)
    probabilities = np.trapezoid(dist.pdf(shifted) * np.exp(others), x, axis=1)
    return probabilities / probabilities.sum()

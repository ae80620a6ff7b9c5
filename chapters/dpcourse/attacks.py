"""What an adversary can achieve: the best possible test, and the differencing attack on Igor.

:func:`hypothesis_test_bound` is the ceiling that (ε, δ)-DP puts on *any* attack that must
tell two neighbouring datasets apart; :func:`differencing_attack_success` measures, by
simulation, how close a concrete attack comes to it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .data import load_health
from .mechanisms import laplace_mechanism
from .validation import (as_scalar_or_array, check_array, check_epsilon, check_generator,
                         check_integer, check_real)

__all__ = ["differencing_attack_success", "hypothesis_test_bound"]


def hypothesis_test_bound(
    epsilon: float | Sequence[float] | np.ndarray, delta: float = 0.0
) -> float | np.ndarray:
    r"""Highest success probability of any test telling two neighbours apart.

    If a mechanism is (ε, δ)-DP, an attacker who must guess which of two neighbouring datasets
    produced its output, each a priori equally likely, is right with probability at most

    .. math::

        \frac{e^\varepsilon + \delta}{1 + e^\varepsilon},

    whatever test they use (Kairouz, Oh and Viswanath 2015). For pure ε-DP (``delta = 0``)
    this is :math:`e^\varepsilon / (1 + e^\varepsilon)`; ``epsilon = 0`` and ``delta = 0``
    give 1/2, a coin flip.

    Parameters
    ----------
    epsilon : float or array_like of float
        Privacy parameter(s), each finite and ``>= 0``.
    delta : float, default 0.0
        δ in [0, 1].

    Returns
    -------
    float or numpy.ndarray
        A float for a scalar ``epsilon``, otherwise an array of the same shape.

    Examples
    --------
    >>> hypothesis_test_bound(0.0)
    0.5
    >>> round(hypothesis_test_bound(0.1), 4)
    0.525
    >>> round(hypothesis_test_bound(1.0, delta=1e-5), 6)
    0.731061
    """
    eps = check_array(epsilon, "epsilon")
    if np.any(eps < 0):
        raise ValueError("epsilon must be >= 0")
    delta = check_real(delta, "delta")
    if not 0 <= delta <= 1:
        raise ValueError(f"delta must be in [0, 1], got {delta}")
    bound = 1.0 / (1.0 + np.exp(-eps)) + delta / (1.0 + np.exp(eps))
    return as_scalar_or_array(bound)


def differencing_attack_success(
    epsilon: float,
    rng: np.random.Generator,
    n_trials: int = 100_000,
    n_repeats: int = 1,
) -> float:
    """Monte Carlo success rate of the differencing attack on Igor under Laplace noise.

    The attacker asks two counts of the health table: ``q1`` = patients with obesity, and
    ``q2`` = patients with obesity who are not White males (this excludes Igor, index 9).
    Each count is released ``n_repeats`` times with fresh ``Lap(1/epsilon)`` noise; the attacker
    averages each count's answers and guesses "Igor is obese" when the averages differ by more
    than 1/2. Half of the trials use the real table (Igor obese), half its replace-one
    neighbour in which Igor has another problem, so a coin flip scores 1/2.

    Every answer to ``q1`` is ``epsilon``-DP; ``q2`` does not depend on Igor's row. By
    sequential composition the attacker's view is ``n_repeats * epsilon``-DP with respect to
    Igor's row, so no test can succeed with probability above
    ``exp(n_repeats*epsilon) / (1 + exp(n_repeats*epsilon))``.

    Parameters
    ----------
    epsilon : float
        Privacy parameter of each single answer, ``> 0``.
    rng : numpy.random.Generator
        Source of the noise.
    n_trials : int, default 100_000
        Simulated attacks (``>= 2``).
    n_repeats : int, default 1
        How often each count is asked (``>= 1``).

    Returns
    -------
    float
        The share of trials in which the attacker guessed right.
    """
    epsilon = check_epsilon(epsilon)
    rng = check_generator(rng)
    n_trials = check_integer(n_trials, "n_trials", minimum=2)
    n_repeats = check_integer(n_repeats, "n_repeats", minimum=1)
    health = load_health()
    obese = health["problem"] == "Obesity"
    white_male = (health["ethnicity"] == "White") & (health["sex"] == "Male")
    q2_true = int((obese & ~white_male).sum())            # same in both worlds
    q1_obese = int(obese.sum())                           # real table: Igor is obese
    q1_not = q1_obese - int((obese & white_male).sum())   # neighbour: Igor is not
    igor_obese = np.arange(n_trials) % 2 == 0
    q1_true = np.where(igor_obese, q1_obese, q1_not).astype(float)
    # the mean of n_repeats answers, built in chunks to bound memory
    chunk = max(1, 4_000_000 // n_repeats)
    diff = np.empty(n_trials)
    for start in range(0, n_trials, chunk):
        stop = min(start + chunk, n_trials)
        q1 = laplace_mechanism(np.repeat(q1_true[start:stop, None], n_repeats, axis=1),
                               1.0, epsilon, rng).mean(axis=1)
        q2 = laplace_mechanism(np.full((stop - start, n_repeats), float(q2_true)),
                               1.0, epsilon, rng).mean(axis=1)
        diff[start:stop] = q1 - q2
    guess_obese = diff > 0.5
    return float(np.mean(guess_obese == igor_obese))

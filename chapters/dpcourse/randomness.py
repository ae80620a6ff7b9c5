"""Where the course's random numbers come from.

Two sources, for two purposes:

* :func:`make_rng` gives a *seeded* ``numpy.random.Generator``. The course uses it everywhere,
  so that every number printed in a chapter comes back when the chapter is re-run. Seeded noise
  is for teaching only: anyone who knows or guesses the seed can regenerate the noise and
  subtract it from a release.
* :class:`SecureRandom` draws uniform integers from the operating system's entropy (Python's
  :mod:`secrets`). It has no seed and cannot be replayed. The exact samplers
  (:func:`dpcourse.mechanisms.discrete_laplace_noise`) accept it: that is the path for a real
  release.
"""

from __future__ import annotations

import secrets

import numpy as np

from .validation import check_integer

__all__ = ["SecureRandom", "make_rng"]


def make_rng(seed: int = 42) -> np.random.Generator:
    """Return the seeded random generator that a chapter passes to every random function.

    Seeded randomness makes the course reproducible. It must never protect a real release:
    whoever knows the seed knows the noise. Use :class:`SecureRandom` (or a vetted library)
    for that.

    Parameters
    ----------
    seed : int, default 42
        A non-negative integer. The same seed gives the same stream on every machine.

    Returns
    -------
    numpy.random.Generator
        A PCG64 generator.

    Examples
    --------
    >>> rng = make_rng(7)
    >>> float(rng.random()) == float(make_rng(7).random())
    True
    """
    seed = check_integer(seed, "seed", minimum=0)
    return np.random.default_rng(seed)


class SecureRandom:
    """Uniform random integers from the operating system's entropy, for real releases.

    Every call asks :func:`secrets.randbelow`, which reads the operating system's
    cryptographically secure source. There is no seed, so nobody (the course included) can
    replay the stream. Only the integer interface that the exact samplers need is provided.

    Examples
    --------
    >>> source = SecureRandom()
    >>> 0 <= source.integers(0, 10) < 10
    True
    """

    def integers(self, low: int, high: int | None = None,
                 size: int | None = None) -> int | np.ndarray:
        """Uniform integers in ``[low, high)`` (or ``[0, low)`` when ``high`` is omitted).

        Parameters
        ----------
        low, high : int
            Bounds, ``high > low``. Python integers of any size for one draw; with ``size``,
            the draws are ``int64``, so ``-2**63 <= low`` and ``high <= 2**63``.
        size : int, optional
            Number of draws (an ``int64`` array); ``None`` returns one Python ``int``.
        """
        if high is None:
            low, high = 0, low
        low, high = check_integer(low, "low"), check_integer(high, "high")
        if high <= low:
            raise ValueError(f"high must be > low, got low={low}, high={high}")
        if size is None:
            return low + secrets.randbelow(high - low)
        size = check_integer(size, "size", minimum=0)
        if low < -2**63:
            raise ValueError(f"low must be >= -2**63 when size is given (the draws are int64; "
                             f"draw larger integers one at a time), got {low}")
        if high > 2**63:
            raise ValueError(f"high must be <= 2**63 when size is given (the draws are int64; "
                             f"draw larger integers one at a time), got {high}")
        return np.array([low + secrets.randbelow(high - low) for _ in range(size)],
                        dtype=np.int64)

    def __repr__(self) -> str:
        return "SecureRandom()  # operating-system entropy, no seed"


def check_random_source(rng: object) -> np.random.Generator | SecureRandom:
    """A seeded generator (teaching) or a :class:`SecureRandom` (releases)."""
    if not isinstance(rng, (np.random.Generator, SecureRandom)):
        raise TypeError("rng must be a numpy.random.Generator (helpers.make_rng) or a "
                        f"helpers.SecureRandom, got {type(rng).__name__}")
    return rng

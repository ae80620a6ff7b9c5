"""An event table about people: many rows per person, for user-level privacy.

Every other dataset of the course has one row per person. Real data rarely does: a person makes
many visits, purchases or searches. :func:`event_table` turns the people of UCI Adult into such a
table, reproducibly. Each person ``u`` gets a heavy-tailed number of events ``n_u``, with

    ``n_u = 1 + floor(X)``,  ``X ~ Pareto(1.5)`` (numpy's Lomax form),  so ``P(n_u > k) = (1 + k)^-1.5``,

and every event gets a day of the year, an amount and a merchant. The merchants are integer keys
drawn from a Zipf law: there is no public list of them, which is what makes partition selection
necessary. Each event carries its person's education, a key with a public domain of 16 values.

:func:`bound_contributions` bounds what one person contributes to such a table: at most ℓ
partitions (keys) per person and at most C rows per partition, both chosen uniformly at random,
which is the first step of every user-level release.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .data import ADULT_CATEGORIES
from .validation import check_integer

__all__ = ["bound_contributions", "event_table"]

#: Shape of the Pareto law of the number of events per person (the tail index).
_PARETO_SHAPE = 1.5
#: Log-normal parameters of an event's amount (median e^3 ~ 20).
_AMOUNT_MEAN, _AMOUNT_SIGMA = 3.0, 1.0
#: Exponent of the Zipf law of merchants.
_ZIPF_EXPONENT = 1.5


def _event_counts(rng: np.random.Generator, size: int) -> np.ndarray:
    """``size`` draws of ``n_u = 1 + floor(Pareto(1.5))``."""
    return 1 + np.floor(rng.pareto(_PARETO_SHAPE, size)).astype(np.int64)


def event_table(people: pd.DataFrame, *, n_rows: int | None = None,
                seed: int = 2026) -> pd.DataFrame:
    """Build a seeded event table with a heavy-tailed number of rows per person.

    With ``n_rows=None`` every row of ``people`` is one person (``person_id`` is its position,
    0 to ``len(people) - 1``) and the draws are, in this order, from
    ``numpy.random.default_rng(seed)``:

    1. ``n_u = 1 + floor(rng.pareto(1.5, len(people)))``, the number of events of each person;
    2. ``day = rng.integers(1, 366, n)`` for the ``n = sum(n_u)`` events;
    3. ``amount = round(rng.lognormal(3.0, 1.0, n))``;
    4. ``merchant = rng.zipf(1.5, n)``.

    On UCI Adult this gives 87,630 events (person 0 first, each person's events together).

    With ``n_rows`` given, the table has exactly ``n_rows`` events, for benchmarks at scale.
    The counts are drawn first, ``n_u = 1 + floor(rng.pareto(1.5, n_rows))`` (enough, since every
    ``n_u >= 1``); the first ``k`` of them are kept, where ``k`` is the first person at which the
    running total reaches ``n_rows``, and the last person's count is cut so that the total is
    exactly ``n_rows``. Then ``rng.integers(0, len(people), k)`` draws each person's row of
    ``people`` with replacement (``person_id`` is 0 to ``k - 1``: people drawn twice are two
    people), and the events are drawn as above. Because numpy's Pareto draws do not depend on
    the batch size, the first ``len(people)`` counts equal those of ``n_rows=None``.

    Parameters
    ----------
    people : pandas.DataFrame
        One row per person, with an ``education`` column whose values are among the 16 public
        levels of ``helpers.ADULT_CATEGORIES["education"]`` (for example ``helpers.load_adult()``).
    n_rows : int or None, default None
        ``None`` for one person per row of ``people``; otherwise the exact number of events,
        ``>= 1``.
    seed : int, default 2026
        Seed of ``numpy.random.default_rng``, ``>= 0``.

    Returns
    -------
    pandas.DataFrame
        Columns ``person_id``, ``day`` (1 to 365), ``amount`` (a non-negative whole number) and
        ``merchant`` (a positive integer key), all ``int64``, and ``education`` (categorical
        over the 16 public levels, in their public order). One row per event, each person's
        events together, in order of ``person_id``.

    Raises
    ------
    TypeError
        If ``people`` is not a DataFrame, or ``n_rows`` or ``seed`` is not an integer.
    ValueError
        If ``people`` is empty, lacks ``education`` or has a value outside its public levels,
        or if ``n_rows < 1`` or ``seed < 0``.

    Examples
    --------
    >>> import pandas as pd
    >>> people = pd.DataFrame({"education": ["Bachelors", "HS-grad", "Masters"]})
    >>> events = event_table(people, seed=1)
    >>> list(events.columns)
    ['person_id', 'day', 'amount', 'merchant', 'education']
    >>> len(event_table(people, n_rows=10))
    10
    """
    if not isinstance(people, pd.DataFrame):
        raise TypeError(f"people must be a pandas DataFrame, got {type(people).__name__}")
    if len(people) == 0:
        raise ValueError("people must have at least one row")
    if "education" not in people.columns:
        raise ValueError("people must have an 'education' column")
    levels = list(ADULT_CATEGORIES["education"])
    position = {level: i for i, level in enumerate(levels)}
    values = people["education"].to_numpy(dtype=object)
    bad = sorted({str(v) for v in set(values) if v not in position})
    if bad:
        raise ValueError(f"people['education'] has values outside the public levels: {bad[:5]}")
    education_codes = pd.Series(values).map(position).to_numpy(dtype=np.int8)
    if n_rows is not None:
        n_rows = check_integer(n_rows, "n_rows", minimum=1)
    seed = check_integer(seed, "seed", minimum=0)

    rng = np.random.default_rng(seed)
    if n_rows is None:
        counts = _event_counts(rng, len(people))
        source = np.arange(len(people))
    else:
        counts = _event_counts(rng, n_rows)
        total = np.cumsum(counts)
        k = int(np.searchsorted(total, n_rows)) + 1       # first person with total >= n_rows
        counts = counts[:k].copy()
        counts[-1] -= int(total[k - 1]) - n_rows          # cut the last person to fit exactly
        source = rng.integers(0, len(people), k)
    n = int(counts.sum())
    person_id = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    day = rng.integers(1, 366, n)
    amount = np.round(rng.lognormal(_AMOUNT_MEAN, _AMOUNT_SIGMA, n)).astype(np.int64)
    merchant = rng.zipf(_ZIPF_EXPONENT, n).astype(np.int64)
    codes = np.repeat(education_codes[source], counts)
    return pd.DataFrame({
        "person_id": person_id,
        "day": day.astype(np.int64),
        "amount": amount,
        "merchant": merchant,
        "education": pd.Categorical.from_codes(codes, categories=levels),
    })


def _integer_column(values: Any, name: str) -> np.ndarray:
    """A one-dimensional integer array, or a clear error naming ``name``."""
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{name} must hold integers (codes), got dtype {arr.dtype}")
    return arr


def bound_contributions(person: Any, key: Any, max_partitions: int, max_per_partition: int,
                        priority: np.random.Generator | Any) -> np.ndarray:
    """Which rows to keep so that each person touches at most ``max_partitions`` keys and at
    most ``max_per_partition`` rows of each.

    Every row has two priorities: ``priority[:, 1]`` ranks the rows of one (person, key) pair,
    and ``priority[:, 0]`` of the pair's first row (in table order) ranks the person's pairs.
    A person keeps the ``max_partitions`` pairs (ℓ, the L0 bound) with the smallest pair
    priorities and, in each, the ``max_per_partition`` rows (C, the L∞ bound) with the smallest
    row priorities. With independent uniform priorities both choices are uniform at random,
    whatever the sizes of a person's partitions. Because each row's priorities are fixed, a
    person's choice depends on that person's rows only: removing one person leaves every other
    person's kept rows unchanged, so a count per key moves by at most ℓ·C.

    Parameters
    ----------
    person : array of int
        The person of each row (any integer identifiers), one-dimensional.
    key : array of int
        The partition key of each row (integer codes), the same length as ``person``.
    max_partitions : int
        ℓ, the most keys one person may contribute to, ``>= 1``.
    max_per_partition : int
        C, the most rows one person may contribute to one key, ``>= 1``.
    priority : numpy.random.Generator or array of shape (n, 2)
        The rows' priorities, or a generator that draws them, uniform on [0, 1), as
        ``priority.random((n, 2))``. Pass the array when the same rows must be chosen again
        from a table with some people removed.

    Returns
    -------
    numpy.ndarray of bool
        One entry per row: ``True`` for the rows kept.

    Raises
    ------
    TypeError
        If ``person`` or ``key`` does not hold integers, if a bound is not an integer, or if
        ``priority`` is neither a generator nor an array of numbers.
    ValueError
        If ``person`` and ``key`` differ in length or are not one-dimensional, if a bound is
        ``< 1``, or if ``priority`` is not of shape ``(n, 2)`` or holds NaN.

    Examples
    --------
    >>> import numpy as np
    >>> person = np.array([0, 0, 0, 0, 1])
    >>> key = np.array([5, 5, 5, 6, 5])
    >>> keep = bound_contributions(person, key, 1, 2, np.random.default_rng(0))
    >>> int(keep[person == 0].sum()) in (1, 2), bool(keep[4])
    (True, True)
    """
    person = _integer_column(person, "person")
    key = _integer_column(key, "key")
    if person.size != key.size:
        raise ValueError(f"person and key must have the same length, got {person.size} "
                         f"and {key.size}")
    max_partitions = check_integer(max_partitions, "max_partitions", minimum=1)
    max_per_partition = check_integer(max_per_partition, "max_per_partition", minimum=1)
    n = person.size
    if isinstance(priority, np.random.Generator):
        priority = priority.random((n, 2))
    else:
        try:
            priority = np.asarray(priority, dtype=float)
        except (TypeError, ValueError) as err:
            raise TypeError("priority must be a numpy.random.Generator or an array of "
                            f"numbers: {err}") from None
        if priority.shape != (n, 2):
            raise ValueError(f"priority must have shape ({n}, 2), one pair per row, "
                             f"got {priority.shape}")
        if np.isnan(priority).any():
            raise ValueError("priority must not hold NaN")
    if n == 0:
        return np.zeros(0, dtype=bool)
    # rows sorted by person, then key, then row priority: the rank of a row inside its pair
    order = np.lexsort((priority[:, 1], key, person))
    p, k = person[order], key[order]
    new_pair = np.r_[True, (p[1:] != p[:-1]) | (k[1:] != k[:-1])]
    pair = np.cumsum(new_pair) - 1                          # the (person, key) pair of each row
    starts = np.flatnonzero(new_pair)
    rank_in_pair = np.arange(n) - starts[pair]
    # each pair's priority is that of its first row in the table; rank the pairs of a person
    earliest = np.minimum.reduceat(order, starts)
    pair_person = p[starts]
    pair_order = np.lexsort((priority[earliest, 0], pair_person))
    sorted_person = pair_person[pair_order]
    new_person = np.r_[True, sorted_person[1:] != sorted_person[:-1]]
    first = np.flatnonzero(new_person)
    pair_rank = np.empty(starts.size, dtype=np.int64)
    pair_rank[pair_order] = np.arange(starts.size) - first[np.cumsum(new_person) - 1]
    keep = np.empty(n, dtype=bool)
    keep[order] = (rank_in_pair < max_per_partition) & (pair_rank[pair] < max_partitions)
    return keep

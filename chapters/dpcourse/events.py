"""An event table about people: many rows per person, for user-level privacy.

Every other dataset of the course has one row per person. Real data rarely does: a person makes
many visits, purchases or searches. :func:`event_table` turns the people of UCI Adult into such a
table, reproducibly. Each person ``u`` gets a heavy-tailed number of events ``n_u``, with

    ``n_u = 1 + floor(X)``,  ``X ~ Pareto(1.5)`` (numpy's Lomax form),  so ``P(n_u > k) = (1 + k)^-1.5``,

and every event gets a day of the year, an amount and a merchant. The merchants are integer keys
drawn from a Zipf law: there is no public list of them, which is what makes partition selection
necessary. Each event carries its person's education, a key with a public domain of 16 values.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .data import ADULT_CATEGORIES
from .validation import check_integer

__all__ = ["event_table"]

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

"""Build the event table of Part VI from UCI Adult: many rows per person.

The table is derived at run time, never committed: the chapters call
``helpers.event_table(helpers.load_adult())`` (87,630 events, a few hundredths of a second), and
this script writes the same table to a file for tools outside Python or for the engine
benchmarks at 10^5, 10^6 and 10^7 rows. Run from anywhere with the course's virtual
environment::

    python data/build_events.py                               # print the facts of the table
    python data/build_events.py --out events.parquet          # write it (Parquet or CSV)
    python data/build_events.py --rows 10000000 --out events-1e7.parquet

How the table is made (``chapters/dpcourse/events.py`` has the code and the details): every
person of Adult (``person_id`` = row position) gets ``n_u = 1 + floor(Pareto(1.5))`` events,
so ``P(n_u > k) = (1 + k)^-1.5``; every event gets a day (uniform on 1..365), an amount
(``round(LogNormal(3, 1))``) and a merchant (``Zipf(1.5)``, a key with no public list), and
carries its person's education (16 public levels). All draws come from
``numpy.random.default_rng(2026)``, in that order. With ``--rows`` the counts are drawn first and
people are drawn from Adult with replacement until exactly that many events exist.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "chapters"))

import helpers  # noqa: E402  (needs the path above)


def facts(events) -> dict[str, object]:
    """The summary the datasheet quotes: rows, people, the tail of n_u, the merchants."""
    n_u = events.groupby("person_id").size().to_numpy()
    top = np.sort(n_u)[::-1][: int(np.ceil(0.01 * len(n_u)))]
    per_merchant = events.groupby("merchant")["person_id"].nunique()
    return {
        "events": len(events),
        "people": len(n_u),
        "n_u median / 90th / 99th percentile / max": (
            f"{np.median(n_u):g} / {np.quantile(n_u, 0.9):g} / {np.quantile(n_u, 0.99):g} / "
            f"{n_u.max():,}"),
        "share of events held by the top 1 % of people": f"{top.sum() / n_u.sum():.1%}",
        "merchants / used by one person only": (
            f"{len(per_merchant):,} / {int((per_merchant == 1).sum()):,}"),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=None,
                        help="exact number of events (default: one person per Adult row)")
    parser.add_argument("--seed", type=int, default=2026, help="generator seed (default 2026)")
    parser.add_argument("--out", type=Path, default=None,
                        help="write the table to this .parquet or .csv file")
    args = parser.parse_args(argv)
    events = helpers.event_table(helpers.load_adult(), n_rows=args.rows, seed=args.seed)
    for key, value in facts(events).items():
        print(f"{key}: {value:,}" if isinstance(value, int) else f"{key}: {value}")
    if args.out is not None:
        suffix = args.out.suffix.lower()
        if suffix == ".parquet":
            events.to_parquet(args.out, index=False)
        elif suffix == ".csv":
            events.to_csv(args.out, index=False)
        else:
            parser.error(f"--out must end in .parquet or .csv, got {args.out.name}")
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

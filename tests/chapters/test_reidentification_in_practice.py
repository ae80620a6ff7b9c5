"""Going deeper from linkage-attacks: uniqueness in a 10% sample against the whole table.

The sample is drawn again here with the page's seed, and uniqueness is counted with a
``Counter`` over value tuples (the page uses ``duplicated``); the glued numbers are read back
from the executed notebook and compared.
"""

from __future__ import annotations

from collections import Counter

import helpers
from conftest import glued


def thousands(n: int) -> str:
    return f"{n:,}"


def test_sample_uniqueness_glue(adult):
    g = glued("reidentification-in-practice")
    five = ["age", "sex", "race", "native_country", "workclass"]
    rows = helpers.make_rng(42).choice(len(adult), size=len(adult) // 10, replace=False)
    sample = adult.iloc[rows]
    adult_keys = list(zip(*(adult[c].astype(object).where(adult[c].notna(), "<missing>")
                            for c in five)))
    adult_counts = Counter(adult_keys)
    sample_counts = Counter(adult_keys[i] for i in rows)
    unique_in_sample = [i for i in rows if sample_counts[adult_keys[i]] == 1]
    also = [i for i in unique_in_sample if adult_counts[adult_keys[i]] == 1]
    assert g["reid_n_sample"] == thousands(len(sample))
    assert g["reid_n_unique_sample"] == thousands(len(unique_in_sample))
    assert g["reid_share_unique_sample"] == f"{len(unique_in_sample) / len(rows):.2%}"
    assert g["reid_n_also_unique"] == thousands(len(also))
    assert g["reid_share_also_unique"] == f"{len(also) / len(unique_in_sample):.0%}"
    assert g["reid_share_unique_adult"] == "7.25%"  # the core's five-attribute unicity
    # the page's claims: a sample has far more unique rows, and most of them have a twin in Adult
    assert len(unique_in_sample) / len(rows) > 2 * 2_361 / len(adult)
    assert len(also) < len(unique_in_sample) / 2
    # a row unique in the whole table is unique in any sample that contains it
    assert all(i in unique_in_sample for i in rows if adult_counts[adult_keys[i]] == 1)

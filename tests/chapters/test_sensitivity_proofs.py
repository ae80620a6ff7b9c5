"""Tests for the going-deeper page ``sensitivity-proofs``: the exhaustive check over small
datasets counts its pairs as combinatorics says and finds the bounds of the theorems."""

from __future__ import annotations

from conftest import glued


def test_exhaustive_check_counts_its_pairs_and_finds_the_mean_add_remove_bound():
    from math import comb

    g = glued("sensitivity-proofs")
    domain, max_rows = 5, 3
    multisets = [comb(domain + s - 1, s) for s in range(max_rows + 1)]
    # each dataset of size s: one add/remove pair per value, s replace-one pairs per value
    pairs = sum(m * domain * (1 + s) for s, m in enumerate(multisets))
    assert g["sens_exhaustive_pairs"] == f"{pairs:,}"
    assert g["sens_exhaustive_matches"] == "every"
    assert g["sens_mean_ar_small"] == f"{(80 - 20) / 2:g}"  # from {L} to {L, U}

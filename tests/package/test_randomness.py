"""Seeded and secure randomness: ``make_rng`` and ``SecureRandom`` (chapters/dpcourse/randomness.py)."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import helpers


# --------------------------------------------------------------------------------------------
# make_rng
# --------------------------------------------------------------------------------------------


def test_make_rng_is_seeded_and_independent_of_global_state():
    a = helpers.make_rng(123).random(5)
    np.random.seed(999)  # the legacy global state must not matter
    b = helpers.make_rng(123).random(5)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, helpers.make_rng(124).random(5))
    assert isinstance(helpers.make_rng(), np.random.Generator)
    assert np.array_equal(helpers.make_rng().random(3), helpers.make_rng(42).random(3))


@pytest.mark.parametrize("seed, exc", [(-1, ValueError), (1.5, TypeError), (True, TypeError),
                                       ("1", TypeError)])
def test_make_rng_rejects_bad_seed(seed, exc):
    with pytest.raises(exc, match="^seed must"):  # the message opens with the parameter's name
        helpers.make_rng(seed)


def test_make_rng_accepts_seed_zero():
    """0 is a valid seed (the smallest), and gives numpy's own stream for 0."""
    assert np.array_equal(helpers.make_rng(0).random(4), np.random.default_rng(0).random(4))


# --------------------------------------------------------------------------------------------
# SecureRandom
# --------------------------------------------------------------------------------------------


def test_secure_random_is_uniform_over_its_range():
    """Chi-square against the uniform law on 10 values (unseeded: fails with probability 1e-6)."""
    draws = helpers.SecureRandom().integers(3, 13, size=20_000)
    assert draws.min() >= 3 and draws.max() <= 12
    observed = np.bincount(draws - 3, minlength=10)
    assert stats.chisquare(observed).pvalue > 1e-6
    single = helpers.SecureRandom().integers(5)
    assert isinstance(single, int) and 0 <= single < 5
    big = helpers.SecureRandom().integers(0, 2**200)  # exact samplers need big integers
    assert 0 <= big < 2**200


def test_secure_random_cannot_be_seeded_or_replayed():
    with pytest.raises(TypeError):
        helpers.SecureRandom(42)  # there is no seed to give
    # resetting every global seed a program could set does not replay it
    draws = []
    for _ in range(2):
        np.random.seed(1)
        random.seed(1)
        draws.append(helpers.SecureRandom().integers(0, 2**62, size=8))
    assert not np.array_equal(*draws)  # equal with probability 2**-496
    assert "no seed" in repr(helpers.SecureRandom())


def test_secure_random_single_draws_cover_exactly_their_range():
    """One draw at a time: ``integers(n)`` is [0, n), ``integers(low, high)`` is [low, high).

    Each value of a 2- or 3-value range is missed by 300 draws with probability at most
    (2/3)**300 < 1e-52, so every value is seen and nothing outside the range is.
    """
    source = helpers.SecureRandom()
    assert {source.integers(2) for _ in range(300)} == {0, 1}
    assert {source.integers(10, 13) for _ in range(300)} == {10, 11, 12}
    assert {source.integers(-3, -1) for _ in range(300)} == {-3, -2}
    huge = {source.integers(2**100, 2**100 + 2) for _ in range(300)}
    assert huge == {2**100, 2**100 + 1}


def test_secure_random_arrays_are_int64_and_may_be_empty():
    source = helpers.SecureRandom()
    draws = source.integers(-2**63, -2**63 + 3, size=300)  # the int64 range's lowest end
    assert draws.dtype == np.int64 and set(draws.tolist()) == {-2**63, -2**63 + 1, -2**63 + 2}
    top = source.integers(2**63 - 2, 2**63, size=300)
    assert set(top.tolist()) == {2**63 - 2, 2**63 - 1}
    empty = source.integers(5, size=0)
    assert empty.shape == (0,) and empty.dtype == np.int64


@pytest.mark.parametrize("low, high, size, exc, word", [
    (5, 5, None, ValueError, "high"),
    (0, -1, None, ValueError, "high"),
    (0.5, 3, None, TypeError, "low"),
    (0, 2.5, None, TypeError, "high"),
    (0, 3, -1, ValueError, "size"),
    (0, 3, 1.5, TypeError, "size"),
    (-2**63 - 1, 0, 2, ValueError, "low"),   # an array holds int64: a clear error, not overflow
    (0, 2**63 + 1, 2, ValueError, "high"),
])
def test_secure_random_bad_input(low, high, size, exc, word):
    with pytest.raises(exc, match=f"^{word} must"):  # the message opens with the parameter
        helpers.SecureRandom().integers(low, high, size=size)


def test_secure_random_names_itself_in_its_repr():
    text = repr(helpers.SecureRandom())
    assert text.startswith("SecureRandom()") and "no seed" in text


def test_check_random_source_takes_either_source_and_names_rng_otherwise():
    from dpcourse.randomness import check_random_source

    seeded, secure = helpers.make_rng(1), helpers.SecureRandom()
    assert check_random_source(seeded) is seeded and check_random_source(secure) is secure
    with pytest.raises(TypeError, match=r"^rng must be a numpy\.random\.Generator "
                                        r"\(helpers\.make_rng\) or a helpers\.SecureRandom, "
                                        r"got int$"):
        check_random_source(7)

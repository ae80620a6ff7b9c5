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
    with pytest.raises(exc, match="seed"):
        helpers.make_rng(seed)


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


@pytest.mark.parametrize("low, high, size, exc, word", [
    (5, 5, None, ValueError, "high"),
    (0, -1, None, ValueError, "high"),
    (0.5, 3, None, TypeError, "low"),
    (0, 3, -1, ValueError, "size"),
    (0, 3, 1.5, TypeError, "size"),
])
def test_secure_random_bad_input(low, high, size, exc, word):
    with pytest.raises(exc, match=word):
        helpers.SecureRandom().integers(low, high, size=size)

"""The input checks every public function uses (chapters/dpcourse/validation.py).

Each check returns the cleaned value or raises ``TypeError`` (wrong kind) or ``ValueError`` (bad
value) with a message that opens with the parameter's name: the course's promise that bad input
gets a clear error naming the parameter. The boundaries are tested on both sides.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from dpcourse import validation as v


def test_check_real_returns_a_float_and_refuses_bools_strings_and_non_finite():
    assert v.check_real(3, "x") == 3.0 and type(v.check_real(3, "x")) is float
    assert v.check_real(Fraction(1, 4), "x") == 0.25 and v.check_real(np.int64(-2), "x") == -2.0
    for bad, kind in [(True, "bool"), ("1", "str"), (None, "NoneType"), ([1.0], "list")]:
        with pytest.raises(TypeError, match=f"^x must be a real number, got {kind}$"):
            v.check_real(bad, "x")
    for bad in (math.inf, -math.inf, math.nan):
        with pytest.raises(ValueError, match=f"^x must be finite, got {bad}$"):
            v.check_real(bad, "x")


def test_positive_nonnegative_and_epsilon_at_their_boundaries():
    assert v.check_positive(1e-300, "sigma") == 1e-300
    with pytest.raises(ValueError, match=r"^sigma must be > 0, got 0\.0$"):
        v.check_positive(0, "sigma")
    assert v.check_nonnegative(0, "sensitivity") == 0.0
    with pytest.raises(ValueError, match=r"^sensitivity must be >= 0, got -1e-300$"):
        v.check_nonnegative(-1e-300, "sensitivity")
    assert v.check_epsilon(0.5) == 0.5
    with pytest.raises(ValueError, match="^epsilon must be > 0"):
        v.check_epsilon(0)
    with pytest.raises(ValueError, match="^eps_total must be > 0"):
        v.check_epsilon(-1, "eps_total")


def test_check_delta_is_the_open_unit_interval():
    assert v.check_delta(1e-300) == 1e-300 and v.check_delta(1 - 1e-16) == 1 - 1e-16
    for bad in (0, 1, -0.5, 2):
        with pytest.raises(ValueError, match=rf"^delta must be in \(0, 1\), got {float(bad)}$"):
            v.check_delta(bad)
    with pytest.raises(ValueError, match="^target_delta must be in"):
        v.check_delta(1.0, "target_delta")


def test_check_integer_refuses_bools_and_floats_and_checks_the_minimum():
    assert v.check_integer(np.int32(7), "k") == 7 and type(v.check_integer(np.int32(7), "k")) is int
    assert v.check_integer(-5, "k") == -5  # no minimum: any integer
    assert v.check_integer(2, "k", minimum=2) == 2
    with pytest.raises(ValueError, match="^k must be >= 2, got 1$"):
        v.check_integer(1, "k", minimum=2)
    with pytest.raises(ValueError, match="^k must be >= 0, got -1$"):
        v.check_integer(-1, "k", minimum=0)  # 0 is a minimum too
    for bad, kind in [(True, "bool"), (2.0, "float"), ("2", "str")]:
        with pytest.raises(TypeError, match=f"^k must be an integer, got {kind}$"):
            v.check_integer(bad, "k")


def test_check_array_returns_floats_and_names_what_is_wrong():
    arr = v.check_array([[1, 2], [3, 4]], "value")
    assert arr.dtype == np.float64 and arr.shape == (2, 2)
    assert v.check_array(5, "value").shape == ()
    for bad in (None, True, "abc", b"1"):
        with pytest.raises(TypeError, match=f"^value must be a number or an array of numbers, "
                                            f"got {repr(bad)}"):
            v.check_array(bad, "value")
    with pytest.raises(TypeError, match="^value must be a number or an array of numbers: "):
        v.check_array(["a", 1], "value")
    with pytest.raises(ValueError, match="^value must not be empty$"):
        v.check_array([], "value")
    with pytest.raises(ValueError, match=r"^value must be finite \(no NaN or infinity\)$"):
        v.check_array([1.0, math.inf], "value")


def test_check_bits_accepts_zero_one_and_booleans_only():
    out = v.check_bits([True, False, 1, 0], "bits")
    assert out.tolist() == [1, 0, 1, 0] and out.dtype == np.int64
    assert v.check_bits(np.array([1.0, 0.0]), "bits").tolist() == [1, 0]
    with pytest.raises(ValueError, match="^bits must not be empty$"):
        v.check_bits([], "bits")
    with pytest.raises(TypeError, match="^bits must hold 0/1 or booleans, got dtype <U1$"):
        v.check_bits(["1"], "bits")
    with pytest.raises(ValueError, match=r"^bits must hold only 0/1 \(or booleans\)$"):
        v.check_bits([0, 1, 2], "bits")


def test_check_generator_and_scalars():
    rng = np.random.default_rng(0)
    assert v.check_generator(rng) is rng
    with pytest.raises(TypeError, match=r"^rng must be a numpy\.random\.Generator "
                                        r"\(use helpers\.make_rng\), got RandomState$"):
        v.check_generator(np.random.RandomState(0))
    assert type(v.as_scalar_or_array(np.array(2.5))) is float
    vec = np.array([1.0, 2.0])
    assert v.as_scalar_or_array(vec) is vec


@pytest.mark.parametrize("check", [v.check_positive, v.check_nonnegative, v.check_delta])
def test_every_real_check_names_the_parameter_for_a_wrong_type(check):
    with pytest.raises(TypeError, match="^rate must be a real number, got str$"):
        check("0.5", "rate")

"""Formatting of numbers for the prose (chapters/dpcourse/formatting.py)."""

from __future__ import annotations

import pytest

import helpers


@pytest.mark.parametrize("value, digits, expected", [
    (4.1234e-08, 1, "4.1 × 10⁻⁸"),
    (1.03e-28, 2, "1.03 × 10⁻²⁸"),
    (123456.0, 2, "1.23 × 10⁵"),
    (-0.00052, 1, "-5.2 × 10⁻⁴"),
    (0.0, 1, "0.0 × 10⁰"),
    (7.0, 0, "7 × 10⁰"),
])
def test_scientific(value, digits, expected):
    assert helpers.scientific(value, digits) == expected


def test_the_mantissa_and_exponent_give_back_the_value():
    for value in (3.14159e-12, 2.5e7, 9.99e-5):
        text = helpers.scientific(value, 3)
        mantissa, power = text.split(" × 10")
        exponent = int(power.translate(str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")))
        assert float(mantissa) * 10.0**exponent == pytest.approx(value, rel=1e-3)


@pytest.mark.parametrize("call, exc, word", [
    (lambda: helpers.scientific(float("nan")), ValueError, "value"),
    (lambda: helpers.scientific(float("inf")), ValueError, "value"),
    (lambda: helpers.scientific("1e-5"), TypeError, "value"),
    (lambda: helpers.scientific(1e-5, -1), ValueError, "digits"),
    (lambda: helpers.scientific(1e-5, 1.5), TypeError, "digits"),
])
def test_bad_input_is_rejected(call, exc, word):
    with pytest.raises(exc, match=word):
        call()


def test_set_display_options_sets_what_the_stored_outputs_need():
    import pandas as pd

    keys = ["display.width", "display.max_columns", "display.max_rows", "display.precision"]
    with pd.option_context("display.width", 80, "display.max_columns", 5,
                           "display.max_rows", 10, "display.precision", 6):
        assert helpers.set_display_options() is None
        assert [pd.get_option(k) for k in keys] == [100, 20, 30, 4]


def test_one_decimal_by_default():
    assert helpers.scientific(4.1234e-08) == "4.1 × 10⁻⁸"
    assert helpers.scientific(-6.0e23) == "-6.0 × 10²³"
    assert helpers.scientific(1.0e-99) == "1.0 × 10⁻⁹⁹"


@pytest.mark.parametrize("call, exc, message", [
    (lambda: helpers.scientific(float("nan")), ValueError, r"^value must be finite, got nan$"),
    (lambda: helpers.scientific("1e-5"), TypeError, r"^value must be a real number, got str$"),
    (lambda: helpers.scientific(1e-5, -1), ValueError, r"^digits must be >= 0, got -1$"),
    (lambda: helpers.scientific(1e-5, 1.5), TypeError, r"^digits must be an integer, got float$"),
])
def test_messages_start_with_the_parameter(call, exc, message):
    with pytest.raises(exc, match=message):
        call()

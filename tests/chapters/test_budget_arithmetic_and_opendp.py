"""Tests for the going-deeper section budget-arithmetic-and-opendp (of composition)."""

from __future__ import annotations

from fractions import Fraction

import pytest

import helpers
from conftest import glued
from notebook_code import notebook_namespace


def test_tiny_accountant_refuses_exactly_what_does_not_fit():
    tiny = notebook_namespace("budget-arithmetic-and-opendp", ["TinyAccountant"])["TinyAccountant"]
    acc = tiny(1.0)
    for _ in range(3):
        acc.spend(0.3)
    with pytest.raises(helpers.BudgetExceededError):
        acc.spend(0.2)
    assert acc.spent == Fraction(9, 10)  # a refusal changes nothing
    acc.spend(0.1)  # fits exactly: 3/10 * 3 + 1/10 = 1
    assert acc.spent == acc.total == 1


def test_glued_float_and_exact_remainders():
    g = glued("budget-arithmetic-and-opendp")
    assert g["comp_float_remaining"] == repr(1.0 - 0.3 - 0.3 - 0.3) != "0.1"
    assert g["comp_exact_remaining"] == str(float(1 - 3 * Fraction(3, 10))) == "0.1"


def test_opendp_compositor_refuses_the_fourth_query():
    import opendp.prelude as dp

    dp.enable_features("contrib")
    context = dp.Context.compositor(
        data=[30, 40, 50], privacy_unit=dp.unit_of(contributions=1),
        privacy_loss=dp.loss_of(epsilon=1.0), split_evenly_over=3)
    for _ in range(3):
        context.query().count().laplace().release()
    with pytest.raises(ValueError, match="exhausted"):
        context.query().count().laplace().release()

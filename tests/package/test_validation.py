"""The shared input checks every public function relies on (chapters/dpcourse/validation.py):
each rejects bad input with the error type the developers' guide asks for, naming the parameter."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dpcourse import validation


@pytest.mark.parametrize("value, exc", [(True, TypeError), (1.5, TypeError), ("3", TypeError),
                                        (np.int64(4), None), (7, None), (-1, ValueError)])
def test_check_integer(value, exc):
    if exc is None:
        assert validation.check_integer(value, "k", minimum=0) == int(value)
        assert type(validation.check_integer(value, "k")) is int
    else:
        with pytest.raises(exc, match="k"):
            validation.check_integer(value, "k", minimum=0)


@pytest.mark.parametrize("value, exc", [(True, TypeError), ("1", TypeError), (None, TypeError),
                                        ([], ValueError), ([1, np.nan], ValueError),
                                        (np.inf, ValueError), ([[1, 2]], None), (3, None)])
def test_check_array(value, exc):
    if exc is None:
        out = validation.check_array(value, "x")
        assert out.dtype == float and out.size > 0
    else:
        with pytest.raises(exc, match="x"):
            validation.check_array(value, "x")


@pytest.mark.parametrize("value, ok", [(1e-9, True), (0.5, True), (0.0, False), (1.0, False),
                                       (-1e-9, False), (float("nan"), False)])
def test_check_delta(value, ok):
    if ok:
        assert validation.check_delta(value) == value
    else:
        with pytest.raises(ValueError, match="delta"):
            validation.check_delta(value)


def test_check_columns_names_the_missing_column():
    df = pd.DataFrame({"a": [1]})
    with pytest.raises(ValueError, match="'b'"):
        validation.check_columns(df, ["a", "b"], "columns")
    with pytest.raises(TypeError, match="df"):
        validation.check_columns([1], ["a"], "columns")
    with pytest.raises(ValueError, match="empty"):
        validation.check_columns(df.iloc[0:0], ["a"], "columns")
    with pytest.raises(ValueError, match="at least one"):
        validation.check_columns(df, [], "columns")
    assert validation.check_columns(df, "a", "columns") == ["a"]

"""Formatting numbers for the prose of the chapters, and tables for their outputs.

Glued numbers are strings. Very small probabilities (δ = 4.1e-08) read better in the text as
"4.1 × 10⁻⁸"; :func:`scientific` writes them that way. :func:`set_display_options` sets how
pandas prints tables; every chapter calls it once, in its first cell (importing ``helpers``
changes no global state).
"""

from __future__ import annotations

from .validation import check_integer, check_real

__all__ = ["scientific", "set_display_options"]

#: The pandas options the stored outputs were made with (nbval compares the printed tables).
_PANDAS_DISPLAY = {"display.width": 100, "display.max_columns": 20, "display.max_rows": 30,
                   "display.precision": 4}


def set_display_options() -> None:
    """Make pandas print tables as the course's stored outputs show them.

    A chapter calls this once, after ``import helpers``, so that its printed tables do not
    depend on the reader's defaults: width 100, at most 20 columns and 30 rows, 4 decimals.
    It changes pandas' global options, which is why importing ``helpers`` does not do it.

    Returns
    -------
    None

    Examples
    --------
    >>> import pandas as pd
    >>> with pd.option_context("display.precision", 6):
    ...     set_display_options()
    ...     pd.get_option("display.precision")
    4
    """
    import pandas as pd

    for option, value in _PANDAS_DISPLAY.items():
        pd.set_option(option, value)

_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def scientific(value: float, digits: int = 1) -> str:
    """Write ``value`` as "m × 10ᵉ" with ``digits`` decimals in the mantissa.

    Parameters
    ----------
    value : float
        A finite number.
    digits : int, default 1
        Decimals of the mantissa, ``>= 0``.

    Returns
    -------
    str
        For example ``"4.1 × 10⁻⁸"``; zero is written ``"0.0 × 10⁰"``.

    Examples
    --------
    >>> scientific(4.1234e-08)
    '4.1 × 10⁻⁸'
    >>> scientific(123456.0, digits=2)
    '1.23 × 10⁵'
    """
    value = check_real(value, "value")  # finite, or a ValueError/TypeError naming it
    digits = check_integer(digits, "digits", minimum=0)
    mantissa, exponent = f"{value:.{digits}e}".split("e")
    return f"{mantissa} × 10{str(int(exponent)).translate(_SUPERSCRIPT)}"

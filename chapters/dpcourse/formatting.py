"""Formatting numbers for the prose of the chapters.

Glued numbers are strings. Very small probabilities (δ = 4.1e-08) read better in the text as
"4.1 × 10⁻⁸"; :func:`scientific` writes them that way.
"""

from __future__ import annotations

from .validation import check_integer, check_real

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

"""The one home of the panels' readout formatting: label/value tables and number formats.

Readouts are HTML strings shown under a panel's figures (``View(readout=...)``); every panel builds them with these
helpers so tables and numbers look the same in every lesson.

>>> table([("pure ε", fmt(float("inf")))])
"<table><tr><td style='padding:1px 12px 1px 0'>pure ε</td><td><b>∞</b></td></tr></table>"
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable

from dpviz.plots import fmt_number

__all__ = ["table", "row", "fmt", "sci", "big", "superscript"]

_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def row(label: str, value: str, *, pad: int = 12) -> str:
    """One readout row: the label, then the value in bold (both HTML, not escaped)."""
    return f"<tr><td style='padding:1px {pad}px 1px 0'>{label}</td><td><b>{value}</b></td></tr>"


def table(rows: Iterable[tuple[str, str]], *, pad: int = 12) -> str:
    """A two-column readout table of ``(label, value)`` pairs; ``pad`` is the gap after the label in pixels."""
    return "<table>" + "".join(row(a, b, pad=pad) for a, b in rows) + "</table>"


fmt = fmt_number  # the one number format, shared with the figures (dpviz.plots)


def superscript(n: int) -> str:
    """An integer in Unicode superscript digits: −5 → "⁻⁵".

    >>> superscript(-5), superscript(12)
    ('⁻⁵', '¹²')
    """
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) and not (isinstance(n, float) and n.is_integer()):
        raise ValueError(f"n = {n!r:.60} is not allowed: must be an integer.")
    return str(int(n)).translate(_SUPERSCRIPT)


def sci(x: float) -> str:
    """An exact power of ten as "10⁻⁵"; other values in short scientific form (readouts, not code).

    >>> sci(1e-5), sci(1e6), sci(3e-5)
    ('10⁻⁵', '10⁶', '3e-05')
    """
    e = math.log10(x) if x > 0 else float("nan")
    if math.isfinite(e) and abs(e - round(e)) < 1e-9:
        return "10" + superscript(round(e))
    return f"{x:.2g}"


def big(x: float) -> str:
    """A large count: "100,000" below a million, "3.16·10⁷" or "10⁷" above.

    >>> big(1e5), big(3.16e7), big(1e7)
    ('100,000', '3.16·10⁷', '10⁷')
    """
    if isinstance(x, bool) or not isinstance(x, numbers.Real) or not 0 <= x <= 1e300:
        raise ValueError(f"x = {x!r:.60} is not allowed: must be a number in [0, 1e300].")
    if x < 1e6:
        return f"{x:,.0f}"
    e = int(math.floor(math.log10(x)))
    mant = x / 10 ** e
    return f"10{superscript(e)}" if abs(mant - 1) < 5e-3 else f"{mant:.3g}·10{superscript(e)}"

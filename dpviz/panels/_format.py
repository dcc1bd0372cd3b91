"""The one home of the panels' readout formatting: label/value tables and number formats.

Readouts are HTML strings shown under a panel's figures (``View(readout=...)``); every panel builds them with these
helpers so tables and numbers look the same in every lesson.

>>> _table([("pure ε", _fmt(float("inf")))])
"<table><tr><td style='padding:1px 12px 1px 0'>pure ε</td><td><b>∞</b></td></tr></table>"
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from dpviz.plots import fmt_number

__all__: list[str] = []  # helpers for dpviz.panels only

_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _row(label: str, value: str, *, pad: int = 12) -> str:
    """One readout row: the label, then the value in bold (both HTML, not escaped)."""
    return f"<tr><td style='padding:1px {pad}px 1px 0'>{label}</td><td><b>{value}</b></td></tr>"


def _table(rows: Iterable[tuple[str, str]], *, pad: int = 12) -> str:
    """A two-column readout table of ``(label, value)`` pairs; ``pad`` is the gap after the label in pixels."""
    return "<table>" + "".join(_row(a, b, pad=pad) for a, b in rows) + "</table>"


_fmt = fmt_number  # the one number format, shared with the figures (dpviz.plots)


def _superscript(n: int) -> str:
    """An integer in Unicode superscript digits: −5 → "⁻⁵".

    >>> _superscript(-5), _superscript(12)
    ('⁻⁵', '¹²')
    """
    return str(int(n)).translate(_SUPERSCRIPT)


def _sci(x: float) -> str:
    """An exact power of ten as "10⁻⁵"; other values in short scientific form (readouts, not code).

    >>> _sci(1e-5), _sci(1e6), _sci(3e-5)
    ('10⁻⁵', '10⁶', '3e-05')
    """
    e = math.log10(x) if x > 0 else float("nan")
    if math.isfinite(e) and abs(e - round(e)) < 1e-9:
        return "10" + _superscript(round(e))
    return f"{x:.2g}"


def _big(x: float) -> str:
    """A large count: "100,000" below a million, "3.16·10⁷" or "10⁷" above.

    >>> _big(1e5), _big(3.16e7), _big(1e7)
    ('100,000', '3.16·10⁷', '10⁷')
    """
    if x < 1e6:
        return f"{x:,.0f}"
    e = int(math.floor(math.log10(x)))
    mant = x / 10 ** e
    return f"10{_superscript(e)}" if abs(mant - 1) < 5e-3 else f"{mant:.3g}·10{_superscript(e)}"

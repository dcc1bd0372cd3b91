"""The panels' one readout formatter (dpviz.panels.format), against hand-written expectations."""

import math

import pytest

from dpviz.panels.format import big as _big
from dpviz.panels.format import fmt as _fmt
from dpviz.panels.format import sci as _sci
from dpviz.panels.format import table as _table


def test_table_rows_in_order_with_bold_values():
    html = _table([("a", "1"), ("b<sub>x</sub>", "2")])
    assert html == ("<table><tr><td style='padding:1px 12px 1px 0'>a</td><td><b>1</b></td></tr>"
                    "<tr><td style='padding:1px 12px 1px 0'>b<sub>x</sub></td><td><b>2</b></td></tr></table>")
    assert "padding:1px 14px 1px 0" in _table([("a", "1")], pad=14)
    assert _table([]) == "<table></table>"


@pytest.mark.parametrize("x,want", [(None, "n/a"), (math.inf, "∞"), (0.0, "0"), (12345.678, "1.235e+04"),
                                    (0.000123456, "0.0001235"), (1.0, "1")])
def test_fmt(x, want):
    assert _fmt(x) == want


@pytest.mark.parametrize("x,want", [(1e-5, "10⁻⁵"), (1e-10, "10⁻¹⁰"), (1.0, "10⁰"), (1e3, "10³"), (2e-5, "2e-05"),
                                    (0.0, "0")])
def test_sci_writes_exact_powers_of_ten_with_superscripts(x, want):
    assert _sci(x) == want


@pytest.mark.parametrize("x,want", [(999_999, "999,999"), (1e6, "10⁶"), (2.5e8, "2.5·10⁸"), (1.001e9, "10⁹")])
def test_big(x, want):
    assert _big(x) == want

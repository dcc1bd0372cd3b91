"""Figure builders: pure functions that take numbers and return a new ``plotly.graph_objects.Figure``.

They compute with dpviz's core numerics, never with widgets, and never call ``show()``. Every figure uses the
shared ``"dpviz"`` template registered by :mod:`dpviz.plots._theme`. One submodule per lesson topic.
"""

from dpviz.plots._theme import PALETTE, ROLE, TEMPLATE, approx_note, caption, fmt_number

__all__ = ["PALETTE", "ROLE", "TEMPLATE", "approx_note", "caption", "fmt_number"]

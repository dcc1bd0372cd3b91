"""Old names of :mod:`dpviz.panels.format`, kept only while lesson modules move to the public ones."""

from dpviz.panels.format import big as _big  # noqa: F401
from dpviz.panels.format import fmt as _fmt  # noqa: F401
from dpviz.panels.format import row as _row  # noqa: F401
from dpviz.panels.format import sci as _sci  # noqa: F401
from dpviz.panels.format import superscript as _superscript  # noqa: F401
from dpviz.panels.format import table as _table  # noqa: F401

__all__: list[str] = []

"""Widget panels: controls + figures built once + one update path (see :mod:`dpviz.panels._base`).

One submodule per lesson; a notebook cell only creates and shows a panel::

    from dpviz.panels.privacy_loss import OutputDistributionsPanel
    OutputDistributionsPanel()
"""

from dpviz.panels._base import ChoiceReveal, Panel, PredictReveal, View, registered_panels

__all__ = ["Panel", "View", "PredictReveal", "ChoiceReveal", "registered_panels"]

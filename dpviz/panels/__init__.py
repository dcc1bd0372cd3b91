"""Widget panels: declared controls, one render method, figures kept in step (see :mod:`dpviz.panels.panel`).

One submodule per lesson; a notebook cell only creates and shows a panel::

    from dpviz.panels.privacy_loss import OutputDistributionsPanel
    OutputDistributionsPanel()

The names a panel author uses are all here: :class:`Panel`, :class:`View`, :class:`Step`, the controls
(:class:`Slider`, :class:`IntSlider`, :class:`LogSlider`, :class:`Choice`, :class:`Toggle`, :class:`Checkbox`) and the
exercises (:class:`PredictReveal`, :class:`ChoiceReveal`).
"""

from dpviz.panels.controls import Action, Checkbox, Choice, IntSlider, LogSlider, Slider, Toggle, Values
from dpviz.panels.exercises import ChoiceReveal, PredictReveal
from dpviz.panels.panel import Panel, Step, View, registered_panels

__all__ = ["Panel", "View", "Step", "Values", "Slider", "IntSlider", "LogSlider", "Choice", "Toggle", "Checkbox",
           "Action", "PredictReveal", "ChoiceReveal", "registered_panels"]

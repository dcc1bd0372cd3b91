"""dpviz: an interactive teaching environment for differential privacy.

Layers, one direction: core numerics (``dpviz.mechanisms``, ``dpviz.accountants``, the papers' algorithms)
→ ``dpviz.plots`` (pure plotly figure builders) → ``dpviz.panels`` (ipywidgets panels) → ``notebooks/``.
"""

__version__ = "0.1.0"

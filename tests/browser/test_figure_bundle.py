"""The plotly.js that dpviz.app's figures draw with (``dpviz/server/static``): plotly.js's cartesian bundle, shipped
at exactly the version plotly.py's own bundle carries, so that a figure looks the same under dpviz.app as in
JupyterLab (plotly's own front end); and its licence beside it. (The trace types every panel draws are checked
against the bundle in test_panels_sweep.py.)
"""

from __future__ import annotations

import re
from pathlib import Path

import plotly

from dpviz.app import PLOTLY_BUNDLE, STATIC


def _version(text: str) -> str:
    m = re.search(r"plotly\.js (?:\([^)]*\) )?v(\d+\.\d+\.\d+)", text[:400])
    assert m, text[:400]
    return m[1]


def test_the_shipped_plotly_js_is_the_version_plotly_py_draws_with():
    ours = (STATIC / PLOTLY_BUNDLE).read_text(encoding="utf-8")
    theirs = (Path(plotly.__file__).parent / "package_data" / "plotly.min.js").read_text(encoding="utf-8")
    assert "cartesian" in ours[:200]
    assert _version(ours) == _version(theirs), "update dpviz/server/static to plotly.py's plotly.js (see README)"


def test_the_bundle_ships_with_its_licence():
    licence = (STATIC / "plotly-cartesian.LICENSE").read_text(encoding="utf-8")
    assert licence.startswith("MIT License") and "Plotly" in licence


def test_the_figure_module_imports_the_bundle_from_the_url_it_is_given():
    from dpviz.panels.figure import _shared_bundle_widget_class

    module = _shared_bundle_widget_class("/p/dpviz-static/" + PLOTLY_BUNDLE)._esm
    assert '"/p/dpviz-static/plotly-cartesian.min.js"' in module and "__URL__" not in module
    assert "export default" in module and "window.Plotly" in module

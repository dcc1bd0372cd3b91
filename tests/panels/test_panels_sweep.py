"""Every lesson panel, every control across its range: no bug message and no warning at any slider position.

Each control is swept over ``Panel.bench_values()`` (the values ``make bench`` times) starting from the defaults,
with warnings turned into errors: under Voila a stray ``RuntimeWarning`` (an overflow, a 0/0) is printed to the page
as stderr, so it counts as a failure here. A ``ValueError`` turned into a friendly message is allowed (that is
how a panel explains an impossible combination); "Something went wrong", the message for an unexpected
exception, is not. Every update message sent to the browser must be valid JSON (no bare NaN) and one plotly.js
accepts (no attribute set together with its parent).
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
import re
import warnings

import pytest
from _figure_checks import watch_updates_for_nan, watch_updates_for_refused_keys

import dpviz.panels as panels_pkg
from dpviz.panels.panel import PANEL_REGISTRY

for _module in pkgutil.iter_modules(panels_pkg.__path__):
    if not _module.name.startswith("_"):
        importlib.import_module(f"dpviz.panels.{_module.name}")

LESSON_PANELS = sorted(name for name, cls in PANEL_REGISTRY.items()
                       if cls.__module__.startswith("dpviz.panels.") and not name.startswith("_"))


@functools.cache
def _bundle_trace_types() -> frozenset[str]:
    """The trace types plotly.js's cartesian bundle registers (what dpviz.app's figures draw with)."""
    from dpviz.app import PLOTLY_BUNDLE, STATIC

    text = (STATIC / PLOTLY_BUNDLE).read_text(encoding="utf-8")
    return frozenset(re.findall(r'moduleType:"trace",name:"(\w+)"', text))


@pytest.mark.slow
def test_the_bundle_registers_the_trace_types_its_readme_lists():
    assert _bundle_trace_types() >= {"scatter", "bar", "heatmap", "contour", "histogram", "box"}
    assert not _bundle_trace_types() & {"scatter3d", "scattergl", "choropleth", "sankey", "table", "scattermap"}


def test_every_panel_module_registers_panels():
    assert len(LESSON_PANELS) >= 30, LESSON_PANELS


@pytest.mark.slow
@pytest.mark.parametrize("name", LESSON_PANELS)
def test_sweeping_every_control_shows_no_bug_and_no_warning(name):
    problems = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        panel = PANEL_REGISTRY[name]().refresh()
        assert panel.last_error is None, f"{name} at defaults: {panel.last_error}"
        defaults = panel.values()
        nan_in_updates = watch_updates_for_nan(panel)
        refused = watch_updates_for_refused_keys(panel)
        drawn = {t.type or "scatter" for fig in panel.figures for t in fig.data}
        for control, values in panel.bench_values().items():
            for value in values:
                panel.controls[control].value = value
                if panel.last_error and "went wrong" in panel.last_error:
                    problems.append(f"{control}={value!r}: {panel.last_error}")
                drawn |= {t.type or "scatter" for fig in panel.figures for t in fig.data}
            panel.controls[control].value = defaults[control]
    assert not problems, f"{name}: " + "; ".join(problems[:5])
    assert not nan_in_updates, f"{name}: NaN in figure updates at {nan_in_updates[:5]}"
    assert not refused, f"{name}: updates plotly.js refuses (the figure is not redrawn): {refused[:3]}"
    # dpviz.app draws with plotly.js's cartesian bundle: a trace type it lacks would be an empty figure there
    assert drawn <= _bundle_trace_types(), f"{name}: {sorted(drawn - _bundle_trace_types())} not in the bundle"


@pytest.mark.parametrize("name", sorted(PANEL_REGISTRY))
def test_text_shown_by_a_panel_cites_papers_not_our_internal_digests(name):
    """Titles, intros, readouts, hints and every figure's title, captions and legend at defaults: learners have the
    papers, not the developers' implementation digests."""
    panel = PANEL_REGISTRY[name]().refresh()
    shown = [panel.title, panel.intro, panel.readout.value, panel.hint.value, panel.status.value]
    for fig in panel.figures:
        layout = fig.layout
        shown.append(str(layout.title.text))
        shown += [str(a.text) for a in layout.annotations or ()]
        shown += [str(t.name) for t in fig.data]
    leaks = [s for s in shown if "digest" in s.lower()]
    assert not leaks, f"{name}: {leaks[:2]}"

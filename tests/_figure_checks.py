"""Shared test helpers for figures sent to the browser."""

from __future__ import annotations

import math

_MESSAGE_TRAITS = ("_py2js_update", "_py2js_restyle", "_py2js_relayout", "_py2js_addTraces")


def nan_paths(o, path: str = "") -> list[str]:
    """Where ``o`` (a JSON-like structure, numpy arrays allowed) holds a float NaN."""
    if isinstance(o, float) and math.isnan(o):
        return [path]
    if isinstance(o, memoryview):  # a binary buffer (see _as_sent): NaN there is a valid float64
        return []
    if isinstance(o, dict):
        return sum((nan_paths(v, f"{path}/{k}") for k, v in o.items()), [])
    if isinstance(o, (list, tuple)):
        return sum((nan_paths(v, f"{path}[{i}]") for i, v in enumerate(o)), [])
    if hasattr(o, "tolist"):
        return nan_paths(o.tolist(), path)
    return []


def _as_sent(message):
    """The message as plotly's widget serializer sends it: numeric numpy arrays become binary buffers (where a
    NaN is harmless: the browser reads it as a gap), everything else stays JSON."""
    from plotly.serializers import custom_serializers

    return custom_serializers["to_json"](message, None)


def watch_updates_for_nan(panel) -> list[str]:
    """A list that fills with the paths of NaN in every update message the panel's figures send from now on.

    NaN is not JSON: the front end drops such an update and the figure stops following its sliders."""
    found: list[str] = []
    for i, fig in enumerate(panel.figures):
        for trait in _MESSAGE_TRAITS:
            fig.observe(lambda ch, i=i: found.extend(nan_paths(_as_sent(ch["new"]), f"fig{i}")), names=trait)
    return found

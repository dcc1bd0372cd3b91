"""The browser-input trust boundary of every panel.

Widget values arriving over the WebSocket are the panels' real input, and the browser is untrusted: a client can
send a slider value far outside its range, or rewrite ``min``/``max`` in the same message. Every widget of a panel
therefore accepts from the browser only the keys a learner can change with it (a value, a selected index), each
checked by what declared the widget: a control's spec (:meth:`dpviz.panels.controls.Control.client_checks`), an
exercise, the figure. Anything else is dropped, logged on the server, and the browser is sent the kernel's state
back. Changes made in Python are unaffected.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Iterable
from typing import Any

import ipywidgets as W

from dpviz.panels.controls import REJECT, checked_index, number

__all__ = ["guard", "descendants", "Checks", "text_checks", "number_text_checks", "index_checks"]

#: The state keys a browser may set on one widget, each with its check (the value to set, or REJECT).
Checks = dict[str, Callable[[Any], Any]]

log = logging.getLogger("dpviz.panels")
# In a kernel, stderr is shown on the learner's page: panel errors (with file paths) go to the kernel process's own
# stderr instead, which the server writes to its log.
if not log.handlers:
    _handler = logging.StreamHandler(sys.__stderr__)
    _handler.setFormatter(logging.Formatter("[dpviz.panels] %(levelname)s %(message)s"))
    log.addHandler(_handler)
    log.propagate = False


def _widget(widget: Any, name: str = "widget") -> W.Widget:
    if not isinstance(widget, W.Widget):
        raise TypeError(f"{name} = {widget!r:.60} is not allowed: must be an ipywidgets Widget.")
    return widget


def number_text_checks(limit: float = 1e300) -> Checks:
    """A number typed into an exercise: any finite number of sensible size (``|x| <= limit``)."""
    if number(limit) is None or not limit > 0:
        raise ValueError(f"limit = {limit!r:.60} is not allowed: must be a finite number > 0.")
    return {"value": lambda v: v if number(v) is not None and abs(number(v)) <= limit else REJECT}


def text_checks(max_length: int = 10_000) -> Checks:
    """A text typed into an exercise: a str of at most ``max_length`` characters."""
    if isinstance(max_length, bool) or not isinstance(max_length, int) or not 0 <= max_length <= 10**6:
        raise ValueError(f"max_length = {max_length!r:.60} is not allowed: must be an integer in [0, 10⁶].")
    return {"value": lambda v: v if isinstance(v, str) and len(v) <= max_length else REJECT}


def index_checks(widget: W.Widget) -> Checks:
    """A choice among ``widget.options`` by index (``None``: nothing picked is not a browser's to set)."""
    if not hasattr(_widget(widget), "options"):
        raise TypeError(f"widget = {type(widget).__name__} is not allowed: must be a widget with options.")
    return {"index": lambda v: checked_index(widget, v)}


def _differs(a: Any, b: Any) -> bool:
    try:
        return bool(a != b)
    except Exception:  # e.g. arrays: compare identity only
        return a is not b


def guard(widget: W.Widget, checks: Checks) -> None:
    """Accept from the browser only the keys of ``checks``, each value checked; refuse the rest (logged), and send
    the browser the kernel's state for every key it tried to change."""
    _widget(widget)
    if not isinstance(checks, dict) or not all(isinstance(k, str) and callable(c) for k, c in checks.items()):
        raise TypeError(f"checks = {checks!r:.60} is not allowed: must be a dict of state key -> check function.")
    if getattr(widget, "_dpviz_guarded", False):
        return
    original = widget.set_state

    def set_state(sync_data):
        clean, refused = {}, []
        for key, value in dict(sync_data).items():
            check = checks.get(key)
            try:
                checked = check(value) if check is not None else REJECT
            except Exception:  # a check never lets a malformed value through, even by failing
                checked = REJECT
            if checked is REJECT:
                refused.append(key)
            else:
                clean[key] = checked
        if refused:
            log.warning("refused a browser update of %s.%s", type(widget).__name__, ",".join(sorted(refused)))
        try:
            if clean:
                original(clean)
        except Exception:  # a value that still fails the widget's own validation: keep the kernel's state
            log.warning("refused a browser update of %s (%s)", type(widget).__name__, ",".join(sorted(clean)))
            refused.extend(clean)
        if refused or any(_differs(clean[k], sync_data[k]) for k in clean):
            widget.send_state([k for k in sync_data if k in widget.keys])

    widget.set_state = set_state
    widget._dpviz_guarded = True


def descendants(widget: W.Widget) -> list[W.Widget]:
    """``widget`` and every widget inside it, depth first."""
    return list(_descendants(_widget(widget)))


def _descendants(widget: W.Widget) -> Iterable[W.Widget]:
    yield widget
    for child in getattr(widget, "children", ()) or ():
        if isinstance(child, W.Widget):
            yield from _descendants(child)

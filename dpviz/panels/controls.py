"""Controls declared as data: a panel lists its controls in real units, the base builds the widgets.

A panel declares ``controls = {"sigma": Slider("noise σ", 1.0, 0.2, 5.0, step=0.05), ...}``. Each spec knows

* how to build its ipywidget (the house style: one shared style model per kind, a width that fits a 360 px phone);
* which values a browser may send it (:meth:`Control.client_checks`, used by :mod:`dpviz.panels.guard`) and which
  values a library user may pass as ``Panel(sigma=...)`` (:meth:`Control.checked`);
* the values ``make bench`` sweeps (:meth:`Control.sweep`, or an explicit ``bench=[...]``);
* when it is shown (``visible=``: a rule of the other values) and, for sliders, bounds that follow other controls
  (``min=``/``max=`` given as a rule, e.g. ``max=lambda v: v.n_users``).

A render reads the values as attributes of one :class:`Values` (``v.sigma``), never from a dict of strings.

>>> s = LogSlider("δ", 1e-5, 1e-10, 1e-1, step=0.5)
>>> s.sweep(4)
[1e-10, 1e-07, 0.0001, 0.1]
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import ipywidgets as W
import numpy as np
from ipywidgets.widgets.widget_bool import CheckboxStyle  # not re-exported by ipywidgets
from ipywidgets.widgets.widget_description import DescriptionStyle
from ipywidgets.widgets.widget_string import HTMLStyle

__all__ = ["Control", "Slider", "IntSlider", "LogSlider", "Choice", "Toggle", "Checkbox", "Action", "Values", "Rule"]

#: A rule: a function of the panel's current :class:`Values` (visibility, a bound that follows another control).
Rule = Callable[["Values"], Any]

#: The marker a client check returns for a value it refuses.
REJECT = object()

_ECHO_RTOL = 1e-12  # a slider echoing its value back with a rounding difference is not a change
_STYLE = {"description_width": "initial"}

#: One style model per kernel for each kind of style and settings: a lesson page drew ~70 identical style models
#: (one per slider, drop-down, text, button, progress bar), each a widget of its own to create, send and restore.
#: A style is never changed after it is made.
_SHARED_STYLES: dict[tuple, W.Widget] = {}


def shared_style(cls: type, **traits) -> W.Widget:
    """The kernel's one ``cls`` style model with ``traits`` (made on first use, or again after it was closed)."""
    key = (cls, tuple(sorted(traits.items())))
    style = _SHARED_STYLES.get(key)
    if style is None or style.comm is None:  # first use in this kernel, or closed (Widget.close_all)
        style = _SHARED_STYLES[key] = cls(**traits)
    return style


def html_widget(value: str = "", **kw) -> W.HTML:
    """An HTML text with the kernel's one HTML style model."""
    return W.HTML(value=value, style=shared_style(HTMLStyle), **kw)


def button(**kw) -> W.Button:
    """A button with the kernel's one button style model (``button_style`` is the button's own)."""
    return W.Button(style=shared_style(W.ButtonStyle), **kw)


def _control_layout() -> W.Layout:
    # A new Layout per control: a shared one would hide every control when one is hidden. As wide as the screen
    # allows, at most 420 px: on a 360 px phone the slider shrinks instead of pushing its value off screen.
    return W.Layout(width="100%", max_width="420px")


def number(v: Any) -> float | None:
    """``v`` as a finite float, or None for anything else (bools, strings, NaN, ±∞, huge ints)."""
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        return None
    try:
        x = float(v)
    except (OverflowError, ValueError):  # an int beyond the float range
        return None
    return x if math.isfinite(x) else None


def on_grid(value: float, low: float, step: float) -> float:
    """``value`` moved to the nearest point low + i·step. The browser's slider snaps its value to that grid and
    sends the snapped value back: a default off the grid would be rendered twice per page, the second time at a
    value the lesson's text does not mention."""
    return float(round(low + round((value - low) / step) * step, 12))


class Values(Mapping):
    """The values of a panel's controls, read as attributes (``v.sigma``); immutable.

    >>> v = Values({"sigma": 1.5, "kind": "gaussian"})
    >>> v.sigma, v["kind"], sorted(v)
    (1.5, 'gaussian', ['kind', 'sigma'])
    """

    __slots__ = ("_values",)

    def __init__(self, values: Mapping[str, Any]):
        object.__setattr__(self, "_values", dict(values))

    def __getattr__(self, name: str) -> Any:
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(f"no control named {name!r}: the controls are {sorted(self._values)}") from None

    def __setattr__(self, name, value):
        raise AttributeError("Values are read-only")

    def __getitem__(self, name: str) -> Any:
        return self._values[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Values) and self._values == other._values

    def __hash__(self):
        return hash(tuple(sorted((k, repr(v)) for k, v in self._values.items())))

    def __repr__(self) -> str:
        return "Values(" + ", ".join(f"{k}={v!r}" for k, v in self._values.items()) + ")"


@dataclass(frozen=True)
class Control:
    """What every declared control has: a label (HTML allowed), a default value, a visibility rule, bench values."""

    label: str
    visible: bool | Rule = field(default=True, kw_only=True)
    #: values ``make bench`` sets; default: a sweep of the range
    bench: Sequence[Any] | None = field(default=None, kw_only=True)

    def __post_init__(self):
        if not isinstance(self.label, str):
            raise TypeError(f"label = {self.label!r:.60} is not allowed: must be a str.")
        if not (isinstance(self.visible, bool) or callable(self.visible)):
            raise TypeError(f"visible = {self.visible!r:.60} is not allowed: must be a bool or a rule (v) -> bool.")

    @property
    def default(self) -> Any:
        return self.value

    def build(self) -> W.Widget:  # pragma: no cover - abstract
        raise NotImplementedError

    def read(self, widget: W.Widget) -> Any:
        """The value a render sees (e.g. an int for an integer log slider)."""
        return widget.value

    def client_checks(self, widget: W.Widget) -> dict[str, Callable[[Any], Any]]:
        """The state keys a browser may set on ``widget``, each with its check (the value to set, or REJECT)."""
        return {}

    def checked(self, name: str, panel: str, widget: W.Widget, value: Any) -> Any:
        """A value a library user passes as ``Panel(name=value)``, or a ValueError naming what is allowed."""
        return value

    def sweep(self, n: int = 12, widget: W.Widget | None = None) -> list[Any]:
        return list(self.bench) if self.bench is not None else []

    def rules(self) -> dict[str, Rule]:
        """The bound rules of this control (``{"max": rule}``); visibility is handled by the panel."""
        return {}

    def _allow_html(self, widget: W.Widget) -> W.Widget:
        if "<" in self.label:
            widget.description_allow_html = True
        return widget


def _bound(value: float | Rule) -> float | None:
    return None if callable(value) else float(value)


@dataclass(frozen=True)
class Slider(Control):
    """A float slider from ``min`` to ``max`` (numbers, or rules of the other values) in steps of ``step``."""

    value: float = 0.0
    min: float | Rule = 0.0
    max: float | Rule = 1.0
    step: float = 0.05
    fmt: str = ".2f"
    _integer = False

    def __post_init__(self):
        super().__post_init__()
        for name in ("value", "min", "max", "step"):
            x = getattr(self, name)
            if name in ("min", "max") and callable(x):
                continue
            if number(x) is None or (self._integer and float(x) != round(float(x))):
                kind = "an integer" if self._integer else "a finite number"
                raise ValueError(f"{name} = {x!r:.60} is not allowed: must be {kind}.")
        if not float(self.step) > 0:
            raise ValueError(f"step = {self.step!r} is not allowed: must be > 0.")
        lo, hi = self._initial_bounds()
        if not lo <= float(self.value) <= hi:
            raise ValueError(f"value = {self.value!r} is not allowed: must be in [min, max] = [{lo:g}, {hi:g}].")

    def _initial_bounds(self) -> tuple[float, float]:
        lo, hi = _bound(self.min), _bound(self.max)
        if lo is None or hi is None:  # a rule: start from the widest static range the default allows
            lo = float(self.value) if lo is None else lo
            hi = float(self.value) if hi is None else hi
        return lo, hi

    def build(self) -> W.Widget:
        lo, hi = self._initial_bounds()
        cls = W.IntSlider if self._integer else W.FloatSlider
        value = on_grid(float(self.value), lo, self.step)
        kw = {} if self._integer else {"readout_format": self.fmt}
        w = cls(value=int(value) if self._integer else value, min=lo, max=hi, step=self.step,
                description=self.label, style=shared_style(W.SliderStyle, **_STYLE), layout=_control_layout(), **kw)
        return self._allow_html(w)

    def limits(self, widget: W.Widget) -> tuple[float, float]:
        return float(widget.min), float(widget.max)

    def rules(self) -> dict[str, Rule]:
        return {k: r for k, r in (("min", self.min), ("max", self.max)) if callable(r)}

    def apply_bound(self, widget: W.Widget, which: str, value: float) -> None:
        setattr(widget, which, int(value) if self._integer else float(value))

    def _accept(self, widget: W.Widget, v: Any, *, echo: bool) -> Any:
        x = number(v)
        if x is None:
            return REJECT
        lo, hi = self.limits(widget)
        tol = 1e-9 * max(abs(lo), abs(hi), 1e-300)
        if not lo - tol <= x <= hi + tol:
            return REJECT
        x = min(max(x, lo), hi)
        if self._integer:
            return int(round(x)) if abs(x - round(x)) <= 1e-9 else REJECT
        if echo and abs(x - float(widget.value)) <= _ECHO_RTOL * max(1.0, abs(float(widget.value))):
            return widget.value  # an echo: keep the kernel's value (and do not render again)
        return x

    def client_checks(self, widget):
        return {"value": lambda v: self._accept(widget, v, echo=True)}

    def checked(self, name, panel, widget, value):
        x = self._accept(widget, value, echo=False)
        lo, hi = self.limits(widget)
        if x is REJECT or (number(value) is not None and not lo <= float(value) <= hi):
            kind = "an integer" if self._integer else "a number"
            raise ValueError(f"{name} = {value!r} is not allowed for {panel}: must be {kind} in [{lo:g}, {hi:g}].")
        return x

    def sweep(self, n=12, widget=None):
        if self.bench is not None:
            return list(self.bench)
        lo, hi = self.limits(widget) if widget is not None else self._initial_bounds()
        xs = np.linspace(lo, hi, n)
        if self._integer:
            return sorted({int(round(x)) for x in xs})
        return [float(x) for x in xs]


@dataclass(frozen=True)
class IntSlider(Slider):
    """An integer slider."""

    step: float = 1
    _integer = True


@dataclass(frozen=True)
class LogSlider(Slider):
    """A slider on a log scale, for quantities spanning orders of magnitude (δ, n, k), in **real units**:
    ``LogSlider("δ", 1e-5, 1e-10, 1e-1)``; ``step`` is in decades. ``integer=True`` hands the render an int."""

    step: float = 0.1
    fmt: str = ".3g"
    integer: bool = False

    def __post_init__(self):
        super().__post_init__()
        if not self._initial_bounds()[0] > 0:
            raise ValueError(f"min = {self.min!r} is not allowed: a log slider's values must be > 0.")

    def build(self) -> W.Widget:
        lo, hi = self._initial_bounds()
        lo_e, hi_e = round(math.log10(lo), 12), round(math.log10(hi), 12)  # 10**-0.3 back to -0.3, not ...04
        exponent = on_grid(math.log10(float(self.value)), lo_e, self.step)
        w = W.FloatLogSlider(value=float(10.0 ** exponent), base=10, min=lo_e, max=hi_e, step=self.step,
                             description=self.label, readout_format=self.fmt,
                             style=shared_style(W.SliderStyle, **_STYLE), layout=_control_layout())
        return self._allow_html(w)

    def read(self, widget):
        return int(round(widget.value)) if self.integer else float(widget.value)

    def limits(self, widget):
        return float(widget.base) ** widget.min, float(widget.base) ** widget.max

    def apply_bound(self, widget, which, value):
        setattr(widget, which, math.log10(float(value)))

    def sweep(self, n=12, widget=None):
        if self.bench is not None:
            return list(self.bench)
        lo, hi = self.limits(widget) if widget is not None else self._initial_bounds()
        return [float(10.0 ** e) for e in np.linspace(math.log10(lo), math.log10(hi), n)]


def _option_values(options) -> list[Any]:
    items = list(options.items()) if isinstance(options, Mapping) else list(options)
    return [o[1] if isinstance(o, tuple) else o for o in items]


def checked_index(widget: W.Widget, v: Any) -> Any:
    """A selected index the browser sent: an integer in [0, len(options)), else REJECT."""
    n = len(widget.options)
    if isinstance(v, bool) or not isinstance(v, numbers.Integral) or not 0 <= int(v) < n:
        return REJECT
    return int(v)


@dataclass(frozen=True)
class Choice(Control):
    """A drop-down of ``options`` (values, or (label, value) pairs); ``value`` defaults to the first."""

    options: Sequence[Any] | Mapping[str, Any] = ()
    value: Any = None

    def __post_init__(self):
        super().__post_init__()
        if isinstance(self.options, (str, bytes)) or not isinstance(self.options, (Sequence, Mapping)) \
                or not len(self.options):
            raise ValueError(f"options = {self.options!r:.60} is not allowed: must be a non-empty list of values or "
                             "(label, value) pairs.")
        values = _option_values(self.options)
        if self.value is None:
            object.__setattr__(self, "value", values[0])
        elif not any(type(self.value) is type(o) and self.value == o for o in values):
            raise ValueError(f"value = {self.value!r:.60} is not allowed: must be one of {values}.")

    def _widget_options(self):
        return list(self.options.items()) if isinstance(self.options, Mapping) else list(self.options)

    def build(self) -> W.Widget:
        return self._allow_html(W.Dropdown(options=self._widget_options(), value=self.value, description=self.label,
                                           style=shared_style(DescriptionStyle, **_STYLE), layout=_control_layout()))

    def client_checks(self, widget):
        return {"index": lambda v: checked_index(widget, v)}

    def checked(self, name, panel, widget, value):
        values = _option_values(self.options)
        if not any(type(value) is type(o) and value == o for o in values):
            raise ValueError(f"{name} = {value!r} is not allowed for {panel}: must be one of {values}.")
        return value

    def sweep(self, n=12, widget=None):
        return list(self.bench) if self.bench is not None else _option_values(self.options)


@dataclass(frozen=True)
class Toggle(Choice):
    """Toggle buttons; ``button_width`` (e.g. ``"auto"``) for labels longer than ipywidgets' fixed width."""

    button_width: str | None = None

    def build(self) -> W.Widget:
        width = {} if self.button_width is None else {"button_width": self.button_width}
        return W.ToggleButtons(options=self._widget_options(), value=self.value, description=self.label,
                               style=shared_style(W.ToggleButtonsStyle, **_STYLE, **width),
                               layout=W.Layout(flex_flow="row wrap", max_width="100%"))


@dataclass(frozen=True)
class Checkbox(Control):
    """A check box (True/False)."""

    value: bool = False
    indent: bool = True

    def __post_init__(self):
        super().__post_init__()
        if not isinstance(self.value, bool):
            raise ValueError(f"value = {self.value!r:.60} is not allowed: must be True or False.")

    def build(self) -> W.Widget:
        return self._allow_html(W.Checkbox(value=bool(self.value), description=self.label, indent=self.indent,
                                           style=shared_style(CheckboxStyle, **_STYLE), layout=_control_layout()))

    def client_checks(self, widget):
        return {"value": lambda v: v if isinstance(v, bool) else REJECT}

    def checked(self, name, panel, widget, value):
        if not isinstance(value, bool):
            raise ValueError(f"{name} = {value!r} is not allowed for {panel}: must be True or False.")
        return value

    def sweep(self, n=12, widget=None):
        return list(self.bench) if self.bench is not None else [True, False]


@dataclass(frozen=True)
class Action:
    """A button under the figures that does something and draws the panel again: ``on_click(panel, v)`` (e.g. one
    round of a game held by a core object). Declared in a panel's ``actions = {name: Action(...)}``."""

    label: str
    on_click: Callable[..., Any]
    tooltip: str = ""
    style: str = ""  # ipywidgets' button_style: "", "primary", "info", …
    icon: str = ""  # a Font Awesome icon name, e.g. "refresh"

    def __post_init__(self):
        if not isinstance(self.label, str):
            raise TypeError(f"label = {self.label!r:.60} is not allowed: must be a str.")
        if not callable(self.on_click):
            raise TypeError(f"on_click = {self.on_click!r:.60} is not allowed: must be a function (panel, v).")

    def build(self) -> W.Button:
        return button(description=self.label, tooltip=self.tooltip, button_style=self.style, icon=self.icon,
                      layout=W.Layout(width="auto"))

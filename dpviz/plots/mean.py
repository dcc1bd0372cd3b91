"""Figures of lesson 12 "Means from few users" (pure builders: numbers in, a new plotly Figure out).

Sources: Levy et al. 2021 = Levy et al., "Learning with User-Level Privacy"; Esfandiari,
Mirrokni & Narayanan 2022 = Esfandiari, Mirrokni & Narayanan, "Tight and Robust Private Mean Estimation with Few Users".
Every builder adds a caption citing its formulas.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from dpviz._validation import check_integer
from dpviz.plots._theme import (
    DASHES,
    PALETTE,
    ROLE,
    TEMPLATE,
    _array,
    _check_text,
    _gaps,
    _hline,
    _layout,
    _mapping,
    _number,
    _vline,
    approx_note,
    caption,
)

__all__ = [
    "mse_vs_m_figure",
    "tau_knob_figure",
    "budget_heatmap_figure",
    "iso_accuracy_figure",
    "error_vs_d_figure",
    "ball_finding_figure",
    "garbage_figure",
    "robustness_figure",
    "fixed_n_floor_figure",
]

#: Pixels from the bottom of the plot area to the source caption's first line (``caption(..., below=...)``): clear
#: of the tick labels and the x-axis title. A log x axis spanning a few decades labels its minor ticks (2, 5) and
#: needs more room than a linear one.
_BELOW_LINEAR = 60
_BELOW_LOG = 75


def _frame(title, xt, yt, template, *, xlog=False, ylog=False, bottom: int | None = None, **extra) -> dict:
    """The shared :func:`~dpviz.plots._theme._layout` with this lesson's conventions: optional log axes (powers of
    ten on a log y), empty shape and annotation lists for :func:`_marked_vline` / :func:`_marked_hline`. The source
    caption (:func:`~dpviz.plots._theme.caption` with ``below=``) grows the bottom margin to fit itself; ``bottom``
    (pixels) asks for more, e.g. for a legend under the plot.
    """
    if bottom is not None:
        extra["margin"] = dict(b=bottom)
    return _layout(title, xt, yt, template=template, xaxis={"type": "log"} if xlog else None,
                   yaxis={"type": "log", "exponentformat": "power"} if ylog else None,
                   shapes=[], annotations=[], **extra)


def _marked_vline(lay: dict, x: float, text: str, color: str, dash: str = "dot", *, width: float = 1.5, top=True,
                  text_y: float | None = None) -> None:
    """A :func:`~dpviz.plots._theme._vline` at ``x`` with its label (top or bottom of the plot) in ``lay``."""
    lay["shapes"].append(_vline(x, color=color, dash=dash, width=width))
    if text:
        xa = math.log10(x) if lay["xaxis"].get("type") == "log" else x
        y = text_y if text_y is not None else (1 if top else 0.03)
        lay["annotations"].append(dict(x=xa, xref="x", y=y, yref="paper", text=text, showarrow=False,
                                       xanchor="left", yanchor="top" if top else "bottom",
                                       font=dict(size=11, color=color), bgcolor="rgba(255,255,255,0.7)"))


def _marked_hline(lay: dict, y: float, text: str, color: str, dash: str = "dashdot") -> None:
    """A :func:`~dpviz.plots._theme._hline` at ``y`` with its label at the left end, in ``lay``."""
    lay["shapes"].append(_hline(y, color=color, dash=dash, width=1.5))
    ya = math.log10(y) if lay["yaxis"].get("type") == "log" else y
    lay["annotations"].append(dict(x=0.01, xref="paper", y=ya, yref="y", text=text, showarrow=False, xanchor="left",
                                   yanchor="bottom", font=dict(size=11, color=color)))


def _none_for_nan(values):
    """``values`` with every non-finite number replaced by None (a gap in plotly), untouched when all are finite:
    1-D data through the shared :func:`~dpviz.plots._theme._gaps`; a 2-D heatmap grid as an object array of the
    same shape (``_gaps`` flattens; plotly validates an array in one step but a nested list element by element,
    ~10 ms for a 70 × 70 grid; it sends both as JSON with ``null``)."""
    arr = np.asarray(values, dtype=float)
    bad = ~np.isfinite(arr)
    if not bad.any():
        return values
    if arr.ndim != 2:
        return _gaps(arr)
    out = arr.astype(object)
    out[bad] = None
    return out


def _json_safe(traces: list[dict]) -> list[dict]:
    """Replace NaN/±inf in the x, y, z data of ``traces`` by None.

    A FigureWidget sends its data to the browser as JSON; Python writes NaN as a bare ``NaN`` token, which the
    browser's JSON parser rejects, so a figure holding NaN silently stops updating in Voilà (the readout moves,
    the plot does not). None becomes ``null``: plotly draws the same gap.
    """
    for t in traces:
        for key in ("x", "y", "z"):
            v = t.get(key)
            if v is not None and not isinstance(v, str) and len(v) and not isinstance(np.asarray(v).flat[0], str):
                t[key] = _none_for_nan(v)
    return traces


def _axis(values: Any, name: str, *, log: bool = False, low: float | None = None, high: float | None = None,
          size: int | None = None, like: str | None = None) -> np.ndarray:
    """A non-empty, strictly increasing 1-D axis of finite values (> 0 on a log axis)."""
    arr = _array(values, name, low=0.0 if log else low, low_open=log, high=high, length=size, like=like)
    if np.any(np.diff(arr) <= 0):
        raise ValueError(f"{name} is not increasing, which is not allowed: must be strictly increasing.")
    return arr


def _numbers(values: Any, name: str, *, positive: bool = True) -> dict:
    """A non-empty mapping from labels (str or int) to finite numbers (> 0 with ``positive``: drawn on a log axis)."""
    if not isinstance(values, Mapping) or not values:
        raise TypeError(f"{name} = {values!r} is not allowed: must be a non-empty mapping from labels to numbers.")
    out = {}
    for key, v in values.items():
        if isinstance(key, bool) or not isinstance(key, (str, int, np.integer)):
            raise TypeError(f"{name} has the key {key!r}, which is not allowed: keys must be labels (str or int).")
        out[key] = _number(v, f"{name}[{key!r}]", low=0.0, low_open=positive)
    return out


_SUP = str.maketrans("-0123456789.", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹·")


def _pow10(x: float) -> str:
    """10³-style label for a power of ten (else 3 significant digits)."""
    e = math.log10(x)
    return "10" + str(int(round(e))).translate(_SUP) if abs(e - round(e)) < 1e-9 else f"{x:.3g}"


_EST_STYLE = {
    "nonprivate": ("non-private mean", ROLE["nonprivate"]),
    "naive_laplace": ("naive Laplace on user means", ROLE["naive"]),
    "naive_gaussian": ("naive Gaussian on user means", PALETTE[3]),
    "group_laplace": ("item-level Laplace + group privacy", PALETTE[4]),
    "winsorized": ("winsorized mean (Levy et al. 2021, Alg 1)", ROLE["private"]),
    "oracle_clip": ("oracle-centre clipping (not private)", PALETTE[2]),
}


def mse_vs_m_figure(ms: Sequence[float], simulated: Mapping[str, Sequence[float]],
                    formulas: Mapping[str, Sequence[float]], *, crossover: float | None = None,
                    title: str = "MSE against samples per user m", template: str = TEMPLATE) -> go.Figure:
    """Log–log MSE vs m: markers = simulation, lines = formula, dotted vertical line at the crossover m*.

    ``ms``: increasing m > 0; ``simulated``, ``formulas``: estimator → MSE ≥ 0, one per m (NaN: a gap);
    ``crossover``: None or an m > 0."""
    ms = _axis(ms, "ms", log=True)
    simulated = _mapping(simulated, "simulated", allow_empty=True, length=ms.size, like="ms", low=0.0, gaps=True)
    formulas = _mapping(formulas, "formulas", allow_empty=True, length=ms.size, like="ms", low=0.0, gaps=True)
    crossover = _number(crossover, "crossover", low=0.0, optional=True)
    _check_text(title, "title")
    lay = _frame(title, "samples per user m (log)", "mean squared error (log)", template, xlog=True, ylog=True)
    traces = []
    for key, ys in formulas.items():
        name, color = _EST_STYLE.get(key, (key, PALETTE[6]))
        traces.append(dict(type="scatter", x=list(ms), y=list(ys), mode="lines", name=f"{name}: formula",
                                 line=dict(color=color, dash="dash")))
    for key, ys in simulated.items():
        name, color = _EST_STYLE.get(key, (key, PALETTE[6]))
        traces.append(dict(type="scatter", x=list(ms), y=list(ys), mode="markers+lines", name=f"{name}: simulated",
                                 line=dict(color=color, width=1), marker=dict(size=8, color=color)))
    if crossover is not None and crossover > 0:
        _marked_vline(lay, crossover, f"crossover m* ≈ {crossover:.0f}", ROLE["bound"])
    fig = go.Figure(data=_json_safe(traces), layout=lay)
    caption(fig, "Source: WME noise 128τ²/(n²ε²) (Levy et al. 2021, Thm 1); naive Laplace 8B²/(n²ε²) (derived: "
                 "Lap(2B/(nε))); "
                 "non-private Var/(nm) (Levy et al. 2021, Cor 1). Crossover where τ = B/4.", below=_BELOW_LOG)
    approx_note(fig, "markers: Monte Carlo")
    return fig


def tau_knob_figure(ratios: Sequence[float], sweep: Mapping[str, Sequence[float]], *, current: float,
                    presets: Mapping[str, float], trials: int | None = None,
                    template: str = TEMPLATE) -> go.Figure:
    """τ as a bias–variance knob: bias², noise, MSE (log y, left) and clipped fraction (right) vs τ/τ_safe.

    With ``trials`` (the Monte-Carlo sample size) a faint line MSE/trials shows the resolution of the simulated
    bias²: below it the bias² curve is sampling noise, not clipping bias.

    ``ratios``: increasing τ/τ_safe > 0; ``sweep``: the arrays ``"bias2"``, ``"noise"``, ``"mse"`` (≥ 0) and
    ``"clipped"`` (in [0, 1]), one value per ratio; ``current`` and the ``presets``' values: ratios > 0.
    """
    ratios = _axis(ratios, "ratios", log=True)
    if not isinstance(sweep, Mapping) or not {"bias2", "noise", "mse", "clipped"} <= set(sweep):
        raise TypeError(f"sweep = {sweep!r} is not allowed: must be a mapping with the arrays 'bias2', 'noise', 'mse' "
                        "and 'clipped' (dpviz.mean.tau_knob_sweep).")
    sweep = {key: _array(sweep[key], f"sweep[{key!r}]", length=ratios.size, like="ratios", low=0.0,
                         high=1.0 if key == "clipped" else None) for key in ("bias2", "noise", "mse", "clipped")}
    current = _number(current, "current", low=0.0, low_open=True)
    presets = _numbers(presets, "presets")
    if trials is not None:
        trials = check_integer(trials, "trials", minimum=1, maximum=10**9)
    # y2: explicit ticks (an overlaying axis otherwise gets ticks synced to the log grid of y: 0.162, 0.446, …)
    lay = _frame("The concentration radius τ trades bias for noise", "τ / τ<sub>safe</sub> (log)",
                  "squared error (log)", template, xlog=True, ylog=True,
                  yaxis2=dict(title=dict(text="fraction of users clipped"), overlaying="y", side="right",
                              range=[0, 1], tickmode="linear", tick0=0, dtick=0.25, tickformat=".0%",
                              showgrid=False),
                  legend=dict(x=1.08, y=1))
    x = list(ratios)
    i = int(np.argmin(np.abs(np.log(np.asarray(x)) - math.log(current))))
    traces = [
        dict(type="scatter", x=x, y=list(sweep["bias2"]), name="bias² (clipping)", line=dict(color=ROLE["naive"])),
        dict(type="scatter", x=x, y=list(sweep["noise"]), name="Laplace noise 128τ²/(n²ε²)",
                   line=dict(color=ROLE["alt"], dash="dash")),
        dict(type="scatter", x=x, y=list(sweep["mse"]), name="MSE (simulated)",
             line=dict(color=ROLE["private"], width=3)),
        dict(type="scatter", x=x, y=list(sweep["clipped"]), name="fraction of users clipped (right axis)", yaxis="y2",
                   line=dict(color=PALETTE[3], dash="dot")),
        dict(type="scatter", x=[current], y=[sweep["mse"][i]], mode="markers", name="your τ",
                   marker=dict(size=14, color=ROLE["private"], symbol="diamond")),
    ]
    if trials:
        traces.append(dict(type="scatter", x=x, y=list(np.asarray(sweep["mse"], dtype=float) / trials),
                           name=f"Monte-Carlo resolution of bias² (MSE/{trials})", hoverinfo="skip",
                           line=dict(color="#999999", width=1, dash="dot")))
    for k, (label, val) in enumerate(presets.items()):
        _marked_vline(lay, val, label, ROLE["bound"], DASHES[(k + 1) % len(DASHES)], top=bool(k % 2 == 0))
    fig = go.Figure(data=_json_safe(traces), layout=lay)
    caption(fig, "Source: Levy et al. 2021, Alg 1; τ<sub>paper</sub> = B√(log(2n/γ)/(2m)) (Levy et al. 2021, Cor 1), "
                 "τ<sub>safe</sub> = "
                 "B√(2log(2n/γ)/m) "
                 "(Hoeffding), oracle = max user deviation (not private).",
            below=82)  # log x and a subscripted axis title: a little lower than _BELOW_LOG
    approx_note(fig, "Monte Carlo")
    return fig


def budget_heatmap_figure(log_n: np.ndarray, log_m: np.ndarray, log_err: np.ndarray, *, budgets: Sequence[float],
                          best: Sequence[tuple[float, float]] | None = None, z_label: str = "log₁₀ MSE",
                          source: str | None = None, template: str = TEMPLATE) -> go.Figure:
    """Heatmap of log₁₀ MSE over (log₁₀ n, log₁₀ m) with iso-N lines n·m = N (diagonals) and their best points.

    ``z_label`` names the coloured quantity; ``source`` replaces the default caption (say what is drawn).
    ``log_n``, ``log_m``: increasing grids; ``log_err``: one row per log m, one column per log n (NaN: blank);
    ``budgets``: N > 0; ``best``: (log n, log m) pairs."""
    log_n = _axis(log_n, "log_n")
    log_m = _axis(log_m, "log_m")
    log_err = _array(log_err, "log_err", ndim=2, gaps=True)
    if log_err.shape != (log_m.size, log_n.size):
        raise ValueError(f"log_err has shape {log_err.shape}, which is not allowed: must be (len(log_m), len(log_n)) "
                         f"= ({log_m.size}, {log_n.size}).")
    budgets = _array(budgets, "budgets", low=0.0, low_open=True, allow_empty=True)
    if best is not None:
        if isinstance(best, (list, tuple)) and not best:  # no best point on any line
            best = np.zeros((0, 2))
        best = _array(best, "best", ndim=2, allow_empty=True)
        if best.shape[1] != 2:
            raise ValueError(f"best has shape {best.shape}, which is not allowed: must be pairs (log n, log m).")
    _check_text(z_label, "z_label")
    _check_text(source, "source", optional=True)
    # the iso-N lines are white (they cross the whole colour scale), so the legend gets a dark background
    lay = _frame("Fixed budget N = n·m: more users or more samples per user?", "log₁₀ n (users)",
                  "log₁₀ m (samples per user)", template,
                  legend=dict(x=1.22, y=1, bgcolor="rgba(70,70,70,0.9)", font=dict(color="white")))
    traces = [dict(type="heatmap", x=log_n, y=log_m, z=log_err, colorscale="Viridis", reversescale=True,
                   colorbar=dict(title=dict(text=z_label.replace(" − ", "<br>− "))), name=z_label)]
    for k, N in enumerate(budgets):
        ln = np.linspace(log_n[0], log_n[-1], 50)
        lm = math.log10(N) - ln
        ok = (lm >= log_m[0]) & (lm <= log_m[-1])
        traces.append(dict(type="scatter", x=ln[ok], y=lm[ok], mode="lines", name=f"N = n·m = {_pow10(N)}",
                                 line=dict(color="white", dash=DASHES[k % len(DASHES)], width=2)))
    bx = [float(b[0]) for b in best] if best is not None else []
    by = [float(b[1]) for b in best] if best is not None else []
    traces.append(dict(type="scatter", x=bx, y=by, mode="markers", name="best split on each iso-N line",
                             marker=dict(symbol="star", size=14, color=PALETTE[1], line=dict(color="black", width=1))))
    fig = go.Figure(data=_json_safe(traces), layout=lay)
    caption(fig, source or "Source: MSE = Var/(nm) + 128τ²/(n²ε²) + β<sub>fail</sub>·(2B)², τ = B√(2log(2n/γ)/m), "
                           "β<sub>fail</sub> = γ + (B/τ)e<sup>−nε/8</sup> (Levy et al. 2021, Thm 1, as printed).",
            below=_BELOW_LINEAR)
    return fig


def iso_accuracy_figure(ns: np.ndarray, curves: Mapping[str, np.ndarray], *, walls: Mapping[str, float],
                        template: str = TEMPLATE) -> go.Figure:
    """Iso-accuracy curves m(n) in the (n, m) plane (log–log) with vertical walls (minimum numbers of users).

    ``ns``: increasing n > 0; ``curves``: label → m > 0, one per n (NaN: no m reaches the target there);
    ``walls``: label → n > 0."""
    ns = _axis(ns, "ns", log=True)
    curves = _mapping(curves, "curves", length=ns.size, like="ns", low=0.0, low_open=True, gaps=True)
    walls = _numbers(walls, "walls")
    lay = _frame("Samples per user needed for a target error", "users n (log)", "samples per user m (log)",
                  template, xlog=True, ylog=True)
    traces = [dict(type="scatter", x=ns, y=m, mode="lines", name=label, line=dict(color=PALETTE[k % 5], width=3))
              for k, (label, m) in enumerate(curves.items())]
    colors = [ROLE["naive"], ROLE["bound"]]
    for k, (label, n0) in enumerate(walls.items()):
        # first label at the top, second a little above the bottom (the curves end on m = 1 there)
        _marked_vline(lay, n0, label, colors[k % 2], "dash", width=2, top=k == 0, text_y=None if k == 0 else 0.1)
    fig = go.Figure(data=_json_safe(traces), layout=lay)
    caption(fig, "Source: m ≥ max(r²d/(ε²n²α<sub>acc</sub>²), r²/(nα<sub>acc</sub>²)), at least 1 "
                 "(Esfandiari, Mirrokni & Narayanan 2022, Cor 8, constants and logs dropped);<br>walls: "
                 "n ≥ ln(1/δ)/(3ε) (Esfandiari, Mirrokni & Narayanan 2022, Lemma 9), n ≥ √d·ln(1/δ)/ε "
                 "(Levy et al. 2021, Cor 1).",
            below=_BELOW_LOG)
    approx_note(fig, "O-constants set to 1")
    return fig


def error_vs_d_figure(ds: np.ndarray, ours: np.ndarray, older: np.ndarray, *, n: int,
                      template: str = TEMPLATE) -> go.Figure:
    """ℓ₂ error against d at fixed n: Esfandiari, Mirrokni & Narayanan 2022 (feasible for all d) vs Levy et al. 2021's
    regime (infeasible beyond its wall). ``ds``: increasing d > 0; ``ours``, ``older``: errors > 0, one per d (NaN:
    infeasible, a gap); ``n``: an integer ≥ 1."""
    ds = _axis(ds, "ds", log=True)
    ours = _array(ours, "ours", length=ds.size, like="ds", low=0.0, low_open=True, gaps=True)
    older = _array(older, "older", length=ds.size, like="ds", low=0.0, low_open=True, gaps=True)
    n = check_integer(n, "n", minimum=1, maximum=10**15)
    lay = _frame(f"Error against dimension at n = {n} users", "dimension d (log)", "ℓ₂ error (log)", template,
                  xlog=True, ylog=True)
    traces = [dict(type="scatter", x=ds, y=ours, mode="lines+markers", name="Esfandiari, Mirrokni & Narayanan 2022 "
                                                                            "(Cor 8 shape)",
                         line=dict(color=ROLE["private"], width=3)),
              dict(type="scatter", x=ds, y=older, mode="lines+markers", name="Levy et al. 2021 (only where n ≥ "
                                                                             "√d·ln(1/δ)/ε)",
                         line=dict(color=ROLE["naive"], dash="dash"))]
    fig = go.Figure(data=_json_safe(traces), layout=lay)
    caption(fig, "Source: error r(√d/(εn√m) + 1/√(mn)), m = 100 (Esfandiari, Mirrokni & Narayanan 2022, Cor 8);<br>"
                 "Levy et al. 2021, Cor 1 has the same rate but needs n ≳ √d·ln(1/δ)/ε.", below=_BELOW_LOG)
    approx_note(fig, "O-constants set to 1")
    return fig


def _circles(points, R, k=48):
    t = np.linspace(0, 2 * np.pi, k)
    xs = (points[:, 0:1] + R * np.cos(t)[None, :])
    ys = (points[:, 1:2] + R * np.sin(t)[None, :])
    nan = np.full((points.shape[0], 1), np.nan)
    return np.hstack([xs, nan]).ravel(), np.hstack([ys, nan]).ravel()


def ball_finding_figure(xs: np.ndarray, ys: np.ndarray, z: np.ndarray, points: np.ndarray, radius: float, *,
                        moved: int | None = None, z_label: str = "log₁₀ density", title: str = "",
                        template: str = TEMPLATE) -> go.Figure:
    """Algorithm A in 2-D: heatmap (density or count f), the balls B_i and the points (the moved user highlighted).

    ``xs``, ``ys``: increasing grids; ``z``: one row per y, one column per x (NaN: blank); ``points``: the users'
    means, shape (n, 2); ``radius`` > 0; ``moved``: None or the index of a point."""
    xs = _axis(xs, "xs")
    ys = _axis(ys, "ys")
    z = _array(z, "z", ndim=2, gaps=True)
    if z.shape != (ys.size, xs.size):
        raise ValueError(f"z has shape {z.shape}, which is not allowed: must be (len(ys), len(xs)) = "
                         f"({ys.size}, {xs.size}).")
    points = _array(points, "points", ndim=2)
    if points.shape[1] != 2:
        raise ValueError(f"points has shape {points.shape}, which is not allowed: must be (n, 2).")
    radius = _number(radius, "radius", low=0.0, low_open=True)
    if moved is not None:
        moved = check_integer(moved, "moved", minimum=0, maximum=points.shape[0] - 1)
    _check_text(z_label, "z_label")
    _check_text(title, "title")
    # legend under the plot, pinned to the figure's bottom edge (on the right it collided with the colour bar); the
    # bottom margin keeps 58 px between the caption's last line and the figure's edge for it (up to two rows)
    lay = _frame(title or "Inside Algorithm A (Esfandiari, Mirrokni & Narayanan 2022): balls, count f(p), output "
                          "density", "p₁", "p₂", template,
                  bottom=148, legend=dict(orientation="h", yref="container", y=0.01, yanchor="bottom", x=0,
                                          xanchor="left"))
    lay["yaxis"]["scaleanchor"] = "x"
    lay["height"] = 560
    cx, cy = _circles(points, radius)
    traces = [dict(type="heatmap", x=xs, y=ys, z=z, colorscale="Blues", colorbar=dict(title=dict(text=z_label)),
                   name=z_label),
              dict(type="scatter", x=cx, y=cy, mode="lines", name=f"balls B<sub>i</sub> (radius {radius:.2g})",
                         line=dict(color="rgba(0,0,0,0.35)", width=1)),
              dict(type="scatter", x=points[:, 0], y=points[:, 1], mode="markers", name="users' means x<sub>i</sub>",
                         marker=dict(color=ROLE["x"], size=7, line=dict(color="white", width=1)))]
    mx = [points[moved, 0]] if moved is not None else []
    my = [points[moved, 1]] if moved is not None else []
    traces.append(dict(type="scatter", x=mx, y=my, mode="markers", name="the moved user",
                             marker=dict(color=ROLE["x_prime"], size=14, symbol="x")))
    fig = go.Figure(data=_json_safe(traces), layout=lay)
    caption(fig, "Source: density ∝ e<sup>(ε/2)·min(f(p), 2n/3)</sup> where "
                 "f(p) = #{i : ‖p − x<sub>i</sub>‖ ≤ r√d} > 0,<br>"
                 "plus a garbage atom of mass (4/δ)·V<sub>B</sub> (Esfandiari, Mirrokni & Narayanan 2022, Thm 2; "
                 "exponent ε/2: dpviz's erratum "
                 "to Prop 15).", below=_BELOW_LINEAR)
    approx_note(fig, "grid (cell-centre rule)")
    return fig


def garbage_figure(labels: Sequence[str], values_x: Sequence[float], values_xp: Sequence[float], *,
                   template: str = TEMPLATE) -> go.Figure:
    """Bars: probabilities of outcome groups on dataset x and on the neighbour x′ (the moved user): one label (str)
    and one probability in [0, 1] on each dataset per group."""
    if isinstance(labels, str) or not isinstance(labels, Sequence) or not labels \
            or not all(isinstance(x, str) for x in labels):
        raise TypeError(f"labels = {labels!r} is not allowed: must be a non-empty sequence of strings.")
    values_x = _array(values_x, "values_x", length=len(labels), like="labels", low=0.0, high=1.0)
    values_xp = _array(values_xp, "values_xp", length=len(labels), like="labels", low=0.0, high=1.0)
    lay = _frame("Where the output mass goes: x vs neighbour x′", "", "probability (log)", template,
                  ylog=True, barmode="group")
    traces = [dict(type="bar", x=list(labels), y=list(values_x), name="dataset x", marker_color=ROLE["x"]),
              dict(type="bar", x=list(labels), y=list(values_xp), name="neighbour x′ (one user moved)",
                     marker_color=ROLE["x_prime"])]
    fig = go.Figure(data=_json_safe(traces), layout=lay)
    caption(fig, "Source: Esfandiari, Mirrokni & Narayanan 2022, Prop 15 as corrected by dpviz (exponent ε/2): "
                 "density and total each move by "
                 "e<sup>±ε/2</sup>,<br>so probabilities by e<sup>±ε</sup>; only the region where f changes 1↔0 "
                 "escapes this (mass ≤ e<sup>ε/2</sup>·δ/2).", below=40)  # no x-axis title: tick labels only
    approx_note(fig, "grid (cell-centre rule)")
    return fig


def robustness_figure(kappas: np.ndarray, robust: np.ndarray, naive: np.ndarray, floor: np.ndarray, *,
                      bound: float | None = None, current: float | None = None,
                      floor_label: str = "order of the floor r·η/√m (Prop 27; constant unknown, drawn as 1)",
                      template: str = TEMPLATE) -> go.Figure:
    """Median ℓ₂ error vs fraction η of corrupted users: Esfandiari, Mirrokni & Narayanan 2022's estimator, non-robust
    mean, and a floor of order r·η/√m (``floor_label`` says which constant ``floor`` carries).

    ``kappas``: increasing fractions in [0, 1]; ``robust``, ``naive``, ``floor``: errors ≥ 0, one per η (NaN: a gap);
    ``bound``: None or an error > 0; ``current``: None or an η in [0, 1]."""
    kappas = _axis(kappas, "kappas", low=0.0, high=1.0)
    robust = _array(robust, "robust", length=kappas.size, like="kappas", low=0.0, gaps=True)
    naive = _array(naive, "naive", length=kappas.size, like="kappas", low=0.0, gaps=True)
    floor = _array(floor, "floor", length=kappas.size, like="kappas", low=0.0, gaps=True)
    bound = _number(bound, "bound", low=0.0, low_open=True, optional=True)
    current = _number(current, "current", low=0.0, high=1.0, optional=True)
    _check_text(floor_label, "floor_label")
    lay = _frame("Robustness to corrupted users", "fraction of users corrupted η", "ℓ₂ error (log)", template,
                  ylog=True)
    traces = [dict(type="scatter", x=kappas, y=robust, mode="lines+markers", name="DP-Estimate-User "
                   "(Esfandiari, Mirrokni & Narayanan 2022, Alg 3)",
                         line=dict(color=ROLE["private"], width=3)),
              dict(type="scatter", x=kappas, y=naive, mode="lines+markers", name="non-robust mean of user means",
                         line=dict(color=ROLE["naive"], dash="dash")),
              dict(type="scatter", x=kappas, y=floor, mode="lines", name=floor_label,
                         line=dict(color=ROLE["bound"], dash="dot"))]
    if bound is not None:
        _marked_hline(lay, bound, "guarantee r′(1+√d), r′ = 10r/√m (Thm 7, Prop 14)", PALETTE[2])
    _marked_vline(lay, 0.25, "η = 1/4 (Thm 7)", "#777777", top=False)
    if current is not None:
        _marked_vline(lay, current, "", ROLE["x_prime"], "solid", width=2)
    fig = go.Figure(data=_json_safe(traces), layout=lay)
    caption(fig, "Source: Esfandiari, Mirrokni & Narayanan 2022, Thm 7 (n/4 corrupted users), Prop 14; Prop 27: error "
                 "o(rη/√m) is impossible, even "
                 "non-privately — an order, with no constant.", below=_BELOW_LINEAR)
    approx_note(fig, "Monte Carlo (median over runs)")
    return fig


def fixed_n_floor_figure(ms: np.ndarray, floors: Mapping[int, float], wme: Mapping[int, np.ndarray], *,
                         beta: Mapping[int, np.ndarray] | None = None, template: str = TEMPLATE) -> go.Figure:
    """Levy et al. 2021, Thm 8: for fixed n the error cannot go below B²/(2(1+e^{nε})) (constant derived from its proof)
    however large m is.

    ``beta`` (Theorem 1's failure probability β_fail at each n and m): the WME formula is drawn only where β_fail < ½;
    elsewhere it is no guarantee, and a curve falling towards 0 there would suggest one.

    ``ms``: increasing m > 0; ``floors``: n → floor > 0; ``wme``: n → MSE ≥ 0 per m (NaN: a gap), for every n of
    ``floors``; ``beta``: n → β_fail in [0, 1] per m."""
    ms = _axis(ms, "ms", log=True)
    floors = _numbers(floors, "floors")
    if not isinstance(wme, Mapping) or not set(floors) <= set(wme):
        raise TypeError(f"wme = {wme!r} is not allowed: must be a mapping with an array for every n of floors.")
    wme = _mapping({n: wme[n] for n in floors}, "wme", length=ms.size, like="ms", low=0.0, gaps=True)
    if beta is not None:
        if not isinstance(beta, Mapping) or not set(floors) <= set(beta):
            raise TypeError(f"beta = {beta!r} is not allowed: must be None or a mapping with an array for every n of "
                            "floors.")
        beta = _mapping({n: beta[n] for n in floors}, "beta", length=ms.size, like="ms", low=0.0, high=1.0)
    lay = _frame("A floor no m can remove (fixed n)", "samples per user m (log)", "worst-case MSE (log)", template,
                  xlog=True, ylog=True)
    traces = []
    for k, (n, fl) in enumerate(floors.items()):
        c = PALETTE[k % 5]
        traces.append(dict(type="scatter", x=ms, y=np.full(len(ms), fl), mode="lines",
                           name=f"n = {n}: lower bound (Thm 8)", line=dict(color=c, width=3)))
        y = np.asarray(wme[n], dtype=float)
        if beta is not None:
            y = np.where(np.asarray(beta[n], dtype=float) < 0.5, y, np.nan)
        name = (f"n = {n}: WME MSE where β<sub>fail</sub> < ½" if beta is not None
                else f"n = {n}: WME ideal MSE (β<sub>fail</sub> ignored)")
        traces.append(dict(type="scatter", x=ms, y=y, mode="lines", name=name, line=dict(color=c, dash="dash")))
    fig = go.Figure(data=_json_safe(traces), layout=lay)
    caption(fig, "Source: max E(μ̂ − μ)² ≥ B²/(2(1 + e<sup>nε</sup>)) (derived from the proof of Levy et al. 2021, "
                 "Thm 8, "
                 "which states Ω(e<sup>−nε</sup>));<br>dashed: Var/(nm) + 128τ²/(n²ε²) (Levy et al. 2021, Thm 1), "
                 "valid only "
                 "once β<sub>fail</sub> = (B/τ)e<sup>−nε/8</sup> is small" + (" (drawn where it is below ½)." if beta
                                                                             is not None else "."),
            below=_BELOW_LOG)
    return fig

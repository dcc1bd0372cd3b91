"""Figures of lesson 02 "Counting with noise": sensitivity, clipping, post-processing, composition, local vs central.

* :func:`noise_figure` — the Laplace noise a query needs, b = Δ/ε, with ±Δ (how far one person moves the answer);
* :func:`clipping_figure` — exact expected squared error of a clipped sum or mean against the clipping bound:
  bias² falls, noise variance rises, the total has a sweet spot;
* :func:`note_figure` — an empty figure that says why there is nothing to plot (a count needs no clipping);
* :func:`clamping_figure` — exact MSE of a Laplace count, raw, clamped at 0 and rounded, against the true count;
* :func:`consistency_figure` — exact variance of range queries before and after least-squares consistency;
* :func:`composition_figure` — noise per bin of a histogram under parallel composition against treating the bins
  as queries on the same data (sequential composition);
* :func:`local_central_figure` — standard deviation of a count's error against n (log–log): local k-RR / OUE against
  central Laplace.

Every number comes from :mod:`dpviz.sensitivity` and :mod:`dpviz.local` (closed forms, no Monte Carlo).
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from dpviz import local as LOC
from dpviz import sensitivity as S
from dpviz._validation import check_choice, check_integer, check_positive
from dpviz.mechanisms import Laplace
from dpviz.plots._theme import DASHES, PALETTE, ROLE, TEMPLATE, _gaps, _layout, _vline, fmt_number
from dpviz.references import cite

__all__ = [
    "QUERY_LABELS",
    "RELATION_LABELS",
    "PROTOCOL_LABELS",
    "noise_figure",
    "clipping_figure",
    "note_figure",
    "clamping_figure",
    "consistency_figure",
    "composition_figure",
    "local_central_figure",
]

QUERY_LABELS = {"count": "count", "sum": "sum", "mean": "mean", "histogram": "histogram"}
RELATION_LABELS = {"add_remove": "add/remove one record", "replace": "replace one record"}
PROTOCOL_LABELS = {"krr": "k-ary randomized response (k-RR)", "oue": "optimised unary encoding (OUE)"}

# legend under the plot, pinned to the figure's bottom edge (it wraps to several rows on a phone); the source line
# sits between the x axis title and the legend
_LEGEND = dict(orientation="h", yref="container", y=0.01, yanchor="bottom", x=0.0, xanchor="left", font=dict(size=12))
_HEIGHT = 520
_BELOW = 62  # pixels from the plot area's bottom to the source line: under the tick labels and the x axis title
_LEGEND_ROOM = 84  # pixels kept under the source line for the legend (three rows; more on a phone scroll the plot)


def _wrap(text: str, width: int = 78) -> str:
    """A source line broken with <br> every ``width`` characters or so (annotations do not wrap by themselves)."""
    import textwrap

    return "<br>".join(textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False))


def _figure(data: list, layout: dict, source: str) -> go.Figure:
    """The figure with its source line under the x axis title, placed as :func:`dpviz.plots.caption` places it
    (written into the layout dict: one validation instead of an ``add_annotation`` call per update)."""
    source = _wrap(source)
    lines = source.count("<br>") + 1
    layout = dict(layout)
    layout["margin"] = dict(l=70, r=30, t=60, b=int(_BELOW + 15 * lines + 12 + _LEGEND_ROOM))
    note = dict(text=source, xref="paper", yref="paper", x=0, xanchor="left", yanchor="top", showarrow=False,
                font=dict(size=11, color="#555555"), align="left", y=0, yshift=-float(_BELOW))
    layout["annotations"] = list(layout.get("annotations", [])) + [note]
    return go.Figure(data=data, layout=layout)


def noise_figure(sensitivity: float, epsilon: float, *, label: str = "", template: str = TEMPLATE) -> go.Figure:
    """The density of the Laplace noise b = Δ/ε an ε-DP release of a query with sensitivity Δ needs, with the
    band ±Δ one person can move the answer (Dwork & Roth 2014, Thm 3.6)."""
    d = check_positive(sensitivity, "sensitivity")
    eps = check_positive(epsilon, "epsilon")
    b = S.laplace_scale(d, eps)
    mech = Laplace(scale=b, sensitivity=d)
    half = max(6.0 * b, 1.5 * d)
    x = np.linspace(-half, half, 201)
    y = mech.pdf(x)
    top = float(np.max(y))
    data = [
        dict(type="scatter", x=x, y=y, mode="lines", line=dict(color=ROLE["x"], width=2.5),
             name=f"Laplace noise, scale b = Δ/ε = {fmt_number(b)}"),
        dict(type="scatter", x=[-d, -d, d, d], y=[0, top * 1.05, top * 1.05, 0], mode="lines", fill="toself",
             fillcolor="rgba(230, 159, 0, 0.18)", line=dict(color=ROLE["x_prime"], dash="dash", width=1.5),
             name=f"±Δ = ±{fmt_number(d)}: how far one person moves the answer", hoverinfo="name"),
    ]
    title = f"Noise for {label}: Δ = {fmt_number(d)}, ε = {fmt_number(eps)}" if label else "Noise the release needs"
    layout = _layout(title, "noise added to the answer", "density", template=template, legend=_LEGEND,
                     height=_HEIGHT, yaxis=dict(rangemode="tozero"))
    return _figure(data, layout, f"Laplace mechanism: b = Δ/ε, standard deviation √2·b = "
                                 f"{fmt_number(math.sqrt(2) * b)} ({cite('dwork2014algorithmic', 'Thm 3.6')}).")


def clipping_figure(data, lower: float, upper: float, epsilon: float, query: str = "sum",
                    relation: str = "add_remove", *, template: str = TEMPLATE) -> go.Figure:
    """Exact expected squared error bias² + 2b² of the clipped, noised sum (or mean) of ``data`` against the upper
    clipping bound U (log–log), with the learner's U marked and the best U on the grid shown."""
    check_choice(query, "query", ("sum", "mean"))
    eps = check_positive(epsilon, "epsilon")
    x = np.asarray(data, dtype=float)
    lo_u = max(float(lower) + 1e-3, float(np.min(x)) / 2, 0.1)
    hi_u = max(10.0 * float(np.max(x)), float(upper) * 1.5, lo_u * 10)
    grid = np.geomspace(lo_u, hi_u, 80)
    res = S.clipping_error(x, lower, grid, eps, query, relation)
    mine = S.clipping_error(x, lower, upper, eps, query, relation)
    best = int(np.argmin(res["total"]))
    tiny = 1e-6 * float(np.max(res["total"]))  # bias² = 0 cannot be drawn on a log axis: a gap there
    data_t = [
        dict(type="scatter", x=grid, y=_gaps(np.where(res["bias2"] > tiny, res["bias2"], np.nan)), mode="lines",
             line=dict(color=PALETTE[5], dash=DASHES[1], width=2), name="bias² (clipping cuts the tail)"),
        dict(type="scatter", x=grid, y=res["noise_var"], mode="lines",
             line=dict(color=PALETTE[4], dash=DASHES[2], width=2), name="noise variance 2b², b = Δ(U)/ε"),
        dict(type="scatter", x=grid, y=res["total"], mode="lines", line=dict(color=ROLE["x"], width=3),
             name=f"expected squared error (best U ≈ {fmt_number(grid[best], 3)})"),
        dict(type="scatter", x=[upper], y=[mine["total"]], mode="markers",
             marker=dict(color=ROLE["truth"], size=11, symbol="diamond"),
             name=f"your U = {fmt_number(upper)}: error {fmt_number(mine['total'], 3)}"),
    ]
    what = "sum" if query == "sum" else "mean"
    layout = _layout(f"Clipping the {what} of {x.size:,} skewed values to [L, U], ε = {fmt_number(eps)}",
                     "upper clipping bound U (log scale)", f"expected squared error of the {what} (log scale)",
                     template=template, legend=_LEGEND, height=_HEIGHT,
                     xaxis=dict(type="log", exponentformat="power"), yaxis=dict(type="log", exponentformat="power"),
                     shapes=[_vline(float(upper), color=ROLE["truth"], dash="dot")])
    return _figure(data_t, layout, "Exact: E[(release − true)²] = bias² + 2b² on this fixed data set, no simulation "
                        f"({cite('dwork2014algorithmic', 'Thm 3.6')}).")


def note_figure(title: str, text: str, *, template: str = TEMPLATE) -> go.Figure:
    """An empty plot area with a sentence in it: used where a choice has nothing to plot."""
    layout = _layout(title, "", "", template=template, height=260,
                     xaxis=dict(visible=False), yaxis=dict(visible=False),
                     annotations=[dict(text=text, x=0.5, y=0.5, xref="paper", yref="paper", showarrow=False,
                                       font=dict(size=14))])
    return go.Figure(data=[dict(type="scatter", x=[], y=[], mode="lines", showlegend=False)], layout=layout)


def clamping_figure(epsilon: float, *, template: str = TEMPLATE) -> go.Figure:
    """Exact mean squared error of a Laplace count (b = 1/ε) against the true count: as released (2b²), clamped at
    0 (closed form, below 2b² everywhere and b² at 0) and rounded to an integer."""
    eps = check_positive(epsilon, "epsilon")
    b = S.laplace_scale(1.0, eps)
    x = np.linspace(0.0, 8.0 * b, 161)
    raw = 2.0 * b * b
    clamped = S.clamped_laplace_mse(x, b)
    rounded = S.rounded_laplace_mse(b)
    data = [
        dict(type="scatter", x=[x[0], x[-1]], y=[raw, raw], mode="lines",
             line=dict(color=ROLE["approx"], dash=DASHES[1], width=2),
             name=f"as released: 2b² = {fmt_number(raw, 3)}"),
        dict(type="scatter", x=x, y=clamped, mode="lines", line=dict(color=ROLE["x"], width=3),
             name="clamped at 0: max(answer, 0)"),
        dict(type="scatter", x=[x[0], x[-1]], y=[rounded, rounded], mode="lines",
             line=dict(color=PALETTE[2], dash=DASHES[2], width=2),
             name=f"rounded to an integer: {fmt_number(rounded, 3)}"),
    ]
    layout = _layout(f"Post-processing a noisy count, ε = {fmt_number(eps)} (b = 1/ε)", "true count x",
                     "mean squared error", template=template, legend=_LEGEND, height=_HEIGHT,
                     yaxis=dict(rangemode="tozero"))
    return _figure(data, layout, "Exact: clamped MSE = 2b² − e<sup>−x/b</sup>·b(x + b). Post-processing costs no "
                                 f"privacy ({cite('dwork2014algorithmic', 'Prop. 2.1')}).")


def consistency_figure(bins: int, epsilon: float, *, template: str = TEMPLATE) -> go.Figure:
    """Exact variance of a query over r adjacent bins from a two-level hierarchy (total + bins; each person counted
    twice, so each of the bins + 1 counts gets Lap(2/ε)), answered from the noisy bins alone, from the best of
    bins/total−complement, and after least-squares consistency (Hay et al. 2010)."""
    bins = check_integer(bins, "bins", minimum=1, maximum=10_000)
    eps = check_positive(epsilon, "epsilon")
    var = 2.0 * S.laplace_scale(2.0, eps) ** 2  # L1 sensitivity 2: one person is in the total and in one bin
    r = np.arange(1, bins + 1)
    raw = S.raw_range_variance(bins, r, var)
    best_raw = np.minimum(raw, S.raw_range_variance(bins, np.maximum(bins + 1 - r, 1), var))
    best_raw = np.where(r == bins, var, best_raw)  # all bins: the noisy total alone
    ls = S.hierarchy_range_variance(bins, r, var)
    data = [
        dict(type="scatter", x=r, y=raw, mode="lines+markers", line=dict(color=ROLE["approx"], dash=DASHES[1]),
             name="sum of noisy bins"),
        dict(type="scatter", x=r, y=best_raw, mode="lines+markers", line=dict(color=PALETTE[1], dash=DASHES[2]),
             name="better of: sum of bins, or total − the other bins"),
        dict(type="scatter", x=r, y=ls, mode="lines+markers", line=dict(color=ROLE["x"], width=3),
             name="consistent (least squares)"),
    ]
    layout = _layout(f"A histogram of {bins} bins plus its total, ε = {fmt_number(eps)}",
                     "width r of the range query (adjacent bins)", "variance of the answer", template=template,
                     legend=_LEGEND, height=_HEIGHT, yaxis=dict(rangemode="tozero"))
    return _figure(data, layout, "Exact: variance·r(bins + 1 − r)/(bins + 1) after least squares "
                        f"({cite('hay2010boosting')}); each count gets Lap(2/ε).")


def composition_figure(epsilon: float, bins: int, relation: str = "add_remove", *, show_parallel: bool = True,
                       template: str = TEMPLATE) -> go.Figure:
    """Noise standard deviation per bin of a histogram with total budget ε, against the number of bins (log–log):
    as if each bin were a separate query on the same data (sequential: each bin gets ε/bins) and as disjoint
    bins (parallel: each bin gets ε, the histogram's Δ is 1 under add/remove, 2 under replace)."""
    eps = check_positive(epsilon, "epsilon")
    bins = check_integer(bins, "bins", minimum=1, maximum=10_000)
    rel = check_choice(relation, "relation", S.RELATIONS)
    grid = np.unique(np.round(np.geomspace(1, max(1000, bins), 40)).astype(int))
    seq = math.sqrt(2.0) * grid / eps  # each bin: Lap(1/(ε/bins))
    par = math.sqrt(2.0) * S.histogram_sensitivity(rel) / eps * np.ones(grid.size)
    data = [dict(type="scatter", x=grid, y=seq, mode="lines", line=dict(color=ROLE["approx"], dash=DASHES[1], width=2),
                 name="bins as queries on the same data: each gets ε/bins (sequential)")]
    if show_parallel:
        data.append(dict(type="scatter", x=grid, y=par, mode="lines", line=dict(color=ROLE["x"], width=3),
                         name=f"disjoint bins: each gets the whole ε (parallel), Δ = "
                              f"{fmt_number(S.histogram_sensitivity(rel))}"))
    layout = _layout(f"Noise per bin for a histogram at total ε = {fmt_number(eps)} ({RELATION_LABELS[rel]})",
                     "number of bins (log scale)", "noise standard deviation per bin (log scale)",
                     template=template, legend=_LEGEND, height=_HEIGHT,
                     xaxis=dict(type="log", exponentformat="power"), yaxis=dict(type="log", exponentformat="power"),
                     shapes=[_vline(float(bins), color=ROLE["truth"], dash="dot")])
    return _figure(data, layout, f"Sequential: ε adds up ({cite('dwork2014algorithmic', 'Thm 3.14')}); parallel: "
                                 f"disjoint parts cost the largest ε ({cite('mcsherry2009privacy', 'Thm 2')}). "
                                 "Dotted: your bins.")


def local_central_figure(epsilon: float, k: int, protocol: str = "krr", frequency: float = 0.0,
                         n_mark: int | None = None, *, template: str = TEMPLATE) -> go.Figure:
    """Standard deviation of the error of an estimated count against the number of people n (log–log): central
    Laplace √2/ε (flat) against the local protocol √(n·V₁), V₁ = n·Var f̂ (Wang et al. 2017, Thm 2)."""
    eps = check_positive(epsilon, "epsilon")
    check_choice(protocol, "protocol", LOC.PROTOCOLS)
    n = np.geomspace(10, 1e8, 57)
    local = LOC.local_count_std(protocol, n, k, eps, frequency)
    central = LOC.central_count_std(eps) * np.ones(n.size)
    data = [
        dict(type="scatter", x=n, y=local, mode="lines", line=dict(color=ROLE["approx"], width=3),
             name=f"local: {PROTOCOL_LABELS[protocol]}, k = {int(k)}"),
        dict(type="scatter", x=n, y=central, mode="lines", line=dict(color=ROLE["x"], dash=DASHES[1], width=3),
             name="central: Laplace count, b = 1/ε"),
    ]
    shapes = [_vline(float(n_mark), color=ROLE["truth"], dash="dot")] if n_mark else []
    layout = _layout(f"Error of an estimated count, ε = {fmt_number(eps)}, true fraction f = {fmt_number(frequency)}",
                     "number of people n (log scale)", "standard deviation of the count's error (log scale)",
                     template=template, legend=_LEGEND, height=_HEIGHT, shapes=shapes,
                     xaxis=dict(type="log", exponentformat="power"), yaxis=dict(type="log", exponentformat="power"))
    return _figure(data, layout, f"Exact variances: local {cite('wang2017locally', 'Thm 2')}; central "
                        f"{cite('dwork2014algorithmic', 'Thm 3.6')}.")

"""Figures of lesson 02 "Counting with noise": sensitivity, clipping, post-processing, composition, local vs central.

* :func:`noise_figure` — the Laplace noise a query needs, b = Δ/ε, with ±Δ (how far one person moves the answer);
* :func:`clipping_figure` — exact expected squared error of a clipped sum or mean against the clipping bound:
  bias² falls, noise variance rises, the total has a sweet spot;
* :func:`note_figure` — an empty figure that says why there is nothing to plot (a count needs no clipping);
* :func:`clamping_figure` — exact MSE of a Laplace count, raw, clamped at 0 and (once revealed) rounded, against
  the true count;
* :func:`consistency_figure` — exact variance of range queries before and after least-squares consistency, with
  the fair baseline: the bins alone at the same ε;
* :func:`composition_figure` — noise per bin of a histogram under parallel composition against treating the bins
  as queries on the same data (sequential composition);
* :func:`local_central_figure` — standard deviation of a count's error against n (log–log): local k-RR / OUE against
  central Laplace.

Every number comes from :mod:`dpviz.sensitivity` and :mod:`dpviz.local` (closed forms, no Monte Carlo). The
figures take ε in [10⁻⁶, 100] (:data:`EPSILON_RANGE`), a range every axis can draw; the lesson calls the number of
possible answers K (the course's domain size) where the code and the papers write k.
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from dpviz import local as LOC
from dpviz import sensitivity as S
from dpviz._validation import check_choice, check_in_range, check_integer, check_positive
from dpviz.mechanisms import Laplace
from dpviz.plots._theme import DASHES, PALETTE, ROLE, TEMPLATE, _gaps, _layout, _vline, fmt_number
from dpviz.references import cite

__all__ = [
    "EPSILON_RANGE",
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
#: The ε a figure of this module draws: wide enough for any lesson, narrow enough that every axis stays finite.
EPSILON_RANGE = (1e-6, 100.0)

# legend under the plot, pinned to the figure's bottom edge (it wraps to several rows on a phone); the source line
# sits between the x axis title and the legend
_LEGEND = dict(orientation="h", yref="container", y=0.01, yanchor="bottom", x=0.0, xanchor="left", font=dict(size=12))
_HEIGHT = 520
_BELOW = 62  # pixels from the plot area's bottom to the source line: under the tick labels and the x axis title
_LEGEND_ROOM = 84  # pixels kept under the source line for the legend (three rows; more on a phone scroll the plot)


def _eps(epsilon) -> float:
    return check_in_range(epsilon, "epsilon", *EPSILON_RANGE)


def _text(value, name: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} = {value!r} is not allowed: must be a string.")
    return value


def _flag(value, name: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} = {value!r} is not allowed: must be True or False.")
    return bool(value)


def _protocol(protocol) -> str:
    if not isinstance(protocol, str):
        raise ValueError(f"protocol = {protocol!r} is not allowed: must be one of 'krr', 'oue'.")
    return check_choice(protocol, "protocol", LOC.PROTOCOLS)


def _relation(relation) -> str:
    if not isinstance(relation, str):
        raise ValueError(f"relation = {relation!r} is not allowed: must be one of 'add_remove', 'replace'.")
    return check_choice(relation, "relation", S.RELATIONS)


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
    """The density of the Laplace noise b = Δ/ε an ε-DP release of a query with sensitivity Δ needs (Dwork & Roth
    2014, Thm 3.6), with the band ±Δ one person can move the answer; b must lie in [10⁻¹⁰⁰, 10¹⁰⁰]."""
    d = check_positive(sensitivity, "sensitivity")
    eps = _eps(epsilon)
    label = _text(label, "label")
    b = d / eps
    if not 1e-100 <= b <= 1e100:
        raise ValueError(f"sensitivity = {sensitivity!r} and epsilon = {epsilon!r} are not allowed: the figure draws "
                         f"the Laplace density of scale b = Δ/ε, which must be in [1e-100, 1e+100] (it is {b:.3g}).")
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
    return _figure(data, layout, "Laplace mechanism: b = Δ/ε makes it ε-DP ("
                                 f"{cite('dwork2014algorithmic', 'Thm 3.6')}); standard deviation √2·b = "
                                 f"{fmt_number(math.sqrt(2) * b)} (Lap(b) has variance 2b², "
                                 f"{cite('dwork2014algorithmic', 'Def. 3.3')}).")


def clipping_figure(data, lower: float, upper: float, epsilon: float, query: str = "sum",
                    relation: str = "add_remove", *, template: str = TEMPLATE) -> go.Figure:
    """Exact expected squared error bias² + 2b² of the clipped, noised sum (or mean) of ``data`` against the upper
    clipping bound U (log–log), with the learner's U marked and the best U on the grid (80 bounds from about half the
    smallest value, or L, to ten times the largest, at most 10¹²) shown. U must be > 0 (a log axis)."""
    eps = _eps(epsilon)
    mine = S.clipping_error(data, lower, upper, eps, query, relation)  # validates every argument, by its name
    if np.ndim(upper) != 0:
        raise ValueError(f"upper = {upper!r} is not allowed: must be one number (the learner's bound U).")
    x = np.asarray(data, dtype=float)
    lo, hi = float(lower), float(upper)
    if hi <= 0:
        raise ValueError(f"upper = {upper!r} is not allowed: must be > 0 (the figure's U axis is logarithmic).")
    lo_u = max(lo, float(np.min(x)) / 2, 0.1)
    hi_u = min(max(10.0 * float(np.max(x)), hi * 1.5, lo_u * 10), 1e12)
    grid = np.unique(np.geomspace(lo_u, max(hi_u, lo_u), 80))
    res = S.clipping_error(x, lo, grid, eps, query, relation)
    best = int(np.argmin(res["total"]))
    tiny = 1e-6 * float(np.max(res["total"]))  # bias² = 0 cannot be drawn on a log axis: a gap there
    data_t = [
        dict(type="scatter", x=grid, y=_gaps(np.where(res["bias2"] > tiny, res["bias2"], np.nan)), mode="lines",
             line=dict(color=PALETTE[5], dash=DASHES[1], width=2), name="bias² (clipping cuts the tail)"),
        dict(type="scatter", x=grid, y=res["noise_var"], mode="lines",
             line=dict(color=PALETTE[4], dash=DASHES[2], width=2), name="noise variance 2b², b = Δ(U)/ε"),
        dict(type="scatter", x=grid, y=res["total"], mode="lines", line=dict(color=ROLE["x"], width=3),
             name=f"expected squared error (best U ≈ {fmt_number(grid[best], 3)})"),
        dict(type="scatter", x=[hi], y=[mine["total"]], mode="markers",
             marker=dict(color=ROLE["truth"], size=11, symbol="diamond"),
             name=f"your U = {fmt_number(hi)}: error {fmt_number(mine['total'], 3)}"),
    ]
    what = "sum" if query == "sum" else "mean"
    layout = _layout(f"Clipping the {what} of {x.size:,} skewed values to [L, U], ε = {fmt_number(eps)}",
                     "upper clipping bound U (log scale)", f"expected squared error of the {what} (log scale)",
                     template=template, legend=_LEGEND, height=_HEIGHT,
                     xaxis=dict(type="log", exponentformat="power"), yaxis=dict(type="log", exponentformat="power"),
                     shapes=[_vline(hi, color=ROLE["truth"], dash="dot")])
    return _figure(data_t, layout, "Exact: E[(release − true)²] = bias² + 2b² on this fixed data set, no simulation "
                        f"(Lap(b) has variance 2b², {cite('dwork2014algorithmic', 'Def. 3.3')}).")


def note_figure(title: str, text: str, *, template: str = TEMPLATE) -> go.Figure:
    """An empty plot area with a sentence in it: used where a choice has nothing to plot."""
    title, text = _text(title, "title"), _text(text, "text")
    layout = _layout(title, "", "", template=template, height=260,
                     xaxis=dict(visible=False), yaxis=dict(visible=False),
                     annotations=[dict(text=text, x=0.5, y=0.5, xref="paper", yref="paper", showarrow=False,
                                       font=dict(size=14))])
    return go.Figure(data=[dict(type="scatter", x=[], y=[], mode="lines", showlegend=False)], layout=layout)


def clamping_figure(epsilon: float, *, show_rounded: bool = True, template: str = TEMPLATE) -> go.Figure:
    """Exact mean squared error of a Laplace count (b = 1/ε) against the true count t: as released (2b²), clamped at
    0 (closed form, below 2b² everywhere and b² at 0) and, with ``show_rounded``, rounded to an integer (above 2b²
    unless ε exceeds 1/:func:`dpviz.sensitivity.rounding_breakeven_scale` ≈ 5.35). ``show_rounded=False`` leaves
    the rounded curve out, for an exercise that asks about it first."""
    eps = _eps(epsilon)
    show_rounded = _flag(show_rounded, "show_rounded")
    b = S.laplace_scale(1.0, eps)
    t = np.linspace(0.0, 8.0 * b, 161)
    raw = 2.0 * b * b
    clamped = S.clamped_laplace_mse(t, b)
    data = [
        dict(type="scatter", x=[t[0], t[-1]], y=[raw, raw], mode="lines",
             line=dict(color=ROLE["approx"], dash=DASHES[1], width=2),
             name=f"as released: 2b² = {fmt_number(raw, 3)}"),
        dict(type="scatter", x=t, y=clamped, mode="lines", line=dict(color=ROLE["x"], width=3),
             name="clamped at 0: max(answer, 0)"),
    ]
    if show_rounded:
        rounded = S.rounded_laplace_mse(b)
        change = 100.0 * (rounded / raw - 1.0)
        data.append(dict(type="scatter", x=[t[0], t[-1]], y=[rounded, rounded], mode="lines",
                         line=dict(color=PALETTE[2], dash=DASHES[2], width=2),
                         name=f"rounded to an integer: {fmt_number(rounded, 3)} "
                              f"({'+' if change >= 0 else '−'}{fmt_number(abs(change), 2)} % against 2b²)"))
    layout = _layout(f"Post-processing a noisy count, ε = {fmt_number(eps)} (b = 1/ε)", "true count t",
                     "mean squared error", template=template, legend=_LEGEND, height=_HEIGHT,
                     yaxis=dict(rangemode="tozero"))
    rounding = ("; rounded MSE = u(1 + u²)/(1 − u²)², u = e<sup>−1/(2b)</sup>" if show_rounded else "")
    return _figure(data, layout, "Exact: clamped MSE = 2b² − e<sup>−t/b</sup>·b(t + b)" + rounding + ". "
                                 "Post-processing costs no privacy "
                                 f"({cite('dwork2014algorithmic', 'Prop. 2.1')}), but it can add error.")


def consistency_figure(bins: int, epsilon: float, relation: str = "add_remove", *,
                       template: str = TEMPLATE) -> go.Figure:
    """Exact variance of a query over r adjacent bins of a histogram with B = ``bins`` bins, released with its total
    at total budget ε, against the fair baseline of the bins released alone at the same ε.

    * add/remove: each person is in the total and in one bin (Δ = 2), so each of the B + 1 counts gets Lap(2/ε),
      variance 8/ε². Drawn: the bins alone at the same ε (Δ = 1, Lap(1/ε): 2r/ε²); the hierarchy's own answers (its
      r bins; the better of those and the total minus the other B − r bins); and the hierarchy after least squares,
      8r(B + 1 − r)/((B + 1)ε²) (:func:`dpviz.sensitivity.hierarchy_range_variance`). Least squares beats both raw
      answers of its own release, but beats the bins alone only for r ≥ ¾(B + 1) (dotted line).
    * replace: n is public, so the total is exact and free; each bin gets Lap(2/ε) (Δ = 2 under replace). Drawn:
      the bins alone (8r/ε²), the better of those and the public total minus the other bins, and least squares
      under the public total, 8r(B − r)/(Bε²): below the bins alone at every r < B.

    The consistency step is Hay et al. 2010's; its gains at equal ε come from multi-level trees, not from this
    two-level hierarchy.
    """
    bins = check_integer(bins, "bins", minimum=1, maximum=10_000)
    eps = _eps(epsilon)
    rel = _relation(relation)
    r = np.arange(1, bins + 1)
    var2 = 2.0 * S.laplace_scale(2.0, eps) ** 2  # Lap(2/ε): Δ = 2 (hierarchy under add/remove; bins under replace)
    shapes = []
    if rel == "add_remove":
        alone = S.raw_range_variance(bins, r, 2.0 * S.laplace_scale(1.0, eps) ** 2)  # Δ = 1: Lap(1/ε)
        own = S.raw_range_variance(bins, r, var2)
        best_own = np.minimum(own, S.raw_range_variance(bins, bins + 1 - r, var2))  # total − the other bins
        ls = S.hierarchy_range_variance(bins, r, var2)
        data = [
            dict(type="scatter", x=r, y=alone, mode="lines+markers", line=dict(color=PALETTE[5], width=3),
                 name="bins alone at the same ε: Lap(1/ε), Δ = 1"),
            dict(type="scatter", x=r, y=own, mode="lines+markers", line=dict(color=ROLE["approx"], dash=DASHES[1]),
                 name="hierarchy, Lap(2/ε): sum of its r bins"),
            dict(type="scatter", x=r, y=best_own, mode="lines+markers", line=dict(color=PALETTE[1], dash=DASHES[2]),
                 name="hierarchy: better of its bins, or total − the other bins"),
            dict(type="scatter", x=r, y=ls, mode="lines+markers", line=dict(color=ROLE["x"], width=3),
                 name="hierarchy made consistent (least squares)"),
        ]
        cross = 0.75 * (bins + 1)
        if cross <= bins:
            shapes.append(_vline(cross, color=ROLE["truth"], dash="dot"))
        title = f"{bins} bins plus their total (add/remove), ε = {fmt_number(eps)}"
        source = ("Exact variances. Hierarchy: each person in the total and one bin, Δ = 2, each count Lap(2/ε); "
                  "least squares 8r(B + 1 − r)/((B + 1)ε²), below its own raw answers, but below the bins alone "
                  "(2r/ε²) only for r ≥ ¾(B + 1), dotted. Consistency step: " + cite("hay2010boosting")
                  + "; its gains come from multi-level trees.")
    else:
        alone = S.raw_range_variance(bins, r, var2)
        other = np.where(r < bins, S.raw_range_variance(bins, np.maximum(bins - r, 1), var2), 0.0)
        best = np.minimum(alone, other)  # the public total minus the other B − r bins (exact at r = B)
        ls = S.hierarchy_range_variance(bins, r, var2, 0.0)
        data = [
            dict(type="scatter", x=r, y=alone, mode="lines+markers", line=dict(color=PALETTE[5], width=3),
                 name="bins alone: Lap(2/ε), Δ = 2 under replace"),
            dict(type="scatter", x=r, y=best, mode="lines+markers", line=dict(color=PALETTE[1], dash=DASHES[2]),
                 name="better of: the bins, or public total − the other bins"),
            dict(type="scatter", x=r, y=ls, mode="lines+markers", line=dict(color=ROLE["x"], width=3),
                 name="consistent with the public total (least squares)"),
        ]
        title = f"{bins} bins and their public total (replace), ε = {fmt_number(eps)}"
        source = ("Exact variances. Under replace-one n is public: the total is exact and costs nothing; each bin "
                  "Lap(2/ε). Least squares 8r(B − r)/(Bε²), below the bins alone (8r/ε²) at every r < B. "
                  "Consistency step: " + cite("hay2010boosting") + ".")
    layout = _layout(title, "width r of the range query (adjacent bins)", "variance of the answer",
                     template=template, legend=_LEGEND, height=_HEIGHT, yaxis=dict(rangemode="tozero"),
                     shapes=shapes)
    return _figure(data, layout, source)


def composition_figure(epsilon: float, bins: int, relation: str = "add_remove", *, show_parallel: bool = True,
                       template: str = TEMPLATE) -> go.Figure:
    """Noise standard deviation per bin of a histogram with total budget ε, against the number of bins (log–log):
    as if each bin were a separate query on the same data (sequential: each bin gets ε/bins) and as disjoint
    bins (parallel: each bin gets ε, the histogram's Δ is 1 under add/remove, 2 under replace)."""
    eps = _eps(epsilon)
    bins = check_integer(bins, "bins", minimum=1, maximum=10_000)
    rel = _relation(relation)
    show_parallel = _flag(show_parallel, "show_parallel")
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
                         n_mark: float | None = None, *, template: str = TEMPLATE) -> go.Figure:
    """Standard deviation of the error of an estimated count against the number of people n (log–log): central
    Laplace √2/ε (flat) against the local protocol √(n·V₁), V₁ = n·Var f̂ (Wang et al. 2017, Thm 2), over
    K = ``k`` possible answers; ``n_mark`` (None, or a number in [1, 10¹²]) marks the learner's n."""
    eps = _eps(epsilon)
    protocol = _protocol(protocol)
    if n_mark is not None:
        n_mark = check_in_range(n_mark, "n_mark", 1.0, 1e12)
    n = np.geomspace(10, 1e8, 57)
    local = LOC.local_count_std(protocol, n, k, eps, frequency)
    central = LOC.central_count_std(eps) * np.ones(n.size)
    k, f = int(k), float(frequency)
    data = [
        dict(type="scatter", x=n, y=local, mode="lines", line=dict(color=ROLE["approx"], width=3),
             name=f"local: {PROTOCOL_LABELS[protocol]}, K = {k}"),
        dict(type="scatter", x=n, y=central, mode="lines", line=dict(color=ROLE["x"], dash=DASHES[1], width=3),
             name="central: Laplace count, b = 1/ε"),
    ]
    shapes = [_vline(n_mark, color=ROLE["truth"], dash="dot")] if n_mark is not None else []
    layout = _layout(f"Error of an estimated count, ε = {fmt_number(eps)}, true fraction f = {fmt_number(f)}",
                     "number of people n (log scale)", "standard deviation of the count's error (log scale)",
                     template=template, legend=_LEGEND, height=_HEIGHT, shapes=shapes,
                     xaxis=dict(type="log", exponentformat="power"), yaxis=dict(type="log", exponentformat="power"))
    local_source = (f"k-RR {cite('kairouz2014extremal')}, variance {cite('wang2017locally', 'Thm 2')}"
                    if protocol == "krr" else f"OUE, variance {cite('wang2017locally', '§4.3')}")
    return _figure(data, layout, f"Exact variances: local {local_source}; central √2/ε "
                                 f"({cite('dwork2014algorithmic', 'Thm 3.6')}; Lap(b) has variance 2b², "
                                 f"{cite('dwork2014algorithmic', 'Def. 3.3')}).")

"""Figures for the lesson "Releasing many answers": the error of k counting queries answered by composition or from
one noisy histogram, the exact variance of a range from a flat histogram, a tree and a consistent tree, MWEM's error
against its rounds, a histogram against its private estimate, what synthetic data from two one-attribute histograms
answer, and TopDown's errors per level on a small nation.

Builders are pure functions of plain numbers or arrays (computed by :mod:`dpviz.release`) or of a
:class:`dpviz.release.TopDownResult`, returning a new ``go.Figure`` in the shared template.
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from dpviz import release as R
from dpviz._validation import Cap, check_integer
from dpviz.plots._theme import (
    DASHES,
    ROLE,
    TEMPLATE,
    _array,
    _check_flag,
    _check_text,
    _gaps,
    _layout,
    _number,
    _vline,
    approx_note,
    caption,
    fmt_number,
)

__all__ = [
    "queries_error_figure",
    "width_error_figure",
    "tree_variance_figure",
    "mwem_error_figure",
    "histogram_estimate_figure",
    "joint_query_figure",
    "topdown_levels_figure",
    "topdown_counties_figure",
]

_LEGEND = dict(orientation="h", y=-0.25, x=0, yanchor="top", traceorder="normal")
#: Most queries k an error-against-k figure draws.
FIGURE_K = Cap(10_000, "the largest number of queries k of the figure")
_EPS = dict(low=1e-10, high=1e6)
_LEVELS = ("nation", "states", "counties")


def _k_grid(k_max: int) -> np.ndarray:
    return np.unique(np.round(np.logspace(0.0, math.log10(k_max), 60)).astype(int)).astype(float)


def queries_error_figure(epsilon: float, width: int, bins: int, *, k_max: int = 1000, k_mark: int | None = None,
                         show_crossing: bool = True, template: str = TEMPLATE) -> go.Figure:
    """Standard deviation of one answer against the number of queries k (log–log), exact: each query answered on its
    own with ε/k (√2·k/ε, :func:`dpviz.release.composition_variance`) against a range of ``width`` cells summed from
    one noisy histogram of ``bins`` cells (√(2·width)/ε whatever k, :func:`dpviz.release.histogram_range_variance`).
    They cross at k = √width (a dotted line, unless ``show_crossing`` is False: an exercise asks for it first);
    ``k_mark`` marks a k."""
    eps = _number(epsilon, "epsilon", **_EPS)
    bins = check_integer(bins, "bins", minimum=1, maximum=int(R.BINS.high))
    width = check_integer(width, "width", minimum=1, maximum=bins)
    k_max = check_integer(k_max, "k_max", minimum=2, maximum=int(FIGURE_K.limit))
    if k_mark is not None:
        k_mark = check_integer(k_mark, "k_mark", minimum=1, maximum=k_max)
    k = _k_grid(k_max)
    comp = np.sqrt([R.composition_variance(int(x), eps) for x in k])
    flat = math.sqrt(R.histogram_range_variance(bins, width, eps))
    traces = [
        dict(type="scatter", x=k.tolist(), y=_gaps(comp), mode="lines", name="k queries by composition, ε/k each: "
             "√2·k/ε", line=dict(color=ROLE["naive"], width=3),
             hovertemplate="k = %{x}<br>SD = %{y:.4g}<extra>composition</extra>"),
        dict(type="scatter", x=[1.0, float(k_max)], y=[flat, flat], mode="lines",
             name=f"from one noisy histogram, width {width}: √(2·{width})/ε", line=dict(color=ROLE["exact"], width=3,
                                                                                     dash=DASHES[1]),
             hovertemplate="SD = %{y:.4g}<extra>histogram</extra>"),
    ]
    show_crossing = _check_flag(show_crossing, "show_crossing")
    shapes = [_vline(math.sqrt(width), color=ROLE["bound"], dash="dot")] if show_crossing else []
    if k_mark is not None:
        sd = math.sqrt(R.composition_variance(k_mark, eps))
        traces.append(dict(type="scatter", x=[float(k_mark)], y=[sd], mode="markers", name=f"your k = {k_mark}",
                           marker=dict(color=ROLE["naive"], size=11, symbol="diamond")))
    layout = _layout(f"Error of one answer, ε = {fmt_number(eps, 3)} in all", "number of queries k",
                     "standard deviation of one answer (people)", template=template, title_size=15,
                     xaxis=dict(type="log"), yaxis=dict(type="log"), legend=_LEGEND, shapes=shapes, height=460,
                     margin=dict(b=150))
    fig = go.Figure(data=traces, layout=layout)
    where = (f"Dotted line: k = √w = {fmt_number(math.sqrt(width), 3)}, where they cross." if show_crossing else
             "Where do they cross? Answer the exercise.")
    caption(fig, f"Exact. {where}<br>"
                 "Composition: Dwork & Roth 2014, Thm 3.14. Histogram: parallel composition, Dwork & Roth 2014, §3.3.",
            below=110)
    return fig


def width_error_figure(epsilon: float, k: int, bins: int, *, width_mark: int | None = None,
                       show_crossing: bool = True, template: str = TEMPLATE) -> go.Figure:
    """Standard deviation of one answer against the range width w (1..bins, log–log), exact: k queries by
    composition (√2·k/ε, flat in w) against the sum of w noisy cells (√(2w)/ε). They cross at w = k² (a dotted
    line unless ``show_crossing`` is False)."""
    eps = _number(epsilon, "epsilon", **_EPS)
    bins = check_integer(bins, "bins", minimum=2, maximum=int(R.BINS.high))
    k = check_integer(k, "k", minimum=1, maximum=int(R.QUERIES.high))
    if width_mark is not None:
        width_mark = check_integer(width_mark, "width_mark", minimum=1, maximum=bins)
    w = np.unique(np.round(np.logspace(0.0, math.log10(bins), 60)).astype(int)).astype(float)
    comp = math.sqrt(R.composition_variance(k, eps))
    flat = np.sqrt(R.histogram_range_variance(bins, w, eps))
    traces = [
        dict(type="scatter", x=[1.0, float(bins)], y=[comp, comp], mode="lines",
             name=f"{k} queries by composition: √2·k/ε", line=dict(color=ROLE["naive"], width=3),
             hovertemplate="SD = %{y:.4g}<extra>composition</extra>"),
        dict(type="scatter", x=w.tolist(), y=_gaps(flat), mode="lines", name="from one noisy histogram: √(2w)/ε",
             line=dict(color=ROLE["exact"], width=3, dash=DASHES[1]),
             hovertemplate="w = %{x}<br>SD = %{y:.4g}<extra>histogram</extra>"),
    ]
    if width_mark is not None:
        traces.append(dict(type="scatter", x=[float(width_mark)],
                           y=[math.sqrt(R.histogram_range_variance(bins, width_mark, eps))], mode="markers",
                           name=f"your width w = {width_mark}", marker=dict(color=ROLE["exact"], size=11,
                                                                            symbol="diamond")))
    show_crossing = _check_flag(show_crossing, "show_crossing")
    shapes = [_vline(float(k * k), color=ROLE["bound"], dash="dot")] if k * k <= bins and show_crossing else []
    layout = _layout(f"Error against the width of the range, k = {k}, ε = {fmt_number(eps, 3)}",
                     f"range width w (cells of {bins})", "standard deviation of one answer (people)",
                     template=template, title_size=15, xaxis=dict(type="log"), yaxis=dict(type="log"),
                     legend=_LEGEND, shapes=shapes, height=460, margin=dict(b=150))
    fig = go.Figure(data=traces, layout=layout)
    where = ("Where do they cross? Answer the exercise." if not show_crossing else
             f"Dotted line: w = k² = {k * k}, where they cross." if k * k <= bins else
             f"k² = {k * k} > {bins} cells: the histogram wins at every width.")
    caption(fig, "Exact. " + where + "<br>Dwork & Roth 2014, Thm 3.14 and §3.3.", below=110)
    return fig


def tree_variance_figure(widths, flat, tree, consistent, *, epsilon: float, depth: int, statistic: str = "mean",
                         template: str = TEMPLATE) -> go.Figure:
    """Exact variance of a range against its width w (log–log) from a flat noisy histogram (2w/ε²), a binary tree
    answered by the canonical decomposition, and the consistent tree (Hay et al. 2010, §5), each as given
    (:func:`dpviz.release.histogram_range_variance`, :func:`dpviz.release.tree_width_variance`), averaged over the
    positions of a range (``statistic="mean"``) or their worst (``"max"``). ``consistent`` may be None (hidden)."""
    w = _array(widths, "widths", low=1.0)
    n = len(w)
    f = _array(flat, "flat", length=n, like="widths", low=0.0)
    t = _array(tree, "tree", length=n, like="widths", low=0.0)
    c = None if consistent is None else _array(consistent, "consistent", length=n, like="widths", low=0.0)
    eps = _number(epsilon, "epsilon", **_EPS)
    depth = check_integer(depth, "depth", minimum=1, maximum=int(R.DEPTH.high))
    if statistic not in ("mean", "max"):
        raise ValueError(f"statistic = {statistic!r} is not allowed: must be 'mean' or 'max'.")
    what = "averaged over positions" if statistic == "mean" else "worst position"
    traces = [
        dict(type="scatter", x=w.tolist(), y=_gaps(f), mode="lines", name="flat histogram: 2w/ε²",
             line=dict(color=ROLE["bound"], width=3), hovertemplate="w = %{x}<br>Var = %{y:.4g}<extra>flat</extra>"),
        dict(type="scatter", x=w.tolist(), y=_gaps(t), mode="lines",
             name=f"tree, canonical decomposition ({what})", line=dict(color=ROLE["naive"], width=3, dash=DASHES[1]),
             hovertemplate="w = %{x}<br>Var = %{y:.4g}<extra>tree</extra>"),
        dict(type="scatter", x=[] if c is None else w.tolist(), y=[] if c is None else _gaps(c), mode="lines",
             name=f"consistent tree, least squares ({what})" + (": hidden until you reveal" if c is None else ""),
             line=dict(color=ROLE["exact"], width=3, dash=DASHES[2]),
             hovertemplate="w = %{x}<br>Var = %{y:.4g}<extra>consistent</extra>"),
    ]
    layout = _layout(f"Variance of a range: {2 ** depth} cells, binary tree of {depth + 1} levels, "
                     f"ε = {fmt_number(eps, 3)}", "range width w (cells)", "variance of the answer (people²)",
                     template=template, title_size=14, xaxis=dict(type="log"), yaxis=dict(type="log"),
                     legend=_LEGEND, height=480, margin=dict(b=165))
    fig = go.Figure(data=traces, layout=layout)
    caption(fig, f"Exact (by counting nodes, and by the least-squares covariance). ε/{depth + 1} per level.<br>"
                 "Trees: Hay et al. 2010, §5; Dwork et al. 2010. Flat: Dwork & Roth 2014, §3.3.", below=125)
    return fig


def mwem_error_figure(rounds, mwem_errors, histogram_error: float, composition_error: float, *, epsilon: float,
                      k: int, seed: int, template: str = TEMPLATE) -> go.Figure:
    """The largest error over k linear queries of MWEM's output (one run per number of rounds T, one random draw)
    against T, with the largest error of the same queries summed from one noisy histogram (one draw) and the
    typical error √2·k/ε of answering each by composition (exact standard deviation)."""
    T = _array(rounds, "rounds", low=1.0)
    e = _array(mwem_errors, "mwem_errors", length=len(T), like="rounds", low=0.0, gaps=True)  # NaN: not run yet
    h = _number(histogram_error, "histogram_error", low=0.0)
    comp = _number(composition_error, "composition_error", low=0.0)
    eps = _number(epsilon, "epsilon", **_EPS)
    k = check_integer(k, "k", minimum=1, maximum=int(R.QUERIES.high))
    seed = check_integer(seed, "seed", minimum=0, maximum=2**32 - 1)
    x = [float(T.min()), float(T.max())]
    traces = [
        dict(type="scatter", x=T.tolist(), y=_gaps(e), mode="lines+markers", name="MWEM with T rounds",
             line=dict(color=ROLE["exact"], width=3), hovertemplate="T = %{x}<br>max error = %{y:.4g}<extra></extra>"),
        dict(type="scatter", x=x, y=[h, h], mode="lines", name="the ranges summed from one noisy histogram",
             line=dict(color=ROLE["alt"], width=3, dash=DASHES[1])),
        dict(type="scatter", x=x, y=[comp, comp], mode="lines", name="each query by composition: SD √2·k/ε",
             line=dict(color=ROLE["naive"], width=2, dash=DASHES[2])),
    ]
    layout = _layout(f"Largest error over k = {k} range queries, ε = {fmt_number(eps, 3)}", "rounds T of MWEM",
                     "largest |error| over the queries (people)", template=template, title_size=15,
                     xaxis=dict(type="log"), yaxis=dict(type="log"), legend=_LEGEND, height=460, margin=dict(b=150))
    fig = go.Figure(data=traces, layout=layout)
    approx_note(fig, f"one random draw (seed {seed}) per point")
    caption(fig, "MWEM: Hardt, Ligett & McSherry 2012, Alg. 1 (ε/(2T) to select, ε/(2T) to measure each round).<br>"
                 "Composition: Dwork & Roth 2014, Thm 3.14.", below=110)
    return fig


def histogram_estimate_figure(true, estimates, *, title: str, x_title: str = "age (years)", note: str | None = None,
                              template: str = TEMPLATE) -> go.Figure:
    """The true histogram (bars) and private estimates of it (lines), ``estimates`` = {legend name: counts};
    ``note`` marks the figure as one random draw (or another approximation)."""
    h = _array(true, "true")
    _check_text(title, "title")
    _check_text(x_title, "x_title")
    _check_text(note, "note", optional=True)
    if not isinstance(estimates, dict) or not estimates or len(estimates) > 4:
        raise ValueError(f"estimates = {estimates!r} is not allowed: must be a dict of 1 to 4 {{name: counts}}.")
    x = np.arange(h.size).tolist()
    traces = [dict(type="bar", x=x, y=_gaps(h), name="true counts (private)", marker=dict(color="#BBBBBB"),
                   hovertemplate="%{x}: %{y:.4g}<extra>true</extra>")]
    colours = [ROLE["exact"], ROLE["naive"], ROLE["alt"], ROLE["alt2"]]
    for i, (name, counts) in enumerate(estimates.items()):
        _check_text(name, "estimates key")
        y = _array(counts, f"estimates[{name!r}]", length=h.size, like="true")
        traces.append(dict(type="scatter", x=x, y=_gaps(y), mode="lines", name=name,
                           line=dict(color=colours[i], width=2, dash=DASHES[i]),
                           hovertemplate="%{x}: %{y:.4g}<extra></extra>"))
    layout = _layout(title, x_title, "count (people)", template=template, title_size=15, legend=_LEGEND,
                     bargap=0.05, height=430, margin=dict(b=120))
    fig = go.Figure(data=traces, layout=layout)
    return fig if note is None else approx_note(fig, note)


def joint_query_figure(truth: float, from_marginals: float | None, expected_noisy: float | None, *, age_range: str,
                       seed: int | None = None, template: str = TEMPLATE) -> go.Figure:
    """Bars: the true answer of the joint query "retired and age in the range", what records drawn independently
    from the two exact one-attribute histograms answer (ε → ∞, exact), and their expected answer from the noisy
    histograms (exact expectation given the release; ``seed`` names that random draw on the figure). None hides a bar
    (an exercise asks for it first)."""
    if seed is not None:
        seed = check_integer(seed, "seed", minimum=0, maximum=2**32 - 1)
    vals = [_number(truth, "truth", low=0.0), _number(from_marginals, "from_marginals", low=0.0, optional=True),
            _number(expected_noisy, "expected_noisy", low=0.0, optional=True)]
    _check_text(age_range, "age_range")
    names = ["truth (private)", "from the exact marginals (ε → ∞)", "from the noisy marginals (expected)"]
    shown = [i for i, v in enumerate(vals) if v is not None]
    colours = [ROLE["truth"], ROLE["naive"], ROLE["exact"]]
    traces = [dict(type="bar", x=[names[i] for i in shown], y=[vals[i] for i in shown],
                   marker=dict(color=[colours[i] for i in shown]),
                   text=[fmt_number(vals[i], 4) for i in shown], textposition="outside", showlegend=False,
                   hovertemplate="%{x}: %{y:.4g}<extra></extra>")]
    hidden = [names[i] for i, v in enumerate(vals) if v is None]
    title = f"Retired people aged {age_range}" + (" (the other bars: answer the exercise first)" if hidden else "")
    layout = _layout(title, "", "count (people)", template=template, title_size=15,
                     height=400, margin=dict(b=110))
    layout["yaxis"].update(rangemode="tozero")
    layout["xaxis"].update(type="category", categoryorder="array", categoryarray=names)
    fig = go.Figure(data=traces, layout=layout)
    if seed is not None and expected_noisy is not None:
        approx_note(fig, f"noisy marginals: one random draw (seed {seed})")
    caption(fig, "Exact expectations n × (share in the age range) × (share retired), from independent draws of the "
                 "two histograms.<br>Post-processing: Dwork & Roth 2014, Prop. 2.1.", below=70)
    return fig


def _result(result) -> R.TopDownResult:
    if not isinstance(result, R.TopDownResult):
        raise TypeError(f"result = {result!r} is not allowed: must be a dpviz.release.TopDownResult.")
    return result


def topdown_levels_figure(result, *, seed: int, show_sigma: bool = True, template: str = TEMPLATE) -> go.Figure:
    """Grouped bars per level (nation, states, counties): the root mean squared error of the noisy counts and of
    TopDown's non-negative, consistent estimates (one random draw). ``show_sigma=False`` leaves the levels' σ out
    of the caption (an exercise asks for it first)."""
    r = _result(result)
    show_sigma = _check_flag(show_sigma, "show_sigma")
    seed = check_integer(seed, "seed", minimum=0, maximum=2**32 - 1)
    x = list(_LEVELS)
    traces = [dict(type="bar", x=x, y=_gaps(r.noisy_rmse), name="noisy counts", marker=dict(color=ROLE["naive"]),
                   hovertemplate="%{x}: RMSE %{y:.4g}<extra>noisy</extra>"),
              dict(type="bar", x=x, y=_gaps(r.topdown_rmse), name="after TopDown's post-processing",
                   marker=dict(color=ROLE["exact"]), hovertemplate="%{x}: RMSE %{y:.4g}<extra>TopDown</extra>")]
    sig = ", ".join(fmt_number(s, 3) for s in r.level_sigma)
    layout = _layout("Error per level: noisy counts and TopDown", "level of the geography",
                     "root mean squared error (people)", template=template, title_size=15, barmode="group",
                     legend=_LEGEND, height=470, margin=dict(b=175))
    layout["yaxis"].update(rangemode="tozero")
    fig = go.Figure(data=traces, layout=layout)
    approx_note(fig, f"one random draw (seed {seed})")
    sig = sig if show_sigma else "? (answer the exercise)"
    caption(fig, f"σ per level (nation, states, counties): {sig}; discrete Gaussian, ρ/3 a level.<br>"
                 "Abowd et al. 2022; Canonne, Kamath & Steinke 2020, Thm 14.", below=130)
    return fig


def topdown_counties_figure(result, *, seed: int | None = None, template: str = TEMPLATE) -> go.Figure:
    """Each county's error (estimate − truth, people) for the noisy count and TopDown's estimate, counties ordered by
    state and size (x: the true county size, log axis); ``seed`` names the random draw on the figure."""
    r = _result(result)
    if seed is not None:
        seed = check_integer(seed, "seed", minimum=0, maximum=2**32 - 1)
    truth = np.asarray(r.true_counts[2], float).ravel()
    noisy = np.asarray(r.noisy_counts[2], float).ravel()
    est = np.asarray(r.estimates[2], float).ravel()
    x = np.maximum(truth, 0.5).tolist()
    traces = [
        dict(type="scatter", x=x, y=_gaps(noisy - truth), mode="markers", name="noisy count − truth",
             marker=dict(color=ROLE["naive"], size=9, symbol="circle-open"),
             hovertemplate="size %{x}<br>error %{y:.3g}<extra>noisy</extra>"),
        dict(type="scatter", x=x, y=_gaps(est - truth), mode="markers", name="TopDown − truth",
             marker=dict(color=ROLE["exact"], size=8, symbol="diamond"),
             hovertemplate="size %{x}<br>error %{y:.3g}<extra>TopDown</extra>"),
    ]
    negative = int(np.sum(noisy < 0))
    layout = _layout(f"County errors ({negative} noisy count{'s' if negative != 1 else ''} below 0)",
                     "true county population (people)", "error (people)", template=template, title_size=15,
                     xaxis=dict(type="log"), legend=_LEGEND, height=470, margin=dict(b=175))
    fig = go.Figure(data=traces, layout=layout)
    if seed is not None:
        approx_note(fig, f"one random draw (seed {seed})")
    caption(fig, "TopDown's counties are ≥ 0, integers, and add up to their state's estimate.<br>"
                 "Abowd et al. 2022.", below=130)
    return fig

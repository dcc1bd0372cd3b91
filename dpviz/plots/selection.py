"""Figures for lesson 04 "Choosing privately": report-noisy-max's selection probabilities for three noises, its
utility against ε and the number of candidates k with the Dwork & Roth tail bound, a sparse-vector run on a stream of
queries with the budget it spends, and the exact privacy check of a correct and a broken sparse vector.

Builders are pure functions of plain numbers (or a :class:`dpviz.selection.SparseVectorResult`) returning a new
``go.Figure`` in the shared template; the numbers come from :mod:`dpviz.selection`.
"""

from __future__ import annotations

import math
import sys

import numpy as np
import plotly.graph_objects as go

from dpviz import selection as sel
from dpviz._validation import Cap, check_choice, check_integer, check_positive, check_probability, check_real_array
from dpviz.plots._theme import ROLE, TEMPLATE, _gaps, _hline, _layout, _vline, caption, fmt_number

__all__ = [
    "NOISE_LABELS",
    "selection_probabilities_figure",
    "utility_against_epsilon_figure",
    "utility_against_k_figure",
    "sparse_vector_stream_figure",
    "sparse_vector_budget_figure",
    "sparse_vector_check_figure",
    "pattern_label",
]

#: Legend names of the noises of report-noisy-max.
NOISE_LABELS = {
    "gumbel": "Gumbel noise = exponential mechanism",
    "laplace": "Laplace noise",
    "exponential": "exponential noise = permute-and-flip",
}
_NOISE_COLOURS = {"gumbel": ROLE["exact"], "laplace": ROLE["alt"], "exponential": ROLE["alt2"]}
_LEGEND = dict(orientation="h", y=-0.22, x=0, yanchor="top", traceorder="normal")
#: Most queries a sparse-vector figure draws (one marker per query; a phone shows a few dozen legibly).
FIGURE_QUERIES = Cap(1000, "the queries one sparse-vector figure draws")
_SOURCES = ("Gumbel: McSherry & Talwar 2007; Dwork & Roth 2014, Def. 3.4. Laplace: Dwork & Roth 2014, Claim 3.9. "
            "Exponential: McKenna & Sheldon 2020; Ding et al. 2021.")


def _scale_text(monotonic: bool) -> str:
    return "Δ/ε (monotonic scores)" if monotonic else "2Δ/ε"


def selection_probabilities_figure(scores, epsilon: float, *, sensitivity: float = 1.0, monotonic: bool = False,
                                   show_gumbel: bool = True, probabilities: dict | None = None,
                                   template: str = TEMPLATE) -> go.Figure:
    """Grouped bars: P[candidate i is reported] for each noise at scale 2Δ/ε (Δ/ε monotonic), exact
    (:func:`dpviz.selection.selection_probabilities`; pass them as ``probabilities`` = {noise: array} if already
    computed). ``show_gumbel=False`` leaves the exponential mechanism's bars out (a predict-then-reveal hides them)."""
    u = check_real_array(scores, "scores", ndim=1).astype(float)
    if u.size > 60:
        raise ValueError(f"scores has {u.size} candidates, which is not allowed in this figure: must have at most 60.")
    if probabilities is not None:
        probabilities = _check_probabilities(probabilities, u.size)
    labels = [f"#{i + 1} (u = {fmt_number(float(x), 3)})" for i, x in enumerate(u)]
    traces = []
    for noise in sel.NOISES:
        hidden = noise == "gumbel" and not show_gumbel
        if hidden:
            p = []
        elif probabilities is not None and noise in probabilities:
            p = probabilities[noise]
        else:
            p = sel.selection_probabilities(u, epsilon, noise=noise, sensitivity=sensitivity, monotonic=monotonic)
        name = NOISE_LABELS[noise] + (": hidden until you reveal" if hidden else "")
        traces.append(dict(type="bar", x=[] if hidden else labels, y=_gaps(p), name=name,
                           marker=dict(color=_NOISE_COLOURS[noise]),
                           hovertemplate="%{x}<br>P = %{y:.4g}<extra>" + NOISE_LABELS[noise] + "</extra>"))
    b = sel.noise_scale(epsilon, sensitivity, monotonic)
    layout = _layout(f"Which candidate does report-noisy-max pick? ε = {fmt_number(epsilon, 3)}, noise scale "
                     f"{_scale_text(monotonic)} = {fmt_number(b, 3)}", "candidate (its score u)",
                     "P[candidate is reported]", template=template, title_size=15, barmode="group",
                     legend=_LEGEND, margin=dict(b=150), height=470)
    layout["yaxis"].update(rangemode="tozero")
    layout["xaxis"].update(type="category", categoryorder="array", categoryarray=labels)
    fig = go.Figure(data=traces, layout=layout)
    caption(fig, "Exact: Gumbel softmax(u/b); Laplace ∫ f<sub>i</sub> Π<sub>j≠i</sub> F<sub>j</sub> (quadrature, "
                 "error < 10<sup>−10</sup>); exponential p<sub>i</sub>∫₀¹Π<sub>j≠i</sub>(1 − p<sub>j</sub>s)ds.<br>"
            + _SOURCES, below=95)
    return fig


def _check_probabilities(probabilities, k: int) -> dict:
    """{noise: k probabilities} as passed by a panel that has computed them already."""
    if not isinstance(probabilities, dict) or any(n not in sel.NOISES for n in probabilities):
        raise ValueError(f"probabilities = {probabilities!r} is not allowed: must be a dict {{noise: array}} with "
                         f"noises among {sel.NOISES}.")
    out = {}
    for noise, p in probabilities.items():
        arr = check_real_array(p, f"probabilities[{noise!r}]", ndim=1)
        if arr.size != k or np.any(arr < 0) or np.any(arr > 1):
            raise ValueError(f"probabilities[{noise!r}] is not allowed: must hold {k} probabilities in [0, 1].")
        out[noise] = arr
    return out


def _instance(k: int, d: float) -> np.ndarray:
    return np.r_[0.0, np.full(k - 1, -d)]


def _uniform_gap(k, d: float):
    """d(k − 1)/k: the expected gap of a uniform choice among one best and k − 1 candidates d below it, the ε → 0
    limit of every noise (each candidate then wins with probability 1/k)."""
    return d * ((np.asarray(k, dtype=float) - 1.0) / np.asarray(k, dtype=float))


def _utility_traces(x, gaps_by_noise, bound, uniform, x_name) -> list:
    traces = [dict(type="scatter", x=x, y=_gaps(gaps_by_noise[noise]), mode="lines", name=f"E[gap], "
                   f"{NOISE_LABELS[noise]}", line=dict(color=_NOISE_COLOURS[noise], width=3),
                   hovertemplate=x_name + " = %{x:.3g}<br>E[gap] = %{y:.4g}<extra></extra>")
              for noise in sel.NOISES]
    traces.append(dict(type="scatter", x=x, y=_gaps(bound), mode="lines", name="tail bound (2Δ/ε)·ln(k/β<sub>fail"
                       "</sub>), exceeded w.p. ≤ β<sub>fail</sub>",
                       line=dict(color=ROLE["bound"], width=2, dash="dash")))
    traces.append(dict(type="scatter", x=list(x), y=_gaps(uniform), mode="lines",
                       name="uniform choice, the ε → 0 limit: d(k − 1)/k", line=dict(color="#999999", width=1,
                                                                                    dash="dot")))
    return traces


def _utility_caption(fig: go.Figure) -> None:
    caption(fig, "Candidates: one best, k − 1 tied d below it. Exact E[gap] = Σ P[i]·(max u − u<sub>i</sub>); "
                 "dotted: a uniform choice, d(k − 1)/k.<br>Bound: Dwork & Roth 2014, Cor. 3.12 "
                 "(P[gap ≥ (2Δ/ε)(ln k + t)] ≤ e<sup>−t</sup>, β<sub>fail</sub> = e<sup>−t</sup>, for the "
                 "exponential mechanism).<br>" + _SOURCES, below=150)


def utility_against_epsilon_figure(k: int, d: float, beta: float, *, sensitivity: float = 1.0,
                                   epsilon_mark: float | None = None, template: str = TEMPLATE) -> go.Figure:
    """E[gap] against ε (log axes) for the three noises on k candidates (one best, k − 1 tied d below), with the
    tail bound (2Δ/ε)·ln(k/β) (Dwork & Roth 2014, Cor. 3.12)."""
    kk = check_integer(k, "k", minimum=2, maximum=sel.CANDIDATES.limit)
    dd = check_positive(d, "d")
    bt = check_probability(beta, "beta", open_low=True, open_high=True)
    mark = None if epsilon_mark is None else check_positive(epsilon_mark, "epsilon_mark")
    eps = np.geomspace(0.05, 20.0, 28)
    u = _instance(kk, dd)
    gaps = {n: [sel.expected_gap(u, e, noise=n, sensitivity=sensitivity) for e in eps] for n in sel.NOISES}
    bound = [sel.gap_tail_bound(kk, e, bt, sensitivity=sensitivity) for e in eps]
    traces = _utility_traces(eps, gaps, bound, np.full(eps.size, float(_uniform_gap(kk, dd))), "ε")
    layout = _layout(f"Utility against ε: k = {kk} candidates, runners-up d = {fmt_number(dd, 3)} below, "
                     f"β<sub>fail</sub> = {fmt_number(bt, 2)}", "ε (log scale)",
                     "score gap max u − u<sub>reported</sub> (log scale)", template=template, title_size=14,
                     legend=_LEGEND, margin=dict(b=230), height=580)
    layout["xaxis"].update(type="log")
    layout["yaxis"].update(type="log", range=[math.log10(dd) - 4, math.log10(max(bound[0], dd)) + 0.2])
    if mark is not None:
        layout["shapes"] = [_vline(mark, color=ROLE["bound"], dash="dot")]
    fig = go.Figure(data=traces, layout=layout)
    _utility_caption(fig)
    return fig


def utility_against_k_figure(epsilon: float, d: float, beta: float, *, sensitivity: float = 1.0,
                             k_mark: int | None = None, template: str = TEMPLATE) -> go.Figure:
    """E[gap] against the number of candidates k (log x axis) at fixed ε, three noises, with the tail bound."""
    eps = check_positive(epsilon, "epsilon")
    dd = check_positive(d, "d")
    bt = check_probability(beta, "beta", open_low=True, open_high=True)
    mark = None if k_mark is None else check_integer(k_mark, "k_mark", minimum=2, maximum=sel.CANDIDATES.limit)
    ks = np.unique(np.round(np.geomspace(2, 1000, 22)).astype(int))
    gaps = {n: [sel.expected_gap(_instance(int(k), dd), eps, noise=n, sensitivity=sensitivity) for k in ks]
            for n in sel.NOISES}
    bound = [sel.gap_tail_bound(int(k), eps, bt, sensitivity=sensitivity) for k in ks]
    traces = _utility_traces(ks, gaps, bound, _uniform_gap(ks, dd), "k")
    layout = _layout(f"Utility against the number of candidates k: ε = {fmt_number(eps, 3)}, d = "
                     f"{fmt_number(dd, 3)}, β<sub>fail</sub> = {fmt_number(bt, 2)}",
                     "number of candidates k (log scale)",
                     "score gap max u − u<sub>reported</sub>", template=template, title_size=14, legend=_LEGEND,
                     margin=dict(b=230), height=580)
    layout["xaxis"].update(type="log")
    layout["yaxis"].update(rangemode="tozero", range=[0, 1.15 * max(dd, min(max(bound), 3 * dd))])
    if mark is not None:
        layout["shapes"] = [_vline(float(mark), color=ROLE["bound"], dash="dot")]
    fig = go.Figure(data=traces, layout=layout)
    _utility_caption(fig)
    return fig


# ============================================================================================ sparse vector


def _check_result(result) -> sel.SparseVectorResult:
    if not isinstance(result, sel.SparseVectorResult):
        raise ValueError(f"result = {result!r} is not allowed: must be a SparseVectorResult (from above_threshold).")
    return result


def sparse_vector_stream_figure(queries, threshold: float, result: sel.SparseVectorResult, *,
                                template: str = TEMPLATE) -> go.Figure:
    """A sparse-vector run: true query answers q<sub>i</sub>, their noisy versions q<sub>i</sub> + Z<sub>i</sub>
    (⊤ / ⊥), the threshold T and the noisy threshold T + Z<sub>T</sub>, and where the algorithm halted. The noisy
    values are internal state, shown for teaching. At most :data:`FIGURE_QUERIES` queries."""
    q = check_real_array(queries, "queries", ndim=1).astype(float)
    FIGURE_QUERIES.check(q.size, "len(queries)")
    t = sel._check_threshold(threshold)
    result = _check_result(result)
    n_done = len(result.answers)
    if n_done > q.size:
        raise ValueError(f"result answers {n_done} queries, which is not allowed with {q.size} queries: must answer "
                         "at most as many as were asked.")
    idx = np.arange(1, q.size + 1)
    noisy = np.asarray(result.noisy_queries, dtype=float)
    up = np.asarray(result.answers, dtype=bool)
    done = idx[:n_done]
    traces = [
        dict(type="scatter", x=idx, y=q, mode="markers", name="true answer q<sub>i</sub>",
             marker=dict(color="#999999", size=7, symbol="circle-open")),
        dict(type="scatter", x=done[~up], y=noisy[~up], mode="markers", name="noisy q<sub>i</sub> + Z<sub>i</sub>: "
             "below → ⊥ (free)", marker=dict(color=ROLE["x"], size=8)),
        dict(type="scatter", x=done[up], y=noisy[up], mode="markers", name="noisy q<sub>i</sub> + Z<sub>i</sub>: "
             "above → ⊤ (paid)", marker=dict(color=ROLE["x_prime"], size=13, symbol="star")),
        dict(type="scatter", x=[0.5, q.size + 0.5], y=[result.noisy_threshold] * 2, mode="lines",
             name="noisy threshold T + Z<sub>T</sub> (drawn once)", line=dict(color=ROLE["x_prime"], width=2)),
        dict(type="scatter", x=[0.5, q.size + 0.5], y=[t] * 2, mode="lines", name="threshold T",
             line=dict(color=ROLE["bound"], width=1, dash="dash")),
    ]
    shapes = []
    if result.halted and n_done < q.size:
        shapes.append(dict(type="rect", xref="x", yref="paper", x0=n_done + 0.5, x1=q.size + 0.5, y0=0, y1=1,
                           fillcolor="rgba(120,120,120,0.15)", line=dict(width=0), layer="below"))
    title = (f"Sparse vector on {q.size} queries: {len(result.positives)} of at most {result.max_positives} "
             f"positives" + (f", halted after query {n_done}" if result.halted else ", stream finished"))
    layout = _layout(title, "query i (in the order asked)", "query answer", template=template, title_size=14,
                     legend=_LEGEND, margin=dict(b=175), height=500, shapes=shapes)
    fig = go.Figure(data=traces, layout=layout)
    caption(fig, "⊤ if q<sub>i</sub> + Z<sub>i</sub> ≥ T + Z<sub>T</sub>; Z<sub>T</sub> ~ Lap(2Δ/ε) once, "
                 "Z<sub>i</sub> ~ Lap(4cΔ/ε) per query; halt after c ⊤ (grey: never answered).<br>Lyu, Su & Li "
                 "2017, Alg. 1; Dwork & Roth 2014, Alg. 1 (c = 1). The noisy values are hidden state, never "
                 "released.", below=110)
    return fig


def sparse_vector_budget_figure(result: sel.SparseVectorResult, n_queries: int, *,
                                template: str = TEMPLATE) -> go.Figure:
    """ε accounted after each query, ex post: ε/2 for the threshold up front, then ε/(2c) per ⊤, nothing per ⊥
    (Lyu, Su & Li 2017, Thm 2). The run's guarantee, fixed before it, is ε whatever the answers; at most
    :data:`FIGURE_QUERIES` queries."""
    result = _check_result(result)
    n = check_integer(n_queries, "n_queries", minimum=max(1, len(result.answers)), maximum=FIGURE_QUERIES.limit)
    eps, c = result.epsilon, result.max_positives
    spent = np.full(n + 1, np.nan)
    spent[0] = eps / 2
    count = 0
    for i, a in enumerate(result.answers, start=1):
        count += int(a)
        spent[i] = eps / 2 + count * (eps / 2) / c
    x = np.arange(0, n + 1)
    with np.errstate(over="ignore"):  # the "own ε per query" line may leave the float range at ε near 1e308
        each = np.minimum(x, len(result.answers)) * eps
        top = 2.2 * eps
    traces = [dict(type="scatter", x=x, y=_gaps(spent), mode="lines+markers", line=dict(shape="hv", width=3,
                   color=ROLE["exact"]), marker=dict(size=5), name="ε accounted so far (ex post)"),
              dict(type="scatter", x=x, y=_gaps(each), mode="lines",
                   line=dict(color=ROLE["approx"], width=2, dash="dot"),
                   name="if each query were answered with its own ε (composition)")]
    layout = _layout(f"Privacy budget: ε = {fmt_number(eps, 3)} in total, c = {c}", "queries asked",
                     "ε", template=template, title_size=14, margin=dict(b=125), height=415,
                     shapes=[_hline(eps, color=ROLE["bound"], dash="dash")],
                     # inside, top right: above the dashed total (y ≤ ε) and right of the steep dotted line
                     legend=dict(x=0.99, xanchor="right", y=0.98, yanchor="top", bgcolor="rgba(255,255,255,0.85)"))
    layout["yaxis"].update(range=[0, top if math.isfinite(top) else sys.float_info.max])
    fig = go.Figure(data=traces, layout=layout)
    caption(fig, "Ex post: ε/2 for the noisy threshold, ε/(2c) per ⊤, ⊥ free (Lyu, Su & Li 2017, Thm 2). "
                 "Dashed: the run's guarantee ε,<br>fixed in advance. Reusing the unspent rest needs more: "
                 "composing output by output (pure DP) or a privacy filter.", below=110)
    return fig


def pattern_label(pattern) -> str:
    """An output pattern as ⊤/⊥ symbols, e.g. ``"⊥⊤"`` (a tuple or list of True/False)."""
    return "".join("⊤" if a else "⊥" for a in sel._check_flags(pattern, "pattern")) or "(none)"


def _check_losses(losses) -> dict:
    if not isinstance(losses, dict) or not losses:
        raise ValueError(f"losses = {losses!r} is not allowed: must be a non-empty dict {{pattern: privacy loss}} "
                         "(from sparse_vector_privacy_loss).")
    out = {}
    for pattern, value in losses.items():
        key = sel._check_flags(pattern, "a pattern of losses")
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)) \
                or math.isnan(float(value)):
            raise ValueError(f"losses[{pattern!r}] = {value!r} is not allowed: must be a number (±inf allowed).")
        out[key] = float(value)
    return out


def sparse_vector_check_figure(losses: dict, epsilon: float, variant: str, *, template: str = TEMPLATE) -> go.Figure:
    """Bars: the exact privacy loss ln(P[o | x]/P[o | x′]) of every output pattern o (±∞ drawn at the axis edge
    and labelled ∞), with ±ε marked: ε-DP requires every bar inside the band."""
    losses = _check_losses(losses)
    eps = check_positive(epsilon, "epsilon")
    check_choice(variant, "variant", tuple(sel.SVT_VARIANTS))
    labels = [pattern_label(o) for o in losses]
    vals = np.array(list(losses.values()), dtype=float)
    finite = vals[np.isfinite(vals)]
    with np.errstate(over="ignore"):
        top = max(2.0 * eps, 1.2 * float(np.max(np.abs(finite))) if finite.size else 0.0)
    top = min(top, sys.float_info.max / 1.15)
    shown = np.clip(vals, -top, top)
    bad = np.abs(vals) > eps * (1 + 1e-9)
    colours = [ROLE["approx"] if b else ROLE["exact"] for b in bad]
    text = [("∞" if v > 0 else "−∞") if not math.isfinite(v) else fmt_number(float(v), 3) for v in vals]
    worst = float(np.max(np.abs(vals)))
    verdict = "passes" if worst <= eps * (1 + 1e-9) else "FAILS"
    traces = [dict(type="bar", x=labels, y=shown.tolist(), text=text, textposition="outside", marker=dict(
        color=colours), name="privacy loss of the pattern (red: outside ±ε)", cliponaxis=False,
        hovertemplate="pattern %{x}<br>ln P[o|x]/P[o|x′] = %{text}<extra></extra>")]
    layout = _layout(f"Exact check: {sel.SVT_VARIANTS[variant].split(':')[0].split(' (')[0]} — {verdict} "
                     f"(max |loss| = {fmt_number(worst, 3)}, ε = {fmt_number(eps, 3)})",
                     "output pattern o (⊤ above, ⊥ below; stops at the cutoff)", "ln(P[o | x] / P[o | x′])",
                     template=template, title_size=14, legend=_LEGEND, margin=dict(b=150), height=460,
                     shapes=[_hline(eps, color=ROLE["bound"]), _hline(-eps, color=ROLE["bound"])])
    layout["yaxis"].update(range=[-1.15 * top, 1.15 * top])
    layout["xaxis"].update(type="category")
    fig = go.Figure(data=traces, layout=layout)
    caption(fig, "P[o] = ∫ f(z) Π<sub>i</sub> P[a<sub>i</sub> | z] dz, f the density of Z<sub>T</sub>, by "
                 "quadrature (error < 10<sup>−10</sup>). Dashed: ±ε.<br>" + sel.SVT_VARIANTS[variant], below=95)
    return fig

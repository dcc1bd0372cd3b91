"""Figures for lesson 14 "Few examples per user" (:mod:`dpviz.panels.few_examples`).

Every builder is a pure function returning a NEW :class:`plotly.graph_objects.Figure` (no widgets, no ``show()``).
The numbers come from :mod:`dpviz.userlevel` (the paper's bounds, DelStab, the exact swap-loss and pairwise-sum
laws, the clipping trade-off); this module only draws. Pairs of views are joined by
:func:`dpviz.plots.items_to_users.side_by_side`.

Paper: Ghazi, Kamath, Kumar, Manurangsi, Meka, Zhang, "User-Level Differential Privacy With Few Examples Per User",
NeurIPS 2023 (cited below as "Ghazi et al. 2023").
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import plotly.graph_objects as go

from dpviz._validation import Interval, check_delta, check_in_range, check_integer, check_positive
from dpviz.plots._theme import (
    PALETTE,
    ROLE,
    TEMPLATE,
    _array,
    _bar,
    _check_flag,
    _gaps,
    _mapping,
    _scatter,
    _vline,
    approx_note,
    caption,
)
from dpviz.plots.items_to_users import _label, _pow10, side_by_side
from dpviz.userlevel import (
    BoundRow,
    ClippingTradeoff,
    breakpoints,
    conjectured_item_epsilon,
    corollary3_users,
    crossover_group_privacy,
    delstab_parameters,
    discard_curves,
    group_privacy_users,
    hockey_stick,
    int_log_grid,
    item_level_users,
    pmf_quantile,
    regime_breakpoints,
    swap_difference_pmf,
    tdlap_pmf,
    theorem10_item_epsilon,
    theorem10_users,
    theorem11_users,
)

__all__ = [
    "side_by_side",
    "users_needed_figure",
    "generic_users_figure",
    "item_budget_figure",
    "tdlap_figure",
    "ptr_discard_figure",
    "delstab_output_figure",
    "delstab_test_figure",
    "swap_loss_figure",
    "swap_loss_scaling_figure",
    "clipping_histogram_figure",
    "clipping_tradeoff_figure",
    "pac_error_figure",
]

# ----------------------------------------------------------------------------------- users needed against m

#: The item-level ε₀ of the swap-loss figures, in (0, 1000] (the lesson's slider stops at 0.3): ε₀·m stays far
#: inside the double range for every m ≤ 10⁶.
EPSILON0 = Interval(0.0, 1000.0, open_low=True)

HIDDEN = ("hidden constants and polylog factors set to one knob C; absolute user counts are illustrative, "
          "slopes and crossovers are the content")

_TERM_STYLE = {
    "floor": ("floor term", PALETTE[7], "dot"),
    "privacy": ("privacy term", PALETTE[0], "dash"),
    "statistical": ("statistical term", PALETTE[2], "dashdot"),
}


def users_needed_figure(
    row: Any,
    epsilon: float,
    alpha: float,
    dim: float,
    *,
    constant: float = 1.0,
    m_max: float = 1e6,
    m_mark: float | None = None,
    template: str = TEMPLATE,
) -> go.Figure:
    """Users needed n against examples per user m (log–log) for one row of Table 1 or 2 of Ghazi et al. 2023.

    Draws each term of the row's user-level bound separately (floor, privacy, statistical), their sum, the value
    clamped to Observation 28 (⌈n₁/m⌉ ≤ n_m ≤ n₁), the item-level n₁ (one example per user), the shaded region
    below ⌈n₁/m⌉ that no algorithm can reach, the naive group-privacy line n₁(ε/m)/m (Lemma 6: run the item-level
    algorithm at ε/m on all nm items), the row's previous user-level result where the paper lists one, and the
    regime breakpoints m₁ = ε²/α², m₂ = 1/α² (three-term rows) or m = 1/α (Theorem 4).

    Parameters
    ----------
    row : dpviz.userlevel.BoundRow
        A row of ``TABLE1_ROWS`` or ``TABLE2_ROWS``.
    epsilon, alpha : float
        Privacy ε > 0 and accuracy α in (0, 1).
    dim : float
        The row's dimension parameter (d, k, kd, d², d_L) > 0.
    constant : float
        The single knob C replacing every hidden constant and polylog.
    m_max : float
        Right end of the m axis (≥ 10).
    m_mark : float, optional
        Mark this m with a point on the clamped curve.

    References
    ----------
    Ghazi et al. 2023: Tables 1–2 (Appendix A), Theorems 4, 10, 40, 43–46, Observation 28, Lemma 6; the regime
    breakpoints are derived here by equating adjacent terms of a row.
    """
    if not isinstance(row, BoundRow):
        raise TypeError(f"row = {row!r} is not allowed: must be a BoundRow (dpviz.userlevel.TABLE1_ROWS or "
                        "TABLE2_ROWS).")
    epsilon = check_positive(epsilon, "epsilon")
    alpha = check_in_range(alpha, "alpha", 0.0, 1.0, low_inclusive=False, high_inclusive=False)
    dim = check_positive(dim, "dim")
    constant = check_positive(constant, "constant")
    m_max = check_in_range(m_max, "m_max", 10.0, 1e9)
    m = np.geomspace(1.0, m_max, 240)
    r = row.user_level_terms(m, epsilon, alpha, dim, constant=constant)
    n1 = row.item_level(epsilon, alpha, dim, constant=constant)
    naive = constant * sum(f(m, epsilon / m, alpha, dim) for _, f in row.item_terms) / m
    prior = np.asarray(row.prior_user_level(m, epsilon, alpha, dim, constant=constant), dtype=float)
    data = [
        _scatter(x=np.concatenate([m, m[::-1]]), y=np.concatenate([r["lower"], np.full(m.size, 1e-3)]),
                 fill="toself", fillcolor="rgba(120,120,120,0.12)", line=dict(width=0), hoverinfo="skip",
                 name="impossible: n < ⌈n₁/m⌉ (Obs. 28)"),
        _scatter(x=[1, m_max], y=[n1, n1], mode="lines", name="item-level n₁ (one example per user)",
                 line=dict(color=ROLE["bound"], width=1.5)),
    ]
    for key in ("floor", "privacy", "statistical"):
        if key in r and np.any(np.asarray(r[key]) > 0):
            label, col, dash = _TERM_STYLE[key]
            data.append(_scatter(x=m, y=np.where(np.asarray(r[key]) > 0, r[key], np.nan), mode="lines",
                                 name=label, line=dict(color=col, dash=dash, width=1.8)))
    data.append(_scatter(x=m, y=r["total"], mode="lines", name="sum of terms (raw)",
                         line=dict(color=ROLE["private"], width=1.5), opacity=0.6))
    data.append(_scatter(x=m, y=r["users"], mode="lines", name=f"user-level, this paper ({row.source})",
                         line=dict(color=ROLE["private"], width=4)))
    data.append(_scatter(x=m, y=naive, mode="lines", name="naive group privacy n₁(ε/m)/m",
                         line=dict(color=ROLE["naive"], width=2.5, dash="longdash")))
    if np.any(np.isfinite(prior)):
        data.append(_scatter(x=m, y=np.where(np.isfinite(prior), prior, np.nan), mode="lines",
                             name="previous user-level result", line=dict(color=PALETTE[3], width=2, dash="dot")))
    shapes, notes = [], []
    marks = [(xv, f"{a} → {b} term") for xv, a, b in regime_breakpoints(row, epsilon, alpha, dim, m_max=m_max)]
    if row.table == 1 and len(marks) == 2 and row.key != "pac":
        m1, m2 = breakpoints(epsilon, alpha)  # coincide with the three-term law's closed forms
        marks = [(m1, "m₁ = ε²/α<sub>acc</sub>²"), (m2, "m₂ = 1/α<sub>acc</sub>²")]
    for xv, txt in marks:
        if 1.0 <= xv <= m_max:
            shapes.append(_vline(xv, color="#666", dash="dot", width=1.5))
            notes.append(_label(xv, " " + txt, log_x=True, y=0.99))
    if m_mark is not None:
        mk = check_in_range(m_mark, "m_mark", 1.0, m_max)
        val = float(row.user_level(mk, epsilon, alpha, dim, constant=constant))
        data.append(_scatter(x=[mk], y=[val], mode="markers", name=f"m = {mk:g}: n ≈ {val:,.0f}",
                             marker=dict(size=12, color=ROLE["private"], line=dict(color="white", width=1))))
    ymax = max(n1, float(np.nanmax(r["total"]))) * 3
    ymin = max(min(float(np.nanmin(r["users"])), float(np.nanmin(naive))) / 10, 1e-3)
    kind = "pure ε-DP" if row.table == 1 else "approximate (ε, δ)-DP"
    layout = dict(
        template=template, title=dict(text=f"Table {row.table}: {row.problem} ({kind}) — {row.ours_formula}",
                                      font=dict(size=14)),
        xaxis=dict(type="log", title=dict(text="m (examples per user)"), exponentformat="power"),
        yaxis=dict(type="log", title=dict(text="n (users needed)"), range=[math.log10(ymin), math.log10(ymax)],
                   exponentformat="power"),
        shapes=shapes, annotations=notes)
    return _legend_below(data, layout, f"Source: Ghazi et al. 2023, Table {row.table} (Appendix A), {row.source}; "
                                       f"item-level {row.item_formula};<br>clamp ⌈n₁/m⌉ ≤ n<sub>m</sub> ≤ n₁: "
                                       "Observation 28; naive line: group privacy (Lemma 6);<br>breakpoints m₁ = "
                                       "ε²/α<sub>acc</sub>², m₂ = 1/α<sub>acc</sub>²: where two terms are equal "
                                       "(dpviz's reading of the three-term law; the paper does not print them).",
                         approx=HIDDEN)


def _legend_below(data: list[dict], layout: dict, source: str, *, approx: str, plot_h: int = 380,
                  axis_gap: int = 75) -> go.Figure:
    """The figure of ``data`` (trace dicts) and ``layout`` (a layout dict) with the legend as a vertical list under
    the plot and the source caption under the legend, in pixels, so the plot keeps the full width on a phone (a
    legend on the right left a 360 px screen almost no plot); ``approx`` is its approximation note."""
    entries = sum(1 for t in data if t.get("showlegend") is not False and t.get("name"))
    layout = dict(layout, legend=dict(x=0, y=-axis_gap / plot_h, xanchor="left", yanchor="top", orientation="v",
                                      font=dict(size=11), bgcolor="rgba(0,0,0,0)", borderwidth=0),
                  margin=dict(layout.get("margin") or {}, r=30))
    fig = go.Figure(data=data, layout=layout)
    approx_note(fig, approx)
    caption(fig, source, below=axis_gap + entries * 19 + 12)
    margin = fig.layout.margin
    fig.layout.height = plot_h + (margin.t if margin.t is not None else 60) + margin.b
    return fig


def _sci(x: float) -> str:
    """A small non-negative number in powers of ten (0 stays 0): 3.2·10⁻⁵, not 3.20e-05."""
    return "0" if x <= 0 else _pow10(x) if x < 0.01 else f"{x:.3g}"



def generic_users_figure(
    epsilon: float,
    delta: float,
    *,
    n_priv: float = 100.0,
    n_stat: float = 1000.0,
    c: float = 1.0,
    constant: float = 1.0,
    m_max: float = 1e8,
    template: str = TEMPLATE,
) -> go.Figure:
    """Users needed against m for the generic transformation (Corollary 3, Theorems 10 and 11 of Ghazi et al. 2023) and
    naive group privacy, with the item-level n₁ = ln(1/δ)^c·n_priv/ε + n_stat and the crossover m marked.

    Corollary 3's three terms are drawn separately. All curves are clamped to Observation 28 except the naive line.
    """

    epsilon = check_positive(epsilon, "epsilon")
    delta = check_delta(delta, "delta", allow_zero=False)
    m = np.geomspace(1.0, check_in_range(m_max, "m_max", 10.0, 1e12), 240)
    kw = dict(n_priv=n_priv, n_stat=n_stat, c=c, constant=constant)
    cor = corollary3_users(m, epsilon, delta, terms=True, **kw)
    t10 = theorem10_users(m, epsilon, delta, **kw)
    t11 = theorem11_users(m, epsilon, delta, **kw)
    naive = group_privacy_users(m, epsilon, delta, clamp=False, **kw)
    n1 = item_level_users(epsilon, delta, **kw)
    data = [
        _scatter(x=np.concatenate([m, m[::-1]]), y=np.concatenate([cor["lower"], np.full(m.size, 1e-3)]),
                 fill="toself", fillcolor="rgba(120,120,120,0.12)", line=dict(width=0), hoverinfo="skip",
                 name="impossible: n < ⌈n₁/m⌉ (Obs. 28)"),
        _scatter(x=[1, m[-1]], y=[n1, n1], mode="lines", name="item-level n₁", line=dict(color=ROLE["bound"])),
    ]
    for key in ("floor", "privacy", "statistical"):
        label, col, dash = _TERM_STYLE[key]
        data.append(_scatter(x=m, y=cor[key], mode="lines", name=f"Cor. 3 {label}",
                             line=dict(color=col, dash=dash, width=1.8)))
    data += [
        _scatter(x=m, y=cor["users"], mode="lines", name="Corollary 3", line=dict(color=ROLE["private"], width=4)),
        _scatter(x=m, y=t10, mode="lines", name="Theorem 10 (ε<sub>item</sub> = ε²/(L√(m ln(m/δ))))",
                 line=dict(color=PALETTE[4], width=2)),
        _scatter(x=m, y=t11, mode="lines", name="Theorem 11 (same ε)", line=dict(color=PALETTE[3], width=2,
                                                                                  dash="dot")),
        _scatter(x=m, y=naive, mode="lines", name="naive group privacy", line=dict(color=ROLE["naive"], width=2.5,
                                                                                    dash="longdash")),
    ]
    shapes, notes = [], []
    mx = crossover_group_privacy(epsilon, delta, kind="users", n_priv=n_priv, n_stat=n_stat, c=c, m_max=m[-1])
    if math.isfinite(mx) and mx > 1:
        shapes.append(_vline(mx, color=ROLE["naive"], dash="dot", width=1.5))
        notes.append(_label(mx, f" Thm 10 beats group privacy for m > {mx:,.0f}", log_x=True, y=0.99,
                            color=ROLE["naive"]))
    fig = go.Figure(data=data, layout=dict(
        template=template, title=dict(text=f"Generic item→user transformation, (ε, δ) = ({epsilon:g}, {_pow10(delta)})",
                                      font=dict(size=14)),
        xaxis=dict(type="log", title=dict(text="m (examples per user)"), exponentformat="power"),
        yaxis=dict(type="log", title=dict(text="n (users needed)"), exponentformat="power",
                   range=[math.log10(max(float(np.min(cor["users"])) / 10, 1e-3)),
                          math.log10(max(n1, float(np.max(naive)), float(np.max(cor["total"]))) * 3)]),
        legend=dict(x=1.02, y=1, xanchor="left", font=dict(size=11)), shapes=shapes, annotations=notes,
        height=470, margin=dict(r=250)))
    approx_note(fig, HIDDEN)
    caption(fig, "Source: Ghazi et al. 2023, Corollary 3 (exponent c + 3/2, denominator ε²), Theorems 10 and 11, "
                 "Observation 28, Lemma 6;<br>item-level model n₁ = ln(1/δ)<sup>c</sup>·n<sub>priv</sub>/ε + "
                 "n<sub>stat</sub> (Corollary 3's assumption).")
    return fig


def item_budget_figure(epsilon: float, delta: float, *, m_max: float = 1e8, template: str = TEMPLATE) -> go.Figure:
    """The item-level ε each approach must run at, against m: Theorem 10's ε′ = ε²/(ln(1/δ)√(m ln(m/δ))) (slope
    −1/2), group privacy's ε/m (slope −1), and the Conclusion's conjectured ε/√(m ln(1/δ)); crossover marked."""

    epsilon = check_positive(epsilon, "epsilon")
    delta = check_delta(delta, "delta", allow_zero=False)
    m = np.geomspace(1.0, check_in_range(m_max, "m_max", 10.0, 1e12), 240)
    e10 = theorem10_item_epsilon(m, epsilon, delta)
    data = [
        _scatter(x=m, y=e10, mode="lines", name="Theorem 10: ε²/(ln(1/δ)·√(m·ln(m/δ)))",
                 line=dict(color=ROLE["private"], width=3)),
        _scatter(x=m, y=epsilon / m, mode="lines", name="group privacy: ε/m", line=dict(color=ROLE["naive"],
                                                                                        width=2.5, dash="longdash")),
        _scatter(x=m, y=conjectured_item_epsilon(m, epsilon, delta), mode="lines",
                 name="conjectured: ε/√(m·ln(1/δ)) (open)", line=dict(color=PALETTE[2], dash="dot")),
    ]
    mx = crossover_group_privacy(epsilon, delta, kind="budget")
    shapes, notes = [], []
    if 1 <= mx <= m[-1]:
        shapes.append(_vline(mx, color="#666", dash="dot", width=1.5))
        notes.append(_label(mx, f" crossover m ≈ {mx:,.0f}", log_x=True, y=0.99))
    fig = go.Figure(data=data, layout=dict(
        template=template, title=dict(text="Item-level ε the inner algorithm must run at", font=dict(size=14)),
        xaxis=dict(type="log", title=dict(text="m (examples per user)"), exponentformat="power"),
        yaxis=dict(type="log", title=dict(text="item-level ε<sub>item</sub> (larger = cheaper)"),
                   exponentformat="power"),
        legend=dict(x=0.01, y=0.01, yanchor="bottom", font=dict(size=11)), shapes=shapes, annotations=notes))
    approx_note(fig, "Θ-constants ignored in the crossover")
    caption(fig, "Source: Ghazi et al. 2023, Theorem 10 (its item-level ε′, here ε<sub>item</sub>; natural logs) "
                 "and Conclusion (conjecture); Lemma 6 (ε/m).<br>Crossover: root of ε²/(L√(m ln(m/δ))) = ε/m, "
                 "L = ln(1/δ) (dpviz's computation, Θ-constants ignored).")
    return fig


# ----------------------------------------------------------------------------------- the price of PTR


def tdlap_figure(epsilon: float, delta: float, *, convention: str = "proof", template: str = TEMPLATE) -> go.Figure:
    """The TDLap(ε̄, δ̄) pmf on {0, …, 2κ} that Algorithm 1 of Ghazi et al. 2023 draws R₁ from, end masses highlighted
    (≤ δ̄).

    ε̄ = ε/3, δ̄ = δ/(e^{2ε̄} + e^{ε̄} + 2) (``convention="proof"``, dpviz's pinned value; ``"printed"`` uses e^{ε}),
    κ = 1 + ⌈ln(1/δ̄)/ε̄⌉ (Definition 8). Exact.
    """

    par = delstab_parameters(epsilon, delta, convention=convention)
    pmf = tdlap_pmf(par.epsilon_bar, par.delta_bar)
    r = np.arange(pmf.size)
    ends = np.array([0, pmf.size - 1])
    fig = go.Figure(data=[_bar(x=r[1:-1], y=pmf[1:-1], marker=dict(color=ROLE["private"]), name="P(R₁ = r)",
                               hovertemplate="r = %{x}: %{y:.3g}<extra></extra>"),
                          _bar(x=ends, y=pmf[ends], marker=dict(color=ROLE["naive"]), name="end masses (≤ δ̄)",
                               hovertemplate="r = %{x}: %{y:.3g}<extra></extra>")],
                    layout=dict(template=template,
                                title=dict(text=f"R₁ ~ TDLap(ε̄ = {par.epsilon_bar:.3g}, δ̄ = {_sci(par.delta_bar)}): "
                                                f"κ = {par.kappa}, support 0…2κ = {2 * par.kappa}",
                                           font=dict(size=14)),
                                xaxis=dict(title=dict(text="R₁ (users the test may delete before checking)")),
                                yaxis=dict(title=dict(text="probability")), bargap=0.1, showlegend=False,
                                annotations=[dict(x=0, y=float(pmf[0]), text=f"end mass {_sci(float(pmf[0]))} ≤ δ̄",
                                                  showarrow=True, ax=40, ay=-40,
                                                  font=dict(size=11, color=ROLE["naive"]))]))
    third, which = (("e<sup>ε̄</sup>", "the proof's, pinned") if convention == "proof"
                    else ("e<sup>ε</sup>", "as printed"))
    caption(fig, "Source: Ghazi et al. 2023, Definition 8 (TDLap, κ = 1 + ⌈ln(1/δ̄)/ε̄⌉) and Algorithm 1 line 1 "
                 f"(ε̄ = ε/3, δ̄ = δ/(e<sup>2ε̄</sup>+{third}+2), {which}).")
    return fig


def ptr_discard_figure(epsilon: float, delta: float, *, convention: str = "proof",
                       template: str = TEMPLATE) -> go.Figure:
    """4κ(ε, δ) — the users Algorithm 1 of Ghazi et al. 2023 always deletes (and the minimum n) — against ε for several
    δ."""

    eps_grid, curves = discard_curves(convention)
    data = []
    for i, (d, four) in enumerate(curves):
        data.append(_scatter(x=eps_grid, y=four, mode="lines", name=f"δ = {_pow10(d)}",
                             line=dict(color=PALETTE[[4, 2, 0, 3, 5][i]], width=2, shape="hv")))
    par = delstab_parameters(epsilon, delta, convention=convention)
    data.append(_scatter(x=[epsilon], y=[par.discarded], mode="markers+text", text=[f"  4κ = {par.discarded}"],
                         textposition="middle right", name=f"(ε, δ) = ({epsilon:g}, {_pow10(delta)})",
                         marker=dict(size=13, color=ROLE["bound"], symbol="diamond")))
    fig = go.Figure(data=data, layout=dict(
        template=template, title=dict(text="Users thrown away by propose–test–release: 4κ", font=dict(size=14)),
        xaxis=dict(type="log", title=dict(text="user-level ε")),
        yaxis=dict(type="log", title=dict(text="4κ (users deleted; n must be ≥ 4κ)")),
        legend=dict(x=0.98, y=0.98, xanchor="right", font=dict(size=11))))
    caption(fig, "Source: Ghazi et al. 2023, Algorithm 1 (A runs on n − 4κ users) and Definition 8; "
                 "κ ≈ 3·ln(1/δ)/ε, the "
                 "log(1/δ)/ε floor of Theorem 10.")
    return fig


# ----------------------------------------------------------------------------------- DelStab on the toy


def delstab_output_figure(outputs: list, pmf_x: np.ndarray, pmf_x2: np.ndarray, *, epsilon: float, delta: float,
                          template: str = TEMPLATE) -> go.Figure:
    """DelStab's exact output pmfs on two user-level neighbours x, x′ (⊥ = "test failed" as the last bar), with the
    two hockey-stick divergences d_ε(P‖P′), d_ε(P′‖P) against δ (Lemma 18 of Ghazi et al. 2023)."""

    if isinstance(outputs, (str, bytes)) or not isinstance(outputs, (list, tuple, np.ndarray)) \
            or np.ndim(outputs) != 1 or len(outputs) == 0:
        raise TypeError(f"outputs = {outputs!r} is not allowed: must be a non-empty list of the outputs "
                        "(DelStab.outputs).")
    pmf_x = _array(pmf_x, "pmf_x", length=len(outputs), like="outputs", low=0.0, high=1.0)
    pmf_x2 = _array(pmf_x2, "pmf_x2", length=len(outputs), like="outputs", low=0.0, high=1.0)
    epsilon = check_positive(epsilon, "epsilon", allow_zero=True)
    delta = check_in_range(delta, "delta", 0.0, 1.0)
    labels = [str(o) for o in outputs]
    h1, h2 = hockey_stick(pmf_x, pmf_x2, epsilon), hockey_stick(pmf_x2, pmf_x, epsilon)
    ok = h1 <= delta and h2 <= delta
    with np.errstate(over="ignore", divide="ignore"):  # e^ε·P′; beyond the double range it is drawn as a gap
        scaled = _gaps(np.exp(epsilon + np.log(pmf_x2)))
    fig = go.Figure(data=[
        _bar(x=labels, y=pmf_x, name="P = DelStab(x)", marker=dict(color=ROLE["x"])),
        _bar(x=labels, y=pmf_x2, name="P′ = DelStab(x′)", marker=dict(color=ROLE["x_prime"])),
        _scatter(x=labels, y=scaled, mode="lines", name="e<sup>ε</sup>·P′",
                 line=dict(color=ROLE["bound"], dash="dot", width=1.5, shape="hvh")),
    ], layout=dict(
        template=template, barmode="group", bargap=0.15,
        title=dict(text=f"Exact output distributions — d<sub>ε</sub>(P‖P′) = {_sci(h1)}, "
                        f"d<sub>ε</sub>(P′‖P) = {_sci(h2)} "
                        f"{'≤' if ok else '>'} δ = {delta:g} {'✓' if ok else '✗'}", font=dict(size=14)),
        xaxis=dict(title=dict(text="output (noisy count, or ⊥ = no stable set)"), type="category"),
        yaxis=dict(title=dict(text="probability"), range=[0, 1.15 * float(max(pmf_x.max(), pmf_x2.max()))]),
        legend=dict(x=0.98, y=0.98, xanchor="right")))
    caption(fig, "Source: Ghazi et al. 2023, Algorithm 1 (DelStab) and Lemma 18 ((ε, δ)-user-level DP for every "
                 "inner A, given an exact stability test);<br>hockey-stick d<sub>ε</sub>(P‖Q) = "
                 "Σ[P − e<sup>ε</sup>Q]₊ (Preliminaries). All pmfs exact.")
    return fig


def delstab_test_figure(tdlap: np.ndarray, stable_x: np.ndarray, stable_x2: np.ndarray, *,
                        template: str = TEMPLATE) -> go.Figure:
    """For each draw r of R₁: its TDLap probability and whether the stability test finds a stable set (X_stable ≠ ∅)
    on x and on x′. Failing r contribute to Pr[⊥]."""
    tdlap = _array(tdlap, "tdlap", low=0.0, high=1.0)
    r = np.arange(tdlap.size)
    sx, sx2 = _flags(stable_x, "stable_x", tdlap.size), _flags(stable_x2, "stable_x2", tdlap.size)
    fig = go.Figure(data=[
        _bar(x=r, y=np.where(sx, tdlap, 0), name="x: stable set found", marker=dict(color=ROLE["x"]), offsetgroup=0),
        _bar(x=r, y=np.where(sx, 0, tdlap), name="x: test fails → ⊥", marker=dict(color="#bbbbbb"), offsetgroup=0),
        _bar(x=r, y=np.where(sx2, tdlap, 0), name="x′: stable set found", marker=dict(color=ROLE["x_prime"]),
             offsetgroup=1),
        _bar(x=r, y=np.where(sx2, 0, tdlap), name="x′: test fails → ⊥", offsetgroup=1,
             marker=dict(color="#dddddd", line=dict(color=ROLE["x_prime"], width=1))),
    ], layout=dict(
        template=template, barmode="stack",
        title=dict(text=f"The stability test for every R₁: Pr[⊥ | x] = {float(tdlap[~sx].sum()):.3g}, "
                        f"Pr[⊥ | x′] = {float(tdlap[~sx2].sum()):.3g}", font=dict(size=14)),
        xaxis=dict(title=dict(text="R₁ = r (users deleted before testing (4κ − r)-LDDP)")),
        yaxis=dict(title=dict(text="P(R₁ = r)")), legend=dict(x=0.98, y=0.98, xanchor="right", font=dict(size=11))))
    caption(fig, "Source: Ghazi et al. 2023, Algorithm 1 lines 2–4 and Definition 16 (LDDP): r is stable iff "
                 "some set S of r users "
                 "leaves A (4κ − r, ε̄, δ̄)-LDDP at x₋S. Exact.")
    return fig


def _flags(values: Any, name: str, length: int) -> np.ndarray:
    """A 1-D array of booleans (True/False or 0/1), one per draw of R₁."""
    arr = _array(values, name, length=length, like="tdlap")
    if not np.all((arr == 0) | (arr == 1)):
        raise ValueError(f"{name} = {float(arr[(arr != 0) & (arr != 1)][0])!r} is not allowed: every entry must be "
                         "True or False.")
    return arr.astype(bool)


# ----------------------------------------------------------------------------------- why √m


def swap_loss_figure(m: int, p: float, epsilon0: float, *, template: str = TEMPLATE) -> go.Figure:
    """Histogram of the privacy loss ε₀·|S − S′| of swapping two random users' blocks (m bits each, Bernoulli(p))
    under an ε₀-item-level noisy count, against the worst case ε₀·m and the scale ε₀·√m (exact pmf).

    For a count with two-sided geometric noise P(o) ∝ e^{−ε₀|o−s|}, the largest privacy loss between sums s and s′
    is ε₀|s − s′|; it is ε₀·m only in the worst case, and typically ≈ ε₀·√(2mp(1−p))·√(2/π) — the reason the
    transformation of Ghazi et al. 2023 pays √m, not m (Theorems 13 and 17; the illustration is derived here).
    """
    m = check_integer(m, "m", minimum=1, maximum=10**6)
    p = check_in_range(p, "p", 0.0, 1.0, low_inclusive=False, high_inclusive=False)
    epsilon0 = EPSILON0.check(epsilon0, "epsilon0")
    pmf = swap_difference_pmf(m, float(p))
    keep = np.nonzero(pmf > 1e-12)[0]
    hi = int(keep[-1]) if keep.size else m
    x = epsilon0 * np.arange(hi + 1)
    q99 = pmf_quantile(pmf, 0.99)
    mean = float(np.dot(np.arange(m + 1), pmf))
    data = [_bar(x=x, y=pmf[: hi + 1], name="P(loss = ε<sub>item</sub>·|S − S′|)", marker=dict(color=ROLE["private"]),
                 hovertemplate="loss %{x:.3g}: %{y:.3g}<extra></extra>")]
    shapes = [_vline(epsilon0 * math.sqrt(m), color=PALETTE[2], dash="dash", width=2),
              _vline(epsilon0 * q99, color=PALETTE[3], dash="dot", width=2)]
    notes = [_label(epsilon0 * math.sqrt(m), " ε<sub>item</sub>·√m", color=PALETTE[2], y=0.95),
             _label(epsilon0 * q99, " 99% quantile", color=PALETTE[3], y=0.85)]
    x_right = epsilon0 * hi * 1.15 + epsilon0
    if epsilon0 * m <= x_right * 3:
        shapes.append(_vline(epsilon0 * m, color=ROLE["naive"], dash="solid", width=2.5))
        notes.append(_label(epsilon0 * m, " worst case ε<sub>item</sub>·m", color=ROLE["naive"], y=0.75))
        x_right = max(x_right, epsilon0 * m * 1.12)
    else:
        notes.append(dict(x=1, xref="paper", y=0.75, yref="paper", xanchor="right", showarrow=False,
                          text=f"worst case ε<sub>item</sub>·m = {epsilon0 * m:.3g} →  (off the chart)",
                          font=dict(size=11, color=ROLE["naive"])))
    fig = go.Figure(data=data, layout=dict(
        template=template, bargap=0.05,
        title=dict(text=f"Privacy loss of swapping two users (m = {m}, p = {p:g}): mean {epsilon0 * mean:.3g}, "
                        f"99% ≤ {epsilon0 * q99:.3g}, worst {epsilon0 * m:.3g}", font=dict(size=14)),
        xaxis=dict(title=dict(text="privacy loss ε<sub>item</sub>·|S − S′| (nats)"), range=[-epsilon0, x_right]),
        yaxis=dict(title=dict(text="probability")), shapes=shapes, annotations=notes, showlegend=False))
    caption(fig, "Exact: S, S′ ~ Bin(m, p) independent, loss = max over outputs of ln p(o|S)/p(o|S′) for the "
                 "ε<sub>item</sub>-DP geometric count.<br>Idea of Ghazi et al. 2023, Theorem 17 (√m, not m, for "
                 "changed users); this exact computation is dpviz's illustration, not a result of the paper.")
    return fig


def swap_loss_scaling_figure(p: float, epsilon0: float, *, m_mark: int | None = None,
                             template: str = TEMPLATE) -> go.Figure:
    """Typical (median, 99%, 99.99%) and worst-case privacy loss of swapping two users against m (log–log, exact);
    ``m_mark`` (an m in [1, 10⁴]) is marked."""
    p = check_in_range(p, "p", 0.0, 1.0, low_inclusive=False, high_inclusive=False)
    epsilon0 = EPSILON0.check(epsilon0, "epsilon0")
    if m_mark is not None:
        m_mark = check_in_range(m_mark, "m_mark", 1.0, 10_000.0)
    ms = int_log_grid(1, 10_000, 20)
    qs = {0.5: [], 0.99: [], 0.9999: []}
    for mm in ms:
        pmf = swap_difference_pmf(int(mm), float(p))
        for q in qs:
            qs[q].append(pmf_quantile(pmf, q))
    data = [_scatter(x=ms, y=epsilon0 * ms, mode="lines", name="worst case ε<sub>item</sub>·m (slope 1)",
                     line=dict(color=ROLE["naive"], width=3))]
    for (q, vals), col, dash in zip(qs.items(), [PALETTE[0], PALETTE[3], PALETTE[4]], ["solid", "dash", "dot"]):
        y = epsilon0 * np.asarray(vals, dtype=float)
        data.append(_scatter(x=ms, y=np.where(y > 0, y, np.nan), mode="lines+markers",
                             name=f"{q:.2%} quantile".replace(".00%", "%"), line=dict(color=col, dash=dash),
                             marker=dict(size=4)))
    data.append(_scatter(x=ms, y=epsilon0 * np.sqrt(ms), mode="lines", name="ε<sub>item</sub>·√m (slope ½)",
                         line=dict(color=PALETTE[2], dash="longdash")))
    shapes = [_vline(m_mark, color="#777", dash="dot", width=1.5)] if m_mark else []
    fig = go.Figure(data=data, layout=dict(
        template=template, title=dict(text="Typical loss grows like √m, the worst case like m", font=dict(size=14)),
        xaxis=dict(type="log", title=dict(text="m (examples per user)"), exponentformat="power"),
        yaxis=dict(type="log", title=dict(text="privacy loss (nats)"), exponentformat="power"), shapes=shapes,
        legend=dict(x=0.01, y=0.99, font=dict(size=11))))
    caption(fig, "Exact quantiles of ε<sub>item</sub>·|S − S′|, S, S′ ~ Bin(m, p). Idea of Ghazi et al. 2023, "
                 "Theorem 17 (ε = O(ε<sub>item</sub>·r·√(m·log(n/(β<sub>fail</sub>δ<sub>item</sub>))))); "
                 "dpviz's illustration.")
    return fig


# ----------------------------------------------------------------------------------- clipping threshold τ


def _check_tradeoff(t: Any) -> None:
    if not isinstance(t, ClippingTradeoff):
        raise TypeError(f"t = {t!r} is not allowed: must be a ClippingTradeoff (dpviz.userlevel.clipping_tradeoff).")


def clipping_histogram_figure(t: ClippingTradeoff, tau: float, *, template: str = TEMPLATE) -> go.Figure:
    """The exact law of one user's pairwise sum u with the clip band [−τ, τ]; clipped mass reported."""
    _check_tradeoff(t)
    tau = check_positive(tau, "tau")
    m = t.m
    u = np.arange(-m, m + 1)
    keep = np.nonzero(t.pmf > 1e-9)[0]
    lo, hi = int(u[keep[0]]), int(u[keep[-1]])
    sel = slice(keep[0], keep[-1] + 1)
    inside = np.abs(u[sel]) <= tau
    clipped = float(t.pmf[np.abs(u) > tau].sum())
    us, ps = u[sel], t.pmf[sel]
    data = [_bar(x=us[inside], y=ps[inside], marker=dict(color=ROLE["private"]), name="kept as is",
                 hovertemplate="u = %{x}: %{y:.3g}<extra></extra>"),
            _bar(x=us[~inside], y=ps[~inside], marker=dict(color=PALETTE[1]), name="clipped to ±τ",
                 hovertemplate="u = %{x}: %{y:.3g} (clipped)<extra></extra>")]
    x0, x1 = max(-tau, lo - 1), min(tau, hi + 1)
    shapes = [dict(type="rect", xref="x", yref="paper", x0=x0, x1=x1, y0=0, y1=1, fillcolor=ROLE["region"],
                   line=dict(width=0), layer="below")]
    if -tau >= lo - 1:
        shapes.append(_vline(-tau, color=ROLE["bound"], dash="dash", width=1.5))
    if tau <= hi + 1:
        shapes.append(_vline(tau, color=ROLE["bound"], dash="dash", width=1.5))
    fig = go.Figure(data=data, layout=dict(
        template=template, bargap=0.05, barmode="overlay", shapes=shapes,
        legend=dict(x=0.98, y=0.98, xanchor="right"),
        title=dict(text=f"One user's summed score u (m = {m}): {clipped:.2%} of users get clipped at τ = {tau:.3g}",
                   font=dict(size=14)),
        xaxis=dict(title=dict(text="u<sub>i</sub> = Σ<sub>j</sub> ψ(x<sub>i,j</sub>)  "
                              "(ψ = 1[H wrong] − 1[H′ wrong])")),
        yaxis=dict(title=dict(text="probability"))))
    caption(fig, "Source: Ghazi et al. 2023, Appendix E.1 (ClippedPairwiseEM): each user's summed score is clipped to "
                 "[−τ, τ] (shaded), sensitivity 2τ; exact law of u (trinomial convolution).")
    return fig


def clipping_tradeoff_figure(t: ClippingTradeoff, tau: float, *, show_best: bool = False,
                             template: str = TEMPLATE) -> go.Figure:
    """Clipping bias and EM error (score units) against τ, their sum, the signal 0.2·α_acc·n·m, the paper's τ and
    yours; with ``show_best`` the minimising τ is starred (a lesson asks for it first: drawn only after Reveal)."""
    _check_tradeoff(t)
    tau = check_positive(tau, "tau")
    show_best = _check_flag(show_best, "show_best")
    total = t.bias + t.em_error
    floor = float(t.em_error.min()) / 10  # below this the bias is invisible next to the noise (and only rounding)
    data = [
        _scatter(x=t.tau, y=np.where(t.bias > floor, t.bias, np.nan), mode="lines",
                 name="clipping bias n·|E clip(u) − E u|",
                 line=dict(color=PALETTE[1], width=2.5)),
        _scatter(x=t.tau, y=t.em_error, mode="lines", name="EM error (2Δ/ε)·ln(|ℋ|/β<sub>fail</sub>), Δ = 2τ",
                 line=dict(color=PALETTE[2], width=2.5, dash="dash")),
        _scatter(x=t.tau, y=total, mode="lines", name="bias + EM error", line=dict(color=ROLE["private"], width=4)),
        _scatter(x=[t.tau[0], t.tau[-1]], y=[t.signal, t.signal], mode="lines",
                 name="signal 0.2·α<sub>acc</sub>·n·m", line=dict(color=ROLE["bound"], dash="dot")),
    ]
    if show_best:
        data.append(_scatter(x=[t.tau_best], y=[float(np.min(total))], mode="markers",
                             name=f"best τ ≈ {t.tau_best:.3g}",
                             marker=dict(symbol="star", size=16, color=ROLE["private"])))
    shapes = [_vline(tau, color="#777", dash="dot", width=1.5),
              _vline(t.tau_paper, color=ROLE["naive"], dash="dashdot", width=1.5)]
    notes = [_label(t.tau_paper, " paper: α<sub>acc</sub>m + √(m ln(1/α<sub>acc</sub>))", log_x=True,
                    color=ROLE["naive"], y=0.99)]
    fig = go.Figure(data=data, layout=dict(
        template=template, shapes=shapes, annotations=notes,
        title=dict(text="Choosing the clip τ: bias against noise (score units)", font=dict(size=14)),
        xaxis=dict(type="log", title=dict(text="clip threshold τ")),
        yaxis=dict(type="log", title=dict(text="error in the score (users × examples)"),
                   range=[math.log10(floor), math.log10(2 * max(float(total.max()), t.signal))],
                   exponentformat="power"),
        legend=dict(x=0.01, y=0.01, yanchor="bottom", font=dict(size=11))))
    approx_note(fig, "paper's τ with its constant C = 1; EM bound is the standard one (β<sub>fail</sub> = 0.1)")
    caption(fig, "Source: Ghazi et al. 2023, proof of Theorem 37 "
                 "(τ = C(α<sub>acc</sub>m + √(m log(1/α<sub>acc</sub>))), "
                 "events E2/E3: 0.2α<sub>acc</sub>nm vs 0.4α<sub>acc</sub>nm);<br>EM: McSherry & Talwar 2007 "
                 "(Ghazi et al. 2023, Theorem 9).")
    return fig


# ----------------------------------------------------------------------------------- PAC learner (thresholds)


def pac_error_figure(n_grid: np.ndarray, errors: dict, *, epsilon: float, grid_size: int, constant: float = 1.0,
                     standard_errors: dict | None = None, theory_grid: np.ndarray | None = None,
                     template: str = TEMPLATE) -> go.Figure:
    """Simulated true error of the user-level realizable PAC learner (Section 4) on 1-D thresholds against n, one curve
    per m, beside the theory α(n) = C·ln(K+1)/(ε·n·m) (Theorem 4 of Ghazi et al. 2023 solved for α; C = 1 shown).

    ``errors`` maps m → array of mean errors over ``n_grid``. The theory is drawn over ``theory_grid`` (default
    ``n_grid``): a partial view draws it over every n of the final view, so that its axes, and the reference lines,
    are there from the first result on.
    """
    epsilon = check_positive(epsilon, "epsilon")
    grid_size = check_integer(grid_size, "grid_size", minimum=1, maximum=10**15)
    constant = check_positive(constant, "constant")
    n_grid = _array(n_grid, "n_grid", low=0.0, low_open=True)
    theory_grid = n_grid if theory_grid is None else _array(theory_grid, "theory_grid", low=0.0, low_open=True)
    errors = _mapping(errors, "errors", length=n_grid.size, like="n_grid", low=0.0, high=1.0)
    for m in errors:
        check_integer(m, "errors' key m", minimum=1, maximum=10**15)
    if standard_errors is not None:
        standard_errors = _mapping(standard_errors, "standard_errors", allow_empty=True, length=n_grid.size,
                                   like="n_grid", low=0.0)
    data = []
    cols = [PALETTE[7], PALETTE[0], PALETTE[2], PALETTE[3], PALETTE[5]]
    for i, (m, err) in enumerate(sorted(errors.items())):
        col = cols[i % len(cols)]
        ey = None
        if standard_errors is not None and m in standard_errors:
            ey = dict(type="data", array=standard_errors[m], visible=True, thickness=1)
        data.append(_scatter(x=n_grid, y=np.where(err > 0, err, np.nan), mode="markers+lines",
                             name=f"simulation, m = {m}" + (" (item-level)" if m == 1 else ""), error_y=ey,
                             line=dict(color=col, width=2), marker=dict(size=7)))
        with np.errstate(over="ignore"):  # beyond the double range: the capped 0.5 (ε tiny) or 0 (ε huge)
            theory = constant * math.log(grid_size + 1) / (epsilon * theory_grid * m)
        data.append(_scatter(x=theory_grid, y=np.minimum(theory, 0.5), mode="lines", name=f"theory, m = {m}",
                             line=dict(color=col, dash="dot", width=1.5), showlegend=True))
    layout = dict(
        template=template, title=dict(text=f"User-level PAC learning of thresholds (K = {grid_size}, ε = {epsilon:g})",
                                      font=dict(size=14)),
        xaxis=dict(type="log", title=dict(text="n (users)")),
        # Labels at 1, 2 and 5 of each decade, whatever the range: left to itself, plotly labels every digit when
        # the range spans under ~2.5 decades (a partial view, before the large n are simulated) and only 1, 2, 5
        # above, so the first partial view drew new labels, widened the left margin and made plotly.js draw the
        # whole figure twice (lesson 14, 2026-11-29: 70-90 ms for that update against 25-45 ms for the next).
        yaxis=dict(type="log", title=dict(text="true error err(h) (mean over runs)"), exponentformat="power",
                   dtick="D2"))
    return _legend_below(data, layout, "Source: Ghazi et al. 2023, Theorem 4 (n = Θ̃(d/ε + d/(εα<sub>acc</sub>m)), "
                                       "so α<sub>acc</sub> ≈ C·d/(ε n m) for m ≤ 1/α<sub>acc</sub>) with d = "
                                       "ln(K+1);<br>learner: Section 4 of the paper (exponential mechanism over the "
                                       "count of users with a mistake, Δ = 1).",
                         approx="Monte Carlo (fixed seed); theory curve has its constant set to 1")

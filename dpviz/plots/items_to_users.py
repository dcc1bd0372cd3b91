"""Figures for lesson 11 "From items to users" (:mod:`dpviz.panels.items_to_users`).

Every builder is a pure function returning a NEW :class:`plotly.graph_objects.Figure` (no widgets, no ``show()``).
The numbers come from :func:`dpviz.accountants.group.group_privacy_curve` (Lemma 6) and :mod:`dpviz.userlevel` (the
contribution-bounding model); this module only draws. It also holds the layout helpers that lesson 14's figures
share (:func:`side_by_side`, reference lines and their labels).

Paper: Ghazi, Kamath, Kumar, Manurangsi, Meka, Zhang, "User-Level Differential Privacy With Few Examples Per User",
NeurIPS 2023 (cited below as "Ghazi et al. 2023").
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from dpviz._validation import check_choice, check_delta, check_integer, check_positive
from dpviz.accountants.group import group_privacy_curve
from dpviz.plots._theme import (
    PALETTE,
    ROLE,
    TEMPLATE,
    _assemble,
    _check_figure,
    _check_flag,
    _hline,
    _layout,
    _scatter,
    _vline,
    approx_note,
    caption,
)
from dpviz.userlevel import BoundingTradeoff, UserDataset, int_log_grid

__all__ = [
    "side_by_side",
    "neighbours_figure",
    "group_privacy_epsilon_figure",
    "group_privacy_delta_figure",
    "bounding_error_figure",
    "contribution_histogram_figure",
]


# =============================================================================================== layout helpers

def _label(x: float, text: str, *, y: float = 1.0, log_x: bool = False, color: str = "#444",
           xanchor: str = "left", yref: str = "paper") -> dict:
    """An annotation next to a reference line (x in data units; log axes take log10(x))."""
    return dict(x=math.log10(x) if log_x else x, y=y, xref="x", yref=yref, text=text, showarrow=False,
                xanchor=xanchor, yanchor="top", font=dict(size=11, color=color))



def side_by_side(left: go.Figure, right: go.Figure, *, template: str = TEMPLATE,
                 height: int | None = None) -> go.Figure:
    """Two figures from this module as ONE figure with two panels (left, right), each keeping its traces, axes,
    reference lines, notes and legend; the two source captions are joined under the figure.

    Lessons put related views side by side this way so that a page holds fewer figure widgets (each plotly
    FigureWidget loads the whole plotly.js bundle in the browser; many of them slow a Voilà page down). Built from
    plain dicts in one pass (the sources may use ``template="none"`` to skip their own template work). ``height``
    (pixels of the plot area) is an integer in [100, 3000].
    """
    _check_figure(left, "left")
    _check_figure(right, "right")
    if height is not None:
        height = check_integer(height, "height", minimum=100, maximum=3000)
    doms = ([0.0, 0.43], [0.57, 1.0])
    data, shapes, notes, captions, approx = [], [], [], [], []
    layout: dict = {}
    for col, src in enumerate((left, right)):
        xa, ya = ("x", "y") if col == 0 else ("x2", "y2")
        for tr in src.data:
            d = tr.to_plotly_json()
            d["xaxis"], d["yaxis"] = xa, ya
            if col == 1:
                d["legend"] = "legend2"
            data.append(d)
        sl = src.layout.to_plotly_json()
        xaxis = {k: v for k, v in sl.get("xaxis", {}).items() if k not in ("domain", "anchor")}
        yaxis = {k: v for k, v in sl.get("yaxis", {}).items() if k not in ("domain", "anchor")}
        layout["xaxis" if col == 0 else "xaxis2"] = dict(xaxis, domain=doms[col], anchor=ya)
        layout["yaxis" if col == 0 else "yaxis2"] = dict(yaxis, anchor=xa)
        if col == 0 and sl.get("barmode"):
            layout["barmode"] = sl["barmode"]
        elif col == 1 and sl.get("barmode") and "barmode" not in layout:
            layout["barmode"] = sl["barmode"]
        title = (sl.get("title") or {}).get("text") or ""
        notes.append(dict(text=title, x=sum(doms[col]) / 2, y=1.0, xref="paper", yref="paper", xanchor="center",
                          yanchor="bottom", showarrow=False, font=dict(size=13), yshift=8))
        for d in sl.get("shapes", []):
            d = dict(d)
            d["xref"] = xa if d.get("xref", "x") == "x" else f"{xa} domain"
            d["yref"] = ya if d.get("yref", "y") == "y" else f"{ya} domain"
            shapes.append(d)
        for d in sl.get("annotations", []):
            d = dict(d)
            text = d.get("text", "") or ""
            if d.get("yref") == "paper" and d.get("y", 0) < 0:
                captions.append(text)
                continue
            if d.get("xref") == "paper" and text.startswith("≈ "):
                approx.append(text)
                continue
            d["xref"] = xa if d.get("xref", "x") == "x" else f"{xa} domain"
            d["yref"] = ya if d.get("yref", "y") == "y" else f"{ya} domain"
            notes.append(d)
    # Pixel layout: plot area, then each panel's legend under it (vertical), then the joined captions.
    plot_h, top, axis_gap, row_h, line_h = (height or 380), 90, 62, 19, 14
    entries = max(sum(1 for t in src.data if t.showlegend is not False and t.name) for src in (left, right))
    cap_lines = sum(c.count("<br>") + 1 for c in captions)
    bottom = axis_gap + entries * row_h + 16 + cap_lines * line_h + 10
    for col, key in ((0, "legend"), (1, "legend2")):
        layout[key] = dict(x=doms[col][0], y=-axis_gap / plot_h, xanchor="left", yanchor="top", orientation="v",
                           font=dict(size=11), bgcolor="rgba(0,0,0,0)", borderwidth=0)
    if captions:
        text = "<br>".join(f"{side}: {c}" for side, c in zip(("Left", "Right"), captions))
        notes.append(dict(text=text, xref="paper", yref="paper", x=0, y=-(axis_gap + entries * row_h + 16) / plot_h,
                          xanchor="left", yanchor="top", showarrow=False, align="left",
                          font=dict(size=10, color="#555555")))
    if approx:
        notes.append(dict(text="   ".join(approx), xref="paper", yref="paper", x=0, y=1 + 46 / plot_h,
                          xanchor="left", yanchor="bottom", showarrow=False, align="left",
                          font=dict(size=11, color=ROLE["approx"])))
    layout.update(template=template, shapes=shapes, annotations=notes, height=plot_h + top + bottom,
                  margin=dict(t=top, b=bottom, r=30, l=70))
    return _assemble(data, layout)  # parts of two validated figures: not validated again


# =============================================================================================== figures

_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _pow10(x: float) -> str:
    """A positive number as a learner reads it: 10⁻⁶, 2.5·10⁻⁷ (no "1e-06", no SI suffix).

    >>> _pow10(1e-6), _pow10(2.5e-7), _pow10(0.5), _pow10(5e-324)
    ('10⁻⁶', '2.5·10⁻⁷', '0.5', '4.94·10⁻³²⁴')
    """
    if x >= 0.01:
        return f"{x:.3g}"
    # mantissa and exponent as printed (x / 10**e divided by 0 for a subnormal x: 10.0**-324 is 0)
    digits, exponent = f"{x:.2e}".split("e")
    mant, e = float(digits), int(exponent)
    power = "10" + str(e).translate(_SUPERSCRIPT)
    return power if abs(mant - 1) < 5e-3 else f"{mant:.3g}·{power}"


_RATING_SCALE = [[0.0, "#f2f6fb"], [1.0, "#9ecae1"]]


def neighbours_figure(
    n_users: int = 6,
    m: int = 5,
    *,
    user: int = 2,
    index: int = 1,
    kind: str = "user",
    seed: int = 3,
    template: str = TEMPLATE,
) -> go.Figure:
    """A small n × m dataset x (users = rows, examples = columns) beside a neighbour x′.

    ``kind="item"``: one example x_{i,j} replaced (item-level neighbours, Definition 2 of Ghazi et al. 2023 with m = 1);
    ``kind="user"``: user i's whole block of m examples replaced (user-level neighbours, Definition 1 of
    Ghazi et al. 2023). Changed cells are outlined; the numbers are ratings 1–5 drawn with a fixed seed (``seed``,
    an integer ≥ 0).

    Raises
    ------
    ValueError
        n_users, m out of range, ``user``/``index`` outside the dataset, or an unknown ``kind``.
    """
    n_users = check_integer(n_users, "n_users", minimum=1, maximum=30)
    m = check_integer(m, "m", minimum=1, maximum=30)
    user = check_integer(user, "user", minimum=0, maximum=n_users - 1)
    index = check_integer(index, "index", minimum=0, maximum=m - 1)
    kind = check_choice(kind, "kind", ("item", "user"))
    rng = np.random.default_rng(check_integer(seed, "seed", minimum=0))
    data = rng.integers(1, 6, size=(n_users, m))
    x = UserDataset.from_array(data, domain=(1, 2, 3, 4, 5))
    if kind == "item":
        old = int(data[user, index])
        x2 = x.item_neighbor(user=user, index=index, value=(old % 5) + 1)
    else:
        new_block = (data[user] + rng.integers(1, 5, size=m) - 1) % 5 + 1  # differs in every cell
        x2 = x.user_neighbor(user=user, block=new_block)
    a, b = x.as_array(), x2.as_array()
    ylabels = [f"user {i + 1}" for i in range(n_users)]
    xlabels = [f"ex. {j + 1}" for j in range(m)]
    data = [dict(type="heatmap", z=arr, x=xlabels, y=ylabels, text=arr, texttemplate="%{text}", zmin=1, zmax=5,
                 colorscale=_RATING_SCALE, showscale=False, xgap=2, ygap=2, xaxis="x" if k == 0 else "x2",
                 yaxis="y" if k == 0 else "y2", hovertemplate="%{y}, %{x}: rating %{z}<extra></extra>",
                 textfont=dict(size=14 if max(n_users, m) <= 10 else 10))
            for k, arr in enumerate((a, b))]
    # Outline what the neighbour changes (one cell, or the user's whole row) in both panels.
    if kind == "item":
        x0, x1 = index - 0.5, index + 0.5
    else:
        x0, x1 = -0.5, m - 0.5
    shapes = [dict(type="rect", xref=xr, yref=yr, x0=x0, x1=x1, y0=user - 0.5, y1=user + 0.5,
                   line=dict(color=ROLE["naive"], width=3)) for xr, yr in (("x", "y"), ("x2", "y2"))]
    axis = dict(showgrid=False, side="top", showline=False, ticks="")
    yaxis = dict(autorange="reversed", showgrid=False, showline=False, ticks="")
    titles = [dict(text=t, x=xc, y=1.0, xref="paper", yref="paper", yanchor="bottom", showarrow=False,
                   font=dict(size=13), yshift=28)
              for t, xc in (("dataset x", 0.23), (f"neighbour x′ ({kind}-level)", 0.77))]
    what = ("one example replaced: x and x′ differ in 1 cell" if kind == "item"
            else f"user {user + 1}'s whole block replaced: x and x′ differ in up to m = {m} cells")
    fig = go.Figure(data=data, layout=dict(
        template=template, title=dict(text=f"Neighbouring datasets, {n_users} users × {m} examples — {what}",
                                      font=dict(size=14)),
        xaxis=dict(domain=[0.0, 0.46], **axis), xaxis2=dict(domain=[0.54, 1.0], anchor="y2", **axis),
        yaxis=yaxis, yaxis2=dict(anchor="x2", **yaxis), shapes=shapes, annotations=titles,
        margin=dict(t=110, b=70), height=max(300, 140 + 34 * n_users)))
    caption(fig, "Source: Ghazi et al. 2023, Def 1 (user-level neighbours x ≍ x′ iff x₋ᵢ = x′₋ᵢ) and Def 2 "
                 "(item-level = the case m = 1). Both keep n users: replace-one, not add/remove.", y=-0.08)
    return fig


def _first_vacuous_m(epsilon: float, delta: float, m: np.ndarray, d_m: np.ndarray) -> int | None:
    """The first m at which the user-level δ of Lemma 6 reaches 1 (no guarantee), exactly (the log grid ``m`` may
    skip integers; ``d_m`` is δ on it), or None within the grid."""
    vac = np.nonzero(d_m >= 1.0)[0]
    if not vac.size:
        return None
    lo = int(m[vac[0] - 1]) if vac[0] > 0 else 1
    ints = np.arange(lo, int(m[vac[0]]) + 1)
    return int(ints[np.nonzero(group_privacy_curve(epsilon, delta, ints)[1] >= 1.0)[0][0]])


def group_privacy_epsilon_figure(epsilon: float, m_max: int = 1000, *, m_mark: int | None = None,
                                 delta: float | None = None, template: str = TEMPLATE) -> go.Figure:
    """User-level ε = m·ε_item of an ε_item-item-level mechanism (Lemma 6 of Ghazi et al. 2023), log–log against m.

    ``epsilon`` is the item-level ε_item; the figure's strings follow the course notation (ε<sub>item</sub>). With
    the item-level ``delta``, the m where the user-level δ reaches 1 is marked and the range beyond it shaded "no
    guarantee": an ε there promises nothing."""
    epsilon = check_positive(epsilon, "epsilon")
    m_max = check_integer(m_max, "m_max", minimum=2, maximum=10**6)
    m = int_log_grid(1, m_max, 200)
    eps_m, _, _ = group_privacy_curve(epsilon, 0.0, m)
    m_vac = None
    if delta is not None:
        delta = check_delta(delta, allow_zero=False)
        m_vac = _first_vacuous_m(epsilon, delta, m, group_privacy_curve(epsilon, delta, m)[1])
    data = [_scatter(x=m, y=eps_m, mode="lines", name="user-level ε = m·ε<sub>item</sub> (group privacy)",
                     line=dict(color=ROLE["naive"], width=3)),
            _scatter(x=[1, m_max], y=[epsilon, epsilon], mode="lines", name="ε<sub>item</sub> (one example)",
                     line=dict(color=ROLE["bound"], dash="dot"))]
    if m_mark is not None:
        mm = check_integer(m_mark, "m_mark", minimum=1, maximum=m_max)
        vacuous = m_vac is not None and mm >= m_vac
        data.append(_scatter(x=[mm], y=[mm * epsilon], mode="markers+text", name=f"m = {mm}",
                             text=[f"  ε = {mm * epsilon:.3g}" + (" (no guarantee: δ ≥ 1)" if vacuous else "")],
                             textposition="middle right",
                             marker=dict(size=11, color=ROLE["naive"], line=dict(color="white", width=1))))
    shapes, notes = [], []
    if m_vac is not None:
        shapes = [dict(type="rect", xref="x", yref="paper", x0=m_vac, x1=m_max, y0=0, y1=1, fillcolor="#999999",
                       opacity=0.15, line=dict(width=0), layer="below"),
                  _vline(m_vac, color=ROLE["naive"], dash="dot", width=1.5)]
        notes = [_label(m_vac, f" no guarantee from m = {m_vac} (δ ≥ 1)", log_x=True, color=ROLE["naive"],
                        xanchor="left", y=0.1)]
    fig = go.Figure(data=data, layout=_layout(
        f"User-level ε from item-level ε<sub>item</sub> = {epsilon:g}", "m (examples per user)", "user-level ε",
        template=template, xaxis=dict(type="log"), yaxis=dict(type="log"), legend=dict(x=0.02, y=0.98),
        shapes=shapes, annotations=notes))
    caption(fig, "Source: Ghazi et al. 2023, Lemma 6 (group privacy): a user-level neighbour is a chain of m "
                 "item-level neighbours (footnote 5), so ε = m·ε<sub>item</sub>.")
    return fig


_EM = "e<sup>mε<sub>item</sub></sup>"
_DELTA_EXACT = f"user-level δ = δ<sub>item</sub>·({_EM}−1)/(e<sup>ε<sub>item</sub></sup>−1)"
_DELTA_LOOSE = f"looser m·{_EM}·δ<sub>item</sub>"
_DELTA_MISTAKE = "m·δ<sub>item</sub> (a common mistake)"


def group_privacy_delta_figure(epsilon: float, delta: float, m_max: int = 1000, *, m_mark: int | None = None,
                               template: str = TEMPLATE) -> go.Figure:
    """User-level δ = δ_item·(e^(m·ε_item) − 1)/(e^(ε_item) − 1) against m (Lemma 6 of Ghazi et al. 2023), with the
    loose m·e^(m·ε_item)·δ_item and the line δ = 1 (no guarantee above it). ``epsilon``, ``delta`` are item-level."""
    epsilon = check_positive(epsilon, "epsilon")
    delta = check_delta(delta, "delta", allow_zero=False)
    m_max = check_integer(m_max, "m_max", minimum=2, maximum=10**6)
    m = int_log_grid(1, m_max, 200)
    _, d_m, d_loose = group_privacy_curve(epsilon, delta, m)
    top = 1e3
    data = [_scatter(x=m, y=np.minimum(d_m, top), mode="lines", name=_DELTA_EXACT,
                     line=dict(color=ROLE["naive"], width=3)),
            _scatter(x=m, y=np.minimum(d_loose, top), mode="lines", name=_DELTA_LOOSE,
                     line=dict(color=ROLE["bound"], dash="dash")),
            _scatter(x=m, y=np.minimum(m * delta, top), mode="lines", name=_DELTA_MISTAKE,
                     line=dict(color=PALETTE[2], dash="dot"))]
    shapes = [_hline(1.0, color="#888", dash="dot", width=1.5)]
    notes = [dict(x=1, xref="paper", y=0, yref="y", text="δ ≥ 1: no guarantee at all", showarrow=False,
                  xanchor="right", yanchor="bottom", font=dict(size=11, color="#555"))]
    m_vac = _first_vacuous_m(epsilon, delta, m, d_m)
    if m_vac is not None:
        shapes.append(_vline(m_vac, color=ROLE["naive"], dash="dot", width=1.5))
        notes.append(_label(m_vac, f"no guarantee from m = {m_vac} ", log_x=True, color=ROLE["naive"], xanchor="right",
                            y=0.9))
    if m_mark is not None:
        mm = check_integer(m_mark, "m_mark", minimum=1, maximum=m_max)
        dm = float(group_privacy_curve(epsilon, delta, [mm])[1][0])
        data.append(_scatter(x=[mm], y=[min(dm, top)], mode="markers", name=f"m = {mm}: δ = {dm:.3g}",
                             marker=dict(size=11, color=ROLE["naive"], line=dict(color="white", width=1))))
    fig = go.Figure(data=data, layout=_layout(
        f"User-level δ from item-level (ε<sub>item</sub>, δ<sub>item</sub>) = ({epsilon:g}, {_pow10(delta)})",
        "m (examples per user)", "user-level δ (capped at 10³)", template=template, xaxis=dict(type="log"),
        yaxis=dict(type="log", exponentformat="power"), legend=dict(x=0.02, y=0.98), shapes=shapes,
        annotations=notes))
    caption(fig, "Source: Ghazi et al. 2023, Lemma 6: δ = δ<sub>item</sub>·(e<sup>mε<sub>item</sub></sup>−1)/"
                 "(e<sup>ε<sub>item</sub></sup>−1) ≤ m·e<sup>mε<sub>item</sub></sup>·δ<sub>item</sub> — a geometric "
                 "sum, not m·δ<sub>item</sub>.")
    return fig


# ----------------------------------------------------------------------------------- n × m bounding explorer


def _check_bounding(t) -> None:
    if not isinstance(t, BoundingTradeoff):
        raise TypeError(f"t = {t!r} is not allowed: must be a BoundingTradeoff (dpviz.userlevel.bounding_curves).")


def bounding_error_figure(t: BoundingTradeoff, k: int, *, show_optimum: bool = False,
                          template: str = TEMPLATE) -> go.Figure:
    """Bias, noise and total RMSE against the contribution bound (log–log), the current bound drawn and, with
    ``show_optimum``, the optimum marked (a lesson asks for it first: the star is drawn only after Reveal).

    ``k`` is the bound (the course writes it c, the records kept per user); ``t.k`` is its grid."""
    _check_bounding(t)
    k = check_integer(k, "k", minimum=1, maximum=int(t.k[-1]))
    show_optimum = _check_flag(show_optimum, "show_optimum")
    grid = int_log_grid(1, int(t.k[-1]), 300)
    idx = grid - 1
    absb = -t.bias[idx]
    absb = np.where(absb > 0, absb, np.nan)  # log axis: a zero bias is drawn as a gap
    data = [_scatter(x=grid, y=absb, mode="lines", name="|bias| (records dropped)",
                     line=dict(color=PALETTE[1], width=2.5)),
            _scatter(x=grid, y=t.noise_user[idx], mode="lines", name="noise std, user-level (∝ c)",
                     line=dict(color=PALETTE[2], width=2.5, dash="dash")),
            _scatter(x=grid, y=t.rmse_user[idx], mode="lines", name="total RMSE, user-level",
                     line=dict(color=ROLE["private"], width=4)),
            _scatter(x=grid, y=t.rmse_item[idx], mode="lines", name="total RMSE, item-level (protects 1 record only)",
                     line=dict(color=PALETTE[3], width=2, dash="dot"))]
    if t.mechanism == "gaussian":
        data.append(_scatter(x=grid, y=t.rmse_group[idx], mode="lines",
                             name="total RMSE, item-level lifted by group privacy",
                             line=dict(color=ROLE["naive"], width=2, dash="dashdot")))
    if show_optimum:
        ku = t.k_user
        data.append(_scatter(x=[ku], y=[t.rmse_user[ku - 1]], mode="markers+text", name=f"optimum c* = {ku}",
                             text=[f"c* = {ku}"], textposition="bottom center",
                             marker=dict(symbol="star", size=18, color=ROLE["private"],
                                         line=dict(color="white", width=1))))
    data.append(_scatter(x=[k], y=[t.rmse_user[k - 1]], mode="markers", name=f"your c = {k}",
                         marker=dict(symbol="circle-open", size=16, color=ROLE["bound"], line=dict(width=3))))
    ymin = max(float(np.nanmin(np.concatenate([t.noise_item[idx], t.rmse_user[idx]]))) / 3, 1e-3)
    ymax = float(np.nanmax(np.concatenate([t.rmse_user[idx], absb[np.isfinite(absb)] if np.isfinite(absb).any()
                                           else t.rmse_user[idx]]))) * 2
    mech = (f"Laplace, pure ε = {t.epsilon:g}" if t.mechanism == "laplace"
            else f"Gaussian, (ε, δ) = ({t.epsilon:g}, {_pow10(t.delta)})")
    fig = go.Figure(data=data, layout=_layout(
        f"Noisy sum with contribution bound c — {mech}", "contribution bound c (records kept per user)",
        "error (same units as the answer)", template=template, xaxis=dict(type="log"),
        yaxis=dict(type="log", exponentformat="power", range=[math.log10(ymin), math.log10(ymax)]),
        legend=dict(x=0.01, y=0.01, xanchor="left", yanchor="bottom", font=dict(size=11)), height=460,
        shapes=[_vline(k, color="#777", dash="dot", width=1.5)]))
    src = ("Laplace std √2·Δ/ε (Dwork & Roth 2014, Thm 3.6)" if t.mechanism == "laplace"
           else "analytic Gaussian σ (Balle & Wang 2018, Thm 8)")
    caption(fig, f"Sensitivity: c at user level (Ghazi et al. 2023, Def 1), 1 at item level; {src}; "
                 "group privacy: Ghazi et al. 2023, Lemma 6."
                 "<br>RMSE = √(bias² + noise²), exact for this synthetic dataset (every value 1, counts seeded).",
            below=75)
    return fig


def contribution_histogram_figure(t: BoundingTradeoff, k: int, *, template: str = TEMPLATE) -> go.Figure:
    """Histogram of per-user record counts mᵢ (log-binned) with the bound ``k`` (the course's c); dropped share of
    records and users."""
    _check_bounding(t)
    k = check_integer(k, "k", minimum=1, maximum=int(t.k[-1]))
    c = t.counts
    cmax = int(c[-1])
    edges = np.unique(np.round(np.geomspace(1, max(cmax, 2) + 1, 40)).astype(np.int64)).astype(float)
    h_keep, _ = np.histogram(c[c <= k], bins=edges)
    h_cut, _ = np.histogram(c[c > k], bins=edges)
    # step outlines (line_shape "hv") draw histograms correctly on a log x axis
    xs = edges
    data = [_scatter(x=xs, y=np.append(h, h[-1]), mode="lines", fill="tozeroy", name=name,
                     line=dict(color=col, width=1.5, shape="hv"))
            for h, name, col in ((h_keep, "users with mᵢ ≤ c (untouched)", ROLE["private"]),
                                 (h_cut, "users with mᵢ > c (truncated to c)", PALETTE[1]))]
    fig = go.Figure(data=data, layout=_layout(
        f"Records per user (n = {c.size}): {t.dropped_fraction(k):.1%} of records dropped, "
        f"{t.users_truncated(k):.1%} of users truncated", "records per user mᵢ", "number of users",
        template=template, xaxis=dict(type="log"), legend=dict(x=0.98, y=0.98, xanchor="right", font=dict(size=11)),
        shapes=[_vline(k, color=ROLE["bound"], dash="dot", width=2)],
        annotations=[_label(k, f" c = {k}", log_x=True, y=0.75)]))
    approx_note(fig, "synthetic heavy-tailed counts (discretised Pareto, fixed seed)")
    caption(fig, "Orange bins: users who lose records when at most c are kept. The bound c must be fixed "
                 "before looking at the data.", below=75)
    return fig

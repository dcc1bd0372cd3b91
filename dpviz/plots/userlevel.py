"""Figures for lessons 03 "From items to users" and 04 "Few examples per user".

Every builder is a pure function returning a NEW :class:`plotly.graph_objects.Figure` (no widgets, no ``show()``).
The numbers come from :mod:`dpviz.userlevel` (the paper's algorithms and bounds), :mod:`dpviz.mechanisms` and
:mod:`dpviz.accountants`. A few small exact computations that the lessons need and the library does not (yet) expose
live here as clearly marked private helpers (``_`` prefix, section "LESSON HELPERS"); each says which library name it
stands in for.

Paper: Ghazi, Kamath, Kumar, Manurangsi, Meka, Zhang, "User-Level Differential Privacy With Few Examples Per User",
NeurIPS 2023 — ``/work/shared/papers/000_eed7e3c6d3636c79.txt`` (cited below as "000").
"""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import Any

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots
from scipy import special

from dpviz._binomial import binomial_pmf
from dpviz._validation import (
    check_choice,
    check_delta,
    check_in_range,
    check_integer,
    check_positive,
)
from dpviz.plots._theme import DASHES, PALETTE, ROLE, TEMPLATE, approx_note, caption

__all__ = [
    "side_by_side",
    "neighbours_figure",
    "group_privacy_epsilon_figure",
    "group_privacy_delta_figure",
    "group_privacy_cost",
    "BoundingTradeoff",
    "bounding_curves",
    "bounding_error_figure",
    "contribution_histogram_figure",
    "users_needed_figure",
    "regime_breakpoints",
    "generic_users_figure",
    "item_budget_figure",
    "tdlap_figure",
    "ptr_discard_figure",
    "delstab_output_figure",
    "delstab_test_figure",
    "swap_loss_figure",
    "swap_loss_scaling_figure",
    "ClippingTradeoff",
    "clipping_tradeoff",
    "clipping_histogram_figure",
    "clipping_tradeoff_figure",
    "pac_error_figure",
]

PAPER = "Ghazi et al. 2023 (paper 000)"


# =============================================================================================== LESSON HELPERS
# Exact computations the lessons need. They stand in for library names noted in each docstring.


def _log_expm1(x: np.ndarray) -> np.ndarray:
    """ln(e^x − 1) for x > 0 without overflow (x + ln(1 − e^{−x}) for large x)."""
    x = np.asarray(x, dtype=float)
    out = np.empty_like(x)
    small = x < 30
    out[small] = np.log(np.expm1(x[small]))
    out[~small] = x[~small] + np.log1p(-np.exp(-x[~small]))
    return out


def group_privacy_cost(epsilon: float, delta: float, k: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Group privacy for k-neighbours (Lemma 6 of 000), vectorised over ``k``.

    ε′ = k·ε,  δ′ = δ·(e^{kε} − 1)/(e^{ε} − 1)  (a geometric sum, digest pitfall 3), and the looser k·e^{kε}·δ.

    Parameters
    ----------
    epsilon : float
        Item-level ε > 0.
    delta : float
        Item-level δ in [0, 1).
    k : int or array_like of int
        Group size (for a user-level guarantee, k = m examples per user), k ≥ 1.

    Returns
    -------
    eps_k, delta_k, delta_loose : numpy.ndarray
        ε′, the exact factor times δ, and the loose bound k e^{kε} δ (both δ arrays may exceed 1: the guarantee is then
        vacuous; they can be ``inf`` only when the float range overflows).

    Notes
    -----
    Computed in log space so that large kε does not overflow before the value is meaningful. Cross-checked in the
    tests against ``dpviz.accountants.group_privacy(epsilon, delta, k)`` (scalar).

    References
    ----------
    000, Lemma 6 (group privacy).

    Examples
    --------
    >>> e, d, _ = group_privacy_cost(1.0, 1e-6, [1, 2])
    >>> e.tolist(), [round(float(v) * 1e6, 6) for v in d]
    ([1.0, 2.0], [1.0, 3.718282])
    """
    epsilon = check_positive(epsilon, "epsilon")
    delta = check_delta(delta, "delta")
    k = np.atleast_1d(np.asarray(k))
    if k.size == 0 or np.any(k < 1) or np.any(k != np.round(k)):
        raise ValueError(f"k = {k.tolist()!r} is not allowed: must be integers >= 1.")
    k = k.astype(float)
    eps_k = k * epsilon
    with np.errstate(over="ignore", divide="ignore"):
        if delta == 0:
            d_k = np.zeros_like(k)
            d_loose = np.zeros_like(k)
        else:
            log_factor = _log_expm1(k * epsilon) - _log_expm1(np.array([epsilon]))[0]
            d_k = np.exp(np.minimum(log_factor + math.log(delta), 700.0))
            d_loose = np.exp(np.minimum(np.log(k) + k * epsilon + math.log(delta), 700.0))
    return eps_k, d_k, d_loose


def _analytic_gaussian_delta(sigma: np.ndarray, epsilon: np.ndarray) -> np.ndarray:
    """δ(ε) of the Gaussian mechanism with sensitivity 1 (Balle & Wang 2018, Thm 8), vectorised.

    δ = Φ(1/(2σ) − εσ) − e^{ε}·Φ(−1/(2σ) − εσ), the second term in log space.
    """
    a = 0.5 / sigma
    b = epsilon * sigma
    with np.errstate(over="ignore", under="ignore"):
        return special.ndtr(a - b) - np.exp(epsilon + special.log_ndtr(-a - b))


def _gaussian_sigma(epsilon: Any, delta: Any) -> np.ndarray:
    """Smallest σ of the sensitivity-1 Gaussian mechanism that is (ε, δ)-DP, vectorised (exact up to float).

    Stands in for a mechanisms-layer calibration (expected name: ``dpviz.mechanisms.analytic_gaussian_sigma``).
    δ(σ) is decreasing in σ, so a vectorised bisection on ln σ over [10⁻⁴, 10⁹] (90 halvings) finds it to float
    precision. Tested against ``dpviz.mechanisms.Gaussian(sigma).delta(epsilon)``.
    """
    eps = np.atleast_1d(np.asarray(epsilon, dtype=float))
    dlt = np.atleast_1d(np.asarray(delta, dtype=float))
    eps, dlt = np.broadcast_arrays(eps, dlt)
    lo = np.full(eps.shape, math.log(1e-4))
    hi = np.full(eps.shape, math.log(1e9))
    for _ in range(90):
        mid = 0.5 * (lo + hi)
        ok = _analytic_gaussian_delta(np.exp(mid), eps) <= dlt
        hi = np.where(ok, mid, hi)
        lo = np.where(ok, lo, mid)
    return np.exp(hi)


@functools.lru_cache(maxsize=64)
def _sample_counts(n_users: int, median: float, tail: float, cap: int, seed: int) -> np.ndarray:
    """Heavy-tailed per-user record counts: a discretised Pareto with tail index ``tail``, capped at ``cap``.

    c_i = min(cap, max(1, ⌈x_min·U_i^{−1/a}⌉)) with x_min = median/2^{1/a} (so the continuous median is ``median``).
    Smaller a = heavier tail (a ≤ 1: infinite mean before the cap). Sorted ascending, read-only, cached.
    """
    rng = np.random.default_rng(seed)
    u = rng.random(n_users)
    x_min = median / 2.0 ** (1.0 / tail)
    with np.errstate(over="ignore"):
        c = np.ceil(x_min * u ** (-1.0 / tail))
    c = np.clip(np.nan_to_num(c, posinf=cap), 1, cap).astype(np.int64)
    c.sort()
    c.setflags(write=False)
    return c


def _vline(x: float, color: str = "#777", dash: str = "dot", width: float = 1.5) -> dict:
    """A vertical reference line as a layout shape dict (much cheaper than ``Figure.add_vline``)."""
    return dict(type="line", xref="x", yref="paper", x0=x, x1=x, y0=0, y1=1,
                line=dict(color=color, dash=dash, width=width))


def _hline(y: float, color: str = "#777", dash: str = "dot", width: float = 1.5) -> dict:
    return dict(type="line", xref="paper", yref="y", x0=0, x1=1, y0=y, y1=y,
                line=dict(color=color, dash=dash, width=width))


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
    plain dicts in one pass (the sources may use ``template="none"`` to skip their own template work).
    """
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
    return go.Figure(data=data, layout=layout)


# =============================================================================================== lesson 03


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

    ``kind="item"``: one example x_{i,j} replaced (item-level neighbours, Definition 2 of 000 with m = 1);
    ``kind="user"``: user i's whole block of m examples replaced (user-level neighbours, Definition 1 of 000).
    Changed cells are outlined; the numbers are ratings 1–5 drawn with a fixed seed.

    Raises
    ------
    ValueError
        n_users, m out of range, ``user``/``index`` outside the dataset, or an unknown ``kind``.
    """
    from dpviz.userlevel import UserDataset

    n_users = check_integer(n_users, "n_users", minimum=1, maximum=30)
    m = check_integer(m, "m", minimum=1, maximum=30)
    user = check_integer(user, "user", minimum=0, maximum=n_users - 1)
    index = check_integer(index, "index", minimum=0, maximum=m - 1)
    kind = check_choice(kind, "kind", ("item", "user"))
    rng = np.random.default_rng(seed)
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
    data = []
    for k, arr in enumerate((a, b)):
        data.append(go.Heatmap(z=arr, x=xlabels, y=ylabels, text=arr, texttemplate="%{text}", zmin=1, zmax=5,
                               colorscale=_RATING_SCALE, showscale=False, xgap=2, ygap=2,
                               xaxis="x" if k == 0 else "x2", yaxis="y" if k == 0 else "y2",
                               hovertemplate="%{y}, %{x}: rating %{z}<extra></extra>",
                               textfont=dict(size=14 if max(n_users, m) <= 10 else 10)))
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
    fig = go.Figure(data=data, layout=dict(
        xaxis=dict(domain=[0.0, 0.46], **axis), xaxis2=dict(domain=[0.54, 1.0], anchor="y2", **axis),
        yaxis=yaxis, yaxis2=dict(anchor="x2", **yaxis), shapes=shapes, annotations=titles))
    what = ("one example replaced: x and x′ differ in 1 cell" if kind == "item"
            else f"user {user + 1}'s whole block replaced: x and x′ differ in up to m = {m} cells")
    fig.update_layout(template=template, title=dict(text=f"Neighbouring datasets, {n_users} users × {m} examples — "
                                                         f"{what}", font=dict(size=14)),
                      margin=dict(t=110, b=70), height=max(300, 140 + 34 * n_users))
    caption(fig, "Source: 000, Definition 1 (user-level neighbours x ≍ x′ iff x₋ᵢ = x′₋ᵢ) and Definition 2 "
                 "(item-level = the case m = 1). Both keep n users: substitution, not add/remove.", y=-0.08)
    return fig


def group_privacy_epsilon_figure(epsilon: float, m_max: int = 1000, *, m_mark: int | None = None,
                                 template: str = TEMPLATE) -> go.Figure:
    """ε′ = m·ε of an ε-item-level mechanism seen at user level (Lemma 6 of 000), log–log against m."""
    epsilon = check_positive(epsilon, "epsilon")
    m_max = check_integer(m_max, "m_max", minimum=2, maximum=10**6)
    m = _int_log_grid(1, m_max, 200)
    eps_m, _, _ = group_privacy_cost(epsilon, 0.0, m)
    fig = go.Figure(layout=dict(template=template))
    fig.add_trace(go.Scatter(x=m, y=eps_m, mode="lines", name="ε′ = m·ε (group privacy)",
                             line=dict(color=ROLE["naive"], width=3)))
    fig.add_trace(go.Scatter(x=[1, m_max], y=[epsilon, epsilon], mode="lines", name="ε (one example)",
                             line=dict(color=ROLE["bound"], dash="dot")))
    if m_mark is not None:
        mm = check_integer(m_mark, "m_mark", minimum=1)
        fig.add_trace(go.Scatter(x=[mm], y=[mm * epsilon], mode="markers+text", name=f"m = {mm}",
                                 text=[f"  ε′ = {mm * epsilon:.3g}"], textposition="middle right",
                                 marker=dict(size=11, color=ROLE["naive"], line=dict(color="white", width=1))))
    fig.update_layout(title=f"User-level ε from item-level ε = {epsilon:g}", xaxis_title="m (examples per user)",
                      yaxis_title="user-level ε′", xaxis_type="log", yaxis_type="log",
                      legend=dict(x=0.02, y=0.98))
    caption(fig, "Source: 000, Lemma 6 (group privacy): a user-level neighbour is a chain of m item-level "
                 "neighbours (footnote 5), so ε′ = m·ε.")
    return fig


def group_privacy_delta_figure(epsilon: float, delta: float, m_max: int = 1000, *, m_mark: int | None = None,
                               template: str = TEMPLATE) -> go.Figure:
    """δ′ = δ·(e^{mε} − 1)/(e^{ε} − 1) against m (Lemma 6 of 000), with the loose m·e^{mε}·δ and the line δ′ = 1."""
    epsilon = check_positive(epsilon, "epsilon")
    delta = check_delta(delta, "delta", allow_zero=False)
    m_max = check_integer(m_max, "m_max", minimum=2, maximum=10**6)
    m = _int_log_grid(1, m_max, 200)
    _, d_m, d_loose = group_privacy_cost(epsilon, delta, m)
    top = 1e3
    fig = go.Figure(layout=dict(template=template))
    fig.add_trace(go.Scatter(x=m, y=np.minimum(d_m, top), mode="lines", name="δ′ = δ·(e^{mε}−1)/(e^{ε}−1)",
                             line=dict(color=ROLE["naive"], width=3)))
    fig.add_trace(go.Scatter(x=m, y=np.minimum(d_loose, top), mode="lines", name="looser m·e^{mε}·δ",
                             line=dict(color=ROLE["bound"], dash="dash")))
    fig.add_trace(go.Scatter(x=m, y=np.minimum(m * delta, top), mode="lines", name="m·δ (a common mistake)",
                             line=dict(color=PALETTE[2], dash="dot")))
    shapes = [_hline(1.0, "#888")]
    notes = [dict(x=1, xref="paper", y=0, yref="y", text="δ′ ≥ 1: no guarantee at all", showarrow=False,
                  xanchor="right", yanchor="bottom", font=dict(size=11, color="#555"))]
    vac = np.nonzero(d_m >= 1.0)[0]
    if vac.size:
        m_vac = int(m[vac[0]])
        # exact first m with δ′ ≥ 1 (the grid may skip integers)
        lo = int(m[vac[0] - 1]) if vac[0] > 0 else 1
        ints = np.arange(lo, m_vac + 1)
        m_vac = int(ints[np.nonzero(group_privacy_cost(epsilon, delta, ints)[1] >= 1.0)[0][0]])
        shapes.append(_vline(m_vac, ROLE["naive"]))
        notes.append(_label(m_vac, f"vacuous from m = {m_vac} ", log_x=True, color=ROLE["naive"], xanchor="right",
                            y=0.9))
    if m_mark is not None:
        mm = check_integer(m_mark, "m_mark", minimum=1)
        dm = float(group_privacy_cost(epsilon, delta, [mm])[1][0])
        fig.add_trace(go.Scatter(x=[mm], y=[min(dm, top)], mode="markers", name=f"m = {mm}: δ′ = {dm:.3g}",
                                 marker=dict(size=11, color=ROLE["naive"], line=dict(color="white", width=1))))
    fig.update_layout(title=f"User-level δ′ from item-level (ε, δ) = ({epsilon:g}, {delta:.0e})",
                      xaxis_title="m (examples per user)", yaxis_title="user-level δ′ (capped at 10³)",
                      xaxis_type="log", yaxis_type="log", legend=dict(x=0.02, y=0.98), shapes=shapes,
                      annotations=notes)
    caption(fig, "Source: 000, Lemma 6: δ′ = δ·(e^{mε}−1)/(e^{ε}−1) ≤ m·e^{mε}·δ — a geometric sum, not m·δ.")
    return fig


def _int_log_grid(lo: int, hi: int, num: int) -> np.ndarray:
    """Distinct integers, log-spaced from lo to hi inclusive."""
    g = np.unique(np.round(np.geomspace(lo, hi, num)).astype(np.int64))
    return g


# ----------------------------------------------------------------------------------- n × m bounding explorer

QUESTION = "sum of per-record values in [0, 1]"


@dataclasses.dataclass(frozen=True)
class BoundingTradeoff:
    """Error of a noisy sum with contribution bound k, for every k = 1 … cap (arrays indexed by k − 1).

    Built by :func:`bounding_curves`; a vectorised, counts-only version of
    ``dpviz.userlevel.bounding_tradeoff`` (which loops over k in Python and only does Laplace), extended with the
    Gaussian and group-privacy curves. The tests check the two agree.

    Attributes
    ----------
    k : ndarray
        1 … cap.
    counts : ndarray
        Per-user record counts c_i (sorted).
    true_answer : float
        Σ_i c_i (every record has value 1 in this synthetic dataset; the mechanism must still protect any values
        in [0, 1]).
    bias : ndarray
        Truncation bias −Σ_i (c_i − k)_+ (records beyond the first k of each user are dropped).
    noise_user, noise_item, noise_group : ndarray
        Noise standard deviation for a user-level guarantee (sensitivity k), an item-level guarantee (sensitivity 1,
        protects one record only) and an item-level mechanism lifted to user level by group privacy (run at ε/k and
        δ·(e^{ε/k}−1)/(e^{ε}−1), see :func:`bounding_curves`); ``noise_group`` equals ``noise_user`` for Laplace.
    rmse_user, rmse_item, rmse_group : ndarray
        √(bias² + noise²).
    k_user, k_item, k_group : int
        The k minimising each RMSE (smallest such k).
    """

    k: np.ndarray
    counts: np.ndarray
    true_answer: float
    bias: np.ndarray
    noise_user: np.ndarray
    noise_item: np.ndarray
    noise_group: np.ndarray
    rmse_user: np.ndarray
    rmse_item: np.ndarray
    rmse_group: np.ndarray
    k_user: int
    k_item: int
    k_group: int
    mechanism: str
    epsilon: float
    delta: float

    def dropped_fraction(self, k: int) -> float:
        """Fraction of records dropped at bound k."""
        return float(-self.bias[k - 1] / self.true_answer)

    def users_truncated(self, k: int) -> float:
        """Fraction of users with more than k records."""
        return float(np.mean(self.counts > k))


@functools.lru_cache(maxsize=32)
def _group_sigma_curve(epsilon: float, delta: float, cap: int) -> np.ndarray:
    """σ of an item-level Gaussian at (ε/k, δ_k) with δ_k = δ(e^{ε/k}−1)/(e^{ε}−1), for k = 1..cap (Lemma 6 of 000).

    Computed exactly on ≤ 60 log-spaced k and interpolated in log–log between them (smooth, monotone).
    """
    ks = _int_log_grid(1, cap, 60).astype(float)
    eps_k = epsilon / ks
    log_delta_k = math.log(delta) + _log_expm1(eps_k) - _log_expm1(np.array([epsilon]))[0]
    sig = _gaussian_sigma(eps_k, np.exp(log_delta_k))
    allk = np.arange(1, cap + 1, dtype=float)
    return np.exp(np.interp(np.log(allk), np.log(ks), np.log(sig)))


def bounding_curves(
    n_users: int = 1000,
    median: float = 5.0,
    tail: float = 1.2,
    epsilon: float = 1.0,
    *,
    mechanism: str = "laplace",
    delta: float = 1e-6,
    cap: int = 1000,
    seed: int = 0,
) -> BoundingTradeoff:
    """Truncation bias against noise against total error of a user-level noisy sum, for every bound k.

    Each user i holds c_i records (heavy-tailed, see ``tail``); every record value lies in [0, 1]. Keeping at most k
    records per user (contribution bounding) gives

    * bias(k) = −Σ_i (c_i − k)_+ (the dropped records; every value is 1 here, the worst case for bias);
    * user-level sensitivity k (one user's block of ≤ k records replaced moves the sum by ≤ k), so
      Laplace noise std √2·k/ε, or Gaussian σ = k·σ₁(ε, δ) (analytic Gaussian, Balle & Wang 2018, Thm 8);
    * item-level sensitivity 1 (one record replaced): std √2/ε or σ₁(ε, δ), independent of k — but it protects
      one record, not a user (a user with c records gets only c·ε by Lemma 6 of 000);
    * item-level mechanism lifted to user level by group privacy (Lemma 6): run at ε/k and δ·(e^{ε/k}−1)/(e^{ε}−1)
      so the user-level guarantee is (ε, δ). For Laplace this equals the user-level noise; for Gaussian it is worse.

    RMSE(k) = √(bias(k)² + noise(k)²) (exact: the bias is deterministic given the data, the noise has mean 0).

    Parameters
    ----------
    n_users : int
        Number of users n (1 … 10⁶).
    median : float
        Median records per user (continuous Pareto median), ≥ 1.
    tail : float
        Pareto tail index a in [0.5, 10]; smaller is heavier.
    epsilon : float
        Target ε > 0.
    mechanism : {"laplace", "gaussian"}
        Laplace: pure ε-DP; Gaussian: (ε, δ)-DP.
    delta : float
        δ in (0, 1) (Gaussian only).
    cap : int
        Public maximum records per user (the no-bounding sensitivity), 1 … 10⁵.
    seed : int
        Seed of the synthetic counts.

    Returns
    -------
    BoundingTradeoff

    Raises
    ------
    ValueError
        Any parameter out of its range.

    References
    ----------
    000, Definition 1 and Lemma 6; Dwork & Roth 2014 (Laplace mechanism, Thm 3.6); Balle & Wang 2018, Thm 8.
    The explorer itself is dpviz's [derived] illustration (contribution bounding is a baseline in the issue, not a
    result of 000).

    Examples
    --------
    >>> t = bounding_curves(100, 3.0, 1.5, 1.0, seed=1)
    >>> int(t.k[0]), bool(t.bias[-1] == 0), t.k_user <= t.k_item
    (1, True, True)
    """
    n_users = check_integer(n_users, "n_users", minimum=1, maximum=10**6)
    median = check_in_range(median, "median", 1.0, 1e4)
    tail = check_in_range(tail, "tail", 0.5, 10.0)
    epsilon = check_positive(epsilon, "epsilon")
    mechanism = check_choice(mechanism, "mechanism", ("laplace", "gaussian"))
    delta = check_delta(delta, "delta", allow_zero=False)
    cap = check_integer(cap, "cap", minimum=1, maximum=10**5)
    seed = check_integer(seed, "seed", minimum=0)
    return _bounding_curves(n_users, float(median), float(tail), float(epsilon), mechanism, float(delta), cap, seed)


@functools.lru_cache(maxsize=32)
def _bounding_curves(n_users: int, median: float, tail: float, epsilon: float, mechanism: str, delta: float,
                     cap: int, seed: int) -> BoundingTradeoff:
    """Cached body of :func:`bounding_curves` (validated arguments; arrays returned read-only)."""
    counts = _sample_counts(n_users, float(median), float(tail), cap, seed)
    k = np.arange(1, cap + 1)
    # Σ_i min(c_i, k) for every k from the sorted counts: Σ_{c_i ≤ k} c_i + k·#{c_i > k}
    csum = np.concatenate([[0], np.cumsum(counts)])
    j = np.searchsorted(counts, k, side="right")
    kept = csum[j] + k * (n_users - j)
    true = float(csum[-1])
    bias = kept.astype(float) - true
    if mechanism == "laplace":
        unit = math.sqrt(2.0) / epsilon
        noise_user = unit * k
        noise_item = np.full(cap, unit)
        noise_group = noise_user.copy()
    else:
        s1 = float(_gaussian_sigma(epsilon, delta)[0])
        noise_user = s1 * k
        noise_item = np.full(cap, s1)
        noise_group = _group_sigma_curve(float(epsilon), float(delta), cap)
    rm = [np.sqrt(bias**2 + nz**2) for nz in (noise_user, noise_item, noise_group)]
    opt = [int(np.argmin(r)) + 1 for r in rm]
    for arr in (k, bias, noise_user, noise_item, noise_group, *rm):
        arr.setflags(write=False)
    return BoundingTradeoff(k=k, counts=counts, true_answer=true, bias=bias, noise_user=noise_user,
                            noise_item=noise_item, noise_group=noise_group, rmse_user=rm[0], rmse_item=rm[1],
                            rmse_group=rm[2], k_user=opt[0], k_item=opt[1], k_group=opt[2], mechanism=mechanism,
                            epsilon=epsilon, delta=delta)


def bounding_error_figure(t: BoundingTradeoff, k: int, *, template: str = TEMPLATE) -> go.Figure:
    """Bias, noise and total RMSE against the contribution bound k (log–log), optimum k marked, current k drawn."""
    k = check_integer(k, "k", minimum=1, maximum=int(t.k[-1]))
    grid = _int_log_grid(1, int(t.k[-1]), 300)
    idx = grid - 1
    absb = -t.bias[idx]
    absb = np.where(absb > 0, absb, np.nan)  # log axis: a zero bias is drawn as a gap
    fig = go.Figure(layout=dict(template=template))
    fig.add_trace(go.Scatter(x=grid, y=absb, mode="lines", name="|bias| (records dropped)",
                             line=dict(color=PALETTE[1], width=2.5)))
    fig.add_trace(go.Scatter(x=grid, y=t.noise_user[idx], mode="lines", name="noise std, user-level (∝ k)",
                             line=dict(color=PALETTE[2], width=2.5, dash="dash")))
    fig.add_trace(go.Scatter(x=grid, y=t.rmse_user[idx], mode="lines", name="total RMSE, user-level",
                             line=dict(color=ROLE["private"], width=4)))
    fig.add_trace(go.Scatter(x=grid, y=t.rmse_item[idx], mode="lines",
                             name="total RMSE, item-level (protects 1 record only)",
                             line=dict(color=PALETTE[3], width=2, dash="dot")))
    if t.mechanism == "gaussian":
        fig.add_trace(go.Scatter(x=grid, y=t.rmse_group[idx], mode="lines",
                                 name="total RMSE, item-level lifted by group privacy",
                                 line=dict(color=ROLE["naive"], width=2, dash="dashdot")))
    ku = t.k_user
    fig.add_trace(go.Scatter(x=[ku], y=[t.rmse_user[ku - 1]], mode="markers+text", name=f"optimum k* = {ku}",
                             text=[f"k* = {ku}"], textposition="bottom center",
                             marker=dict(symbol="star", size=18, color=ROLE["private"],
                                         line=dict(color="white", width=1))))
    fig.add_trace(go.Scatter(x=[k], y=[t.rmse_user[k - 1]], mode="markers", name=f"your k = {k}",
                             marker=dict(symbol="circle-open", size=16, color=ROLE["bound"], line=dict(width=3))))
    ymin = max(float(np.nanmin(np.concatenate([t.noise_item[idx], t.rmse_user[idx]]))) / 3, 1e-3)
    ymax = float(np.nanmax(np.concatenate([t.rmse_user[idx], absb[np.isfinite(absb)] if np.isfinite(absb).any()
                                           else t.rmse_user[idx]]))) * 2
    mech = ("Laplace, pure ε = %g" % t.epsilon if t.mechanism == "laplace"
            else "Gaussian, (ε, δ) = (%g, %.0e)" % (t.epsilon, t.delta))
    fig.update_layout(title=f"Noisy sum with contribution bound k — {mech}", xaxis_title="contribution bound k "
                      "(records kept per user)", yaxis_title="error (same units as the answer)", xaxis_type="log",
                      yaxis_type="log", yaxis_range=[math.log10(ymin), math.log10(ymax)],
                      legend=dict(x=0.01, y=0.01, xanchor="left", yanchor="bottom", font=dict(size=11)),
                      height=460, shapes=[_vline(k)])
    src = ("Laplace std √2·Δ/ε (Dwork & Roth 2014, Thm 3.6)" if t.mechanism == "laplace"
           else "analytic Gaussian σ (Balle & Wang 2018, Thm 8)")
    caption(fig, f"Sensitivity: k at user level (000, Def. 1), 1 at item level; {src}; group privacy: 000, Lemma 6."
                 "<br>RMSE = √(bias² + noise²), exact for this synthetic dataset (every value 1, counts seeded).", below=75)
    return fig


def contribution_histogram_figure(t: BoundingTradeoff, k: int, *, template: str = TEMPLATE) -> go.Figure:
    """Histogram of per-user record counts (log-binned) with the bound k; dropped share of records and users."""
    k = check_integer(k, "k", minimum=1, maximum=int(t.k[-1]))
    c = t.counts
    cmax = int(c[-1])
    edges = np.unique(np.round(np.geomspace(1, max(cmax, 2) + 1, 40)).astype(np.int64)).astype(float)
    h_keep, _ = np.histogram(c[c <= k], bins=edges)
    h_cut, _ = np.histogram(c[c > k], bins=edges)
    # step outlines (line_shape "hv") draw histograms correctly on a log x axis
    xs = edges
    fig = go.Figure(layout=dict(template=template))
    for h, name, col in ((h_keep, f"users with c ≤ k (untouched)", ROLE["private"]),
                         (h_cut, f"users with c > k (truncated to k)", PALETTE[1])):
        fig.add_trace(go.Scatter(x=xs, y=np.append(h, h[-1]), mode="lines", line_shape="hv", fill="tozeroy",
                                 name=name, line=dict(color=col, width=1.5)))
    fig.update_layout(title=f"Records per user (n = {c.size}): {t.dropped_fraction(k):.1%} of records dropped, "
                            f"{t.users_truncated(k):.1%} of users truncated", xaxis_title="records per user c_i",
                      yaxis_title="number of users", xaxis_type="log",
                      legend=dict(x=0.98, y=0.98, xanchor="right", font=dict(size=11)),
                      shapes=[_vline(k, ROLE["bound"], width=2)],
                      annotations=[_label(k, f" k = {k}", log_x=True, y=0.75)])
    approx_note(fig, "synthetic heavy-tailed counts (discretised Pareto, fixed seed)")
    caption(fig, "Orange bins: users who lose records when at most k are kept. The bound k must be fixed "
                 "before looking at the data.", below=75)
    return fig


# =============================================================================================== lesson 04
# ----------------------------------------------------------------------------------- users needed against m

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
    """Users needed n against examples per user m (log–log) for one row of Table 1 or 2 of 000.

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
    000: Tables 1–2 (Appendix A), Theorems 4, 10, 40, 43–46, Observation 28, Lemma 6; breakpoints per the digest
    §7.1 ([derived]).
    """
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
        go.Scatter(x=np.concatenate([m, m[::-1]]), y=np.concatenate([r["lower"], np.full(m.size, 1e-3)]),
                   fill="toself", fillcolor="rgba(120,120,120,0.12)", line=dict(width=0), hoverinfo="skip",
                   name="impossible: n < ⌈n₁/m⌉ (Obs. 28)"),
        go.Scatter(x=[1, m_max], y=[n1, n1], mode="lines", name="item-level n₁ (one example per user)",
                   line=dict(color=ROLE["bound"], width=1.5)),
    ]
    for key in ("floor", "privacy", "statistical"):
        if key in r and np.any(np.asarray(r[key]) > 0):
            label, col, dash = _TERM_STYLE[key]
            data.append(go.Scatter(x=m, y=np.where(np.asarray(r[key]) > 0, r[key], np.nan), mode="lines",
                                   name=label, line=dict(color=col, dash=dash, width=1.8)))
    data.append(go.Scatter(x=m, y=r["total"], mode="lines", name="sum of terms (raw)",
                           line=dict(color=ROLE["private"], width=1.5), opacity=0.6))
    data.append(go.Scatter(x=m, y=r["users"], mode="lines", name=f"user-level, this paper ({row.source})",
                           line=dict(color=ROLE["private"], width=4)))
    data.append(go.Scatter(x=m, y=naive, mode="lines", name="naive group privacy n₁(ε/m)/m",
                           line=dict(color=ROLE["naive"], width=2.5, dash="longdash")))
    if np.any(np.isfinite(prior)):
        data.append(go.Scatter(x=m, y=np.where(np.isfinite(prior), prior, np.nan), mode="lines",
                               name="previous user-level result", line=dict(color=PALETTE[3], width=2, dash="dot")))
    shapes, notes = [], []
    marks = [(xv, f"{a} → {b} term") for xv, a, b in regime_breakpoints(row, epsilon, alpha, dim, m_max=m_max)]
    if row.table == 1 and len(marks) == 2 and row.key != "pac":
        m1, m2 = _breakpoints(epsilon, alpha)  # coincide with the three-term law's closed forms
        marks = [(m1, "m₁ = ε²/α²"), (m2, "m₂ = 1/α²")]
    for xv, txt in marks:
        if 1.0 <= xv <= m_max:
            shapes.append(_vline(xv, "#666"))
            notes.append(_label(xv, " " + txt, log_x=True, y=0.99))
    if m_mark is not None:
        mk = check_in_range(m_mark, "m_mark", 1.0, m_max)
        val = float(row.user_level(mk, epsilon, alpha, dim, constant=constant))
        data.append(go.Scatter(x=[mk], y=[val], mode="markers", name=f"m = {mk:g}: n ≈ {val:,.0f}",
                               marker=dict(size=12, color=ROLE["private"], line=dict(color="white", width=1))))
    ymax = max(n1, float(np.nanmax(r["total"]))) * 3
    ymin = max(min(float(np.nanmin(r["users"])), float(np.nanmin(naive))) / 10, 1e-3)
    kind = "pure ε-DP" if row.table == 1 else "approximate (ε, δ)-DP"
    fig = go.Figure(data=data, layout=dict(
        template=template, title=dict(text=f"Table {row.table}: {row.problem} ({kind}) — {row.ours_formula}",
                                      font=dict(size=14)),
        xaxis=dict(type="log", title=dict(text="m (examples per user)")),
        yaxis=dict(type="log", title=dict(text="n (users needed)"), range=[math.log10(ymin), math.log10(ymax)]),
        legend=dict(x=1.02, y=1, xanchor="left", font=dict(size=11)), shapes=shapes, annotations=notes,
        height=470, margin=dict(r=250)))
    approx_note(fig, HIDDEN)
    caption(fig, f"Source: 000, Table {row.table} (Appendix A), {row.source}; item-level {row.item_formula}; "
                 "clamp ⌈n₁/m⌉ ≤ n_m ≤ n₁: Observation 28;<br>naive line: group privacy (Lemma 6); breakpoints "
                 "m₁ = ε²/α², m₂ = 1/α² are dpviz's [derived] reading of the three-term law.", below=75)
    return fig


def regime_breakpoints(row: Any, epsilon: float, alpha: float, dim: float, *, m_max: float = 1e9
                       ) -> list[tuple[float, str, str]]:
    """Where the dominant term of a Table 1/2 bound changes, as (m, from-term, to-term), m in [1, m_max].

    Found on a log grid and refined by Brent's method on term_a(m) = term_b(m) (exact for the drawn formulas; the
    constant cancels). For Table 1's three-term law these are m₁ = ε²/α² and m₂ = 1/α² (``breakpoints`` of
    :mod:`dpviz.userlevel`); for Theorem 4 the single m = 1/α. [derived] (digest §7.1).

    >>> from dpviz.userlevel import TABLE1_ROWS
    >>> [round(b[0], 6) for b in regime_breakpoints(TABLE1_ROWS[1], 0.5, 0.1, 10.0)]
    [25.0, 100.0]
    """
    from scipy import optimize

    m = np.geomspace(1.0, m_max, 400)
    terms = row.user_level_terms(m, epsilon, alpha, dim)
    names = [k for k in ("floor", "privacy", "statistical") if k in terms]
    stack = np.vstack([np.asarray(terms[k], dtype=float) for k in names])
    dom = np.argmax(stack, axis=0)
    out = []
    for i in np.nonzero(np.diff(dom))[0]:
        a, b = names[dom[i]], names[dom[i + 1]]

        def f(logm: float, a=a, b=b) -> float:
            t = row.user_level_terms(math.exp(logm), epsilon, alpha, dim)
            return math.log(t[a]) - math.log(t[b])

        root = optimize.brentq(f, math.log(m[i]), math.log(m[i + 1]), xtol=1e-13)
        out.append((math.exp(root), a, b))
    return out


def _breakpoints(epsilon: float, alpha: float) -> tuple[float, float]:
    from dpviz.userlevel import breakpoints

    return breakpoints(epsilon, alpha)


def _scatter(**kw) -> dict:
    """A scatter trace as a plain dict: ``go.Figure`` validates it once (a ``go.Scatter`` would be validated twice)."""
    return dict(type="scatter", **kw)


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
    """Users needed against m for the generic transformation (Corollary 3, Theorems 10 and 11 of 000) and naive
    group privacy, with the item-level n₁ = ln(1/δ)^c·n_priv/ε + n_stat and the crossover m marked.

    Corollary 3's three terms are drawn separately. All curves are clamped to Observation 28 except the naive line.
    """
    from dpviz.userlevel import (corollary3_users, group_privacy_users, item_level_users, theorem10_users,
                                 theorem11_users)

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
        _scatter(x=m, y=t10, mode="lines", name="Theorem 10 (ε′ = ε²/(L√(m ln(m/δ))))",
                   line=dict(color=PALETTE[4], width=2)),
        _scatter(x=m, y=t11, mode="lines", name="Theorem 11 (same ε)", line=dict(color=PALETTE[3], width=2,
                                                                                    dash="dot")),
        _scatter(x=m, y=naive, mode="lines", name="naive group privacy", line=dict(color=ROLE["naive"], width=2.5,
                                                                                      dash="longdash")),
    ]
    shapes, notes = [], []
    mx = _users_crossover(m, epsilon, delta, n_priv, n_stat, c)
    if math.isfinite(mx) and mx > 1:
        shapes.append(_vline(mx, ROLE["naive"]))
        notes.append(_label(mx, f" Thm 10 beats group privacy for m > {mx:,.0f}", log_x=True, y=0.99,
                            color=ROLE["naive"]))
    fig = go.Figure(data=data, layout=dict(
        template=template, title=dict(text=f"Generic item→user transformation, (ε, δ) = ({epsilon:g}, {delta:.0e})",
                                      font=dict(size=14)),
        xaxis=dict(type="log", title=dict(text="m (examples per user)")),
        yaxis=dict(type="log", title=dict(text="n (users needed)"),
                   range=[math.log10(max(float(np.min(cor["users"])) / 10, 1e-3)),
                          math.log10(max(n1, float(np.max(naive)), float(np.max(cor["total"]))) * 3)]),
        legend=dict(x=1.02, y=1, xanchor="left", font=dict(size=11)), shapes=shapes, annotations=notes,
        height=470, margin=dict(r=250)))
    approx_note(fig, HIDDEN)
    caption(fig, "Source: 000, Corollary 3 (exponent c + 3/2, denominator ε²), Theorems 10 and 11, Observation 28, "
                 "Lemma 6;<br>item-level model n₁ = ln(1/δ)^c·n_priv/ε + n_stat (Corollary 3's assumption).")
    return fig


def _users_crossover(m: np.ndarray, epsilon: float, delta: float, n_priv: float, n_stat: float, c: float) -> float:
    """First m on the grid's range where Theorem 10's (unclamped) users fall below naive group privacy's, refined by
    Brent's method — the same quantity as ``crossover_group_privacy(kind="users")`` of :mod:`dpviz.userlevel`
    (tested equal), but using the already vectorised curves so a slider move stays fast. ``inf`` if none."""
    from scipy import optimize

    from dpviz.userlevel import group_privacy_users, theorem10_users

    kw = dict(n_priv=n_priv, n_stat=n_stat, c=c, clamp=False)
    g = theorem10_users(m, epsilon, delta, **kw) - group_privacy_users(m, epsilon, delta, **kw)
    if g[0] < 0:
        return 1.0
    idx = np.nonzero(g < 0)[0]
    if idx.size == 0:
        return math.inf
    i = int(idx[0])

    def f(logm: float) -> float:
        mm = math.exp(logm)
        return theorem10_users(mm, epsilon, delta, **kw) - group_privacy_users(mm, epsilon, delta, **kw)

    return float(math.exp(optimize.brentq(f, math.log(m[i - 1]), math.log(m[i]), xtol=1e-12)))


def item_budget_figure(epsilon: float, delta: float, *, m_max: float = 1e8, template: str = TEMPLATE) -> go.Figure:
    """The item-level ε each approach must run at, against m: Theorem 10's ε′ = ε²/(ln(1/δ)√(m ln(m/δ))) (slope
    −1/2), group privacy's ε/m (slope −1), and the Conclusion's conjectured ε/√(m ln(1/δ)); crossover marked."""
    from dpviz.userlevel import conjectured_item_epsilon, crossover_group_privacy, theorem10_item_epsilon

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
        shapes.append(_vline(mx, "#666"))
        notes.append(_label(mx, f" crossover m ≈ {mx:,.0f}", log_x=True, y=0.99))
    fig = go.Figure(data=data, layout=dict(
        template=template, title=dict(text="Item-level ε the inner algorithm must run at", font=dict(size=14)),
        xaxis=dict(type="log", title=dict(text="m (examples per user)")),
        yaxis=dict(type="log", title=dict(text="item-level ε′ (larger = cheaper)")),
        legend=dict(x=0.01, y=0.01, yanchor="bottom", font=dict(size=11)), shapes=shapes, annotations=notes))
    approx_note(fig, "Θ-constants ignored in the crossover")
    caption(fig, "Source: 000, Theorem 10 (ε′, exact form; natural logs) and Conclusion (conjecture); Lemma 6 "
                 "(ε/m). Crossover: root of ε²/(L√(m ln(m/δ))) = ε/m, L = ln(1/δ) (dpviz's [derived] computation).")
    return fig


# ----------------------------------------------------------------------------------- the price of PTR


def tdlap_figure(epsilon: float, delta: float, *, convention: str = "proof", template: str = TEMPLATE) -> go.Figure:
    """The TDLap(ε̄, δ̄) pmf on {0, …, 2κ} that Algorithm 1 of 000 draws R₁ from, end masses highlighted (≤ δ̄).

    ε̄ = ε/3, δ̄ = δ/(e^{2ε̄} + e^{ε̄} + 2) (``convention="proof"``, dpviz's pinned value; ``"printed"`` uses e^{ε}),
    κ = 1 + ⌈ln(1/δ̄)/ε̄⌉ (Definition 8). Exact.
    """
    from dpviz.userlevel import delstab_parameters, tdlap_pmf

    par = delstab_parameters(epsilon, delta, convention=convention)
    pmf = tdlap_pmf(par.epsilon_bar, par.delta_bar)
    r = np.arange(pmf.size)
    ends = np.array([0, pmf.size - 1])
    fig = go.Figure(data=[go.Bar(x=r[1:-1], y=pmf[1:-1], marker_color=ROLE["private"], name="P(R₁ = r)",
                                 hovertemplate="r = %{x}: %{y:.3g}<extra></extra>"),
                          go.Bar(x=ends, y=pmf[ends], marker_color=ROLE["naive"], name="end masses (≤ δ̄)",
                                 hovertemplate="r = %{x}: %{y:.3g}<extra></extra>")],
                    layout=dict(template=template,
                                title=dict(text=f"R₁ ~ TDLap(ε̄ = {par.epsilon_bar:.3g}, δ̄ = {par.delta_bar:.3g}): "
                                                f"κ = {par.kappa}, support 0…2κ = {2 * par.kappa}",
                                           font=dict(size=14)),
                                xaxis=dict(title=dict(text="R₁ (users the test may delete before checking)")),
                                yaxis=dict(title=dict(text="probability")), bargap=0.1, showlegend=False))
    fig.add_annotation(x=0, y=float(pmf[0]), text=f"end mass {pmf[0]:.2g} ≤ δ̄", showarrow=True, ax=40, ay=-40,
                       font=dict(size=11, color=ROLE["naive"]))
    third, which = ("e^{ε̄}", "the proof's, pinned") if convention == "proof" else ("e^{ε}", "as printed")
    caption(fig, "Source: 000, Definition 8 (TDLap, κ = 1 + ⌈ln(1/δ̄)/ε̄⌉) and Algorithm 1 line 1 "
                 f"(ε̄ = ε/3, δ̄ = δ/(e^{{2ε̄}}+{third}+2), {which}).")
    return fig


@functools.lru_cache(maxsize=4)
def _discard_curves(convention: str) -> tuple[np.ndarray, tuple]:
    from dpviz.userlevel import delstab_parameters

    eps_grid = np.geomspace(0.05, 10, 120)
    curves = tuple((d, np.array([delstab_parameters(float(e), d, convention=convention).discarded for e in eps_grid]))
                   for d in (1e-2, 1e-4, 1e-6, 1e-9, 1e-12))
    return eps_grid, curves


def ptr_discard_figure(epsilon: float, delta: float, *, convention: str = "proof",
                       template: str = TEMPLATE) -> go.Figure:
    """4κ(ε, δ) — the users Algorithm 1 of 000 always deletes (and the minimum n) — against ε for several δ."""
    from dpviz.userlevel import delstab_parameters

    eps_grid, curves = _discard_curves(convention)
    data = []
    for i, (d, four) in enumerate(curves):
        data.append(go.Scatter(x=eps_grid, y=four, mode="lines", line_shape="hv", name=f"δ = {d:.0e}",
                               line=dict(color=PALETTE[[4, 2, 0, 3, 5][i]], width=2)))
    par = delstab_parameters(epsilon, delta, convention=convention)
    data.append(go.Scatter(x=[epsilon], y=[par.discarded], mode="markers+text", text=[f"  4κ = {par.discarded}"],
                           textposition="middle right", name=f"(ε, δ) = ({epsilon:g}, {delta:.0e})",
                           marker=dict(size=13, color=ROLE["bound"], symbol="diamond")))
    fig = go.Figure(data=data, layout=dict(
        template=template, title=dict(text="Users thrown away by propose–test–release: 4κ", font=dict(size=14)),
        xaxis=dict(type="log", title=dict(text="user-level ε")),
        yaxis=dict(type="log", title=dict(text="4κ (users deleted; n must be ≥ 4κ)")),
        legend=dict(x=0.98, y=0.98, xanchor="right", font=dict(size=11))))
    caption(fig, "Source: 000, Algorithm 1 (A runs on n − 4κ users) and Definition 8; κ ≈ 3·ln(1/δ)/ε, the "
                 "log(1/δ)/ε floor of Theorem 10.")
    return fig


# ----------------------------------------------------------------------------------- DelStab on the toy


def delstab_output_figure(outputs: list, pmf_x: np.ndarray, pmf_x2: np.ndarray, *, epsilon: float, delta: float,
                          template: str = TEMPLATE) -> go.Figure:
    """DelStab's exact output pmfs on two user-level neighbours x, x′ (⊥ = "test failed" as the last bar), with the
    two hockey-stick divergences d_ε(P‖P′), d_ε(P′‖P) against δ (Lemma 18 of 000)."""
    from dpviz.userlevel import hockey_stick

    pmf_x = np.asarray(pmf_x, dtype=float)
    pmf_x2 = np.asarray(pmf_x2, dtype=float)
    labels = [str(o) for o in outputs]
    h1, h2 = hockey_stick(pmf_x, pmf_x2, epsilon), hockey_stick(pmf_x2, pmf_x, epsilon)
    ok = h1 <= delta and h2 <= delta
    fig = go.Figure(data=[
        go.Bar(x=labels, y=pmf_x, name="P = DelStab(x)", marker_color=ROLE["x"]),
        go.Bar(x=labels, y=pmf_x2, name="P′ = DelStab(x′)", marker_color=ROLE["x_prime"]),
        go.Scatter(x=labels, y=np.exp(epsilon) * pmf_x2, mode="lines", line_shape="hvh", name="e^ε·P′",
                   line=dict(color=ROLE["bound"], dash="dot", width=1.5)),
    ], layout=dict(
        template=template, barmode="group", bargap=0.15,
        title=dict(text=f"Exact output distributions — d_ε(P‖P′) = {h1:.2e}, d_ε(P′‖P) = {h2:.2e} "
                        f"{'≤' if ok else '>'} δ = {delta:g} {'✓' if ok else '✗'}", font=dict(size=14)),
        xaxis=dict(title=dict(text="output (noisy count, or ⊥ = no stable set)"), type="category"),
        yaxis=dict(title=dict(text="probability"), range=[0, 1.15 * float(max(pmf_x.max(), pmf_x2.max()))]),
        legend=dict(x=0.98, y=0.98, xanchor="right")))
    caption(fig, "Source: 000, Algorithm 1 (DelStab) and Lemma 18 ((ε, δ)-user-level DP for every inner A, given an "
                 "exact stability test); hockey-stick d_ε(P‖Q) = Σ[P − e^ε Q]₊ (Preliminaries). All pmfs exact.")
    return fig


def delstab_test_figure(tdlap: np.ndarray, stable_x: np.ndarray, stable_x2: np.ndarray, *,
                        template: str = TEMPLATE) -> go.Figure:
    """For each draw r of R₁: its TDLap probability and whether the stability test finds a stable set (X_stable ≠ ∅)
    on x and on x′. Failing r contribute to Pr[⊥]."""
    tdlap = np.asarray(tdlap, dtype=float)
    r = np.arange(tdlap.size)
    sx, sx2 = np.asarray(stable_x, dtype=bool), np.asarray(stable_x2, dtype=bool)
    fig = go.Figure(data=[
        go.Bar(x=r, y=np.where(sx, tdlap, 0), name="x: stable set found", marker_color=ROLE["x"], offsetgroup=0),
        go.Bar(x=r, y=np.where(sx, 0, tdlap), name="x: test fails → ⊥", marker_color="#bbbbbb", offsetgroup=0),
        go.Bar(x=r, y=np.where(sx2, tdlap, 0), name="x′: stable set found", marker_color=ROLE["x_prime"],
               offsetgroup=1),
        go.Bar(x=r, y=np.where(sx2, 0, tdlap), name="x′: test fails → ⊥", marker_color="#dddddd", offsetgroup=1,
               marker_line=dict(color=ROLE["x_prime"], width=1)),
    ], layout=dict(
        template=template, barmode="stack",
        title=dict(text=f"The stability test for every R₁: Pr[⊥ | x] = {float(tdlap[~sx].sum()):.3g}, "
                        f"Pr[⊥ | x′] = {float(tdlap[~sx2].sum()):.3g}", font=dict(size=14)),
        xaxis=dict(title=dict(text="R₁ = r (users deleted before testing (4κ − r)-LDDP)")),
        yaxis=dict(title=dict(text="P(R₁ = r)")), legend=dict(x=0.98, y=0.98, xanchor="right", font=dict(size=11))))
    caption(fig, "Source: 000, Algorithm 1 lines 2–4 and Definition 16 (LDDP): r is stable iff some set S of r users "
                 "leaves A (4κ − r, ε̄, δ̄)-LDDP at x₋S. Exact.")
    return fig


# ----------------------------------------------------------------------------------- why √m


@functools.lru_cache(maxsize=256)
def _swap_loss_pmf(m: int, p: float) -> np.ndarray:
    """Exact pmf of |S − S′| on {0, …, m} for independent S, S′ ~ Bin(m, p) (two users' sums of m bits).

    The same law as ``dpviz.userlevel.swap_difference_pmf`` (tested equal), computed here by FFT on 2m + 1 points for
    speed at every m (the pmf of S − S′ is the autocorrelation of the binomial pmf); rounding noise (≤ 1e-15) is
    clipped at 0 and the result renormalised. Read-only, cached.
    """
    b = binomial_pmf(m, p)
    size = 2 * m + 1  # lags −m..m fit exactly: no wrap-around
    f = np.fft.rfft(b, size)
    d = np.fft.irfft(f * np.conj(f), size)  # index j ↔ S − S′ = j (mod size)
    d = np.clip(d, 0.0, None)
    d /= d.sum()
    out = d[: m + 1].copy()
    out[1:] += d[m + 1:][::-1]
    out.setflags(write=False)
    return out


def _quantile(pmf: np.ndarray, q: float) -> int:
    return int(np.searchsorted(np.cumsum(pmf), q - 1e-12))


def swap_loss_figure(m: int, p: float, epsilon0: float, *, template: str = TEMPLATE) -> go.Figure:
    """Histogram of the privacy loss ε₀·|S − S′| of swapping two random users' blocks (m bits each, Bernoulli(p))
    under an ε₀-item-level noisy count, against the worst case ε₀·m and the scale ε₀·√m (exact pmf).

    For a count with two-sided geometric noise P(o) ∝ e^{−ε₀|o−s|}, the largest privacy loss between sums s and s′
    is ε₀|s − s′|; it is ε₀·m only in the worst case, and typically ≈ ε₀·√(2mp(1−p))·√(2/π) — the reason the
    transformation of 000 pays √m, not m (Theorems 13 and 17; illustration [derived], digest §7.5).
    """
    m = check_integer(m, "m", minimum=1, maximum=10**6)
    p = check_in_range(p, "p", 0.0, 1.0, low_inclusive=False, high_inclusive=False)
    epsilon0 = check_positive(epsilon0, "epsilon0")
    pmf = _swap_loss_pmf(m, float(p))
    keep = np.nonzero(pmf > 1e-12)[0]
    hi = int(keep[-1]) if keep.size else m
    x = epsilon0 * np.arange(hi + 1)
    q99 = _quantile(pmf, 0.99)
    mean = float(np.dot(np.arange(m + 1), pmf))
    data = [go.Bar(x=x, y=pmf[: hi + 1], name="P(loss = ε₀·|S − S′|)", marker_color=ROLE["private"],
                   hovertemplate="loss %{x:.3g}: %{y:.3g}<extra></extra>")]
    shapes = [_vline(epsilon0 * math.sqrt(m), PALETTE[2], "dash", 2), _vline(epsilon0 * q99, PALETTE[3], "dot", 2)]
    notes = [_label(epsilon0 * math.sqrt(m), " ε₀·√m", color=PALETTE[2], y=0.95),
             _label(epsilon0 * q99, " 99% quantile", color=PALETTE[3], y=0.85)]
    x_right = epsilon0 * hi * 1.15 + epsilon0
    if epsilon0 * m <= x_right * 3:
        shapes.append(_vline(epsilon0 * m, ROLE["naive"], "solid", 2.5))
        notes.append(_label(epsilon0 * m, " worst case ε₀·m", color=ROLE["naive"], y=0.75))
        x_right = max(x_right, epsilon0 * m * 1.12)
    else:
        notes.append(dict(x=1, xref="paper", y=0.75, yref="paper", xanchor="right", showarrow=False,
                          text=f"worst case ε₀·m = {epsilon0 * m:.3g} →  (off the chart)",
                          font=dict(size=11, color=ROLE["naive"])))
    fig = go.Figure(data=data, layout=dict(
        template=template, bargap=0.05,
        title=dict(text=f"Privacy loss of swapping two users (m = {m}, p = {p:g}): mean {epsilon0 * mean:.3g}, "
                        f"99% ≤ {epsilon0 * q99:.3g}, worst {epsilon0 * m:.3g}", font=dict(size=14)),
        xaxis=dict(title=dict(text="privacy loss ε₀·|S − S′| (nats)"), range=[-epsilon0, x_right]),
        yaxis=dict(title=dict(text="probability")), shapes=shapes, annotations=notes, showlegend=False))
    caption(fig, "Exact: S, S′ ~ Bin(m, p) independent, loss = max over outputs of ln p(o|S)/p(o|S′) for the ε₀-DP "
                 "geometric count.<br>Source: idea of 000, Theorems 13/17 (sample perfect generalisation); "
                 "this simulator is dpviz's [derived] illustration.")
    return fig


def swap_loss_scaling_figure(p: float, epsilon0: float, *, m_mark: int | None = None,
                             template: str = TEMPLATE) -> go.Figure:
    """Typical (median, 99%, 99.99%) and worst-case privacy loss of swapping two users against m (log–log, exact)."""
    p = check_in_range(p, "p", 0.0, 1.0, low_inclusive=False, high_inclusive=False)
    epsilon0 = check_positive(epsilon0, "epsilon0")
    ms = _int_log_grid(1, 10_000, 20)
    qs = {0.5: [], 0.99: [], 0.9999: []}
    for mm in ms:
        pmf = _swap_loss_pmf(int(mm), float(p))
        for q in qs:
            qs[q].append(_quantile(pmf, q))
    data = [go.Scatter(x=ms, y=epsilon0 * ms, mode="lines", name="worst case ε₀·m (slope 1)",
                       line=dict(color=ROLE["naive"], width=3))]
    for (q, vals), col, dash in zip(qs.items(), [PALETTE[0], PALETTE[3], PALETTE[4]], ["solid", "dash", "dot"]):
        y = epsilon0 * np.asarray(vals, dtype=float)
        data.append(go.Scatter(x=ms, y=np.where(y > 0, y, np.nan), mode="lines+markers",
                               name=f"{q:.2%} quantile".replace(".00%", "%"), line=dict(color=col, dash=dash),
                               marker=dict(size=4)))
    data.append(go.Scatter(x=ms, y=epsilon0 * np.sqrt(ms), mode="lines", name="ε₀·√m (slope ½)",
                           line=dict(color=PALETTE[2], dash="longdash")))
    shapes = [_vline(m_mark, "#777")] if m_mark else []
    fig = go.Figure(data=data, layout=dict(
        template=template, title=dict(text="Typical loss grows like √m, the worst case like m", font=dict(size=14)),
        xaxis=dict(type="log", title=dict(text="m (examples per user)")),
        yaxis=dict(type="log", title=dict(text="privacy loss (nats)")), shapes=shapes,
        legend=dict(x=0.01, y=0.99, font=dict(size=11))))
    caption(fig, "Exact quantiles of ε₀·|S − S′|, S, S′ ~ Bin(m, p). Source: 000, Theorems 13 and 17 "
                 "(ε = O(ε₀·√(m·log(1/β)))); [derived] illustration.")
    return fig


# ----------------------------------------------------------------------------------- clipping threshold τ


@functools.lru_cache(maxsize=128)
def _pairwise_sum_pmf(m: int, plus: float, minus: float) -> np.ndarray:
    """Exact pmf of u = Σ_{j≤m} ψ_j on {−m, …, m}, ψ_j i.i.d. with P(+1) = plus, P(−1) = minus, P(0) = rest.

    The same law as ``dpviz.userlevel.pairwise_sum_pmf`` (trinomial closed form, O(m²); tested equal), computed here
    as the m-fold convolution of the one-example law by FFT on 2m + 1 points (no wrap-around: the support has exactly
    2m + 1 points), fast enough for a slider up to m ≈ 3000.
    """
    size = 2 * m + 1
    step = np.zeros(size)
    step[0] = 1.0 - plus - minus
    step[1] = plus
    step[-1] = minus  # −1 wraps to the last index
    f = np.fft.rfft(step) ** m
    pmf = np.fft.irfft(f, n=size)
    pmf = np.roll(pmf, m)  # index i ↔ u = i − m
    pmf = np.clip(pmf, 0.0, None)
    pmf /= pmf.sum()
    pmf.setflags(write=False)
    return pmf


@dataclasses.dataclass(frozen=True)
class ClippingTradeoff:
    """Clipping bias against EM noise for ALG-9 (Appendix E.1 of 000), for a grid of τ.

    ``bias[τ] = n·|E[clip(u, −τ, τ)] − E[u]|`` (score units, exact), ``em_error[τ] = (2Δ/ε)·ln(|ℋ|/β)`` with Δ = 2τ
    (standard EM bound, digest §2), ``signal = 0.2·α·n·m`` (the gap between the proof's events E2 and E3).
    """

    tau: np.ndarray
    bias: np.ndarray
    em_error: np.ndarray
    signal: float
    tau_paper: float
    tau_best: float
    pmf: np.ndarray
    m: int


def clipping_tradeoff(m: int, alpha: float, disagree: float, epsilon: float, n_users: int, n_hyp: int,
                      *, beta: float = 0.1) -> ClippingTradeoff:
    """Per-user pairwise sums u_i = Σ_j ψ(x_{i,j}) for a pair (H, H′) whose comparison ψ ∈ {−1, 0, 1} has mean α
    (H worse by α) and P(ψ ≠ 0) = ``disagree``: the exact law of u, and for every τ the clipping bias and the EM error.

    Paper's choice τ = αm + √(m·ln(1/α)) (Theorem 37 proof, constant C = 1). EM error uses
    ``ClippedPairwiseEM(ε, τ).sensitivity`` = 2τ.
    """
    from dpviz.userlevel import ClippedPairwiseEM

    m = check_integer(m, "m", minimum=1, maximum=20_000)
    alpha = check_in_range(alpha, "alpha", 0.0, 0.5, low_inclusive=False)
    disagree = check_in_range(disagree, "disagree", 0.0, 1.0, low_inclusive=False)
    if alpha > disagree:
        raise ValueError(f"alpha = {alpha:g} is not allowed with disagree = {disagree:g}: the mean of ψ ∈ {{−1,0,1}} "
                         "cannot exceed the rate at which H and H′ disagree (choose alpha ≤ disagree).")
    epsilon = check_positive(epsilon, "epsilon")
    n_users = check_integer(n_users, "n_users", minimum=1)
    n_hyp = check_integer(n_hyp, "n_hyp", minimum=2)
    pmf = _pairwise_sum_pmf(m, (disagree + alpha) / 2, (disagree - alpha) / 2)
    u = np.arange(-m, m + 1, dtype=float)
    mean_u = float(np.dot(u, pmf))
    taus = np.geomspace(0.5, max(m, 1) * 1.0, 160)
    clipped_means = np.array([np.dot(np.clip(u, -t, t), pmf) for t in taus])
    bias = n_users * np.abs(clipped_means - mean_u)
    delta_sens = np.array([ClippedPairwiseEM(epsilon, float(t)).sensitivity for t in taus])
    em = 2 * delta_sens / epsilon * math.log(n_hyp / beta)
    tau_paper = alpha * m + math.sqrt(m * math.log(1 / alpha))
    best = float(taus[int(np.argmin(bias + em))])
    return ClippingTradeoff(tau=taus, bias=bias, em_error=em, signal=0.2 * alpha * n_users * m,
                            tau_paper=tau_paper, tau_best=best, pmf=pmf, m=m)


def clipping_histogram_figure(t: ClippingTradeoff, tau: float, *, template: str = TEMPLATE) -> go.Figure:
    """The exact law of one user's pairwise sum u with the clip band [−τ, τ]; clipped mass reported."""
    tau = check_positive(tau, "tau")
    m = t.m
    u = np.arange(-m, m + 1)
    keep = np.nonzero(t.pmf > 1e-9)[0]
    lo, hi = int(u[keep[0]]), int(u[keep[-1]])
    sel = slice(keep[0], keep[-1] + 1)
    inside = np.abs(u[sel]) <= tau
    clipped = float(t.pmf[np.abs(u) > tau].sum())
    us, ps = u[sel], t.pmf[sel]
    data = [go.Bar(x=us[inside], y=ps[inside], marker_color=ROLE["private"], name="kept as is",
                   hovertemplate="u = %{x}: %{y:.3g}<extra></extra>"),
            go.Bar(x=us[~inside], y=ps[~inside], marker_color=PALETTE[1], name="clipped to ±τ",
                   hovertemplate="u = %{x}: %{y:.3g} (clipped)<extra></extra>")]
    x0, x1 = max(-tau, lo - 1), min(tau, hi + 1)
    shapes = [dict(type="rect", xref="x", yref="paper", x0=x0, x1=x1, y0=0, y1=1, fillcolor=ROLE["region"],
                   line=dict(width=0), layer="below")]
    if -tau >= lo - 1:
        shapes.append(_vline(-tau, ROLE["bound"], "dash"))
    if tau <= hi + 1:
        shapes.append(_vline(tau, ROLE["bound"], "dash"))
    fig = go.Figure(data=data, layout=dict(
        template=template, bargap=0.05, barmode="overlay", shapes=shapes,
        legend=dict(x=0.98, y=0.98, xanchor="right"),
        title=dict(text=f"One user's summed score u (m = {m}): {clipped:.2%} of users get clipped at τ = {tau:.3g}",
                   font=dict(size=14)),
        xaxis=dict(title=dict(text="u_i = Σ_j ψ(x_ij)  (ψ = 1[H wrong] − 1[H′ wrong])")),
        yaxis=dict(title=dict(text="probability"))))
    caption(fig, "Source: 000, Appendix E.1, ALG-9 (ClippedPairwiseEM): each user's summed score is clipped to "
                 "[−τ, τ] (shaded), sensitivity 2τ; exact law of u (trinomial convolution).")
    return fig


def clipping_tradeoff_figure(t: ClippingTradeoff, tau: float, *, template: str = TEMPLATE) -> go.Figure:
    """Clipping bias and EM error (score units) against τ, their sum, the signal 0.2αnm, the paper's τ and yours."""
    tau = check_positive(tau, "tau")
    total = t.bias + t.em_error
    floor = float(t.em_error.min()) / 10  # below this the bias is invisible next to the noise (and only rounding)
    data = [
        go.Scatter(x=t.tau, y=np.where(t.bias > floor, t.bias, np.nan), mode="lines",
                   name="clipping bias n·|E clip(u) − E u|",
                   line=dict(color=PALETTE[1], width=2.5)),
        go.Scatter(x=t.tau, y=t.em_error, mode="lines", name="EM error (2Δ/ε)·ln(|ℋ|/β), Δ = 2τ",
                   line=dict(color=PALETTE[2], width=2.5, dash="dash")),
        go.Scatter(x=t.tau, y=total, mode="lines", name="bias + EM error", line=dict(color=ROLE["private"], width=4)),
        go.Scatter(x=[t.tau[0], t.tau[-1]], y=[t.signal, t.signal], mode="lines", name="signal 0.2·α·n·m",
                   line=dict(color=ROLE["bound"], dash="dot")),
        go.Scatter(x=[t.tau_best], y=[float(np.min(total))], mode="markers", name=f"best τ ≈ {t.tau_best:.3g}",
                   marker=dict(symbol="star", size=16, color=ROLE["private"])),
    ]
    shapes = [_vline(tau, "#777"), _vline(t.tau_paper, ROLE["naive"], "dashdot")]
    notes = [_label(t.tau_paper, " paper: αm + √(m ln(1/α))", log_x=True, color=ROLE["naive"], y=0.99)]
    fig = go.Figure(data=data, layout=dict(
        template=template, shapes=shapes, annotations=notes,
        title=dict(text="Choosing the clip τ: bias against noise (score units)", font=dict(size=14)),
        xaxis=dict(type="log", title=dict(text="clip threshold τ")),
        yaxis=dict(type="log", title=dict(text="error in the score (users × examples)"),
                   range=[math.log10(floor), math.log10(2 * max(float(total.max()), t.signal))]),
        legend=dict(x=0.01, y=0.01, yanchor="bottom", font=dict(size=11))))
    approx_note(fig, "paper's τ with its constant C = 1; EM bound is the standard one (β = 0.1)")
    caption(fig, "Source: 000, Theorem 37 (τ = C(αm + √(m log(1/α))), events E2/E3: 0.2αnm vs 0.4αnm); EM: "
                 "McSherry & Talwar 2007 (Theorem 9 of 000).")
    return fig


# ----------------------------------------------------------------------------------- PAC learner (thresholds)


def pac_error_figure(n_grid: np.ndarray, errors: dict, *, epsilon: float, grid_size: int, constant: float = 1.0,
                     standard_errors: dict | None = None, template: str = TEMPLATE) -> go.Figure:
    """Simulated true error of the user-level realizable PAC learner (ALG-8) on 1-D thresholds against n, one curve per
    m, beside the theory α(n) = C·ln(K+1)/(ε·n·m) (Theorem 4 of 000 solved for α; C = 1 shown).

    ``errors`` maps m → array of mean errors over ``n_grid``.
    """
    epsilon = check_positive(epsilon, "epsilon")
    n_grid = np.asarray(n_grid, dtype=float)
    data = []
    cols = [PALETTE[7], PALETTE[0], PALETTE[2], PALETTE[3], PALETTE[5]]
    for i, (m, err) in enumerate(sorted(errors.items())):
        col = cols[i % len(cols)]
        err = np.asarray(err, dtype=float)
        ey = None
        if standard_errors is not None and m in standard_errors:
            ey = dict(type="data", array=np.asarray(standard_errors[m], dtype=float), visible=True, thickness=1)
        data.append(go.Scatter(x=n_grid, y=np.where(err > 0, err, np.nan), mode="markers+lines",
                               name=f"simulation, m = {m}" + (" (item-level)" if m == 1 else ""), error_y=ey,
                               line=dict(color=col, width=2), marker=dict(size=7)))
        theory = constant * math.log(grid_size + 1) / (epsilon * n_grid * m)
        data.append(go.Scatter(x=n_grid, y=np.minimum(theory, 0.5), mode="lines", name=f"theory, m = {m}",
                               line=dict(color=col, dash="dot", width=1.5), showlegend=True))
    fig = go.Figure(data=data, layout=dict(
        template=template, title=dict(text=f"User-level PAC learning of thresholds (K = {grid_size}, ε = {epsilon:g})",
                                      font=dict(size=14)),
        xaxis=dict(type="log", title=dict(text="n (users)")),
        yaxis=dict(type="log", title=dict(text="true error err(h) (mean over runs)")),
        legend=dict(x=1.02, y=1, xanchor="left", font=dict(size=11)), margin=dict(r=200)))
    approx_note(fig, "Monte Carlo (fixed seed); theory curve has its constant set to 1")
    caption(fig, "Source: 000, Theorem 4 (n = Θ̃(d/ε + d/(εαm)), so α ≈ C·d/(ε n m) for m ≤ 1/α) with d = ln(K+1); "
                 "learner: ALG-8 (EM over the count of users with a mistake, Δ = 1).", below=75)
    return fig

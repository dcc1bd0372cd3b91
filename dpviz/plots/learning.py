"""Figures of lesson 13 "Training with user-level DP" (pure builders: numbers in, a new plotly Figure out).

Sources: Levy et al. 2021 = Levy et al., "Learning with User-Level Privacy" (NeurIPS 2021); Esfandiari,
Mirrokni & Narayanan 2022 = Esfandiari, Mirrokni & Narayanan, "Tight and Robust Private Mean Estimation with Few Users"
(2022). Every builder captions its formulas.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from dpviz._validation import check_integer
from dpviz.plots._theme import (
    DASHES,
    PALETTE,
    ROLE,
    TEMPLATE,
    _array,
    _check_flag,
    _check_text,
    _gaps,
    _layout,
    _mapping,
    _number,
    _scatter,
    approx_note,
    caption,
)

__all__ = [
    "METHOD_STYLE",
    "training_curves_figure",
    "rates_figure",
    "users_needed_figure",
    "phased_schedule_figure",
    "heterogeneity_figure",
]

#: colour, dash and legend name per training method (shared by the panels)
METHOD_STYLE = {
    "user_level": (ROLE["private"], "solid", "user-level noisy GD (winsorized)"),
    "naive": (ROLE["naive"], "dash", "naive (clip to G, Gaussian)"),
    "example_level": (PALETTE[2], "dot", "example-level noisy GD"),
    "nonprivate": (ROLE["nonprivate"], "dashdot", "non-private"),
    "algorithm_h": (PALETTE[3], "longdash", "Alg 3 + mean of Esfandiari, Mirrokni & Narayanan 2022"),
}

#: Pixels from the bottom of the plot area to the caption's first line (``caption(..., below=...)``): clear of the
#: two-row tick labels of a log axis and of the x-axis title (a paper-fraction offset moves with the plot height).
_CAPTION_BELOW = 64


def _log_label(*, x=None, y=None, text: str, color: str, xanchor: str = "left", yanchor: str = "top") -> dict:
    """A text label at a data position on a log axis, as an annotation dict for ``layout["annotations"]``
    (annotations on log axes take log10 coordinates; plotly's add_vline/add_hline annotations pass raw values, which
    throws the label — and the autorange — off to 10^x)."""
    xa = "paper" if x is None else "x"
    ya = "paper" if y is None else "y"
    return dict(x=1.0 if x is None else float(np.log10(x)), xref=xa, y=1.0 if y is None else float(np.log10(y)),
                yref=ya, text=text, showarrow=False, xanchor=xanchor, yanchor=yanchor, font=dict(size=12, color=color),
                bgcolor="rgba(255,255,255,0.75)")



def _decade_ticks(values) -> dict:
    """Ticks at powers of ten (every k decades so at most ~6 labels) for a log axis spanning ``values``."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v) & (v > 0)]
    if v.size == 0:
        return {}
    span = float(np.log10(v.max()) - np.log10(v.min()))
    return dict(tickmode="linear", tick0=0, dtick=max(1, int(np.ceil(span / 5))))


def _increasing(values, name: str, *, low: float = 0.0) -> np.ndarray:
    """A non-empty 1-D axis of finite values ≥ ``low`` (> 0 for a log axis), strictly increasing."""
    arr = _array(values, name, low=low, low_open=low == 0.0)
    if np.any(np.diff(arr) <= 0):
        raise ValueError(f"{name} is not increasing, which is not allowed: must be strictly increasing.")
    return arr


def training_curves_figure(curves: Mapping[str, tuple[Sequence[float], Sequence[float]]], *,
                           labels: Mapping[str, str] | None = None, ylabel: str = "excess risk (log)",
                           log_y: bool = True, title: str = "Training: loss against step",
                           template: str = TEMPLATE) -> go.Figure:
    """One line per method: ``curves[method] = (steps, values)``, two 1-D arrays of one length (finite; on the log
    axis values ≤ 10⁻¹² are drawn at 10⁻¹²); ``labels`` override legend names (e.g. with ε)."""
    if not isinstance(curves, Mapping):
        raise TypeError(f"curves = {curves!r} is not allowed: must be a mapping method → (steps, values).")
    if labels is not None and (not isinstance(labels, Mapping)
                               or not all(isinstance(v, str) for v in labels.values())):
        raise TypeError(f"labels = {labels!r} is not allowed: must be None or a mapping method → legend name.")
    _check_text(ylabel, "ylabel")
    _check_text(title, "title")
    log_y = _check_flag(log_y, "log_y")
    checked = {}
    for key, pair in curves.items():
        if not isinstance(key, str):
            raise TypeError(f"curves has the key {key!r}, which is not allowed: keys must be method names (str).")
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise TypeError(f"curves[{key!r}] = {pair!r} is not allowed: must be a pair (steps, values).")
        x = _array(pair[0], f"curves[{key!r}] steps", low=0.0)
        checked[key] = (x, _array(pair[1], f"curves[{key!r}] values", length=x.size, like="its steps"))
    data = []
    for key, (x, y) in checked.items():
        color, dash, name = METHOD_STYLE.get(key, (PALETTE[6], "solid", key))
        if log_y:
            y = np.maximum(y, 1e-12)
        data.append(_scatter(x=x, y=y, mode="lines", name=(labels or {}).get(key, name),
                             line=dict(color=color, dash=dash, width=2)))
    # legend outside the plot: the private curves rise and fall through the whole upper half of the axes
    fig = go.Figure(data=data, layout=_layout(title, "step t", ylabel, template=template,
                                              yaxis=dict(type="log", exponentformat="power") if log_y else None,
                                              legend=dict(x=1.02, xanchor="left", y=1)))
    caption(fig, "Source: Levy et al. 2021, Alg 3 (user-level: average per user, then a private mean across users); "
                 "naive and "
                 "example-level baselines (Levy et al. 2021, §1); optimiser: Levy et al. 2021, Alg 7.<br>Full-batch "
                 "noisy gradient descent: "
                 "no subsampling, unlike DP-SGD (Abadi et al. 2016).", below=_CAPTION_BELOW)
    return fig


def rates_figure(ns: np.ndarray, curves: Mapping[str, np.ndarray], *, invalid_below: float | None = None,
                 floor: np.ndarray | None = None, title: str = "Excess risk bounds against the number of users n",
                 template: str = TEMPLATE) -> go.Figure:
    """Log–log rates against n; the region where Thm 4's n-condition fails is shaded grey.

    ``ns``: increasing positive users; ``curves``: name → positive rates, one per n; ``floor``: one value ≥ 0 per n;
    ``invalid_below``: an n > 0 (the shade reaches it)."""
    ns = _increasing(ns, "ns")
    curves = _mapping(curves, "curves", length=ns.size, like="ns", low=0.0, low_open=True)
    if floor is not None:
        floor = _array(floor, "floor", length=ns.size, like="ns", low=0.0)
    invalid_below = _number(invalid_below, "invalid_below", low=0.0, low_open=True, optional=True)
    _check_text(title, "title")
    style = {
        "upper": ("upper bound, Phased ERM (Levy et al. 2021, Thm 4)", ROLE["private"], "solid"),
        "lower": ("lower bound, any user-level DP (Levy et al. 2021, Thm 5)", ROLE["bound"], "dash"),
        "item": ("item-level rate on n·m people", PALETTE[2], "dot"),
        "naive": ("naive user-level (clip to G)", ROLE["naive"], "dashdot"),
    }
    data = []
    for key, ys in curves.items():
        name, color, dash = style.get(key, (key, PALETTE[6], "solid"))
        data.append(_scatter(x=ns, y=ys, mode="lines", name=name, line=dict(color=color, dash=dash, width=2)))
    if floor is not None:
        data.append(_scatter(x=ns, y=np.maximum(floor, 1e-300), mode="lines", name="fixed-n floor (Levy et al. "
                                                                                   "2021, Thm 8)",
                             line=dict(color=PALETTE[3], dash="longdash", width=1.5)))
    extra = {}
    if invalid_below is not None and invalid_below > ns[0]:
        extra["shapes"] = [dict(type="rect", x0=ns[0], x1=min(invalid_below, ns[-1]), xref="x", y0=0, y1=1,
                                yref="y domain", fillcolor="rgba(120,120,120,0.18)", line=dict(width=0))]
        extra["annotations"] = [_log_label(x=ns[0], text="grey: Thm 4's n-condition fails", color="#555555")]
    ymin = min(float(np.min(v)) for v in curves.values())
    ymax = max(float(np.max(v)) for v in curves.values())
    fig = go.Figure(data=data, layout=_layout(
        title, "users n (log)", "excess population risk (log)", template=template,
        xaxis=dict(type="log", range=[np.log10(ns[0]), np.log10(ns[-1])]),
        yaxis=dict(type="log", exponentformat="power", range=[np.log10(ymin) - 0.5, np.log10(ymax) + 0.3]), **extra))
    caption(fig, "Source: Levy et al. 2021, Thm 4: R√(G·G<sub>min</sub>)/√(mn) + Rσd/(n√m ε); Thm 5: "
                 "RG<sub>min</sub>/√(mn) + "
                 "RG<sub>min</sub>√d/(n√m ε) (they match only when G = Θ(σ√d), as drawn); Thm 8 floor "
                 "G/(4(1+e<sup>nε</sup>)).<br>Item-level: the m = 1 rate quoted in Levy et al. 2021, §1 (Bassily et "
                 "al. 2019) "
                 "at n·m people, RG(1/√(nm) + √d/(nmε)); naive: RG(1/√(nm) + √d/(nε)), no gain from m (Levy et al. "
                 "2021, §1).", below=_CAPTION_BELOW)
    approx_note(fig, "shapes only: hidden constants and logs set to 1")
    return fig


def users_needed_figure(Ts: np.ndarray, levy: Mapping[int, np.ndarray], ours: np.ndarray, *, n: float | None = None,
                        title: str = "Users ERM needs against the number of steps T",
                        template: str = TEMPLATE) -> go.Figure:
    """√(dT)/ε (Levy et al. 2021, Thm 3 / Esfandiari, Mirrokni & Narayanan 2022, Thm 29) for several d against √T/ε
    (Esfandiari, Mirrokni & Narayanan 2022, Thm 30), log–log.

    ``Ts``: positive steps; ``levy``: d → users, one per T; ``ours``: users, one per T (all positive); ``n``: the
    learner's n > 0, drawn as a line."""
    Ts = _array(Ts, "Ts", low=0.0, low_open=True)
    levy = _mapping(levy, "levy", length=Ts.size, like="Ts", low=0.0, low_open=True)
    ours = _array(ours, "ours", length=Ts.size, like="Ts", low=0.0, low_open=True)
    n = _number(n, "n", low=0.0, low_open=True, optional=True)
    _check_text(title, "title")
    data = [_scatter(x=Ts, y=ys, mode="lines", name=f"Levy et al. 2021, Alg 3: √(dT)/ε, d = {d}",
                     line=dict(color=ROLE["private"], dash=DASHES[i % len(DASHES)], width=2))
            for i, (d, ys) in enumerate(levy.items())]
    data.append(_scatter(x=Ts, y=ours, mode="lines", name="Esfandiari, Mirrokni & Narayanan 2022, Thm 30: √T/ε, "
                                                          "any d",
                         line=dict(color=PALETTE[3], width=3)))
    extra = {}
    if n is not None:
        extra["shapes"] = [dict(type="line", x0=0, x1=1, xref="x domain", y0=n, y1=n, yref="y",
                                line=dict(color=ROLE["bound"], dash="dot"))]
        extra["annotations"] = [_log_label(y=n, text=f"your n = {n:,.0f}", color=ROLE["bound"], xanchor="right",
                                           yanchor="bottom")]
    fig = go.Figure(data=data, layout=_layout(title, "steps T (log)", "users needed n (log)", template=template,
                                              xaxis=dict(type="log"),
                                              yaxis=dict(type="log", exponentformat="power", dtick=1), **extra))
    caption(fig, "Source: Levy et al. 2021, Thm 3 (n = Ω̃(√(dT)/ε)); Esfandiari, Mirrokni & Narayanan 2022, Thms "
                 "29–30 (n = Ω̃(√T/ε)). "
                 "Log factors hidden.", below=_CAPTION_BELOW)
    approx_note(fig, "log factors and constants set to 1")
    return fig


def phased_schedule_figure(users: Sequence[int], lambdas: Sequence[float], *, n: int,
                           title: str = "Phased ERM: users per phase and the λ schedule",
                           template: str = TEMPLATE) -> go.Figure:
    """Bars: n_t users consumed by phase t (disjoint); line (right axis, log): λ_t = 4^t λ (Levy et al. 2021, Alg 4).

    ``users``: integers ≥ 0, at most ``n`` in all; ``lambdas``: one λ_t > 0 per phase; ``n``: an integer ≥ 1."""
    n = check_integer(n, "n", minimum=1, maximum=10**15)
    users = _array(users, "users", low=0.0, allow_empty=True)
    if not np.all(users == np.round(users)) or float(np.sum(users)) > n:
        raise ValueError(f"users = {users.tolist()!r} is not allowed: must be integers that sum to at most n = {n}.")
    lambdas = _array(lambdas, "lambdas", length=users.size, like="users", low=0.0, low_open=True, allow_empty=True)
    _check_text(title, "title")
    t = np.arange(1, len(users) + 1)
    data = [dict(type="bar", x=t, y=users.astype(np.int64).tolist(), name="users n<sub>t</sub> = ⌊n/2<sup>t</sup>⌋",
                 marker=dict(color=ROLE["private"])),
            _scatter(x=t, y=list(lambdas), mode="lines+markers", name="λ<sub>t</sub> = 4<sup>t</sup>λ", yaxis="y2",
                     line=dict(color=ROLE["naive"], width=2))]
    used = int(np.sum(users, dtype=np.int64)) if users.size else 0
    # legend across the top centre, which stays empty (bars halve from the left, the λ line climbs through the
    # middle to the top right); y2 ticks at powers of ten (an overlaying axis otherwise gets ticks synced to the
    # bar axis' grid, e.g. 3×10⁵, 8×10³)
    fig = go.Figure(data=data, layout=_layout(
        title, "phase t", "users in phase n<sub>t</sub>", template=template, xaxis=dict(dtick=1), bargap=0.25,
        legend=dict(orientation="h", x=0.5, xanchor="center", y=1, yanchor="top"),
        yaxis2=dict(title=dict(text="regularisation λ<sub>t</sub> (log)"), type="log", exponentformat="power",
                    overlaying="y", side="right", showgrid=False, **_decade_ticks(lambdas)),
        annotations=[dict(text=f"{used} of n = {n} users used ({n - used} never touched)", xref="paper",
                          yref="paper", x=0.99, y=0.2, xanchor="right", showarrow=False, font=dict(size=12),
                          bgcolor="rgba(255,255,255,0.8)")]))
    caption(fig, "Source: Levy et al. 2021, Alg 4: T = ⌈log₂(Gn√m ε/(σd))⌉, λ = √(G·G<sub>min</sub>/(nm) + "
                 "σ²d²/(n²mε²))/R, "
                 "n<sub>t</sub> = n/2<sup>t</sup>, λ<sub>t</sub> = 4<sup>t</sup>λ; disjoint users (parallel "
                 "composition) "
                 "make the whole run (ε, δ)-DP at user level.", below=_CAPTION_BELOW)
    return fig


def heterogeneity_figure(ms: np.ndarray, curves: Mapping[str, np.ndarray], *, formula: np.ndarray | None = None,
                         formula_ms: np.ndarray | None = None, m_star: float | None = None,
                         title: str = "Heterogeneity: when do more samples per user stop helping?",
                         template: str = TEMPLATE) -> go.Figure:
    """Excess risk vs m (log–log): simulated methods (markers) and the non-private formula (line).

    ``formula`` is drawn over ``formula_ms`` (default ``ms``): a partial view draws it over every m of the final
    view, so that its axes, and the reference line, are there from the first result on.

    ``ms``: increasing m ≥ 1; ``curves``: method → excess risk, one per m (NaN: a gap); ``formula``: one value > 0
    per m of ``formula_ms``; ``m_star``: None, ∞ (no drift) or an m > 0."""
    ms = _increasing(ms, "ms", low=1.0)
    curves = _mapping(curves, "curves", length=ms.size, like="ms", gaps=True)
    if formula_ms is not None:
        formula_ms = _increasing(formula_ms, "formula_ms", low=1.0)
    if formula is not None:
        n_f = ms.size if formula_ms is None else formula_ms.size
        formula = _array(formula, "formula", length=n_f, like="ms" if formula_ms is None else "formula_ms", low=0.0,
                         low_open=True)
    if m_star is not None and not (isinstance(m_star, float) and m_star == np.inf):
        m_star = _number(m_star, "m_star", low=0.0, low_open=True)
    _check_text(title, "title")
    data = []
    if formula is not None:
        data.append(_scatter(x=ms if formula_ms is None else formula_ms, y=formula, mode="lines",
                             name="non-private: s²d/(2nm) + h²tr Σ/(2nd)",
                             line=dict(color=ROLE["bound"], dash="dash")))
    for key, ys in curves.items():
        color, dash, name = METHOD_STYLE.get(key, (PALETTE[6], "solid", key))
        y = np.where(np.isfinite(ys), np.maximum(ys, 1e-12), np.nan)  # non-finite: a gap
        data.append(_scatter(x=ms, y=_gaps(y), mode="lines+markers", name=name + " (simulated)",
                             line=dict(color=color, dash=dash, width=1.5), marker=dict(size=7, color=color)))
    extra = {}
    if m_star is not None and np.isfinite(m_star) and ms.size and ms[0] <= m_star <= ms[-1]:
        extra["shapes"] = [dict(type="line", x0=m_star, x1=m_star, xref="x", y0=0, y1=1, yref="y domain",
                                line=dict(color=ROLE["bound"], dash="dot"))]
        extra["annotations"] = [_log_label(x=m_star, text=f" m* ≈ {m_star:.0f}", color=ROLE["bound"])]
    fig = go.Figure(data=data, layout=_layout(title, "samples per user m (log)", "excess population risk (log)",
                                              template=template, xaxis=dict(type="log"),
                                              yaxis=dict(type="log", exponentformat="power"), **extra))
    caption(fig, "Source: our linear task (dpviz.learning.tasks): statistical term s²d/(2nm), user-drift term "
                 "h²·tr Σ/(2nd) independent of m;<br>Levy et al. 2021, Thm 9 bounds heterogeneity by L(m,n) + B(mn+2)ν "
                 "(ν: total-variation drift).", below=_CAPTION_BELOW)
    approx_note(fig, "markers: Monte Carlo, few seeds")
    return fig

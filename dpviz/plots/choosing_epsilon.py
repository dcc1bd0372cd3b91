"""Figures for lesson 09 "Choosing ε": what an informed observer can learn (the posterior bound), deployed values of ε
on one axis, and the two ways of choosing ε — from an accuracy target, and from a budget per person per period.

Every builder is a pure function of numbers (and the records of :mod:`dpviz.deployments`) that computes with
:mod:`dpviz.interpret` and returns a new ``plotly.graph_objects.Figure`` in the shared ``"dpviz"`` template, with a
caption citing the formula it draws.
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from dpviz import interpret as I
from dpviz._validation import check_delta, check_in_range, check_integer, check_positive
from dpviz.deployments import Deployment
from dpviz.plots._theme import PALETTE, ROLE, TEMPLATE, _gaps, _hline, _layout, _scatter, _vline, caption, fmt_number

__all__ = ["REFERENCE_EPSILONS", "posterior_figure", "deployments_figure", "accuracy_figure", "budget_figure"]

#: The ε of the thin reference curves of :func:`posterior_figure` (the range the lesson discusses).
REFERENCE_EPSILONS = (0.1, 0.5, 1.0, 2.0, 5.0, 10.0)

_PRIORS = np.concatenate([np.logspace(-4, 0, 61)[:-1], [1.0]])
_LEGEND_BELOW = dict(orientation="h", y=-0.22, x=0, yanchor="top", font=dict(size=12))
_GREY = "#9a9a9a"


def _pct(x: float) -> str:
    return f"{100 * x:.3g}%"


def posterior_figure(epsilon: float, delta: float = 0.0, event_probability: float | None = None, *,
                     marker_prior: float | None = None, template: str = TEMPLATE) -> go.Figure:
    """The largest posterior P[in | S] of an informed observer against the prior P[in], for ε-DP (bold) and the
    reference ε of :data:`REFERENCE_EPSILONS` (thin, labelled); with δ > 0 and ``event_probability`` q also the exact
    (ε, δ) maximum for an event S with P[S | out] = q (dashed; S and its complement both constrain it).
    ``marker_prior`` marks one prior on the bold curve (and on the dashed one). Bounds from
    :func:`dpviz.interpret.posterior_bound`."""
    eps = check_positive(epsilon, "epsilon", allow_zero=True)
    d = check_delta(delta)
    traces = [_scatter(x=_PRIORS, y=_PRIORS, mode="lines", name="ε = 0: nothing learned (posterior = prior)",
                       line=dict(color=ROLE["bound"], dash="dot", width=1.5))]
    # the reference curves as one trace (gaps between them), their labels as one text trace: fewer traces, a
    # faster slider
    ref = I.posterior_bound(_PRIORS[None, :], np.asarray(REFERENCE_EPSILONS)[:, None])
    xs = np.concatenate([np.append(_PRIORS, np.nan) for _ in REFERENCE_EPSILONS])
    ys = np.concatenate([np.append(row, np.nan) for row in ref])
    traces.append(_scatter(x=_gaps(xs), y=_gaps(ys), mode="lines", line=dict(color=_GREY, width=1),
                           name="ε = 0.1, 0.5, 1, 2, 5, 10", hoverinfo="skip"))
    at = [20 + 4 * i for i in range(len(REFERENCE_EPSILONS))]  # a different prior per label: no collisions
    traces.append(_scatter(x=_PRIORS[at], y=ref[np.arange(len(at)), at], mode="text", showlegend=False,
                           text=[f"ε={e:g}" for e in REFERENCE_EPSILONS], textposition="top left",
                           textfont=dict(size=11, color="#666666"), hoverinfo="skip"))
    bold = I.posterior_bound(_PRIORS, eps)
    traces.append(_scatter(x=_PRIORS, y=bold, mode="lines", name=f"ε = {eps:.3g}, δ = 0: any output",
                           line=dict(color=ROLE["exact"], width=3.5)))
    if d > 0 and event_probability is not None:
        q = check_in_range(event_probability, "event_probability", 0.0, 1.0, low_inclusive=False)
        yd = I.posterior_bound(_PRIORS, eps, d, event_probability=q)
        traces.append(_scatter(x=_PRIORS, y=yd, mode="lines", line=dict(color=ROLE["approx"], width=3, dash="dash"),
                               name=f"ε = {eps:.3g}, δ = {d:.2g}: an output event with P[S | out] = {q:.2g}"))
    if marker_prior is not None:
        p = check_in_range(marker_prior, "marker_prior", 0.0, 1.0)
        ys = [I.posterior_bound(p, eps)]
        if d > 0 and event_probability is not None:
            ys.append(I.posterior_bound(p, eps, d, event_probability=q))
        traces.append(_scatter(x=[p] * len(ys), y=ys, mode="markers", name=f"your prior {_pct(p)}",
                               marker=dict(size=11, color=PALETTE[2], line=dict(color="black", width=1))))
    layout = _layout("What an informed observer can learn: posterior ≤ e<sup>ε</sup>·p / (1 − p + e<sup>ε</sup>·p)",
                     "prior belief p = P[in] (log scale)", "largest posterior P[in | output]",
                     template=template, title_size=15, xaxis=dict(type="log", range=[-4, 0]),
                     yaxis=dict(range=[0, 1.02]), legend=_LEGEND_BELOW, height=500)
    fig = go.Figure(data=traces, layout=layout)
    caption(fig, "Posterior odds ≤ e<sup>ε</sup> × prior odds for an observer who knows every other record "
                 "(Kasiviswanathan & Smith 2014;<br>Bayes' rule on Dwork & Roth 2014, Def. 2.4). With δ, S and its "
                 "complement both bound P[S | in]:<br>the maximum depends on P[S | out] and reaches 1 for rare "
                 "events.", below=130)
    return fig


def deployments_figure(prior: float, deployments, *, template: str = TEMPLATE) -> go.Figure:
    """Deployed values of ε on one log axis (x), at the height of the ε-DP posterior bound each allows for the
    prior ``prior`` (y); the curve is that bound for every ε. Local-DP deployments are diamonds, central ones
    circles; hover shows the unit of privacy and the time horizon. Deployments without a recorded ε are left out
    (the panel lists them). ``deployments``: a sequence of :class:`dpviz.deployments.Deployment` (at most 1,000)."""
    p = check_in_range(prior, "prior", 0.0, 1.0, low_inclusive=False, high_inclusive=False)
    if isinstance(deployments, (str, bytes, Deployment)) or not hasattr(deployments, "__iter__"):
        raise ValueError(f"deployments = {deployments!r} is not allowed: must be a sequence of Deployment records.")
    deployments = list(deployments)
    if len(deployments) > 1000 or not all(isinstance(d, Deployment) for d in deployments):
        raise ValueError("deployments is not allowed: must be a sequence of at most 1000 Deployment records "
                         "(dpviz.deployments.Deployment).")
    grid = np.logspace(-1, 2, 200)
    traces = [_scatter(x=grid, y=I.posterior_bound(p, grid), mode="lines", line=dict(color=ROLE["exact"], width=2),
                       name=f"posterior bound for prior {_pct(p)}")]
    shown = [d for d in deployments if d.epsilon is not None]
    for i, d in enumerate(shown):
        y = I.posterior_bound(p, d.epsilon)
        delta = "" if not d.delta else f", δ = {d.delta:.2g}"
        rho = "" if d.rho is None else f" (from ρ = {d.rho:.3g}-zCDP)"
        hover = (f"{d.label}<br>ε = {d.epsilon:.4g}{delta}{rho}<br>unit: {d.unit}<br>per: {d.horizon}"
                 f"<br>posterior ≤ {_pct(y)}")
        traces.append(_scatter(
            x=[d.epsilon], y=[y], mode="markers+text", text=[d.organisation.replace("US Census Bureau", "Census")],
            textposition="top left" if i % 2 else "bottom right", textfont=dict(size=12),
            marker=dict(size=12, symbol="diamond" if d.local else "circle", color=PALETTE[(i + 1) % 6],
                        line=dict(color="black", width=1)),
            name=f"{d.organisation}: ε = {d.epsilon:.3g} per {d.horizon.replace('one ', '')}", hovertext=hover,
            hoverinfo="text"))
    layout = _layout("Deployed ε and what each allows an informed observer to learn", "ε (log scale)",
                     f"largest posterior, prior {_pct(p)}", template=template, title_size=15,
                     xaxis=dict(type="log", range=[-1, 2]), yaxis=dict(range=[0, 1.05]), legend=_LEGEND_BELOW,
                     height=520, shapes=[_hline(p, color=ROLE["bound"], dash="dot")])
    fig = go.Figure(data=traces, layout=layout)
    caption(fig, "Diamonds: local DP (noise added on the device); circles: central DP. Units and periods differ "
                 "(hover):<br>the ε are not directly comparable. For (ε, δ) values the curve is the ε part, valid "
                 "only for outputs far more likely than δ;<br>for the zCDP census, μ = √(2ρ) says more (under the "
                 "table). Bound: Kasiviswanathan & Smith 2014.", below=150)
    return fig


def accuracy_figure(alpha_acc: float, beta_fail: float, delta: float, *, template: str = TEMPLATE) -> go.Figure:
    """The ε needed (y, log) for an accuracy target ±α<sub>acc</sub> on one count (x, log) with probability
    1 − β<sub>fail</sub>: Laplace (closed form) and Gaussian at δ (analytic calibration), with the current α
    marked on both. Curves from :func:`dpviz.interpret.accuracy_curves`."""
    a = check_positive(alpha_acc, "alpha_acc")
    b = check_in_range(beta_fail, "beta_fail", 0.0, 1.0, low_inclusive=False, high_inclusive=False)
    d = check_delta(delta, allow_zero=False)
    alphas = np.logspace(-0.5, 3.5, 41)
    c = I.accuracy_curves(alphas, b, d)
    e_lap = I.laplace_epsilon_for_accuracy(a, b)
    e_gau = I.gaussian_epsilon_for_accuracy(a, b, d)
    eg = np.where(c["epsilon_gaussian"] > 0, c["epsilon_gaussian"], np.nan)  # ε = 0 has no place on a log axis
    traces = [
        _scatter(x=alphas, y=c["epsilon_laplace"], mode="lines", line=dict(color=ROLE["exact"], width=3),
                 name="Laplace (ε-DP)"),
        _scatter(x=alphas, y=_gaps(eg), mode="lines", line=dict(color=ROLE["x_prime"], width=3, dash="dash"),
                 name=f"Gaussian ((ε, δ)-DP, δ = {d:.2g})"),
        _scatter(x=[a, a], y=_gaps([e_lap, e_gau if e_gau > 0 else np.nan]), mode="markers",
                 marker=dict(size=11, color=[ROLE["exact"], ROLE["x_prime"]], line=dict(color="black", width=1)),
                 name=f"your target ±{fmt_number(a)}", hoverinfo="x+y"),
    ]
    layout = _layout(f"From an accuracy target to ε: error ≤ ±α<sub>acc</sub> with probability {1 - b:.4g}",
                     "accuracy target α<sub>acc</sub> (absolute error of one count, log scale)",
                     "ε needed (log scale)", template=template, title_size=15,
                     xaxis=dict(type="log", range=[-0.5, 3.5]), yaxis=dict(type="log", range=[-3, 1.5]),
                     legend=_LEGEND_BELOW, height=480, shapes=[_vline(a, color=ROLE["bound"], dash="dot")])
    fig = go.Figure(data=traces, layout=layout)
    caption(fig, "Laplace: ε = Δ·ln(1/β<sub>fail</sub>)/α<sub>acc</sub> (Dwork & Roth 2014, Thm 3.8). Gaussian: "
                 "σ = α<sub>acc</sub>/Φ<sup>−1</sup>(1 − β<sub>fail</sub>/2), then the smallest ε whose analytic "
                 "calibration needs no more (Balle & Wang 2018, Thm 8). Δ = 1.", below=120)
    return fig


def budget_figure(epsilon_total: float, delta_total: float, releases: int, *, max_releases: int = 1000,
                  template: str = TEMPLATE) -> go.Figure:
    """ε each of k releases may spend (y, log, at δ/k each) against k (x, log) when one person's total is
    (ε, δ): basic composition (ε/k) and exact composition of Gaussian releases (the exact ε of one release whose
    k-fold composition spends exactly (ε, δ)); k = ``releases`` (at most ``max_releases`` ≤ 10⁶) is marked. Numbers
    from :func:`dpviz.interpret.per_release_epsilon`."""
    eps = check_positive(epsilon_total, "epsilon_total")
    d = check_delta(delta_total, "delta_total", allow_zero=False)
    max_releases = check_integer(max_releases, "max_releases", minimum=2, maximum=10**6)
    k_mark = check_integer(releases, "releases", minimum=1, maximum=max_releases)
    ks = np.unique(np.concatenate([np.round(np.logspace(0, math.log10(max_releases), 16)), [k_mark]]).astype(int))
    r = I.per_release_epsilon(eps, d, ks)
    i = int(np.flatnonzero(ks == k_mark)[0])
    traces = [
        _scatter(x=ks, y=r["eps_basic"], mode="lines", line=dict(color=ROLE["approx"], width=3, dash="dash"),
                 name="basic composition: ε/k"),
        _scatter(x=ks, y=_gaps(r["eps_step_exact"]), mode="lines", line=dict(color=ROLE["exact"], width=3),
                 name="exact composition of Gaussian releases"),
        _scatter(x=[k_mark, k_mark], y=[r["eps_basic"][i], r["eps_step_exact"][i]], mode="markers",
                 marker=dict(size=11, color=[ROLE["approx"], ROLE["exact"]], line=dict(color="black", width=1)),
                 name=f"k = {k_mark} releases"),
    ]
    layout = _layout(f"A budget of ε = {eps:.3g}, δ = {d:.2g} per person, split over k releases",
                     "number of releases k in the period (log scale)", "ε per release, at δ/k (log scale)",
                     template=template, title_size=15, xaxis=dict(type="log"), yaxis=dict(type="log"),
                     legend=_LEGEND_BELOW, height=460, shapes=[_vline(k_mark, color=ROLE["bound"], dash="dot")])
    fig = go.Figure(data=traces, layout=layout)
    caption(fig, "Basic: Dwork & Roth 2014, Thm 3.16. Exact: k Gaussians of noise σ are one of noise σ/√k "
                 "(Dong, Roth & Su 2022, Cor. 3.3), calibrated by Balle & Wang 2018, Thm 8.", below=110)
    return fig

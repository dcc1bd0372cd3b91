"""Figures for lesson 01 "Why privacy is hard": the differencing attack, the reconstruction attack of Dinur & Nissim
2003 (fraction of secret bits recovered against the noise), and membership inference on a released count drawn on
the trade-off axes of lesson 03 (type I error α, type II error β).

Builders are pure functions of numbers and of the result objects of :mod:`dpviz.attacks`; they return a new
``plotly.graph_objects.Figure`` in the shared ``"dpviz"`` template with a caption citing what they draw.
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from dpviz.attacks import MembershipTradeoff, ReconstructionCurve, laplace_difference_pdf
from dpviz.mechanisms import Gaussian
from dpviz.plots._theme import ROLE, TEMPLATE, _hline, _layout, _vline, approx_note, caption, fmt_number
from dpviz.tradeoff import dp_region_kink, dp_region_lower_bound

__all__ = ["differencing_figure", "reconstruction_figure", "membership_figure"]



def _legend_below(plot_height: float) -> dict:
    """A horizontal legend starting 62 px under the plot area (clear of tick labels and the x-axis title), given the
    plot area's height in pixels; the caption goes further down (``caption(..., below=...)``), under up to four
    legend rows on a phone."""
    return dict(orientation="h", y=-62.0 / plot_height, x=0, yanchor="top", traceorder="normal",
                font=dict(size=12))


# =============================================================================================== differencing


def differencing_figure(noise_scale: float, observed: float | None = None, *,
                        template: str = TEMPLATE) -> go.Figure:
    """What the differencing attacker sees: the released difference answer(all) − answer(all but the target), under
    "the target has the condition" (centred at 1) and "does not" (centred at 0), with the attacker's threshold ½.

    ``noise_scale`` b = 0: the difference is exactly 0 or 1 (two spikes). b > 0: each answer carries Laplace(b)
    noise, so the difference carries L₁ − L₂ with density (1 + |t|/b)e^{−|t|/b}/(4b)
    (:func:`dpviz.attacks.laplace_difference_pdf`). ``observed`` marks the difference actually released."""
    b = float(noise_scale)
    if not (math.isfinite(b) and b >= 0):
        raise ValueError(f"noise_scale = {noise_scale!r} is not allowed: must be a finite number >= 0.")
    traces: list[dict] = []
    if b == 0:
        for centre, name, col in [(0.0, "target does NOT have it: difference = 0", ROLE["x"]),
                                  (1.0, "target HAS it: difference = 1", ROLE["x_prime"])]:
            traces.append(dict(type="bar", x=[centre], y=[1.0], width=0.08, name=name, marker=dict(color=col)))
        xr = [-1.0, 2.0]
        ytitle = "probability"
    else:
        half = max(1.5, 6 * b)  # each curve keeps ≥ 98.5 % of its mass in view: tail e^(−t/b)(2 + t/b)/4
        y = np.linspace(0.5 - half, 0.5 + half, 601)
        for centre, name, col in [(0.0, "target does NOT have it (centre 0)", ROLE["x"]),
                                  (1.0, "target HAS it (centre 1)", ROLE["x_prime"])]:
            traces.append(dict(type="scatter", x=y, y=laplace_difference_pdf(y - centre, b), mode="lines", name=name,
                               line=dict(color=col, width=3)))
        xr = [float(y[0]), float(y[-1])]
        ytitle = "probability density"
    shapes = [_vline(0.5, color=ROLE["bound"], dash="dash", width=2)]
    annotations = [dict(x=0.5, y=1, xref="x", yref="paper", text="threshold ½ → guess 'has it'", xanchor="left",
                        showarrow=False, yanchor="bottom", font=dict(size=11))]
    if observed is not None:
        o = float(observed)
        traces.append(dict(type="scatter", x=[o], y=[0.0], mode="markers", name=f"released difference = {o:.3g}",
                           marker=dict(color=ROLE["approx"], size=14, symbol="triangle-up"), cliponaxis=False))
    noise = "exact answers" if b == 0 else f"Laplace noise, b = {fmt_number(b, 3)}"
    # height 570 = top 60 + plot 273 + bottom 237 (caption below 165 px, 4 lines of ≤ 48 characters: 360 px phones)
    layout = _layout(f"Difference of the two answers<br>({noise})", "answer(all) − answer(all but target)",
                     ytitle, template=template, title_size=15, legend=_legend_below(273), height=570,
                     margin=dict(t=60), shapes=shapes, annotations=annotations)
    layout["xaxis"]["range"] = xr
    fig = go.Figure(data=traces, layout=layout)
    caption(fig, "Counts: sensitivity 1. Laplace mechanism:<br>answer + Lap(b), (1/b)-DP per answer<br>"
                 "(Dwork & Roth 2014, Def. 3.3, Thm 3.6).<br>"
                 "L₁ − L₂ has density (1 + |t|/b)·e<sup>−|t|/b</sup>/(4b).", below=165)
    return fig


# =============================================================================================== reconstruction


def reconstruction_figure(curve: ReconstructionCurve, noise_scale: float | None = None,
                          fraction_at_noise: float | None = None, *, seed: int | None = None,
                          template: str = TEMPLATE) -> go.Figure:
    """Fraction of secret bits recovered against the noise bound E (log axis), from
    :func:`dpviz.attacks.reconstruction_curve`: the mean over its draws and each draw, the √n line of Dinur &
    Nissim 2003 and the 50 % chance line. ``noise_scale`` (with ``fraction_at_noise``) marks the current E."""
    if not isinstance(curve, ReconstructionCurve):
        raise ValueError(f"curve = {curve!r} is not allowed: must be a dpviz.attacks.ReconstructionCurve.")
    es = np.asarray(curve.noise_scales, dtype=float)
    pos = es > 0
    x = es[pos]
    traces: list[dict] = []
    for k in range(curve.trials):
        traces.append(dict(type="scatter", x=x, y=curve.per_trial[k][pos], mode="lines",
                           line=dict(color=ROLE["alt3"], width=1), opacity=0.6, hoverinfo="skip",
                           name="each draw", showlegend=k == 0, legendgroup="draws"))
    traces.append(dict(type="scatter", x=x, y=curve.recovered_fraction[pos], mode="lines", name="mean over draws",
                       line=dict(color=ROLE["exact"], width=4),
                       hovertemplate="E = %{x:.3g}<br>recovered %{y:.1%}<extra></extra>"))
    if noise_scale is not None and fraction_at_noise is not None and noise_scale > 0:
        traces.append(dict(type="scatter", x=[float(noise_scale)], y=[float(fraction_at_noise)], mode="markers",
                           name=f"your E = {fmt_number(float(noise_scale), 3)}: first draw recovers "
                                f"{float(fraction_at_noise):.0%}",
                           marker=dict(color=ROLE["approx"], size=13, symbol="diamond")))
    rn = curve.sqrt_n
    shapes = [_vline(rn, color=ROLE["bound"], dash="dash", width=2), _hline(0.5, color="#777777", dash="dot")]
    annotations = [dict(x=math.log10(rn), y=0.02, xref="x", yref="paper", text=f" E = √n = {rn:.3g}",
                        showarrow=False, xanchor="left", yanchor="bottom", font=dict(size=12)),
                   dict(x=0, y=0.5, xref="paper", yref="y", text=" chance (coin flips)", showarrow=False,
                        xanchor="left", yanchor="top", font=dict(size=11, color="#555555"))]
    title = f"Reconstruction attack<br>n = {curve.n} people, m = {curve.num_queries} answers"
    # height 595 = top 90 + plot 268 + bottom 237 (caption below 165 px, 4 lines)
    layout = _layout(title, "noise bound E, answers ± E (log)", "bits recovered", template=template,
                     title_size=15, legend=_legend_below(268), height=595, margin=dict(t=90), shapes=shapes,
                     annotations=annotations)
    layout["xaxis"]["type"] = "log"
    layout["yaxis"].update(range=[0.35, 1.03], tickformat=".0%")
    fig = go.Figure(data=traces, layout=layout)
    seed_text = f", seed {seed}" if seed is not None else ""
    approx_note(fig, f"Monte Carlo: {curve.trials} draws{seed_text}")
    caption(fig, "Answers: subset sums + noise uniform on [−E, E].<br>Each draw is exact in E. Decoder: least "
                 "squares<br>rounded at ½, a stand-in for the LP decoding of<br>"
                 "Dinur & Nissim 2003 (Dwork & Roth 2014, §8.1).", below=165)
    return fig


# =============================================================================================== membership


def membership_figure(raw: MembershipTradeoff, noisy: MembershipTradeoff | None = None, *,
                      template: str = TEMPLATE) -> go.Figure:
    """The membership attacker's best tests on lesson 03's trade-off axes: type I error α (false-positive rate) on
    x, type II error β = 1 − TPR on y. ``raw``: the exact count released as is; ``noisy``: the count with Laplace or
    Gaussian noise, drawn with the boundary its noise guarantees — f<sub>ε,0</sub>, ε = 1/b, for Laplace
    (:func:`dpviz.tradeoff.dp_region_lower_bound`) or the Gaussian trade-off G<sub>μ</sub>, μ = 1/σ
    (:meth:`dpviz.mechanisms.Gaussian.tradeoff`) — and its allowed region shaded."""
    for name, t in (("raw", raw), ("noisy", noisy)):
        if t is not None and not isinstance(t, MembershipTradeoff):
            raise ValueError(f"{name} = {t!r} is not allowed: must be a dpviz.attacks.MembershipTradeoff.")
    grid = np.linspace(0.0, 1.0, 401)
    traces: list[dict] = []
    title = f"Membership inference<br>count of n = {raw.n}, trait rate p = {raw.p:.3g}"
    if noisy is not None:
        if noisy.noise == "laplace":
            eps = float(noisy.epsilon)
            a = np.union1d(grid, [dp_region_kink(eps, 0.0)])
            bound = dp_region_lower_bound(a, eps, 0.0)
            bname = f"boundary of ε = {eps:.3g}-DP (ε = 1/b)"
        else:
            a = grid
            bound = Gaussian(noisy.scale).tradeoff(a)
            bname = f"boundary of μ = {float(noisy.mu):.3g}-GDP (μ = 1/σ)"
        traces.append(dict(type="scatter", x=a, y=bound, mode="lines", line=dict(color=ROLE["bound"], width=2),
                           name=bname))
        traces.append(dict(type="scatter", x=a, y=1 - a, mode="lines", fill="tonexty", fillcolor=ROLE["region"],
                           line=dict(color="#999999", width=1, dash="dot"),
                           name="allowed region (β = 1 − α: coin flip)"))
    else:
        traces.append(dict(type="scatter", x=grid, y=1 - grid, mode="lines",
                           line=dict(color="#999999", width=1, dash="dot"), name="β = 1 − α: coin flip"))
    traces.append(dict(type="scatter", x=raw.alpha, y=raw.beta, mode="lines", line=dict(color=ROLE["approx"], width=3),
                       name="count released exactly", hovertemplate="α = %{x:.3g}<br>β = %{y:.3g}<extra></extra>"))
    if noisy is not None:
        label = (f"count + Laplace(b = {fmt_number(noisy.scale, 3)})" if noisy.noise == "laplace"
                 else f"count + Gaussian(σ = {fmt_number(noisy.scale, 3)})")
        traces.append(dict(type="scatter", x=noisy.alpha, y=noisy.beta, mode="lines",
                           line=dict(color=ROLE["x"], width=4), name=label,
                           hovertemplate="α = %{x:.3g}<br>β = %{y:.3g}<extra></extra>"))
    # height 770 = top 90 + plot 408 + bottom 272 (caption below 185 px, 5 lines)
    layout = _layout(title, "type I error α (false positives)", "type II error β (1 − true-positive rate)",
                     template=template, title_size=15, legend=_legend_below(408), height=770, margin=dict(t=90))
    layout["xaxis"].update(range=[0, 1], constrain="domain")
    layout["yaxis"].update(range=[0, 1], scaleanchor="x", scaleratio=1, constrain="domain")
    fig = go.Figure(data=traces, layout=layout)
    caption(fig, "Exact. Best tests: thresholds on the release<br>(Neyman–Pearson); Δ = 1. ε-DP ⟺ β ≥ max(0,<br>"
                 "1 − e<sup>ε</sup>α, e<sup>−ε</sup>(1 − α)) (Kairouz, Oh & Viswanath<br>"
                 "2015, Thm 2.1); G<sub>μ</sub>(α) = Φ(Φ<sup>−1</sup>(1 − α) − μ)<br>(Dong, Roth & Su 2022, Def. 2.4).",
            below=185)
    return fig

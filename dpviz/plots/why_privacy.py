"""Figures for lesson 01 "Why privacy is hard": the differencing attack, the linkage attack of Sweeney 2002 (who is
unique, re-identified and disclosed under each generalisation of the quasi-identifiers, with k-anonymity's k), the
reconstruction attack of Dinur & Nissim 2003 (fraction of secret bits recovered against the noise), and membership
inference on a released count drawn on the trade-off axes of lesson 03 (type I error α, type II error β).

Builders are pure functions of numbers and of the result objects of :mod:`dpviz.attacks`; they return a new
``plotly.graph_objects.Figure`` in the shared ``"dpviz"`` template with a caption citing what they draw. Their
arguments are checked at this boundary (a ValueError or TypeError naming the parameter).
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from dpviz._validation import Interval, check_in_range, check_integer, check_positive, check_probability
from dpviz.attacks import (
    MIN_NOISE_SCALE,
    NOISE_BOUND,
    LinkageResult,
    MembershipTradeoff,
    ReconstructionCurve,
    laplace_difference_pdf,
)
from dpviz.mechanisms import Gaussian
from dpviz.plots._theme import ROLE, TEMPLATE, _hline, _layout, _vline, approx_note, caption, fmt_number
from dpviz.tradeoff import dp_region_kink, dp_region_lower_bound

__all__ = ["differencing_figure", "generalisation_label", "linkage_figure", "reconstruction_figure",
           "membership_figure"]

#: A nonzero Laplace scale b the differencing figure draws: in [MIN_NOISE_SCALE, 10⁶] (its window is ±6b around ½,
#: and beyond 10⁶ both curves are flat to the eye).
DIFFERENCE_SCALE = Interval(MIN_NOISE_SCALE, 1e6)


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
    (:func:`dpviz.attacks.laplace_difference_pdf`); b in [:data:`dpviz.attacks.MIN_NOISE_SCALE`,
    :data:`DIFFERENCE_SCALE`]. ``observed`` (a finite number) marks the difference actually released."""
    b = check_positive(noise_scale, "noise_scale", allow_zero=True)
    if b != 0 and not DIFFERENCE_SCALE.low <= b <= DIFFERENCE_SCALE.high:
        raise ValueError(f"noise_scale = {noise_scale!r} is not allowed: must be 0 (exact answers) or a number in "
                         f"[{DIFFERENCE_SCALE.low:g}, {DIFFERENCE_SCALE.high:g}].")
    o = None if observed is None else check_in_range(observed, "observed", -math.inf, math.inf)
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
    if o is not None:
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


# =============================================================================================== linkage


def generalisation_label(age_band: int, keep_town: bool, *, short: bool = False) -> str:
    """How a release generalises lesson 01's quasi-identifiers, in words: ``"age + town"``, ``"10-year age band +
    town"``, ``"age (town suppressed)"``, …; ``short`` gives the two-line tick label (``"10-yr<br>town"``).
    ``age_band`` and ``keep_town`` as in :func:`dpviz.attacks.quasi_identifier_classes`."""
    w = check_integer(age_band, "age_band", minimum=0, maximum=150)
    if not isinstance(keep_town, (bool, np.bool_)):
        raise ValueError(f"keep_town = {keep_town!r} is not allowed: must be True or False.")
    if short:
        age = {0: "no age", 1: "age"}.get(w, f"{w}-yr")
        return f"{age}<br>{'town' if keep_town else 'no town'}"
    age = {0: "", 1: "age"}.get(w, f"{w}-year age band")
    if keep_town:
        return f"{age} + town" if age else "town (age suppressed)"
    return f"{age} (town suppressed)" if age else "nothing (age and town suppressed)"


def linkage_figure(results, selected: int = 0, *, show_disclosed: bool = False, expected=None,
                   template: str = TEMPLATE) -> go.Figure:
    """The linkage attack (Sweeney 2002) on one population under several releases of its quasi-identifiers, from
    :func:`dpviz.attacks.linkage_by_generalisation`: for each release (x, finest first), the percentage of the n
    people who are unique on the released quasi-identifiers and the percentage re-identified by name (unique and on
    the register), with k-anonymity's k (the smallest class) written above. The ``selected`` release is shaded.

    ``show_disclosed`` adds the percentage whose sensitive value the register reveals (re-identified, or in a class
    whose rows all share the value: k-anonymity's failure); ``expected`` (one fraction per release, e.g.
    :func:`dpviz.attacks.expected_unique_fraction`) marks the exact expected percentage unique.

    Parameters
    ----------
    results : sequence of dpviz.attacks.LinkageResult
        1 to 20 releases of the same people and register.
    selected : int
        Index of the release to shade, 0 ≤ selected < len(results).
    """
    if isinstance(results, LinkageResult) or not isinstance(results, (list, tuple)):
        raise ValueError(f"results = {str(results)[:60]!r} is not allowed: must be a list or tuple of "
                         "dpviz.attacks.LinkageResult.")
    if not 1 <= len(results) <= 20 or not all(isinstance(r, LinkageResult) for r in results):
        raise ValueError("results is not allowed: must hold 1 to 20 dpviz.attacks.LinkageResult.")
    n = results[0].n
    listed = int(results[0].on_register.sum())
    if any(r.n != n or not np.array_equal(r.on_register, results[0].on_register) for r in results):
        raise ValueError("results is not allowed: every release must be of the same people and register.")
    sel = check_integer(selected, "selected", minimum=0, maximum=len(results) - 1)
    if not isinstance(show_disclosed, (bool, np.bool_)):
        raise ValueError(f"show_disclosed = {show_disclosed!r} is not allowed: must be True or False.")
    exp = None
    if expected is not None:
        exp = [check_probability(e, "expected") for e in np.atleast_1d(np.asarray(expected, dtype=object))]
        if len(exp) != len(results):
            raise ValueError(f"expected has {len(exp)} values, which is not allowed: must have one per release "
                             f"({len(results)}).")
    labels = [generalisation_label(r.age_band, r.keep_town, short=True) for r in results]
    pct = 100.0 / n
    traces: list[dict] = [
        dict(type="bar", x=labels, y=[pct * int(r.unique.sum()) for r in results],
             name="unique on the released quasi-identifiers", marker=dict(color=ROLE["x"]),
             hovertemplate="%{y:.1f} % unique<extra></extra>"),
        dict(type="bar", x=labels, y=[pct * int(r.reidentified.sum()) for r in results],
             name="re-identified by name (unique, on roll)", marker=dict(color=ROLE["approx"]),
             hovertemplate="%{y:.1f} % re-identified<extra></extra>"),
    ]
    if show_disclosed:
        traces.append(dict(type="bar", x=labels, y=[pct * int(r.disclosed.sum()) for r in results],
                           name="condition revealed (on roll)",
                           marker=dict(color=ROLE["alt"]), hovertemplate="%{y:.1f} % revealed<extra></extra>"))
    if exp is not None:
        traces.append(dict(type="scatter", x=labels, y=[100.0 * e for e in exp], mode="markers",
                           name="expected % unique (exact)",
                           marker=dict(color=ROLE["bound"], symbol="diamond", size=10),
                           hovertemplate="expected %{y:.1f} % unique<extra></extra>"))
    shapes = [dict(type="rect", xref="x", yref="paper", x0=sel - 0.5, x1=sel + 0.5, y0=0, y1=1, layer="below",
                   line=dict(width=0), fillcolor="rgba(230, 159, 0, 0.18)")]
    annotations = [dict(x=label, y=1, xref="x", yref="paper", text=f"k = {r.k}", showarrow=False,
                        yanchor="bottom", font=dict(size=11)) for label, r in zip(labels, results)]
    title = f"Linkage attack: n = {n} people<br>the voter roll lists {listed} of them"
    # height 660 = top 95 + plot 308 + bottom 257 (legend of up to 4 rows, caption below 170 px, 5 lines)
    layout = _layout(title, "released age (band) and town", "people (% of n)", template=template,
                     title_size=15, legend=_legend_below(308), height=660, margin=dict(t=95), barmode="group",
                     shapes=shapes, annotations=annotations)
    layout["yaxis"].update(range=[0, 105])
    layout["xaxis"].update(tickfont=dict(size=10), tickangle=0)  # two short lines fit 6 categories at 360 px
    fig = go.Figure(data=traces, layout=layout)
    caption(fig, "Exact join of the release (no names) and the<br>roll on the released values (Sweeney 2002).<br>"
                 "k = smallest class (k-anonymity). Revealed:<br>unique, or in a class whose rows all agree.<br>"
                 "Shaded: the release the readout describes.", below=170)
    return fig


# =============================================================================================== reconstruction


def reconstruction_figure(curve: ReconstructionCurve, noise_scale: float | None = None,
                          fraction_at_noise: float | None = None, *, seed: int | None = None,
                          template: str = TEMPLATE) -> go.Figure:
    """Fraction of secret bits recovered against the noise bound E (log axis), from
    :func:`dpviz.attacks.reconstruction_curve`: the mean over its draws and each draw, the √n line of Dinur &
    Nissim 2003 and the 50 % chance line. ``noise_scale`` E > 0 (with ``fraction_at_noise``, a fraction in [0, 1])
    marks the current E; ``seed`` (an integer ≥ 0) is named in the Monte Carlo note."""
    if not isinstance(curve, ReconstructionCurve):
        raise ValueError(f"curve = {curve!r} is not allowed: must be a dpviz.attacks.ReconstructionCurve.")
    if noise_scale is not None:
        noise_scale = Interval(0.0, NOISE_BOUND.high, open_low=True).check(noise_scale, "noise_scale")
    if fraction_at_noise is not None:
        fraction_at_noise = check_probability(fraction_at_noise, "fraction_at_noise")
    if seed is not None:
        seed = check_integer(seed, "seed", minimum=0)
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
    if noise_scale is not None and fraction_at_noise is not None:
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
    (:meth:`dpviz.mechanisms.Gaussian.tradeoff`) — and its allowed region shaded. ``noisy`` must release the same
    count as ``raw`` (the same n and p)."""
    if not isinstance(raw, MembershipTradeoff):
        raise ValueError(f"raw = {raw!r} is not allowed: must be a dpviz.attacks.MembershipTradeoff.")
    if noisy is not None:
        if not isinstance(noisy, MembershipTradeoff) or noisy.noise == "none":
            raise ValueError(f"noisy = {noisy!r} is not allowed: must be None or the dpviz.attacks.MembershipTradeoff "
                             "of a Laplace or Gaussian release.")
        if (noisy.n, noisy.p) != (raw.n, raw.p):
            raise ValueError(f"noisy is not allowed with raw: both must release the same count (n = {raw.n}, "
                             f"p = {raw.p:g}; noisy has n = {noisy.n}, p = {noisy.p:g}).")
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

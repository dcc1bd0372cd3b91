"""Figures for lesson 03 "Privacy loss": output distributions on neighbouring inputs, the privacy loss random
variable, the privacy profile δ(ε), the hypothesis-testing (trade-off) view, and the vector release (ℓ1 against ℓ2
sensitivity: Laplace noise per coordinate against the Gaussian N(0, σ²I)).

Every builder is a pure function of a mechanism from :mod:`dpviz.mechanisms` (or plain numbers) and returns a new
``plotly.graph_objects.Figure`` in the shared ``"dpviz"`` template, with a caption citing the formula it draws.
The numbers come from the core: the mechanisms' exact profiles, privacy-loss distributions and trade-off curves,
:mod:`dpviz.gaussian_profiles` (exact vs classic vs zCDP δ(ε); the clipped vector sum) and :mod:`dpviz.tradeoff` (the
(ε, δ)-DP region). Bad input (an object that is not one of the lesson's mechanisms, an ε that is not a number ≥ 0, a
mechanism whose numbers leave what a figure can draw) gets a ValueError naming the parameter.
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from dpviz import mechanisms as mech
from dpviz._validation import Interval, check_delta, check_integer, check_positive
from dpviz.gaussian_profiles import DIMENSION, clipped_sum_noise, gaussian_profile_curves
from dpviz.plots._theme import (
    ROLE,
    TEMPLATE,
    _append_annotation,
    _bar,
    _gaps,
    _hline,
    _layout,
    _scatter,
    _vline,
    caption,
)
from dpviz.tradeoff import dp_region_kink, dp_region_lower_bound

__all__ = [
    "MECHANISM_NAMES",
    "mechanism_label",
    "output_distributions_figure",
    "privacy_loss_figure",
    "privacy_profile_figure",
    "tradeoff_figure",
    "vector_release_figure",
]

#: Display names of the mechanisms of :mod:`dpviz.mechanisms`.
MECHANISM_NAMES = {
    "Laplace": "Laplace",
    "Gaussian": "Gaussian",
    "RandomizedResponse": "randomized response",
    "DiscreteLaplace": "discrete Laplace",
    "DiscreteGaussian": "discrete Gaussian",
    "TruncatedDiscreteLaplace": "truncated discrete Laplace",
}

_SOURCES = {
    "Laplace": "Laplace mechanism (Dwork & Roth 2014, Def. 3.3)",
    "Gaussian": "Gaussian mechanism (Dwork & Roth 2014, Thm A.1; Balle & Wang 2018, Thm 8)",
    "RandomizedResponse": "randomized response (Warner 1965; Dwork & Roth 2014, §3.2)",
    "DiscreteLaplace": "discrete Laplace (Ghosh, Roughgarden & Sundararajan 2012; Canonne, Kamath & Steinke 2020)",
    "DiscreteGaussian": "discrete Gaussian (Canonne, Kamath & Steinke 2020, Def. 1)",
    "TruncatedDiscreteLaplace": "TDLap (Ghazi et al. 2023, Def 8: user-level DP with few examples per user)",
}


def mechanism_label(mechanism) -> str:
    """Short description with parameters, e.g. ``"Gaussian, σ = 1, Δ = 1"`` (a ValueError for an object that is
    not one of the mechanisms of :data:`MECHANISM_NAMES`)."""
    _check_mech(mechanism)
    m = mechanism
    n = type(m).__name__
    name = MECHANISM_NAMES.get(n, n)
    if isinstance(m, mech.Gaussian):
        return f"{name}, σ = {m.sigma:.3g}, Δ = {m.sensitivity:.3g}"
    if isinstance(m, mech.DiscreteGaussian):
        return f"{name}, σ = {m.sigma:.3g}, Δ = {m.sensitivity}"
    if isinstance(m, (mech.Laplace, mech.DiscreteLaplace)):
        return f"{name}, b = {m.scale:.3g}, Δ = {m.sensitivity:.3g}"
    if isinstance(m, mech.RandomizedResponse):
        return f"{name}, ε<sub>RR</sub> = {float(m.epsilon):.3g}"
    if isinstance(m, mech.TruncatedDiscreteLaplace):
        return f"{name}, ε<sub>RR</sub> = {float(m.epsilon):.3g}, its δ = {float(m.delta):.2g}, κ = {m.kappa}"
    return name


def _check_mech(m) -> None:
    if type(m).__name__ not in MECHANISM_NAMES or not isinstance(m, mech._Mechanism):
        raise ValueError(f"mechanism = {m!r} is not allowed: must be one of {', '.join(MECHANISM_NAMES)} "
                         "(a dpviz.mechanisms object).")


#: The noise scale (σ or b) an output-distribution figure draws: at most 10³⁰⁰ (its axis spans about ±7 scales, which
#: must stay inside the double range).
DRAWN_SCALE = Interval(0.0, 1e300, open_low=True)
#: The μ = Δ/σ whose privacy loss L ~ N(μ²/2, μ²) a figure draws: at most 10¹⁵⁰ (μ² must stay inside the double range).
DRAWN_MU = Interval(0.0, 1e150, open_low=True)


def _times_exp(q: np.ndarray, eps: float) -> np.ndarray:
    """e^ε·q without overflow warnings or NaN: exp(ε + ln q), so q = 0 gives 0 and a huge ε gives +inf."""
    with np.errstate(divide="ignore", over="ignore"):
        return np.exp(eps + np.log(np.asarray(q, dtype=float)))


def _is_discrete(m) -> bool:
    return isinstance(m, (mech.RandomizedResponse, mech.DiscreteLaplace, mech.DiscreteGaussian,
                          mech.TruncatedDiscreteLaplace))


def _neighbours(m) -> tuple[float, float]:
    if isinstance(m, mech.RandomizedResponse):
        return 0, 1
    if isinstance(m, mech.TruncatedDiscreteLaplace):
        return 0, 1
    return 0, m.sensitivity


# =============================================================================================== output distributions


def output_distributions_figure(mechanism, epsilon: float, *, template: str = TEMPLATE) -> go.Figure:
    """Densities (or pmfs) of M(x) and M(x′) for x = 0, x′ = Δ, the curve e^ε·p_x′, and the shaded excess
    (p_x − e^ε p_x′)_+ whose total area is the hockey-stick divergence H_ε(M(x)‖M(x′)) = δ(ε)
    (Dwork & Roth 2014, Def. 2.4; Balle & Wang 2018, Thm 5; both directions are equal for these symmetric mechanisms).

    A Gaussian or Laplace mechanism whose noise scale exceeds :data:`DRAWN_SCALE` is refused (its axis would
    leave the double range).
    """
    _check_mech(mechanism)
    m = mechanism
    eps = check_positive(epsilon, "epsilon", allow_zero=True)
    x, xp = _neighbours(m)
    d = m.delta(eps)
    if _is_discrete(m):
        if isinstance(m, mech.RandomizedResponse):
            k = np.array([0, 1])
        else:
            spread = {mech.DiscreteLaplace: lambda: 6 * m.scale, mech.DiscreteGaussian: lambda: 4.5 * m.sigma,
                      mech.TruncatedDiscreteLaplace: lambda: m.kappa + 1}[type(m)]()
            r = int(min(max(math.ceil(min(spread, 60.0)), 3), 60))
            k = np.arange(x - r, xp + r + 1)
        p, q = m.pmf(k, value=x), m.pmf(k, value=xp)
        eq = _times_exp(q, eps)
        excess = np.maximum(p - eq, 0.0)
        traces = [
            _bar(x=k - 0.2, y=p, width=0.4, name="p<sub>x</sub>(k) = P[M(x) = k]", marker_color=ROLE["x"]),
            _bar(x=k + 0.2, y=q, width=0.4, name="p<sub>x′</sub>(k) = P[M(x′) = k]", marker_color=ROLE["x_prime"]),
            _scatter(x=k - 0.2, y=np.minimum(eq, 1.0), mode="markers", name="e<sup>ε</sup> · p<sub>x′</sub>(k)",
                     marker=dict(symbol="line-ew-open", size=16, color=ROLE["bound"],
                                 line=dict(width=3, color=ROLE["bound"]))),
            _bar(x=k - 0.2, y=excess, base=np.minimum(eq, p), width=0.4,
                 name=f"excess (p<sub>x</sub> − e<sup>ε</sup> p<sub>x′</sub>)<sub>+</sub>: total δ = {d:.3g}",
                 marker=dict(color=ROLE["shade"], line=dict(color=ROLE["approx"], width=1.5))),
        ]
        xt, yt = "output k (integer)", "probability"
    else:
        scale, sym = (m.scale, "b") if isinstance(m, mech.Laplace) else (m.sigma, "σ")
        if scale > DRAWN_SCALE.high:
            raise ValueError(f"mechanism = {mechanism_label(m)} is not allowed here: to be drawn, its noise scale "
                             f"{sym} = {scale:.3g} must be <= {DRAWN_SCALE.high:g} (the axis spans about ±7{sym}).")
        spread = scale * 7 if isinstance(m, mech.Laplace) else scale * 4.5
        y = np.linspace(x - spread, xp + spread, 601)
        p, q = m.pdf(y, value=x), m.pdf(y, value=xp)
        eq = _times_exp(q, eps)
        lower = np.minimum(p, eq)
        traces = [
            _scatter(x=y, y=p, mode="lines", name="p<sub>x</sub>: density of M(x)",
                     line=dict(color=ROLE["x"], width=3)),
            _scatter(x=y, y=q, mode="lines", name="p<sub>x′</sub>: density of M(x′)",
                     line=dict(color=ROLE["x_prime"], width=3)),
            _scatter(x=y, y=_gaps(np.where(eq <= p.max() * 1.5, eq, np.nan)), mode="lines",
                     name="e<sup>ε</sup> · p<sub>x′</sub>", line=dict(color=ROLE["bound"], dash="dash", width=2)),
            _scatter(x=y, y=lower, mode="lines", line=dict(width=0), showlegend=False, hoverinfo="skip"),
            _scatter(x=y, y=p, mode="lines", line=dict(width=0), fill="tonexty", fillcolor=ROLE["shade"],
                     name=f"area (p<sub>x</sub> − e<sup>ε</sup> p<sub>x′</sub>)<sub>+</sub> = δ(ε) = {d:.3g}",
                     hoverinfo="skip"),
        ]
        xt, yt = "output y (query answer + noise)", "probability density"
    title = f"M(x) vs M(x′): {mechanism_label(m)}; at ε = {eps:.3g}, δ(ε) = {d:.3g}"
    layout = _layout(title, xt, yt, template=template, title_size=15, barmode="overlay",
                     legend=dict(orientation="h", y=-0.2, x=0, yanchor="top", traceorder="normal"),
                     margin=dict(b=150), height=470)
    fig = go.Figure(data=traces, layout=layout)
    if _is_discrete(m):
        fig.update_xaxes(dtick=1 if len(k) <= 25 else None)
    caption(fig, f"x = {x:g}, x′ = {xp:g}. Shaded: (p<sub>x</sub> − e<sup>ε</sup> p<sub>x′</sub>)<sub>+</sub>, "
                 "total area = hockey-stick divergence = δ(ε) "
                 "(Dwork & Roth 2014, Def. 2.4; Balle & Wang 2018, Thm 5).<br>"
                 + _SOURCES[type(m).__name__] + ".", y=-0.42)
    return fig


# =============================================================================================== privacy loss


def privacy_loss_figure(mechanism, epsilon: float, *, template: str = TEMPLATE) -> go.Figure:
    """The privacy loss L = ln(p_x(O)/p_x′(O)), O ~ M(x): its density (continuous part) and atoms, ε marked and
    P[L > ε] shaded/highlighted (Dwork & Roth 2014, §2.3; Balle & Wang 2018, Thm 5:
    δ(ε) = E[(1 − e^{ε−L})₊] ≤ P[L > ε]).

    The axis covers the distribution of L; an ε far beyond it is marked at the right edge (its value in the label).
    A Gaussian with μ = Δ/σ above :data:`DRAWN_MU` is refused: its L ~ N(μ²/2, μ²) leaves the double range."""
    _check_mech(mechanism)
    m = mechanism
    eps = check_positive(epsilon, "epsilon", allow_zero=True)
    pld = m.privacy_loss()
    a = np.asarray(pld.atoms, dtype=float)
    w = np.asarray(pld.masses, dtype=float)
    keep = w > 1e-7 * max(w.max(), 1e-300) if w.size else np.zeros(0, dtype=bool)
    a, w = a[keep], w[keep]
    finite = np.isfinite(a)
    traces: list[go.BaseTraceType] = []
    window: list[float] = []  # the range the continuous part of L occupies
    if pld.density is not None:
        lo, hi = pld.support
        if not (math.isfinite(lo) and math.isfinite(hi)) and isinstance(m, mech.Gaussian):
            mu = m.mu
            if mu > DRAWN_MU.high:
                raise ValueError(f"mechanism = {mechanism_label(m)} is not allowed here: to be drawn, its μ = Δ/σ = "
                                 f"{mu:.3g} must be <= {DRAWN_MU.high:g} (L ~ N(μ²/2, μ²) leaves the double range).")
            lo, hi = mu * mu / 2 - 4.5 * mu, mu * mu / 2 + 4.5 * mu
        if math.isfinite(lo) and math.isfinite(hi) and hi > lo:  # else no continuous part can be drawn
            window = [lo, hi]
            # halves: hi − lo leaves the double range for a Laplace with ε₀ near 1e308 (×2 is exact)
            grid = np.linspace(lo / 2, hi / 2, 400) * 2 if math.isinf(hi - lo) else np.linspace(lo, hi, 400)
            dens = pld.pdf(grid)
            traces.append(_scatter(x=grid, y=dens, mode="lines", name="density of L (continuous part)",
                                   line=dict(color=ROLE["x"], width=3)))
            over = grid >= eps
            if np.any(over):
                g2 = np.concatenate([[max(eps, lo)], grid[over]])
                traces.append(_scatter(x=g2, y=pld.pdf(g2), mode="lines", line=dict(width=0), fill="tozeroy",
                                       fillcolor=ROLE["shade"], name="L > ε (area P[L > ε])", hoverinfo="skip"))
    xmax_f = float(np.max(np.abs(a[finite]))) if np.any(finite) else 0.0
    reach = max([xmax_f] + [abs(v) for v in window] + [0.5])
    span = min(max(reach, eps), 1e307) if eps <= 3.0 * reach + 1.0 else min(reach, 1e307)
    inf_x = span * 1.25 + 0.3
    eps_x = min(eps, span)  # an ε far beyond the distribution is marked at the edge of the axis
    if a.size:
        ax = np.where(finite, a, inf_x)
        big = ax > eps
        for sel, name, col in [(~big, "atoms P[L = ℓ]", ROLE["x"]), (big, "atoms with ℓ > ε", ROLE["approx"])]:
            if not np.any(sel):
                continue
            ys = np.column_stack([np.zeros(sel.sum()), w[sel], np.full(sel.sum(), np.nan)]).ravel()
            xs = np.column_stack([ax[sel], ax[sel], ax[sel]]).ravel()
            traces.append(_scatter(x=xs, y=_gaps(ys), mode="lines", line=dict(color=col, width=3), showlegend=False,
                                   hoverinfo="skip"))
            traces.append(_scatter(x=ax[sel], y=w[sel], mode="markers", name=name,
                                   marker=dict(color=col, size=10),
                                   hovertemplate="ℓ = %{x:.4g}<br>P = %{y:.4g}<extra></extra>"))
    sf = pld.sf(eps)
    d = m.delta(eps)
    layout = _layout(f"Privacy loss L of {mechanism_label(m)}: P[L > ε] = {sf:.3g}, δ(ε) = {d:.3g}",
                     "privacy loss ℓ = ln(p<sub>x</sub>(o)/p<sub>x′</sub>(o))", "density (curve) / probability (atoms)",
                     template=template, title_size=15, legend=dict(orientation="h", y=-0.2, x=0, yanchor="top"),
                     margin=dict(b=140), height=450,
                     # a plain layout shape, not fig.add_vline (which costs ~15 ms per call)
                     shapes=[_vline(eps_x, color=ROLE["bound"], width=2, yref="y domain")])
    fig = go.Figure(data=traces, layout=layout)
    off_axis = "" if eps_x == eps else " (beyond the axis)"
    _append_annotation(fig, x=eps_x, y=1.0, yref="paper", text=f"ε = {eps:.3g}{off_axis}", showarrow=False,
                       yanchor="bottom", font=dict(color=ROLE["bound"]))
    if a.size and np.any(~finite):
        _append_annotation(fig, x=inf_x, y=float(w[~finite].max()), text="ℓ = +∞<br>(x′ cannot<br>produce o)",
                           showarrow=True, ay=-40, font=dict(size=11))
        fig.update_xaxes(range=[-span * 1.1 - 0.2, inf_x + 0.4])
    elif eps_x != eps:
        fig.update_xaxes(range=[-span * 1.1 - 0.2, span * 1.1 + 0.2])
    caption(fig, "L = ln(p<sub>x</sub>(O)/p<sub>x′</sub>(O)), O ~ M(x) (Dwork & Roth 2014, §2.3). "
                 "δ(ε) = E[(1 − e<sup>ε−L</sup>)<sub>+</sub>] ≤ P[L > ε] "
                 "(Balle & Wang 2018, Thm 5);<br>E[e<sup>−L</sup>] = 1 when M(x′) ≪ M(x).", y=-0.4)
    return fig


# =============================================================================================== privacy profile


def privacy_profile_figure(sigma: float, sensitivity: float = 1.0, delta_mark: float | None = None, *,
                           show_epsilon: bool = True, template: str = TEMPLATE) -> go.Figure:
    """δ(ε) of the Gaussian mechanism: exact (Balle & Wang 2018, Thm 8) against the classic calibration
    (Dwork & Roth 2014, Thm A.1: solid where its proof holds, ε < 1; dotted beyond; red marks where it claims a δ
    *smaller* than the truth, i.e. is wrong) and the zCDP conversions (Bun & Steinke 2016, Prop. 1.3; Canonne, Kamath
    & Steinke 2020, Cor. 13), as computed by :func:`dpviz.gaussian_profiles.gaussian_profile_curves`. Log y axis.
    ``delta_mark`` adds the horizontal line δ and (with ``show_epsilon``) the exact ε(δ)."""
    c = gaussian_profile_curves(sigma, sensitivity)
    eps = c["eps"]
    floor = 1e-16

    def clip(v):
        return _gaps(np.where(v > floor, v, np.nan))

    first_beyond = int(np.searchsorted(eps, 1.0))
    valid = np.arange(eps.size) <= first_beyond  # ε < 1, plus one point so the two pieces join
    beyond = np.arange(eps.size) >= first_beyond
    wrong = c["classic"] < c["exact"] * (1 - 1e-9)

    def line(x, y, name, **style):  # plain dicts: go.Figure validates them once (go.Scatter would validate twice)
        return dict(type="scatter", x=x, y=y, mode="lines", name=name, **style)

    traces = [
        line(eps, clip(c["exact"]), "exact δ(ε) (Balle & Wang 2018, Thm 8)", line=dict(color=ROLE["exact"], width=4)),
        line(c["eps_zcdp"], clip(c["cks"]), "zCDP → DP (Canonne, Kamath & Steinke 2020, Cor 13)",
             line=dict(color=ROLE["alt"], width=2, dash="dash")),
        line(c["eps_zcdp"], clip(c["simple"]), "zCDP → DP, ρ + 2√(ρ ln(1/δ)) (Bun & Steinke 2016, Prop 1.3)",
             line=dict(color=ROLE["alt2"], width=2, dash="dashdot")),
        line(eps, clip(np.where(valid, c["classic"], np.nan)),
             "classic 1.25·e<sup>−(εσ/Δ)²/2</sup>, ε < 1 (Dwork & Roth 2014, Thm A.1)",
             line=dict(color=ROLE["approx"], width=2)),
        line(eps, clip(np.where(beyond, c["classic"], np.nan)), "classic formula for ε ≥ 1 (not proven)",
             line=dict(color=ROLE["approx"], width=2, dash="dot")),
        dict(type="scatter", x=eps, y=clip(np.where(wrong, c["classic"], np.nan)), mode="markers",
             name="classic claims δ below the truth: wrong", marker=dict(color=ROLE["approx"], size=6, symbol="x")),
    ]
    g = mech.Gaussian(sigma, sensitivity)
    title = f"Privacy profile of the Gaussian mechanism, σ = {g.sigma:.3g}, Δ = {g.sensitivity:.3g}"
    layout = _layout(title, "ε (privacy loss bound)", "δ(ε)  (log scale)", template=template, title_size=15,
                     legend=dict(x=0.01, y=0.01, xanchor="left", yanchor="bottom", font=dict(size=12)),
                     margin=dict(b=140), height=520,
                     # plain layout shapes/annotations, not fig.add_vrect/add_hline (~15 ms per call)
                     shapes=[dict(type="rect", xref="x", yref="y domain", x0=0, x1=min(1.0, float(eps[-1])),
                                  y0=0, y1=1, fillcolor=ROLE["region"], line=dict(width=0), layer="below")],
                     annotations=[dict(x=0.5, y=1, xref="x", yref="paper", text="ε < 1: classic proof holds",
                                       showarrow=False, yanchor="bottom", font=dict(size=11))])
    layout["yaxis"].update(type="log", range=[-15.5, 0.05], exponentformat="power")
    if delta_mark is not None:
        dm = check_delta(delta_mark, "delta", allow_zero=False)
        layout["shapes"].append(_hline(dm, color=ROLE["bound"], dash="dot", xref="x domain"))
        e_ex = g.epsilon(dm) if show_epsilon else math.nan
        traces.append(dict(type="scatter", x=[e_ex] if show_epsilon else [], y=[dm] if show_epsilon else [],
                           mode="markers",
                           name=f"exact ε(δ) = {e_ex:.4g}" if show_epsilon else "exact ε(δ): hidden until revealed",
                           marker=dict(color=ROLE["exact"], size=12, symbol="diamond")))
    fig = go.Figure(data=traces, layout=layout)
    caption(fig, "Exact: δ(ε) = Φ(Δ/2σ − εσ/Δ) − e<sup>ε</sup> Φ(−Δ/2σ − εσ/Δ) (Balle & Wang 2018, Thm 8). Classic: "
                 "σ = Δ√(2 ln(1.25/δ))/ε (Dwork & Roth 2014, Thm A.1, ε < 1).<br>zCDP: ρ = Δ²/(2σ²) "
                 "(Bun & Steinke 2016, Prop 1.6), converted by Bun & Steinke 2016, Prop 1.3 "
                 "and Canonne, Kamath & Steinke 2020, Cor 13.", y=-0.17)
    return fig


# =============================================================================================== trade-off


def tradeoff_figure(mechanism, epsilon: float, delta: float, *, template: str = TEMPLATE) -> go.Figure:
    """The trade-off curve β = T(M(x), M(x′))(α) of the most powerful tests (Dong, Roth & Su 2022, Def. 2.1) over
    the region that (ε, δ)-DP allows, β ≥ f_{ε,δ}(α) (Kairouz, Oh & Viswanath 2015); points where the curve dips
    below the boundary are marked (there the mechanism is not (ε, δ)-DP)."""
    _check_mech(mechanism)
    m = mechanism
    eps = check_positive(epsilon, "epsilon", allow_zero=True)
    d = check_delta(delta)
    alpha = np.linspace(0.0, 1.0, 401)
    alpha = np.union1d(alpha, np.clip([dp_region_kink(eps, d)], 0, 1))
    beta = m.tradeoff(alpha)
    bound = dp_region_lower_bound(alpha, eps, d)
    viol = beta < bound - 1e-12
    traces = [
        _scatter(x=alpha, y=bound, mode="lines", line=dict(color=ROLE["bound"], width=2),
                 name=f"boundary f<sub>ε,δ</sub> of (ε = {eps:.3g}, δ = {d:.2g})-DP"),
        _scatter(x=alpha, y=1 - alpha, mode="lines", fill="tonexty", fillcolor=ROLE["region"],
                 line=dict(color="#999999", width=1, dash="dot"), name="allowed region (β = 1 − α: perfect privacy)"),
        _scatter(x=alpha, y=beta, mode="lines", line=dict(color=ROLE["x"], width=4),
                 name=f"trade-off of {mechanism_label(m)}"),
        _scatter(x=alpha[viol], y=beta[viol], mode="markers", marker=dict(color=ROLE["approx"], size=5),
                 name="below the boundary: violates (ε, δ)-DP"),
    ]
    ok = not np.any(viol)
    verdict = "satisfies" if ok else "does NOT satisfy"
    layout = _layout(f"Hypothesis-testing view: the mechanism {verdict} (ε = {eps:.3g}, δ = {d:.2g})-DP",
                     "type I error α (say 'x′' when it was x)", "type II error β (say 'x' when it was x′)",
                     template=template, title_size=15,
                     legend=dict(x=0.99, y=0.99, xanchor="right", yanchor="top", font=dict(size=12),
                                 traceorder="normal"),
                     margin=dict(b=140), height=560)
    fig = go.Figure(data=traces, layout=layout)
    fig.update_xaxes(range=[0, 1], constrain="domain")
    fig.update_yaxes(range=[0, 1], scaleanchor="x", scaleratio=1)
    caption(fig, "Trade-off T(P,Q)(α) = inf{β<sub>φ</sub> : α<sub>φ</sub> ≤ α} (Dong, Roth & Su 2022, Def. 2.1). "
                 "(ε, δ)-DP ⟺ β ≥ max(0, 1 − δ − e<sup>ε</sup>α, e<sup>−ε</sup>(1 − δ − α))<br>"
                 "(Kairouz, Oh & Viswanath 2015, Thm 2.1; Dong, Roth & Su 2022, Prop 2.5). "
                 "Discrete mechanisms: Neyman–Pearson tests with randomisation.", y=-0.15)
    return fig


# =============================================================================================== vector release


def vector_release_figure(epsilon: float, delta: float, dimension: int, *, max_dimension: int = 10_000,
                          drawn_to: int | None = None, template: str = TEMPLATE) -> go.Figure:
    """Noise per coordinate against the dimension d for a sum of d-dimensional vectors clipped to ℓ2 norm ≤ C, in
    units of C (:func:`dpviz.gaussian_profiles.clipped_sum_noise`): Laplace noise on every coordinate calibrated by
    the ℓ1 sensitivity Δ₁ = √d·C (pure ε-DP by Dwork & Roth 2014, Def 3.1 and Thm 3.6; standard deviation √2·Δ₁/ε)
    against the Gaussian N(0, σ²I) calibrated by the ℓ2 sensitivity Δ₂ = C (the exact σ of Balle & Wang 2018, Thm 8,
    the same for every d). Log–log axes; ``dimension`` is marked, with the crossover below which Laplace needs less.

    The curves run from d = 1 to ``drawn_to`` (default ``max_dimension``; a panel draws them up to the learner's d),
    the x axis to ``max_dimension`` (≤ :data:`dpviz.gaussian_profiles.DIMENSION`). They pass through about 80
    integer values of d; on log–log axes both curves are straight lines (√d and a constant), so the segments between
    the points are exact.
    """
    eps = check_positive(epsilon, "epsilon")
    dl = check_delta(delta, allow_zero=False)
    top = check_integer(max_dimension, "max_dimension", minimum=2, maximum=DIMENSION.high)
    d = check_integer(dimension, "dimension", minimum=1, maximum=top)
    upto = top if drawn_to is None else check_integer(drawn_to, "drawn_to", minimum=1, maximum=top)
    dims = np.unique(np.round(np.geomspace(1.0, float(upto), 80)))
    curves = clipped_sum_noise(dims, eps, dl)
    here = clipped_sum_noise(d, eps, dl)
    sigma, cross = here["gaussian_sigma"], here["crossover"]
    lap_name = "Laplace per coordinate, Δ<sub>1</sub> = √d·C: √2·Δ<sub>1</sub>/ε"
    gau_name = f"Gaussian N(0, σ²I), Δ<sub>2</sub> = C: σ = {sigma:.3g}·C"
    traces = [
        _scatter(x=dims, y=curves["laplace_sd"], mode="lines", name=lap_name,
                 line=dict(color=ROLE["approx"], width=3, dash="dash"),
                 hovertemplate="Laplace<br>d = %{x:,}<br>noise sd = %{y:.4g}·C<extra></extra>"),
        _scatter(x=[1.0, float(upto)], y=[sigma, sigma], mode="lines", name=gau_name,
                 line=dict(color=ROLE["exact"], width=3),
                 hovertemplate="Gaussian<br>noise sd = %{y:.4g}·C<extra></extra>"),
        _scatter(x=[d, d], y=[here["laplace_sd"], sigma], mode="markers", name=f"your d = {d:,}",
                 marker=dict(color=ROLE["bound"], size=11, symbol="diamond"),
                 hovertemplate="d = %{x:,}<br>noise sd = %{y:.4g}·C<extra></extra>"),
    ]
    shapes = [_vline(d, color=ROLE["bound"], width=1.5)]
    annotations = []
    if 1 <= cross < upto:
        shapes.append(_vline(cross, color="#777777", dash="dot"))
        annotations.append(dict(x=math.log10(cross), y=1.0, xref="x", yref="paper", yanchor="bottom",
                                text=f"Laplace needs less up to d = {cross:,}", showarrow=False,
                                font=dict(size=11)))
    layout = _layout(f"A sum of d vectors clipped to ℓ<sub>2</sub> norm C, at ε = {eps:.3g}, δ = {dl:.2g}",
                     "dimension d (log scale)", "noise standard deviation per coordinate, in units of C (log)",
                     template=template, title_size=15, shapes=shapes, annotations=annotations,
                     legend=dict(orientation="h", y=-0.22, x=0, yanchor="top", traceorder="normal"),
                     margin=dict(b=150), height=480)
    layout["xaxis"].update(type="log", exponentformat="power", range=[-0.05, math.log10(top) + 0.05])
    layout["yaxis"].update(type="log", exponentformat="power")
    fig = go.Figure(data=traces, layout=layout)
    caption(fig, "Laplace: b = Δ<sub>1</sub>/ε, pure ε-DP (Dwork & Roth 2014, Def 3.1, Thm 3.6), sd √2·b. "
                 "Gaussian: the exact σ at Δ<sub>2</sub> = C (Balle & Wang 2018, Thm 8):<br>its privacy loss depends "
                 "only on ‖f(x) − f(x′)‖<sub>2</sub>, so it is the 1-D Gaussian with μ = Δ<sub>2</sub>/σ for every d.",
            y=-0.42)
    return fig

"""Figures of lessons 06 "Composition theorems" and 07 "Accounting in practice": every accountant side by side on
the learner's own settings.

The lesson composes ``k`` copies of one mechanism (Gaussian, Laplace or randomized response), optionally
Poisson-subsampled at rate ``q``, and asks every accountant of :mod:`dpviz.accountants` for its (ε, δ) guarantee:

* :func:`accountant_bars_figure` — ε at the learner's δ, one bar per accountant, the PLD error bar drawn;
* :func:`epsilon_vs_count_figure` — ε against the number of compositions k (log–log), one line per accountant;
* :func:`privacy_profile_figure` — the privacy profile δ(ε) of the composition (log δ), with the PLD band;
* :func:`calibration_figure` — target ε → the noise σ (or Laplace scale b) each accountant needs;
* :func:`group_privacy_figure` — ε and δ for a group of g records, generic group privacy against the exact answer
  of the same mechanism run with sensitivity g (a person with g records);
* :func:`amplification_figure` — amplification by subsampling, ε′ = ln(1 + q(e^ε − 1)) against the sampling rate q
  (log–log), with its small-ε line q·ε (Balle, Barthe & Gaboardi 2018, Thm 8), from
  :func:`dpviz.accountants.amplify_poisson`.

Every number comes from the lab's model, :mod:`dpviz.accountants.compare` (cached there), or from the one home of
the amplification formula, :mod:`dpviz.accountants.amplification`; this module only draws it, with what the lesson
says about each accountant (:data:`ACCOUNTANT_INFO`) in the lesson's order (:data:`ACCOUNTANT_ORDER`). Sources are
cited in the captions and in :mod:`dpviz.accountants.compare`.

Every builder validates its input at its boundary (a ValueError names the parameter as the caller wrote it) and keeps
to the lesson's range: k in :data:`COUNT`, q ≥ :data:`MIN_RATE`, grids of :data:`POINTS` values of ε (of k:
:data:`dpviz.accountants.compare.COUNTS`; calibration: :data:`TARGET_EPSILON`, :data:`CALIBRATION_COUNT`), so that
no call takes minutes.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from dpviz._validation import Interval, check_choice, check_delta, check_in_range, check_integer, check_positive
from dpviz.accountants.amplification import amplify_poisson
from dpviz.accountants.compare import (
    COUNTS,
    NOISE_PARAMETER,
    PROFILE_DELTAS,
    PROFILE_DIRECTION,
    PROFILE_POINT_ONLY,
    calibrated_noise,
    check_setting,
    compare_accountants,
    count_grid,
    epsilon_vs_count,
    exact_epsilon,
    exact_gaussian_sigma,
    exact_profile,
    group_privacy_curves,
    pld_grid_step,
    privacy_profile,
)
from dpviz.plots._theme import (
    DASHES,
    PALETTE,
    ROLE,
    TEMPLATE,
    _bar,
    _hline,
    _layout,
    _scatter,
    _vline,
    approx_note,
    caption,
    fmt_number,
)

__all__ = [
    "ACCOUNTANT_ORDER",
    "ACCOUNTANT_INFO",
    "MECHANISM_LABELS",
    "NOISE_SYMBOL",
    "AccountantInfo",
    "accountant_bars_figure",
    "epsilon_vs_count_figure",
    "privacy_profile_figure",
    "calibration_figure",
    "group_privacy_figure",
    "amplification_figure",
]

#: The order the lesson shows the accountants in (bars, legends, tables): loosest (oldest) to tightest, zCDP before
#: Rényi DP because the lesson's text introduces zCDP's single number ρ before the Rényi curve ε(λ). A display
#: order only: the same accountants as :data:`dpviz.accountants.ACCOUNTANTS`, whose order (rdp before zcdp) the
#: model :mod:`dpviz.accountants.compare` uses.
ACCOUNTANT_ORDER = ("basic", "advanced", "optimal", "zcdp", "rdp", "pld")

#: The mechanisms of the lab and how the lesson names them.
MECHANISM_LABELS = {"gaussian": "Gaussian", "laplace": "Laplace", "rr": "Randomized response"}

#: The noise parameter of each mechanism (symbol shown on axes, titles and readouts): the model's names, except
#: randomized response's ε, which lessons 06 and 07 call ε_step (the guarantee of one of the k composed steps).
NOISE_SYMBOL = {**NOISE_PARAMETER, "rr": "ε<sub>step</sub>"}


@dataclasses.dataclass(frozen=True)
class AccountantInfo:
    """What the lesson says about one accountant: its label, what kind of bound it gives, why, and its source."""

    key: str
    label: str
    kind: str  # "upper bound", "tight for its input", "numerically tight (bracketed)"
    reference: str
    why: str
    colour: str
    dash: str

    def __post_init__(self):
        check_choice(self.key, "key", ACCOUNTANT_ORDER)
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if not isinstance(value, str):
                raise TypeError(f"{f.name} = {value!r} is not allowed: must be a str (the lesson's text).")


ACCOUNTANT_INFO = {
    "basic": AccountantInfo(
        "basic", "Basic", "upper bound (loose)",
        "Dwork, McSherry, Nissim & Smith 2006; Dwork & Roth 2014, Thm 3.16",
        "adds up ε and δ of every step: the worst case where every step's privacy loss is maximal at once. "
        "Linear in k; only tight when k = 1 or for pathological mechanisms.",
        PALETTE[5], DASHES[1]),
    "advanced": AccountantInfo(
        "advanced", "Advanced", "upper bound",
        "Dwork, Rothblum & Vadhan 2010, Thm III.3",
        "sees each step only as an (ε<sub>step</sub>, δ<sub>step</sub>) pair and bounds the summed privacy loss by a "
        "concentration (Azuma) inequality: ε grows like √k, with a loose constant and an extra δ<sub>slack</sub>.",
        PALETTE[1], DASHES[2]),
    "optimal": AccountantInfo(
        "optimal", "Optimal (KOV)",
        "tight for the (ε<sub>step</sub>, δ<sub>step</sub>) description, loose for the mechanism",
        "Kairouz, Oh & Viswanath 2015, Thm 3.3",
        "the exact worst case over ALL (ε<sub>step</sub>, δ<sub>step</sub>)-DP mechanisms (the extreme one is "
        "randomized response). Exact for k randomized responses; for a Gaussian it first forgets the Gaussian's "
        "shape, which costs.",
        PALETTE[3], DASHES[3]),
    "zcdp": AccountantInfo(
        "zcdp", "zCDP", "upper bound (exact ρ, lossy conversion)",
        "Bun & Steinke 2016, Lemma 2.3 & Prop. 1.3; Canonne, Kamath & Steinke 2020, Cor. 13",
        "ρ adds up exactly, and a Gaussian is exactly ρ-zCDP, but the final conversion ρ → (ε, δ) is a "
        "Chernoff-type bound; pure-DP steps enter as ρ = ε<sub>step</sub>²/2 and subsampling is not amplified.",
        PALETTE[2], DASHES[4]),
    "rdp": AccountantInfo(
        "rdp", "Rényi DP", "upper bound (exact curve, lossy conversion)",
        "Mironov 2017, Prop. 1 & 3; Balle et al. 2020, Thm 21 (improved conversion)",
        "composes the Rényi divergence curve ε(λ) of the orders λ exactly (it adds up), then converts to (ε, δ) at "
        "the best order λ: that conversion is where the slack lives (about ln(1/δ)/(λ−1)).",
        PALETTE[4], DASHES[5]),
    "pld": AccountantInfo(
        "pld", "PLD", "numerically tight (error bar = discretisation)",
        "Meiser & Mohammadi 2018; Koskela, Jälkö & Honkela 2020; Doroshenko et al. 2022",
        "composes the whole privacy-loss distribution (convolution by FFT): no inequality at all, only a grid. "
        "The pessimistic end is a valid upper bound, the optimistic end a lower bound.",
        PALETTE[0], DASHES[0]),
}


# --------------------------------------------------------------------------------------------- figures

#: Most compositions k a figure takes: the lesson's sliders stop there (and a subsampled Gaussian at 10⁵ steps already
#: costs the advanced and optimal accountants seconds).
COUNT = Interval(1, 100_000, integer=True)
#: The grid points (``n_points``) a figure evaluates: 2 to 200.
POINTS = Interval(2, 200, integer=True)
#: Smallest sampling rate a figure takes: the lesson's sliders stop there.
MIN_RATE = 1e-3
#: The target ε and number of compositions :func:`calibration_figure` calibrates for (the lesson's sliders stop
#: at 10 and 10⁴): each bar is a binary search over the noise, and PLD's takes seconds at the corners of this range
#: (minutes at q = 10⁻⁶ or ε = 10⁵).
TARGET_EPSILON = Interval(0.0, 20.0, open_low=True)
CALIBRATION_COUNT = Interval(1, 10_000, integer=True)


def _setting(mechanism, noise, count, rate, neighboring) -> tuple[float, int, float]:
    """A lab setting as a figure takes it: :func:`dpviz.accountants.compare.check_setting`, with the figures'
    caps (k in :data:`COUNT`, q ≥ :data:`MIN_RATE`) and ``noise`` named as the caller wrote it."""
    check_choice(mechanism, "mechanism", tuple(MECHANISM_LABELS))
    check_positive(noise, "noise")
    COUNT.check(count, "count")
    check_in_range(rate, "rate", MIN_RATE, 1.0)
    return check_setting(mechanism, noise, count, rate, neighboring)


def _setting_text(mechanism, noise, count, rate, delta=None, neighboring=None) -> str:
    parts = [f"{count:,} × {MECHANISM_LABELS[mechanism]} ({NOISE_SYMBOL[mechanism]} = {noise:.3g})"]
    if rate < 1.0:
        parts.append(f"Poisson-sampled at q = {rate:.3g}")
    if delta is not None:
        parts.append(f"δ = {delta:.0e}")
    if neighboring is not None:
        parts.append(neighboring.replace("_", "/") if neighboring == "add_remove" else "replace-one")
    return ", ".join(parts)


def accountant_bars_figure(mechanism: str = "gaussian", noise: float = 4.0, count: int = 100, rate: float = 1.0,
                           delta: float = 1e-5, neighboring: str = "add_remove", *,
                           template: str = TEMPLATE) -> go.Figure:
    """ε(δ) of the composition from every accountant: one bar each, the PLD bracket as an error bar.

    A dashed line marks the exact ε when a closed form exists (k Gaussians = one Gaussian of σ/√k, Balle & Wang
    2018 Thm 8). Accountants that do not apply get an empty slot labelled "n/a"; an infinite ε (no finite ε
    reaches δ) a bar at the top labelled "∞". The y axis switches to log when the bars span more than 20×.
    """
    noise, count, rate = _setting(mechanism, noise, count, rate, neighboring)
    delta = check_delta(delta, allow_zero=False)
    results = compare_accountants(mechanism, noise, count, rate, delta, neighboring, accountants=ACCOUNTANT_ORDER)
    exact = exact_epsilon(mechanism, noise, count, rate, delta, neighboring)
    if exact is not None and not math.isfinite(exact):
        exact = None  # no finite exact ε to draw a line at (every bar then reads ∞)
    finite = [r.epsilon for r in results if r.available and math.isfinite(r.epsilon)]
    finite += [r.lower for r in results if r.lower is not None and math.isfinite(r.lower) and r.lower > 0]
    if exact is not None:
        finite.append(exact)
    top = max(finite) if finite else 1.0
    pos = [f for f in finite if f > 0]
    use_log = bool(pos) and max(pos) / min(pos) > 20
    labels, ys, texts, colours, hovers = [], [], [], [], []
    err_plus, err_minus = [], []
    for r in results:
        info = ACCOUNTANT_INFO[r.accountant]
        labels.append(info.label)
        colours.append(info.colour)
        if not r.available:
            ys.append(0.0 if not use_log else None)
            texts.append("n/a")
            hovers.append(f"{info.label}: not applicable — {r.error}")
            err_plus.append(0.0)
            err_minus.append(0.0)
            continue
        if math.isinf(r.epsilon):
            ys.append(top * (1.5 if use_log else 1.15))
            texts.append("∞")
            hovers.append(f"{info.label}: no finite ε reaches δ = {delta:.1e}")
            err_plus.append(0.0)
            err_minus.append(0.0)
            continue
        ys.append(r.epsilon)
        texts.append(fmt_number(r.epsilon))
        h = f"{info.label}: ε = {r.epsilon:.6g} ({info.kind})"
        if r.lower is not None:
            h += f"<br>optimistic (lower) end: {r.lower:.6g}"
            err_minus.append(max(r.epsilon - r.lower, 0.0))
        else:
            err_minus.append(0.0)
        if r.alternative is not None:
            alt = "classic conversion" if r.accountant == "rdp" else "simple conversion"
            h += f"<br>{alt}: {r.alternative:.6g}"
        err_plus.append(0.0)
        hovers.append(h)
    bar = _bar(
        x=labels, y=ys, text=texts, textposition="outside", marker=dict(color=colours),
        hovertext=hovers, hoverinfo="text", name="ε certified (PLD: pessimistic end)",
        error_y=dict(type="data", symmetric=False, array=err_plus, arrayminus=err_minus, color="#222222",
                   thickness=2, width=8),
        cliponaxis=False,
    )
    data = [bar]
    if exact is not None:
        data.append(_scatter(x=[labels[0], labels[-1]], y=[exact, exact], mode="lines",
                             line=dict(color=ROLE["truth"], dash="dash", width=2),
                             name=f"exact ε = {exact:.4g}", hoverinfo="name"))
    layout = _layout(f"ε at δ = {delta:.0e}: {_setting_text(mechanism, noise, count, rate)}",
                     "accountant", "ε (lower is tighter)", template=template, showlegend=True,
                     legend=dict(orientation="h", y=1.0, yanchor="bottom", x=1.0, xanchor="right"),
                     margin=dict(t=95))
    layout["yaxis"].update(dict(type="log", exponentformat="power") if use_log else dict(rangemode="tozero"))
    fig = go.Figure(data=data, layout=layout)
    caption(fig, "Sources: Dwork, Rothblum & Vadhan 2010; Kairouz, Oh & Viswanath 2015; "
                 "Bun & Steinke 2016 and Canonne, Kamath & Steinke 2020 (zCDP);<br>"
                 "Mironov 2017 and Balle et al. 2020 (RDP); Meiser & Mohammadi 2018, "
                 "Koskela, Jälkö & Honkela 2020, Doroshenko et al. 2022 (PLD);<br>"
                 "exact: Dong, Roth & Su 2022, Cor 3.3 and Balle & Wang 2018, Thm 8.", below=58)
    if any(r.accountant == "pld" and r.lower is not None for r in results):
        h = pld_grid_step(mechanism, noise, count, neighboring, rate)
        if h > 0:
            approx_note(fig, f"PLD on a grid of step {h:.2g}: error bar = its optimistic…pessimistic bracket",
                        yshift=34)
        else:
            approx_note(fig, "PLD exact here (closed form / binomial law): no grid, no error bar", yshift=34)
    return fig


def epsilon_vs_count_figure(mechanism: str = "gaussian", noise: float = 4.0, rate: float = 1.0,
                            delta: float = 1e-5, neighboring: str = "add_remove", max_count: int = 100_000,
                            current: int | None = 100, *, n_points: int = 13, progress=None,
                            pending: Sequence[str] = (), template: str = TEMPLATE) -> go.Figure:
    """ε against the number of compositions k on log–log axes, one line per accountant, the PLD bracket shaded.

    k runs over :func:`count_grid` (``n_points`` log-spaced integers up to ``max_count``); ``current`` marks the
    learner's k with a vertical line. A dotted reference line shows the exact Gaussian ε when it exists.
    ``pending`` names accountants not computed yet (a panel's partial view): each keeps its legend entry, marked
    "computing…", with no line.
    """
    noise, _, rate = _setting(mechanism, noise, 1, rate, neighboring)
    delta = check_delta(delta, allow_zero=False)
    max_count = COUNT.check(max_count, "max_count")
    n_points = check_integer(n_points, "n_points", minimum=2, maximum=COUNTS.limit)  # each point: every accountant
    if current is not None:
        current = COUNT.check(current, "current")
    pending = _check_pending(pending)
    counts = count_grid(max_count, n_points)
    res = epsilon_vs_count(mechanism, noise, rate, delta, neighboring, counts, progress=progress,
                           accountants=[n for n in ACCOUNTANT_ORDER if n not in pending])
    data = []
    missing = []
    for name in ACCOUNTANT_ORDER:
        info = ACCOUNTANT_INFO[name]
        if name in pending:  # a partial view: the same traces, empty, their names saying so
            ks, es, lows, suffix = [], [], [], " (computing…)"
        else:
            shown = [(k, r) for k, r in zip(counts, res[name], strict=True)
                     if r.available and math.isfinite(r.epsilon) and r.epsilon > 0]
            ks = [k for k, _ in shown]
            es = [r.epsilon for _, r in shown]
            if not ks:
                errs = [r.error for r in res[name] if r.error]
                missing.append(f"{info.label}: {errs[0] if errs else 'no finite ε'}")
                data.append(_scatter(x=[], y=[], mode="lines", name=f"{info.label} (n/a)",
                                     line=dict(color=info.colour, dash=info.dash)))
                continue
            lows = [max(r.lower if r.lower is not None else r.epsilon, 1e-300) for _, r in shown]
            suffix = ""
        if name == "pld":
            data.append(_scatter(x=ks + ks[::-1], y=es + lows[::-1], fill="toself", mode="lines",
                                 line=dict(width=0), fillcolor="rgba(0, 114, 178, 0.25)", hoverinfo="skip",
                                 name="PLD bracket " + (suffix.strip() or "(optimistic…pessimistic)"),
                                 showlegend=True))
        data.append(_scatter(x=ks, y=es, mode="lines+markers", name=info.label + suffix,
                             line=dict(color=info.colour, dash=info.dash, width=2.5), marker=dict(size=5),
                             hovertemplate=f"{info.label}<br>k = %{{x:,}}<br>ε = %{{y:.4g}}<extra></extra>"))
    if mechanism == "gaussian" and rate >= 1.0:
        ex = [exact_epsilon(mechanism, noise, k, rate, delta, neighboring) for k in counts]
        data.append(_scatter(x=list(counts), y=ex, mode="lines", name="exact (one Gaussian of σ/√k)",
                             line=dict(color=ROLE["truth"], dash="dot", width=1.5),
                             hovertemplate="exact<br>k = %{x:,}<br>ε = %{y:.4g}<extra></extra>"))
    title = (f"ε against the number of compositions k, δ = {delta:.0e}: {MECHANISM_LABELS[mechanism]} "
             f"({NOISE_SYMBOL[mechanism]} = {noise:.3g}" + (f", q = {rate:.3g})" if rate < 1.0 else ")"))
    layout = _layout(title, "number of compositions k", "ε", template=template)
    layout["xaxis"].update(type="log", exponentformat="power")
    layout["yaxis"].update(type="log", exponentformat="power")
    if current is not None:
        layout["shapes"] = [_vline(int(current))]
    fig = go.Figure(data=data, layout=layout)
    caption(fig, "Each line: one accountant's certified ε (PLD: pessimistic end). Log–log slope: 1 for basic; "
                 "½ (ε ∝ √k) for the others<br>while kρ < 4 ln(1/δ), rising back to 1 as the mean loss kρ takes over "
                 "(ε ≈ kρ + 2√(kρ ln(1/δ)), Gaussian ρ = Δ²/2σ²: Bun & Steinke 2016, Prop 1.3).<br>Sources: as in "
                 "the bar chart; exact: Dong, Roth & Su 2022, Cor 3.3 and Balle & Wang 2018, Thm 8." + (
                     "<br>Not applicable: " + "; ".join(missing) if missing else ""), below=75)
    approx_note(fig, f"ε computed at {len(counts)} values of k, joined by lines")
    return fig


def _check_pending(pending: Sequence[str]) -> frozenset[str]:
    """The accountants a partial view leaves out, validated against :data:`ACCOUNTANT_ORDER`."""
    out = frozenset(pending)
    unknown = sorted(out - set(ACCOUNTANT_ORDER))
    if unknown:
        raise ValueError(f"pending = {unknown!r}: unknown accountant(s); the accountants are "
                         f"{', '.join(ACCOUNTANT_ORDER)}")
    return out


def _eps_window(results, exact) -> tuple[float, float]:
    vals = [r.epsilon for r in results if r.available and math.isfinite(r.epsilon) and r.epsilon > 0]
    tight = exact if exact is not None and exact > 0 else (min(vals) if vals else 1.0)
    hi = max(vals) if vals else tight
    hi = min(max(hi, tight) * 1.4, 60.0 * tight)
    lo = tight / 5.0
    return lo, max(hi, lo * 10)


def privacy_profile_figure(mechanism: str = "gaussian", noise: float = 4.0, count: int = 100, rate: float = 1.0,
                           delta: float = 1e-5, neighboring: str = "add_remove", *, n_points: int = 40,
                           template: str = TEMPLATE) -> go.Figure:
    """The privacy profile δ(ε) of the composition by every accountant (log δ), with the PLD band shaded.

    Every point (ε, δ) on a curve is a guarantee: the mechanism is (ε, δ(ε))-DP. A lower curve is a better
    guarantee. ε runs over ``n_points`` log-spaced values around the learner's setting; δ below 1e-16 is cut.
    """
    noise, count, rate = _setting(mechanism, noise, count, rate, neighboring)
    delta = check_delta(delta, allow_zero=False)
    n_points = POINTS.check(n_points, "n_points")
    results = compare_accountants(mechanism, noise, count, rate, delta, neighboring, accountants=ACCOUNTANT_ORDER)
    exact = exact_epsilon(mechanism, noise, count, rate, delta, neighboring)
    if exact is not None and not math.isfinite(exact):
        exact = None
    lo, hi = _eps_window(results, exact)
    grid = tuple(float(x) for x in np.geomspace(lo, hi, n_points))
    floor = 1e-16
    data = []
    by_name = {r.accountant: r for r in results}
    point_only = []
    for name in ACCOUNTANT_ORDER:
        info = ACCOUNTANT_INFO[name]
        if name in PROFILE_POINT_ONLY and mechanism == "gaussian":
            # each ε(δ) of these needs a numerical optimisation over the per-step (ε₀, δ₀) split of a Gaussian
            # (~0.25 s), so only the learner's δ is drawn, as the bar chart's point
            r = by_name[name]
            ok = r.available and math.isfinite(r.epsilon) and r.epsilon > 0
            point_only.append(info.label)
            data.append(_scatter(x=[r.epsilon] if ok else [], y=[delta] if ok else [], mode="markers",
                                 name=f"{info.label} (at your δ only)",
                                 marker=dict(color=info.colour, size=11, symbol="diamond"),
                                 hovertemplate=f"{info.label}<br>ε = %{{x:.4g}}<br>δ = %{{y:.1e}}<extra></extra>"))
            continue
        x, d, dlow, err = privacy_profile(name, mechanism, noise, count, rate, neighboring, grid)
        if x is None:
            data.append(_scatter(x=[], y=[], mode="lines", name=f"{info.label} (n/a)",
                                 line=dict(color=info.colour, dash=info.dash)))
            continue
        inside = (x >= lo / 1.001) & (x <= hi * 1.001) & (d >= floor)
        if PROFILE_DIRECTION[name] == "eps":
            inside = (x > 0) & (d >= floor)
        xs = [float(e) for e in x[inside]]
        y = [float(min(v, 1.0)) for v in d[inside]]
        if dlow is not None and xs:
            yl = [float(min(max(v, floor), 1.0)) for v in dlow[inside]]
            data.append(_scatter(x=xs + xs[::-1], y=y + yl[::-1], fill="toself",
                                 mode="lines", line=dict(width=0), fillcolor="rgba(0, 114, 178, 0.25)",
                                 hoverinfo="skip", name="PLD band (optimistic…pessimistic)"))
        data.append(_scatter(x=xs, y=y, mode="lines", name=info.label,
                             line=dict(color=info.colour, dash=info.dash, width=2.5),
                             hovertemplate=f"{info.label}<br>ε = %{{x:.4g}}<br>δ = %{{y:.3e}}<extra></extra>"))
    dex = exact_profile(mechanism, noise, count, rate, neighboring, grid)
    if exact is not None and dex is not None:
        data.append(_scatter(x=list(grid), y=[float(v) if v >= floor else None for v in dex], mode="lines",
                             name="exact (Gaussian σ/√k)", line=dict(color=ROLE["truth"], dash="dot", width=1.5),
                             hovertemplate="exact<br>ε = %{x:.4g}<br>δ = %{y:.3e}<extra></extra>"))
    title = f"Privacy profile δ(ε): {_setting_text(mechanism, noise, count, rate)}"
    layout = _layout(title, "ε", "δ(ε)  (log scale)", template=template)
    layout["yaxis"].update(type="log", exponentformat="power", range=[-16, 0.05])
    layout["xaxis"].update(type="log", exponentformat="power", range=[math.log10(lo), math.log10(hi)])
    layout["shapes"] = [_hline(delta)]
    layout["annotations"] = [dict(text=f"your δ = {delta:.0e}", xref="paper", yref="y", x=0.0, y=math.log10(delta),
                                  xanchor="left", yanchor="top", showarrow=False, font=dict(size=11))]
    fig = go.Figure(data=data, layout=layout)
    caption(fig, "Every point (ε, δ) on a curve is a valid guarantee; lower is tighter. "
                 "Sources: as in the bar chart; privacy profile: Balle, Barthe & Gaboardi 2018.", below=75)
    note = f"curves through {n_points} values of ε (or ≤ {len(PROFILE_DELTAS)} of δ)"
    if point_only:
        note += "; " + " and ".join(point_only) + " at your δ only"
    approx_note(fig, note)
    return fig


def calibration_figure(mechanism: str = "gaussian", target_epsilon: float = 1.0, delta: float = 1e-5,
                       count: int = 100, rate: float = 1.0, *, progress=None, pending: Sequence[str] = (),
                       template: str = TEMPLATE) -> go.Figure:
    """Target ε → the smallest noise each accountant needs (σ for a Gaussian, b for Laplace), one bar each.

    Less noise for the same target means a tighter accountant: the same privacy claim, more accuracy. The exact σ
    (√k × the Balle–Wang σ₁) is marked for unsampled Gaussians. ``pending`` names accountants not computed yet (a
    panel's partial view): their bars are left out, labelled "computing…". The target ε is at most
    :data:`TARGET_EPSILON`, k in :data:`CALIBRATION_COUNT`, q at least :data:`MIN_RATE`.
    """
    check_choice(mechanism, "mechanism", ("gaussian", "laplace"))
    target_epsilon = TARGET_EPSILON.check(target_epsilon, "target_epsilon")
    delta = check_delta(delta, allow_zero=False)
    count = CALIBRATION_COUNT.check(count, "count")
    rate = check_in_range(rate, "rate", MIN_RATE, 1.0)
    pending = _check_pending(pending)
    labels, ys, texts, colours, hovers = [], [], [], [], []
    for i, name in enumerate(ACCOUNTANT_ORDER):
        info = ACCOUNTANT_INFO[name]
        if name in pending:
            labels.append(info.label)
            colours.append(info.colour)
            ys.append(None)
            texts.append("computing…")
            hovers.append(f"{info.label}: still computing")
            continue
        val, err = calibrated_noise(name, mechanism, target_epsilon, delta, count, rate)
        if progress is not None:
            progress((i + 1) / len(ACCOUNTANT_ORDER))
        labels.append(info.label)
        colours.append(info.colour)
        ys.append(val)
        texts.append(fmt_number(val))
        hovers.append(f"{info.label}: {NOISE_SYMBOL[mechanism]} = {val:.6g}" if val is not None
                      else f"{info.label}: not applicable — {err}")
    sym = NOISE_SYMBOL[mechanism]
    data = [_bar(x=labels, y=ys, text=texts, textposition="outside", marker=dict(color=colours),
                 hovertext=hovers, hoverinfo="text", name=f"smallest {sym} certified", cliponaxis=False)]
    if mechanism == "gaussian" and rate >= 1.0:
        ex = exact_gaussian_sigma(target_epsilon, delta, count)
        data.append(_scatter(x=[labels[0], labels[-1]], y=[ex, ex], mode="lines",
                             line=dict(color=ROLE["truth"], dash="dash", width=2),
                             name=f"exact σ = {ex:.4g}", hoverinfo="name"))
    layout = _layout(
        f"Noise needed for ε = {target_epsilon:.3g} at δ = {delta:.0e} after k = {count:,} "
        f"{MECHANISM_LABELS[mechanism]} steps" + (f", q = {rate:.3g}" if rate < 1.0 else ""),
        "accountant", f"smallest {sym} (lower = more accurate)", template=template,
        legend=dict(orientation="h", y=1.0, yanchor="bottom", x=1.0, xanchor="right"), margin=dict(t=95),
        showlegend=True)
    vals = [v for v in ys if v is not None]
    layout["yaxis"].update(dict(type="log", exponentformat="power") if vals and max(vals) / min(vals) > 20
                          else dict(rangemode="tozero"))
    fig = go.Figure(data=data, layout=layout)
    caption(fig, "Each bar: the smallest noise whose composed ε, as certified by that accountant, does not exceed "
                 "the target (binary search).<br>Exact σ: √k · σ₁ with σ₁ from Balle & Wang 2018, Thm 8.", below=58)
    approx_note(fig, "binary search on the noise (never overshoots the target)", yshift=34)
    return fig


def group_privacy_figure(mechanism: str = "gaussian", noise: float = 4.0, delta: float = 1e-5,
                         group: int = 4, max_group: int = 20, *, template: str = TEMPLATE) -> go.Figure:
    """ε (left) and δ (right, log) for a group of g records: generic group privacy vs the exact sensitivity-g answer.

    Generic: (gε₁, δ₁(e^(gε₁)−1)/(e^(ε₁)−1)) (Ghazi et al. 2023, Lemma 6; Dwork & Roth 2014, Thm 2.2 for δ = 0).
    Exact: the same mechanism with sensitivity g — what a user who contributes g records actually gets (Balle & Wang
    2018, Thm 8 for the Gaussian; ε = g/b for Laplace). Where the generic δ_g reaches 1 the generic guarantee (and
    the exact ε at that δ_g) is vacuous: those points are not drawn, and the range is shaded "no guarantee".
    """
    check_choice(mechanism, "mechanism", ("gaussian", "laplace"))
    noise = check_positive(noise, "noise")
    delta = check_delta(delta, allow_zero=False)
    max_group = check_integer(max_group, "max_group", minimum=2, maximum=1000)
    group = check_integer(group, "group", minimum=1, maximum=max_group)
    c = group_privacy_curves(mechanism, noise, delta, max_group)
    ks = [int(k) for k in c["k"]]
    dg = np.asarray(c["delta_generic"], dtype=float)
    vacuous = dg >= 1.0

    def meaningful(values) -> list:  # a vacuous bound is no point at all, never ε = 0
        return [None if v else float(x) for x, v in zip(values, vacuous, strict=True)]

    # two side-by-side axes built directly in the layout (make_subplots and add_vline cost ~50 ms per update)
    data = [_scatter(x=ks, y=meaningful(c["eps_generic"]), mode="lines+markers",
                     name="generic group privacy (gε₁)", line=dict(color=ROLE["approx"], dash="dash"),
                     hovertemplate="generic<br>g = %{x}<br>ε = %{y:.4g}<extra></extra>")]
    if mechanism == "gaussian":
        data.append(_scatter(x=ks, y=meaningful(c["eps_exact_same_delta"]), mode="lines+markers",
                             name="exact, sensitivity g, at the generic δ<sub>g</sub>", line=dict(color=ROLE["alt"]),
                             hovertemplate="exact at δ<sub>g</sub><br>g = %{x}<br>ε = %{y:.4g}<extra></extra>"))
    data.append(_scatter(x=ks, y=list(c["eps_exact"]), mode="lines+markers",
                         name=f"exact, sensitivity g, at δ = {delta:.0e}" if mechanism == "gaussian"
                         else "exact, sensitivity g (pure, δ = 0)", line=dict(color=ROLE["exact"], width=3),
                         hovertemplate="exact<br>g = %{x}<br>ε = %{y:.4g}<extra></extra>"))
    if mechanism == "gaussian":
        data.append(_scatter(x=ks, y=[float(v) for v in dg], mode="lines+markers", name="generic δ<sub>g</sub>",
                             line=dict(color=ROLE["approx"], dash="dash"), showlegend=False, xaxis="x2",
                             yaxis="y2",
                             hovertemplate="generic<br>g = %{x}<br>δ<sub>g</sub> = %{y:.3e}<extra></extra>"))
        data.append(_scatter(x=ks, y=[delta] * len(ks), mode="lines", name="δ of the exact curve",
                             line=dict(color=ROLE["exact"], width=3), showlegend=False, xaxis="x2", yaxis="y2",
                             hovertemplate="exact<br>δ = %{y:.1e}<extra></extra>"))
    else:
        data.append(_scatter(x=ks, y=[0.0] * len(ks), mode="lines", name="δ = 0 (pure DP) both ways",
                             line=dict(color=ROLE["exact"], width=3), showlegend=False, xaxis="x2", yaxis="y2",
                             hovertemplate="δ = 0<extra></extra>"))
    shapes = [_vline(group, xref=xr) for xr in ("x", "x2")]
    annotations = [dict(text=t, xref="paper", yref="paper", x=x, y=1.0, xanchor="center", yanchor="bottom",
                        showarrow=False, font=dict(size=14))
                   for t, x in (("ε for a group of g records", 0.215), ("δ for a group of g records", 0.785))]
    if np.any(vacuous):
        first = int(np.asarray(ks)[vacuous][0])
        shapes.append(dict(type="rect", xref="x", yref="y domain", x0=first - 0.5, x1=ks[-1] + 0.5, y0=0, y1=1,
                           fillcolor=ROLE["shade"], opacity=0.35, line=dict(width=0), layer="below"))
        annotations.append(dict(text=f"g ≥ {first}: generic δ<sub>g</sub> ≥ 1,<br>no guarantee", xref="x",
                                yref="y domain", x=first - 0.4, y=0.98, xanchor="left", yanchor="top",
                                showarrow=False, font=dict(size=11)))
    y2 = dict(title=dict(text="δ"), anchor="x2")
    if mechanism == "gaussian":
        y2.update(type="log", exponentformat="power")
        shapes.append(_hline(1.0, xref="x2 domain", yref="y2", dash="dot"))
        annotations.append(dict(text="δ = 1: no guarantee", xref="x2 domain", yref="y2", x=0.02, y=0.0,
                                xanchor="left", yanchor="top", showarrow=False, font=dict(size=11)))
    layout = dict(
        template=template,
        title=dict(text=f"Group privacy for {MECHANISM_LABELS[mechanism]} ({NOISE_SYMBOL[mechanism]} = {noise:.3g})"),
        xaxis=dict(domain=[0.0, 0.43], title=dict(text="group size g (records of one person)"), anchor="y",
                   range=[0.5, ks[-1] + 0.5]),
        yaxis=dict(title=dict(text="ε"), rangemode="tozero", anchor="x"),
        xaxis2=dict(domain=[0.57, 1.0], title=dict(text="group size g"), anchor="y2"),
        yaxis2=y2, shapes=shapes, annotations=annotations,
        legend=dict(orientation="h", y=-0.25, x=0, yanchor="top"), margin=dict(b=140), height=470)
    fig = go.Figure(data=data, layout=layout)
    caption(fig, "Generic: Ghazi et al. 2023, Lemma 6, geometric δ factor (e<sup>gε₁</sup> − 1)/(e<sup>ε₁</sup> − 1). "
                 "Exact: the mechanism with sensitivity g<br>(Balle & Wang 2018, Thm 8; Laplace: ε = g/b).", below=105)
    return fig


#: The ε of the reference curves of :func:`amplification_figure` (the learner's ε is drawn on top).
AMPLIFICATION_EPSILONS = (0.1, 1.0, 10.0)
#: Smallest sampling rate :func:`amplification_figure` draws (its q axis spans 10⁻⁴ … 1).
MIN_DRAWN_RATE = 1e-4


def amplification_figure(epsilon: float = 1.0, rate: float = 0.01, *, template: str = TEMPLATE) -> go.Figure:
    """Amplification by subsampling: the ε′ = ln(1 + q(e^ε − 1)) of an ε-DP mechanism run on a Poisson sample of
    rate q, under add/remove neighbours (Balle, Barthe & Gaboardi 2018, Thm 8; δ′ = qδ), against q on log–log axes.

    One curve per ε of :data:`AMPLIFICATION_EPSILONS` and one, thicker, for ``epsilon``; each with its dotted
    small-ε line q·ε (ε′ ≤ q(e^ε − 1), and ε′ ≈ qε when ε is small) and, for ``epsilon``, the unamplified ε and a
    marker at ``rate``. Every value is the closed form of :func:`dpviz.accountants.amplify_poisson` at about 60
    values of q in [:data:`MIN_DRAWN_RATE`, 1], joined by lines. ε in (0, 50]: beyond, ε′ = ε + ln(q) to double
    precision and the figure has nothing new to show.
    """
    eps = check_in_range(epsilon, "epsilon", 0.0, 50.0, low_inclusive=False)
    q = check_in_range(rate, "rate", MIN_DRAWN_RATE, 1.0)
    qs = np.geomspace(MIN_DRAWN_RATE, 1.0, 61)
    data = []
    family = [e for e in AMPLIFICATION_EPSILONS if not math.isclose(e, eps, rel_tol=1e-9)]
    for i, e in enumerate([*family, eps]):
        mine = i == len(family)
        colour = ROLE["exact"] if mine else (PALETTE[1], PALETTE[2], PALETTE[3])[i]
        amplified = [amplify_poisson(e, 0.0, float(x))[0] for x in qs]
        data.append(_scatter(x=qs, y=amplified, mode="lines", name=f"ε′ for ε = {e:.3g}" + (" (yours)" if mine else ""),
                             line=dict(color=colour, width=4 if mine else 2),
                             hovertemplate=f"ε = {e:.3g}<br>q = %{{x:.3g}}<br>ε′ = %{{y:.4g}}<extra></extra>"))
        data.append(_scatter(x=qs, y=qs * e, mode="lines", name=f"q·ε for ε = {e:.3g}", showlegend=mine,
                             line=dict(color=colour, width=1.5, dash="dot"),
                             hovertemplate=f"q·ε, ε = {e:.3g}<br>q = %{{x:.3g}}<br>q·ε = %{{y:.4g}}<extra></extra>"))
    here = amplify_poisson(eps, 0.0, q)[0]
    data.append(_scatter(x=[q], y=[here], mode="markers", name=f"your q = {q:.3g}: ε′ = {here:.3g}",
                         marker=dict(color=ROLE["bound"], size=12, symbol="diamond"),
                         hovertemplate="q = %{x:.3g}<br>ε′ = %{y:.4g}<extra></extra>"))
    layout = _layout("Amplification by subsampling: ε′ = ln(1 + q(e<sup>ε</sup> − 1))",
                     "sampling rate q (log scale)", "ε′ of the subsampled mechanism (log scale)", template=template,
                     legend=dict(orientation="h", y=-0.22, x=0, yanchor="top"), margin=dict(b=150), height=500,
                     shapes=[_hline(eps, xref="x domain", dash="dash"), _vline(q)])
    layout["xaxis"].update(type="log", exponentformat="power", range=[math.log10(MIN_DRAWN_RATE), 0.0])
    low = min(MIN_DRAWN_RATE * min([*AMPLIFICATION_EPSILONS, eps]), here)
    layout["yaxis"].update(type="log", exponentformat="power",
                           range=[math.log10(low) - 0.2, math.log10(max(eps, *AMPLIFICATION_EPSILONS)) + 0.3])
    layout["annotations"] = [dict(text=f"no sampling: ε = {eps:.3g}", xref="paper", yref="y", x=0.0,
                                  y=math.log10(eps), xanchor="left", yanchor="bottom", showarrow=False,
                                  font=dict(size=11))]
    fig = go.Figure(data=data, layout=layout)
    caption(fig, "Poisson sampling at rate q, add/remove neighbours: an (ε, δ)-DP mechanism becomes "
                 "(ln(1 + q(e<sup>ε</sup> − 1)), qδ)-DP (Balle, Barthe & Gaboardi 2018, Thm 8).<br>Dotted: q·ε, "
                 "the small-ε approximation. Once q·e<sup>ε</sup> ≫ 1 the gain is only ln(1/q): ε′ ≈ ε − ln(1/q).",
            below=110)
    return fig

"""Figures of lesson 15 "Privacy per attribute" (Ghazi, Kumar, Manurangsi & Steinke 2023).

* :func:`record_epsilon_figure` — ε0 → whole-record ε against d: pure d·ε0, (ε, δ) by the simple and the CKS
  conversion of ρ = ½(dε0)², the k-attribute cost, and mechanism-specific tighter per-person figures;
* :func:`rho_growth_figure` — ρ against d on log–log axes: ½d²ε0² (Prop 8) against ½dε0² (Lemma 10, then sequential
  composition over the d columns);
* :func:`census_figure` — releases and their ρ, highlighted when they read a changed attribute;
* :func:`census_compare_figure` — ε at δ for the chosen change against the whole record;
* :func:`rounding_figure` — probability that rounding a Laplace-noised count reveals it exactly, against ε;
* :func:`sparse_attack_figure` — a simulated adversary reading a sparse noisy histogram;
* :func:`heavy_hitter_tree_figure` / :func:`heavy_hitter_found_figure` / :func:`users_needed_figure` — Algorithm 2;
* :func:`projection_error_figure`, :func:`mwem_tradeoff_figure`, :func:`mwem_T_figure` — Theorems 11 and 12;
* :func:`misconception_figure` — per-attribute budgets and the whole-record total (dpcreator#370);
* :func:`interpretation_figure` — Propositions 26–27 and bit recovery.
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from dpviz import partial as PD
from dpviz._validation import Interval, check_delta, check_in_range, check_integer, check_positive
from dpviz.plots._theme import PALETTE, ROLE, TEMPLATE, _bar, _gaps, _layout, _scatter, approx_note, caption

#: Attributes a figure draws one bar each for: at most 1000 (the panels use ≤ 100).
FIGURE_ATTRIBUTES = Interval(1, 1000, integer=True)


def _ledger_and_change(ledger, changed):
    """The caller's ledger and its set of changed attributes, checked (every name must be one of its attributes)."""
    if not isinstance(ledger, PD.ReleaseLedger):
        raise TypeError(f"ledger = {ledger!r:.60} is not allowed: must be a dpviz.partial.ReleaseLedger.")
    if isinstance(changed, (str, bytes)) or not isinstance(changed, (set, frozenset, list, tuple)):
        raise TypeError(f"changed = {changed!r:.60} is not allowed: must be a set of attribute names of the ledger.")
    unknown = [a for a in changed if not isinstance(a, str) or a not in ledger.attributes]
    if unknown:
        raise ValueError(f"changed = {sorted(map(str, changed))} is not allowed: must name attributes among "
                         f"{list(ledger.attributes)}.")
    return ledger, set(changed)


def _heavy_hitter_result(result):
    if not isinstance(result, PD.HeavyHitterResult):
        raise TypeError(f"result = {result!r:.60} is not allowed: must be a dpviz.partial.HeavyHitterResult.")
    return result

__all__ = [
    "record_epsilon_figure",
    "rho_growth_figure",
    "census_figure",
    "census_compare_figure",
    "rounding_figure",
    "sparse_attack_figure",
    "heavy_hitter_tree_figure",
    "heavy_hitter_found_figure",
    "users_needed_figure",
    "projection_error_figure",
    "mwem_tradeoff_figure",
    "mwem_T_figure",
    "misconception_figure",
    "interpretation_figure",
    "planted_data",
]

#: Re-exported from :mod:`dpviz.partial.experiments` (its home) for existing callers.
planted_data = PD.planted_data

_SRC = "Ghazi, Kumar, Manurangsi & Steinke 2023"


#: Height (px) of this lesson's figures unless a builder sets another (also when another template is passed).
_HEIGHT = 420
#: Pixels from the bottom of the plot area to the source caption's first line (``caption(..., below=...)``, which
#: grows the bottom margin to fit the caption): clear of the tick labels and the x-axis title. A log x axis whose
#: minor ticks are labelled (2, 5, … or 10<sup>k</sup> powers) needs more room than a linear one. Captions: at most
#: ~130 characters a line (break with ``<br>``), so they fit a figure of ~900 px.
_BELOW_LINEAR = 60
_BELOW_LOG = 75


# ----------------------------------------------------------------------------------------------- Proposition 8

def record_epsilon_figure(eps0: float, d: int, k: int, delta: float, *, d_max: int = 100,
                          show_mechanisms: bool = True, k_way: int = 2, template: str | None = TEMPLATE) -> go.Figure:
    """Whole-record ε implied by ε0 per attribute, against the number of attributes d (Proposition 8 of Ghazi, Kumar,
    Manurangsi & Steinke 2023).

    Curves: pure d·ε0; ρ = ½(dε0)² converted to (ε, δ) by ρ + 2√(ρ ln 1/δ) (Bun & Steinke 2016, Prop 1.3) and by
    Canonne, Kamath & Steinke 2020 (Cor 13); the k-attribute cost k·ε0 (group privacy). With ``show_mechanisms``:
    per-person ε (½ε²-zCDP parametrisation) of specific mechanisms with the same ε0 — column-by-column releases
    √d·ε0 (each attribute's guarantee by Lemma 10, the record's by sequential composition over the d columns), the
    projection mechanism √(d/k)·ε0 (Theorem 11, k-way queries), partial MWEM with ℓ = ⌊d/k⌋
    √(½(ℓ²+ℓ))·ε0 (Theorem 12), and the column-by-column releases converted to (ε, δ) by CKS.
    """
    e0 = check_positive(eps0, "eps0")
    d = check_integer(d, "d", minimum=1, maximum=d_max)
    k = check_integer(k, "k", minimum=0)
    if k > d:
        raise ValueError(f"k = {k} attributes targeted is not allowed: must be <= d = {d}.")
    delta = check_delta(delta, allow_zero=False)
    k_cost = PD.targeted_pure_epsilon(e0, k)
    dd, pure, simple, cks, parallel, proj, mwem, par_dp = PD.record_epsilon_curves(e0, delta, d_max=d_max,
                                                                                   k_way=k_way)
    traces = [
        _scatter(x=dd, y=pure, name="pure ε = d·ε<sub>attr</sub> (Prop 8)", line=dict(color=ROLE["bound"], width=2)),
        _scatter(x=dd, y=simple, name="(ε, δ) from ρ = ½(dε<sub>attr</sub>)², simple",
                 line=dict(color=ROLE["approx"], dash="dash")),
        _scatter(x=dd, y=cks, name="(ε, δ) from ρ = ½(dε<sub>attr</sub>)², CKS",
                 line=dict(color=ROLE["exact"], width=2)),
        _scatter(x=[1, d_max], y=[k_cost, k_cost], name=f"g = {k} targeted attributes: g·ε<sub>attr</sub>",
                 mode="lines",
                 line=dict(color=ROLE["alt"], dash="dot")),
    ]
    if show_mechanisms:
        traces += [
            _scatter(x=dd, y=parallel, name="per-column releases (sequential composition): "
                                            "√d·ε<sub>attr</sub>",
                     line=dict(color=PALETTE[3], dash="dashdot")),
            _scatter(x=dd, y=par_dp, name="per-column releases → (ε, δ), CKS",
                     line=dict(color=PALETTE[3], dash="longdash")),
            _scatter(x=dd, y=proj, name=f"projection, {k_way}-way marginals: √(d/w)·ε<sub>attr</sub>",
                     line=dict(color=PALETTE[4])),
            _scatter(x=dd, y=mwem, name="partial MWEM ℓ = ⌊d/w⌋: √(½(ℓ²+ℓ))·ε<sub>attr</sub>",
                     line=dict(color=PALETTE[1], dash="dot")),
        ]
    i = d - 1
    traces.append(_scatter(x=[d, d, d], y=[pure[i], cks[i], simple[i]], mode="markers", name=f"your d = {d}",
                           marker=dict(color=ROLE["truth"], size=9, symbol="diamond")))
    fig = go.Figure(data=traces, layout=_layout(
        f"ε<sub>attr</sub> = {e0:g} per attribute → whole record: ε = {pure[i]:.3g} pure, {cks[i]:.3g} at δ = "
        f"{delta:.0e}",
        "number of attributes d (log scale)", "whole-record ε (log scale)", template=template))
    # log–log: the curves span four decades (√d·ε0 near 0.01, the (ε, δ) curves near 10³), and slopes read as
    # powers of d (pure: 1, column by column: ½, zCDP-converted: → 2)
    fig.update_layout(legend=dict(font=dict(size=11)), height=500,
                      xaxis=dict(type="log", tickvals=[1, 2, 5, 10, 20, 50, 100]),
                      yaxis=dict(type="log", exponentformat="power"))
    caption(fig, f"Sources: {_SRC}, Prop 8 (d·ε<sub>attr</sub>; ½d²ε<sub>attr</sub>² zCDP), Lemma 10 (per "
                 "attribute) with sequential composition (per record),<br>Thms 11–12; Bun & Steinke 2016, Prop 1.3; "
                 "CKS = Canonne, Kamath & Steinke 2020, Cor 13.", below=_BELOW_LOG)
    return fig


def rho_growth_figure(eps0: float, d: int, *, d_max: int = 100, template: str | None = TEMPLATE) -> go.Figure:
    """ρ against d (log–log): ½d²ε0² for a generic ε0-∇0CDP mechanism (Prop 8 of Ghazi, Kumar,
    Manurangsi & Steinke 2023; slope 2) against ½dε0² for independent column-wise releases (Lemma 10 + zCDP composition;
    slope 1)."""
    d_max = FIGURE_ATTRIBUTES.check(d_max, "d_max")
    d = check_integer(d, "d", minimum=1, maximum=d_max)
    g = PD.PerAttributeGuarantee(eps0=eps0, d=d_max, kind="zcdp")  # checks ε0 against the package's cap
    dd = np.unique(np.round(np.logspace(0, math.log10(d_max), 60))).astype(int)
    whole = np.array([g.change_rho(int(k)) for k in dd])  # ½(dε0)²: Prop 8's group cost of all d attributes
    columns = dd * g.rho0  # ½dε0²: d releases of ½ε0² each, composed
    fig = go.Figure(data=[
        _scatter(x=dd, y=whole, name="ρ = ½d²ε<sub>attr</sub>² (any ε<sub>attr</sub>-∇0CDP mechanism)",
                 line=dict(color=ROLE["bound"], width=2)),
        _scatter(x=dd, y=columns, name="ρ = ½dε<sub>attr</sub>² (independent per-column releases)",
                 line=dict(color=PALETTE[3], dash="dashdot")),
        _scatter(x=[d], y=[g.change_rho(d)], mode="markers", name=f"d = {d}: ρ = {g.change_rho(d):.3g}",
                 marker=dict(color=ROLE["truth"], size=9, symbol="diamond")),
    ], layout=_layout("ρ grows with d², not d", "number of attributes d", "whole-record ρ (zCDP)",
                          template=template, height=_HEIGHT))
    fig.update_xaxes(type="log", tickvals=[1, 2, 5, 10, 20, 50, 100], title_text="number of attributes d (log scale)")
    fig.update_yaxes(type="log", exponentformat="power", dtick=1, title_text="whole-record ρ (zCDP, log scale)")
    caption(fig, "Group privacy squares under zCDP: slope 2 on log–log axes. "
                 f"Sources: {_SRC}, Prop 8, and Lemma 10 with<br>sequential composition over the d columns; "
                 "Bun & Steinke 2016.", below=_BELOW_LOG)
    return fig


# ----------------------------------------------------------------------------------------------- composition (Census)

def census_figure(ledger: PD.ReleaseLedger, changed, *, template: str | None = TEMPLATE) -> go.Figure:
    """Horizontal bars: each release's ρ_h, coloured when it reads an attribute in ``changed`` (those are the only
    releases that can tell x from x'; Section 7 of Ghazi, Kumar, Manurangsi & Steinke 2023)."""
    ledger, changed = _ledger_and_change(ledger, changed)
    touched = {r.name for r in ledger.touching(changed)} if changed else set()
    names = [r.name for r in ledger.releases][::-1]
    rhos = [r.rho for r in ledger.releases][::-1]
    attrs = [", ".join(a for a in ledger.attributes if a in r.attributes) for r in ledger.releases][::-1]
    colors = [ROLE["approx"] if n in touched else "#bbbbbb" for n in names]
    fig = go.Figure(data=[_bar(x=rhos, y=names, orientation="h", marker=dict(color=colors), customdata=attrs,
                               hovertemplate="%{y}<br>ρ = %{x}<br>reads: %{customdata}<extra></extra>",
                               name="ρ of each release", text=[f"{r:g}" for r in rhos], textposition="outside",
                               cliponaxis=False)],
                    layout=_layout(f"Releases that read a changed attribute (orange): ρ = "
                                       f"{ledger.change_rho(changed) if changed else 0.0:.3g} of "
                                       f"{ledger.whole_record_rho():.3g}",
                                       "ρ (zCDP) of the release", "", template=template))
    fig.update_layout(height=440, margin=dict(l=330), showlegend=False)
    fig.update_xaxes(range=[0, 1.15 * max(rhos)])
    caption(fig, "ρ(S) = Σ ρ<sub>h</sub> over the releases h that read an attribute in S. "
                 f"Source: {_SRC}, Section 7 (2020 Census);<br>the per-release split is illustrative, "
                 "the totals are the paper's.", below=_BELOW_LINEAR)
    return fig


def census_compare_figure(ledger: PD.ReleaseLedger, changed, delta: float, *,
                          template: str | None = TEMPLATE) -> go.Figure:
    """ε at δ (CKS and simple conversions) for the chosen change against the whole record (Section 7 of Ghazi, Kumar,
    Manurangsi & Steinke 2023)."""
    ledger, changed = _ledger_and_change(ledger, changed)
    delta = check_delta(delta, allow_zero=False)
    rho_s = ledger.change_rho(changed) if changed else 0.0
    rho_all = ledger.whole_record_rho()
    r = np.array([rho_s, rho_all])
    cks = PD.zcdp_epsilon_curve(r, delta, "cks")
    simple = PD.zcdp_epsilon_curve(r, delta, "simple")
    labels = ["your change", "whole record"]
    fig = go.Figure(data=[
        _bar(x=labels, y=cks, name="ε by Canonne, Kamath & Steinke 2020", marker=dict(color=ROLE["exact"]),
             text=[f"{v:.3g}" for v in cks], textposition="outside"),
        _bar(x=labels, y=simple, name="ε by ρ + 2√(ρ ln 1/δ)", marker=dict(color=ROLE["approx"]),
             text=[f"{v:.3g}" for v in simple], textposition="outside"),
    ], layout=_layout(f"ε at δ = {delta:.0e}: ρ = {rho_s:.3g} (change) vs {rho_all:.3g} (record)", "",
                          "ε of the (ε, δ)-DP guarantee", template=template, height=_HEIGHT))
    fig.update_layout(barmode="group", yaxis=dict(rangemode="tozero"))
    fig.update_traces(cliponaxis=False)
    census = PD.census_2020_example()  # the paper's numbers, recomputed here (CKS conversion)
    whole = census.change_approx_dp(census.attributes, 1e-6)
    race = census.change_approx_dp({"race", "ethnicity"}, 1e-6)
    caption(fig, f"Paper: 2.63 zCDP → (13.8, 10<sup>−6</sup>), here {whole:.2f}; race + ethnicity 1.02 zCDP → "
                 f"(7.85, 10<sup>−6</sup>), here {race:.3f}.<br>"
                 f"Sources: {_SRC}, §7; Canonne, Kamath & Steinke 2020, Cor 13; Bun & Steinke 2016, Prop 1.3.",
            below=40)  # no x-axis title: tick labels only
    return fig


# ----------------------------------------------------------------------------------------------- canonical histogram

def rounding_figure(eps: float, *, eps_max: float = 15.0, template: str | None = TEMPLATE) -> go.Figure:
    """P[round(f + noise) = f] against ε for Laplace(1/ε) (1 − e^{−ε/2}) and the replace-one Laplace(2/ε)
    (1 − e^{−ε/4}); and the worst-case probability of guessing a secret bit, e^ε/(1 + e^ε) (Section 5 of Ghazi, Kumar,
    Manurangsi & Steinke 2023)."""
    e = check_positive(eps, "eps")
    x = np.linspace(0.0, eps_max, 301)
    fig = go.Figure(data=[
        _scatter(x=x, y=PD.rounding_reveals_probability(x), name="Laplace(1/ε): 1 − e<sup>−ε/2</sup>",
                 line=dict(color=ROLE["exact"], width=2)),
        _scatter(x=x, y=PD.rounding_reveals_probability(x, 2.0),
                 name="Laplace(2/ε) (replace-one): 1 − e<sup>−ε/4</sup>",
                 line=dict(color=ROLE["alt"], dash="dash")),
        _scatter(x=x, y=PD.bit_recovery_probability(x),
                 name="best guess of a secret bit: e<sup>ε</sup>/(1 + e<sup>ε</sup>)",
                 line=dict(color=ROLE["approx"], dash="dot")),
        _scatter(x=[e, e], y=[PD.rounding_reveals_probability(e), PD.rounding_reveals_probability(e, 2.0)],
                 mode="markers", name=f"ε = {e:g}", marker=dict(color=ROLE["truth"], size=9, symbol="diamond")),
    ], layout=_layout(f"At ε = {e:g}, rounding returns the exact count with probability "
                          f"{PD.rounding_reveals_probability(e):.4f}", "ε (privacy parameter of the histogram)",
                          "probability", template=template, height=_HEIGHT))
    fig.update_yaxes(range=[0, 1.02])
    caption(fig, f"P[|Lap(b)| < ½] = 1 − e<sup>−1/(2b)</sup>. Source: {_SRC}, Section 5<br>"
                 "('not nice' canonical histogram; ε = 10 → > 99%).", below=_BELOW_LINEAR)
    return fig


def sparse_attack_figure(eps: float, *, cells: int = 40, seed: int = 0, template: str | None = TEMPLATE) -> go.Figure:
    """A simulated adversary on a sparse histogram with f_y ∈ {0, 1}: the noisy counts f_y + Laplace(1/ε) and the
    guess round(noisy), right with probability 1 − e^{−ε/2} per cell (the number in the title) — each person's cell
    is revealed when the guess is right (Section 5 of Ghazi, Kumar, Manurangsi & Steinke 2023)."""
    e = check_positive(eps, "eps")
    f, noisy, guess = PD.sparse_attack(e, cells, seed)
    right = guess == f
    y = np.arange(cells)
    fig = go.Figure(data=[
        _scatter(x=y, y=f, mode="markers", name="true count f<sub>y</sub> ∈ {0, 1}",
                 marker=dict(color=ROLE["truth"], symbol="line-ew-open", size=14, line=dict(width=2))),
        _scatter(x=y[right], y=noisy[right], mode="markers", name="noisy count, rounding gives the truth",
                 marker=dict(color=ROLE["exact"], size=8)),
        _scatter(x=y[~right], y=noisy[~right], mode="markers", name="noisy count, rounding is wrong",
                 marker=dict(color=ROLE["approx"], size=8, symbol="x")),
    ], layout=_layout(f"Adversary rounds: {right.sum()} of {cells} cells exactly right "
                          f"(expected {100 * PD.rounding_reveals_probability(e):.1f}%)", "histogram cell y",
                          "count", template=template, height=_HEIGHT))
    approx_note(fig, f"one simulated draw (seed {seed})")
    caption(fig, f"Canonical histogram with Laplace(1/ε) per cell. Source: {_SRC}, Section 5.",
            below=_BELOW_LINEAR)
    return fig


# ----------------------------------------------------------------------------------------------- heavy hitters

def heavy_hitter_tree_figure(result: PD.HeavyHitterResult, *, template: str | None = TEMPLATE) -> go.Figure:
    """Every candidate of PrivHeavyHitter (Algorithm 2 of Ghazi, Kumar, Manurangsi & Steinke 2023): x = level (jittered
    by node), y = clamped noisy count, accepted (blue) or rejected (orange), with the thresholds τ_ℓ = τ + (ℓ−1)μ and
    clamp floors τ_ℓ − μ."""
    result = _heavy_hitter_result(result)
    L = result.levels
    xs, ys, cd, acc = [], [], [], []
    for nd in result.nodes:
        nodes_at = result.d_padded >> nd.level
        t = (nd.start - 1) >> nd.level
        x0 = nd.level + (0.7 * (t + 0.5) / nodes_at - 0.35)
        xs.append(x0 + np.linspace(-0.3, 0.3, len(nd.candidates)) / max(nodes_at, 1))
        ys.append(nd.noisy)
        cd.append(np.column_stack([np.full(len(nd.candidates), nd.start), np.full(len(nd.candidates), nd.stop),
                                   nd.true_counts]))
        acc.append(nd.accepted)
    xs, ys, cd, acc = np.concatenate(xs), np.concatenate(ys), np.concatenate(cd), np.concatenate(acc)
    hov = "I = {%{customdata[0]}..%{customdata[1]}}<br>true count %{customdata[2]}<br>f̂ = %{y:.1f}<extra></extra>"
    xs_a, ys_a, cd_a = xs[acc], ys[acc], cd[acc]
    xs_r, ys_r, cd_r = xs[~acc], ys[~acc], cd[~acc]
    p = result.params
    lev = np.arange(1, L + 1)
    thr = p.threshold(lev)
    seg_x = _gaps(np.repeat(lev, 3).astype(float) + np.tile([-0.4, 0.4, np.nan], L))  # one segment per level
    fig = go.Figure(data=[
        _scatter(x=xs_r, y=ys_r, mode="markers", name="rejected candidate", customdata=cd_r, hovertemplate=hov,
                 marker=dict(color=ROLE["approx"], size=5, opacity=0.6, symbol="x")),
        _scatter(x=xs_a, y=ys_a, mode="markers", name="kept in L<sub>I</sub>", customdata=cd_a, hovertemplate=hov,
                 marker=dict(color=ROLE["exact"], size=7)),
        _scatter(x=seg_x, y=_gaps(np.repeat(thr, 3) * np.tile([1, 1, np.nan], L)), mode="lines",
                 name="threshold τ<sub>ℓ</sub> = τ + (ℓ−1)μ", line=dict(color=ROLE["bound"], width=2)),
        _scatter(x=seg_x, y=_gaps(np.repeat(thr - p.mu, 3) * np.tile([1, 1, np.nan], L)), mode="lines",
                 name="clamp floor τ<sub>ℓ</sub> − μ", line=dict(color=ROLE["bound"], dash="dot", width=1)),
    ], layout=_layout(f"PrivHeavyHitter tree: {sum(len(n.candidates) for n in result.nodes)} candidates, "
                          f"{len(result.found)} strings found (λ = {p.lam:.3g}, μ = {p.mu:.3g}, τ = {p.tau:.4g})",
                          "tree level ℓ (interval length 2<sup>ℓ</sup>)", "clamped noisy count f̂", template=template,
                          height=_HEIGHT))
    fig.update_xaxes(tickmode="array", tickvals=lev.tolist(), ticktext=[f"ℓ={v} (|I|={2 ** v})" for v in lev])
    caption(fig, f"f̂ = max{{f, τ<sub>ℓ</sub> − μ}} + Lap(λ), kept iff f̂ > τ<sub>ℓ</sub>. Source: {_SRC}, "
                 "Algorithm 2<br>(all d leaves initialised, not the printed log d), Lemma 28.", below=_BELOW_LINEAR)
    return fig


def heavy_hitter_found_figure(X, result: PD.HeavyHitterResult, nu: float, *, top: int = 12,
                              template: str | None = TEMPLATE) -> go.Figure:
    """True counts of the most frequent strings, marked found / missed by PrivHeavyHitter, with the heavy-hitter
    line νn (Lemma 30 of Ghazi, Kumar, Manurangsi & Steinke 2023: every string with f ≥ νn is found w.h.p. once n is
    large enough)."""
    result = _heavy_hitter_result(result)
    nu = check_in_range(nu, "nu", 0.0, 1.0, low_inclusive=False)
    top = FIGURE_ATTRIBUTES.check(top, "top")
    strings, counts = PD.histogram_counts(X)
    order = np.argsort(counts)[::-1][:top]
    found = {tuple(r) for r in result.found}
    labels = ["".join(map(str, strings[i])) for i in order]
    is_found = np.array([tuple(strings[i]) in found for i in order])
    n = np.asarray(X).shape[0]
    c = counts[order]
    heavy = c >= nu * n
    fig = go.Figure(data=[
        _bar(x=labels, y=np.where(is_found, c, 0), name="reported by PrivHeavyHitter",
             marker=dict(color=ROLE["exact"])),
        _bar(x=labels, y=np.where(is_found, 0, c), name="not reported (a miss only if f ≥ νn)",
             marker=dict(color=ROLE["approx"])),
        _scatter(x=[labels[0], labels[-1]], y=[nu * n, nu * n], mode="lines", name=f"νn = {nu * n:.4g}",
                 line=dict(color=ROLE["bound"], dash="dash")),
    ], layout=_layout(f"The {len(order)} most frequent strings: {int((is_found & heavy).sum())} of "
                          f"{int(heavy.sum())} with f ≥ νn reported; {len(found)} strings reported in total",
                          "string x ∈ {0,1}<sup>d</sup> (attribute 1 first)", "true count f", template=template))
    fig.update_layout(barmode="stack", legend=dict(traceorder="normal"))
    # the labels are bit strings: a category axis, or plotly reads "0101…" as a number
    fig.update_xaxes(type="category", tickfont=dict(size=9, family="monospace"), tickangle=-60)
    d = np.asarray(X).shape[1]
    # the labels, rotated 60°, reach ~4.7 px down per bit (monospace 9 px); the figure grows by as much
    fig.update_layout(height=_HEIGHT + int(4.7 * d))
    caption(fig, f"Source: {_SRC}, Lemma 30 (misses no f ≥ νn w.p. ≥ 1 − η/2 when τ = 0.5νn is large enough).",
            below=int(4.7 * d) + 45)
    return fig


def users_needed_figure(eps0: float, nu: float, eta: float, d: int, *, corrected16: bool = False,
                        template: str | None = TEMPLATE) -> go.Figure:
    """n needed for histogram error ν against d (log–log): Theorem 15's explicit n (corrected λ, and the printed
    λ = 3/ε0), Theorem 16's lower bound 0.05 ln d/(ε0ν), against standard DP's d/(εν) (pure) and √d/(εν) (zCDP), shape
    only (constant 1), at ε = ε0 (Section 5 of Ghazi, Kumar, Manurangsi & Steinke 2023). ``corrected16``
    draws Theorem 16 with the corrected constant (ln(d/10)/ε0 − 1)/(3ν) re-derived from its proof instead of the
    printed one; either is drawn only where it applies (d ≥ 10e^{1.1ε0}) and is positive: elsewhere it gives no
    guarantee."""
    e0 = check_positive(eps0, "eps0")
    dd = 2.0 ** np.arange(1, 21)
    # Theorem 16 holds only for d ≥ 10e^{1.1ε}; the corrected form is ≤ 0 for small d: no guarantee there (a gap,
    # never a curve at 0)
    lb16 = PD.theorem16_lower_bound(dd, e0, nu, corrected=corrected16)
    lb16 = np.where((dd >= 10 * math.exp(1.1 * e0)) & (lb16 > 0), lb16, np.nan)
    lb16_name = ("partial DP lower bound, corrected: (ln(d/10)/ε<sub>attr</sub> − 1)/(3ν)" if corrected16
                 else "partial DP lower bound as printed: 0.05 ln d/(ε<sub>attr</sub>ν)")
    fig = go.Figure(data=[
        _scatter(x=dd, y=PD.theorem15_sample_size(dd, e0, nu, eta), name="partial DP: Thm 15, corrected λ",
                 line=dict(color=ROLE["exact"], width=2)),
        _scatter(x=dd, y=PD.theorem15_sample_size(dd, e0, nu, eta, constants="paper"),
                 name="partial DP: Thm 15, printed λ = 3/ε<sub>attr</sub>",
                 line=dict(color=ROLE["exact"], dash="dot")),
        _scatter(x=dd, y=lb16, name=lb16_name, line=dict(color=ROLE["bound"], dash="dash")),
        _scatter(x=dd, y=PD.standard_dp_histogram_sample_size(dd, e0, nu, "pure"),
                 name="standard pure DP ≈ d/(εν) (shape)", line=dict(color=ROLE["approx"], width=2)),
        _scatter(x=dd, y=PD.standard_dp_histogram_sample_size(dd, e0, nu, "zcdp"),
                 name="standard zCDP ≈ √d/(εν) (shape)", line=dict(color=ROLE["approx"], dash="dash")),
        _scatter(x=[d], y=[PD.theorem15_sample_size(d, e0, nu, eta)], mode="markers", name=f"d = {d}",
                 marker=dict(color=ROLE["truth"], size=9, symbol="diamond")),
    ], layout=_layout("Users needed: log d (partial) against d or √d (standard)", "number of attributes d",
                          "users n needed", template=template, height=_HEIGHT))
    fig.update_xaxes(type="log", exponentformat="power", title_text="number of attributes d (log scale)")
    fig.update_yaxes(type="log", exponentformat="power", title_text="users n needed (log scale)")
    approx_note(fig, "standard-DP curves: shape only (C = 1)")
    caption(fig, f"Sources: {_SRC}, Theorem 15 (explicit n of its proof, natural logs), Theorem 16 (drawn where "
                 "d ≥ 10e<sup>1.1ε</sup>;<br>its proof's points are ⌈3νn⌉ changes apart, not ⌈2νn⌉: corrected "
                 "constant by dpviz), §5 and footnote 5.", below=_BELOW_LOG)
    return fig


# ----------------------------------------------------------------------------------------------- projection, MWEM

def projection_error_figure(k: int, n: int, eps: float, *, d_max: int = 10000, simulate: bool = False,
                            template: str | None = TEMPLATE) -> go.Figure:
    """MSE bound of the projection mechanism against d (Theorem 11 and eq. (2) of Ghazi, Kumar, Manurangsi & Steinke
    2023): at a fixed per-attribute ε0 = ``eps`` (flat once d is large) and at a fixed per-person ε = ``eps`` (grows
    like √d). Optional empirical MSE at d = 4, 6, 8 (a few simulated releases, labelled as such)."""
    k = check_integer(k, "k", minimum=1, maximum=5)
    n = check_integer(n, "n", minimum=1)
    e = check_positive(eps, "eps")
    dd = np.unique(np.round(np.logspace(math.log10(max(k, 2)), math.log10(d_max), 80)))
    fixed0 = PD.kway_projection_mse_bounds(dd, k, n, eps0=e)
    fixed = PD.kway_projection_mse_bounds(dd, k, n, eps=e)
    traces = [
        _scatter(x=dd, y=fixed0, name=f"bound at fixed per-attribute ε<sub>attr</sub> = {e:g}",
                 line=dict(color=ROLE["exact"],
                                                                                               width=2)),
        _scatter(x=dd, y=fixed, name=f"bound at fixed per-person ε = {e:g}", line=dict(color=ROLE["approx"],
                                                                                        width=2)),
    ]
    if simulate:
        emp = PD.projection_empirical_mse(k, n, e)
        if len(emp):
            traces += [
                _scatter(x=emp[:, 0], y=emp[:, 1], mode="markers", name="simulated MSE, fixed ε<sub>attr</sub>",
                         marker=dict(color=ROLE["exact"], size=9, symbol="circle-open")),
                _scatter(x=emp[:, 0], y=emp[:, 2], mode="markers", name="simulated MSE, fixed ε",
                         marker=dict(color=ROLE["approx"], size=9, symbol="square-open")),
            ]
    fig = go.Figure(data=traces, layout=_layout(f"Projection mechanism, {k}-way marginals, n = {n:,}",
                                                    "number of attributes d (log scale)",
                                                    "mean squared error per query (bound)", template=template,
                                                    height=_HEIGHT))
    fig.update_xaxes(type="log", dtick=1)
    fig.update_yaxes(type="log", exponentformat="power", dtick=1)
    if simulate:
        approx_note(fig, "markers: 4 simulated releases each (Monte Carlo)")
    caption(fig, "min{Qw/(ε<sub>attr</sub>²n²d), √(2w ln2)/(ε<sub>attr</sub>n)} vs min{Q/(ε²n²), √(2d ln2)/(εn)}, Q "
                 "= C(d, w) "
                 "queries. "
                 f"Source: {_SRC}, Theorem 11, eq. (2).", below=_BELOW_LINEAR)
    return fig


def mwem_tradeoff_figure(eps0: float, n: int, d: int, k: int, ell: int, *,
                         template: str | None = TEMPLATE) -> go.Figure:
    """Partial MWEM's ℓ trade-off (Theorem 12 of Ghazi, Kumar, Manurangsi & Steinke 2023): for each ℓ = 1..⌊d/k⌋, the
    error bound (3) at the best integer T against the per-person ε = √(2ρ), ρ = ¼(ℓ²+ℓ)ε0². Larger ℓ: better partial
    error, larger ε."""
    e0 = check_positive(eps0, "eps0")
    n = check_integer(n, "n", minimum=1)
    d = check_integer(d, "d", minimum=2)
    k = check_integer(k, "k", minimum=1, maximum=d)
    ells, person, bounds = PD.mwem_ell_tradeoff(e0, n, d, k)
    sel = ells == ell
    fig = go.Figure(data=[
        _scatter(x=person, y=bounds, mode="lines+markers+text", text=[f"ℓ={v}" for v in ells],
                 textposition="top right", name="ℓ = 1 … ⌊d/w⌋", line=dict(color=ROLE["exact"]),
                 cliponaxis=False),
        _scatter(x=person[sel], y=bounds[sel], mode="markers", name=f"your ℓ = {ell}",
                 marker=dict(color=ROLE["truth"], size=12, symbol="diamond")),
    ], layout=_layout("Partial MWEM: error bound vs per-person ε", "per-person ε (½ε²-zCDP)",
                          "max* error bound, eq. (3), best T", template=template, height=_HEIGHT))
    caption(fig, f"Per attribute: ε<sub>attr</sub> = {e0:g} for every ℓ; per person ρ = ¼(ℓ²+ℓ)ε<sub>attr</sub>² ≤ "
                 f"½(ℓε<sub>attr</sub>)². Source: {_SRC}, "
                 "Theorem 12, eq. (3).", below=_BELOW_LINEAR)
    return fig


def mwem_T_figure(eps0: float, n: int, d: int, k: int, ell: int, *, template: str | None = TEMPLATE) -> go.Figure:
    """Bound (3) of Theorem 12 of Ghazi, Kumar, Manurangsi & Steinke 2023 against the number of rounds T (log x), with
    its minimiser T* marked."""
    e0 = check_positive(eps0, "eps0")
    Tstar, b = PD.mwem_best_rounds(n, e0, d, k, ell)
    logX, m = d * math.log(2), math.comb(d, k)
    T = np.unique(np.round(np.logspace(0, math.log10(max(20 * Tstar, 100)), 200)))
    y = PD.mwem_error_bound(T, n, e0, logX, m, ell)
    fig = go.Figure(data=[
        _scatter(x=T, y=y, name="bound (3)", line=dict(color=ROLE["exact"], width=2)),
        _scatter(x=[Tstar], y=[b], mode="markers", name=f"T* = {Tstar}: {b:.3g}",
                 marker=dict(color=ROLE["truth"], size=10, symbol="diamond")),
    ], layout=_layout(f"Rounds T for ℓ = {ell}", "rounds T (log scale)", "max* error bound (log scale)",
                          template=template, height=_HEIGHT))
    fig.update_xaxes(type="log")
    ticks = [v * 10.0 ** e for e in range(-3, 3) for v in (1, 2, 5)]  # 0.2, 0.5, 1, 2 … (not "D2"'s bare "5")
    fig.update_yaxes(type="log", tickvals=ticks, ticktext=[f"{t:g}" for t in ticks])
    caption(fig, f"√(2T/(n²ε<sub>attr</sub>²) + 4 ln|X|/(Tℓ)) + (√(2T)/(ε<sub>attr</sub>n)) ln Q, |X| = "
                 f"2<sup>d</sup>, Q = C(d, w). "
                 f"Source: {_SRC}, Theorem 12.", below=_BELOW_LOG)
    return fig


# ----------------------------------------------------------------------------------------------- misconception

def _record_pure(eps_j) -> float:
    """Whole-record pure ε of per-column releases, Σ_j ε_j (:func:`dpviz.partial.parallel_composition`)."""
    return PD.parallel_composition(eps_j, "pure").record


def _record_zcdp_eps(eps_j) -> float:
    """Whole-record ε = √(2ρ), ρ = ½Σ_j ε_j², of per-column ½ε_j²-zCDP releases (Lemma 10)."""
    return PD.eps_from_rho(PD.parallel_composition(eps_j, "zcdp").record)


def misconception_figure(eps_important: float, eps_other: float, d: int, *, reveal: bool = True,
                         template: str | None = TEMPLATE) -> go.Figure:
    """Per-attribute budgets (one attribute the learner cares about, d − 1 others) released column by column, and
    what they give the whole record: Σ_j ε_j pure (Lemma 10 + basic composition), √(Σ_j ε_j²) in the ½ε²
    parametrisation; against the same release with every ε_j = ε_other (opendp/dpcreator#370 misconception).

    With ``reveal=False`` (before a predict-then-reveal exercise is answered) only the per-attribute budgets ε_j
    are drawn, one bar per attribute, and no whole-record total is shown anywhere on the figure.
    """
    a = check_positive(eps_important, "eps_important")
    b = check_positive(eps_other, "eps_other")
    d = check_integer(d, "d", minimum=2, maximum=FIGURE_ATTRIBUTES.high)
    eps_j = [a] + [b] * (d - 1)
    uniform = [b] * d
    src = (f"Releases that each read one column: per-attribute cost ε<sub>j</sub>, whole record Σ<sub>j</sub> "
           f"ε<sub>j</sub>. Source: {_SRC},<br>Lemma 10 and Section 7 (non-uniform ε<sub>j</sub>, correlated "
           "attributes).")
    if not reveal:
        others = [f"A{j}" for j in range(2, d + 1)]
        fig = go.Figure(data=[
            _bar(x=["A1 (yours)"], y=[a], name="the attribute you care about", marker=dict(color=ROLE["exact"])),
            _bar(x=others, y=[b] * (d - 1), name=f"the {d - 1} other attributes", marker=dict(color="#bbbbbb")),
        ], layout=_layout("Your split: the budget ε<sub>j</sub> of each attribute's release. "
                              "Whole record? Predict, then reveal.", "attribute j",
                              "per-attribute budget ε<sub>j</sub>", template=template, height=_HEIGHT))
        fig.update_layout(barmode="stack")
        fig.update_xaxes(type="category")
        caption(fig, src, below=_BELOW_LINEAR)
        return fig
    fig = go.Figure(data=[
        _bar(x=["your split", "all equal"], y=[a, b], name="the attribute you care about",
             marker=dict(color=ROLE["exact"])),
        _bar(x=["your split", "all equal"], y=[(d - 1) * b, (d - 1) * b], name=f"the {d - 1} other attributes",
             marker=dict(color="#bbbbbb")),
    ], layout=_layout(f"Whole-record ε: {_record_pure(eps_j):.3g} (your split) "
                      f"vs {_record_pure(uniform):.3g} (all equal)",
                          "", "whole-record pure ε = Σ<sub>j</sub> ε<sub>j</sub>", template=template,
                          height=_HEIGHT))
    fig.update_layout(barmode="stack")
    fig.update_xaxes(type="category")
    fig.add_annotation(text=f"zCDP: √(Σ<sub>j</sub> ε<sub>j</sub>²) = {_record_zcdp_eps(eps_j):.3g} vs "
                            f"{_record_zcdp_eps(uniform):.3g}", xref="paper", yref="paper", x=1, y=1.02,
                       xanchor="right", yanchor="bottom", showarrow=False, font=dict(size=11))
    caption(fig, src, below=_BELOW_LINEAR)
    return fig


# ----------------------------------------------------------------------------------------------- interpretation

def interpretation_figure(eps0: float, d: int, *, template: str | None = TEMPLATE) -> go.Figure:
    """Against the number k of attributes the adversary cares about: the posterior bound e^{2kε0} − 1
    (Proposition 26 of Ghazi, Kumar, Manurangsi & Steinke 2023), the worst-case bit recovery e^{kε0}/(1+e^{kε0}), and
    the mutual-information bound ½ε0²·Σ|s_j|² for a partition into blocks of size k (Proposition 27), in nats."""
    e0 = check_positive(eps0, "eps0")
    d = check_integer(d, "d", minimum=1)
    k = np.arange(1, d + 1)
    mi = np.array([PD.mutual_information_bound(e0, [int(s)] * (d // int(s)) + ([d % int(s)] if d % int(s) else []))
                   for s in k])
    fig = go.Figure(data=[
        _scatter(x=k, y=np.minimum(PD.posterior_tv_bound(e0, k), 1.0),
                 name="posterior shift ≤ e<sup>2gε<sub>attr</sub></sup> − 1 (Prop 26; capped at 1)",
                 line=dict(color=ROLE["exact"], width=2)),
        _scatter(x=k, y=PD.bit_recovery_probability(e0, k),
                 name="bit recovery ≤ e<sup>gε<sub>attr</sub></sup>/(1 + e<sup>gε<sub>attr</sub></sup>) (uniform "
                      "prior)",
                 line=dict(color=ROLE["approx"], dash="dash")),
        _scatter(x=k, y=mi, name="mutual information ≤ ½ε<sub>attr</sub>²Σ<sub>j</sub>|s<sub>j</sub>|², blocks of "
                                 "size g (nats)",
                 line=dict(color=ROLE["alt"], dash="dot")),
    ], layout=_layout(f"What ε<sub>attr</sub> = {e0:g} per attribute means, against g attributes targeted",
                          "attributes the adversary targets, g",
                          "bound (TV distance, probability or nats)", template=template, height=_HEIGHT))
    caption(fig, f"Sources: {_SRC}, Propositions 26–27 (Kasiviswanathan & Smith 2014; Bun & Steinke 2016).",
            below=_BELOW_LINEAR)
    return fig


"""Figures for lesson 10 "DP-SGD and auditing": DP-SGD training curves and its ε, the neighbouring-dataset game,
and the computer's audit (lower bound against the claim, and the outputs it separated).

Pure builders: numbers in, a new ``plotly.graph_objects.Figure`` out, in the shared ``"dpviz"`` template; every
figure that shows a Monte Carlo result says so on the figure.
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from dpviz._validation import check_in_range, check_integer, check_positive, check_real_array
from dpviz.plots._theme import ROLE, TEMPLATE, _bar, _gaps, _hline, _layout, _scatter, _vline, approx_note, caption

__all__ = [
    "training_figure",
    "epsilon_steps_figure",
    "accuracy_epsilon_figure",
    "game_figure",
    "audit_trials_figure",
    "audit_outputs_figure",
]

_LEGEND = dict(orientation="h", y=-0.25, x=0, yanchor="top")
_BIG = 1e12  # bound on the numbers these figures draw (steps, outputs, ε): an axis beyond it is not a figure


def _so_far(title: str, progress: tuple[int, int] | None) -> str:
    """``title``, marked as partial when ``progress`` = (t, T) says only t of the run's T steps are done."""
    if progress is None:
        return title
    if not isinstance(progress, (tuple, list)) or len(progress) != 2:
        raise ValueError(f"progress = {progress!r} is not allowed: must be a pair (t, T) of step counts or None.")
    t, T = (check_integer(v, name, minimum=1, maximum=10**9) for v, name in zip(progress, ("progress[0]",
                                                                                        "progress[1]")))
    return title if t >= T else f"{title} — after {t} of {T} steps"


def _finite(value, name: str, low: float = -_BIG, high: float = _BIG) -> float:
    return check_in_range(value, name, low, high)


def _epsilons(values, name: str, *, allow_empty: bool = False) -> np.ndarray:
    """ε values to draw: numbers ≥ 0, +∞ allowed (drawn as a gap), NaN refused."""
    e = check_real_array(values, name, ndim=1, allow_empty=allow_empty, finite=False)
    if np.any(np.isnan(e)) or np.any(e < 0) or np.any(np.isfinite(e) & (e > _BIG)):
        raise ValueError(f"{name} is not allowed: must hold numbers in [0, {_BIG:g}] or +inf (no NaN).")
    return e


def _epsilon(value, name: str) -> float:
    """One ε ≥ 0 (+∞ allowed)."""
    if isinstance(value, (float, np.floating)) and value == math.inf:
        return math.inf
    return _finite(value, name, 0.0)


def _fractions(values, name: str, *, allow_empty: bool = False) -> np.ndarray:
    a = check_real_array(values, name, ndim=1, allow_empty=allow_empty)
    if np.any((a < 0) | (a > 1)):
        raise ValueError(f"{name} is not allowed: must hold fractions in [0, 1].")
    return a


def _steps(values, name: str, *, allow_empty: bool = False) -> np.ndarray:
    t = check_real_array(values, name, ndim=1, allow_empty=allow_empty)
    if np.any(t < 0) or np.any(t > _BIG):
        raise ValueError(f"{name} is not allowed: must hold step counts in [0, {_BIG:g}].")
    return t


def _confidence(value) -> float:
    return check_in_range(value, "confidence", 0.0, 1.0, low_inclusive=False, high_inclusive=False)


def _delta(value) -> float:
    return check_in_range(value, "delta", 0.0, 1.0, low_inclusive=False, high_inclusive=False)


def training_figure(steps, private_accuracy, nonprivate_accuracy, *, noise_multiplier: float, clip_norm: float,
                    sampling_rate: float, progress: tuple[int, int] | None = None,
                    template: str = TEMPLATE) -> go.Figure:
    """Test accuracy against the step t: DP-SGD (Abadi et al. 2016, Alg. 1) and the same clipped SGD without
    noise (noise multiplier z = 0) on the same Poisson batches' rate. ``progress`` = (t, T): a run still going, t of
    T steps done (the title says so). Accuracies are fractions in [0, 1]; z ≥ 0, C > 0 and q in (0, 1] are shown
    in the title."""
    t = _steps(steps, "steps")
    a = _fractions(private_accuracy, "private_accuracy")
    b = _fractions(nonprivate_accuracy, "nonprivate_accuracy")
    if not (t.shape == a.shape == b.shape):
        raise ValueError("steps, private_accuracy and nonprivate_accuracy must have the same length")
    z = _finite(noise_multiplier, "noise_multiplier", 0.0)
    c = check_positive(clip_norm, "clip_norm")
    q = check_in_range(sampling_rate, "sampling_rate", 0.0, 1.0, low_inclusive=False)
    traces = [
        _scatter(x=t, y=b, mode="lines", name="clipped SGD, no noise (z = 0)",
                 line=dict(color=ROLE["nonprivate"], dash="dash", width=2)),
        _scatter(x=t, y=a, mode="lines+markers", name=f"DP-SGD, z = {z:.3g}",
                 line=dict(color=ROLE["private"], width=3), marker=dict(size=5)),
    ]
    title = f"Training live: C = {c:.3g}, z = {z:.3g}, q = {q:.3g}"
    layout = _layout(_so_far(title, progress), "step t", "test accuracy", template=template, legend=_LEGEND,
                     yaxis=dict(range=[0.3, 1.0]), margin=dict(b=140), height=420)
    fig = go.Figure(data=traces, layout=layout)
    caption(fig, "Logistic regression on a synthetic 2-D data set (1000 training, 1000 test examples). Each step: "
                 "Poisson sample at rate q,<br>gradients clipped to norm C, noise of standard deviation σ = z·C added "
                 "to their sum,<br>divided by the public L = q·1000 (Abadi et al. 2016, Alg. 1). One random run.",
            below=95)
    return fig


def epsilon_steps_figure(steps_rdp, epsilon_rdp, epsilon_pld: float | None, total_steps: int, *, delta: float,
                         progress: tuple[int, int] | None = None, template: str = TEMPLATE) -> go.Figure:
    """ε spent after t steps at δ: the RDP accountant at a few steps and the PLD accountant at the last step.

    ``progress`` = (t, T): a run still going, t of T steps done (the title says so; no checkpoint may be reached
    yet); ``epsilon_pld`` None: the PLD accountant's ε is not computed yet (no point drawn). ε values ≥ 0, +∞ drawn
    as a gap."""
    t = _steps(steps_rdp, "steps_rdp", allow_empty=progress is not None)  # none reached yet
    e = _epsilons(epsilon_rdp, "epsilon_rdp", allow_empty=progress is not None)
    if e.shape != t.shape:
        raise ValueError("steps_rdp and epsilon_rdp must have the same length")
    total_steps = check_integer(total_steps, "total_steps", minimum=1, maximum=10**9)
    delta = _delta(delta)
    pld = [] if epsilon_pld is None else [_epsilon(epsilon_pld, "epsilon_pld")]
    traces = [
        _scatter(x=t, y=_gaps(e), mode="lines+markers", name="RDP accountant (Mironov, Talwar & Zhang 2019)",
                 line=dict(color=ROLE["alt"], width=3), marker=dict(size=8)),
        _scatter(x=[total_steps] * len(pld), y=_gaps(pld), mode="markers",
                 name="PLD accountant at t = T (Koskela, Jälkö & Honkela 2020)",
                 marker=dict(color=ROLE["exact"], size=13, symbol="diamond")),
    ]
    finite = [v for v in list(e) + pld if math.isfinite(v) and v > 0]
    log = bool(finite) and max(finite) > 30 * min(finite)
    layout = _layout(_so_far(f"Privacy spent: ε at δ = {delta:.0e} (per example, add/remove one)", progress), "step t",
                     "ε", template=template, legend=_LEGEND, margin=dict(b=140), height=400,
                     yaxis=dict(type="log") if log else None)
    fig = go.Figure(data=traces, layout=layout)
    caption(fig, "Each step is a Poisson-subsampled Gaussian mechanism (sensitivity C, noise σ = z·C); T of them "
                 "composed.<br>RDP: Mironov, Talwar & Zhang 2019 with the conversion of Balle et al. 2020; "
                 "PLD: Koskela, Jälkö & Honkela 2020 (upper end).", below=95)
    return fig


def accuracy_epsilon_figure(epsilon_rdp, accuracy_rdp, steps_rdp, epsilon_pld: float | None,
                            accuracy_pld: float | None, *, delta: float, progress: tuple[int, int] | None = None,
                            template: str = TEMPLATE) -> go.Figure:
    """Test accuracy against the ε spent: one point per checkpoint t (ε from the RDP accountant), and the last
    step with the PLD accountant's ε; the privacy–utility trade-off of one run.

    ``progress`` = (t, T): a run still going, t of T steps done (the title says so; no checkpoint may be reached
    yet); ``epsilon_pld`` or ``accuracy_pld`` None: the last step is not reached yet (no point drawn)."""
    empty = progress is not None  # none reached yet
    e = _epsilons(epsilon_rdp, "epsilon_rdp", allow_empty=empty)
    a = _fractions(accuracy_rdp, "accuracy_rdp", allow_empty=empty)
    t = _steps(steps_rdp, "steps_rdp", allow_empty=empty)
    if not (e.shape == a.shape == t.shape):
        raise ValueError("epsilon_rdp, accuracy_rdp and steps_rdp must have the same length")
    delta = _delta(delta)
    pld = [] if epsilon_pld is None or accuracy_pld is None else [_epsilon(epsilon_pld, "epsilon_pld")]
    if pld:
        accuracy_pld = _finite(accuracy_pld, "accuracy_pld", 0.0, 1.0)
    traces = [
        _scatter(x=_gaps(e), y=a, mode="lines+markers+text", text=[f"t = {int(v)}" for v in t],
                 textposition="bottom right", name="after t steps, ε from RDP",
                 line=dict(color=ROLE["alt"], width=2), marker=dict(size=8)),
        _scatter(x=_gaps(pld), y=[accuracy_pld] * len(pld), mode="markers", name="after T steps, ε from PLD",
                 marker=dict(color=ROLE["exact"], size=13, symbol="diamond")),
    ]
    finite = [v for v in list(e) + pld if math.isfinite(v) and v > 0]
    log = bool(finite) and max(finite) > 30 * min(finite)
    layout = _layout(_so_far(f"Accuracy against ε (δ = {delta:.0e})", progress), "ε spent so far", "test accuracy",
                     template=template, legend=_LEGEND, margin=dict(b=130), height=380,
                     xaxis=dict(type="log") if log else None, yaxis=dict(range=[0.3, 1.0]))
    fig = go.Figure(data=traces, layout=layout)
    caption(fig, "Same run as above: each point pairs the accuracy after t steps with the ε of t steps.", below=80)
    return fig


def game_figure(shift: float, sigma: float, output: float | None, rounds, bounds, claimed_epsilon: float, *,
                confidence: float, truth: str | None = None, template: str = TEMPLATE) -> go.Figure:
    """The game in one figure (one figure per update keeps it fast). Top: densities of the DP-SGD step's output on
    x (centred at 0) and on x′ (centred at the canary's clipped gradient ``shift``), noise N(0, σ²) with σ = z·C the
    noise's standard deviation, and the output of this round as a vertical line. Bottom: the learner's lower bound
    on ε after each round (``rounds``, ``bounds``) against the claimed ε.

    Ranges: |shift| ≤ 10⁶, σ in [10⁻⁶, 10⁶], the output finite or None, bounds ≥ 0, the claimed ε ≥ 0 and finite."""
    shift = _finite(shift, "shift", -1e6, 1e6)
    s = check_in_range(sigma, "sigma", 1e-6, 1e6)
    if output is not None:
        output = _finite(output, "output")
    r = _steps(rounds, "rounds", allow_empty=True)
    b = _epsilons(bounds, "bounds", allow_empty=True)
    if r.shape != b.shape:
        raise ValueError("rounds and bounds must have the same length")
    claimed_epsilon = _finite(claimed_epsilon, "claimed_epsilon", 0.0)
    confidence = _confidence(confidence)
    if truth is not None and not isinstance(truth, str):
        raise TypeError(f"truth = {truth!r} is not allowed: must be a str or None.")
    lo, hi = min(0.0, shift) - 4 * s, max(0.0, shift) + 4 * s
    y = np.linspace(lo, hi, 301)
    px = np.exp(-0.5 * (y / s) ** 2) / (s * math.sqrt(2 * math.pi))
    pxp = np.exp(-0.5 * ((y - shift) / s) ** 2) / (s * math.sqrt(2 * math.pi))
    right = max(float(r[-1]) if r.size else 0.0, 10.0)
    traces = [_scatter(x=y, y=px, mode="lines", name="M(x): without the canary",
                       line=dict(color=ROLE["x"], width=3)),
              _scatter(x=y, y=pxp, mode="lines", name="M(x′): with the canary",
                       line=dict(color=ROLE["x_prime"], width=3, dash="dash")),
              _scatter(x=r, y=_gaps(b), mode="lines+markers", name=f"your lower bound on ε ({confidence:.0%})",
                       line=dict(color=ROLE["alt"], width=3), xaxis="x2", yaxis="y2"),
              _scatter(x=[0.0, right], y=[claimed_epsilon, claimed_epsilon], mode="lines",
                       name=f"claimed ε = {claimed_epsilon:.3g}", xaxis="x2", yaxis="y2",
                       line=dict(color=ROLE["bound"], dash="dash", width=2))]
    shapes = []
    title = "The output of this round (grey line): which dataset made it?"
    if output is not None:
        shapes.append(_vline(float(min(max(output, lo), hi)), color="#444444", dash="solid", width=3,
                             yref="y domain"))
    if truth is not None:
        title = f"Last round: the output came from {truth}. Next round: the grey line."
    layout = _layout(title, "output o (summed clipped gradients + noise, centred on x)", "probability density",
                     template=template, legend=dict(orientation="h", y=-0.16, x=0, yanchor="top"), shapes=shapes,
                     margin=dict(b=150), height=600, yaxis=dict(domain=[0.5, 1.0]),
                     xaxis2=dict(title=dict(text="round"), anchor="y2", rangemode="tozero"),
                     yaxis2=dict(title=dict(text="ε"), domain=[0.0, 0.32], anchor="x2", rangemode="tozero"))
    fig = go.Figure(data=traces, layout=layout)
    caption(fig, "Top: Gaussian noise N(0, σ²), σ = z·C with C = 1; the canary's gradient is clipped to [−C, C] "
                 "(Abadi et al. 2016, Alg. 1).<br>Bottom: Clopper–Pearson bounds on both error rates "
                 "(Clopper & Pearson 1934), Kairouz, Oh & Viswanath 2015, Thm 2.1.", below=110)
    return fig


def audit_trials_figure(trials, bounds, claimed_epsilon: float, *, confidence: float,
                        exact_epsilon: float | None = None, template: str = TEMPLATE) -> go.Figure:
    """The audit's lower bound on ε against the number of trials (log axis), with the claimed ε; points above
    the claim are flagged. ``exact_epsilon``: the implementation's exact ε on the audited pair x, x′ (computed, not
    claimed), drawn as a dotted line when it fits the axis and named in a note otherwise (∞ included).

    ``trials`` ≥ 1, bounds ≥ 0 (same length), the claimed ε > 0 and finite."""
    n = check_real_array(trials, "trials", ndim=1)
    if np.any(n < 1) or np.any(n > _BIG):
        raise ValueError(f"trials is not allowed: must hold numbers of runs in [1, {_BIG:g}].")
    b = _epsilons(bounds, "bounds")
    if b.shape != n.shape:
        raise ValueError("trials and bounds must have the same length")
    claimed_epsilon = _finite(claimed_epsilon, "claimed_epsilon", 0.0)
    confidence = _confidence(confidence)
    exact = None if exact_epsilon is None else _epsilon(exact_epsilon, "exact_epsilon")
    over = b > claimed_epsilon
    traces = [_scatter(x=n, y=_gaps(b), mode="lines+markers", name=f"empirical lower bound ({confidence:.0%})",
                       line=dict(color=ROLE["x"], width=3), marker=dict(size=8)),
              _scatter(x=n[over], y=_gaps(b[over]), mode="markers", name="above the claim: claim refuted",
                       marker=dict(color=ROLE["approx"], size=14, symbol="x"))]
    top = max([claimed_epsilon * 1.3] + [v * 1.1 for v in b if math.isfinite(v)] + [0.5])
    shapes = [_hline(claimed_epsilon, color=ROLE["bound"], dash="dash", width=2)]
    drawn = exact is not None and math.isfinite(exact) and exact <= top and abs(exact - claimed_epsilon) > 1e-9 * top
    if drawn:
        shapes.append(_hline(exact, color=ROLE["exact"], dash="dot", width=2))
    layout = _layout("The computer's audit: lower bound vs number of trials", "trials (runs of the mechanism)",
                     "ε", template=template, legend=_LEGEND, xaxis=dict(type="log"),
                     yaxis=dict(range=[0, top]), margin=dict(b=150), height=400, shapes=shapes)
    fig = go.Figure(data=traces, layout=layout)
    fig.add_annotation(text=f"claimed ε = {claimed_epsilon:.3g}", x=0, xref="paper", y=claimed_epsilon, yref="y",
                       xanchor="left", yanchor="bottom", showarrow=False, font=dict(size=12))
    if exact is not None:
        value = "∞" if exact == math.inf else f"{exact:.3g}"
        where = dict(y=exact, yref="y", yanchor="top") if drawn else dict(y=1.0, yref="paper", yanchor="top")
        note = "" if drawn or exact == claimed_epsilon else " (off the scale)" if exact > top else ""
        fig.add_annotation(text=f"exact ε on this x, x′ = {value}{note}", x=1, xref="paper", xanchor="right",
                           showarrow=False, font=dict(size=12), **where)
    approx_note(fig, "Monte Carlo: a lower bound holding with the stated confidence")
    caption(fig, "Likelihood-ratio threshold test chosen on half the runs, counted on the other half; "
                 "Clopper–Pearson bounds<br>(Clopper & Pearson 1934) on both error rates, Bonferroni split; "
                 "Kairouz, Oh & Viswanath 2015, Thm 2.1; Jagielski, Ullman & Oprea 2020.", below=95)
    return fig


def audit_outputs_figure(outputs_x, outputs_x_prime, *, threshold: float | None, direction: int,
                         discrete: bool, template: str = TEMPLATE) -> go.Figure:
    """Histograms of the mechanism's outputs on x and on x′ (a Monte Carlo sample), with the audit's threshold
    when the test thresholds the output itself (continuous outputs). Outputs finite with |o| ≤ 10¹², at most
    10⁶ each; ``direction`` 1 or −1; ``discrete`` outputs take at most 64 distinct values."""
    a = check_real_array(outputs_x, "outputs_x", ndim=1)
    b = check_real_array(outputs_x_prime, "outputs_x_prime", ndim=1)
    for arr, name in ((a, "outputs_x"), (b, "outputs_x_prime")):
        if arr.size > 1_000_000 or float(np.max(np.abs(arr))) > _BIG:
            raise ValueError(f"{name} is not allowed: must hold at most 1000000 outputs of magnitude <= {_BIG:g}.")
    if direction not in (1, -1) or isinstance(direction, bool):
        raise ValueError(f"direction = {direction!r} is not allowed: must be 1 or -1.")
    if not isinstance(discrete, (bool, np.bool_)):
        raise TypeError(f"discrete = {discrete!r} is not allowed: must be a bool.")
    if threshold is not None:
        threshold = _finite(threshold, "threshold")
    if discrete and np.unique(np.concatenate([a, b])).size > 64:
        raise ValueError("outputs_x and outputs_x_prime are not allowed with discrete=True: must take at most 64 "
                         "distinct values.")
    if discrete:
        vals = np.unique(np.concatenate([a, b]))
        ca = np.array([np.count_nonzero(a == v) for v in vals]) / a.size
        cb = np.array([np.count_nonzero(b == v) for v in vals]) / b.size
        traces = [_bar(x=vals - 0.15, y=ca, width=0.3, name="outputs on x", marker_color=ROLE["x"]),
                  _bar(x=vals + 0.15, y=cb, width=0.3, name="outputs on x′", marker_color=ROLE["x_prime"])]
        yt, shapes = "fraction of runs", []
    else:
        lo, hi = np.quantile(np.concatenate([a, b]), [0.002, 0.998])
        edges = np.linspace(lo, hi, 51)
        ca, _ = np.histogram(a, edges)
        cb, _ = np.histogram(b, edges)
        mid = 0.5 * (edges[1:] + edges[:-1])
        w = edges[1] - edges[0]
        traces = [_bar(x=mid, y=ca / (a.size * w), width=w, name="outputs on x", marker_color=ROLE["x"],
                       opacity=0.6),
                  _bar(x=mid, y=cb / (b.size * w), width=w, name="outputs on x′", marker_color=ROLE["x_prime"],
                       opacity=0.6)]
        yt = "density (histogram)"
        shapes = [] if threshold is None else [_vline(float(direction * threshold), color="#444444", width=2)]
    side = "right" if direction > 0 else "left"
    title = ("Outputs on x and x′" + ("" if discrete or threshold is None
                                      else f": the test guesses x′ {side} of the line"))
    layout = _layout(title, "output o", yt, template=template, barmode="overlay", legend=_LEGEND, shapes=shapes,
                     margin=dict(b=130), height=380)
    fig = go.Figure(data=traces, layout=layout)
    if discrete:
        fig.update_xaxes(dtick=1)
    approx_note(fig, "Monte Carlo sample of the outputs")
    caption(fig, "Discrete outputs: the test ranks values by their estimated likelihood ratio "
                 "P[o | x′]/P[o | x] (Neyman–Pearson)." if discrete else
                 "The likelihood ratio of Laplace or Gaussian noise is monotone in o: the best test is a "
                 "threshold.", below=80)
    return fig

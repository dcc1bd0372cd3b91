"""Figures for lesson 05 "Beyond global sensitivity": how far one record moves the median and the mean of bounded
data, the exact leak of noise calibrated to the local sensitivity (two output densities and their privacy loss), the
smooth sensitivity of the median against its smoothness parameter and the noise it sets, the exact pass probability
of propose–test–release against the distance to instability, sample-and-aggregate's block estimates with the exact
law of the private aggregate, and the exact output density of the exponential-mechanism quantile.

Builders are pure functions of plain numbers (or a result object of :mod:`dpviz.beyond`) returning a new
``go.Figure`` in the shared template; every number comes from :mod:`dpviz.beyond` or is computed exactly here from
the data (a neighbour's median is the median of that neighbour). Nothing here samples.
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
from scipy import stats

from dpviz import beyond as B
from dpviz._validation import Cap, check_integer, check_positive, check_probability, check_real_array
from dpviz.plots._theme import ROLE, TEMPLATE, _check_flag, _gaps, _hline, _layout, _number, _vline, caption, fmt_number

__all__ = [
    "replace_one_record_figure",
    "leak_densities_figure",
    "leak_privacy_loss_figure",
    "smooth_sensitivity_figure",
    "smooth_release_figure",
    "ptr_pass_figure",
    "sample_aggregate_figure",
    "quantile_law_figure",
]

#: Values of the data a figure of this module draws (one neighbour per grid point is built and sorted).
FIGURE_DATA = Cap(10_000, "the values of data one figure of lesson 05 draws")
_PLOT = 280  # px: the plot area's height; the legend and the caption go below it, each at a fixed depth
_TICKS = 68  # px below the plot area taken by the x tick labels and the x axis title
_ROW = 22  # px per legend entry (one entry per row at worst)


def _frame(entries: int, lines: int = 2) -> dict:
    """The layout keys that stack, below the plot area, the axis title, a horizontal legend of ``entries`` items and a
    caption of ``lines`` lines, with a plot area of :data:`_PLOT` px whatever the number of entries."""
    b = _below(entries) + 15 * lines + 12
    return dict(legend=dict(orientation="h", x=0, y=-_TICKS / _PLOT, yanchor="top"), margin=dict(t=60, b=b),
                height=_PLOT + 60 + b)


def _below(entries: int) -> int:
    """Pixels from the plot area's bottom to the caption: under the axis title and the legend's rows."""
    return _TICKS + _ROW * entries + 10
_NRS = "Nissim, Raskhodnikova & Smith 2007"


def _data(data, name: str = "data") -> np.ndarray:
    x = check_real_array(data, name, ndim=1).astype(float)
    FIGURE_DATA.check(x.size, f"len({name})")
    return x


def _range(lower, upper) -> tuple[float, float]:
    lo = _number(lower, "lower", low=-1e12, high=1e12)
    hi = _number(upper, "upper", low=-1e12, high=1e12)
    if not hi > lo:
        raise ValueError(f"upper = {hi!r} is not allowed: must be > lower = {lo!r}.")
    return lo, hi


def _median(sorted_rows: np.ndarray) -> np.ndarray:
    """The lower median x_(m), m = ⌈n/2⌉, of each sorted row (the median of dpviz.beyond)."""
    return sorted_rows[..., (sorted_rows.shape[-1] + 1) // 2 - 1]


# ============================================================================================ (a) one record moves


def replace_one_record_figure(data, lower: float, upper: float, *, show_median: bool = True,
                              template: str = TEMPLATE) -> go.Figure:
    """The mean and the median of the neighbour x′ that replaces the median's own record by a value v, for v from
    ``lower`` to ``upper`` (log x axis when lower > 0). Each point is the statistic of that neighbour, computed
    directly. The mean moves by (v − x<sub>(m)</sub>)/n, across (upper − lower)/n; the median stays between its two
    neighbours x<sub>(m−1)</sub> and x<sub>(m+1)</sub>. ``show_median=False`` leaves the median's curve out (an exercise
    asks for it)."""
    x = _data(data)
    if x.size < 1:
        raise ValueError("data is empty, which is not allowed: must hold at least 1 value.")
    lo, hi = _range(lower, upper)
    show = _check_flag(show_median, "show_median")
    xs = np.sort(np.clip(x, lo, hi))
    n = xs.size
    m = (n + 1) // 2
    log_x = lo > 0
    v = np.geomspace(lo, hi, 160) if log_x else np.linspace(lo, hi, 160)
    v = np.union1d(v, xs)  # the kinks of the median's curve are data values
    rows = np.repeat(xs[None, :], v.size, axis=0)
    rows[:, m - 1] = v  # replace the median's own record by v
    mean = rows.mean(axis=1)
    med = _median(np.sort(rows, axis=1))
    med0, mean0 = float(xs[m - 1]), float(xs.mean())
    traces = [dict(type="scatter", x=v, y=_gaps(mean), mode="lines", name="mean of x′",
                   line=dict(color=ROLE["naive"], width=3),
                   hovertemplate="v = %{x:.4g}<br>mean(x′) = %{y:.4g}<extra></extra>")]
    if show:
        traces.append(dict(type="scatter", x=v, y=_gaps(med), mode="lines", name="median of x′",
                           line=dict(color=ROLE["exact"], width=3),
                           hovertemplate="v = %{x:.4g}<br>median(x′) = %{y:.4g}<extra></extra>"))
    else:
        traces.append(dict(type="scatter", x=[], y=[], mode="lines", name="median of x′: hidden until you reveal",
                           line=dict(color=ROLE["exact"], width=3)))
    traces.append(dict(type="scatter", x=[med0, mean0], y=[med0, mean0], mode="markers",
                       name="median and mean of x (v = the record's own value, and the mean)",
                       marker=dict(color=ROLE["bound"], size=9, symbol="x"),
                       hovertemplate="%{y:.4g}<extra></extra>"))
    layout = _layout(f"Replace one record by v: n = {n}, data in [{fmt_number(lo, 3)}, {fmt_number(hi, 3)}]",
                     "new value v of the median's record" + (" (log scale)" if log_x else ""),
                     "statistic of the neighbour x′" + (" (log scale)" if lo > 0 else ""), template=template,
                     title_size=15, **_frame(len(traces)))
    if log_x:
        layout["xaxis"].update(type="log", exponentformat="power")
        layout["yaxis"].update(type="log")
    fig = go.Figure(data=traces, layout=layout)
    caption(fig, "Each point: the statistic of x′ = x with the record x<sub>(m)</sub> replaced by v, computed "
                 "exactly (m = ⌈n/2⌉).<br>Global sensitivity: mean (U − L)/n, median U − L (one record at each "
                 "end can move it across the range; " + _NRS + ", §3.1).",
            below=_below(len(traces)))
    return fig


# ============================================================================================ (b) the leak


def _leak(data, neighbour, epsilon, lower, upper):
    x, x2 = _data(data), _data(neighbour, "neighbour")
    lo, hi = _range(lower, upper)
    eps = check_positive(epsilon, "epsilon")
    leak = B.local_sensitivity_leak(x, x2, eps, lo, hi)
    if leak.scale == 0.0 or leak.scale_neighbour == 0.0:
        which = "data" if leak.scale == 0.0 else "neighbour"
        raise ValueError(f"{which} has local sensitivity 0, which is not allowed in this figure: its release is the "
                         "exact median, a point mass with no density (and an infinite privacy loss).")
    return x, x2, lo, hi, eps, leak


def _leak_grid(leak) -> np.ndarray:
    centre = 0.5 * (leak.median + leak.median_neighbour)
    half = 0.5 * abs(leak.median - leak.median_neighbour) + 8.0 * max(leak.scale, leak.scale_neighbour)
    grid = np.linspace(centre - half, centre + half, 401)
    return np.union1d(grid, [leak.median, leak.median_neighbour])


def leak_densities_figure(data, neighbour, epsilon: float, lower: float, upper: float, *,
                          template: str = TEMPLATE) -> go.Figure:
    """The two exact output densities of med + Lap(LS/ε) on neighbouring data sets x and x′ (replace one record):
    Lap(med(x), LS(x)/ε) and Lap(med(x′), LS(x′)/ε) (Dwork & Roth 2014, Def. 3.3 for the density). Their scales
    differ, so their tails cross: far out one is infinitely more likely than the other."""
    x, x2, lo, hi, eps, leak = _leak(data, neighbour, epsilon, lower, upper)
    y = _leak_grid(leak)
    p = stats.laplace.pdf(y, leak.median, leak.scale)
    q = stats.laplace.pdf(y, leak.median_neighbour, leak.scale_neighbour)
    traces = [dict(type="scatter", x=y, y=_gaps(p), mode="lines", line=dict(color=ROLE["x"], width=3),
                   name=f"on x: Lap(med(x) = {fmt_number(leak.median, 3)}, b = LS(x)/ε = "
                        f"{fmt_number(leak.scale, 3)})"),
              dict(type="scatter", x=y, y=_gaps(q), mode="lines", line=dict(color=ROLE["x_prime"], width=3,
                                                                            dash="dash"),
                   name=f"on x′: Lap(med(x′) = {fmt_number(leak.median_neighbour, 3)}, b′ = LS(x′)/ε = "
                        f"{fmt_number(leak.scale_neighbour, 3)})")]
    layout = _layout(f"Noise set by the local sensitivity: ε = {fmt_number(eps, 3)} on each data set",
                     "released value y", "density (log scale)", template=template, title_size=15,
                     **_frame(len(traces)))
    layout["yaxis"].update(type="log", exponentformat="power")
    fig = go.Figure(data=traces, layout=layout)
    caption(fig, "Exact Laplace densities e<sup>−|y − med|/b</sup>/(2b) (Dwork & Roth 2014, Def. 3.3). The scale "
                 "b = LS/ε depends on the data: it leaks<br>(" + _NRS + ", §1–2).",
            below=_below(len(traces)))
    return fig


def leak_privacy_loss_figure(data, neighbour, epsilon: float, lower: float, upper: float, *,
                             template: str = TEMPLATE) -> go.Figure:
    """The exact privacy loss ℓ(y) = ln p<sub>x</sub>(y)/p<sub>x′</sub>(y) of the local-sensitivity release
    (:func:`dpviz.beyond.local_sensitivity_privacy_loss`): piecewise linear, unbounded when the scales differ, with
    the band ±ε that ε-DP would need."""
    x, x2, lo, hi, eps, leak = _leak(data, neighbour, epsilon, lower, upper)
    y = _leak_grid(leak)
    loss = B.local_sensitivity_privacy_loss(y, x, x2, eps, lo, hi)
    outside = np.abs(loss) > eps * (1 + 1e-12)
    traces = [dict(type="scatter", x=y, y=_gaps(loss), mode="lines", line=dict(color=ROLE["exact"], width=3),
                   name="privacy loss ℓ(y) = ln(p<sub>x</sub>(y)/p<sub>x′</sub>(y))"),
              dict(type="scatter", x=y, y=_gaps(np.where(outside, loss, np.nan)), mode="lines",
                   line=dict(color=ROLE["approx"], width=5), name="outside ±ε: ε-DP fails there")]
    top = max(2.5 * eps, 1.1 * float(np.max(np.abs(loss))))
    verdict = ("unbounded: no finite ε holds" if math.isinf(leak.max_privacy_loss)
               else f"at most {fmt_number(leak.max_privacy_loss, 3)}")
    layout = _layout(f"Privacy loss of the local-sensitivity release: {verdict}", "released value y",
                     "ℓ(y) = ln(p<sub>x</sub>(y)/p<sub>x′</sub>(y))", template=template, title_size=15,
                     **_frame(len(traces)),
                     shapes=[_hline(eps, color=ROLE["bound"]), _hline(-eps, color=ROLE["bound"])])
    layout["yaxis"].update(range=[-top, top])
    fig = go.Figure(data=traces, layout=layout)
    caption(fig, f"Exact: ℓ(y) = ln(b′/b) − |y − med(x)|/b + |y − med(x′)|/b′, growing like |y|·|1/b′ − 1/b|. "
                 f"Dashed: ±ε.<br>δ at ε = {fmt_number(eps, 3)}: {fmt_number(leak.delta, 3)} (exact hockey-stick "
                 "divergence of the two Laplace laws; Dwork & Roth 2014, Def. 3.3).",
            below=_below(len(traces)))
    return fig


# ============================================================================================ (c) smooth sensitivity


def smooth_sensitivity_figure(data, lower: float, upper: float, *, beta_mark: float | None = None,
                              template: str = TEMPLATE) -> go.Figure:
    """The exact smooth sensitivity S*(x) of the median (:func:`dpviz.beyond.smooth_sensitivity_median`) against its
    smoothness parameter β<sub>smooth</sub> (log–log), between the local sensitivity LS(x) (β<sub>smooth</sub> → ∞)
    and the global sensitivity U − L (β<sub>smooth</sub> = 0), with ``beta_mark`` marked."""
    x = _data(data)
    lo, hi = _range(lower, upper)
    mark = None if beta_mark is None else _number(beta_mark, "beta_mark", low=0.0, high=1e6, low_open=True)
    betas = np.geomspace(1e-4, 10.0, 26)
    if mark is not None:
        betas = np.union1d(betas, [mark])
    s = np.array([B.smooth_sensitivity_median(x, float(b), lo, hi) for b in betas])
    ls = B.local_sensitivity_median(x, lo, hi)
    traces = [dict(type="scatter", x=betas, y=_gaps(s), mode="lines", line=dict(color=ROLE["exact"], width=3),
                   name="smooth sensitivity S*(x) (exact)",
                   hovertemplate="β = %{x:.3g}<br>S* = %{y:.4g}<extra></extra>"),
              dict(type="scatter", x=[betas[0], betas[-1]], y=[hi - lo] * 2, mode="lines",
                   line=dict(color=ROLE["naive"], width=2, dash="dash"), name="global sensitivity U − L"),
              dict(type="scatter", x=[betas[0], betas[-1]], y=_gaps([ls, ls]), mode="lines",
                   line=dict(color=ROLE["alt"], width=2, dash="dot"), name="local sensitivity LS(x)")]
    shapes = []
    if mark is not None:
        sm = float(s[np.searchsorted(betas, mark)])
        traces.append(dict(type="scatter", x=[mark], y=_gaps([sm]), mode="markers",
                           marker=dict(color=ROLE["x_prime"], size=12, symbol="diamond"),
                           name=f"the release's β<sub>smooth</sub> = {fmt_number(mark, 3)}: S* = "
                                f"{fmt_number(sm, 3)}"))
        shapes.append(_vline(mark, color=ROLE["x_prime"], dash="dot"))
    layout = _layout(f"Smooth sensitivity of the median: n = {x.size}", "smoothness β<sub>smooth</sub> (log scale)",
                     "sensitivity, data units (log scale)", template=template, title_size=15,
                     shapes=shapes, **_frame(len(traces)))
    layout["xaxis"].update(type="log", exponentformat="power")
    layout["yaxis"].update(type="log", exponentformat="power")
    fig = go.Figure(data=traces, layout=layout)
    caption(fig, "Exact: S*(x) = max<sub>k</sub> A<sup>(k)</sup>(x)·exp(−k·β<sub>smooth</sub>), A<sup>(k)</sup>(x) = "
                 "max<sub>0≤t≤k+1</sub> (x<sub>(m+t)</sub> − x<sub>(m+t−k−1)</sub>), the largest LS<br>within k "
                 "changed records (" + _NRS + ", Def. 2.3, Def. 3.1, Prop. 3.4; x<sub>(i)</sub> = L below rank 1, "
                 "U above rank n).", below=_below(len(traces)))
    return fig


def smooth_release_figure(release: B.SmoothSensitivityRelease, lower: float, upper: float, *,
                          template: str = TEMPLATE) -> go.Figure:
    """The exact output density of the smooth-sensitivity release med(x) + scale·Z (Laplace or Cauchy Z; Nissim,
    Raskhodnikova & Smith 2007, Corollary 2.4), against the Laplace mechanism at the global sensitivity,
    Lap((U − L)/ε), both centred at the true median (shown for teaching: it is not released)."""
    if not isinstance(release, B.SmoothSensitivityRelease):
        raise TypeError(f"release = {release!r:.80} is not allowed: must be a SmoothSensitivityRelease (from "
                        "smooth_sensitivity_release_parameters).")
    lo, hi = _range(lower, upper)
    med, eps = release.median, release.epsilon
    b_global = (hi - lo) / eps
    half = 6.0 * max(release.scale, min(b_global, 50 * release.scale))
    y = np.union1d(np.linspace(med - half, med + half, 601), [med])
    if release.noise == "laplace":
        p = stats.laplace.pdf(y, med, release.scale)
        name = f"smooth, Laplace: med + Lap(2S*/ε), scale {fmt_number(release.scale, 3)}"
        guarantee = f"({fmt_number(eps, 3)}, {fmt_number(release.delta, 2)})-DP"
    else:
        p = stats.cauchy.pdf(y, med, release.scale)
        name = f"smooth, Cauchy: med + (6S*/ε)·Z, scale {fmt_number(release.scale, 3)}"
        guarantee = f"{fmt_number(eps, 3)}-DP"
    g = stats.laplace.pdf(y, med, b_global)
    traces = [dict(type="scatter", x=y, y=_gaps(p), mode="lines", line=dict(color=ROLE["exact"], width=3),
                   name=name),
              dict(type="scatter", x=y, y=_gaps(g), mode="lines", line=dict(color=ROLE["naive"], width=2,
                                                                            dash="dash"),
                   name=f"global: med + Lap((U − L)/ε), scale {fmt_number(b_global, 3)}")]
    layout = _layout(f"Noise of the release ({guarantee}) against the global-sensitivity Laplace",
                     "released value y", "density", template=template, title_size=14,
                     shapes=[_vline(med, color=ROLE["bound"], dash="dot")], **_frame(len(traces)))
    layout["xaxis"].update(range=[med - half, med + half])
    fig = go.Figure(data=traces, layout=layout)
    src = ("Laplace: β<sub>smooth</sub> = ε/(2 ln(2/δ)), scale 2S*/ε, (ε, δ)-DP" if release.noise == "laplace" else
           "Cauchy: β<sub>smooth</sub> = ε/6, scale 6S*/ε, ε-DP")
    caption(fig, f"Exact densities. {src} ({_NRS}, Cor. 2.4).<br>Dotted: the true median (not released).",
            below=_below(len(traces)))
    return fig


# ============================================================================================ (d) PTR


def ptr_pass_figure(epsilon: float, delta: float, *, distance: float | None = None, max_distance: int | None = None,
                    template: str = TEMPLATE) -> go.Figure:
    """The exact probability that propose–test–release's test passes, P[γ + Lap(1/ε) > ln(1/δ)/ε], against the
    distance γ to the nearest data set whose local sensitivity exceeds the proposed bound (log y axis;
    :func:`dpviz.beyond.ptr_pass_probability`). ``distance`` marks this data's γ (hidden when None); +inf is drawn
    at the right edge."""
    eps = check_positive(epsilon, "epsilon")
    d = check_probability(delta, "delta", open_low=True, open_high=True)
    eps = B.EPSILON.check(eps, "epsilon")
    with np.errstate(over="ignore"):
        threshold = -math.log(d) / eps if eps >= 1e-300 else math.inf
    if not math.isfinite(threshold) or threshold > 1e9:
        raise ValueError(f"epsilon = {eps!r} and delta = {d!r} are not allowed: the threshold ln(1/δ)/ε = "
                         f"{threshold:.3g} must be at most 10⁹ (a drawable distance).")
    if max_distance is None:
        top = int(min(max(10.0, math.ceil(2.5 * threshold)), 10_000))
    else:
        top = check_integer(max_distance, "max_distance", minimum=1, maximum=100_000)
    gam = None
    if distance is not None:
        gam = _number(distance, "distance", low=0.0, high=math.inf) if distance != math.inf else math.inf
        if math.isfinite(gam) and gam != math.floor(gam):
            raise ValueError(f"distance = {distance!r} is not allowed: must be an integer >= 0 or +inf.")
    ks = np.arange(0, top + 1, dtype=float)
    p = B.ptr_pass_probability(ks, eps, d)
    traces = [dict(type="scatter", x=ks, y=_gaps(p), mode="lines+markers" if top <= 60 else "lines",
                   line=dict(color=ROLE["exact"], width=3, shape="linear"), marker=dict(size=5),
                   name="P[pass] at distance γ (exact)",
                   hovertemplate="γ = %{x}<br>P[pass] = %{y:.3g}<extra></extra>")]
    shapes = [_vline(threshold, color=ROLE["bound"], dash="dash"), _hline(d / 2, color=ROLE["approx"], dash="dot")]
    if gam is not None:
        shown = min(gam, float(top))
        pg = float(B.ptr_pass_probability(gam, eps, d))
        label = "∞" if math.isinf(gam) else fmt_number(gam, 6)
        traces.append(dict(type="scatter", x=[shown], y=[pg], mode="markers",
                           marker=dict(color=ROLE["x_prime"], size=14, symbol="diamond"),
                           name=f"this data: γ = {label}, P[pass] = {fmt_number(pg, 3)}"))
    layout = _layout(f"Propose–test–release: does the test pass? ε = {fmt_number(eps, 3)}, δ = {fmt_number(d, 2)}",
                     "distance γ: records to change before LS > Δ<sub>prop</sub>", "P[test passes] (log scale)",
                     template=template, title_size=14, **_frame(len(traces)),
                     shapes=shapes)
    layout["yaxis"].update(type="log", exponentformat="power", range=[math.log10(d) - math.log10(2.0) - 0.5, 0.1])
    fig = go.Figure(data=traces, layout=layout)
    caption(fig, "Exact: pass iff γ + Lap(1/ε) > ln(1/δ)/ε (dashed), so P = ½δe<sup>εγ</sup> below it and "
                 "1 − e<sup>−εγ</sup>/(2δ) above;<br>dotted: δ/2, the pass probability at γ = 0 (Dwork & Lei 2009; "
                 "Dwork & Roth 2014, §7.2). The whole algorithm is (2ε, δ)-DP.",
            below=_below(len(traces)))
    return fig


# ============================================================================================ (e) sample and aggregate


def sample_aggregate_figure(result: B.SampleAggregateResult, lower: float, upper: float, *,
                            truth: float | None = None, template: str = TEMPLATE) -> go.Figure:
    """The block estimates of one sample-and-aggregate run (internal, shown for teaching) and the exact law of the
    private aggregate given them: Lap(average, (U − L)/(Bε)) for the noisy mean, the exponential-mechanism median's
    piecewise-constant density (:func:`dpviz.beyond.dp_quantile_law` at q = ½) for the median."""
    if not isinstance(result, B.SampleAggregateResult):
        raise TypeError(f"result = {result!r:.80} is not allowed: must be a SampleAggregateResult (from "
                        "sample_and_aggregate).")
    lo, hi = _range(lower, upper)
    t = _number(truth, "truth", optional=True)
    est = np.clip(np.asarray(result.estimates, dtype=float), lo, hi)
    FIGURE_DATA.check(est.size, "the block estimates")
    eps = result.epsilon
    if result.aggregate == "mean":
        avg = float(est.mean())
        half = max(6.0 * result.scale, 0.6 * float(est.max() - est.min()) + 1e-12)
        y = np.union1d(np.linspace(avg - half, avg + half, 501), [avg])
        dens = stats.laplace.pdf(y, avg, result.scale)
        name = f"exact law of the release: Lap(average, (U − L)/(Bε) = {fmt_number(result.scale, 3)})"
        src = "average + Lap((U − L)/(Bε)): one record changes one block (Dwork & Roth 2014, §7.1)"
    else:
        law = B.dp_quantile_law(est, 0.5, eps, lo, hi)
        e = law.edges
        y = np.union1d(e, np.linspace(lo, hi, 400))
        dens = law.pdf(y)
        name = "exact law of the release: the exponential-mechanism median of the estimates"
        src = "EM median of the estimates (Smith 2011; McSherry & Talwar 2007)"
    peak = float(np.max(dens)) if dens.size else 1.0
    traces = [dict(type="scatter", x=y, y=_gaps(dens), mode="lines", line=dict(color=ROLE["exact"], width=3,
                                                                           shape="hv" if result.aggregate ==
                                                                           "median" else "linear"), name=name),
              dict(type="scatter", x=est, y=[0.0] * est.size, mode="markers",
                   marker=dict(color=ROLE["x_prime"], size=9, symbol="line-ns-open", line=dict(width=2)),
                   name=f"the B = {est.size} block estimates (internal, not released)")]
    shapes = [_vline(result.value, color=ROLE["alt"], dash="solid", width=2)]
    if t is not None:
        shapes.append(_vline(t, color=ROLE["bound"], dash="dot"))
    layout = _layout(f"Sample and aggregate: {est.size} blocks, aggregate by the {result.aggregate}, "
                     f"ε = {fmt_number(eps, 3)}", "value (data units)", "density of the release", template=template,
                     title_size=14, **_frame(len(traces)), shapes=shapes)
    layout["yaxis"].update(range=[-0.05 * peak, 1.1 * peak])
    fig = go.Figure(data=traces, layout=layout)
    caption(fig, f"{src}.<br>Green line: this draw's release. Dotted: the statistic on all the data (not "
                 "released). One shuffle of the data into blocks, set by the draw.",
            below=_below(len(traces)))
    return fig


# ============================================================================================ (f) DP quantile


def quantile_law_figure(data, q: float, epsilon: float, lower: float, upper: float, *, mark: float | None = None,
                        show_tail: bool = True, template: str = TEMPLATE) -> go.Figure:
    """The exact output density of the ε-DP q-quantile by the exponential mechanism (Smith 2011; McSherry & Talwar
    2007): piecewise constant between the sorted data values, ∝ e<sup>−ε|i − qn|/2</sup> (log y axis), with the data
    as ticks, the true q-quantile dotted and ``mark`` (a drawn value, e.g. a clipping bound) as a line.
    ``show_tail=False`` leaves the probability of landing above every value out of the caption (an exercise asks)."""
    x = _data(data)
    qq = check_probability(q, "q")
    eps = check_positive(epsilon, "epsilon")
    lo, hi = _range(lower, upper)
    mk = _number(mark, "mark", optional=True)
    tail = _check_flag(show_tail, "show_tail")
    law = B.dp_quantile_law(x, qq, eps, lo, hi)
    e, lp = law.edges, law.log_probabilities
    length = np.diff(e)
    keep = length > 0
    with np.errstate(divide="ignore"):
        log_d = np.where(keep, lp - np.log(np.where(keep, length, 1.0)), -np.inf)
    # one flat step per interval, drawn as a step line through the edges ("hv"): the density of interval i from
    # edges[i] to edges[i + 1] (an empty interval has no width, so no step); an underflowed density is a gap
    dens = np.exp(np.maximum(log_d, -745.0))
    dens = np.where(np.isfinite(log_d) & (log_d > -745.0), dens, np.nan)
    xs = e.tolist()
    ys = _gaps(np.r_[dens, dens[-1]])
    xsorted = np.sort(np.clip(x, lo, hi))
    truth = float(xsorted[min(xsorted.size - 1, max(0, math.ceil(qq * xsorted.size) - 1))]) if x.size else None
    finite = [v for v in ys if v is not None]
    bottom = max(min(finite), max(finite) * 1e-12) if finite else 1e-12
    traces = [dict(type="scatter", x=xs, y=ys, mode="lines", line=dict(color=ROLE["exact"], width=3, shape="hv"),
                   name=f"exact density of the DP {fmt_number(qq, 3)}-quantile", connectgaps=False),
              dict(type="scatter", x=xsorted, y=[bottom] * xsorted.size, mode="markers",
                   marker=dict(color=ROLE["bound"], size=8, symbol="line-ns-open"), name="the data values")]
    shapes = []
    if truth is not None:
        shapes.append(_vline(truth, color=ROLE["bound"], dash="dot"))
    if mk is not None:
        shapes.append(_vline(mk, color=ROLE["x_prime"], dash="solid", width=2))
        traces.append(dict(type="scatter", x=[mk], y=[bottom], mode="markers", marker=dict(
            color=ROLE["x_prime"], size=11, symbol="diamond"), name=f"this draw: {fmt_number(mk, 4)}"))
    p_above = float(np.exp(lp[-1])) if math.isfinite(lp[-1]) else 0.0
    layout = _layout(f"DP quantile by the exponential mechanism: q = {fmt_number(qq, 3)}, ε = {fmt_number(eps, 3)}, "
                     f"range [{fmt_number(lo, 3)}, {fmt_number(hi, 3)}]", "output (data units)",
                     "density (log scale)", template=template, title_size=14, shapes=shapes,
                     **_frame(len(traces)))
    peak = max(finite) if finite else 1.0
    layout["yaxis"].update(type="log", exponentformat="power", range=[math.log10(bottom) - 0.3, math.log10(peak) + 0.3])
    fig = go.Figure(data=traces, layout=layout)
    caption(fig, "Exact: P[output in [x<sub>(i)</sub>, x<sub>(i+1)</sub>]] ∝ (x<sub>(i+1)</sub> − x<sub>(i)</sub>)·"
                 "e<sup>−ε|i − qn|/2</sup>, uniform inside (Smith 2011; McSherry & Talwar 2007;<br>Dwork & Roth 2014, "
                 "Thm 3.10). Dotted: the true quantile (not released)."
                 + (f" P[output above every value] = {fmt_number(p_above, 3)}." if tail else ""),
            below=_below(len(traces)))
    return fig

"""Beyond global sensitivity: local and smooth sensitivity, propose–test–release, sample-and-aggregate and DP
quantiles, exact wherever a closed form exists (the numerics of the lesson "Beyond global sensitivity").

The running example is the median of n values known to lie in [lower, upper]. Its global sensitivity is
upper − lower (one changed record can move it across the whole range), far more than it moves on typical data.

* **Local sensitivity** LS(x) = max over neighbours x′ of |f(x) − f(x′)| (Nissim, Raskhodnikova & Smith 2007,
  Def. 2.1): :func:`local_sensitivity_median`. Calibrating Laplace noise to it *leaks*: the noise scale itself depends
  on the data. :func:`local_sensitivity_leak` gives, for two neighbouring data sets, both scales and the exact
  privacy actually achieved (an infinite privacy loss as soon as the scales differ, and the exact δ at the nominal ε).
* **Sensitivity at distance k** A⁽ᵏ⁾(x) = max over y with d(x, y) ≤ k of LS(y) and the **smooth sensitivity**
  S*_β(x) = max_k e^{−kβ} A⁽ᵏ⁾(x) (Nissim, Raskhodnikova & Smith 2007, Def. 2.2–2.3 and §3): for the median,
  A⁽ᵏ⁾(x) = max_{0≤t≤k+1} (x_{m+t} − x_{m+t−k−1}) (their Prop. 3.4), :func:`local_sensitivity_at_distance` and
  :func:`smooth_sensitivity_median`; the noise calibration of their Corollary 2.4 (Laplace: (ε, δ)-DP; Cauchy: ε-DP),
  :func:`smooth_sensitivity_release_parameters` and :func:`smooth_sensitivity_release`.
* **Propose–test–release** (Dwork & Lei 2009; Dwork & Roth 2014, §7.2): :func:`ptr_distance_median`,
  :func:`ptr_pass_probability` (exact, a Laplace CDF) and :func:`propose_test_release`.
* **Sample and aggregate** (Nissim, Raskhodnikova & Smith 2007, §4; Dwork & Roth 2014, §7.1):
  :func:`sample_and_aggregate`.
* **DP quantiles by the exponential mechanism** (Smith 2011; McSherry & Talwar 2007): the exact, piecewise-constant
  output law :func:`dp_quantile_law`, a sampler :func:`dp_quantile`, and :func:`choose_clipping_bound`.

Neighbouring relation: **replace one record** (data sets of the same size n at Hamming distance 1), the relation of
Nissim, Raskhodnikova & Smith 2007 throughout; :func:`local_sensitivity_median` also offers add/remove. The median
of n values is the order statistic x_(m) with m = ⌈n/2⌉ (the lower median for even n; for odd n it is
m = (n + 1)/2 as in Nissim, Raskhodnikova & Smith 2007, §3.1). Every function first clamps the data to
[lower, upper] (a map applied to each record separately: privacy is unchanged) and sorts it; out-of-range order
statistics are the bounds, x_i = lower for i ≤ 0 and x_i = upper for i > n (their convention).

Each public function validates its arguments once, here (:func:`dpviz._validation.checked`); sizes are capped by the
:class:`~dpviz._validation.Cap` declared beside the specs, so that a large input is refused with a ValueError naming
the cap instead of running out of memory. Randomness is a keyword-only ``rng`` (numpy Generator, seed or None).
"""

from __future__ import annotations

import collections
import dataclasses
import math
from typing import Any

import numpy as np
from scipy import special

from dpviz._validation import (
    ArrayOf,
    Cap,
    InstanceOf,
    Interval,
    Options,
    _size_arg,
    as_rng,
    check_real_array,
    checked,
    evaluate_finite,
)
from dpviz.sensitivity import laplace_scale, mean_sensitivity

__all__ = [
    "RELATIONS",
    "NOISES",
    "local_sensitivity_median",
    "local_sensitivity_at_distance",
    "smooth_sensitivity_median",
    "SmoothSensitivityRelease",
    "smooth_sensitivity_release_parameters",
    "smooth_sensitivity_release",
    "LocalSensitivityLeak",
    "local_sensitivity_leak",
    "local_sensitivity_privacy_loss",
    "ptr_distance_median",
    "ptr_pass_probability",
    "PTRResult",
    "propose_test_release",
    "SampleAggregateResult",
    "sample_and_aggregate",
    "QuantileLaw",
    "dp_quantile_law",
    "dp_quantile",
    "choose_clipping_bound",
]

#: The neighbouring relations of :func:`local_sensitivity_median` (everything else: replace one record).
RELATIONS = ("replace", "add_remove")
#: The noises of the smooth-sensitivity release (Nissim, Raskhodnikova & Smith 2007, Corollary 2.4).
NOISES = ("laplace", "cauchy")

# ------------------------------------------------------------------------------------------ specs and caps
#: ``lower`` and ``upper``: the public range of the data, within ±10¹² (differences stay exact far beyond the noise).
BOUND = Interval(-1e12, 1e12)
#: The data: a 1-D array of finite reals (values outside [lower, upper] are clamped, so any finite value is allowed).
DATA = ArrayOf(ndim=1)
#: Values of ``data`` of one call.
DATA_VALUES = Cap(1_000_000, "the values of data")
#: Values of ``data`` whose smooth sensitivity is computed exactly: the O(n²/4) pairs of
#: :func:`smooth_sensitivity_median` (10⁴ values: 2.5·10⁷ pairs, well under a second).
SMOOTH_VALUES = Cap(10_000, "the values of data whose smooth sensitivity is computed exactly (O(n²) pairs)")
#: Values of each data set of :func:`local_sensitivity_leak` (a multiset comparison checks they are neighbours).
LEAK_VALUES = Cap(100_000, "the values of each data set of a leak example")
#: ε of this module's mechanisms: a teaching range, e^ε stays far inside the double range.
EPSILON = Interval(0.0, 100.0, open_low=True)
#: δ of an (ε, δ) guarantee here: in (0, 1).
DELTA = Interval(0.0, 1.0, open_low=True, open_high=True)
#: The smoothness parameter β ≥ 0 (β = 0 gives the global sensitivity upper − lower).
BETA = Interval(0.0, 1e6)
#: A distance k ≥ 0 (Hamming distance between data sets); beyond n every A⁽ᵏ⁾ is upper − lower.
DISTANCE = Interval(0, 10**12, integer=True)
#: The bound b on the local sensitivity proposed to PTR.
PROPOSED_BOUND = Interval(0.0, 4e12, open_low=True)
#: The quantile q ∈ [0, 1].
QUANTILE = Interval(0.0, 1.0)
#: The blocks of sample-and-aggregate.
BLOCKS = Interval(1, DATA_VALUES.limit, integer=True)
#: A float field of a result: any finite real.
FINITE = Interval(None, None)
#: A non-negative field of a result (a scale, a sensitivity).
NONNEG = Interval(0.0, None)

_TINY = 5e-324  # the smallest positive double: a smooth sensitivity below the double range is rounded up to it


def _bounds(lower: float, upper: float) -> tuple[float, float]:
    if not upper > lower:
        raise ValueError(f"upper = {upper!r} is not allowed: must be > lower = {lower!r} (the data range "
                         "[lower, upper] must have a positive length).")
    return float(lower), float(upper)


def _padded(data: np.ndarray, lower: float, upper: float, cap: Cap = DATA_VALUES) -> np.ndarray:
    """z_0 = lower, z_1 ≤ … ≤ z_n the data clamped to [lower, upper] and sorted, z_{n+1} = upper (an unchecked
    helper after the specs: ``data`` is a finite 1-D array)."""
    cap.check(data.size, "len(data)")
    return np.concatenate(([lower], np.sort(np.clip(data, lower, upper)), [upper]))


def _median_rank(n: int) -> int:
    """m = ⌈n/2⌉: the rank of the (lower) median, 1-based, so that z[m] is the median of the padded array."""
    return (n + 1) // 2


# ------------------------------------------------------------------------------------------ local sensitivity


def _a_k(z: np.ndarray, m: int, k: int) -> float:
    """A⁽ᵏ⁾ = max_{0≤t≤k+1} (z_{m+t} − z_{m+t−k−1}), indices clamped to [0, n + 1] (Nissim, Raskhodnikova & Smith
    2007, Prop. 3.4); unchecked kernel, k ≤ n."""
    last = z.size - 1
    t = np.arange(k + 2)
    return float(np.max(z[np.minimum(m + t, last)] - z[np.maximum(m + t - k - 1, 0)]))


@checked(data=DATA, lower=BOUND, upper=BOUND, relation=Options(*RELATIONS))
def local_sensitivity_median(data, lower: float, upper: float, relation: str = "replace") -> float:
    """The local sensitivity LS(x) = max_{x′ neighbour of x} |med(x) − med(x′)| of the median x_(m), m = ⌈n/2⌉,
    of the data clamped to [lower, upper] (Nissim, Raskhodnikova & Smith 2007, Def. 2.1; median as in their §3.1):

        replace (one record changed):          LS(x) = max(x_m − x_{m−1}, x_{m+1} − x_m)
        add/remove (one record added/removed): LS(x) = x_m − x_{m−1} for odd n, x_{m+1} − x_m for even n

    with x_0 = lower and x_{n+1} = upper. Replace: the changed record can push the median one order statistic up or
    down, no further. Add/remove (n ≥ 2, so the neighbour is not empty): for odd n = 2j − 1 an added value v gives the
    median clip(v, x_{j−1}, x_j) and a removal x_j or x_{j−1}; for even n = 2j, clip(v, x_j, x_{j+1}) and x_{j+1} or
    x_j. The replace formula is A⁽⁰⁾ of :func:`local_sensitivity_at_distance`.

    >>> local_sensitivity_median([1.0, 2.0, 3.0, 7.0, 9.0], 0.0, 10.0)
    4.0
    >>> local_sensitivity_median([1.0, 2.0, 3.0, 7.0, 9.0], 0.0, 10.0, "add_remove")
    1.0
    """
    lo, hi = _bounds(lower, upper)
    z = _padded(data, lo, hi)
    n = z.size - 2
    m = _median_rank(n)
    if relation == "replace":
        return _a_k(z, m, 0)
    if n < 2:
        raise ValueError(f"data has {n} value, which is not allowed: must hold at least 2 values under add/remove "
                         "(the neighbour with one record fewer must not be empty).")
    return float(z[m] - z[m - 1]) if n % 2 else float(z[m + 1] - z[m])


@checked(data=DATA, k=DISTANCE, lower=BOUND, upper=BOUND)
def local_sensitivity_at_distance(data, k: int, lower: float, upper: float) -> float:
    """The sensitivity at distance k of the median (replace one record), A⁽ᵏ⁾(x) = max_{y: d(x,y) ≤ k} LS(y)
    (Nissim, Raskhodnikova & Smith 2007, Def. 3.1), in closed form (their Prop. 3.4):

        A⁽ᵏ⁾(x) = max_{0 ≤ t ≤ k+1} (x_{m+t} − x_{m+t−k−1}),   x_i = lower for i ≤ 0, x_i = upper for i > n.

    Changing k records can open the gap around the median to any k + 1 consecutive spacings that contain rank m.
    A⁽⁰⁾ = LS(x) (:func:`local_sensitivity_median`); A⁽ᵏ⁾ is non-decreasing in k and equals upper − lower, the
    global sensitivity, for every k ≥ n.

    >>> local_sensitivity_at_distance([1.0, 2.0, 3.0, 7.0, 9.0], 1, 0.0, 10.0)
    6.0
    """
    lo, hi = _bounds(lower, upper)
    z = _padded(data, lo, hi)
    n = z.size - 2
    return _a_k(z, _median_rank(n), min(k, n))


def _smooth(z: np.ndarray, m: int, beta: float) -> float:
    """S*_β = max over l ∈ [0, m], i ∈ [m, n + 1], l < i of (z_i − z_l) e^{−β(i − l − 1)} (unchecked kernel).

    This is max_k e^{−kβ} A⁽ᵏ⁾ with A⁽ᵏ⁾ from Prop. 3.4, reindexed by the pair (l, i) = (m + t − k − 1, m + t), k =
    i − l − 1 (Nissim, Raskhodnikova & Smith 2007, §3.1); pairs outside [0, n + 1] add nothing, since clamping an
    index lowers k. The maximum is found in log space, ln(z_i − z_l) − βk, in blocks of rows l (at most ~2·10⁶ pairs,
    16 MB, at a time), so that e^{−kβ} never underflows; the value is then (z_i − z_l)·e^{−βk} of the best pair
    (exact for β = 0 or k = 0), at least the smallest positive double (an upper bound, still β-smooth)."""
    n1 = z.size - 1
    cols = np.arange(m, n1 + 1)
    zi = z[cols]
    best, best_gap, best_k = -math.inf, 0.0, 0
    rows = max(1, 2_000_000 // cols.size)
    with np.errstate(divide="ignore"):
        for start in range(0, m + 1, rows):
            ls = np.arange(start, min(m + 1, start + rows))
            gap = zi[None, :] - z[ls][:, None]
            k = cols[None, :] - ls[:, None] - 1
            val = np.where(k >= 0, np.log(np.where(k >= 0, gap, 0.0)) - beta * np.maximum(k, 0), -math.inf)
            j = int(np.argmax(val))
            if val.flat[j] > best:
                best, best_gap, best_k = float(val.flat[j]), float(gap.flat[j]), int(k.flat[j])
    return max(best_gap * math.exp(-beta * best_k) if best_k else best_gap, _TINY)


@checked(data=DATA, beta=BETA, lower=BOUND, upper=BOUND)
def smooth_sensitivity_median(data, beta: float, lower: float, upper: float) -> float:
    """The β-smooth sensitivity of the median (replace one record), exactly:

        S*_β(x) = max_{y} e^{−β d(x,y)} LS(y) = max_{k=0..n} e^{−kβ} A⁽ᵏ⁾(x)
                = max_{0 ≤ l ≤ m ≤ i ≤ n+1, l < i} (x_i − x_l) e^{−β(i − l − 1)}

    (Nissim, Raskhodnikova & Smith 2007, Def. 2.3, its reformulation by A⁽ᵏ⁾ in §3, and Prop. 3.4 for the median's
    A⁽ᵏ⁾ with x_0 = lower, x_{n+1} = upper). It is the smallest β-smooth upper bound on LS (their Def. 2.2: S ≥ LS and
    S(x) ≤ e^β S(y) for neighbours). Computed by the direct O(n²/4) maximum over pairs (l, i), in log space (their
    §3.1 also gives an O(n log n) algorithm; n is capped at 10⁴ instead). β = 0 gives upper − lower. A value below
    the double range (e.g. n = 10⁴ equal values and β = 1) is returned as the smallest positive double, still an
    upper bound and β-smooth (the maximum of S* and a constant), so that the release's noise is never zero.

    >>> round(smooth_sensitivity_median([1.0, 2.0, 3.0, 7.0, 9.0], 1.0, 0.0, 10.0), 6)
    4.0
    >>> smooth_sensitivity_median([1.0, 2.0, 3.0, 7.0, 9.0], 0.0, 0.0, 10.0)
    10.0
    """
    lo, hi = _bounds(lower, upper)
    z = _padded(data, lo, hi, SMOOTH_VALUES)
    return _smooth(z, _median_rank(z.size - 2), beta)


# ------------------------------------------------------------------------------------------ smooth-sensitivity release


@checked(median=FINITE, smooth_sensitivity=Interval(0.0, None, open_low=True), beta=Interval(0.0, None),
         scale=Interval(0.0, None, open_low=True), epsilon=EPSILON, delta=Interval(0.0, 1.0, open_high=True),
         noise=Options(*NOISES))
@dataclasses.dataclass(frozen=True)
class SmoothSensitivityRelease:
    """The parameters of the smooth-sensitivity release of the median, M(x) = med(x) + scale·Z (Nissim,
    Raskhodnikova & Smith 2007, Corollary 2.4): ``noise = "laplace"``: Z ~ Lap(1), scale = 2S*_β(x)/ε with
    β = ε/(2 ln(2/δ)), (ε, δ)-DP; ``noise = "cauchy"``: Z standard Cauchy (density 1/(π(1 + z²)), γ = 2 in their
    family 1/(1 + |z|^γ)), scale = 2(γ + 1)S*_β(x)/ε = 6S*_β(x)/ε with β = ε/(2(γ + 1)) = ε/6, ε-DP (δ = 0).

    ``median`` is the exact median of the clamped data and must not be published; ``scale`` depends on the data
    too, which is why only a *smooth* bound may set it. The constructor checks every field."""

    median: float
    smooth_sensitivity: float
    beta: float
    scale: float
    epsilon: float
    delta: float
    noise: str


@checked(data=DATA, epsilon=EPSILON, delta=Interval(0.0, 1.0, open_high=True), lower=BOUND, upper=BOUND,
         noise=Options(*NOISES))
def smooth_sensitivity_release_parameters(data, epsilon: float, delta: float, lower: float, upper: float,
                                          noise: str = "laplace") -> SmoothSensitivityRelease:
    """β, S*_β(x) and the noise scale of the smooth-sensitivity median release (Nissim, Raskhodnikova & Smith 2007,
    Corollary 2.4, the 1-dimensional case, which rests on the admissible-noise lemmas of their §2):

        Laplace (0 < δ < 1):  β = ε/(2 ln(2/δ)),  scale = 2 S*_β(x)/ε   → (ε, δ)-DP;
        Cauchy  (δ = 0):      β = ε/6,            scale = 6 S*_β(x)/ε   → ε-DP.

    Laplace needs δ > 0 (its dilation property fails with probability δ/2); Cauchy is pure and takes δ = 0.
    Returns a :class:`SmoothSensitivityRelease`; :func:`smooth_sensitivity_release` draws from it.

    >>> p = smooth_sensitivity_release_parameters([1.0, 2.0, 3.0, 7.0, 9.0], 1.0, 1e-6, 0.0, 10.0)
    >>> round(p.beta, 6), round(p.smooth_sensitivity, 4), round(p.scale, 4)
    (0.034462, 8.4172, 16.8343)
    """
    lo, hi = _bounds(lower, upper)
    if noise == "laplace":
        if delta == 0.0:
            raise ValueError("delta = 0.0 is not allowed with noise = 'laplace': must be in (0, 1) (Laplace noise "
                             "calibrated to a smooth bound is (ε, δ)-DP; use noise = 'cauchy' for δ = 0).")
        beta, factor = epsilon / (2.0 * math.log(2.0 / delta)), 2.0
    else:
        if delta != 0.0:
            raise ValueError(f"delta = {delta!r} is not allowed with noise = 'cauchy': must be 0 (Cauchy noise "
                             "calibrated to a smooth bound is ε-DP, δ = 0).")
        beta, factor = epsilon / 6.0, 6.0
    z = _padded(data, lo, hi, SMOOTH_VALUES)
    m = _median_rank(z.size - 2)
    s = _smooth(z, m, beta)
    scale = evaluate_finite(lambda: factor * s / epsilon, "the noise scale of the smooth-sensitivity release",
                            epsilon=epsilon)
    if scale == 0.0:  # a subnormal S* times 2/ε rounded to 0: keep the smallest positive scale (an upper bound)
        scale = _TINY
    return SmoothSensitivityRelease(median=float(z[m]), smooth_sensitivity=s, beta=beta, scale=scale,
                                    epsilon=epsilon, delta=delta, noise=noise)


@checked(data=DATA, epsilon=EPSILON, delta=Interval(0.0, 1.0, open_high=True), lower=BOUND, upper=BOUND,
         noise=Options(*NOISES))
def smooth_sensitivity_release(data, epsilon: float, delta: float, lower: float, upper: float,
                               noise: str = "laplace", *, rng=None, size=None):
    """Draw med(x) + scale·Z with the parameters of :func:`smooth_sensitivity_release_parameters` (Nissim,
    Raskhodnikova & Smith 2007, Corollary 2.4): Z ~ Lap(1) ((ε, δ)-DP) or standard Cauchy (ε-DP). ``size``: None
    (one float) or a number/shape of independent releases (each one costs the full budget; at most 10⁷ values).

    >>> x = smooth_sensitivity_release([1.0, 2.0, 3.0, 7.0, 9.0], 1.0, 1e-6, 0.0, 10.0, rng=0)
    >>> isinstance(x, float)
    True
    """
    shape, scalar = _size_arg(size)
    p = smooth_sensitivity_release_parameters(data, epsilon, delta, lower, upper, noise)
    g = as_rng(rng)
    z = g.laplace(0.0, 1.0, size=shape) if noise == "laplace" else g.standard_cauchy(size=shape)
    out = p.median + p.scale * z
    return float(out[0]) if scalar else out


# ------------------------------------------------------------------------------------------ local sensitivity leaks


def _laplace_mass(mu: float, b: float, lo: float, hi: float) -> float:
    """P[lo < Y < hi] for Y ~ Lap(mu, b), lo < hi (±inf allowed), without cancellation: each side of mu from its
    own exponential (Dwork & Roth 2014, Def. 3.3: density e^{−|y−mu|/b}/(2b)). Unchecked kernel, b > 0."""
    if hi <= mu:
        return 0.5 * math.exp((hi - mu) / b) * -math.expm1(-(hi - lo) / b)
    if lo >= mu:
        return 0.5 * math.exp(-(lo - mu) / b) * -math.expm1(-(hi - lo) / b)
    return 1.0 - 0.5 * math.exp(-(mu - lo) / b) - 0.5 * math.exp(-(hi - mu) / b)


def _laplace_log_ratio(y, mu: float, b: float, mu2: float, b2: float):
    """L(y) = ln p(y)/q(y) = ln(b′/b) − |y − μ|/b + |y − μ′|/b′ for p = Lap(μ, b), q = Lap(μ′, b′) (b, b′ > 0)."""
    return math.log(b2 / b) - np.abs(y - mu) / b + np.abs(y - mu2) / b2


def _laplace_hockey_stick(mu: float, b: float, mu2: float, b2: float, eps: float) -> float:
    """H_ε(P‖Q) = ∫ (p − e^ε q)_+ for P = Lap(μ, b), Q = Lap(μ′, b′), in closed form (unchecked kernel, b, b′ > 0).

    The log-ratio L(y) = ln(b′/b) − |y − μ|/b + |y − μ′|/b′ is linear on each of the three pieces cut at μ and μ′,
    so {L > ε} meets each piece in one interval, found by solving a linear equation; there H gets P(A) − e^ε Q(A),
    each mass a difference of Laplace CDFs (:func:`_laplace_mass`)."""
    cuts = sorted((mu, mu2))
    pieces = [(-math.inf, cuts[0]), (cuts[0], cuts[1]), (cuts[1], math.inf)]
    ee = math.exp(eps)
    total = 0.0
    for a, c in pieces:
        if not a < c:
            continue
        y0 = a if math.isfinite(a) else (c if math.isfinite(c) else 0.0)
        mid = (a + c) / 2.0 if math.isfinite(a) and math.isfinite(c) else (y0 + (1.0 if a == y0 else -1.0))
        slope = (1.0 / b if mid < mu else -1.0 / b) + (-1.0 / b2 if mid < mu2 else 1.0 / b2)
        at = float(_laplace_log_ratio(y0, mu, b, mu2, b2)) - eps  # L(y0) − ε, the piece's value at its finite end
        if slope == 0.0:
            lo, hi = (a, c) if at > 0 else (0.0, 0.0)
        else:
            root = y0 - at / slope
            lo, hi = (max(a, root), c) if slope > 0 else (a, min(c, root))
        if lo < hi:
            total += max(0.0, _laplace_mass(mu, b, lo, hi) - ee * _laplace_mass(mu2, b2, lo, hi))
    return min(1.0, total)


def _neighbours(x: np.ndarray, x2: np.ndarray) -> None:
    if x.size != x2.size:
        raise ValueError(f"neighbour has {x2.size} values, which is not allowed: must have as many as data "
                         f"({x.size}): neighbours differ by one replaced record.")
    diff = collections.Counter(x.tolist()) - collections.Counter(x2.tolist())
    if sum(diff.values()) > 1:
        raise ValueError(f"neighbour differs from data in {sum(diff.values())} records, which is not allowed: must "
                         "differ in at most one (one record replaced).")


@checked(median=FINITE, median_neighbour=FINITE, local_sensitivity=NONNEG, local_sensitivity_neighbour=NONNEG,
         scale=NONNEG, scale_neighbour=NONNEG, epsilon=EPSILON, delta=Interval(0.0, 1.0))
@dataclasses.dataclass(frozen=True)
class LocalSensitivityLeak:
    """What releasing med(x) + Lap(LS(x)/ε) does on two neighbouring data sets x (``data``) and x′ (``neighbour``):
    the medians, local sensitivities, the scales b = LS(x)/ε and b′ = LS(x′)/ε, the largest privacy loss
    sup_y |ln p(y)/q(y)| (+inf whenever b ≠ b′, or when one scale is 0 and the medians differ) and the exact δ at the
    nominal ε, max(H_ε(P‖Q), H_ε(Q‖P)) — positive where ε-DP would require 0. ``max_privacy_loss`` may be +inf
    (``math.inf``); the constructor checks every field."""

    median: float
    median_neighbour: float
    local_sensitivity: float
    local_sensitivity_neighbour: float
    scale: float
    scale_neighbour: float
    epsilon: float
    max_privacy_loss: float
    delta: float

    def __post_init__(self):
        object.__setattr__(self, "max_privacy_loss", _nonneg_or_inf(self.max_privacy_loss, "max_privacy_loss"))


def _nonneg_or_inf(value: Any, name: str) -> float:
    """A number >= 0 or +inf (a privacy loss, a distance)."""
    if isinstance(value, (float, np.floating)) and value == math.inf:
        return math.inf
    return NONNEG.check(value, name)


def _leak_pair(data, neighbour, epsilon: float, lower: float, upper: float):
    lo, hi = _bounds(lower, upper)
    x = DATA.check(data, "data")
    x2 = DATA.check(neighbour, "neighbour")
    LEAK_VALUES.check(x.size, "len(data)")
    LEAK_VALUES.check(x2.size, "len(neighbour)")
    _neighbours(x, x2)
    z, z2 = _padded(x, lo, hi), _padded(x2, lo, hi)
    m = _median_rank(x.size)
    ls, ls2 = _a_k(z, m, 0), _a_k(z2, m, 0)
    b = evaluate_finite(lambda: ls / epsilon, "the Laplace scale LS(x)/ε", epsilon=epsilon)
    b2 = evaluate_finite(lambda: ls2 / epsilon, "the Laplace scale LS(x′)/ε", epsilon=epsilon)
    return float(z[m]), float(z2[m]), ls, ls2, b, b2


@checked(epsilon=EPSILON, lower=BOUND, upper=BOUND)
def local_sensitivity_leak(data, neighbour, epsilon: float, lower: float, upper: float) -> LocalSensitivityLeak:
    """The exact privacy of calibrating the median's Laplace noise to the local sensitivity, on one pair of
    neighbouring data sets x, x′ (replace one record): P = Lap(med(x), LS(x)/ε), Q = Lap(med(x′), LS(x′)/ε).

    The log density ratio (Dwork & Roth 2014, Def. 3.3 for the Laplace density)

        L(y) = ln(b′/b) − |y − med(x)|/b + |y − med(x′)|/b′

    grows like |y|(1/b′ − 1/b) in the tails, so sup_y |L(y)| = +∞ whenever b ≠ b′: no finite ε holds on this pair
    (Nissim, Raskhodnikova & Smith 2007, §1–2: the noise magnitude itself leaks). With b = b′ > 0 it is
    |med(x) − med(x′)|/b ≤ ε. The exact δ at the nominal ε is max(H_ε(P‖Q), H_ε(Q‖P)), H_ε(P‖Q) = ∫ (p − e^ε q)_+,
    in closed form (L is linear between the two medians and outside them, so {L > ε} is a union of at most three
    intervals; each mass is a Laplace CDF difference). A zero scale is a point mass: δ = 1 unless both releases are
    the same atom.

    >>> leak = local_sensitivity_leak([0.1, 0.2, 0.5, 0.6, 0.9], [0.1, 0.2, 0.5, 0.45, 0.9], 1.0, 0.0, 1.0)
    >>> leak.scale, leak.scale_neighbour, leak.max_privacy_loss, round(leak.delta, 6)
    (0.3, 0.25, inf, 0.000696)
    >>> local_sensitivity_leak([0.0, 0.5, 0.5, 0.5, 1.0], [0.0, 0.5, 0.5, 1.0, 1.0], 1.0, 0.0, 1.0).delta
    1.0
    """
    mu, mu2, ls, ls2, b, b2 = _leak_pair(data, neighbour, epsilon, lower, upper)
    if b == 0.0 or b2 == 0.0:
        same = b == b2 and mu == mu2
        loss, delta = (0.0, 0.0) if same else (math.inf, 1.0)
    else:
        loss = math.inf if b != b2 else abs(mu - mu2) / b
        delta = max(_laplace_hockey_stick(mu, b, mu2, b2, epsilon), _laplace_hockey_stick(mu2, b2, mu, b, epsilon))
    return LocalSensitivityLeak(median=mu, median_neighbour=mu2, local_sensitivity=ls, local_sensitivity_neighbour=ls2,
                                scale=b, scale_neighbour=b2, epsilon=epsilon, max_privacy_loss=loss, delta=delta)


@checked(epsilon=EPSILON, lower=BOUND, upper=BOUND)
def local_sensitivity_privacy_loss(y, data, neighbour, epsilon: float, lower: float, upper: float):
    """The privacy loss L(y) = ln p(y)/q(y) of the local-sensitivity release at outputs y, p = Lap(med(x), LS(x)/ε),
    q = Lap(med(x′), LS(x′)/ε) (see :func:`local_sensitivity_leak`): piecewise linear in y, unbounded in the tails when
    the scales differ. Refused when a local sensitivity is 0: that release is a point mass, with no density.

    >>> x, x2 = [0.1, 0.2, 0.5, 0.6, 0.9], [0.1, 0.2, 0.5, 0.45, 0.9]
    >>> local_sensitivity_privacy_loss([-10.0, 0.5, 10.0], x, x2, 1.0, 0.0, 1.0).round(3).tolist()
    [6.618, 0.018, 6.351]
    """
    ys = check_real_array(y, "y", ndim=(0, 1))
    mu, mu2, ls, ls2, b, b2 = _leak_pair(data, neighbour, epsilon, lower, upper)
    if b == 0.0 or b2 == 0.0:
        which = "data" if b == 0.0 else "neighbour"
        raise ValueError(f"{which} has local sensitivity 0, which is not allowed here: its release is the exact median "
                         "(a point mass, privacy loss +inf there), so there is no density ratio to evaluate.")
    out = _laplace_log_ratio(ys.astype(float), mu, b, mu2, b2)
    return float(out) if np.ndim(y) == 0 else out


# ------------------------------------------------------------------------------------------ propose–test–release


def _ptr_distance(z: np.ndarray, bound: float) -> float:
    """γ = min{k ≥ 0 : A⁽ᵏ⁾(x) > b}, +inf if none; by bisection, A⁽ᵏ⁾ being non-decreasing (unchecked kernel)."""
    n = z.size - 2
    m = _median_rank(n)
    if _a_k(z, m, n) <= bound:
        return math.inf
    lo, hi = -1, n  # A^(lo) ≤ b < A^(hi) (A^(−1) := 0)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _a_k(z, m, mid) > bound:
            hi = mid
        else:
            lo = mid
    return float(hi)


@checked(data=DATA, bound=PROPOSED_BOUND, lower=BOUND, upper=BOUND)
def ptr_distance_median(data, bound: float, lower: float, upper: float) -> float:
    """The distance from x to the nearest data set whose median has local sensitivity above b (replace one record):

        γ(x) = min{ d(x, y) : LS(y) > b } = min{ k ≥ 0 : A⁽ᵏ⁾(x) > b }

    (the quantity PTR tests, Dwork & Roth 2014, §7.2; the equality is the definition of A⁽ᵏ⁾ as the largest LS within
    distance k, Nissim, Raskhodnikova & Smith 2007, Def. 3.1). Exact, by bisection over k with the closed form of
    :func:`local_sensitivity_at_distance`. Returns a float holding an integer, or +inf when b ≥ upper − lower (no
    data set has LS > b). γ changes by at most 1 between neighbours: its global sensitivity is 1.

    >>> ptr_distance_median([1.0, 2.0, 3.0, 7.0, 9.0], 5.0, 0.0, 10.0)
    1.0
    """
    lo, hi = _bounds(lower, upper)
    return _ptr_distance(_padded(data, lo, hi), bound)


def _pass_probability(gamma: np.ndarray, eps: float, delta: float) -> np.ndarray:
    """P[γ + Lap(1/ε) > ln(1/δ)/ε] = F(εγ − ln(1/δ)), F the standard Laplace CDF (unchecked kernel, γ ≥ 0 or inf)."""
    g = np.atleast_1d(gamma).astype(float)
    s = np.full(g.shape, math.inf)  # εγ − ln(1/δ)
    fin = np.isfinite(g)
    s[fin] = eps * g[fin] + math.log(delta)
    low = s <= 0  # there εγ ≤ ln(1/δ) ≤ 745: ½δe^{εγ} as written, or ½e^{s} where e^{εγ} would overflow
    direct = low & fin & (eps * np.where(fin, g, 0.0) <= 700.0)  # (a subnormal δ puts εγ up to 744.4 below s = 0)
    with np.errstate(under="ignore"):
        return np.where(direct, 0.5 * delta * np.exp(eps * np.where(direct, g, 0.0)),
                        np.where(low, 0.5 * np.exp(np.where(low, s, 0.0)), 1.0 - 0.5 * np.exp(-np.where(low, 0.0, s))))


@checked(epsilon=EPSILON, delta=DELTA)
def ptr_pass_probability(distance, epsilon: float, delta: float):
    """The exact probability that PTR's test passes at distance γ (Dwork & Roth 2014, §7.2: pass iff
    γ + Lap(1/ε) > ln(1/δ)/ε), a Laplace CDF:

        P[pass] = ½ δ e^{εγ}              if εγ ≤ ln(1/δ),
                  1 − e^{−εγ}/(2δ)        otherwise;

    at γ = 0 (LS(x) > b already) it is δ/2, the failure probability of the guarantee; γ = +inf (b ≥ upper − lower)
    passes surely. ``distance``: an integer ≥ 0 or +inf, or a 1-D array of them.

    >>> ptr_pass_probability(0, 1.0, 1e-6)
    5e-07
    >>> ptr_pass_probability([0, 100, math.inf], 1.0, 1e-6).round(6).tolist()
    [0.0, 1.0, 1.0]
    """
    g = check_real_array(distance, "distance", ndim=(0, 1), finite=False)
    fin = np.isfinite(g)
    whole = np.where(fin, g, 0.0)
    ok = (g == math.inf) | (fin & (whole >= 0) & (whole == np.floor(whole)))
    if not np.all(ok):
        bad = float(g[~ok].flat[0])
        raise ValueError(f"distance = {bad!r} is not allowed: must be an integer >= 0 or +inf (a Hamming distance).")
    out = _pass_probability(g, epsilon, delta)
    return float(out[0]) if np.ndim(distance) == 0 else out


@checked(passed=InstanceOf(bool), scale=Interval(0.0, None, open_low=True),
         threshold=Interval(0.0, None), pass_probability=Interval(0.0, 1.0), epsilon=EPSILON, delta=DELTA)
@dataclasses.dataclass(frozen=True)
class PTRResult:
    """One run of :func:`propose_test_release`: ``passed`` (the noisy test), ``value`` (the release
    med(x) + Lap(b/ε), or None for ⊥), the exact ``pass_probability`` of the test on this data, the release
    ``scale`` b/ε and the ``threshold`` ln(1/δ)/ε. ``distance`` (γ, an integer, or +inf) is the algorithm's internal
    state, returned for teaching only: releasing it is NOT private. The constructor checks every field."""

    passed: bool
    value: float | None
    distance: float
    scale: float
    threshold: float
    pass_probability: float
    epsilon: float
    delta: float

    def __post_init__(self):
        object.__setattr__(self, "distance", _nonneg_or_inf(self.distance, "distance"))
        if self.passed != (self.value is not None):
            raise ValueError(f"value = {self.value!r} is not allowed with passed = {self.passed!r}: must be a number "
                             "exactly when the test passed (None for ⊥).")
        if self.value is not None:
            object.__setattr__(self, "value", FINITE.check(self.value, "value"))


@checked(data=DATA, bound=PROPOSED_BOUND, epsilon=EPSILON, delta=DELTA, lower=BOUND, upper=BOUND)
def propose_test_release(data, bound: float, epsilon: float, delta: float, lower: float, upper: float, *,
                         rng=None) -> PTRResult:
    """Propose–test–release for the median (Dwork & Lei 2009; in the form of Dwork & Roth 2014, §7.2):

    1. propose a bound b on the local sensitivity;
    2. γ = distance from x to the nearest data set with LS > b (:func:`ptr_distance_median`);
    3. if γ + Lap(1/ε) ≤ ln(1/δ)/ε, output ⊥ (``value = None``);
    4. else output med(x) + Lap(b/ε).

    (2ε, δ)-DP (Dwork & Roth 2014, §7.2): the test is ε-DP (γ has sensitivity 1); if it passes on x with LS(x) ≤ b,
    the release moves by at most b between neighbours (another ε); a data set with LS(x) > b has γ = 0 and passes
    with probability δ/2 only (:func:`ptr_pass_probability`), so the argument even gives (2ε, δ/2). Under replace
    one record; data clamped to [lower, upper].

    >>> r = propose_test_release([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0] * 20, 1.0, 1.0, 1e-6, 0.0, 10.0, rng=0)
    >>> r.passed, r.distance, round(r.pass_probability, 6)
    (True, 20.0, 0.998969)
    """
    lo, hi = _bounds(lower, upper)
    z = _padded(data, lo, hi)
    gamma = _ptr_distance(z, bound)
    threshold = evaluate_finite(lambda: math.log(1.0 / delta) / epsilon, "the threshold ln(1/δ)/ε",
                                epsilon=epsilon, delta=delta)
    scale = evaluate_finite(lambda: bound / epsilon, "the release scale b/ε", bound=bound, epsilon=epsilon)
    p = float(_pass_probability(np.array(gamma), epsilon, delta)[0])
    g = as_rng(rng)
    noisy = gamma + g.laplace(0.0, 1.0 / epsilon)
    passed = bool(noisy > threshold)
    value = float(z[_median_rank(z.size - 2)] + g.laplace(0.0, scale)) if passed else None
    return PTRResult(passed=passed, value=value, distance=gamma, scale=scale, threshold=threshold,
                     pass_probability=p, epsilon=epsilon, delta=delta)


# ------------------------------------------------------------------------------------------ sample and aggregate


@checked(estimates=ArrayOf(ndim=1), value=FINITE, aggregate=Options("mean", "median"), epsilon=EPSILON)
@dataclasses.dataclass(frozen=True)
class SampleAggregateResult:
    """One run of :func:`sample_and_aggregate`: the block ``estimates`` (internal, NOT private: for teaching), the
    private ``value``, the ``aggregate`` used and, for the noisy mean, its Laplace ``scale`` (None for the median,
    whose exact law is :func:`dp_quantile_law` of the estimates at q = ½). The constructor checks every field."""

    estimates: np.ndarray
    value: float
    aggregate: str
    scale: float | None
    epsilon: float

    def __post_init__(self):
        if self.scale is not None:
            object.__setattr__(self, "scale", Interval(0.0, None, open_low=True).check(self.scale, "scale"))


def _block_statistic(values: np.ndarray, statistic: str) -> np.ndarray:
    """Mean or lower median of each row (unchecked kernel)."""
    if statistic == "mean":
        return values.mean(axis=1)
    return np.sort(values, axis=1)[:, _median_rank(values.shape[1]) - 1]


@checked(data=DATA, blocks=BLOCKS, epsilon=EPSILON, lower=BOUND, upper=BOUND, statistic=Options("mean", "median"),
         aggregate=Options("mean", "median"), shuffle=InstanceOf(bool))
def sample_and_aggregate(data, blocks: int, epsilon: float, lower: float, upper: float, *, statistic: str = "mean",
                         aggregate: str = "mean", shuffle: bool = True, rng=None) -> SampleAggregateResult:
    """Sample and aggregate (Nissim, Raskhodnikova & Smith 2007, §4; Dwork & Roth 2014, §7.1): split the data
    (clamped to [lower, upper]; shuffled by ``rng`` first unless ``shuffle=False``) into m = ``blocks`` disjoint blocks
    of sizes ⌊n/m⌋ or ⌈n/m⌉, compute ``statistic`` (the block's mean or median, a value in [lower, upper]) on each, and
    aggregate the m estimates privately:

    * ``aggregate = "mean"``: their average + Lap((upper − lower)/(m ε)) — replacing one record changes one block's
      estimate, by at most upper − lower, so the average moves by (upper − lower)/m
      (:func:`dpviz.sensitivity.mean_sensitivity`, scale by :func:`dpviz.sensitivity.laplace_scale`); given the
      blocks the release is exactly Laplace(average, scale);
    * ``aggregate = "median"``: the DP median of the estimates by the exponential mechanism (:func:`dp_quantile` at
      q = ½), whose exact law is :func:`dp_quantile_law` of the estimates.

    ε-DP under replace one record (the partition does not depend on the values). Returns a
    :class:`SampleAggregateResult`.

    >>> r = sample_and_aggregate(np.linspace(0.0, 1.0, 100), 10, 1.0, 0.0, 1.0, shuffle=False, rng=0)
    >>> r.estimates.size, round(r.scale, 6)
    (10, 0.1)
    """
    lo, hi = _bounds(lower, upper)
    DATA_VALUES.check(data.size, "len(data)")
    n = data.size
    if blocks > n:
        raise ValueError(f"blocks = {blocks!r} is not allowed: must be <= len(data) = {n} (every block needs a "
                         "record).")
    g = as_rng(rng)
    x = np.clip(data, lo, hi)
    if shuffle:
        x = g.permutation(x)
    size, extra = divmod(n, blocks)  # the first `extra` blocks hold size + 1 records
    parts = []
    if extra:
        parts.append(_block_statistic(x[:extra * (size + 1)].reshape(extra, size + 1), statistic))
    if blocks > extra:
        parts.append(_block_statistic(x[extra * (size + 1):].reshape(blocks - extra, size), statistic))
    est = np.concatenate(parts)
    if aggregate == "mean":
        scale = laplace_scale(mean_sensitivity(lo, hi, blocks, "replace"), epsilon)
        value = float(np.clip(est.mean(), lo, hi) + g.laplace(0.0, scale))
        return SampleAggregateResult(estimates=est, value=value, aggregate=aggregate, scale=scale, epsilon=epsilon)
    law = _quantile_law(est, 0.5, epsilon, lo, hi)
    value = float(_quantile_sample(law, (1,), g)[0])
    return SampleAggregateResult(estimates=est, value=value, aggregate=aggregate, scale=None, epsilon=epsilon)


# ------------------------------------------------------------------------------------------ DP quantiles


@dataclasses.dataclass(frozen=True)
class QuantileLaw:
    """The exact output law of the exponential-mechanism quantile (:func:`dp_quantile_law`): piecewise uniform on
    the intervals [edges[i], edges[i+1]], i = 0..n, with probabilities ``probabilities[i]`` (their logarithms
    ``log_probabilities``, −inf for an empty interval). ``pdf``, ``log_pdf`` and ``cdf`` evaluate it
    exactly. The constructor checks every field (sorted edges, one probability per interval, a law that sums to 1)."""

    edges: np.ndarray
    log_probabilities: np.ndarray

    def __post_init__(self):
        e = DATA.check(self.edges, "edges")
        if e.size < 2 or np.any(np.diff(e) < 0) or not e[-1] > e[0]:
            raise ValueError("edges is not allowed as given: must be at least 2 sorted values spanning a range of "
                             "positive length.")
        lp = check_real_array(self.log_probabilities, "log_probabilities", ndim=1, finite=False)
        if lp.size != e.size - 1 or np.any(np.isnan(lp)) or np.any(lp > 0):
            raise ValueError(f"log_probabilities has {lp.size} values, which is not allowed: must hold one log "
                             f"probability <= 0 per interval ({e.size - 1}), no NaN.")
        if np.any(np.isfinite(lp) & (np.diff(e) == 0)) or not abs(special.logsumexp(lp)) < 1e-9:
            raise ValueError("log_probabilities is not allowed as given: must be a law on the intervals of positive "
                             "length, summing to 1.")
        object.__setattr__(self, "edges", e)
        object.__setattr__(self, "log_probabilities", lp)

    @property
    def probabilities(self) -> np.ndarray:
        """P[the output lies in interval i] = exp(log_probabilities[i])."""
        return np.exp(self.log_probabilities)

    def _index(self, y: np.ndarray) -> np.ndarray:
        n = self.edges.size - 2
        idx = np.clip(np.searchsorted(self.edges, y, side="right") - 1, 0, n)
        positive = np.nonzero(np.diff(self.edges) > 0)[0]
        # at y = upper the interval found may be empty: use the last interval of positive length
        return np.where(np.diff(self.edges)[idx] > 0, idx, positive[-1])

    def log_pdf(self, y) -> np.ndarray:
        """ln of the density at y: log_probabilities[i] − ln(length of interval i) on interval i, −inf outside
        [edges[0], edges[-1]] (at a shared end point, the interval to the right)."""
        ys = check_real_array(y, "y", ndim=(0, 1))
        idx = self._index(ys)
        length = np.diff(self.edges)[idx]
        out = np.where((ys >= self.edges[0]) & (ys <= self.edges[-1]), self.log_probabilities[idx] - np.log(length),
                       -math.inf)
        return float(out) if np.ndim(y) == 0 else out

    def pdf(self, y) -> np.ndarray:
        """The density at y (exp of :meth:`log_pdf`)."""
        out = np.exp(self.log_pdf(y))
        return float(out) if np.ndim(y) == 0 else out

    def cdf(self, y) -> np.ndarray:
        """P[output ≤ y] = Σ_{j<i} p_j + p_i (y − edges[i])/length_i on interval i; 0 below, 1 above."""
        ys = check_real_array(y, "y", ndim=(0, 1), finite=False)
        if np.any(np.isnan(ys)):
            raise ValueError("y contains NaN, which is not allowed: must be numbers (±inf allowed).")
        p = self.probabilities
        before = np.concatenate(([0.0], np.cumsum(p)[:-1]))
        inside = np.clip(ys, self.edges[0], self.edges[-1])
        idx = self._index(inside)
        length = np.diff(self.edges)[idx]
        frac = np.clip((inside - self.edges[idx]) / length, 0.0, 1.0)
        out = np.clip(before[idx] + p[idx] * frac, 0.0, 1.0)
        out = np.where(ys >= self.edges[-1], 1.0, np.where(ys < self.edges[0], 0.0, out))
        return float(out) if np.ndim(y) == 0 else out


def _quantile_law(x: np.ndarray, q: float, eps: float, lo: float, hi: float) -> QuantileLaw:
    """The exponential-mechanism quantile's law (unchecked kernel): on the padded order statistics z_0..z_{n+1},
    ln P_i = ln(z_{i+1} − z_i) − (ε/2)|i − qn| − ln Z, by a log-sum-exp over the intervals of positive length."""
    z = _padded(x, lo, hi)
    n = z.size - 2
    length = np.diff(z)
    u = -np.abs(np.arange(n + 1) - q * n)  # utility of every point of interval i: −|rank − qn|, sensitivity 1
    with np.errstate(divide="ignore"):
        logits = np.where(length > 0, np.log(np.where(length > 0, length, 1.0)) + 0.5 * eps * u, -math.inf)
    logp = logits - special.logsumexp(logits)
    return QuantileLaw(edges=z, log_probabilities=logp)


def _quantile_sample(law: QuantileLaw, shape: tuple[int, ...], g: np.random.Generator) -> np.ndarray:
    """Inverse-CDF sampling of the piecewise-uniform law: an interval by its cumulative probability, then a uniform
    point in it (an empty interval, probability 0, is never chosen)."""
    p = law.probabilities
    cum = np.cumsum(p)
    count = math.prod(shape)
    i = np.minimum(np.searchsorted(cum, g.random(count) * cum[-1], side="right"), p.size - 1)
    left, length = law.edges[i], np.diff(law.edges)[i]
    return (left + length * g.random(count)).reshape(shape)


@checked(data=DATA, q=QUANTILE, epsilon=EPSILON, lower=BOUND, upper=BOUND)
def dp_quantile_law(data, q: float, epsilon: float, lower: float, upper: float) -> QuantileLaw:
    """The exact output law of the ε-DP q-quantile by the exponential mechanism (the private quantile of Smith 2011;
    McSherry & Talwar 2007 with the Lebesgue base measure on [lower, upper]): with z_0 = lower ≤ z_1 ≤ … ≤ z_n ≤
    z_{n+1} = upper the clamped, sorted data, every output y in [z_i, z_{i+1}] has utility −|i − qn| (i data values
    lie below it), whose sensitivity is 1 under replace (and add/remove), so the density ∝ exp(−ε|i − qn|/2) and

        P[output ∈ [z_i, z_{i+1}]] = (z_{i+1} − z_i) e^{−ε|i − qn|/2} / Σ_j (z_{j+1} − z_j) e^{−ε|j − qn|/2}.

    ε-DP (Dwork & Roth 2014, Thm 3.10; McSherry & Talwar 2007). Computed in log space (a log-sum-exp), so that every
    probability keeps its relative precision down to e^{−700} and below. Returns a :class:`QuantileLaw`.

    >>> law = dp_quantile_law([1.0, 2.0, 3.0], 0.5, 1.0, 0.0, 4.0)
    >>> law.probabilities.round(4).tolist()
    [0.1888, 0.3112, 0.3112, 0.1888]
    """
    lo, hi = _bounds(lower, upper)
    return _quantile_law(data, q, epsilon, lo, hi)


@checked(data=DATA, q=QUANTILE, epsilon=EPSILON, lower=BOUND, upper=BOUND)
def dp_quantile(data, q: float, epsilon: float, lower: float, upper: float, *, rng=None, size=None):
    """Draw the ε-DP q-quantile of the data by the exponential mechanism (Smith 2011), exactly from
    :func:`dp_quantile_law`: an interval by inverse CDF, then a uniform point in it. ``size``: None (one float) or a
    number/shape of independent draws (each costs ε; at most 10⁷ values).

    >>> 0.0 <= dp_quantile([1.0, 2.0, 3.0], 0.5, 1.0, 0.0, 4.0, rng=0) <= 4.0
    True
    """
    shape, scalar = _size_arg(size)
    lo, hi = _bounds(lower, upper)
    out = _quantile_sample(_quantile_law(data, q, epsilon, lo, hi), shape, as_rng(rng))
    return float(out[0]) if scalar else out


@checked(data=DATA, epsilon=EPSILON, q=QUANTILE, lower=BOUND, upper=BOUND)
def choose_clipping_bound(data, epsilon: float, q: float, lower: float, upper: float, *, rng=None) -> float:
    """A clipping bound chosen privately: one ε-DP draw of the q-quantile (e.g. q = 0.9) of the data by
    :func:`dp_quantile` (the private quantiles Smith 2011 uses to set the range of his widened Winsorized mean).
    A clipped sum or mean released next with this bound costs its own ε on top (Dwork & Roth 2014, Thm 3.14).
    The public range matters: the interval above the largest value has length upper − max(data), so a very loose
    ``upper`` draws bounds far above the data (with [0, 1000] instead of [0, 200] below, most draws exceed 99).

    >>> round(choose_clipping_bound(np.arange(100.0), 1.0, 0.9, 0.0, 200.0, rng=0), 1)
    90.3
    """
    lo, hi = _bounds(lower, upper)
    return float(_quantile_sample(_quantile_law(data, q, epsilon, lo, hi), (1,), as_rng(rng))[0])

"""Learning under per-attribute DP (Section 6 and Appendix A.3 of Ghazi, Kumar, Manurangsi & Steinke 2023): point and
threshold learners (Theorems 31, 33; Lemma 32), discrete distribution estimation (Theorem 34 = 18), label randomized
response (Lemma 21), the smoothed robust loss (Lemma 22) and the robust halfspace learner (Lemmas 23–25, Theorem 20).

``eps0`` is the per-attribute parameter throughout (the paper writes ε). Labels are one more attribute
(z = x∘y has d + 1 bits, as in Appendix A.3). Constants hidden in O(·) by the paper are exposed as
parameters; nothing here is tuned.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
from scipy import special

from dpviz._validation import Cap, Interval, as_rng, check_in_range, check_integer, check_real_array
from dpviz.mechanisms import exponential_mechanism
from dpviz.partial.histograms import (
    COUNT,
    EPS,
    MIN_FRACTION,
    SCALE,
    _codes,
    _priv_histogram,
    as_binary_records,
    check_fraction,
    field_array,
    field_float,
    field_int,
    real_array,
)

__all__ = [
    "point_learner",
    "polarization",
    "longest_polarizing_prefix",
    "threshold_learner",
    "threshold_predict",
    "distribution_estimate",
    "label_randomized_response",
    "rr_flip_probability",
    "rr_excess_factor",
    "rr_risk",
    "halfspace_dec",
    "robust_loss",
    "robust_erm",
    "halfspace_net",
    "robust_halfspace_learner",
    "HalfspaceResult",
]

#: The ν-net of the robust halfspace learner (its documented default).
NET = Interval(1, 200_000, integer=True)
#: H·n·d, the (hypotheses × samples × coordinates) array of :func:`halfspace_dec` (80 MB).
HALFSPACE_ENTRIES = Cap(10_000_000, "the hypotheses × samples × coordinates H·n·d of halfspace_dec")


def _labels01(y, n: int) -> np.ndarray:
    yy = real_array(y, "y", ndim=1)
    if yy.size != n:
        raise ValueError(f"y has {yy.size} labels: must have one per record ({n}).")
    if not np.all((yy == 0) | (yy == 1)):
        raise ValueError("y contains values other than 0 and 1, which is not allowed: labels must be bits.")
    return yy.astype(np.uint8)


# ----------------------------------------------------------------------------------------------- Theorem 31

def point_learner(X, y, eps0: float, alpha: float, *, rng=None) -> np.ndarray:
    """Proper ε0-∇0DP learner for point functions point_u(z) = 1[z = u] (Theorem 31 of Ghazi, Kumar,
    Manurangsi & Steinke 2023, Appendix A.3.1).

    z_i = x_i ∘ y_i (the label is attribute d+1); run the ε0-∇0DP histogram (Theorem 15, corrected
    constants) with ν = 0.2α, η = 0.01. If some x1 has f̂(x1∘1) > νn, output x1; else output an x0 with
    f̂(x0∘0) ≤ νn (the lexicographically first one; any string outside L works). Returns u as a 0/1 array.
    Guarantee: error ≤ α w.p. ≥ 0.9 once n = O((1/(αε0))·log d·log(1/α)) (constant hidden by the paper).
    """
    A = as_binary_records(X)
    n, d = A.shape
    yy = _labels01(y, n)
    e0 = EPS.check(eps0, "eps0")
    alpha = check_fraction(alpha, "alpha")
    nu = 0.2 * alpha
    h = _priv_histogram(as_binary_records(np.column_stack([A, yy])), e0, nu, "corrected", as_rng(rng))
    S, f = h.strings, h.noisy_counts
    ones = (S[:, -1] == 1) & (f > nu * n)
    if np.any(ones):
        return S[int(np.argmax(np.where(ones, f, -np.inf))), :-1].copy()
    big0 = {int(c) for c in _codes(S[(S[:, -1] == 0) & (f > nu * n), :-1])} if len(S) else set()
    for c in range(1 << min(d, 20)):
        if c not in big0:
            return ((c >> np.arange(d - 1, -1, -1)) & 1).astype(np.uint8)
    return np.zeros(d, dtype=np.uint8)  # pragma: no cover - needs > 2^20 excluded strings


# ----------------------------------------------------------------------------------------------- Lemma 32

def polarization(X, y, ell: int) -> float:
    """maxpol_ℓ = max over prefixes p of length ℓ of min{f_{p*0}, f_{p*1}}/n (Lemma 32 of Ghazi, Kumar,
    Manurangsi & Steinke 2023): the largest fraction of samples with prefix p and label 0 and with label 1
    simultaneously. Sensitivity 1/n."""
    A = as_binary_records(X)
    n, d = A.shape
    yy = _labels01(y, n)
    ell = check_integer(ell, "ell", minimum=0, maximum=d)
    return _polarization(A, yy, ell)


def _polarization(A: np.ndarray, yy: np.ndarray, ell: int) -> float:
    n, d = A.shape
    pre = _codes(A) >> np.int64(d - ell)
    size = 1 << ell if ell <= 20 else None
    if size is not None:
        c0 = np.bincount(pre[yy == 0], minlength=size)
        c1 = np.bincount(pre[yy == 1], minlength=size)
        return float(np.max(np.minimum(c0, c1))) / n
    u, inv = np.unique(pre, return_inverse=True)  # pragma: no cover - very long prefixes
    c0 = np.bincount(inv[yy == 0], minlength=len(u))
    c1 = np.bincount(inv[yy == 1], minlength=len(u))
    return float(np.max(np.minimum(c0, c1))) / n


def longest_polarizing_prefix(X, y, eps0: float, gamma: float, *, rng=None):
    """ε0-∇0DP search for a long γ-polarizing prefix (Lemma 32 of Ghazi, Kumar, Manurangsi & Steinke 2023).

    1. Binary search over prefix lengths ℓ ∈ {0..d} (the paper prints {0..log d}) for the largest ℓ with
       maxpol_ℓ + Laplace(2P/(ε0 n)) ≥ 1.5γ, where P = ⌈log₂(d+1)⌉ is the number of probes (so the probes cost 0.5ε0
       in total; the paper writes 2 log d/(εn)); ℓ* = 0 if none.
    2. Run the 0.5ε0-∇0DP histogram (Theorem 15) on x|_[ℓ*] ∘ y with ν = 0.1γ.
    3. Return a prefix p of length ℓ* with f̂_{p0}, f̂_{p1} ≥ 1.5γn (the one with the largest min), or ``None``.
    """
    A = as_binary_records(X)
    n, d = A.shape
    yy = _labels01(y, n)
    e0 = EPS.check(eps0, "eps0")
    gamma = check_fraction(gamma, "gamma", high=0.5)
    return _longest_polarizing_prefix(A, yy, e0, gamma, as_rng(rng))


def _longest_polarizing_prefix(A: np.ndarray, yy: np.ndarray, e0: float, gamma: float, g):
    n, d = A.shape
    probes = max(1, math.ceil(math.log2(d + 1)))
    scale = 2.0 * probes / (e0 * n)
    lo, hi, best = 0, d, 0
    for _ in range(probes):
        if lo > hi:
            break
        mid = (lo + hi + 1) // 2
        if _polarization(A, yy, mid) + g.laplace(0.0, scale) >= 1.5 * gamma:
            best, lo = mid, mid + 1
        else:
            hi = mid - 1
    Z = np.column_stack([A[:, :best], yy]) if best > 0 else yy[:, None]
    h = _priv_histogram(Z.astype(np.uint8), 0.5 * e0, 0.1 * gamma, "corrected", g)
    S, f = h.strings, h.noisy_counts
    counts = {}
    for s, v in zip(S, f):
        counts[(tuple(s[:-1]), int(s[-1]))] = v
    cands = []
    for p in {k[0] for k in counts}:
        a, b = counts.get((p, 0), 0.0), counts.get((p, 1), 0.0)
        if a >= 1.5 * gamma * n and b >= 1.5 * gamma * n:
            cands.append((min(a, b), p))
    if not cands:
        return None
    return np.array(max(cands)[1], dtype=np.uint8)


# ----------------------------------------------------------------------------------------------- Theorem 33

def threshold_predict(z, X) -> np.ndarray:
    """Thresh_z(x) = 1[x ≥ z] in lexicographic order on {0,1}^d (Theorem 33 of Ghazi, Kumar,
    Manurangsi & Steinke 2023)."""
    A = as_binary_records(X)
    zr = real_array(z, "z", ndim=(1, 2))
    if zr.ndim == 2 and zr.shape[0] != 1:
        raise ValueError(f"z has shape {zr.shape} which is not allowed: must be one record of d = {A.shape[1]} bits.")
    zz = as_binary_records(zr.reshape(1, -1), "z")
    if zz.shape[1] != A.shape[1]:
        raise ValueError(f"z has d = {zz.shape[1]} bits, which is not allowed: must have d = {A.shape[1]} like the "
                         "rows of X.")
    return _threshold_predict(zz[0], A)


def _threshold_predict(z: np.ndarray, A: np.ndarray) -> np.ndarray:
    return (_codes(A) >= _codes(z[None, :])[0]).astype(np.uint8)


def threshold_learner(X, y, eps0: float, alpha: float, *, rng=None) -> np.ndarray:
    """Proper ε0-∇0DP learner for thresholds (Theorem 33 of Ghazi, Kumar, Manurangsi & Steinke 2023). Returns the
    threshold z (0/1 array).

    1. a = mean label + Laplace(3/(ε0 n))  (ε0/3);
    2. a ≤ 0.5α → Thresh_{1^d} (labels almost everything 0); a ≥ 1 − 0.5α → Thresh_{0^d} (labels everything 1)
       — the paper prints these two cases swapped;
    3. else: prefix p from :func:`longest_polarizing_prefix` at ε0/3 with γ = 0.1α (⊥ if none), then the
       ε0/3 exponential mechanism (score −#errors, sensitivity 1) among Thresh_{p0^{d−ℓ}}, Thresh_{p10^{d−ℓ−1}},
       Thresh_{p1^{d−ℓ}} (the paper prints "Thresh_{p1^d}").
    """
    A = as_binary_records(X)
    n, d = A.shape
    yy = _labels01(y, n)
    e0 = EPS.check(eps0, "eps0")
    alpha = check_fraction(alpha, "alpha")
    g = as_rng(rng)
    a = yy.mean() + g.laplace(0.0, 3.0 / (e0 * n))
    if a <= 0.5 * alpha:
        return np.ones(d, dtype=np.uint8)
    if a >= 1 - 0.5 * alpha:
        return np.zeros(d, dtype=np.uint8)
    p = _longest_polarizing_prefix(A, yy, e0 / 3.0, min(0.1 * alpha, 0.5), g)
    p = np.zeros(0, dtype=np.uint8) if p is None else p
    ell = len(p)
    cands = [np.concatenate([p, np.zeros(d - ell, np.uint8)]), np.concatenate([p, np.ones(d - ell, np.uint8)])]
    if ell < d:
        cands.insert(1, np.concatenate([p, [1], np.zeros(d - ell - 1, np.uint8)]).astype(np.uint8))
    errors = np.array([np.sum(_threshold_predict(z, A) != yy) for z in cands], dtype=float)
    return cands[exponential_mechanism(-errors, e0 / 3.0, 1.0, rng=g)]


# ----------------------------------------------------------------------------------------------- Theorem 34

def distribution_estimate(X, eps0: float, *, nu: float | None = None, C: float = 1.0, rng=None) -> dict:
    """ε0-∇0DP estimate of a distribution on {0,1}^d under ℓ2² error (Theorem 34 = Theorem 18 of Ghazi, Kumar,
    Manurangsi & Steinke 2023).

    1. Run the 0.5ε0-∇0DP histogram (Theorem 15) with ν = C·(ln d/(ε0 n))/ln(ε0 n) (C is the paper's unspecified
       large constant, here a parameter defaulting to 1 — shape only) and η = 0.01, capped at 0.1;
    2. θ_x = (f_x + Laplace(4/ε0))/n if f̂_x ≥ 2νn, else 0 (Laplace(4/ε0) for a 0.5ε0 share: L1 sensitivity 2;
       the paper prints 2/ε). The estimate is sparse and may be negative (not projected, as printed).
       Theorem 34 prints θ^priv ∈ [0,1]^d and "C is approximate frequencies": θ is indexed by {0,1}^d and C is a
       large constant.

    Returns ``{"strings": (m, d) array, "theta": (m,) array, "nu": ν}``; every other string has θ = 0.
    """
    A = as_binary_records(X)
    n, d = A.shape
    e0 = EPS.check(eps0, "eps0")
    if nu is None:
        en = e0 * n
        if en <= math.e:
            raise ValueError(f"eps0·n = {en:.3g} is not allowed for the default ν: must be > e (pass nu).")
        nu = min(0.1, SCALE.check(C, "C") * math.log(max(d, 2)) / en / math.log(en))
        if nu < MIN_FRACTION:
            raise ValueError(f"C = {C!r} is not allowed here: the default ν = {nu:.3g} must be >= {MIN_FRACTION:g}.")
    nu = check_fraction(nu, "nu")
    g = as_rng(rng)
    h = _priv_histogram(A, 0.5 * e0, nu, "corrected", g)
    keep = h.noisy_counts >= 2 * nu * n
    theta = (h.true_counts[keep] + g.laplace(0.0, 4.0 / e0, size=int(keep.sum()))) / n
    return {"strings": h.strings[keep], "theta": theta, "nu": nu}


# ----------------------------------------------------------------------------------------------- Lemma 21

def rr_flip_probability(eps0):
    """1/(e^ε0 + 1): the probability randomized response flips a label (Lemma 21 of Ghazi, Kumar,
    Manurangsi & Steinke 2023). ε0 in [0, 10⁸]."""
    e = real_array(eps0, "eps0", ndim=(0, 1), low=0.0, high=EPS.high)
    out = special.expit(-e)  # 1/(e^ε0 + 1) without overflow of e^ε0
    return float(out) if out.ndim == 0 else out


def rr_excess_factor(eps0):
    """(e^ε0 + 1)/(e^ε0 − 1) = coth(ε0/2): how much label randomized response blows up excess 0-1 error
    (Lemma 21 of Ghazi, Kumar, Manurangsi & Steinke 2023).

    >>> round(rr_excess_factor(1.0), 3)
    2.164
    """
    e = real_array(eps0, "eps0", ndim=(0, 1), low=0.0, high=EPS.high)
    if np.any(e < 1e-12):
        raise ValueError("eps0 contains values < 1e-12 (or <= 0), which is not allowed: must be a number in "
                         f"[1e-12, {EPS.high:g}] (the factor is 2/ε0 near 0).")
    out = 1.0 / np.tanh(e / 2.0)
    return float(out) if out.ndim == 0 else out


def rr_risk(risk, eps0):
    """R(h; D') = 1/(e^ε0+1) + ((e^ε0−1)/(e^ε0+1))·R(h; D): the 0-1 risk on randomized-response labels (Lemma 21 of
    Ghazi, Kumar, Manurangsi & Steinke 2023; exact for 0-1 loss only: under the robust loss, points where h is not
    constant on the γ-ball have robust error 1 under both labels)."""
    r = real_array(risk, "risk", ndim=(0, 1), low=0.0, high=1.0)
    e = EPS.check(eps0, "eps0")
    out = float(special.expit(-e)) + math.tanh(e / 2.0) * r  # 1/(e^ε0 + 1) without overflow of e^ε0
    return float(out) if np.ndim(out) == 0 else out


def label_randomized_response(y, eps0: float, *, rng=None) -> np.ndarray:
    """ỹ_i = y_i w.p. e^ε0/(e^ε0+1), else −y_i, for labels in {−1, +1} (Lemma 21 of Ghazi, Kumar,
    Manurangsi & Steinke 2023): turns an ε0-sample-∇0DP learner (labels unprotected) into an ε0-∇0DP one. Lemma 21
    assumes ε0 ∈ (0, 1]. The labelled distribution becomes D'(x, y) = (e^ε0 D(x, y) + D(x, −y))/(e^ε0 + 1); the paper
    prints D(x, 1−y), a slip for ±1 labels."""
    yy = real_array(y, "y", ndim=1)
    if not np.all(np.abs(yy) == 1):
        raise ValueError("y contains values other than -1 and +1, which is not allowed: labels must be ±1.")
    e = check_in_range(eps0, "eps0", 0.0, 1.0, low_inclusive=False)
    flip = as_rng(rng).random(yy.size) < 1.0 / (math.exp(e) + 1.0)
    return np.where(flip, -yy, yy)


# ----------------------------------------------------------------------------------------------- Section 6

def _pm1(X, name="X") -> np.ndarray:
    A = real_array(X, name, ndim=2)
    if not np.all(np.abs(A) == 1):
        raise ValueError(f"{name} contains values other than -1 and +1, which is not allowed: features must be ±1.")
    return A


def halfspace_dec(W, X, y) -> np.ndarray:
    """dec(x, y, h_w) = min Hamming distance from x to a point z with h_w(z) ≠ y (0 if h_w(x) ≠ y; ∞ if none), for
    halfspaces h_w(z) = sign(⟨w, z⟩) on {±1}^d with **sign(0) = +1** (Lemma 22 of Ghazi, Kumar,
    Manurangsi & Steinke 2023; Definition 19 prints x̌ ∈ {0,1}^d where {±1}^d is meant; derived here: flipping
    coordinate j changes y⟨w, z⟩ by −2c_j, c_j = y·w_j·x_j, so the greedy choice of the largest c_j is optimal).
    ``W`` is (H, d), ``X`` (n, d), ``y`` (n,); returns (H, n). H·n·d ≤ :data:`HALFSPACE_ENTRIES` (10⁷)."""
    W = np.atleast_2d(real_array(W, "W", ndim=(1, 2), low=-SCALE.high, high=SCALE.high))
    A = _pm1(X)
    yy = real_array(y, "y", ndim=1)
    if not np.all(np.abs(yy) == 1):
        raise ValueError("y contains values other than -1 and +1, which is not allowed: labels must be ±1.")
    if yy.shape[0] != A.shape[0]:
        raise ValueError(f"y has {yy.shape[0]} labels: must have one per row of X ({A.shape[0]}).")
    if W.shape[1] != A.shape[1]:
        raise ValueError(f"W has d = {W.shape[1]} and X has d = {A.shape[1]}: must match.")
    H, (n, d) = W.shape[0], A.shape
    HALFSPACE_ENTRIES.check(H * n * d, f"H·n·d = {H}·{n}·{d}")
    return _halfspace_dec(W, A, yy)


def _halfspace_dec(W: np.ndarray, A: np.ndarray, yy: np.ndarray) -> np.ndarray:
    c = yy[None, :, None] * W[:, None, :] * A[None, :, :]  # (H, n, d)
    s0 = c.sum(axis=2)  # y⟨w,x⟩
    cs = np.cumsum(-np.sort(-c, axis=2), axis=2)
    s = np.concatenate([s0[..., None], s0[..., None] - 2.0 * cs], axis=2)  # y⟨w,z⟩ after flipping top-k
    # h(z) ≠ y  ⇔  y = +1: value < 0 ;  y = −1: value ≥ 0, i.e. y·value ≤ 0
    wrong = np.where(yy[None, :, None] > 0, s < 0, s <= 0)
    k = np.argmax(wrong, axis=2).astype(float)
    k[~wrong.any(axis=2)] = np.inf
    return k


def robust_loss(dec, gamma: float, gamma_prime: float, d: int):
    """ℓ = clip_[0,1]((γd − dec)/((γ − γ')d)) (Lemma 22 of Ghazi, Kumar,
    Manurangsi & Steinke 2023): 1[dec ≤ γ'd] ≤ ℓ ≤ 1[dec ≤ γd]; sensitivity to one coordinate change 1/((γ − γ')d)."""
    g, gp = _margins(gamma, gamma_prime)
    d = COUNT.check(d, "d")
    allowed = "distances >= 0 (or +inf)"
    try:  # +inf is a valid dec (no flip changes h); complex input is refused, not cast to real
        dd = check_real_array(dec, "dec", allow_empty=True, finite=False)
    except ValueError as exc:
        raise ValueError(f"{str(exc).rstrip('.')}; dec must be {allowed}.") from None
    if np.any(np.isnan(dd)) or np.any(dd < 0):
        raise ValueError(f"dec contains NaN or negative values, which is not allowed: must be {allowed}.")
    return _robust_loss(dd, g, gp, d)


def _margins(gamma, gamma_prime) -> tuple[float, float]:
    g = check_in_range(gamma, "gamma", 0.0, 1.0, low_inclusive=False)
    gp = check_in_range(gamma_prime, "gamma_prime", 0.0, 1.0)
    if gp >= g:
        raise ValueError(f"gamma_prime = {gamma_prime!r} is not allowed: must be < gamma = {gamma!r}.")
    if (g - gp) < MIN_FRACTION:
        raise ValueError(f"gamma − gamma_prime = {g - gp:.3g} is not allowed: must be >= {MIN_FRACTION:g} "
                         "(the loss has slope 1/((γ − γ')d)).")
    return g, gp


def _robust_loss(dec: np.ndarray, g: float, gp: float, d: int):
    return np.clip((g * d - dec) / ((g - gp) * d), 0.0, 1.0)


def robust_erm(W, X, y, eps0: float, gamma: float, gamma_prime: float, *, rng=None) -> int:
    """ε0-sample-∇0DP robust ERM (Lemma 22 of Ghazi, Kumar, Manurangsi & Steinke 2023): sample h ∈ H with P ∝
    exp(−ε0·Loss(h)/(2Δ)), Loss(h) = Σ_i ℓ(h, (x_i, y_i)), Δ = 1/((γ−γ')d) (the exponential mechanism,
    McSherry & Talwar 2007). Labels are not protected. Returns the index of the chosen hypothesis."""
    A = _pm1(X)
    e0 = EPS.check(eps0, "eps0")
    g, gp = _margins(gamma, gamma_prime)
    dec = halfspace_dec(W, A, y)
    return _robust_erm(dec, A.shape[1], e0, g, gp, as_rng(rng))


def _robust_erm(dec: np.ndarray, d: int, e0: float, g: float, gp: float, rng) -> int:
    loss = _robust_loss(dec, g, gp, d).sum(axis=1)
    return exponential_mechanism(-loss, e0, 1.0 / ((g - gp) * d), rng=rng)


def halfspace_net(d: int, nu: float, *, max_size: int = 200000) -> np.ndarray:
    """All w ∈ (ν/d)·ℤ^d with ‖w‖₁ ≤ 1, w ≠ 0: a ν-net in ℓ1 of the unit ℓ1 ball (rounding each coordinate of any w
    toward 0 moves it by < ν/d, i.e. < ν in total; a simple net for Section 6's N(ν), derived here). Size (O(1/ν))^d:
    small d only."""
    d = check_integer(d, "d", minimum=1, maximum=6)
    nu = check_fraction(nu, "nu")
    max_size = NET.check(max_size, "max_size")
    R = int(math.floor(d / nu))
    if (2 * R + 1) ** d > 50 * max_size:
        raise ValueError(f"the net for d = {d}, nu = {nu!r} has about {(2 * R + 1) ** d:.3g} grid points: too large "
                         f"(max_size = {max_size}); use a smaller d or a larger nu.")
    grid = np.array(np.meshgrid(*[np.arange(-R, R + 1)] * d, indexing="ij")).reshape(d, -1).T
    keep = (np.abs(grid).sum(axis=1) <= R) & np.any(grid != 0, axis=1)
    net = grid[keep] * (nu / d)
    if len(net) > max_size:
        raise ValueError(f"the net has {len(net)} points: more than max_size = {max_size}.")
    return net


@dataclasses.dataclass(frozen=True)
class HalfspaceResult:
    """Output of :func:`robust_halfspace_learner`: the weight vector, the net size and ν = (γ − γ')/5."""

    w: np.ndarray
    net_size: int
    nu: float

    def __post_init__(self):
        field_array(self, "w", ndim=1)
        field_int(self, "net_size", minimum=1)
        field_float(self, "nu", low=MIN_FRACTION)


def robust_halfspace_learner(X, y, eps0: float, gamma: float, gamma_prime: float, *, rng=None,
                             max_net: int = 200000) -> HalfspaceResult:
    """ε0-∇0DP γ-robust halfspace learner (Section 6 of Ghazi, Kumar, Manurangsi & Steinke 2023; Lemmas 21, 23–25,
    Theorem 20).

    ν = (γ − γ')/5; labels by randomized response at ε0 (Lemma 21, needs ε0 ≤ 1); the ν-net of the unit ℓ1 ball
    (:func:`halfspace_net`); robust ERM (Lemma 22) on the net with margins (γ' + ν, γ'): loss
    clip(((γ'+ν)d − dec)/(νd)), Δ = 1/(νd). Excess error O(1/(ε0√n(γ−γ')²) + log(1/(γ−γ'))/(ε0²n(γ−γ'))), free of d
    (Theorem 20). Exponential in d through the net: keep d ≤ 4–5.
    """
    A = _pm1(X)
    n, d = A.shape
    e0 = check_in_range(eps0, "eps0", 1e-12, 1.0)
    g_ = check_in_range(gamma, "gamma", 0.0, 1.0, low_inclusive=False)
    gp = check_in_range(gamma_prime, "gamma_prime", 0.0, 1.0, low_inclusive=False)
    if gp >= g_:
        raise ValueError(f"gamma_prime = {gamma_prime!r} is not allowed: must be < gamma = {gamma!r}.")
    max_net = NET.check(max_net, "max_net")
    g = as_rng(rng)
    nu = (g_ - gp) / 5.0
    y_rr = label_randomized_response(y, e0, rng=g)
    if y_rr.shape[0] != n:
        raise ValueError(f"y has {y_rr.shape[0]} labels: must have one per row of X ({n}).")
    net = halfspace_net(d, nu, max_size=max_net)
    HALFSPACE_ENTRIES.check(len(net) * n * d, f"H·n·d for a net of {len(net)} hypotheses on n = {n} samples of d = "
                                              f"{d} (use fewer samples or a larger gamma − gamma_prime)")
    dec = _halfspace_dec(net, A, y_rr)
    idx = _robust_erm(dec, d, e0, gp + nu, gp, g)
    return HalfspaceResult(w=net[idx], net_size=len(net), nu=nu)

"""k-way marginals under per-attribute DP: the projection mechanism (Section 4.1, Theorem 11 of Ghazi, Kumar,
Manurangsi & Steinke 2023) and partial MWEM (Section 4.2, Algorithm 1, Theorem 12 of Ghazi, Kumar,
Manurangsi & Steinke 2023).

Records live in X = {0,1}^d; a record u is indexed by its integer code (attribute 1 = most significant bit).
Queries are k-way conjunctions q_S(u) = Π_{j∈S} u_j or parities ⊕_{j∈S} u_j, |S| = k, m = C(d, k).
Both mechanisms are exponential in d (they work over all 2^d records): keep d ≤ 12.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from functools import lru_cache

import numpy as np

from dpviz._validation import Interval, as_rng, check_integer
from dpviz.mechanisms.exponential import _gumbel_argmax
from dpviz.partial.histograms import (
    COUNT,
    EPS,
    SCALE,
    SCALE_OR_ZERO,
    WORK,
    _codes,
    as_binary_records,
    check_name,
    field_array,
    field_float,
    real_array,
)

__all__ = [
    "kway_queries",
    "kway_query_matrix",
    "diameters_brute_force",
    "kway_diameters",
    "projection_guarantees",
    "projection_sigma",
    "projection_mse_bound",
    "kway_projection_mse_bounds",
    "project_onto_hull",
    "projection_mechanism",
    "disjoint_query_sets",
    "mwem_person_rho",
    "mwem_error_bound",
    "mwem_best_T",
    "MWEMResult",
    "partial_mwem",
    "max_star_error",
]

#: T_max of :func:`mwem_best_T` (the panels use 2·10⁵).
T_SEARCH = Interval(1, 10_000_000, integer=True)

#: Attributes d of a full marginal table or hull (2^d cells or vertices are formed).
D_MARGINALS = Interval(1, 12, integer=True)
_FAMILIES = ("conjunction", "parity")


#: d in the closed-form query counts C(d, k) (the panels plot d ≤ 10⁴); C(d, k) must also stay < 10³⁰⁰.
QUERY_D = Interval(1, 100_000, integer=True)


def kway_queries(d: int, k: int) -> tuple:
    """All k-subsets S of the attributes {0..d−1} (0-indexed), lexicographic: the m = C(d, k) queries."""
    d = D_MARGINALS.check(d, "d")
    k = check_integer(k, "k", minimum=1, maximum=d)
    return _kway_queries(d, k)


@lru_cache(maxsize=64)
def _kway_queries(d: int, k: int) -> tuple:
    return tuple(itertools.combinations(range(d), k))


def _comb(d: int, k: int, name: str = "d") -> int:
    """C(d, k) for the closed forms, refused (naming ``name``) when it would not convert to a float."""
    log10 = (math.lgamma(d + 1) - math.lgamma(k + 1) - math.lgamma(d - k + 1)) / math.log(10)
    if log10 > 300:
        raise ValueError(f"{name} = {d} with k = {k} is not allowed: the number of queries C(d, k) ≈ 10^{log10:.0f} "
                         "must be below 1e300.")
    return math.comb(d, k)


@lru_cache(maxsize=64)
def _kway_query_matrix(d: int, k: int, family: str) -> np.ndarray:
    codes = np.arange(1 << d, dtype=np.int64)
    bits = ((codes[:, None] >> np.arange(d - 1, -1, -1)) & 1).astype(np.int8)  # (2^d, d)
    subsets = np.array(_kway_queries(d, k), dtype=np.int64)  # (m, k)
    sel = bits[:, subsets]  # (2^d, m, k)
    Q = sel.all(axis=2) if family == "conjunction" else (sel.sum(axis=2) % 2 == 1)
    out = Q.astype(float)
    out.setflags(write=False)
    return out


def kway_query_matrix(d: int, k: int, family: str = "conjunction") -> np.ndarray:
    """Q[u, j] = q_{S_j}(u) for every record u ∈ {0,1}^d (row = integer code) and k-subset S_j (Theorem 11 of Ghazi,
    Kumar, Manurangsi & Steinke 2023, "Instance"). Read-only, cached."""
    d = D_MARGINALS.check(d, "d")
    k = check_integer(k, "k", minimum=1, maximum=d)
    check_name(family, "family", _FAMILIES)
    return _kway_query_matrix(d, k, family)


def diameters_brute_force(Q: np.ndarray, d: int) -> tuple[float, float]:
    """Brute-force Δ = max_{u,u'} ‖Q(u) − Q(u')‖₂ and Δ0 = max over u, u' differing in ONE attribute (Theorem 11
    of Ghazi, Kumar, Manurangsi & Steinke 2023), for a query matrix with one row per record code of {0,1}^d."""
    d = D_MARGINALS.check(d, "d")
    Q = real_array(Q, "Q", ndim=2, low=-SCALE.high, high=SCALE.high)
    if Q.shape[0] != (1 << d):
        raise ValueError(f"Q has shape {Q.shape}: must have 2^d = {1 << d} rows (one per record).")
    N, m = Q.shape
    WORK.check(N * N * m + d * N * m, f"the work of Q with {N} rows and {m} queries")
    sq = np.sum(Q * Q, axis=1)
    D2 = sq[:, None] + sq[None, :] - 2.0 * (Q @ Q.T)
    delta = math.sqrt(max(float(D2.max()), 0.0))
    codes = np.arange(1 << d)
    d0 = 0.0
    for j in range(d):
        nb = codes ^ (1 << j)
        d0 = max(d0, float(np.max(np.sum((Q - Q[nb]) ** 2, axis=1))))
    return delta, math.sqrt(d0)


def kway_diameters(d: int, k: int) -> tuple[float, float]:
    """The paper's formulas for k-way queries (Theorem 11 of Ghazi, Kumar, Manurangsi & Steinke 2023): Δ = √m,
    Δ0 = √C(d−1, k−1) = √(mk/d), so ε/ε0 = √(d/k). Exact for conjunctions and odd-k parities; an upper bound for even-k
    parities (by brute force, :func:`diameters_brute_force`: d = 6, k = 2 has Δ = 3 < √15).

    >>> [round(x, 3) for x in kway_diameters(6, 2)]
    [3.873, 2.236]
    """
    d = QUERY_D.check(d, "d")
    k = check_integer(k, "k", minimum=1, maximum=d)
    return math.sqrt(_comb(d, k)), math.sqrt(math.comb(d - 1, k - 1))


def projection_guarantees(sigma: float, n: int, delta: float, delta0: float) -> dict:
    """Theorem 11 of Ghazi, Kumar, Manurangsi & Steinke 2023: Gaussian noise N(0, σ²I) on the average answers, then
    projection, is simultaneously ½ε²-zCDP with ε = Δ/(σn) and ε0-∇0CDP with ε0 = Δ0/(σn)."""
    s = SCALE.check(sigma, "sigma")
    n = COUNT.check(n, "n")
    D = SCALE_OR_ZERO.check(delta, "delta")
    D0 = SCALE_OR_ZERO.check(delta0, "delta0")
    return {"eps": D / (s * n), "eps0": D0 / (s * n), "rho": 0.5 * (D / (s * n)) ** 2,
            "rho0": 0.5 * (D0 / (s * n)) ** 2}


def projection_sigma(n: int, diameter: float, *, eps0: float | None = None, eps: float | None = None) -> float:
    """σ = Δ0/(ε0 n) for a target per-attribute ε0 (pass ``diameter=Δ0``), or σ = Δ/(ε n) for a target per-person ε
    (pass ``diameter=Δ``) (Theorem 11 of Ghazi, Kumar, Manurangsi & Steinke 2023)."""
    n = COUNT.check(n, "n")
    D = SCALE.check(diameter, "diameter")
    if (eps0 is None) == (eps is None):
        raise ValueError("pass exactly one of eps0 (per attribute) or eps (per person).")
    e = EPS.check(eps0, "eps0") if eps0 is not None else EPS.check(eps, "eps")
    return D / (e * n)


def projection_mse_bound(sigma, delta: float, m: int, log_domain: float):
    """E[(1/m)‖M(x) − Q(x)‖²] ≤ min{σ², σΔ√(2 ln|X|)/m} (Theorem 11 of Ghazi, Kumar, Manurangsi & Steinke 2023, equation
    (2)). Vectorised over σ."""
    s = real_array(sigma, "sigma", ndim=(0, 1), low=0.0, high=SCALE.high)
    delta = SCALE_OR_ZERO.check(delta, "delta")
    m = COUNT.check(m, "m")
    log_domain = SCALE_OR_ZERO.check(log_domain, "log_domain")
    out = np.minimum(s**2, s * delta * math.sqrt(2.0 * log_domain) / m)
    return float(out) if out.ndim == 0 else out


def kway_projection_mse_bounds(d, k: int, n: int, *, eps0: float | None = None, eps: float | None = None):
    """MSE bounds of the projection mechanism for k-way queries on {0,1}^d (Theorem 11 and eq. (2) of Ghazi,
    Kumar, Manurangsi & Steinke 2023, Section 4.1), with ln|X| = d ln 2 and m = C(d, k):

    * at fixed per-attribute ε0: min{ mk/(ε0²n²d), √(2k ln 2)/(ε0 n) } — the second term does not depend on d;
    * at fixed per-person ε:   min{ m/(ε²n²), √(2d ln 2)/(ε n) } — grows with d.

    Vectorised over d.

    >>> round(kway_projection_mse_bounds(100, 3, 1000, eps0=1.0), 6)
    0.002039
    """
    k = QUERY_D.check(k, "k")
    dd = real_array(d, "d", ndim=(0, 1), low=float(k), high=float(QUERY_D.high), integer=True)
    n = COUNT.check(n, "n")
    if (eps0 is None) == (eps is None):
        raise ValueError("pass exactly one of eps0 (per attribute) or eps (per person).")
    e = EPS.check(eps0, "eps0") if eps0 is not None else EPS.check(eps, "eps")
    m = np.array([_comb(int(x), k) for x in np.atleast_1d(dd)], dtype=float).reshape(dd.shape)
    # the first term can exceed the float range (m up to 1e300 over ε²n²); the minimum then is the second, finite
    # term, so the overflow to +inf is intended and silenced explicitly
    with np.errstate(over="ignore"):
        if eps0 is not None:
            out = np.minimum(m * k / (e**2 * n**2 * dd), math.sqrt(2 * k * math.log(2)) / (e * n))
        else:
            out = np.minimum(m / (e**2 * n**2), np.sqrt(2 * dd * math.log(2)) / (e * n))
    return float(out) if out.ndim == 0 else out


def _project_simplex(v: np.ndarray) -> np.ndarray:
    """Euclidean projection onto the probability simplex (Duchi et al. 2008)."""
    u = np.sort(v)[::-1]
    css = np.cumsum(u) - 1.0
    ind = np.arange(1, v.size + 1)
    cond = u - css / ind > 0
    r = ind[cond][-1]
    theta = css[cond][-1] / r
    return np.maximum(v - theta, 0.0)


def project_onto_hull(Q: np.ndarray, Y: np.ndarray, *, iterations: int = 400) -> np.ndarray:
    """argmin over y ∈ conv{Q(u)} of ‖y − Y‖₂ (step 3 of the projection mechanism, Theorem 11 of Ghazi, Kumar,
    Manurangsi & Steinke 2023), as min_{w ∈ simplex} ‖wᵀQ − Y‖² solved by accelerated projected gradient (FISTA) with
    step 1/L, L = 2‖Q‖₂². An approximate solver: privacy is unaffected (post-processing); the MSE bound assumes the
    exact projection, which the iterations approach at rate O(1/t²). Q (N, m) and Y (m,) finite with
    entries within ±10¹²; the work iterations·N·m (plus the spectral norm) is capped by
    :data:`~dpviz.partial.histograms.WORK`."""
    Q = real_array(Q, "Q", ndim=2, low=-SCALE.high, high=SCALE.high)
    Y = real_array(Y, "Y", ndim=1, low=-SCALE.high, high=SCALE.high)
    if Y.shape != (Q.shape[1],):
        raise ValueError(f"Y has shape {Y.shape} which is not allowed: must be ({Q.shape[1]},), one value per query.")
    iterations = COUNT.check(iterations, "iterations")
    N, m = Q.shape
    WORK.check(2 * iterations * N * m + N * m * min(N, m), f"the work of iterations = {iterations} on Q of shape "
                                                            f"{Q.shape}")
    return _project_onto_hull(Q, Y, iterations)


def _project_onto_hull(Q: np.ndarray, Y: np.ndarray, iterations: int) -> np.ndarray:
    N = Q.shape[0]
    L = 2.0 * float(np.linalg.norm(Q, 2)) ** 2
    if L == 0.0:  # every vertex Q(u) is the origin: the hull is {0}
        return np.zeros(Q.shape[1])
    w = np.full(N, 1.0 / N)
    z = w.copy()
    t = 1.0
    for _ in range(iterations):
        grad = 2.0 * Q @ (z @ Q - Y)
        w_new = _project_simplex(z - grad / L)
        t_new = 0.5 * (1.0 + math.sqrt(1.0 + 4.0 * t * t))
        z = w_new + ((t - 1.0) / t_new) * (w_new - w)
        w, t = w_new, t_new
    return w @ Q


def projection_mechanism(X, sigma: float, *, k: int = 2, family: str = "conjunction", iterations: int = 400,
                         rng=None, size: int | None = None) -> np.ndarray:
    """The projection mechanism for k-way queries (Theorem 11 of Ghazi, Kumar, Manurangsi & Steinke 2023, Section 4.1):
    Y = Q(x) + N(0, σ²I_m), Q(x) = (1/n)Σ_i Q(x_i), then Ŷ = the projection of Y onto conv{Q(u) : u ∈ {0,1}^d}.

    Privacy: ½ε²-zCDP with ε = Δ/(σn) and ε0-∇0CDP with ε0 = Δ0/(σn) (:func:`projection_guarantees`).
    ``size`` draws several independent releases at once (shape (size, m)).
    """
    A = as_binary_records(X)
    n, d = A.shape
    if d > D_MARGINALS.high:
        raise ValueError(f"d = {d} is not allowed here: must be <= {D_MARGINALS.high} (the hull has 2^d vertices).")
    s = SCALE.check(sigma, "sigma")
    Q = kway_query_matrix(d, k, family)
    iterations = COUNT.check(iterations, "iterations")
    reps = 1 if size is None else COUNT.check(size, "size")
    N, m = Q.shape
    WORK.check(reps * (2 * iterations * N * m + N * m * min(N, m)),
               f"the work of size = {reps} releases of {iterations} iterations on 2^{d} records × {m} queries")
    hist = np.bincount(_codes(A), minlength=1 << d) / n
    qx = hist @ Q
    g = as_rng(rng)
    out = np.array([_project_onto_hull(Q, qx + g.normal(0.0, s, size=qx.size), iterations) for _ in range(reps)])
    return out[0] if size is None else out


# ----------------------------------------------------------------------------------------------- partial MWEM

@lru_cache(maxsize=64)
def _disjoint_sets(d: int, k: int, ell: int) -> np.ndarray:
    subsets = _kway_queries(d, k)
    masks = [sum(1 << a for a in S) for S in subsets]
    out = []

    def rec(start, chosen, used):
        if len(chosen) == ell:
            out.append(tuple(chosen))
            return
        for j in range(start, len(subsets)):
            if masks[j] & used == 0:
                rec(j + 1, chosen + [j], used | masks[j])

    rec(0, [], 0)
    arr = np.array(out, dtype=np.int64).reshape(len(out), ell)
    arr.setflags(write=False)
    return arr


def disjoint_query_sets(d: int, k: int, ell: int) -> np.ndarray:
    """All unordered ℓ-sets of k-way queries with pairwise disjoint attribute sets (indices into
    :func:`kway_queries`). Algorithm 1 of Ghazi, Kumar, Manurangsi & Steinke 2023 samples ordered tuples; each
    set stands for ℓ! equally weighted tuples, so sampling sets gives the same distribution. Needs
    ℓ ≤ ⌊d/k⌋."""
    d = D_MARGINALS.check(d, "d")
    k = check_integer(k, "k", minimum=1, maximum=d)
    ell = check_integer(ell, "ell", minimum=1, maximum=d // k)
    return _disjoint_sets(d, k, ell)


def mwem_person_rho(eps0: float, ell: int, exact: bool = True) -> float:
    """Per-person zCDP of partial MWEM (Theorem 12 of Ghazi, Kumar, Manurangsi & Steinke 2023): ½(ℓε0)²; the exact total
    of the proof is ¼(ℓ² + ℓ)ε0² (selection score sensitivity ℓ/n, Gaussian L2 sensitivity √ℓ/n). ℓ = 1 is
    standard MWEM with ρ = ½ε0².

    >>> mwem_person_rho(1.0, 4), mwem_person_rho(1.0, 4, exact=False)
    (5.0, 8.0)
    """
    e0 = EPS.check(eps0, "eps0")
    ell = COUNT.check(ell, "ell")
    if not isinstance(exact, (bool, np.bool_)):
        raise ValueError(f"exact = {exact!r} is not allowed: must be True or False.")
    return 0.25 * (ell * ell + ell) * e0 * e0 if exact else 0.5 * (ell * e0) ** 2


def mwem_error_bound(T, n: int, eps0: float, log_domain: float, m: int, ell: int):
    """Equation (3) of Theorem 12 of Ghazi, Kumar, Manurangsi & Steinke 2023 (natural logs): E[max*
    error] ≤ √(2T/(n²ε0²) + 4 ln|X|/(Tℓ)) + (√(2T)/(ε0 n))·ln m. Vectorised over T."""
    TT = real_array(T, "T", ndim=(0, 1), low=1.0, high=float(COUNT.high))
    n = COUNT.check(n, "n")
    e0 = EPS.check(eps0, "eps0")
    log_domain = SCALE_OR_ZERO.check(log_domain, "log_domain")
    m = COUNT.check(m, "m")
    ell = COUNT.check(ell, "ell")
    return _mwem_error_bound(TT, n, e0, log_domain, m, ell)


def _mwem_error_bound(TT, n: int, e0: float, log_domain: float, m: int, ell: int):
    out = np.sqrt(2 * TT / (n * n * e0 * e0) + 4 * log_domain / (TT * ell)) + np.sqrt(2 * TT) / (e0 * n) * math.log(m)
    return float(out) if np.ndim(out) == 0 else out


def mwem_best_T(n: int, eps0: float, log_domain: float, m: int, ell: int, T_max: int = 100000) -> tuple[int, float]:
    """Integer T in 1..T_max minimising :func:`mwem_error_bound`: a log-spaced grid of about 400 integers brackets
    the minimum, then every integer between the bracketing grid points is evaluated (exact for the unimodal bound;
    the tests compare with a full scan). T_max ≤ :data:`T_SEARCH` (10⁷)."""
    n = COUNT.check(n, "n")
    e0 = EPS.check(eps0, "eps0")
    log_domain = SCALE_OR_ZERO.check(log_domain, "log_domain")
    m = COUNT.check(m, "m")
    ell = COUNT.check(ell, "ell")
    T_max = T_SEARCH.check(T_max, "T_max")
    grid = np.unique(np.round(np.logspace(0.0, math.log10(T_max), 400)).astype(np.int64))
    b = _mwem_error_bound(grid.astype(float), n, e0, log_domain, m, ell)
    i = int(np.argmin(b))
    lo = int(grid[max(i - 1, 0)])
    hi = int(grid[min(i + 1, len(grid) - 1)])
    T = np.arange(lo, hi + 1)
    bb = np.atleast_1d(_mwem_error_bound(T.astype(float), n, e0, log_domain, m, ell))
    j = int(np.argmin(bb))
    return int(T[j]), float(bb[j])


@dataclasses.dataclass(frozen=True)
class MWEMResult:
    """Output of :func:`partial_mwem`: ``answers`` = q_j(A) for every query (A = average of A_1..A_T),
    ``distribution`` = A over the 2^d records, ``selected`` = the chosen query sets per round."""

    answers: np.ndarray
    distribution: np.ndarray
    selected: np.ndarray
    eps0: float
    person_rho: float

    def __post_init__(self):
        field_array(self, "answers", ndim=1)
        field_array(self, "distribution", ndim=1, low=0.0)
        field_array(self, "selected", ndim=2, integer=True, low=0, dtype=np.int64)
        object.__setattr__(self, "eps0", EPS.check(self.eps0, "eps0"))
        field_float(self, "person_rho", low=0.0)


def partial_mwem(X, eps0: float, T: int, ell: int = 1, *, k: int = 2, rng=None) -> MWEMResult:
    """Partial MWEM M_ℓ for k-way conjunctions (Algorithm 1 and Theorem 12 of Ghazi, Kumar, Manurangsi & Steinke 2023,
    Section 4.2).

    ε_T = ε0/√(2T); A_1 uniform on {0,1}^d. Each round t: err_j = |q_j(A_t) − q_j(x)|; sample an attribute-disjoint
    ℓ-set with P ∝ exp(ε_T·n·Σ_i err_{q_i}) (zCDP exponential mechanism, **no ½**, as Algorithm 1 prints it;
    Gumbel-max); a_i = clip(q_i(x) + N(0, 1/(nε_T)²), 0, 1); A_{t+1}(u) ∝ A_t(u)·exp(½Σ_i q_i(u)(a_i − q_i(A_t))) with
    q_i(A_t) frozen for the round (Lemma 13 with q(A); the paper prints q(u) there). Output the answers of
    A = mean(A_1..A_T).

    Privacy: each round costs ε_T² of per-attribute zCDP, T rounds ½ε0²: ε0-∇0CDP; per person ¼(ℓ²+ℓ)ε0² ≤
    ½(ℓε0)² (:func:`mwem_person_rho`).
    """
    A_ = as_binary_records(X)
    n, d = A_.shape
    if d > D_MARGINALS.high:
        raise ValueError(f"d = {d} is not allowed here: must be <= {D_MARGINALS.high}.")
    e0 = EPS.check(eps0, "eps0")
    T = check_integer(T, "T", minimum=1, maximum=100000)
    k = check_integer(k, "k", minimum=1, maximum=d)
    ell = COUNT.check(ell, "ell")
    if ell > d // k:
        raise ValueError(f"ell = {ell} is not allowed: must be <= floor(d/k) = {d // k} so that ℓ attribute-disjoint "
                         "k-way queries exist.")
    g = as_rng(rng)
    Q = _kway_query_matrix(d, k, "conjunction")
    sets = _disjoint_sets(d, k, ell)
    WORK.check(T * ((1 << d) * (Q.shape[1] + ell) + sets.size),
               f"the work of T = {T} rounds on 2^{d} records × {Q.shape[1]} queries with {len(sets)} query sets")
    qx = (np.bincount(_codes(A_), minlength=1 << d) / n) @ Q
    eps_T = e0 / math.sqrt(2.0 * T)
    A = np.full(1 << d, 1.0 / (1 << d))
    logA = np.zeros(1 << d)  # log-weights up to a constant: no log(0) when a weight underflows
    acc = np.zeros_like(A)
    chosen = np.empty((T, ell), dtype=np.int64)
    for t in range(T):
        acc += A
        qA = A @ Q
        err = np.abs(qA - qx)
        scores = eps_T * n * err[sets].sum(axis=1)
        pick = sets[int(_gumbel_argmax(scores, g))]
        chosen[t] = pick
        a = np.clip(qx[pick] + g.normal(0.0, 1.0 / (n * eps_T), size=ell), 0.0, 1.0)
        logA = logA + 0.5 * (Q[:, pick] @ (a - qA[pick]))
        logA -= logA.max()
        A = np.exp(logA)
        A /= A.sum()
    avg = acc / T
    return MWEMResult(answers=avg @ Q, distribution=avg, selected=chosen, eps0=e0,
                      person_rho=mwem_person_rho(e0, ell))


def max_star_error(answers, X, ell: int, *, k: int = 2) -> float:
    """max* error of Theorem 12 of Ghazi, Kumar, Manurangsi & Steinke 2023: the maximum over attribute-disjoint ℓ-sets
    of k-way conjunctions of the average |q_i(A) − q_i(x)|, exact by enumeration."""
    A_ = as_binary_records(X)
    n, d = A_.shape
    if d > D_MARGINALS.high:
        raise ValueError(f"d = {d} is not allowed here: must be <= {D_MARGINALS.high}.")
    Q = kway_query_matrix(d, k, "conjunction")
    sets = disjoint_query_sets(d, k, ell)
    ans = real_array(answers, "answers", ndim=1, low=-SCALE.high, high=SCALE.high)
    if ans.shape != (Q.shape[1],):
        raise ValueError(f"answers has shape {ans.shape} which is not allowed: must be ({Q.shape[1]},), one per "
                         f"{k}-way query.")
    qx = (np.bincount(_codes(A_), minlength=1 << d) / n) @ Q
    err = np.abs(ans - qx)
    return float(err[sets].mean(axis=1).max())

"""Exact laws of the privacy loss of single mechanisms, and their discretisation onto a grid (used by the PLD
accountant).

A *law* describes the privacy loss L = ln(P(o)/Q(o)), o ~ P, of one neighbouring pair (P, Q) through four
vectorised functions under P — ``sf(t) = P(L > t)``, ``sf_ge(t) = P(L ≥ t)``, ``cdf(t) = P(L ≤ t)``,
``cdf_lt(t) = P(L < t)`` — two under Q — ``qsf(t) = Q(L > t)``, ``qcdf(t) = Q(L ≤ t)`` —, the atom
``inf_mass = P(L = +∞)`` and a range [lo, hi] outside which the mass is negligible (it is still accounted for
exactly: see :func:`discretise`). Each function is computed directly (never as 1 − another) so that tail
probabilities keep their relative precision.

The laws of the mechanisms themselves (Gaussian, Laplace, randomized response and the canonical (ε, δ) pair,
discrete Laplace, discrete Gaussian, truncated discrete Laplace) are built by the ``*_law`` functions at the end;
:func:`discrete_laplace_loss` is shared with the RDP accountant.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from dpviz._validation import (
    Cap,
    Interval,
    _grid_arg,
    check_choice,
    check_in_range,
    check_positive,
    check_probability,
    check_real_array,
)

__all__ = ["FiniteLaw", "GaussianLaw", "LaplaceLaw", "Law", "SubsampledLaw", "SymmetricLaw", "discrete_laplace_loss",
           "discretise"]

Z_TAIL = 10.0  # Gaussian ranges cover ρ ± 10 sd (tail mass 7.6e-24, moved pessimistically to +∞ / the range end)


#: Most grid points one call of :func:`discretise` may produce (2²⁰, the PLD accountant's default grid budget
#: :data:`dpviz.accountants.pld.DEFAULT_MAX_GRID_POINTS`: about 1.5 s and 150 MB of work arrays).
DISCRETISE_POINTS = Cap(2**20, "the grid points of one discretisation")

#: Largest grid step of :func:`discretise` (nats): coarser than the largest loss the PLD accountant's grids cover
#: (:data:`dpviz.accountants.pld.MAX_LOSS`), and the grid's end points stay far inside the double range.
STEP = Interval(0.0, 1e4, open_low=True)

#: Largest sensitivity of :func:`discrete_laplace_loss` (its loss law has Δ + 1 atoms).
DLAP_SENSITIVITY = Interval(1, 10**6, integer=True)


def _points(t):
    """The points a law's probabilities are asked at: real numbers or arrays of them, ±∞ allowed, NaN refused."""
    return _grid_arg(t, "t")


class Law:
    """Base: subclasses set ``inf_mass``, ``lo``, ``hi`` and implement the six kernels ``_sf``, ``_sf_ge``, ``_cdf``,
    ``_cdf_lt``, ``_qsf``, ``_qcdf`` on float arrays; the public functions below check their argument ``t`` (numbers
    or an array, ±∞ allowed, NaN refused) and call them. Code inside the package calls the kernels directly."""

    inf_mass = 0.0
    lo = 0.0
    hi = 0.0

    def sf(self, t):
        """P(L > t) under P."""
        return self._sf(_points(t))

    def sf_ge(self, t):
        """P(L ≥ t) under P."""
        return self._sf_ge(_points(t))

    def cdf(self, t):
        """P(L ≤ t) under P."""
        return self._cdf(_points(t))

    def cdf_lt(self, t):
        """P(L < t) under P."""
        return self._cdf_lt(_points(t))

    def qsf(self, t):
        """Q(L > t)."""
        return self._qsf(_points(t))

    def qcdf(self, t):
        """Q(L ≤ t)."""
        return self._qcdf(_points(t))

    def _sf(self, t):  # pragma: no cover - abstract
        raise NotImplementedError(f"{type(self).__name__} is an abstract law: it has no probabilities")

    _sf_ge = _cdf = _cdf_lt = _qsf = _qcdf = _sf


class SymmetricLaw(Law):
    """A base pair whose Q-law of L is the P-law of −L (true for every additive-noise mechanism here)."""

    def _qsf(self, t):
        return self._cdf_lt(-t)

    def _qcdf(self, t):
        return self._sf_ge(-t)


class GaussianLaw(SymmetricLaw):
    """Gaussian mechanism N(0, σ²) vs N(Δ, σ²), parametrised by ρ = Δ²/(2σ²) (its zCDP parameter, and the mean of
    its privacy loss): L ~ N(ρ, 2ρ) under P (Balle & Wang 2018, Lemma 3; Dong, Roth & Su 2022, Gaussian
    differential privacy, where the same law is written N(μ²/2, μ²) with μ = Δ/σ = √(2ρ)). ρ, not μ, because the
    PLD accountant merges Gaussians by adding their ρ."""

    def __init__(self, rho: float):
        self.rho = check_positive(rho, "rho")  # (ρ = 0: identical laws, a FiniteLaw at 0; ρ = ∞: disjoint laws)
        self.sd = math.sqrt(2.0) * math.sqrt(self.rho)  # √2·√ρ = Δ/σ: 2ρ overflows for ρ near the double range
        self.hi = self.rho + Z_TAIL * self.sd
        self.lo = -self.hi

    def _sf(self, t):
        return special.ndtr((self.rho - np.asarray(t, dtype=float)) / self.sd)

    def _cdf(self, t):
        return special.ndtr((np.asarray(t, dtype=float) - self.rho) / self.sd)

    _sf_ge = _sf
    _cdf_lt = _cdf


class LaplaceLaw(SymmetricLaw):
    """Laplace mechanism with ε₀ = Δ/b: under P = Lap(0, b), L = ε₀ w.p. ½, L = −ε₀ w.p. ½e^{−ε₀}, and
    P(L > t) = 1 − ½e^{−(ε₀ − t)/2} for −ε₀ ≤ t < ε₀ (direct computation from L(z) = (|z − Δ| − |z|)/b)."""

    def __init__(self, eps0: float):
        self.e = check_positive(eps0, "eps0", allow_zero=True)  # (ε₀ = ∞: disjoint laws, see _blatant_law)
        self.lo, self.hi = -self.e, self.e

    def _mid(self, t):
        return 0.5 * np.exp(-(self.e - t) / 2.0)  # = P(L ≤ t) on the continuous part

    def _sf(self, t):
        t = np.asarray(t, dtype=float)
        with np.errstate(over="ignore"):
            return np.where(t < -self.e, 1.0, np.where(t >= self.e, 0.0, 1.0 - self._mid(t)))

    def _sf_ge(self, t):
        t = np.asarray(t, dtype=float)
        with np.errstate(over="ignore"):
            return np.where(t <= -self.e, 1.0, np.where(t > self.e, 0.0, 1.0 - self._mid(t)))

    def _cdf(self, t):
        t = np.asarray(t, dtype=float)
        with np.errstate(over="ignore"):
            return np.where(t < -self.e, 0.0, np.where(t >= self.e, 1.0, self._mid(t)))

    def _cdf_lt(self, t):
        t = np.asarray(t, dtype=float)
        with np.errstate(over="ignore"):
            return np.where(t <= -self.e, 0.0, np.where(t > self.e, 1.0, self._mid(t)))


class FiniteLaw(SymmetricLaw):
    """Finitely many loss values ``losses`` with P-masses ``masses`` (plus ``inf_mass`` at +∞, and by symmetry the
    same mass at −∞ under Q)."""

    def __init__(self, losses, masses, inf_mass: float = 0.0):
        losses = check_real_array(losses, "losses", ndim=1).astype(float)
        masses = check_real_array(masses, "masses", ndim=1).astype(float)
        if masses.shape != losses.shape:
            raise ValueError(f"masses has {masses.size} values and losses {losses.size}, which is not allowed: "
                             "must have one mass per loss.")
        if np.any((masses < 0) | (masses > 1)):
            bad = float(masses[(masses < 0) | (masses > 1)][0])
            raise ValueError(f"masses = {bad!r} is not allowed: every mass must be a number in [0, 1].")
        inf_mass = check_probability(inf_mass, "inf_mass")
        total = float(np.sum(masses)) + inf_mass
        if total > 1.0 + 1e-9:
            raise ValueError(f"masses and inf_mass sum to {total!r}, which is not allowed: must sum to at most 1.")
        self._setup(losses, masses, inf_mass)

    @classmethod
    def _unchecked(cls, losses, masses, inf_mass: float = 0.0) -> "FiniteLaw":
        """The law of the package's own mechanisms, built without the checks (their losses may be ±∞ where the
        mass is 0)."""
        law = cls.__new__(cls)
        law._setup(np.asarray(losses, dtype=float), np.asarray(masses, dtype=float), float(inf_mass))
        return law

    def _setup(self, losses: np.ndarray, masses: np.ndarray, inf_mass: float) -> None:
        order = np.argsort(losses)
        self.losses = losses[order]
        self.masses = masses[order]
        self.inf_mass = inf_mass
        # suffix[i] = Σ_{j ≥ i} masses[j] (summed from the small end up), prefix[i] = Σ_{j < i} masses[j]
        self._suffix = np.concatenate([np.cumsum(self.masses[::-1])[::-1], [0.0]])
        self._prefix = np.concatenate([[0.0], np.cumsum(self.masses)])
        self.lo, self.hi = float(self.losses[0]), float(self.losses[-1])

    def _sf(self, t):
        i = np.searchsorted(self.losses, np.asarray(t, dtype=float), side="right")
        return self._suffix[i] + self.inf_mass

    def _sf_ge(self, t):
        t = np.asarray(t, dtype=float)
        i = np.searchsorted(self.losses, t, side="left")
        return self._suffix[i] + self.inf_mass

    def _cdf(self, t):
        t = np.asarray(t, dtype=float)
        i = np.searchsorted(self.losses, t, side="right")
        return self._prefix[i] + np.where(t == np.inf, self.inf_mass, 0.0)

    def _cdf_lt(self, t):
        i = np.searchsorted(self.losses, np.asarray(t, dtype=float), side="left")
        return self._prefix[i]


class SubsampledLaw(Law):
    """Poisson subsampling with rate q of a symmetric base pair (P_b, Q_b), add/remove neighbours
    (Zhu, Dong & Wang 2022, Proposition 30; the form used by dp-accounting):

    * ``"remove"``: the pair ((1−q)Q_b + qP_b, Q_b), loss L = g(ℓ) = ln(1 − q + q e^ℓ);
    * ``"add"``: the pair (Q_b, (1−q)Q_b + qP_b), loss L = −g(ℓ);

    where ℓ is the base loss. Both are monotone in ℓ, so every probability is a base probability at
    s = g⁻¹(±t) = ln((e^{±t} − 1 + q)/q).

    A base atom ℓ = +∞ of mass δ₀ under P_b (an (ε, δ) pair) is, by symmetry, an atom ℓ = −∞ of mass δ₀ under
    Q_b, where L = g(−∞) = ln(1 − q) ("remove") or −g(−∞) = −ln(1 − q) ("add", then the largest loss, with
    P-mass δ₀): the range [lo, hi] includes it, or the pessimistic grid would send δ₀ instead of qδ₀ to +∞."""

    def __init__(self, base: SymmetricLaw, q: float, direction: str):
        if not isinstance(base, SymmetricLaw):
            raise TypeError(f"base = {base!r} is not allowed: must be a SymmetricLaw (GaussianLaw, LaplaceLaw, "
                            "FiniteLaw).")
        q = check_in_range(q, "q", 0.0, 1.0, low_inclusive=False, high_inclusive=False)
        check_choice(direction, "direction", ("remove", "add"))
        self.b, self.q, self.dir = base, q, direction
        self.l1q = math.log1p(-self.q)
        g = lambda x: float(np.logaddexp(self.l1q, math.log(self.q) + x))  # noqa: E731
        g_lo = self.l1q if base.inf_mass > 0 else g(base.lo)  # g(−∞) = ln(1 − q): Q_b's δ₀-atom
        if direction == "remove":
            self.inf_mass = self.q * base.inf_mass
            self.lo, self.hi = g_lo, g(base.hi)
        else:
            self.inf_mass = 0.0
            self.lo, self.hi = -g(base.hi), -g_lo

    def _ginv(self, u):
        # s = ln((e^u − (1 − q))/q) for u > ln(1−q); −∞ otherwise
        u = np.asarray(u, dtype=float)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            # e^u − (1−q) = (1−q)·expm1(u − ln(1−q))
            s = self.l1q + np.log(np.expm1(u - self.l1q)) - math.log(self.q)
        return np.where(u > self.l1q, s, -np.inf)

    def _sf(self, t):
        t = np.asarray(t, dtype=float)
        b, q = self.b, self.q
        if self.dir == "remove":
            s = self._ginv(t)
            return np.where(t < self.l1q, 1.0, (1 - q) * b._cdf_lt(-s) + q * b._sf(s))
        return np.where(t >= -self.l1q, 0.0, b._sf(-self._ginv(-t)))  # −ln(1 − q) is the largest loss

    def _sf_ge(self, t):
        t = np.asarray(t, dtype=float)
        b, q = self.b, self.q
        if self.dir == "remove":
            s = self._ginv(t)
            return np.where(t < self.l1q, 1.0, (1 - q) * b._cdf(-s) + q * b._sf_ge(s))
        return np.where(t > -self.l1q, 0.0, b._sf_ge(-self._ginv(-t)))

    def _cdf(self, t):
        t = np.asarray(t, dtype=float)
        b, q = self.b, self.q
        if self.dir == "remove":
            s = self._ginv(t)
            return np.where(t < self.l1q, 0.0, (1 - q) * b._sf_ge(-s) + q * b._cdf(s))
        return b._cdf(-self._ginv(-t))

    def _cdf_lt(self, t):
        t = np.asarray(t, dtype=float)
        b, q = self.b, self.q
        if self.dir == "remove":
            s = self._ginv(t)
            return np.where(t < self.l1q, 0.0, (1 - q) * b._sf(-s) + q * b._cdf_lt(s))
        return np.where(t > -self.l1q, 1.0, b._cdf_lt(-self._ginv(-t)))

    def _qsf(self, t):
        t = np.asarray(t, dtype=float)
        b, q = self.b, self.q
        if self.dir == "remove":  # Q = Q_b: Q_b(ℓ > s)
            s = self._ginv(t)
            return np.where(t < self.l1q, 1.0, b._cdf_lt(-s))
        s = self._ginv(-t)  # Q = (1−q)Q_b + qP_b: P(ℓ < s)
        return np.where(t >= -self.l1q, 0.0, (1 - q) * b._sf(-s) + q * b._cdf_lt(s))

    def _qcdf(self, t):
        t = np.asarray(t, dtype=float)
        b, q = self.b, self.q
        if self.dir == "remove":
            s = self._ginv(t)
            return np.where(t < self.l1q, 0.0, b._sf_ge(-s))
        s = self._ginv(-t)
        return (1 - q) * b._cdf(-s) + q * b._sf_ge(s)


# ----------------------------------------------------------------------------------------------------------------
# Discretisation
# ----------------------------------------------------------------------------------------------------------------


def discretise(law: Law, h: float, pessimistic: bool):
    """Put the loss law on the grid {i·h}; returns ``(lo_index, masses, inf_mass)``.

    Pessimistic: "connect the dots" (Doroshenko et al. 2022, Section 3): the P-mass M
    and Q-mass W of each bucket (a, b] are split between a and b so that both are preserved,
    m_b = (M − W e^a)/(1 − e^{−h}), m_a = M − m_b; as the hockey-stick divergence is convex in e^{−L}, this
    mean-preserving spread can only increase δ(ε) for every ε, and the error is second order in h. Mass below the
    range is rounded up to its lower end and mass above it goes to +∞ (both pessimistic, exact amounts).

    Bucket masses come from survival differences where the survival is below ½ and from CDF differences
    elsewhere, so both tails keep their relative precision.

    Optimistic (a hypothesis test, so a proven lower bound): every outcome is mapped to the grid index of its
    loss rounded down (bucket (a, a + h] → a, everything ≤ the range start → its first point, everything above the
    range end but finite → its last point, +∞ kept apart). The exact P-mass ``p`` and Q-mass of each index are
    returned, the Q-mass as ``pt`` = Q-mass · e^{a} (same scale as ``p``, so it composes by FFT like ``p``). For a
    composition, the Neyman–Pearson form δ(ε) = sup_S P(S) − e^ε Q(S) with the tests S_τ = {some step has
    L = +∞, or Σ indices > τ} gives δ(ε) ≥ max_τ [P(S_τ) − e^ε Q(S_τ)], where Q(Σ indices = s) = e^{−s h}·(⊛ pt)_s.
    Rounding every loss down by up to h only shifts the statistic, and the threshold τ absorbs that shift, so
    this bound is far tighter than rounding down the loss itself ("privacy buckets", Meiser & Mohammadi 2018, whose
    error ≈ k·h/2 grows with the number of compositions). Returns ``(lo_index, p, inf_mass, pt)``.

    ``h`` in :data:`STEP`, and the law's range [lo, hi] may span at most :data:`DISCRETISE_POINTS`
    steps; a ValueError names ``h`` and the cap otherwise.
    """
    if not isinstance(law, Law) or type(law)._sf is Law._sf:
        raise TypeError(f"law = {law!r} is not allowed: must be a law (GaussianLaw, LaplaceLaw, FiniteLaw, "
                        "SubsampledLaw).")
    h = STEP.check(h, "h")
    if not isinstance(pessimistic, (bool, np.bool_)):
        raise TypeError(f"pessimistic = {pessimistic!r} is not allowed: must be True or False.")
    with np.errstate(over="ignore"):
        n = (law.hi - law.lo) / h + 3.0
    if not n <= DISCRETISE_POINTS.limit:
        raise ValueError(f"h = {h!r} is not allowed for this law: its loss range [{law.lo:g}, {law.hi:g}] would need "
                         f"{n:.4g} grid points, more than {DISCRETISE_POINTS.limit} (the cap on "
                         f"{DISCRETISE_POINTS.what}).")
    return _discretise(law, h, bool(pessimistic))


def _discretise(law: Law, h: float, pessimistic: bool):
    """:func:`discretise` without the checks (the PLD accountant's grids are within its budget)."""
    i_lo = math.floor(law.lo / h)
    # one step beyond ⌈hi/h⌉: a largest loss that rounded below its true value (a subnormal loss computed as 0)
    # must not end up beyond the range, where the pessimistic side would count it as +∞
    i_hi = max(math.ceil(law.hi / h), i_lo) + 1
    t = np.arange(i_lo, i_hi + 1) * h
    if pessimistic:
        sf_t = law._sf(t)
        cdf_t = law._cdf(t)
        a = t[:-1]
        m = np.where(sf_t[:-1] < 0.5, sf_t[:-1] - sf_t[1:], cdf_t[1:] - cdf_t[:-1])
        m = np.maximum(m, 0.0)
        qsf_t = law._qsf(t)
        qcdf_t = law._qcdf(t)
        w = np.where(qsf_t[:-1] < 0.5, qsf_t[:-1] - qsf_t[1:], qcdf_t[1:] - qcdf_t[:-1])
        w = np.maximum(w, 0.0)
        with np.errstate(divide="ignore", over="ignore"):
            w_ea = np.exp(np.log(w) + a)  # Q-mass · e^a, without 0·inf for large a
        mb = (m - w_ea) / (-math.expm1(-h))
        mb = np.clip(mb, 0.0, m)
        ma = m - mb
        p = np.zeros(t.size)
        p[0] = cdf_t[0]
        p[:-1] += ma
        p[1:] += mb
        inf = float(sf_t[-1])  # P(L > hi), which includes the +∞ atom
        return i_lo, p, inf
    sf_t = law._sf(t)
    cdf_t = law._cdf(t)
    m = np.where(sf_t[:-1] < 0.5, sf_t[:-1] - sf_t[1:], cdf_t[1:] - cdf_t[:-1])
    qsf_t = law._qsf(t)
    qcdf_t = law._qcdf(t)
    w = np.where(qsf_t[:-1] < 0.5, qsf_t[:-1] - qsf_t[1:], qcdf_t[1:] - qcdf_t[:-1])
    p = np.zeros(t.size)
    q = np.zeros(t.size)
    p[:-1] = np.maximum(m, 0.0)
    q[:-1] = np.maximum(w, 0.0)
    p[0] += cdf_t[0]
    q[0] += qcdf_t[0]
    p[-1] += max(float(sf_t[-1]) - law.inf_mass, 0.0)
    q[-1] += float(qsf_t[-1])
    with np.errstate(divide="ignore", over="ignore"):
        pt = np.exp(np.log(q) + t)  # Q-mass · e^{a}, without 0·inf for large a
    return i_lo, p, float(law.inf_mass), pt


# ----------------------------------------------------------------------------------------------------------------
# Laws of single mechanisms
# ----------------------------------------------------------------------------------------------------------------


def discrete_laplace_loss(scale: float, sensitivity: int) -> tuple[np.ndarray, np.ndarray]:
    """Exact privacy loss of the discrete Laplace mechanism (pmf ∝ e^{−|k|/b}, shift Δ): losses ``l`` and their
    log-probabilities under P = DLap(0): l = Δt w.p. 1/(1+e^{−t}), l = (Δ−2j)t w.p. tanh(t/2)e^{−jt} for
    0 < j < Δ, and l = −Δt w.p. e^{−Δt}/(1+e^{−t}), with t = 1/b (direct computation from the pmf)."""
    scale = check_positive(scale, "scale")
    if 1.0 / scale == math.inf:
        raise ValueError(f"scale = {scale!r} is not allowed: 1/scale overflows (the noise is a point mass: the "
                         "neighbouring laws are disjoint).")
    sensitivity = DLAP_SENSITIVITY.check(sensitivity, "sensitivity")
    return _discrete_laplace_loss(scale, sensitivity)


def _discrete_laplace_loss(scale: float, sensitivity: int) -> tuple[np.ndarray, np.ndarray]:
    t = 1.0 / scale
    d = int(sensitivity)
    j = np.arange(1, d)
    with np.errstate(over="ignore", under="ignore"):
        losses = np.concatenate([[d * t], (d - 2 * j) * t, [-d * t]])
        log_p = np.concatenate(
            [
                [-np.logaddexp(0.0, -t)],
                np.log(np.tanh(t / 2.0)) - j * t,
                [-d * t - np.logaddexp(0.0, -t)],
            ]
        )
    return losses, log_p


def _rr_law(eps: float, delta: float = 0.0) -> FiniteLaw:
    # randomized response / the canonical (ε, δ) pair (Kairouz, Oh & Viswanath 2015): +∞ w.p. δ, ±ε otherwise
    if eps == 0:
        return FiniteLaw._unchecked([0.0], [1.0 - delta], inf_mass=delta)
    if eps == math.inf:
        return _blatant_law()
    hi = (1.0 - delta) * float(special.expit(eps))  # 1/(1 + e^{−ε}) without overflow of e^ε
    lo = (1.0 - delta) * float(special.expit(-eps))
    return FiniteLaw._unchecked([-eps, eps], [lo, hi], inf_mass=delta)


def _blatant_law() -> FiniteLaw:
    """A mechanism whose neighbouring output laws are disjoint (in double precision): L = +∞ with probability 1
    (a Gaussian or Laplace with Δ/scale = ∞, a discrete mechanism whose noise is a point mass)."""
    return FiniteLaw._unchecked([0.0], [0.0], inf_mass=1.0)


def _dlap_law(scale: float, sensitivity: int) -> FiniteLaw:
    if 1.0 / scale == math.inf:  # e^{−|k|/scale} is a point mass at 0
        return _blatant_law()
    losses, log_p = _discrete_laplace_loss(scale, sensitivity)
    with np.errstate(under="ignore"):
        return FiniteLaw._unchecked(losses, np.exp(log_p))


def _dgauss_law(sigma: float, sensitivity: int) -> FiniteLaw:
    # P = DG(0, σ²), Q = DG(Δ, σ²): L(k) = (Δ² − 2kΔ)/(2σ²). Support truncated to |k| ≤ 12σ + Δ + 2 (mass outside
    # < 1e-31), normalised on the truncated support. For σ so small that 1/σ overflows the noise is a point mass
    # at 0 and the two laws are disjoint.
    if 1.0 / sigma == math.inf:
        return _blatant_law()
    d = int(sensitivity)
    kmax = int(math.ceil(12.0 * sigma)) + d + 2
    k = np.arange(-kmax, kmax + 1, dtype=float)
    with np.errstate(over="ignore", under="ignore"):
        logw = -0.5 * (k / sigma) ** 2
        p = np.exp(logw - special.logsumexp(logw))
        losses = 0.5 * (d / sigma) * ((d - 2.0 * k) / sigma)  # may overflow to ±∞ for a tiny σ: then p = 0 there
    return FiniteLaw._unchecked(losses, p)


def _tdlap_law(eps: float, kappa: int) -> FiniteLaw:
    # Ghazi et al. 2023 (user-level DP with few examples per user), Def 8: P ∝ e^{−ε|x−κ|} on {0..2κ}, Q the
    # same shifted by 1 (sensitivity 1).
    # L = +∞ at x = 0, +ε for 1 ≤ x ≤ κ, −ε for κ+1 ≤ x ≤ 2κ.
    x = np.arange(0, 2 * kappa + 1)
    with np.errstate(over="ignore", under="ignore"):
        w = np.exp(-eps * np.abs(x - kappa))
    w = w / w.sum()
    return FiniteLaw._unchecked([eps, -eps], [w[1 : kappa + 1].sum(), w[kappa + 1 :].sum()],
                                inf_mass=float(w[0]))


def _gaussian_law(rho: float):
    """The Gaussian law with loss mean ρ = Δ²/(2σ²) (ρ = ∞: disjoint laws; ρ = 0, Δ/σ underflowed: identical
    laws, L = 0)."""
    if rho == 0.0:
        return FiniteLaw._unchecked([0.0], [1.0])
    return _blatant_law() if rho == math.inf else GaussianLaw(rho)

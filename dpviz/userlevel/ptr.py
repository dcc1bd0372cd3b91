"""Approximate user-level DP by propose–test–release: TDLap, κ, hockey-stick, LDDP and DelStab (Section 3 of 000).

Conventions pinned here (digest pitfall 6):

* κ(ε, δ) = 1 + ⌈ln(1/δ)/ε⌉ with the natural log (Definition 8 of 000);
* TDLap(ε, δ) lives on {0, 1, …, 2κ} (2κ + 1 points) with pmf ∝ exp(−ε·|r − κ|);
* Algorithm 1 uses ε̄ = ε/3 and **δ̄ = δ/(e^{2ε̄} + e^{ε̄} + 2)** — the denominator of the privacy proof
  (Appendix C.4 of 000: the total is (e^{2ε̄}+e^{ε̄}+2)·δ̄ + e^{3ε̄}·Pr[·] ≤ δ + e^{ε}·Pr[·]). The HTML text prints
  e^{ε} instead of e^{ε̄} in that denominator (a smaller δ̄, also valid); ``convention="printed"`` gives it. κ is computed
  from (ε̄, δ̄). Example: (ε, δ) = (1, 10⁻⁶) gives κ = 48 with the pinned convention, 49 with the printed one.

References
----------
Ghazi et al., NeurIPS 2023 (``000_eed7e3c6d3636c79.txt``; cleaner formulas in ``002_cb803dc4c7c951f7.txt``):
Definition 8 (TDLap), Definition 16 (LDDP), Algorithm 1 and Lemma 18 (DelStab), Theorem 7 (subsampling).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from dpviz._validation import (
    as_rng,
    check_array,
    check_choice,
    check_delta,
    check_integer,
    check_positive,
)

from .data import UserDataset

__all__ = [
    "kappa",
    "tdlap_pmf",
    "tdlap_sample",
    "DelStabParameters",
    "delstab_parameters",
    "hockey_stick",
    "approx_eq",
    "is_lddp",
    "NoisySum",
    "DelStab",
    "BOTTOM",
    "subsample_users",
    "subsampling_amplification",
]

#: The output ⊥ ("no stable set found") of DelStab; last entry of ``DelStab.outputs``.
BOTTOM = "⊥"


# ---------------------------------------------------------------------------------------------- TDLap and κ
def kappa(epsilon: float, delta: float) -> int:
    """κ(ε, δ) = 1 + ⌈ln(1/δ)/ε⌉ (Definition 8 of 000; natural log).

    Parameters
    ----------
    epsilon : float
        ε > 0.
    delta : float
        δ in (0, 1).

    Examples
    --------
    >>> kappa(1.0, 1e-6), kappa(0.5, 0.01)
    (15, 11)
    """
    epsilon = check_positive(epsilon, "epsilon")
    delta = check_delta(delta, "delta", allow_zero=False)
    return 1 + math.ceil(math.log(1.0 / delta) / epsilon)


def tdlap_pmf(epsilon: float, delta: float) -> np.ndarray:
    """pmf of TDLap(ε, δ) on r = 0, 1, …, 2κ: p(r) = exp(−ε|r − κ|)/Z (Definition 8 of 000).

    Returns an array of length 2κ + 1 indexed by r (so ``np.arange(len(p))`` is the support and κ = (len − 1)/2).
    Properties used in Lemma 18: p(r)/p(r ± 1) ∈ [e^{−ε}, e^{ε}] and the end masses p(0) = p(2κ) ≤ e^{−ε}δ ≤ δ.
    The same law as ``dpviz.mechanisms.TruncatedDiscreteLaplace(epsilon, delta)`` (whose noise is r − κ).

    Examples
    --------
    >>> p = tdlap_pmf(1.0, 0.1)
    >>> len(p), bool(p[0] <= 0.1), round(float(p.sum()), 12)
    (9, True, 1.0)
    """
    k = kappa(epsilon, delta)
    r = np.arange(2 * k + 1)
    w = np.exp(-epsilon * np.abs(r - k))
    return w / w.sum()


def tdlap_sample(epsilon: float, delta: float, size: Any = None, rng: Any = None) -> Any:
    """Draw R ∼ TDLap(ε, δ) ∈ {0, …, 2κ} (ALG-1; Definition 8 of 000). Exact inverse-cdf sampling of the pmf.

    Returns an int when ``size is None``, else an int array of shape ``size``.

    >>> r = tdlap_sample(1.0, 0.1, size=1000, rng=0)
    >>> int(r.min()) >= 0 and int(r.max()) <= 2 * kappa(1.0, 0.1)
    True
    """
    p = tdlap_pmf(epsilon, delta)
    gen = as_rng(rng)
    out = gen.choice(len(p), size=size, p=p)
    return int(out) if size is None else out.astype(np.int64)


class DelStabParameters(NamedTuple):
    """(ε̄, δ̄, κ) of Algorithm 1 of 000; unpacks as a 3-tuple. ``discarded`` = 4κ users always deleted."""

    epsilon_bar: float
    delta_bar: float
    kappa: int

    @property
    def discarded(self) -> int:
        """4κ: DelStab always deletes this many users; it needs n ≥ 4κ."""
        return 4 * self.kappa

    @property
    def min_users(self) -> int:
        """Smallest n accepted by DelStab (= 4κ; the inner algorithm then sees n − 4κ ≥ 0 users)."""
        return 4 * self.kappa


def delstab_parameters(epsilon: float, delta: float, *, convention: str = "proof") -> DelStabParameters:
    """ε̄ = ε/3, δ̄ = δ/(e^{2ε̄} + e^{ε̄} + 2), κ = κ(ε̄, δ̄) (Algorithm 1 of 000, line 1; digest pitfall 6).

    Parameters
    ----------
    epsilon, delta : float
        The user-level target (ε > 0, δ in (0, 1)).
    convention : {"proof", "printed"}
        ``"proof"`` (default, pinned in dpviz): δ̄ = δ/(e^{2ε̄}+e^{ε̄}+2), exactly what Lemma 18's proof needs.
        ``"printed"``: δ̄ = δ/(e^{2ε̄}+e^{ε}+2) as printed in the HTML text (smaller δ̄, κ larger by at most one).

    Examples
    --------
    >>> p = delstab_parameters(1.0, 1e-6)
    >>> round(p.epsilon_bar, 4), p.kappa, p.discarded, delstab_parameters(1.0, 1e-6, convention="printed").kappa
    (0.3333, 48, 192, 49)
    """
    epsilon = check_positive(epsilon, "epsilon")
    delta = check_delta(delta, "delta", allow_zero=False)
    check_choice(convention, "convention", ("proof", "printed"))
    eb = epsilon / 3.0
    third = math.exp(eb) if convention == "proof" else math.exp(epsilon)
    db = delta / (math.exp(2.0 * eb) + third + 2.0)
    return DelStabParameters(eb, db, kappa(eb, db))


# ---------------------------------------------------------------------------------------------- divergences
def hockey_stick(a: Any, b: Any, epsilon: float) -> float:
    """d_ε(A‖B) = Σ_{o ∈ supp(A)} [A(o) − e^{ε}·B(o)]_+ on a common finite output space (Preliminaries of 000).

    ``a`` and ``b`` are pmfs (non-negative, same shape; they need not be normalised exactly). Computed as
    Σ max(a − e^{ε} b, 0), which equals the sum over supp(A) because the terms with A(o) = 0 are ≤ 0. ε may be negative.

    >>> hockey_stick([0.5, 0.5], [1.0, 0.0], 0.0)
    0.5
    """
    eps = float(epsilon)
    if not math.isfinite(eps):
        raise ValueError(f"epsilon = {epsilon!r} is not allowed: must be a finite number.")
    pa = check_array(a, "a", dtype=float)
    pb = check_array(b, "b", dtype=float)
    if pa.shape != pb.shape:
        raise ValueError(f"a has shape {pa.shape} which is not allowed: must match b's shape {pb.shape}.")
    if np.any(pa < 0) or np.any(pb < 0):
        raise ValueError("a and b contain negative masses, which is not allowed: must be pmfs.")
    return float(np.sum(np.maximum(pa - math.exp(eps) * pb, 0.0)))


def approx_eq(a: Any, b: Any, epsilon: float, delta: float, *, tol: float = 0.0) -> bool:
    """A ≈_{ε,δ} B iff d_ε(A‖B) ≤ δ AND d_ε(B‖A) ≤ δ (two-sided; digest pitfall 2).

    ``tol`` is an optional absolute slack for floating-point round-off (default 0: the plain float comparison).

    >>> approx_eq([0.6, 0.4], [0.5, 0.5], 0.2, 0.02), approx_eq([0.9, 0.1], [0.5, 0.5], 0.2, 0.1)
    (True, False)
    """
    check_positive(delta, "delta", allow_zero=True)
    return bool(
        hockey_stick(a, b, epsilon) <= delta + tol and hockey_stick(b, a, epsilon) <= delta + tol
    )


def is_lddp(
    algorithm: Callable[[UserDataset], Any],
    dataset: UserDataset,
    r: int,
    epsilon: float,
    delta: float,
) -> bool:
    """Whether A is (r, ε, δ)-local-deletion DP at x (Definition 16 of 000; ALG-3), by brute force.

    Checks A(x_{−S}) ≈_{ε,δ} A(x_{−S′}) for all S, S′ ⊆ [n] with |S| = |S′| = r. ``algorithm(dataset)`` must return
    the EXACT output pmf (an array over a fixed finite output space). Cost: C(n, r) pmf evaluations and C(n, r)²
    divergence checks — exponential, for small instances only. r = 0 is trivially true; r = n is not allowed.

    Examples
    --------
    >>> toy = NoisySum(epsilon0=1.0, high=6)
    >>> x = UserDataset.from_array([[0, 1], [1, 1], [0, 0]])
    >>> is_lddp(toy.pmf, x, 1, 2.5, 0.0), is_lddp(toy.pmf, x, 1, 1.0, 0.0)
    (True, False)
    """
    n = dataset.n_users
    r = check_integer(r, "r", minimum=0, maximum=n - 1)
    check_positive(epsilon, "epsilon", allow_zero=True)
    check_positive(delta, "delta", allow_zero=True)
    if r == 0:
        return True
    pmfs = [np.asarray(algorithm(dataset.remove_users(S)), dtype=float) for S in itertools.combinations(range(n), r)]
    return _all_pairs_close(np.stack(pmfs), epsilon, delta)


def _all_pairs_close(pmfs: np.ndarray, epsilon: float, delta: float) -> bool:
    """All ordered pairs (i, j) of rows satisfy d_ε(P_i‖P_j) ≤ δ (which covers both directions)."""
    e = math.exp(epsilon)
    for i in range(pmfs.shape[0]):
        d = np.maximum(pmfs[i][None, :] - e * pmfs, 0.0).sum(axis=1)
        if np.any(d > delta):
            return False
    return True


# ---------------------------------------------------------------------------------------------- the toy inner algorithm
@dataclasses.dataclass(frozen=True)
class NoisySum:
    """The digest's DelStab toy: A(y) = clamp(Σ items + Z, 0, high), Z two-sided geometric with P(z) ∝ e^{−ε₀|z|}.

    Items are integers in {0, …, item_max}; A is (ε₀·item_max)-item-level DP (the discrete Laplace mechanism, Ghosh,
    Roughgarden & Sundararajan 2009; clamping to the fixed output space {0, …, high} is post-processing). Its output
    pmf depends on the data only through the total s = Σ items, and is computed EXACTLY in closed form:
    P(o) = e^{−ε₀|o−s|}·(1−q)/(1+q) for 0 < o < high, with the two tails q^{s}/(1+q)·… folded onto 0 and high
    (q = e^{−ε₀}). That is what makes DelStab's stability test exact (digest ALG-4 note, pitfall 8).

    Parameters
    ----------
    epsilon0 : float
        Noise parameter ε₀ > 0.
    high : int
        Largest output; outputs are {0, …, high}.
    item_max : int
        Largest item value (item-level sensitivity), default 1 (bits).
    """

    epsilon0: float
    high: int
    item_max: int = 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon0", check_positive(self.epsilon0, "epsilon0"))
        object.__setattr__(self, "high", check_integer(self.high, "high", minimum=1))
        object.__setattr__(self, "item_max", check_integer(self.item_max, "item_max", minimum=1))

    @property
    def outputs(self) -> np.ndarray:
        """The finite output space {0, …, high}."""
        return np.arange(self.high + 1)

    @property
    def item_epsilon(self) -> float:
        """Item-level pure ε of A: ε₀·item_max."""
        return self.epsilon0 * self.item_max

    def pmf_of_sum(self, total: Any) -> np.ndarray:
        """Exact output pmf for total sum(s) ``total`` (scalar → (high+1,), array → (..., high+1))."""
        s = np.asarray(total, dtype=float)[..., None]
        o = np.arange(self.high + 1, dtype=float)
        q = math.exp(-self.epsilon0)
        c = (1.0 - q) / (1.0 + q)
        p = c * np.exp(-self.epsilon0 * np.abs(o - s))
        # P(s + Z ≤ 0) = F(−s) and P(s + Z ≥ high) = 1 − F(high − s − 1), F the cdf of Z:
        # F(t) = q^{|t|}/(1+q) for t < 0 and 1 − q^{t+1}/(1+q) for t ≥ 0 (no overflow: exponents are ≤ 0).
        lo = self._cdf(-s[..., 0], q)
        hi = 1.0 - self._cdf(self.high - s[..., 0] - 1.0, q)
        p[..., 0] = lo
        p[..., -1] = hi
        return p

    def _cdf(self, t: np.ndarray, q: float) -> np.ndarray:
        a = np.exp(-self.epsilon0 * np.abs(t)) / (1.0 + q)
        return np.where(t < 0, a, 1.0 - q * a)

    def pmf(self, dataset: UserDataset) -> np.ndarray:
        """Exact output pmf of A on ``dataset`` (depends only on its total sum)."""
        return self.pmf_of_sum(self._total(dataset))

    def run(self, dataset: UserDataset, rng: Any = None) -> int:
        """One noisy release: clamp(Σ items + Z, 0, high)."""
        gen = as_rng(rng)
        q = math.exp(-self.epsilon0)
        z = int(gen.geometric(1.0 - q) - gen.geometric(1.0 - q))
        return int(min(max(self._total(dataset) + z, 0), self.high))

    def _total(self, dataset: UserDataset) -> int:
        items = dataset.items()
        if np.any(items < 0) or np.any(items > self.item_max) or np.any(items != np.round(items)):
            raise ValueError(
                f"dataset items are not allowed: must be integers in [0, {self.item_max}] (item_max) for NoisySum."
            )
        return int(items.sum())


# ---------------------------------------------------------------------------------------------- DelStab
@dataclasses.dataclass(frozen=True)
class DelStab:
    """DelStab_{ε,δ,A}: Algorithm 1 of 000 (ALG-4), propose–test–release on local-deletion stability.

    1. ε̄ = ε/3, δ̄ = δ/(e^{2ε̄}+e^{ε̄}+2) (pinned, see module docstring), κ = κ(ε̄, δ̄); requires n ≥ 4κ.
    2. R₁ ∼ TDLap(ε̄, δ̄).
    3. X_stable = {S ⊆ [n] : |S| = R₁ and A is (4κ − R₁, ε̄, δ̄)-LDDP at x_{−S}}.
    4. If X_stable = ∅ return ⊥.
    5–6. S uniform in X_stable; T = S ∪ (uniform (4κ − R₁)-subset of [n]∖S).
    7. Return A(x_{−T}) (A always sees exactly n − 4κ users).

    Lemma 18: (ε, δ)-user-level DP for EVERY A, provided the stability test is exact — here it is computed on exact
    pmfs (no Monte-Carlo anywhere). The inner algorithm must be a :class:`NoisySum` (or any object with the same
    ``pmf_of_sum``/``outputs``/``run`` interface whose output law depends only on the total sum): then x_{−T} matters
    only through its sum and X_stable is enumerated by per-user-sum *types*, which keeps the computation polynomial.

    Parameters
    ----------
    epsilon, delta : float
        User-level target ε > 0, δ in (0, 1).
    algorithm : NoisySum
        The inner algorithm A.
    """

    epsilon: float
    delta: float
    algorithm: NoisySum

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_positive(self.epsilon, "epsilon"))
        object.__setattr__(self, "delta", check_delta(self.delta, "delta", allow_zero=False))

    @property
    def parameters(self) -> DelStabParameters:
        """(ε̄, δ̄, κ) of line 1."""
        return delstab_parameters(self.epsilon, self.delta)

    @property
    def outputs(self) -> list:
        """Output labels: the inner algorithm's outputs followed by ``BOTTOM`` (⊥)."""
        return list(self.algorithm.outputs.tolist()) + [BOTTOM]

    def output_pmf(self, dataset: UserDataset) -> np.ndarray:
        """Exact output pmf of DelStab on ``dataset`` over ``outputs`` (last entry = Pr[⊥])."""
        raise NotImplementedError

    def stable_probability(self, dataset: UserDataset) -> np.ndarray:
        """For each r = 0..2κ, whether X_stable^{r} ≠ ∅ (bool array) — the test's answer per value of R₁."""
        raise NotImplementedError

    def run(self, dataset: UserDataset, rng: Any = None) -> Any:
        """One run of Algorithm 1: returns an output of A or ``BOTTOM``."""
        raise NotImplementedError


# ---------------------------------------------------------------------------------------------- subsampling (Theorem 7)
def subsample_users(dataset: UserDataset, size: int, *, rng: Any = None) -> UserDataset:
    """Keep ``size`` of the n units chosen uniformly WITHOUT replacement (the wrapper of Theorem 7 / ALG-5 of 000).

    Running an (ε, δ)-DP algorithm on the subsample is (ε′, δ′)-DP for substitution neighbours, with
    ε′ = ln(1 + η(e^{ε} − 1)), δ′ = ηδ, η = size/n: see :func:`subsampling_amplification`.

    >>> x = UserDataset.bernoulli(10, 2, rng=1)
    >>> subsample_users(x, 4, rng=0).n_users
    4
    """
    size = check_integer(size, "size", minimum=1, maximum=dataset.n_users)
    gen = as_rng(rng)
    idx = np.sort(gen.choice(dataset.n_users, size=size, replace=False))
    return dataset.select_users(idx.tolist())


def subsampling_amplification(epsilon: float, delta: float, size: int, population: int) -> tuple[float, float]:
    """(ε′, δ′) = (ln(1 + η(e^{ε} − 1)), ηδ), η = size/population (Theorem 7 of 000, [BBG18]).

    Sampling ``size`` of ``population`` units uniformly without replacement, substitution neighbours (digest
    pitfall 10: not the Poisson formula). Delegates to ``dpviz.accountants.SampledWithoutReplacement`` when present.

    >>> eps, dl = subsampling_amplification(1.0, 1e-6, 10, 100)
    >>> round(eps, 10) == round(math.log1p(0.1 * math.expm1(1.0)), 10), dl
    (True, 1e-07)
    """
    epsilon = check_positive(epsilon, "epsilon", allow_zero=True)
    delta = check_delta(delta, "delta")
    population = check_integer(population, "population", minimum=1)
    size = check_integer(size, "size", minimum=1, maximum=population)
    eta = size / population
    return math.log1p(eta * math.expm1(epsilon)), eta * delta

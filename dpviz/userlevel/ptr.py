"""Approximate user-level DP by propose–test–release: TDLap, κ, hockey-stick, LDDP and DelStab (Section 3 of
Ghazi et al. 2023).

Conventions pinned here:

* κ(ε, δ) = 1 + ⌈ln(1/δ)/ε⌉ with the natural log (Definition 8 of Ghazi et al. 2023);
* TDLap(ε, δ) lives on {0, 1, …, 2κ} (2κ + 1 points) with pmf ∝ exp(−ε·|r − κ|);
* Algorithm 1 uses ε̄ = ε/3 and **δ̄ = δ/(e^{2ε̄} + e^{ε̄} + 2)** — the denominator of the privacy proof
  (Appendix C.4 of Ghazi et al. 2023: the total is (e^{2ε̄}+e^{ε̄}+2)·δ̄ + e^{3ε̄}·Pr[·] ≤ δ + e^{ε}·Pr[·]). Algorithm 1
  (line 3) prints e^{ε} instead of e^{ε̄} in that denominator (a smaller δ̄, also valid); ``convention="printed"``
  gives it. κ is computed from (ε̄, δ̄). Example: (ε, δ) = (1, 10⁻⁶) gives κ = 48 with the pinned convention, 49
  with the printed one.

References
----------
Ghazi et al. 2023 (NeurIPS 2023): Definition 8 (TDLap), Definition 16 (LDDP), Algorithm 1 and Lemma 18 (DelStab),
Theorem 7 (subsampling).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np
from scipy import stats

from dpviz._validation import (
    Cap,
    as_rng,
    check_choice,
    check_delta,
    check_in_range,
    check_integer,
    check_positive,
)
from dpviz.accountants import amplify_without_replacement
from dpviz.mechanisms import TruncatedDiscreteLaplace

from .data import (
    BRUTE_VISITS,
    CELLS,
    KAPPA,
    MAGNITUDE,
    OUTPUTS,
    SUBSETS,
    SWAP_M,
    WORK,
    UserDataset,
    check_dataset,
    check_epsilon,
    check_finite,
    check_scale,
    real_array,
)

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
    "swap_difference_pmf",
    "pmf_quantile",
    "discard_curves",
]

#: The output ⊥ ("no stable set found") of DelStab; last entry of ``DelStab.outputs``.
BOTTOM = "⊥"


# ---------------------------------------------------------------------------------------------- TDLap and κ

def kappa(epsilon: float, delta: float) -> int:
    """κ(ε, δ) = 1 + ⌈ln(1/δ)/ε⌉ (Definition 8 of Ghazi et al. 2023; natural log).

    Wraps ``dpviz.mechanisms.TruncatedDiscreteLaplace(epsilon, delta).kappa``. For DelStab call it with (ε̄, δ̄)
    (see :func:`delstab_parameters`), not with the user-level (ε, δ).

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
    return int(TruncatedDiscreteLaplace(epsilon, delta).kappa)


def tdlap_pmf(epsilon: float, delta: float) -> np.ndarray:
    """pmf of TDLap(ε, δ) on r = 0, 1, …, 2κ: p(r) = exp(−ε|r − κ|)/Z (Definition 8 of Ghazi et al. 2023).

    Returns an array of length 2κ + 1 indexed by r (so ``np.arange(len(p))`` is the support and κ = (len − 1)/2).
    Properties used in Lemma 18: p(r)/p(r ± 1) ∈ [e^{−ε}, e^{ε}] and the end masses p(0) = p(2κ) ≤ e^{−ε}δ ≤ δ.
    Wraps ``dpviz.mechanisms.TruncatedDiscreteLaplace(epsilon, delta).pmf`` (whose centred noise is r − κ).

    Examples
    --------
    >>> p = tdlap_pmf(1.0, 0.1)
    >>> len(p), bool(p[0] <= 0.1), round(float(p.sum()), 12)
    (9, True, 1.0)
    """
    k = kappa(epsilon, delta)
    if k > KAPPA.limit:
        raise ValueError(
            f"epsilon = {epsilon!r}, delta = {delta!r} are not allowed here: κ = {k} must be <= {KAPPA.limit} "
            "(the cap on κ) to build the TDLap pmf on {0, …, 2κ}; use a larger ε or δ."
        )
    r = np.arange(2 * k + 1)
    p = np.asarray(TruncatedDiscreteLaplace(float(epsilon), float(delta)).pmf(r, value=k), dtype=float)
    return p / p.sum()


def tdlap_sample(epsilon: float, delta: float, size: Any = None, rng: Any = None) -> Any:
    """Draw R ∼ TDLap(ε, δ) ∈ {0, …, 2κ} (Definition 8 of Ghazi et al. 2023).

    Wraps ``TruncatedDiscreteLaplace(epsilon, delta).sample`` (exact rejection sampler). Returns an int when
    ``size is None``, else an int array of shape ``size``.

    >>> r = tdlap_sample(1.0, 0.1, size=1000, rng=0)
    >>> int(r.min()) >= 0 and int(r.max()) <= 2 * kappa(1.0, 0.1)
    True
    """
    tdlap_pmf(epsilon, delta)  # validates (ε, δ) and the κ cap before sampling
    out = TruncatedDiscreteLaplace(float(epsilon), float(delta)).sample(size=size, rng=as_rng(rng))
    return int(out) if size is None else np.asarray(out, dtype=np.int64)


class _DelStabParameterFields(NamedTuple):
    epsilon_bar: float
    delta_bar: float
    kappa: int


class DelStabParameters(_DelStabParameterFields):
    """(ε̄, δ̄, κ) of Algorithm 1 of Ghazi et al. 2023; unpacks as a 3-tuple. ``discarded`` = 4κ users always deleted.

    Checked on construction: ε̄ > 0 finite, δ̄ in (0, 1), κ an integer >= 1.
    """

    __slots__ = ()

    def __new__(cls, epsilon_bar: float, delta_bar: float, kappa: int):
        return super().__new__(
            cls,
            check_positive(epsilon_bar, "epsilon_bar"),
            check_delta(delta_bar, "delta_bar", allow_zero=False),
            check_integer(kappa, "kappa", minimum=1, maximum=2**53),
        )

    @property
    def discarded(self) -> int:
        """4κ: DelStab always deletes this many users; it needs n ≥ 4κ."""
        return 4 * self.kappa

    @property
    def min_users(self) -> int:
        """Smallest n accepted by DelStab (= 4κ; the inner algorithm then sees n − 4κ ≥ 0 users)."""
        return 4 * self.kappa


def delstab_parameters(epsilon: float, delta: float, *, convention: str = "proof") -> DelStabParameters:
    """ε̄ = ε/3, δ̄ = δ/(e^{2ε̄} + e^{ε̄} + 2), κ = κ(ε̄, δ̄) (Algorithm 1 of Ghazi et al. 2023, line 3, with
    the denominator of its privacy proof: see the module docstring).

    Parameters
    ----------
    epsilon, delta : float
        The user-level target (ε > 0, δ in (0, 1)).
    convention : {"proof", "printed"}
        ``"proof"`` (default, pinned in dpviz): δ̄ = δ/(e^{2ε̄}+e^{ε̄}+2), exactly what Lemma 18's proof needs.
        ``"printed"``: δ̄ = δ/(e^{2ε̄}+e^{ε}+2) as Algorithm 1 prints it (smaller δ̄, κ larger by at most one).

    Examples
    --------
    >>> p = delstab_parameters(1.0, 1e-6)
    >>> round(p.epsilon_bar, 4), p.kappa, p.discarded, delstab_parameters(1.0, 1e-6, convention="printed").kappa
    (0.3333, 48, 192, 49)
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, "delta", allow_zero=False)
    check_choice(convention, "convention", ("proof", "printed"))
    eb = epsilon / 3.0
    t3 = eb if convention == "proof" else epsilon
    if max(2.0 * eb, t3) < 700.0:
        db = delta / (math.exp(2.0 * eb) + math.exp(t3) + 2.0)
    else:  # the denominator overflows: log space (ln δ̄ = ln δ − ln(e^{2ε̄} + e^{t} + 2))
        top = max(2.0 * eb, t3)
        log_den = top + math.log(math.exp(2.0 * eb - top) + math.exp(t3 - top) + 2.0 * math.exp(-top))
        db = math.exp(math.log(delta) - log_den)
    if not db > 0.0:
        raise ValueError(
            f"delta = {delta!r} is not allowed with epsilon = {epsilon!r}: δ̄ = δ/(e^{{2ε̄}} + e^{{ε̄}} + 2) underflows "
            "to 0 (must be a positive float); use a larger δ or a smaller ε."
        )
    return DelStabParameters(eb, db, kappa(eb, db))


# ---------------------------------------------------------------------------------------------- divergences
def hockey_stick(a: Any, b: Any, epsilon: float) -> float:
    """d_ε(A‖B) = Σ_{o ∈ supp(A)} [A(o) − e^{ε}·B(o)]_+ on a common finite output space (Preliminaries of
    Ghazi et al. 2023).

    ``a`` and ``b`` are pmfs (non-negative, same shape; they need not be normalised exactly). Computed as
    Σ max(a − e^{ε} b, 0), which equals the sum over supp(A) because the terms with A(o) = 0 are ≤ 0. ε may be negative.

    >>> hockey_stick([0.5, 0.5], [1.0, 0.0], 0.0)
    0.5
    """
    eps = check_finite(epsilon, "epsilon")
    pa = real_array(a, "a")
    pb = real_array(b, "b")
    if pa.shape != pb.shape:
        raise ValueError(f"a has shape {pa.shape} which is not allowed: must match b's shape {pb.shape}.")
    if np.any(pa < 0) or np.any(pb < 0):
        raise ValueError("a and b contain negative masses, which is not allowed: must be pmfs.")
    return float(np.sum(np.maximum(pa - _scaled(pb, eps), 0.0)))


def _scaled(pb: np.ndarray, eps: float) -> np.ndarray:
    """e^{ε}·pb without overflow warnings: +inf only where the exact product exceeds the float range (pb > 0)."""
    if eps <= 700.0:
        return math.exp(eps) * pb
    out = np.zeros_like(pb, dtype=float)
    pos = pb > 0
    with np.errstate(over="ignore"):
        out[pos] = np.exp(eps + np.log(pb[pos]))
    return out


def approx_eq(a: Any, b: Any, epsilon: float, delta: float, *, tol: float = 0.0) -> bool:
    """A ≈_{ε,δ} B iff d_ε(A‖B) ≤ δ AND d_ε(B‖A) ≤ δ (two-sided, Section 2 of Ghazi et al. 2023).

    ``tol`` is an optional absolute slack for floating-point round-off (default 0: the plain float comparison).

    >>> approx_eq([0.6, 0.4], [0.5, 0.5], 0.2, 0.02), approx_eq([0.9, 0.1], [0.5, 0.5], 0.2, 0.1)
    (True, False)
    """
    delta = check_positive(delta, "delta", allow_zero=True)
    tol = check_scale(tol, "tol", allow_zero=True)
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
    """Whether A is (r, ε, δ)-local-deletion DP at x (Definition 16 of Ghazi et al. 2023), by brute force.

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
    if not callable(algorithm):
        raise TypeError(f"algorithm = {algorithm!r} is not allowed: must be callable (dataset -> exact pmf).")
    n = check_dataset(dataset).n_users
    r = check_integer(r, "r", minimum=0, maximum=n - 1)
    epsilon = check_epsilon(epsilon, allow_zero=True)
    delta = check_positive(delta, "delta", allow_zero=True)
    if r == 0:
        return True
    SUBSETS.check(math.comb(n, r), "C(n_users, r) subsets")
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
    """A(y) = clamp(Σ items + Z, 0, high), Z two-sided geometric with P(z) ∝ e^{−ε₀|z|}: dpviz's toy inner algorithm
    for DelStab (not from the paper).

    Items are integers in {0, …, item_max}; A is (ε₀·item_max)-item-level DP (the discrete Laplace mechanism, Ghosh,
    Roughgarden & Sundararajan 2012; clamping to the fixed output space {0, …, high} is post-processing). Its output pmf
    depends on the data only through the total s = Σ items, and is computed EXACTLY in closed form:
    P(o) = e^{−ε₀|o−s|}·(1−q)/(1+q) for 0 < o < high, with the two tails q^{s}/(1+q)·… folded onto 0 and high
    (q = e^{−ε₀}). That is what makes DelStab's stability test exact, as Lemma 18 requires.

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
        object.__setattr__(self, "epsilon0", check_epsilon(self.epsilon0, "epsilon0"))
        object.__setattr__(self, "high", OUTPUTS.check(self.high, "high"))
        object.__setattr__(self, "item_max", OUTPUTS.check(self.item_max, "item_max"))

    @property
    def outputs(self) -> np.ndarray:
        """The finite output space {0, …, high}."""
        return np.arange(self.high + 1)

    @property
    def item_epsilon(self) -> float:
        """Item-level pure ε of A: ε₀·item_max."""
        return self.epsilon0 * self.item_max

    def pmf_of_sum(self, total: Any) -> np.ndarray:
        """Exact output pmf for total sum(s) ``total`` (scalar → (high+1,), array → (..., high+1)).

        Totals are integers in [0, MAGNITUDE]; the result holds at most :data:`~dpviz.userlevel.data.CELLS` entries.
        """
        s = _totals(total)
        CELLS.check(s.size * (self.high + 1), "total.size·(high + 1)")
        s = s[..., None]
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

    def sample_from_sum(self, total: int, rng: Any = None) -> int:
        """One draw of clamp(total + Z, 0, high), Z two-sided geometric (difference of two geometrics)."""
        total = check_integer(total, "total", minimum=0, maximum=int(MAGNITUDE))
        gen = as_rng(rng)
        q = math.exp(-self.epsilon0)
        z = int(gen.geometric(1.0 - q)) - int(gen.geometric(1.0 - q))
        return int(min(max(int(total) + z, 0), self.high))

    def run(self, dataset: UserDataset, rng: Any = None) -> int:
        """One noisy release on ``dataset``: clamp(Σ items + Z, 0, high)."""
        return self.sample_from_sum(self._total(dataset), rng=rng)

    def user_values(self, dataset: UserDataset) -> np.ndarray:
        """Per-user sums (the only feature of a user this algorithm sees), validated as integers in range."""
        self._total(dataset)
        return np.array([int(b.sum()) for b in dataset.blocks], dtype=np.int64)

    def _total(self, dataset: UserDataset) -> int:
        items = check_dataset(dataset).items()
        if np.any(items < 0) or np.any(items > self.item_max) or np.any(items != np.round(items)):
            raise ValueError(
                f"dataset items are not allowed: must be integers in [0, {self.item_max}] (item_max) for NoisySum."
            )
        return int(items.sum())


def _totals(total: Any) -> np.ndarray:
    """Totals for :meth:`NoisySum.pmf_of_sum`: real, integer-valued, in [0, MAGNITUDE] (float array, same shape)."""
    if total is None or isinstance(total, (str, bytes)):
        raise TypeError(f"total = {total!r} is not allowed: must be an integer (or array of integers) >= 0.")
    s = real_array(total, "total", max_abs=MAGNITUDE)
    if np.any(s < 0) or np.any(s != np.round(s)):
        raise ValueError(f"total = {total!r} is not allowed: must hold integers in [0, {MAGNITUDE:g}].")
    return s


# ---------------------------------------------------------------------------------------------- DelStab
def _subset_sum_counts(values: np.ndarray, counts: Sequence[int], q: int) -> np.ndarray:
    """W[s] = number of q-subsets of a multiset (``counts[j]`` users of value ``values[j]``) whose values sum to s.

    Exact generating-function DP Π_j Σ_u C(c_j, u)·y^u·z^{u·v_j}, coefficient of y^q (float64; the counts are
    integers far below 2^53 for the instance sizes DelStab can handle).
    """
    return _subset_sum_counts_many(values, np.asarray([counts], dtype=np.int64), q)[0]


#: Rows of :func:`_subset_sum_counts_many` computed together: bounds its working memory to ~16 MB.
_SUBSET_SUM_CELLS = 2_000_000


def _subset_sum_counts_many(values: np.ndarray, counts: np.ndarray, q: int) -> np.ndarray:
    """:func:`_subset_sum_counts` for each row of ``counts`` (J × len(values)): the same DP run on all rows at once,
    bit for bit the row-by-row result (a binomial coefficient of 0 adds exact zeros where a row has fewer users).
    Returns J × (q·max value + 1)."""
    vmax = int(values.max()) if len(values) else 0
    width = q * vmax + 1
    rows = counts.shape[0]
    out = np.empty((rows, width))
    block = max(1, _SUBSET_SUM_CELLS // ((q + 1) * width))
    for start in range(0, rows, block):
        c_block = counts[start : start + block]
        W = np.zeros((c_block.shape[0], q + 1, width))
        W[:, 0, 0] = 1.0
        for j, v in enumerate(values.tolist()):
            c = c_block[:, j].tolist()
            new = np.zeros_like(W)
            for u in range(0, min(max(c), q) + 1):
                shift = u * int(v)
                if shift >= width:
                    break
                coef = np.array([float(math.comb(int(cj), u)) for cj in c])
                new[:, u:, shift:] += coef[:, None, None] * W[:, : q + 1 - u, : width - shift]
            W = new
        out[start : start + block] = W[:, q]
    return out


@dataclasses.dataclass(frozen=True)
class DelStab:
    """DelStab_{ε,δ,A}: Algorithm 1 of Ghazi et al. 2023, propose–test–release on local-deletion stability.

    1. ε̄ = ε/3, δ̄ = δ/(e^{2ε̄}+e^{ε̄}+2) (pinned convention, see the module docstring), κ = κ(ε̄, δ̄); n ≥ 4κ.
    2. R₁ ∼ TDLap(ε̄, δ̄).
    3. X_stable = {S ⊆ [n] : |S| = R₁ and A is (4κ − R₁, ε̄, δ̄)-LDDP at x_{−S}}
       (equivalently: A(x_{−T}) ≈_{ε̄,δ̄} A(x_{−T′}) for all T, T′ ⊇ S with |T| = |T′| = 4κ).
    4. If X_stable = ∅ return ⊥ (printed "|X_stable| = ∅", a typo).
    5–6. S uniform in X_stable; T = S ∪ (uniform (4κ − R₁)-subset of [n]∖S).
    7. Return A(x_{−T}): A always sees exactly n − 4κ users.

    **Privacy (Lemma 18 of Ghazi et al. 2023):** (ε, δ)-user-level DP for EVERY inner A, provided the stability test is
    exact. Here it is computed from exact pmfs only — no Monte-Carlo anywhere (an estimated test would void Lemma 18);
    the only inexactness is float64 round-off in the comparisons d_ε̄ ≤ δ̄. The inner A must have an output law that
    depends on the data only through its total sum (:class:`NoisySum`, dpviz's toy, or any object with
    ``pmf_of_sum``, ``outputs``, ``user_values`` and ``sample_from_sum``): then x_{−T} matters only through
    Σ_{i∉T} v_i and X_stable is enumerated exactly by *types* (how many deleted users have each per-user sum),
    weighted by Π C(c_v, t_v). The LDDP test at x_{−S} compares A's laws for every pair of achievable deletion sums;
    when the exact closeness matrix
    close[s, s′] = (P_s ≈_{ε̄,δ̄} P_{s′}) is verified to be interval-closed (close[a, c] ⇒ close[a, b] ∧ close[b, c]
    for a ≤ b ≤ c — checked on the matrix, not assumed), testing the two extreme sums is equivalent; otherwise every
    pair is checked. Results are cached per multiset of per-user sums. ``output_pmf(..., method="brute")``
    enumerates the subsets themselves (exponential; for cross-checking on tiny instances).

    Utility (Lemma 19) needs A to be item-level DP with much smaller parameters; with a generous toy A the test
    often fails and DelStab outputs ⊥ — which the lessons show.

    Parameters
    ----------
    epsilon, delta : float
        User-level target ε > 0, δ in (0, 1).
    algorithm : NoisySum
        The inner algorithm A (outputs {0, …, high}).
    convention : {"proof", "printed"}
        δ̄ convention of :func:`delstab_parameters` (default ``"proof"``).

    Examples
    --------
    >>> ds = DelStab(3.0, 0.1, NoisySum(epsilon0=0.5, high=12))
    >>> ds.parameters.kappa, ds.parameters.discarded
    (6, 24)
    >>> x = UserDataset.bernoulli(30, 2, 0.5, rng=0)
    >>> p = ds.output_pmf(x)
    >>> len(p) == len(ds.outputs), round(float(p.sum()), 12)
    (True, 1.0)
    """

    epsilon: float
    delta: float
    algorithm: Any
    convention: str = "proof"

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_positive(self.epsilon, "epsilon"))
        object.__setattr__(self, "delta", check_delta(self.delta, "delta", allow_zero=False))
        check_choice(self.convention, "convention", ("proof", "printed"))
        for attr in ("pmf_of_sum", "outputs", "user_values", "sample_from_sum"):
            if not hasattr(self.algorithm, attr):
                raise ValueError(
                    f"algorithm = {self.algorithm!r} is not allowed: must provide {attr} (e.g. a NoisySum)."
                )

    @property
    def parameters(self) -> DelStabParameters:
        """(ε̄, δ̄, κ) of line 1."""
        return delstab_parameters(self.epsilon, self.delta, convention=self.convention)

    @property
    def outputs(self) -> list:
        """Output labels: the inner algorithm's outputs followed by ``BOTTOM`` (⊥)."""
        return list(np.asarray(self.algorithm.outputs).tolist()) + [BOTTOM]

    # ------------------------------------------------------------------ internals
    def _check(self, dataset: UserDataset) -> tuple[np.ndarray, DelStabParameters]:
        check_dataset(dataset)
        par = self.parameters
        if dataset.n_users < par.discarded:
            raise ValueError(
                f"n_users = {dataset.n_users} is not allowed: DelStab deletes 4κ = {par.discarded} users "
                f"(κ = {par.kappa} for ε = {self.epsilon:g}, δ = {self.delta:g}), "
                f"so it needs n_users >= {par.discarded}."
            )
        return np.asarray(self.algorithm.user_values(dataset), dtype=np.int64), par

    def _close_matrix(self, par: DelStabParameters, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray]:
        """PM[s − lo] = exact output pmf of A for remaining sum s, and close[s − lo, s′ − lo] = PM[s] ≈_{ε̄,δ̄} PM[s′],
        both over the reachable window lo ≤ s, s′ ≤ hi only (hockey-stick in both directions, exact pmfs).

        The window (width ≤ 4κ·max per-user value + 1) is all DelStab ever needs: A always sees n − 4κ users, so the
        remaining sum lies between total − (4κ largest values) and total − (4κ smallest). Its size is capped
        (:data:`~dpviz.userlevel.data.CELLS` entries, :data:`~dpviz.userlevel.data.WORK` operations for the pairwise
        tests) before anything is allocated.
        """
        width = hi - lo + 1
        n_out = len(np.asarray(self.algorithm.outputs))
        CELLS.check(width * n_out, "DelStab window of remaining sums × outputs")
        WORK.check(width * width * n_out, "DelStab closeness tests (window² × outputs)")
        PM = np.asarray(self.algorithm.pmf_of_sum(np.arange(lo, hi + 1)), dtype=float).reshape(width, -1)
        e = math.exp(par.epsilon_bar)
        d = np.empty((width, width))
        for s in range(width):
            d[s] = np.maximum(PM[s][None, :] - e * PM, 0.0).sum(axis=1)
        close = (d <= par.delta_bar) & (d.T <= par.delta_bar)
        return PM, close

    def _analysis(self, dataset: UserDataset) -> _Analysis:
        """Exact analysis of ``dataset``, cached on the multiset of per-user sums (all DelStab depends on)."""
        v, _ = self._check(dataset)
        key = tuple(sorted(v.tolist()))
        try:
            hash(self)
        except TypeError:  # an unhashable custom inner algorithm: compute without the cache
            return _Analysis(self, key)
        return _cached_analysis(self, key)

    # ------------------------------------------------------------------ public
    def stability(self, dataset: UserDataset) -> dict[str, Any]:
        """The stability test's answer for every value r of R₁ (exact).

        Returns a dict: ``"r"`` (0..2κ), ``"tdlap"`` (Pr[R₁ = r]), ``"n_stable"`` (|X_stable| for R₁ = r),
        ``"n_subsets"`` (C(n, r)), ``"stable"`` (X_stable ≠ ∅),
        ``"bottom_probability"`` (Pr[⊥] = Σ_r Pr[R₁=r]·1[X_stable=∅]), and ``"parameters"``.
        """
        an = self._analysis(dataset)
        par = an.par
        rs = list(range(2 * par.kappa + 1))
        p = tdlap_pmf(par.epsilon_bar, par.delta_bar)
        n_stable = np.array([float(an.by_r[r][1][an.by_r[r][3]].sum()) for r in rs])
        stable = n_stable > 0
        return {
            "r": np.array(rs),
            "tdlap": p,
            "n_stable": n_stable,
            "n_subsets": np.array([float(math.comb(dataset.n_users, r)) for r in rs]),
            "stable": stable,
            "bottom_probability": float(p[~stable].sum()),
            "parameters": par,
        }

    def stable_probability(self, dataset: UserDataset) -> np.ndarray:
        """For each r = 0..2κ, whether X_stable^{r} ≠ ∅ on ``dataset`` (bool array of length 2κ + 1; exact).

        Pr[⊥] = Σ_r TDLap(r)·(1 − stable[r]). Same as ``stability(dataset)["stable"]``.
        """
        return self.stability(dataset)["stable"]

    def output_pmf_given_r(self, dataset: UserDataset, r: int) -> np.ndarray:
        """Exact output pmf conditional on R₁ = r (over ``outputs``; the point mass on ⊥ when X_stable^{r} = ∅).

        The quantity compared in the proof of Lemma 18 (Appendix C.4 of Ghazi et al. 2023):
        Pr[A(x) ∈ U | R₁ = r] ≤ e^{2ε̄}·Pr[A(x′) ∈ U | R₁ = r + 1] + (e^{ε̄} + 1)·δ̄ for neighbours x ≍ x′.
        """
        an = self._analysis(dataset)
        r = check_integer(r, "r", minimum=0, maximum=2 * an.par.kappa)
        out = np.zeros(an.PM.shape[1] + 1)
        dist = an.removal_distribution(r)
        if dist is None:
            out[-1] = 1.0
        else:
            out[:-1] = an.output_given(dist)
        return out

    def output_pmf(self, dataset: UserDataset, *, method: str = "types") -> np.ndarray:
        """Exact output pmf of DelStab on ``dataset`` over ``outputs`` (last entry = Pr[⊥]).

        ``method="types"`` (default, polynomial) or ``"brute"`` (enumerates every S and T; needs n > 4κ, exponential,
        for cross-checks on tiny instances; uses ``algorithm.pmf(sub_dataset)``).
        """
        check_choice(method, "method", ("types", "brute"))
        if method == "brute":
            _, par = self._check(dataset)
            return self._output_pmf_brute(dataset, par)
        an = self._analysis(dataset)
        par = an.par
        p = tdlap_pmf(par.epsilon_bar, par.delta_bar)
        out = np.zeros(an.PM.shape[1] + 1)
        for r in range(2 * par.kappa + 1):
            dist = an.removal_distribution(r)
            if dist is None:
                out[-1] += p[r]
            else:
                out[:-1] += p[r] * an.output_given(dist)
        return out

    def _output_pmf_brute(self, dataset: UserDataset, par: DelStabParameters) -> np.ndarray:
        n, K4 = dataset.n_users, par.discarded
        if n <= K4:
            raise ValueError(f"n_users = {n} is not allowed for method='brute': must be > 4κ = {K4}.")
        # subsets visited: C(n, 4κ) deletions T, then for each r every S and every completion U
        visits = math.comb(n, K4) + sum(math.comb(n, r) * math.comb(n - r, K4 - r) for r in range(2 * par.kappa + 1))
        BRUTE_VISITS.check(visits, "subsets enumerated by method='brute'")
        pmf_fn = self.algorithm.pmf
        ids: dict[int, int] = {}
        rows: list[np.ndarray] = []
        key_of: dict[bytes, int] = {}
        for T in itertools.combinations(range(n), K4):
            pm = np.asarray(pmf_fn(dataset.remove_users(T)), dtype=float)
            key = pm.tobytes()
            if key not in key_of:
                key_of[key] = len(rows)
                rows.append(pm)
            ids[sum(1 << i for i in T)] = key_of[key]
        P = np.stack(rows)
        e = math.exp(par.epsilon_bar)
        d = np.array([np.maximum(P[i][None, :] - e * P, 0.0).sum(axis=1) for i in range(len(rows))])
        close = (d <= par.delta_bar) & (d.T <= par.delta_bar)
        p = tdlap_pmf(par.epsilon_bar, par.delta_bar)
        out = np.zeros(P.shape[1] + 1)
        for r in range(2 * par.kappa + 1):
            q = K4 - r
            acc = np.zeros(P.shape[1])
            count = 0
            for S in itertools.combinations(range(n), r):
                mS = sum(1 << i for i in S)
                rest = [i for i in range(n) if not (mS >> i) & 1]
                tid = [ids[mS | sum(1 << i for i in U)] for U in itertools.combinations(rest, q)]
                if close[np.ix_(tid, tid)].all():
                    count += 1
                    acc += P[tid].mean(axis=0)
            if count == 0:
                out[-1] += p[r]
            else:
                out[:-1] += p[r] * acc / count
        return out

    def run(self, dataset: UserDataset, rng: Any = None) -> Any:
        """One run of Algorithm 1: an output of A, or ``BOTTOM`` when X_stable = ∅."""
        gen = as_rng(rng)
        v, _ = self._check(dataset)
        an = self._analysis(dataset)
        par = an.par
        r = tdlap_sample(par.epsilon_bar, par.delta_bar, rng=gen)
        total = int(v.sum())
        T, w, _, stable = an.by_r[r]
        if not stable.any():
            return BOTTOM
        idx = np.nonzero(stable)[0]
        ws = w[idx]
        t = T[idx[int(gen.choice(len(idx), p=ws / ws.sum()))]]
        chosen = []
        for val, tv in zip(an.vals.tolist(), t.tolist()):
            if tv:
                members = np.nonzero(v == val)[0]
                chosen.extend(gen.choice(members, size=tv, replace=False).tolist())
        rest = np.setdiff1d(np.arange(dataset.n_users), chosen)
        U = gen.choice(rest, size=par.discarded - r, replace=False)
        removed = np.concatenate([np.array(chosen, dtype=np.int64), U.astype(np.int64)])
        return self.algorithm.sample_from_sum(total - int(v[removed].sum()), rng=gen)


#: Deletion types exact DelStab enumerates.
TYPE_VECTORS = Cap(2_000_000, "the deletion types exact DelStab enumerates")
#: Use the complement sum when the stable sets carry more than this fraction of all C(n, r) subsets (precision:
#: the subtraction then loses at most a factor 1/(1 − fraction) of relative accuracy).
_COMPLEMENT_FRACTION = 0.5


def _all_type_vectors(caps: np.ndarray, rmax: int) -> np.ndarray:
    """All integer vectors t with 0 ≤ t_j ≤ caps[j] and Σ t ≤ rmax (int32 array, one row per vector)."""
    rows = np.zeros((1, 0), dtype=np.int32)
    sums = np.zeros(1, dtype=np.int32)
    for c in caps.tolist():
        reps = np.minimum(c, rmax - sums) + 1  # choices 0..min(c, rmax − current sum)
        total = int(reps.sum())
        if total > TYPE_VECTORS.limit:
            raise ValueError(
                f"dataset is not allowed: exact DelStab would enumerate more than {TYPE_VECTORS.limit} deletion "
                "types (too many distinct per-user sums for this κ); use fewer users, smaller m or a larger ε, δ."
            )
        base = np.repeat(np.arange(len(reps)), reps)
        offs = np.arange(total) - np.repeat(np.cumsum(reps) - reps, reps)
        rows = np.concatenate([rows[base], offs[:, None].astype(np.int32)], axis=1)
        sums = sums[base] + offs.astype(np.int32)
    return rows


def _interval_ends(close: np.ndarray) -> np.ndarray | None:
    """If ``close`` (symmetric, true on the diagonal) is 'interval-closed' — close[a, c] ⇔ c ≤ e[a] for a ≤ c, with
    e non-decreasing — return e; else None. Then for a ≤ b ≤ c, close[a, c] implies close[a, b] and close[b, c], so
    a set of totals is pairwise close iff its two extremes are (exact, verified on the matrix itself)."""
    S = close.shape[0]
    upper = np.triu(close)
    e = np.empty(S, dtype=np.int64)
    for a in range(S):
        row = upper[a, a:]
        k = int(np.argmin(row)) if not row.all() else row.size
        if row[k:].any():
            return None
        e[a] = a + k - 1
    if np.any(np.diff(e) < 0):
        return None
    return e


class _Analysis:
    """Everything DelStab needs about one multiset of per-user sums: exact, cached (see ``_cached_analysis``).

    Removed sums b = Σ_{i∈T} v_i (|T| = 4κ) lie in [bmin, bmax] (the 4κ smallest / largest values); remaining sums
    s = total − b in the window [lo, hi] = [total − bmax, total − bmin]. Every array here lives on that window.
    """

    def __init__(self, ds: DelStab, sums: tuple):
        v = np.array(sums, dtype=np.int64)
        self.par = par = ds.parameters
        self.n = len(v)
        self.total = int(v.sum())
        self.vals, cnts = np.unique(v, return_counts=True)
        self.cnts = cnts.astype(np.int64)
        K4, kap = par.discarded, par.kappa
        # subset counts up to C(n, 4κ)·C(4κ, 2κ) are held as float64: refuse instances where they would overflow
        log_count = _log_comb(self.n, K4) + _log_comb(K4, min(2 * kap, K4))
        if log_count > 690.0:
            raise ValueError(
                f"n_users = {self.n} is not allowed with κ = {kap}: exact DelStab counts subsets up to "
                f"C(n, 4κ)·C(4κ, 2κ) ≈ e^{log_count:.0f}, beyond the float range (must be <= e^690); use fewer users "
                "or a larger ε, δ."
            )
        sv = np.sort(v)
        self.bmin = int(sv[:K4].sum())
        self.bmax = int(sv[self.n - K4 :].sum())
        self.lo = self.total - self.bmax
        hi = self.total - self.bmin
        # one subset-sum table: (q + 1) × (q·max value + 1) entries, q ≤ 4κ, times the number of distinct values
        self._table_cost = len(self.vals) * (K4 + 1) * (K4 * int(self.vals.max()) + 1)
        CELLS.check(self._table_cost // max(len(self.vals), 1), "DelStab subset-sum table (4κ + 1)·(4κ·max value + 1)")
        self.PM, close = ds._close_matrix(par, self.lo, hi)
        types = _all_type_vectors(self.cnts, 2 * kap)
        rsum = types.sum(axis=1)
        comb = np.array([[math.comb(int(c), t) for t in range(2 * kap + 1)] for c in self.cnts], dtype=float)
        ends = _interval_ends(close)
        if ends is None:
            WORK.check(types.shape[0] * self._table_cost, "DelStab exact stability test (types × subset-sum work)")
        self.by_r: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = {}
        for r in range(2 * kap + 1):
            T = types[rsum == r]
            q = K4 - r
            if T.shape[0] == 0:  # r > n: no subsets of that size
                self.by_r[r] = (T, np.zeros(0), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=bool))
                continue
            w = np.prod(comb[np.arange(len(self.cnts))[None, :], T], axis=1)
            sS = T @ self.vals
            rest = self.cnts[None, :] - T
            if ends is not None:
                qmin = _extreme_sums(self.vals, rest, q, ascending=True)
                qmax = _extreme_sums(self.vals, rest, q, ascending=False)
                lo = self.total - sS - qmax - self.lo
                hi = self.total - sS - qmin - self.lo
                stable = hi <= ends[lo]
            else:
                stable = np.empty(T.shape[0], dtype=bool)
                Ws = _subset_sum_counts_many(self.vals, rest, q)
                for j in range(T.shape[0]):
                    tot = self.total - int(sS[j]) - np.nonzero(Ws[j] > 0)[0] - self.lo
                    stable[j] = bool(close[np.ix_(tot, tot)].all())
            self.by_r[r] = (T, w, sS.astype(np.int64), stable)
        self._dist: dict[int, np.ndarray | None] = {}

    def output_given(self, dist: np.ndarray) -> np.ndarray:
        """Output pmf of A when the removed sum has law ``dist`` on [bmin, bmax]: Σ_b dist[b]·PM[total − b]."""
        return dist @ self.PM[::-1]  # b = bmin + j ↔ s = hi − j ↔ window row (hi − lo) − j

    def _add(self, dist: np.ndarray, offset: int, W: np.ndarray, weight: float) -> None:
        """dist[offset + t − bmin] += weight·W[t] for the t that fall in the window (the others are exact zeros)."""
        start = offset - self.bmin
        t0 = max(0, -start)
        t1 = min(W.size, dist.size - start)
        if t1 > t0:
            dist[start + t0 : start + t1] += weight * W[t0:t1]

    def removal_distribution(self, r: int) -> np.ndarray | None:
        """P(Σ_{i∈T} v_i = b | R₁ = r) for b = bmin..bmax (T = S ∪ U of lines 5–6), or None when X_stable = ∅."""
        if r in self._dist:
            return self._dist[r]
        T, w, sS, stable = self.by_r[r]
        K4 = self.par.discarded
        q = K4 - r
        if not stable.any():
            self._dist[r] = None
            return None
        Wst = float(w[stable].sum())
        Wall = float(w.sum())  # = C(n, r)
        dist = np.zeros(self.bmax - self.bmin + 1)
        if stable.all():
            self._add(dist, 0, _subset_sum_counts(self.vals, self.cnts.tolist(), K4), 1.0)  # T uniform, |T| = 4κ
        elif Wst <= Wall * _COMPLEMENT_FRACTION:
            idx = np.nonzero(stable)[0]
            WORK.check(idx.size * self._table_cost, "DelStab removal law (stable types × subset-sum work)")
            Ws = _subset_sum_counts_many(self.vals, self.cnts[None, :] - T[idx], q)
            for j, W in zip(idx, Ws):
                self._add(dist, int(sS[j]), W, w[j])
        else:  # complement: Σ_all w_t·N_t(b − s_S) = C(4κ, r)·N_{4κ}(b)
            idx = np.nonzero(~stable)[0]
            WORK.check(idx.size * self._table_cost, "DelStab removal law (unstable types × subset-sum work)")
            self._add(dist, 0, _subset_sum_counts(self.vals, self.cnts.tolist(), K4), float(math.comb(K4, r)))
            Ws = _subset_sum_counts_many(self.vals, self.cnts[None, :] - T[idx], q)
            for j, W in zip(idx, Ws):
                self._add(dist, int(sS[j]), W, -w[j])
            dist = np.maximum(dist, 0.0)  # round-off only: the exact value is a non-negative count
        dist /= dist.sum()
        self._dist[r] = dist
        return dist


def _log_comb(n: int, k: int) -> float:
    """ln C(n, k) via log-gamma (no big integers)."""
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


def _extreme_sums(vals: np.ndarray, rest: np.ndarray, q: int, *, ascending: bool) -> np.ndarray:
    """Sum of the q smallest (``ascending``) or largest remaining values, for each row of remaining counts ``rest``."""
    order = slice(None) if ascending else slice(None, None, -1)
    vv, rr = vals[order], rest[:, order]
    before = np.cumsum(rr, axis=1) - rr
    take = np.clip(q - before, 0, rr)
    return take @ vv


@functools.lru_cache(maxsize=64)
def _cached_analysis(ds: DelStab, sums: tuple) -> _Analysis:
    return _Analysis(ds, sums)


# ---------------------------------------------------------------------------------------------- subsampling (Theorem 7)
def subsample_users(dataset: UserDataset, size: int, *, rng: Any = None) -> UserDataset:
    """Keep ``size`` of the n units chosen uniformly WITHOUT replacement (the subsampling wrapper of Theorem 7 of
    Ghazi et al. 2023, used in the proofs of Theorems 10 and 11).

    Running an (ε, δ)-DP algorithm on the subsample is (ε′, δ′)-DP for substitution neighbours, with
    ε′ = ln(1 + η(e^{ε} − 1)), δ′ = ηδ, η = size/n: see :func:`subsampling_amplification`.

    >>> x = UserDataset.bernoulli(10, 2, rng=1)
    >>> subsample_users(x, 4, rng=0).n_users
    4
    """
    size = check_integer(size, "size", minimum=1, maximum=check_dataset(dataset).n_users)
    gen = as_rng(rng)
    idx = np.sort(gen.choice(dataset.n_users, size=size, replace=False))
    return dataset.select_users(idx.tolist())


def subsampling_amplification(epsilon: float, delta: float, size: int, population: int) -> tuple[float, float]:
    """(ε′, δ′) = (ln(1 + η(e^{ε} − 1)), ηδ), η = size/population (Theorem 7 of Ghazi et al. 2023, Balle,
    Barthe & Gaboardi 2018).

    Sampling ``size`` of ``population`` units uniformly without replacement, substitution neighbours (Theorem 7;
    not the Poisson-sampling formula). The formula's one home is
    :func:`dpviz.accountants.amplify_without_replacement` (the accounting of the ``SampledWithoutReplacement``
    event); this is the lesson's name for it.

    >>> eps, dl = subsampling_amplification(1.0, 1e-6, 10, 100)
    >>> round(eps, 10) == round(math.log1p(0.1 * math.expm1(1.0)), 10), dl
    (True, 1e-07)
    """
    epsilon = check_epsilon(epsilon, allow_zero=True)
    delta = check_delta(delta, "delta")
    population = check_integer(population, "population", minimum=1, maximum=2**53)
    size = check_integer(size, "size", minimum=1, maximum=population)
    e2, d2 = amplify_without_replacement(epsilon, delta, size, population)
    return float(e2), float(d2)


# ------------------------------------------------------------------------------------------ why √m (Theorems 13, 17)
def swap_difference_pmf(m: int, p: float) -> np.ndarray:
    """Exact pmf of |S − S′| on {0, …, m} for independent S, S′ ∼ Bin(m, p): two random users' sums of m bits.

    With A an ε₀-item-level DP noisy count, swapping the two users' blocks costs privacy loss ε₀·|S − S′| — at
    worst ε₀·m (group privacy), typically ≈ ε₀·√(2mp(1−p))·√(2/π) (derived here to illustrate Theorems 13 and 17 of
    Ghazi et al. 2023). P(|D| = 0) = Σ_s b(s)², P(|D| = d) = 2·Σ_s b(s)·b(s+d) for d ≥ 1 (b the
    binomial pmf): the autocorrelation of b, computed by FFT on 2m + 1 points (no wrap-around), O(m log m) for every
    m. Round-off (≤ 1e-15 absolute) is clipped at 0 and the result renormalised. Cached; the array is read-only.

    >>> [round(float(v), 12) for v in swap_difference_pmf(1, 0.5)]
    [0.5, 0.5]
    """
    m = SWAP_M.check(m, "m")
    p = check_in_range(p, "p", 0.0, 1.0)
    return _swap_difference_pmf(m, float(p))


@functools.lru_cache(maxsize=256)
def _swap_difference_pmf(m: int, p: float) -> np.ndarray:
    """:func:`swap_difference_pmf` on validated (m, p)."""
    b = stats.binom.pmf(np.arange(m + 1), m, p)
    size = 2 * m + 1  # lags −m..m fit exactly: no wrap-around
    f = np.fft.rfft(b, size)
    d = np.fft.irfft(f * np.conj(f), size)  # index j ↔ S − S′ = j (mod size)
    d = np.clip(d, 0.0, None)
    d /= d.sum()
    out = d[: m + 1].copy()
    out[1:] += d[m + 1:][::-1]  # D and −D are equally likely
    out.setflags(write=False)
    return out


def pmf_quantile(pmf: Any, q: float) -> int:
    """Smallest index i with Σ_{j ≤ i} pmf[j] ≥ q (the q-quantile of a pmf on {0, 1, …}), with a 10⁻¹² tolerance
    on the cumulative sum so that rounding in a pmf summing to 1 cannot push an exact quantile one step up.

    >>> pmf_quantile([0.25, 0.25, 0.5], 0.5), pmf_quantile([0.25, 0.25, 0.5], 0.51)
    (1, 2)
    """
    q = check_in_range(q, "q", 0.0, 1.0)
    pmf = real_array(pmf, "pmf", ndim=1)
    return int(np.searchsorted(np.cumsum(pmf), q - 1e-12))


def discard_curves(convention: str = "proof") -> tuple[np.ndarray, tuple[tuple[float, np.ndarray], ...]]:
    """4κ(ε̄, δ̄) — the users Algorithm 1 of Ghazi et al. 2023 always deletes — on 120 log-spaced ε in [0.05, 10],
    for δ ∈ {10⁻², 10⁻⁴, 10⁻⁶, 10⁻⁹, 10⁻¹²}: ``(eps_grid, ((delta, four_kappa), …))`` (lesson 14's PTR figure).

    >>> eps, curves = discard_curves()
    >>> eps.size, [d for d, _ in curves][:2], int(curves[2][1][0]) == delstab_parameters(0.05, 1e-6).discarded
    (120, [0.01, 0.0001], True)
    """
    return _discard_curves(check_choice(convention, "convention", ("proof", "printed")))


@functools.lru_cache(maxsize=4)
def _discard_curves(convention: str) -> tuple[np.ndarray, tuple]:
    eps_grid = np.geomspace(0.05, 10, 120)
    curves = tuple((d, np.array([delstab_parameters(float(e), d, convention=convention).discarded for e in eps_grid]))
                   for d in (1e-2, 1e-4, 1e-6, 1e-9, 1e-12))
    return eps_grid, curves

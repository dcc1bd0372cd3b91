"""The class as a data set: the numerics of the class view, where a room's answers are released with DP.

Every exercise declares its :class:`Buckets`, a public domain of k answers (a choice exercise's options, or the
bins of a numeric answer), so that every release is a histogram over a domain nobody's answer can change. Two
protections, both built from dpviz's own mechanisms:

* **local** (the default): the student's kernel sends :func:`randomize` of the bucket, k-ary randomized response
  (:func:`dpviz.local.krr_release`; Kairouz, Oh & Viswanath 2014), so no true answer ever leaves the kernel.
  :func:`local_estimate` debiases the reports with the unbiased k-RR estimator and gives its standard error from
  the exact variance (Wang et al. 2017, §4.1 and Thm 2). Each report is already ε-DP, so the number of reports and
  any function of them are released as they are; the class pays nothing more however often the view redraws.
* **central**: the server holds the raw tally and :func:`central_release` adds two-sided geometric (discrete
  Laplace) noise to every bucket (:class:`dpviz.mechanisms.DiscreteLaplace`; Ghosh, Roughgarden & Sundararajan
  2012; sampled exactly, Canonne, Kamath & Steinke 2020, Alg. 2). A :class:`ClassBudget` accounts every release
  with :class:`dpviz.accountants.BasicAccountant` and refuses one that would exceed the class's ε, keeping the last
  release (a privacy filter: Rogers et al. 2016).

**Neighbouring relation: replace-one** (one student's answer changed; the number of answers is public). It is the
relation under which both modes mean the same thing: a k-RR report is ε-LDP, i.e. changing the one answer it
carries changes its law by at most e^ε, and the central histogram is ε-DP for the same change. A changed answer
moves one bucket down by 1 and another up by 1 (L1 sensitivity 2), so the central noise has scale 2/ε: each of the
two buckets contributes at most e^{1/scale} = e^{ε/2} to the likelihood ratio, and the product is e^ε, attained
(Dwork & Roth 2014, Thm 3.6, in its discrete form). Under replace-one the number of answers is not secret, so
:attr:`CentralRelease.total` is the exact count, as is the number of local reports. What replace-one does not hide
is *whether* a student answered: the count shows it (a student who opts out is seen only as one answer fewer).
Under add/remove the same noise would give ε/2 for the histogram, but the exact count would then break it.

The neighbouring-dataset game of lesson 10 pools the class's guesses into one Clopper–Pearson lower bound on ε
(:func:`pooled_epsilon_bound`, through :func:`dpviz.audit.epsilon_lower_bound`); :func:`pooled_bound_ceiling` is
the best any class can prove with a given number of rounds per world: with 30 perfect guesses on each dataset the
95 % bound is 2.0338 (Clopper & Pearson 1934; Kairouz, Oh & Viswanath 2015, Thm 2.1), whatever the mechanism.

Pure functions and immutable values over numpy: no plotting, no widgets, no server; nothing random unless an
``rng`` is passed in.
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from statistics import NormalDist

import numpy as np

from dpviz._validation import InstanceOf, Interval, as_rng, check_integer, check_real_array, checked, field_str
from dpviz.accountants import BasicAccountant, PureDP
from dpviz.audit import epsilon_lower_bound
from dpviz.local import krr_estimate, krr_probabilities, krr_release, krr_variance
from dpviz.mechanisms import DiscreteLaplace
from dpviz.references import cite

__all__ = [
    "NEIGHBORING",
    "Buckets",
    "randomize",
    "report_law",
    "LocalEstimate",
    "local_estimate",
    "CentralRelease",
    "central_release",
    "central_scale",
    "noise_halfwidth",
    "ClassBudget",
    "BudgetOutcome",
    "pooled_epsilon_bound",
    "pooled_bound_ceiling",
]

#: Buckets an exercise may declare: 2 to 100 (a histogram a projector can show; every release is k noisy counts).
BUCKETS = Interval(2, 100, integer=True)
#: The neighbouring relation every ε of this module is stated for (see the module docstring).
NEIGHBORING = "replace_one"
#: Characters in a bucket's label.
LABEL_LENGTH = Interval(1, 200, integer=True)

#: ε of one release (a report, or one central histogram): wide enough for any lesson, narrow enough that the noise
#: scale 2/ε stays ≤ 2000 and the exact quantile sums stay small.
EPSILON = Interval(1e-3, 100.0)
#: The class's whole central budget.
TOTAL_EPSILON = Interval(1e-3, 1000.0)
#: Coverage of an interval.
LEVEL = Interval(0.0, 1.0, open_low=True, open_high=True)
#: Confidence of the game's bound, and the δ it is stated at (the game's mechanism may be (ε, δ)-DP).
CONFIDENCE = Interval(0.0, 1.0, open_low=True, open_high=True)
DELTA = Interval(0.0, 1.0, open_high=True)
#: A numeric answer: any finite number (beyond the edges it counts in an end bucket).
ANSWER = Interval(-math.inf)
#: A number of answers (a tally's total, a count of reports), per bucket and in all: at most a lecture hall's, with
#: room to spare.
ANSWERS = Interval(0, 1_000_000, integer=True)
#: Rounds of the game per world, pooled over the class.
ROUNDS = Interval(0, 1_000_000, integer=True)

_LOCAL_SOURCE = (f"k-ary randomized response ({cite('kairouz2014extremal')}), debiased; standard error from the "
                 f"exact variance ({cite('wang2017locally', 'Thm 2')})")
_CENTRAL_SOURCE = (f"discrete Laplace noise of scale 2/ε on every bucket ({cite('ghosh2012universally')}; "
                   f"exact sampler {cite('canonne2020discrete', 'Alg. 2')})")


def _fail(name, value, allowed: str) -> ValueError:
    return ValueError(f"{name} = {value!r} is not allowed: must be {allowed}.")


# ============================================================================================ the public domain


@dataclasses.dataclass(frozen=True)
class Buckets:
    """The public domain of an exercise's answers: k ≥ 2 buckets, each with a label.

    Either categorical (a choice exercise: ``labels`` are its options, ``edges`` is None) or numeric (``edges`` are
    e₀ < e₁ < … < e_k and bucket i is [e_i, e_{i+1}); an answer below e₀ counts in the first bucket and one at or
    above e_k in the last, so that every finite answer has a bucket and none is refused for being far out). A numeric
    exercise may name its buckets; by default they are labelled "< e₁", "[e₁, e₂)", …, "≥ e_{k−1}", which says where
    the end buckets' answers lie. The domain is public: it is declared by the exercise, never learnt from answers.

    Use :meth:`categorical` or :meth:`numeric`. ``k`` ≤ :data:`BUCKETS`; labels are distinct, non-empty strings
    of at most 200 characters; edges are finite and strictly increasing.

    >>> Buckets.numeric([0, 10, 20, 30]).labels
    ('< 10', '[10, 20)', '≥ 20')
    >>> Buckets.numeric([0, 10, 20, 30]).bucket_of(-5.0), Buckets.categorical(["yes", "no"]).bucket_of("no")
    (0, 1)
    """

    labels: tuple[str, ...] = ()
    edges: tuple[float, ...] | None = None

    def __post_init__(self):
        edges = self.edges
        if edges is not None:
            arr = check_real_array(edges, "edges", ndim=1, allow_empty=True)
            if not 3 <= arr.size <= BUCKETS.high + 1:
                raise ValueError(f"edges has {arr.size} entries, which is not allowed: must hold between 3 and "
                                 f"{BUCKETS.high + 1} (k + 1 edges for k >= 2 buckets).")
            if np.any(np.diff(arr) <= 0):
                raise ValueError(f"edges = {arr.tolist()!r} is not allowed: must be strictly increasing.")
            edges = tuple(float(e) for e in arr)
            object.__setattr__(self, "edges", edges)
            if isinstance(self.labels, (tuple, list)) and len(self.labels) == 0:
                object.__setattr__(self, "labels", _edge_labels(edges))
        labels = self.labels
        if isinstance(labels, (str, bytes)) or not isinstance(labels, (tuple, list)):
            raise TypeError(f"labels = {type(labels).__name__} is not allowed: must be a tuple or list of strings.")
        if not 2 <= len(labels) <= BUCKETS.high:
            raise ValueError(f"labels has {len(labels)} entries, which is not allowed: must hold between 2 and "
                             f"{BUCKETS.high}.")
        for i, lab in enumerate(labels):
            if not isinstance(lab, str) or not lab.strip() or len(lab) > LABEL_LENGTH.high:
                raise ValueError(f"labels[{i}] = {lab!r} is not allowed: must be a non-empty string of at most "
                                 f"{LABEL_LENGTH.high} characters.")
        if len(set(labels)) != len(labels):
            raise ValueError(f"labels = {tuple(labels)!r} is not allowed: must be distinct.")
        if edges is not None and len(labels) != len(edges) - 1:
            raise ValueError(f"labels has {len(labels)} entries, which is not allowed: must hold one per bucket, "
                             f"{len(edges) - 1} for {len(edges)} edges.")
        object.__setattr__(self, "labels", tuple(labels))

    @classmethod
    def categorical(cls, labels) -> Buckets:
        """The options of a choice exercise, in the order they are shown."""
        if isinstance(labels, (str, bytes)) or not hasattr(labels, "__iter__"):
            raise TypeError(f"labels = {type(labels).__name__} is not allowed: must be a sequence of strings.")
        return cls(labels=tuple(labels))

    @classmethod
    def numeric(cls, edges, labels=()) -> Buckets:
        """The bins of a numeric answer, from their edges (labels optional; see the class docstring)."""
        return cls(labels=tuple(labels) if isinstance(labels, (tuple, list)) else labels, edges=edges)

    @property
    def k(self) -> int:
        """The number of buckets."""
        return len(self.labels)

    @property
    def is_numeric(self) -> bool:
        return self.edges is not None

    def bucket_of(self, answer) -> int:
        """The index of ``answer``'s bucket: its position among the labels (categorical), or the bin holding the
        number (numeric; beyond the edges, the end bins). An answer outside the domain (a string that is no label;
        NaN, ±inf or a non-number for a numeric exercise) is refused with a ValueError naming it."""
        if self.edges is None:
            if isinstance(answer, str) and answer in self.labels:
                return self.labels.index(answer)
            shown = ", ".join(repr(lab) for lab in self.labels[:10]) + (", …" if self.k > 10 else "")
            raise _fail("answer", answer if isinstance(answer, str) else type(answer).__name__,
                        f"one of the exercise's options ({shown})")
        x = ANSWER.check(answer, "answer")
        i = int(np.searchsorted(np.asarray(self.edges), x, side="right")) - 1
        return min(max(i, 0), self.k - 1)


def _edge_labels(edges: tuple[float, ...]) -> tuple[str, ...]:
    inner = [f"{e:g}" for e in edges[1:-1]]
    mid = [f"[{a}, {b})" for a, b in zip(inner[:-1], inner[1:])]
    return (f"< {inner[0]}", *mid, f"≥ {inner[-1]}")


def _tuple_field(obj, name: str, *, integer: bool = False, low: float | None = None,
                 length: int | None = None) -> None:
    """Validate a result's per-bucket field (2..BUCKETS.high finite numbers; integers of magnitude ≤ 2**53 with
    ``integer``; ≥ ``low``; ``length`` entries if given) and store it as a tuple of ints or floats."""
    arr = check_real_array(getattr(obj, name), name, ndim=1, allow_empty=True)
    want = f"{length}" if length is not None else f"between 2 and {BUCKETS.high}"
    if (length is not None and arr.size != length) or not 2 <= arr.size <= BUCKETS.high:
        raise ValueError(f"{name} has {arr.size} entries, which is not allowed: must hold {want} (one per bucket).")
    if integer and (np.any(arr != np.round(arr)) or float(np.max(np.abs(arr))) > 2.0**53):
        raise ValueError(f"{name} is not allowed: must hold integers of magnitude <= 2**53.")
    if low is not None and float(arr.min()) < low:
        raise ValueError(f"{name} contains {float(arr.min())!r}, which is not allowed: must be >= {low:g}.")
    object.__setattr__(obj, name, tuple(int(v) for v in arr) if integer else tuple(float(v) for v in arr))


def _bucket(bucket, buckets: Buckets) -> int:
    return check_integer(bucket, "bucket", minimum=0, maximum=buckets.k - 1)


def _buckets(buckets) -> Buckets:
    if not isinstance(buckets, Buckets):
        raise TypeError(f"buckets = {type(buckets).__name__} is not allowed: must be a Buckets (Buckets.categorical "
                        "or Buckets.numeric).")
    return buckets


# ============================================================================================ local mode


@checked(epsilon=EPSILON)
def randomize(bucket: int, buckets: Buckets, epsilon: float, rng=None) -> int:
    """The bucket a student's kernel sends in local mode: k-ary randomized response of the true ``bucket``
    (:func:`dpviz.local.krr_release`): kept with probability p = e^ε/(e^ε + k − 1), else one of the k − 1 others,
    uniformly (Kairouz, Oh & Viswanath 2014). ε-LDP: any two answers' report laws differ by at most p/q = e^ε
    (:func:`report_law`).

    Parameters
    ----------
    bucket : int in 0..k−1, the student's true bucket (:meth:`Buckets.bucket_of`).
    buckets : Buckets, the exercise's domain.
    epsilon : float in [0.001, 100].
    rng : numpy Generator, int seed or None (fresh entropy).
    """
    b = _buckets(buckets)
    v = _bucket(bucket, b)
    return int(krr_release(np.array([v]), b.k, epsilon, rng=as_rng(rng))[0])


@checked(epsilon=EPSILON)
def report_law(bucket: int, buckets: Buckets, epsilon: float) -> np.ndarray:
    """The exact law of :func:`randomize`'s report for the true ``bucket``: p at ``bucket``, q = 1/(e^ε + k − 1)
    elsewhere (:func:`dpviz.local.krr_probabilities`); the entries sum to 1."""
    b = _buckets(buckets)
    v = _bucket(bucket, b)
    p, q = krr_probabilities(b.k, epsilon)
    law = np.full(b.k, q)
    law[v] = p
    return law


@dataclasses.dataclass(frozen=True)
class LocalEstimate:
    """The class's histogram estimated from k-RR reports (local mode).

    ``counts`` are the debiased estimates n·f̂_v (unbiased; they may be negative or exceed n),
    ``standard_errors`` their standard errors n·√Var f̂_v, ``n`` the number of reports and ``epsilon`` the
    reports' ε. ``n`` is released as it is: each report is already ε-DP, so counting them reveals nothing more than
    the fact of answering (the count is public under replace-one). ``source`` is the method with its citations.
    """

    counts: tuple[float, ...]
    standard_errors: tuple[float, ...]
    n: int
    epsilon: float
    source: str = _LOCAL_SOURCE

    def __post_init__(self):
        _tuple_field(self, "counts")
        _tuple_field(self, "standard_errors", low=0.0, length=len(self.counts))
        object.__setattr__(self, "n", ANSWERS.check(self.n, "n"))
        field_str(self, "source")
        object.__setattr__(self, "epsilon", EPSILON.check(self.epsilon, "epsilon"))

    def interval(self, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
        """Per bucket, count ± z·SE with z the standard normal (1 + level)/2 quantile: a normal approximation
        (central limit theorem; the estimate is a sum of n independent reports), not an exact interval."""
        lv = LEVEL.check(level, "level")
        z = NormalDist().inv_cdf(0.5 + 0.5 * lv)
        c, s = np.asarray(self.counts), np.asarray(self.standard_errors)
        return c - z * s, c + z * s


@checked(epsilon=EPSILON)
def local_estimate(reports, buckets: Buckets, epsilon: float) -> LocalEstimate:
    """Debias the class's k-RR reports: n·f̂_v with f̂_v = (c_v/n − q)/(p − q) (:func:`dpviz.local.krr_estimate`;
    Wang et al. 2017, §4.1), and its standard error from the exact variance

        Var f̂_v = [q(1 − q) + f_v(p − q)(1 − p − q)] / (n(p − q)²)      (Wang et al. 2017, Thm 2)

    (:func:`dpviz.local.krr_variance`) evaluated at the plug-in f_v = f̂_v clipped to [0, 1] (the true f_v is
    what is being estimated). Each report is ε-DP on its own, so this is post-processing: it costs no ε.

    Parameters
    ----------
    reports : 1-D array of bucket indices in 0..k−1, at least one and at most 10⁶.
    buckets : Buckets. epsilon : the reports' ε, in [0.001, 100].
    """
    b = _buckets(buckets)
    r = check_real_array(reports, "reports", ndim=1)
    if r.size > ANSWERS.high:
        raise ValueError(f"reports has {r.size} entries, which is not allowed: must hold at most {ANSWERS.high}.")
    n = int(r.size)
    f = krr_estimate(r, b.k, epsilon)
    se = [n * math.sqrt(krr_variance(n, b.k, epsilon, min(max(float(fv), 0.0), 1.0))) for fv in f]
    return LocalEstimate(counts=tuple(float(n * fv) for fv in f), standard_errors=tuple(se), n=n,
                         epsilon=float(epsilon))


# ============================================================================================ central mode


@checked(epsilon=EPSILON)
def central_scale(epsilon: float) -> float:
    """The discrete Laplace scale of an ε-DP class histogram under replace-one: 2/ε (L1 sensitivity 2; see the
    module docstring)."""
    return 2.0 / epsilon


@checked(scale=Interval(0.0, 2.0 / EPSILON.low, open_low=True), level=LEVEL)
def noise_halfwidth(scale: float, level: float = 0.95) -> int:
    """The smallest integer m with P[|Y| ≤ m] ≥ ``level`` for discrete Laplace noise Y of this ``scale``, so that
    released count ± m covers the true count with probability ≥ level (exactly: the noise is integer-valued, so
    the coverage is the smallest attainable above the level).

    From the mechanism's pmf P[Y = y] = (1 − r)/(1 + r)·r^{|y|}, r = e^{−1/scale}, the tail is a geometric sum,
    P[|Y| > m] = 2r^{m+1}/(1 + r); m is its closed-form solution, corrected by one step either way against rounding.
    """
    r = math.exp(-1.0 / scale)
    alpha = 1.0 - level

    def tail(m: int) -> float:  # P[|Y| > m]
        return 2.0 * math.exp(-(m + 1) / scale) / (1.0 + r)

    m = max(0, math.ceil(scale * math.log(2.0 / (alpha * (1.0 + r)))) - 1)
    while m > 0 and tail(m - 1) <= alpha:
        m -= 1
    while tail(m) > alpha:
        m += 1
    return m


@dataclasses.dataclass(frozen=True)
class CentralRelease:
    """One central release of the class's histogram.

    ``counts`` are the true counts plus independent discrete Laplace noise of scale ``scale`` = 2/ε per bucket
    (integers; they may be negative: clamping them at 0 for display is post-processing and costs nothing, but
    biases them). ``total`` is the exact number of answers (public under replace-one), ``epsilon`` the release's ε
    under replace-one. ``mechanism`` is the :class:`~dpviz.mechanisms.DiscreteLaplace` that drew each bucket's
    noise: its ``pmf`` is the exact law of every released count.
    """

    counts: tuple[int, ...]
    total: int
    epsilon: float
    source: str = _CENTRAL_SOURCE

    def __post_init__(self):
        _tuple_field(self, "counts", integer=True)
        object.__setattr__(self, "total", ANSWERS.check(self.total, "total"))
        field_str(self, "source")
        object.__setattr__(self, "epsilon", EPSILON.check(self.epsilon, "epsilon"))

    @property
    def scale(self) -> float:
        return 2.0 / self.epsilon

    @property
    def mechanism(self) -> DiscreteLaplace:
        return DiscreteLaplace(scale=self.scale)

    def interval(self, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
        """Per bucket, released ± m with m = :func:`noise_halfwidth` (exact quantiles of the noise): each covers
        its true count with probability ≥ ``level`` (per bucket, not simultaneously)."""
        m = noise_halfwidth(self.scale, level)
        c = np.asarray(self.counts, dtype=np.int64)
        return c - m, c + m


def _counts(counts) -> np.ndarray:
    arr = check_real_array(counts, "counts", ndim=1, allow_empty=True)
    if not 2 <= arr.size <= BUCKETS.high:
        raise ValueError(f"counts has {arr.size} entries, which is not allowed: must hold one per bucket, between 2 "
                         f"and {BUCKETS.high}.")
    bad = (arr != np.floor(arr)) | (arr < 0) | (arr > ANSWERS.high)
    if np.any(bad):
        raise ValueError(f"counts contains {float(arr[bad][0])!r}, which is not allowed: must be integers in "
                         f"0..{ANSWERS.high}.")
    total = int(arr.sum())
    if total > ANSWERS.high:
        raise ValueError(f"counts sum to {total}, which is not allowed: a tally holds at most {ANSWERS.high} answers.")
    return arr.astype(np.int64)


@checked(epsilon=EPSILON)
def central_release(counts, epsilon: float, rng=None) -> CentralRelease:
    """Release the class's true histogram ``counts`` (one count per bucket) with ε-DP under replace-one: every
    bucket plus independent discrete Laplace noise of scale 2/ε (:meth:`dpviz.mechanisms.DiscreteLaplace.release`;
    Ghosh, Roughgarden & Sundararajan 2012), the total count exact. Not budgeted: use :meth:`ClassBudget.release`,
    which refuses a release beyond the class's ε.

    Parameters
    ----------
    counts : 1-D array of k integers in 0..10⁶ (2 ≤ k ≤ 100), summing to at most 10⁶.
    epsilon : float in [0.001, 100].
    rng : numpy Generator, int seed or None.
    """
    c = _counts(counts)
    noisy = DiscreteLaplace(scale=2.0 / epsilon).release(c, rng=as_rng(rng))
    return CentralRelease(counts=tuple(int(v) for v in noisy), total=int(c.sum()), epsilon=float(epsilon))


# ============================================================================================ the class's budget

#: Basic composition of pure events certifies the same ε at every δ; this δ only fills the accountant's argument.
_ANY_DELTA = 0.5


@dataclasses.dataclass(frozen=True)
class BudgetOutcome:
    """What :meth:`ClassBudget.release` did: ``budget`` after it, ``release`` (the new one, or the ``last`` one
    kept when refused; None if refused with nothing to keep), ``refused`` and, if so, ``reason``."""

    budget: ClassBudget
    release: CentralRelease | None
    refused: bool
    reason: str = ""

    def __post_init__(self):
        InstanceOf(ClassBudget).check(self.budget, "budget")
        InstanceOf(CentralRelease, optional=True).check(self.release, "release")
        if not isinstance(self.refused, bool):
            raise TypeError(f"refused = {type(self.refused).__name__} is not allowed: must be a bool.")
        if not isinstance(self.reason, str):
            raise TypeError(f"reason = {type(self.reason).__name__} is not allowed: must be a str.")


@dataclasses.dataclass(frozen=True)
class ClassBudget:
    """The class's central privacy budget, a privacy filter (Rogers et al. 2016): ``total_epsilon`` for the whole
    session, ``spent`` the ε of every release so far, in order (a server restores it from its store).

    Every release is a :class:`~dpviz.accountants.PureDP` event composed by
    :class:`~dpviz.accountants.BasicAccountant` under replace-one (ε adds up: Dwork & Roth 2014, Thm 3.16; the
    releases may be chosen adaptively, and each ε is fixed before its release, which is what a filter needs). A
    release is allowed when the accountant certifies the ledger with it as ``total_epsilon``-DP (δ = 0), compared
    exactly in double precision: a rounding that puts the sum one ulp above the budget refuses the release.

    >>> b = ClassBudget(4.0).charge(1.0).charge(2.0)
    >>> b.spent_epsilon, b.remaining_epsilon
    (3.0, 1.0)
    """

    total_epsilon: float
    spent: tuple[float, ...] = ()

    def __post_init__(self):
        object.__setattr__(self, "total_epsilon", TOTAL_EPSILON.check(self.total_epsilon, "total_epsilon"))
        if isinstance(self.spent, (str, bytes)) or not isinstance(self.spent, (tuple, list)):
            raise TypeError(f"spent = {type(self.spent).__name__} is not allowed: must be a tuple of the releases' ε.")
        spent = tuple(EPSILON.check(e, f"spent[{i}]") for i, e in enumerate(self.spent))
        object.__setattr__(self, "spent", spent)
        if not self._within(self.accountant()):
            raise ValueError(f"spent = {spent!r} is not allowed: its releases compose to ε = "
                             f"{self.spent_epsilon!r}, beyond total_epsilon = {self.total_epsilon!r}.")

    def accountant(self, extra: float | None = None) -> BasicAccountant:
        """A new :class:`~dpviz.accountants.BasicAccountant` holding every release (and ``extra`` if given)."""
        acct = BasicAccountant(neighboring=NEIGHBORING)
        runs = Counter(self.spent + ((extra,) if extra is not None else ()))
        for eps, k in runs.items():
            acct.compose(PureDP(eps), count=k)
        return acct

    def _within(self, acct: BasicAccountant) -> bool:
        return acct.delta(self.total_epsilon) == 0.0

    @property
    def spent_epsilon(self) -> float:
        """ε of everything released so far, as the accountant composes it (0 before the first release)."""
        return self.accountant().epsilon(_ANY_DELTA)

    @property
    def remaining_epsilon(self) -> float:
        return max(0.0, self.total_epsilon - self.spent_epsilon)

    def allows(self, epsilon: float) -> bool:
        """True when one more release at ``epsilon`` stays within the budget."""
        return self._within(self.accountant(EPSILON.check(epsilon, "epsilon")))

    def charge(self, epsilon: float) -> ClassBudget:
        """The budget after one more release at ``epsilon``; a ValueError naming ε and what is left if it would
        exceed the budget."""
        eps = EPSILON.check(epsilon, "epsilon")
        if not self.allows(eps):
            raise ValueError(f"epsilon = {epsilon!r} is not allowed: the class has {self.remaining_epsilon!r} of its "
                             f"{self.total_epsilon!r} left (releases so far compose to {self.spent_epsilon!r}).")
        return ClassBudget(self.total_epsilon, self.spent + (eps,))

    def release(self, counts, epsilon: float, rng=None, last: CentralRelease | None = None) -> BudgetOutcome:
        """Release ``counts`` with :func:`central_release` if the budget allows ``epsilon``; otherwise refuse,
        keep ``last`` (the exercise's previous release) and leave the budget as it was. Invalid input is still a
        ValueError; only a release beyond the budget is a refusal."""
        eps = EPSILON.check(epsilon, "epsilon")
        c = _counts(counts)
        if last is not None and not isinstance(last, CentralRelease):
            raise TypeError(f"last = {type(last).__name__} is not allowed: must be a CentralRelease or None.")
        if not self.allows(eps):
            return BudgetOutcome(self, last, True, f"ε = {eps:g} would exceed the class budget: "
                                                   f"{self.remaining_epsilon:g} of {self.total_epsilon:g} left.")
        return BudgetOutcome(self.charge(eps), central_release(c, eps, rng=rng), False)


# ============================================================================================ the game, pooled


@checked(correct_on_x=ROUNDS, rounds_on_x=ROUNDS, correct_on_x_prime=ROUNDS, rounds_on_x_prime=ROUNDS, delta=DELTA,
         confidence=CONFIDENCE)
def pooled_epsilon_bound(correct_on_x: int, rounds_on_x: int, correct_on_x_prime: int, rounds_on_x_prime: int, *,
                         delta: float = 0.0, confidence: float = 0.95) -> float:
    """The class's pooled guesses of the neighbouring-dataset game as one lower bound on ε.

    Over the class, ``rounds_on_x`` rounds ran on x and ``correct_on_x`` of them were guessed "x"; likewise for x′.
    Guessing "x′" is the test: false positives are the wrong guesses on x, true positives the right ones on x′,
    and :func:`dpviz.audit.epsilon_lower_bound` turns them into the Clopper–Pearson bound (Clopper & Pearson 1934;
    Kairouz, Oh & Viswanath 2015, Thm 2.1) that holds with probability ≥ ``confidence`` for an (ε, δ)-DP
    mechanism. 0 until both datasets have come up.

    The pooled test is the class's own: a round is one fresh run of the mechanism and one student's guess from
    that output alone. With every student playing one rule the counts are binomial and the bound is exact in
    level; students who play different rules make the counts sums of Bernoulli trials of different rates, which
    in the tails the bound uses are no more spread out than the binomial of their mean rate (Hoeffding's
    comparison of Poisson-binomial and binomial laws), so the bound stays conservative for the class's average
    rule. A student who replays rounds until right, or guesses after seeing the answer, breaks it.
    """
    for right, rounds, name in ((correct_on_x, rounds_on_x, "correct_on_x"),
                                (correct_on_x_prime, rounds_on_x_prime, "correct_on_x_prime")):
        if right > rounds:
            raise ValueError(f"{name} = {right!r} is not allowed: must be <= its rounds ({rounds}).")
    if rounds_on_x == 0 or rounds_on_x_prime == 0:
        return 0.0
    return float(epsilon_lower_bound(correct_on_x_prime, rounds_on_x - correct_on_x, rounds_on_x_prime, rounds_on_x,
                                     delta=delta, confidence=confidence))


@checked(rounds_per_world=Interval(1, ANSWERS.high, integer=True), delta=DELTA, confidence=CONFIDENCE)
def pooled_bound_ceiling(rounds_per_world: int, *, delta: float = 0.0, confidence: float = 0.95) -> float:
    """The largest :func:`pooled_epsilon_bound` any class can reach with ``rounds_per_world`` rounds on each
    dataset: every guess right. Teach it next to the claimed ε: with 30 rounds per world the 95 % bound is at most
    ln(u/(1 − u)), u = 0.025^{1/30}, about 2.03, however weak the mechanism's privacy (a claimed ε of 8 cannot be
    refuted by 60 rounds). It grows like ln(rounds).
    """
    n = rounds_per_world
    return pooled_epsilon_bound(n, n, n, n, delta=delta, confidence=confidence)


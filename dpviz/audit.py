"""Auditing a privacy claim: the neighbouring-dataset game turned into a lower bound on ε.

A mechanism claims (ε, δ)-DP. An auditor runs it many times on two neighbouring datasets x and x′ (x′ holds a
*canary* record x lacks, or a replaced one), and a test guesses from each output which dataset was used. Whatever
the test, (ε, δ)-DP forces its false-positive rate α (guessing x′ on x) and false-negative rate β (guessing x on
x′) to satisfy

    α + e^ε·β ≥ 1 − δ   and   β + e^ε·α ≥ 1 − δ        (Kairouz, Oh & Viswanath 2015, Thm 2.1),

so a test with small α and β proves ε ≥ max(ln((1 − δ − β)/α), ln((1 − δ − α)/β)) (:func:`epsilon_from_rates`). The
rates are only estimated from finitely many runs, so the audit replaces them by Clopper–Pearson upper confidence
bounds α⁺, β⁺ (Clopper & Pearson 1934) — the recipe of Jagielski, Ullman & Oprea 2020 and Nasr et al. 2021. The
result is a *lower* bound on the true ε that holds with the stated confidence; it proves a claim wrong only when it
exceeds the claim, and a lower bound below the claim proves nothing.

Confidence split: the two rates come from independent runs; each upper bound is taken at level
1 − (1 − confidence)/2 (a Bonferroni split), so both hold together with probability ≥ ``confidence``.

Why a correct Gaussian claim is hard to witness: an (ε, δ) claim of a Gaussian is attained only by tests whose
false-positive rate is of the order of δ (:func:`gaussian_witness_alpha`: α* = Φ(−ε/μ − μ/2), 2.0·10⁻⁵ for lesson
10's DP-SGD step), and a finite audit cannot certify so small a rate: with no false alarm at all among m runs,
Clopper–Pearson still allows α up to 1 − (1 − c)^{1/m} ≈ ln(1/(1 − c))/m. A low bound then comes from the
statistics of rare events, not from the mechanism.

:func:`audit_mechanism` plays the game many times with an estimated likelihood-ratio test: it picks the test on one
half of the runs and counts its errors on the other half, so the bound stays valid. :data:`AUDIT_CASES` holds small
mechanisms, correct ones and ones with planted implementation bugs, for lesson 10's "catch a bug" exercise, each
with its claim and with its exact ε on the auditor's pair x, x′; :class:`NeighbourGame` is the game one learner
plays by hand.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from typing import Any, Callable

import numpy as np
from scipy import stats

from dpviz._validation import Interval, as_rng, check_delta, check_in_range, check_integer, check_real_array
from dpviz.mechanisms.gaussian import Gaussian
from dpviz.mechanisms.laplace import Laplace
from dpviz.mechanisms.randomized_response import RandomizedResponse
from dpviz.selection import sparse_vector_privacy_loss, sparse_vector_scales

__all__ = [
    "AuditResult",
    "AuditCase",
    "AUDIT_CASES",
    "audit_case",
    "audit_case_curve",
    "audit_mechanism",
    "clopper_pearson_upper",
    "epsilon_from_rates",
    "epsilon_lower_bound",
    "gaussian_witness_alpha",
    "NeighbourGame",
    "SAMPLE_SEED",
]

#: The runs one audit draws: 8 to 2·10⁶ (each run is one scalar output: 2·10⁶ doubles are 16 MB).
TRIALS = Interval(8, 2_000_000, integer=True)
#: Outputs :meth:`AuditCase.sample` draws on each neighbour: 1 to as many as an audit's runs.
SAMPLE_SIZE = Interval(1, TRIALS.high, integer=True)

#: Lesson 10's seed for the outputs its audit figure draws (:meth:`AuditCase.sample`): a lesson constant.
SAMPLE_SEED = 99


# ============================================================================================ the bound


def clopper_pearson_upper(successes, trials, alpha):
    """One-sided Clopper–Pearson upper confidence bound on a binomial rate: the p with P[Bin(n, p) ≤ k] = α, i.e.
    the (1 − α) quantile of Beta(k + 1, n − k); 1 when k = n (Clopper & Pearson 1934). P[p ≤ bound] ≥ 1 − α.

    ``successes`` k and ``trials`` n: integers (scalars, or arrays that broadcast) with n ≥ 1 and 0 ≤ k ≤ n;
    ``alpha`` in (0, 1). Scalars give a float, arrays an array.

    >>> round(clopper_pearson_upper(0, 2500, 0.025), 6)  # no false alarm in 2500 runs still allows α ≈ 0.15%
    0.001474
    """
    k = check_real_array(successes, "successes")
    n = check_real_array(trials, "trials")
    a = check_in_range(alpha, "alpha", 0.0, 1.0, low_inclusive=False, high_inclusive=False)
    for arr, name in ((k, "successes"), (n, "trials")):
        if np.any(arr != np.round(arr)) or float(np.max(np.abs(arr))) > 2.0 ** 53:
            raise ValueError(f"{name} is not allowed: must hold integers of magnitude <= 2**53.")
    try:
        kb, nb = np.broadcast_arrays(k, n)
    except ValueError:
        raise ValueError(f"successes of shape {k.shape} and trials of shape {n.shape} are not allowed: must "
                         "broadcast together.") from None
    if np.any(nb < 1) or np.any(kb < 0) or np.any(kb > nb):
        raise ValueError("successes and trials are not allowed: must satisfy trials >= 1 and "
                         "0 <= successes <= trials.")
    out = _cp_upper(kb, nb, a)
    return float(out) if np.ndim(successes) == 0 and np.ndim(trials) == 0 else out


def _cp_upper(k, n, alpha):
    """:func:`clopper_pearson_upper` on validated counts (broadcast), no checks."""
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        ub = stats.beta.ppf(1.0 - alpha, k + 1.0, np.maximum(n - k, 1e-300))
    return np.where(k >= n, 1.0, ub)


def epsilon_from_rates(false_positive_rate, false_negative_rate, delta: float = 0.0):
    """ε ≥ max(0, ln((1 − δ − β)/α), ln((1 − δ − α)/β)): the least ε that an (ε, δ)-DP mechanism needs to let a test
    reach false-positive rate α and false-negative rate β, from α + e^ε·β ≥ 1 − δ and β + e^ε·α ≥ 1 − δ (Kairouz,
    Oh & Viswanath 2015, Thm 2.1); ∞ when a rate is 0 and the other below 1 − δ.

    Rates in [0, 1] (scalars, or arrays that broadcast), δ in [0, 1). Scalars give a float, arrays an array.

    >>> round(epsilon_from_rates(0.1, 0.1), 4)  # ln 9
    2.1972
    """
    a = check_real_array(false_positive_rate, "false_positive_rate")
    b = check_real_array(false_negative_rate, "false_negative_rate")
    for arr, name in ((a, "false_positive_rate"), (b, "false_negative_rate")):
        if np.any((arr < 0) | (arr > 1)):
            raise ValueError(f"{name} is not allowed: must hold probabilities in [0, 1].")
    try:
        ab, bb = np.broadcast_arrays(a, b)
    except ValueError:
        raise ValueError(f"false_positive_rate of shape {a.shape} and false_negative_rate of shape {b.shape} are "
                         "not allowed: must broadcast together.") from None
    out = _kov_epsilon(ab, bb, check_delta(delta))
    return float(out) if np.ndim(false_positive_rate) == 0 and np.ndim(false_negative_rate) == 0 else out


def _kov_epsilon(alpha, beta, delta):
    """:func:`epsilon_from_rates` unchecked: the one home of the Kairouz–Oh–Viswanath inversion."""
    alpha, beta = np.asarray(alpha, dtype=float), np.asarray(beta, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # x/5e-324 = inf: ε = ∞, not a warning
        e1 = np.log(np.maximum(1.0 - delta - beta, 0.0) / alpha)
        e2 = np.log(np.maximum(1.0 - delta - alpha, 0.0) / beta)
    eps = np.maximum(np.maximum(e1, e2), 0.0)  # ln 0 = −∞ where vacuous: the bound is then 0
    return np.where(np.isnan(eps), 0.0, eps)  # 0/0 (a rate 0 and nothing left to explain): no evidence


def _bound(tp, fp, pos, neg, delta, confidence):
    """Vectorised core of :func:`epsilon_lower_bound` (validated input)."""
    a = (1.0 - confidence) / 2.0  # Bonferroni: half of the error probability for each rate
    fpr_up = _cp_upper(fp, neg, a)
    fnr_up = _cp_upper(np.asarray(pos) - np.asarray(tp), pos, a)
    return _kov_epsilon(fpr_up, fnr_up, delta)


def gaussian_witness_alpha(mu: float, delta: float) -> float:
    """The false-positive rate α* = Φ(−ε/μ − μ/2) at which the best test of N(0, 1) against N(μ, 1) attains the
    Gaussian's exact (ε, δ), ε = ε(δ; μ): the likelihood-ratio test at ratio e^ε, whose errors (α*, β*) make
    α + e^ε·β = 1 − δ an equality; e^ε·α* is the second term of δ = Φ(μ/2 − ε/μ) − e^ε·Φ(−μ/2 − ε/μ) (Balle & Wang
    2018, Thm 8). An audit that cannot certify a false-positive rate near α* cannot reach the claim.

    μ in (0, 30], δ in (0, 1).

    >>> f"{gaussian_witness_alpha(1 / 2.4, 1e-5):.2e}"  # lesson 10's DP-SGD step: σ = z·C = 2.4, C = 1
    '1.95e-05'
    """
    m = check_in_range(mu, "mu", 0.0, 30.0, low_inclusive=False)
    d = check_delta(delta, allow_zero=False)
    eps = float(Gaussian(1.0 / m, 1.0).epsilon(d))
    return float(stats.norm.cdf(-eps / m - m / 2.0))


def _check_counts(true_positives, false_positives, positives, negatives):
    pos = check_integer(positives, "positives", minimum=1, maximum=2**53)
    neg = check_integer(negatives, "negatives", minimum=1, maximum=2**53)
    tp = check_integer(true_positives, "true_positives", minimum=0, maximum=pos)
    fp = check_integer(false_positives, "false_positives", minimum=0, maximum=neg)
    return tp, fp, pos, neg


def _check_confidence(confidence) -> float:
    return check_in_range(confidence, "confidence", 0.0, 1.0, low_inclusive=False, high_inclusive=False)


def epsilon_lower_bound(true_positives: int, false_positives: int, positives: int, negatives: int, *,
                        delta: float = 0.0, confidence: float = 0.95) -> float:
    """A lower bound on the ε of any (ε, δ)-DP mechanism, from the error counts of one fixed test.

    The test guessed "x′" on ``true_positives`` of ``positives`` runs on x′ and on ``false_positives`` of
    ``negatives`` runs on x. With α⁺, β⁺ the one-sided Clopper–Pearson upper bounds (Clopper & Pearson 1934) on
    the false-positive rate α = FP/negatives and the false-negative rate β = 1 − TP/positives, each at level
    1 − (1 − confidence)/2 (Bonferroni), the returned

        ε_lb = max(0, ln((1 − δ − β⁺)/α⁺), ln((1 − δ − α⁺)/β⁺))

    satisfies P[ε_lb ≤ ε] ≥ ``confidence`` for a mechanism that is (ε, δ)-DP, because every test obeys
    α + e^ε β ≥ 1 − δ and β + e^ε α ≥ 1 − δ (Kairouz, Oh & Viswanath 2015, Thm 2.1; the audit recipe of
    Jagielski, Ullman & Oprea 2020 and Nasr et al. 2021). The bound is 0 when it says nothing.

    The test must not be chosen by looking at these same counts (see :func:`audit_mechanism`).

    Raises
    ------
    ValueError
        Counts that are not integers, ``positives``/``negatives`` outside [1, 2⁵³], a count above its total,
        ``delta`` outside [0, 1), ``confidence`` outside (0, 1); the message names the parameter.

    Examples
    --------
    >>> round(epsilon_lower_bound(900, 100, 1000, 1000), 3)  # a test with α = β = 0.1
    1.99
    >>> epsilon_lower_bound(500, 500, 1000, 1000)  # a coin flip proves nothing
    0.0
    """
    tp, fp, pos, neg = _check_counts(true_positives, false_positives, positives, negatives)
    delta = check_delta(delta)
    confidence = _check_confidence(confidence)
    return float(_bound(tp, fp, pos, neg, delta, confidence))




# ============================================================================================ the audit


@dataclasses.dataclass(frozen=True)
class AuditResult:
    """What :func:`audit_mechanism` found: the bound and the raw counts of the evaluation half.

    ``positives`` runs were on x′ and ``negatives`` on x; the test guessed "x′" on ``true_positives`` and
    ``false_positives`` of them. ``threshold`` and ``direction`` describe the chosen test (guess x′ when
    ``direction · score ≥ threshold``), ``discrete`` whether the score was an estimated likelihood ratio of a
    discrete output. ``calibration_bound`` is the bound the chosen test had on the selection half (not valid as
    a bound: it was maximised there). The fields are validated (counts within their totals, ε ≥ 0, no NaN).
    """

    epsilon_lower: float
    true_positives: int
    false_positives: int
    positives: int
    negatives: int
    delta: float
    confidence: float
    threshold: float
    direction: int
    discrete: bool
    calibration_bound: float

    def __post_init__(self):
        tp, fp, pos, neg = _check_counts(self.true_positives, self.false_positives, self.positives, self.negatives)
        for name, value in (("true_positives", tp), ("false_positives", fp), ("positives", pos),
                            ("negatives", neg)):
            object.__setattr__(self, name, value)
        for name in ("epsilon_lower", "calibration_bound"):
            object.__setattr__(self, name, check_in_range(getattr(self, name), name, 0.0, math.inf))
        object.__setattr__(self, "delta", check_delta(self.delta))
        object.__setattr__(self, "confidence", _check_confidence(self.confidence))
        object.__setattr__(self, "threshold", check_in_range(self.threshold, "threshold", -math.inf, math.inf))
        if self.direction not in (1, -1) or isinstance(self.direction, bool):
            raise ValueError(f"direction = {self.direction!r} is not allowed: must be 1 or -1.")
        object.__setattr__(self, "direction", int(self.direction))
        if not isinstance(self.discrete, (bool, np.bool_)):
            raise TypeError(f"discrete = {self.discrete!r} is not allowed: must be a bool.")
        object.__setattr__(self, "discrete", bool(self.discrete))

    @property
    def false_positive_rate(self) -> float:
        return self.false_positives / self.negatives

    @property
    def false_negative_rate(self) -> float:
        return 1.0 - self.true_positives / self.positives


_MAX_DISCRETE = 64  # at most this many distinct outputs: the test estimates the likelihood ratio of each
_MAX_CANDIDATES = 256  # thresholds tried on the selection half (continuous outputs: quantiles)


def _draw(mechanism_factory, dataset, size, rng, name) -> np.ndarray:
    """``size`` outputs of the sampler on ``dataset``; anything the sampler raises or returns that is not ``size``
    finite numbers becomes a ValueError naming the dataset (the sampler is the caller's code)."""
    try:
        with np.errstate(all="ignore"):
            out = np.asarray(mechanism_factory(dataset, size, rng))
    except Exception as exc:  # noqa: BLE001 — the caller's sampler failed: say so, by name
        raise ValueError(f"mechanism_factory failed on {name} = {_short(dataset)}: {type(exc).__name__}: "
                         f"{str(exc)[:120]}") from exc
    if out.dtype.kind not in "biuf":
        raise ValueError(f"mechanism_factory returned {out.dtype} outputs on {name}: must return real numbers")
    out = out.astype(float)
    if out.shape != (size,):
        raise ValueError(f"mechanism_factory returned shape {out.shape} on {name}: must return {size} scalar "
                         "outputs, one per run")
    if not np.all(np.isfinite(out)):
        raise ValueError(f"mechanism_factory returned non-finite outputs on {name}: must be finite numbers")
    return out


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _scores(sel_neg, sel_pos, eval_neg, eval_pos):
    """Map outputs to scores (larger = more like x′). Discrete outputs: the estimated log likelihood ratio of each
    value on the selection half (add-½ smoothing); continuous outputs: the output itself. Returns
    (scores of the four arrays, discrete?)."""
    values = np.unique(np.concatenate([sel_neg, sel_pos]))
    if values.size <= _MAX_DISCRETE:
        cn = np.array([np.count_nonzero(sel_neg == v) for v in values], dtype=float)
        cp = np.array([np.count_nonzero(sel_pos == v) for v in values], dtype=float)
        llr = np.log((cp + 0.5) / (sel_pos.size + 0.5)) - np.log((cn + 0.5) / (sel_neg.size + 0.5))

        def score(a):
            idx = np.searchsorted(values, a)
            idx = np.clip(idx, 0, values.size - 1)
            seen = values[idx] == a
            return np.where(seen, llr[idx], 0.0)  # a value never seen in selection: no evidence either way

        return [score(a) for a in (sel_neg, sel_pos, eval_neg, eval_pos)], True
    return [sel_neg, sel_pos, eval_neg, eval_pos], False


def _counts_at(neg_sorted, pos_sorted, thresholds):
    """(TP, FP) of "guess x′ iff score ≥ t" for every t (scores pre-sorted)."""
    tp = pos_sorted.size - np.searchsorted(pos_sorted, thresholds, side="left")
    fp = neg_sorted.size - np.searchsorted(neg_sorted, thresholds, side="left")
    return tp, fp


def audit_mechanism(mechanism_factory: Callable[[Any, int, np.random.Generator], Any], x: Any, x_prime: Any, *,
                    trials: int = 10_000, delta: float = 0.0, confidence: float = 0.95, rng=None) -> AuditResult:
    """Play the neighbouring-dataset game ``trials`` times and return a lower bound on the mechanism's ε.

    ``mechanism_factory(dataset, size, rng)`` must return ``size`` independent scalar outputs of the mechanism
    run on ``dataset`` (a vectorised sampler: one call draws all runs on one dataset). Half of the runs use x
    (negatives), half x′ (positives). Each half is split again in two:

    * the **selection** half picks the test: for continuous outputs a threshold test "guess x′ iff o ≥ t" or
      "iff o ≤ t" (the likelihood-ratio test of a monotone-likelihood-ratio family such as Laplace or Gaussian
      noise), for outputs with at most 64 distinct values the estimated likelihood-ratio test (values ranked by
      their estimated ratio P[o | x′]/P[o | x]); the threshold and direction maximise the bound on this half;
    * the **evaluation** half counts the chosen test's hits and false alarms, and :func:`epsilon_lower_bound`
      turns them into the bound.

    Because the test is fixed before the evaluation runs are looked at, the bound holds with probability
    ≥ ``confidence`` (Jagielski, Ullman & Oprea 2020; Nasr et al. 2021). This is Monte Carlo: it can only show
    that a claim is *too small*, never that it holds.

    Raises
    ------
    ValueError
        ``trials`` not an integer in :data:`TRIALS`, ``delta`` outside [0, 1), ``confidence`` outside
        (0, 1), or a sampler returning the wrong shape or non-finite values.
    """
    trials = TRIALS.check(trials, "trials")
    delta = check_delta(delta)
    confidence = _check_confidence(confidence)
    if not callable(mechanism_factory):
        raise ValueError(f"mechanism_factory = {mechanism_factory!r} is not allowed: must be a callable "
                         "(dataset, size, rng) -> outputs")
    g = as_rng(rng)
    n_neg = trials // 2
    n_pos = trials - n_neg
    neg = _draw(mechanism_factory, x, n_neg, g, "x")
    pos = _draw(mechanism_factory, x_prime, n_pos, g, "x_prime")
    sn, sp = n_neg // 2, n_pos // 2
    (s_neg, s_pos, e_neg, e_pos), discrete = _scores(neg[:sn], pos[:sp], neg[sn:], pos[sp:])
    best = (-1.0, 0.0, 1)
    for direction in ((1,) if discrete else (1, -1)):
        a, b = np.sort(direction * s_neg), np.sort(direction * s_pos)
        cand = np.unique(np.concatenate([a, b]))
        if cand.size > _MAX_CANDIDATES:
            cand = np.unique(np.quantile(cand, np.linspace(0.0, 1.0, _MAX_CANDIDATES)))
        tp, fp = _counts_at(a, b, cand)
        bounds = _bound(tp, fp, b.size, a.size, delta, confidence)
        i = int(np.argmax(bounds))
        if bounds[i] > best[0]:
            best = (float(bounds[i]), float(cand[i]), direction)
    cal, t, direction = best
    e_n, e_p = direction * e_neg, direction * e_pos
    tp = int(np.count_nonzero(e_p >= t))
    fp = int(np.count_nonzero(e_n >= t))
    eps = float(_bound(tp, fp, e_p.size, e_n.size, delta, confidence))
    return AuditResult(epsilon_lower=eps, true_positives=tp, false_positives=fp, positives=int(e_p.size),
                       negatives=int(e_n.size), delta=delta, confidence=confidence, threshold=t,
                       direction=direction, discrete=discrete, calibration_bound=max(cal, 0.0))




# ============================================================================================ catch a bug


def _check_dataset(value: Any, name: str, depth: int = 0) -> Any:
    """A dataset of the catalogue: a finite real number, a real array without NaN/inf, or a tuple/list of those."""
    if depth > 4:
        raise ValueError(f"{name} is nested too deeply: must be numbers, arrays, or tuples of them.")
    if isinstance(value, (tuple, list)):
        return type(value)(_check_dataset(v, name, depth + 1) for v in value)
    if isinstance(value, np.ndarray):
        return check_real_array(value, name, allow_empty=True)
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} = {_short(value)} is not allowed: must be real numbers, arrays, or tuples of them.")
    return check_in_range(value, name, -math.inf, math.inf) if isinstance(value, float) else value


def _check_text(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} = {_short(value)} is not allowed: must be a str.")
    return value


@dataclasses.dataclass(frozen=True)
class AuditCase:
    """A small mechanism with its privacy claim, for lesson 10's "catch a bug" exercise.

    ``sampler(dataset, size, rng)`` is the vectorised sampler :func:`audit_mechanism` takes; ``x`` and ``x_prime``
    are the neighbouring datasets the auditor picked (with the canary); ``claimed_epsilon``/``claimed_delta`` the
    implementation's **claim**; ``bug`` the planted bug ("" for a correct implementation). ``exact_epsilon`` is
    **computed**, not claimed: the exact ε (at the claimed δ) of this implementation on this one pair x, x′, from
    the closed forms of its noise (∞ where an output of x′ is impossible on x) — the most an audit of this pair can
    approach, and a lower bound on the implementation's ε over all neighbours (for a correct implementation it may
    lie below the claim, which covers every pair). For the text and the readout only; the audit never uses it.
    """

    key: str
    label: str
    sampler: Callable[[Any, int, np.random.Generator], np.ndarray]
    x: Any
    x_prime: Any
    claimed_epsilon: float
    claimed_delta: float
    bug: str
    exact_epsilon: float
    source: str

    def __post_init__(self):
        for name in ("key", "label", "bug", "source"):
            _check_text(getattr(self, name), name)
        if not callable(self.sampler):
            raise TypeError(f"sampler = {_short(self.sampler)} is not allowed: must be a callable "
                            "(dataset, size, rng) -> outputs.")
        object.__setattr__(self, "x", _check_dataset(self.x, "x"))
        object.__setattr__(self, "x_prime", _check_dataset(self.x_prime, "x_prime"))
        object.__setattr__(self, "claimed_epsilon", check_in_range(self.claimed_epsilon, "claimed_epsilon", 0.0,
                                                                   math.inf, low_inclusive=False))
        object.__setattr__(self, "claimed_delta", check_delta(self.claimed_delta, "claimed_delta"))
        e = self.exact_epsilon
        if not (isinstance(e, (float, np.floating)) and e == math.inf):
            e = check_in_range(e, "exact_epsilon", 0.0, math.inf)
        object.__setattr__(self, "exact_epsilon", float(e))

    @property
    def buggy(self) -> bool:
        return bool(self.bug)

    def sample(self, size: int, rng=None) -> tuple[np.ndarray, np.ndarray]:
        """(``size`` outputs on x, ``size`` outputs on x′), drawn in that order from ``rng`` (the outputs lesson 10's
        figure shows, with ``rng`` = :data:`SAMPLE_SEED`); ``size`` in :data:`SAMPLE_SIZE`."""
        n = SAMPLE_SIZE.check(size, "size")
        g = as_rng(rng)
        return _draw(self.sampler, self.x, n, g, "x"), _draw(self.sampler, self.x_prime, n, g, "x_prime")


def _laplace_count(mech: Laplace):
    def sample(count, size, rng):
        return count + mech.sample_noise(size, rng)
    return sample


def _rating_sum(mech: Laplace):
    def sample(ratings, size, rng):
        return float(np.sum(ratings)) + mech.sample_noise(size, rng)
    return sample


def _step_total(grads, clip: float | None) -> float:
    """One full-batch DP-SGD step of a 1-parameter model before noise: the per-example gradients summed, each
    clipped to [−C, C] (``clip=None``: the implementation that forgets to clip)."""
    g = np.asarray(grads, dtype=float)
    return float(np.sum(g if clip is None else np.clip(g, -clip, clip)))


def _dpsgd_step(clip: float | None, mech: Gaussian):
    """The step plus N(0, σ²) noise, σ = z·C (Abadi et al. 2016, Alg. 1)."""
    def sample(grads, size, rng):
        return _step_total(grads, clip) + mech.sample_noise(size, rng)
    return sample


def _svt_first_above(eps: float, variant: str):
    """The sparse vector technique with c = 1 on a list of queries of sensitivity 1, the noise scales of
    :func:`dpviz.selection.sparse_vector_scales` (Lyu, Su & Li 2017, Alg. 1: threshold + Lap(2/ε), each query +
    Lap(4/ε)); the output is the index of the first query above the noisy threshold (len(queries) if none).
    ``variant="no_query_noise"`` is the broken variant without noise on the queries (Lyu, Su & Li 2017, Alg. 5)."""
    rho_scale, nu_scale, _ = sparse_vector_scales(eps, 1.0, 1, variant)

    def sample(data, size, rng):
        threshold, answers = data
        a = np.asarray(answers, dtype=float)
        rho = rng.laplace(0.0, rho_scale, size=(size, 1))
        nu = rng.laplace(0.0, nu_scale, size=(size, a.size)) if nu_scale > 0 else 0.0
        above = (a[None, :] + nu) >= threshold + rho
        first = np.where(above.any(axis=1), above.argmax(axis=1), a.size)
        return first.astype(float)
    return sample


def _svt_exact(x, x_prime, eps: float, variant: str) -> float:
    """The exact ε (δ = 0) of :func:`_svt_first_above` on the pair: max over outputs of |ln P[o | x]/P[o | x′]|
    (:func:`dpviz.selection.sparse_vector_privacy_loss`; the index of the first ⊤ is the answer pattern)."""
    (threshold, answers), (_, answers_prime) = x, x_prime
    losses = sparse_vector_privacy_loss(list(answers), list(answers_prime), threshold, eps, variant=variant)
    return max(abs(v) for v in losses.values())


def _rr(mech: RandomizedResponse):
    p_keep = mech.keep_probability

    def sample(bit, size, rng):
        keep = rng.random(size) < p_keep
        return np.where(keep, float(bit), 1.0 - float(bit))
    return sample


#: The DP-SGD step cases: noise multiplier z = 2.4 with C = 1, so σ = z·C = 2.4; one Gaussian step of sensitivity
#: C = 1 is then (1.63, 10⁻⁵)-DP, exactly (Balle & Wang 2018, Thm 8).
_SGD_DELTA = 1e-5
_SGD_Z = 2.4
_SGD_CLIP = 1.0
_GRADS = (0.3, -0.8, 0.5, 1.0, -0.2)  # the other examples' gradients, already within [−1, 1]
_CANARY = 25.0


def _build_cases() -> tuple[AuditCase, ...]:
    sgd = Gaussian(_SGD_Z * _SGD_CLIP, 1.0)
    sgd_claim = float(Gaussian(_SGD_Z * _SGD_CLIP, _SGD_CLIP).epsilon(_SGD_DELTA))  # sensitivity C: the analysis
    grads, grads_canary = np.array(_GRADS), np.array(_GRADS + (_CANARY,))

    def step_exact(clip):  # the Gaussian of the step on this pair: shift |Δ total|, noise σ
        shift = abs(_step_total(grads_canary, clip) - _step_total(grads, clip))
        return float(Gaussian(_SGD_Z * _SGD_CLIP, shift).epsilon(_SGD_DELTA))

    lap_ok, lap_eps_scale, lap_ratings = Laplace(1.0 / 1.0), Laplace(0.5), Laplace(1.0 / 1.0)  # b = Δ_used/ε
    ratings, ratings_prime = np.array([2.0, 1.0, 0.0, 1.0]), np.array([2.0, 1.0, 2.0, 1.0])
    rating_shift = abs(float(np.sum(ratings_prime) - np.sum(ratings)))
    rr = RandomizedResponse(1.0)
    svt = ((1.0, (0.0, 1.0)), (1.0, (1.0, 0.0)))  # threshold 1; answers move by ≤ 1 each (sensitivity 1)
    return (
        AuditCase("laplace_ok", "Laplace count, b = 1/ε", _laplace_count(lap_ok), 100.0, 101.0, 1.0, 0.0, "",
                  Laplace(lap_ok.scale, 1.0).pure_epsilon, "Dwork & Roth 2014, Def. 3.3"),
        AuditCase("laplace_eps_scale", "Laplace count, noise scale written as ε", _laplace_count(lap_eps_scale),
                  100.0, 101.0, 0.5, 0.0,
                  "the noise scale is ε·Δ instead of Δ/ε: at ε = 0.5 the noise is 4× too small",
                  Laplace(lap_eps_scale.scale, 1.0).pure_epsilon, "Dwork & Roth 2014, Def. 3.3"),
        AuditCase("ratings_off_by_one", "sum of ratings in {0, 1, 2}, Laplace", _rating_sum(lap_ratings),
                  ratings, ratings_prime, 1.0, 0.0,
                  "off-by-one sensitivity: Δ = hi − lo − 1 = 1, but replacing a rating 0 by 2 moves the sum by 2",
                  Laplace(lap_ratings.scale, rating_shift).pure_epsilon, "Dwork & Roth 2014, Def. 3.3"),
        AuditCase("rr_ok", "randomized response, ε = 1", _rr(rr), 0, 1, 1.0, 0.0, "", rr.pure_epsilon,
                  "Warner 1965"),
        AuditCase("dpsgd_ok", "DP-SGD step, clip C = 1, z = 2.4", _dpsgd_step(_SGD_CLIP, sgd), grads, grads_canary,
                  sgd_claim, _SGD_DELTA, "", step_exact(_SGD_CLIP), "Abadi et al. 2016, Alg. 1"),
        AuditCase("dpsgd_no_clip", "DP-SGD step, z = 2.4 (clipping line commented out)", _dpsgd_step(None, sgd),
                  grads, grads_canary, sgd_claim, _SGD_DELTA,
                  "forgets to clip: the canary's gradient 25 enters the sum in full, the noise is sized for 1",
                  step_exact(None), "Abadi et al. 2016, Alg. 1"),
        AuditCase("svt_ok", "sparse vector (first query above threshold), ε = 1", _svt_first_above(1.0, "correct"),
                  svt[0], svt[1], 1.0, 0.0, "", _svt_exact(svt[0], svt[1], 1.0, "correct"),
                  "Lyu, Su & Li 2017, Alg. 1"),
        AuditCase("svt_no_query_noise", "sparse vector variant without query noise, ε = 1",
                  _svt_first_above(1.0, "no_query_noise"), svt[0], svt[1], 1.0, 0.0,
                  "no noise on the query answers (a published variant that is not DP for any ε)",
                  _svt_exact(svt[0], svt[1], 1.0, "no_query_noise"), "Lyu, Su & Li 2017, Alg. 5"),
    )


#: The cases of the "catch a bug" exercise, by key.
AUDIT_CASES: dict[str, AuditCase] = {c.key: c for c in _build_cases()}


def _check_key(key: Any) -> AuditCase:
    if not isinstance(key, str) or key not in AUDIT_CASES:
        raise ValueError(f"key = {_short(key)} is not allowed: must be one of {', '.join(AUDIT_CASES)}.")
    return AUDIT_CASES[key]


def audit_case(key: str, *, trials: int = 10_000, confidence: float = 0.95, rng=None) -> AuditResult:
    """Audit one of :data:`AUDIT_CASES` at its claimed δ (see :func:`audit_mechanism`)."""
    c = _check_key(key)
    return audit_mechanism(c.sampler, c.x, c.x_prime, trials=trials, delta=c.claimed_delta, confidence=confidence,
                           rng=rng)


def audit_case_curve(key: str, trials: int, confidence: float = 0.95,
                     progress: Callable[[float], None] | None = None) -> tuple[list[int], list[float], AuditResult]:
    """Lesson 10's audit figure: independent audits of case ``key`` with ⌈trials/2^k⌉ runs (k = 5, …, 0; at least
    100), the i-th with seed i (lesson constants). Returns (the numbers of trials, their bounds, the largest audit's
    result). ``progress(f)`` is called after each audit with the fraction done (of the audits and one more step,
    the caller's figure)."""
    _check_key(key)
    n = TRIALS.check(trials, "trials")
    conf = _check_confidence(confidence)
    if progress is not None and not callable(progress):
        raise TypeError(f"progress = {_short(progress)} is not allowed: must be a callable progress(fraction) or None.")
    grid = sorted({max(100, int(round(n / 2 ** k))) for k in (5, 4, 3, 2, 1, 0)})
    bounds, result = [], None
    for i, m in enumerate(grid):  # independent audits of growing size
        result = audit_case(key, trials=m, confidence=conf, rng=i)
        bounds.append(result.epsilon_lower)
        if progress is not None:
            progress((i + 1) / (len(grid) + 1))
    assert result is not None
    return grid, bounds, result


# ============================================================================================ the game by hand


class NeighbourGame:
    """Lesson 10's neighbouring-dataset game with one player, on one full-batch DP-SGD step of a one-parameter
    model (Abadi et al. 2016, Alg. 1). x holds ordinary examples, x′ the same plus a canary with gradient
    ``canary_gradient``, clipped to [−C, C]. The output, relative to the sum on x, is N(0, σ²) on x and
    N(clip(g), σ²) on x′, with σ = z·C (z = ``noise_multiplier``, C = ``clip_norm``).

    Each round a fair coin drawn from ``rng`` picks x or x′ and :attr:`output` is the step's output; :meth:`play`
    records the player's guess and draws the next round. :meth:`bound` is :func:`epsilon_lower_bound` of the tally
    at (``delta``, ``confidence``), 0 until both datasets have come up; :attr:`claimed_epsilon` is the step's claim,
    the exact ε of the Gaussian mechanism with sensitivity C at δ (Balle & Wang 2018, Thm 8), which holds for every
    canary because clipping bounds its influence by C.

    Ranges: |g| ≤ 10⁶, z in (0, 10³], C in (0, 10³], δ in (0, 1), confidence in (0, 1).
    """

    def __init__(self, canary_gradient: float, noise_multiplier: float, rng=None, *, clip_norm: float = 1.0,
                 delta: float = 1e-5, confidence: float = 0.95):
        g = check_in_range(canary_gradient, "canary_gradient", -1e6, 1e6)
        z = check_in_range(noise_multiplier, "noise_multiplier", 0.0, 1e3, low_inclusive=False)
        c = check_in_range(clip_norm, "clip_norm", 0.0, 1e3, low_inclusive=False)
        self.delta = check_delta(delta, allow_zero=False)
        self.confidence = _check_confidence(confidence)
        self._rng = as_rng(rng)
        self.clip_norm = c
        self.shift = min(max(g, -c), c)
        self.sigma = z * c
        self.claimed_epsilon = float(Gaussian(self.sigma, c).epsilon(self.delta))
        self.true_positives = self.false_positives = self.positives = self.negatives = 0
        self.history: list[float] = []  # the bound after each round
        self.last_was_prime: bool | None = None  # which dataset the last round used (None before the first guess)
        self.last_right: bool | None = None
        self._new_round()

    def _new_round(self) -> None:
        self._secret_is_prime = bool(self._rng.random() < 0.5)
        self.output = (self.shift if self._secret_is_prime else 0.0) + float(self._rng.normal(0.0, self.sigma))

    @property
    def rounds(self) -> int:
        return self.positives + self.negatives

    def play(self, says_prime: bool) -> bool:
        """Record the guess "x′" (``says_prime`` True) or "x" for the current round, then draw the next round;
        returns whether the guess was right."""
        if not isinstance(says_prime, (bool, np.bool_)):
            raise TypeError(f"says_prime = {_short(says_prime)} is not allowed: must be a bool.")
        says_prime = bool(says_prime)
        if self._secret_is_prime:
            self.positives += 1
            self.true_positives += int(says_prime)
        else:
            self.negatives += 1
            self.false_positives += int(says_prime)
        self.last_was_prime = self._secret_is_prime
        self.last_right = says_prime == self._secret_is_prime
        self.history.append(self.bound())
        self._new_round()
        return self.last_right

    def bound(self) -> float:
        """The lower bound on ε the tally proves at (δ, confidence); 0 until both x and x′ have come up."""
        if self.positives == 0 or self.negatives == 0:
            return 0.0
        return float(_bound(self.true_positives, self.false_positives, self.positives, self.negatives, self.delta,
                            self.confidence))

"""Auditing a privacy claim: the neighbouring-dataset game turned into a lower bound on ε.

A mechanism claims (ε, δ)-DP. An auditor runs it many times on two neighbouring datasets x and x′ (x′ holds a
*canary* record x lacks, or a replaced one), and a test guesses from each output which dataset was used. Whatever
the test, (ε, δ)-DP forces its false-positive rate α (guessing x′ on x) and false-negative rate β (guessing x on
x′) to satisfy

    α + e^ε·β ≥ 1 − δ   and   β + e^ε·α ≥ 1 − δ        (Kairouz, Oh & Viswanath 2015, Thm 2.1),

so a test with small α and β proves ε ≥ max(ln((1 − δ − β)/α), ln((1 − δ − α)/β)). The rates are only estimated
from finitely many runs, so the audit replaces them by Clopper–Pearson upper confidence bounds α⁺, β⁺
(Clopper & Pearson 1934) — the recipe of Jagielski, Ullman & Oprea 2020 and Nasr et al. 2021. The result is a
*lower* bound on the true ε that holds with the stated confidence; it proves a claim wrong only when it exceeds
the claim, and a lower bound below the claim proves nothing.

Confidence split: the two rates come from independent runs; each upper bound is taken at level
1 − (1 − confidence)/2 (a Bonferroni split), so both hold together with probability ≥ ``confidence``.

:func:`audit_mechanism` plays the game many times with an estimated likelihood-ratio test: it picks the test on one
half of the runs and counts its errors on the other half, so the bound stays valid. :data:`AUDIT_CASES` holds small
mechanisms, correct ones and ones with planted implementation bugs, for lesson 07's "catch a bug" exercise.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Callable

import numpy as np
from scipy import stats

from dpviz._validation import as_rng, check_delta, check_in_range, check_integer
from dpviz.mechanisms.gaussian import Gaussian

__all__ = [
    "AuditResult",
    "AuditCase",
    "AUDIT_CASES",
    "audit_case",
    "audit_mechanism",
    "clopper_pearson_upper",
    "epsilon_lower_bound",
    "MAX_TRIALS",
]

#: Most runs one audit may draw (each run is one scalar output: 10⁷ doubles are 80 MB).
MAX_TRIALS = 2_000_000


# ============================================================================================ the bound


def clopper_pearson_upper(successes, trials, alpha):
    """One-sided Clopper–Pearson upper confidence bound on a binomial rate: the p with P[Bin(n, p) ≤ k] = α, i.e.
    the (1 − α) quantile of Beta(k + 1, n − k); 1 when k = n (Clopper & Pearson 1934). P[p ≤ bound] ≥ 1 − α.

    Vectorised over ``successes``/``trials`` (broadcast); no validation (see :func:`epsilon_lower_bound`).
    """
    k = np.asarray(successes, dtype=float)
    n = np.asarray(trials, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        ub = stats.beta.ppf(1.0 - alpha, k + 1.0, np.maximum(n - k, 1e-300))
    return np.where(k >= n, 1.0, ub)


def _bound(tp, fp, pos, neg, delta, confidence):
    """Vectorised core of :func:`epsilon_lower_bound` (validated input)."""
    a = (1.0 - confidence) / 2.0  # Bonferroni: half of the error probability for each rate
    fpr_up = clopper_pearson_upper(fp, neg, a)
    fnr_up = clopper_pearson_upper(np.asarray(pos) - np.asarray(tp), pos, a)
    with np.errstate(divide="ignore", invalid="ignore"):
        e1 = np.log(np.maximum(1.0 - delta - fnr_up, 0.0) / fpr_up)
        e2 = np.log(np.maximum(1.0 - delta - fpr_up, 0.0) / fnr_up)
    eps = np.maximum(np.maximum(e1, e2), 0.0)  # log(0) = −inf where vacuous: the bound is then 0
    return np.where(np.isnan(eps), 0.0, eps)


def _check_counts(true_positives, false_positives, positives, negatives):
    pos = check_integer(positives, "positives", minimum=1)
    neg = check_integer(negatives, "negatives", minimum=1)
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
        Counts that are not integers, ``positives``/``negatives`` < 1, a count above its total, ``delta`` outside
        [0, 1), ``confidence`` outside (0, 1); the message names the parameter.

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
    a bound: it was maximised there).
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

    @property
    def false_positive_rate(self) -> float:
        return self.false_positives / self.negatives

    @property
    def false_negative_rate(self) -> float:
        return 1.0 - self.true_positives / self.positives


_MAX_DISCRETE = 64  # at most this many distinct outputs: the test estimates the likelihood ratio of each
_MAX_CANDIDATES = 256  # thresholds tried on the selection half (continuous outputs: quantiles)


def _draw(mechanism_factory, dataset, size, rng, name) -> np.ndarray:
    out = np.asarray(mechanism_factory(dataset, size, rng), dtype=float)
    if out.shape != (size,):
        raise ValueError(f"mechanism_factory returned shape {out.shape} on {name}: must return {size} scalar "
                         "outputs, one per run")
    if not np.all(np.isfinite(out)):
        raise ValueError(f"mechanism_factory returned non-finite outputs on {name}: must be finite numbers")
    return out


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
        ``trials`` not an integer in [8, :data:`MAX_TRIALS`], ``delta`` outside [0, 1), ``confidence`` outside
        (0, 1), or a sampler returning the wrong shape or non-finite values.
    """
    trials = check_integer(trials, "trials", minimum=8, maximum=MAX_TRIALS)
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


@dataclasses.dataclass(frozen=True)
class AuditCase:
    """A small mechanism with its privacy claim, for lesson 07's "catch a bug" exercise.

    ``sampler(dataset, size, rng)`` is the vectorised sampler :func:`audit_mechanism` takes; ``x`` and ``x_prime``
    are the neighbouring datasets the auditor picked (with the canary); ``claimed_epsilon``/``claimed_delta`` the
    implementation's claim; ``bug`` the planted bug ("" for a correct implementation), ``true_epsilon`` the ε the
    code really has on these neighbours (∞ when it has none) — for the text only, never used by the audit.
    """

    key: str
    label: str
    sampler: Callable[[Any, int, np.random.Generator], np.ndarray]
    x: Any
    x_prime: Any
    claimed_epsilon: float
    claimed_delta: float
    bug: str
    true_epsilon: float
    source: str

    @property
    def buggy(self) -> bool:
        return bool(self.bug)


def _laplace_count(scale_of_eps: Callable[[float], float], eps: float):
    def sample(count, size, rng):
        return count + rng.laplace(0.0, scale_of_eps(eps), size=size)
    return sample


def _rating_sum(sensitivity_used: float, eps: float):
    def sample(ratings, size, rng):
        return float(np.sum(ratings)) + rng.laplace(0.0, sensitivity_used / eps, size=size)
    return sample


def _dpsgd_step(clip: float | None, sigma: float):
    """One full-batch DP-SGD step of a 1-parameter model: the summed per-example gradients, each clipped to
    [−C, C] (C = 1), plus N(0, (σC)²) noise (Abadi et al. 2016, Alg. 1); ``clip=None`` forgets to clip."""
    def sample(grads, size, rng):
        g = np.asarray(grads, dtype=float)
        total = float(np.sum(g if clip is None else np.clip(g, -clip, clip)))
        return total + rng.normal(0.0, sigma * 1.0, size=size)
    return sample


def _svt_first_above(eps: float, query_noise: bool):
    """The sparse vector technique with c = 1 on a list of queries of sensitivity 1 (Lyu, Su & Li 2017, Alg. 1):
    noisy threshold T + Lap(2/ε), each query + Lap(4/ε), output the index of the first query above the noisy
    threshold (len(queries) if none). ``query_noise=False`` is the broken variant that adds no noise to the
    queries (Lyu, Su & Li 2017, Alg. 5), which is not ε-DP for any ε."""
    def sample(data, size, rng):
        threshold, answers = data
        a = np.asarray(answers, dtype=float)
        rho = rng.laplace(0.0, 2.0 / eps, size=(size, 1))
        nu = rng.laplace(0.0, 4.0 / eps, size=(size, a.size)) if query_noise else 0.0
        above = (a[None, :] + nu) >= threshold + rho
        first = np.where(above.any(axis=1), above.argmax(axis=1), a.size)
        return first.astype(float)
    return sample


def _rr(eps: float):
    p_keep = math.exp(eps) / (1.0 + math.exp(eps))

    def sample(bit, size, rng):
        keep = rng.random(size) < p_keep
        return np.where(keep, float(bit), 1.0 - float(bit))
    return sample


#: σ of the DP-SGD step cases: one Gaussian step of sensitivity C = 1 is then (1.63, 10⁻⁵)-DP, exactly
#: (Balle & Wang 2018, Thm 8).
_SGD_DELTA = 1e-5
_SGD_SIGMA = 2.4
_GRADS = (0.3, -0.8, 0.5, 1.0, -0.2)  # the other examples' gradients, already within [−1, 1]


def _build_cases() -> tuple[AuditCase, ...]:
    sgd_eps = float(Gaussian(_SGD_SIGMA, 1.0).epsilon(_SGD_DELTA))
    svt = ((1.0, (0.0, 1.0)), (1.0, (1.0, 0.0)))  # threshold 1; answers move by ≤ 1 each (sensitivity 1)
    return (
        AuditCase("laplace_ok", "Laplace count, b = 1/ε", _laplace_count(lambda e: 1.0 / e, 1.0), 100.0, 101.0,
                  1.0, 0.0, "", 1.0, "Dwork & Roth 2014, Def. 3.3"),
        AuditCase("laplace_eps_scale", "Laplace count, noise scale written as ε",
                  _laplace_count(lambda e: e, 0.5), 100.0, 101.0, 0.5, 0.0,
                  "the noise scale is ε·Δ instead of Δ/ε: at ε = 0.5 the noise is 4× too small", 2.0,
                  "Dwork & Roth 2014, Def. 3.3"),
        AuditCase("ratings_off_by_one", "sum of ratings in {0, 1, 2}, Laplace",
                  _rating_sum(1.0, 1.0), np.array([2.0, 1.0, 0.0, 1.0]), np.array([2.0, 1.0, 2.0, 1.0]), 1.0, 0.0,
                  "off-by-one sensitivity: Δ = hi − lo − 1 = 1, but replacing a rating 0 by 2 moves the sum by 2",
                  2.0, "Dwork & Roth 2014, Def. 3.3"),
        AuditCase("rr_ok", "randomized response, ε = 1", _rr(1.0), 0, 1, 1.0, 0.0, "", 1.0, "Warner 1965"),
        AuditCase("dpsgd_ok", "DP-SGD step, clip C = 1, σ = 2.4", _dpsgd_step(1.0, _SGD_SIGMA), np.array(_GRADS),
                  np.array(_GRADS + (25.0,)), sgd_eps, _SGD_DELTA, "", sgd_eps, "Abadi et al. 2016, Alg. 1"),
        AuditCase("dpsgd_no_clip", "DP-SGD step, σ = 2.4 (clipping line commented out)",
                  _dpsgd_step(None, _SGD_SIGMA), np.array(_GRADS), np.array(_GRADS + (25.0,)), sgd_eps, _SGD_DELTA,
                  "forgets to clip: the canary's gradient 25 enters the sum in full, the noise is sized for 1",
                  math.inf, "Abadi et al. 2016, Alg. 1"),
        AuditCase("svt_ok", "sparse vector (first query above threshold), ε = 1", _svt_first_above(1.0, True),
                  svt[0], svt[1], 1.0, 0.0, "", 1.0, "Lyu, Su & Li 2017, Alg. 1"),
        AuditCase("svt_no_query_noise", "sparse vector variant without query noise, ε = 1",
                  _svt_first_above(1.0, False), svt[0], svt[1], 1.0, 0.0,
                  "no noise on the query answers (a published variant that is not DP for any ε)", math.inf,
                  "Lyu, Su & Li 2017, Alg. 5"),
    )


#: The cases of the "catch a bug" exercise, by key.
AUDIT_CASES: dict[str, AuditCase] = {c.key: c for c in _build_cases()}


def audit_case(key: str, *, trials: int = 10_000, confidence: float = 0.95, rng=None) -> AuditResult:
    """Audit one of :data:`AUDIT_CASES` at its claimed δ (see :func:`audit_mechanism`)."""
    if key not in AUDIT_CASES:
        raise ValueError(f"key = {key!r} is not allowed: must be one of {', '.join(AUDIT_CASES)}.")
    c = AUDIT_CASES[key]
    return audit_mechanism(c.sampler, c.x, c.x_prime, trials=trials, delta=c.claimed_delta, confidence=confidence,
                           rng=rng)


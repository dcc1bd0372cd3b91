"""The class view's numerics (:mod:`dpviz.classpoll`): buckets over a public domain, the local (k-RR) and central
(discrete Laplace) releases, the class budget and the game's pooled bound.

Oracles are closed forms written here from the definitions (p = e^ε/(e^ε + k − 1); the discrete Laplace pmf
(1 − r)/(1 + r)·r^{|y|}, r = e^{−1/s}; the Clopper–Pearson bound of zero errors in n, 1 − (α/2)^{1/n}), never the
code under test. The privacy tests compute the exact output law of each release on two neighbouring tallies (one
student's answer changed) and check the likelihood ratio ≤ e^ε everywhere, with equality attained; each is shown
to fail on a wrong implementation.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import dpviz.classpoll as C
from dpviz.accountants import BasicAccountant, PureDP
from dpviz.audit import epsilon_lower_bound
from dpviz.local import krr_release, krr_variance
from dpviz.mechanisms import DiscreteLaplace

CHOICE = C.Buckets.categorical(["yes", "no", "it depends"])


# ============================================================================================ buckets
def test_numeric_buckets_send_outside_values_to_the_end_bins():
    b = C.Buckets.numeric([0.0, 1.0, 2.5, 10.0])
    assert b.k == 3 and b.is_numeric
    assert b.labels == ("< 1", "[1, 2.5)", "≥ 2.5")
    cases = {-1e300: 0, -1.0: 0, 0.0: 0, 0.999: 0, 1.0: 1, 2.4999: 1, 2.5: 2, 10.0: 2, 11.0: 2, 1e300: 2}
    assert {x: b.bucket_of(x) for x in cases} == cases
    assert b.bucket_of(3) == 2 and b.bucket_of(np.float32(1.5)) == 1


def test_categorical_buckets_index_their_options():
    assert CHOICE.k == 3 and not CHOICE.is_numeric
    assert [CHOICE.bucket_of(x) for x in ("yes", "no", "it depends")] == [0, 1, 2]


def test_numeric_buckets_may_be_named():
    b = C.Buckets.numeric([0, 1, 2], labels=["low", "high"])
    assert b.labels == ("low", "high") and b.bucket_of(1.5) == 1


@pytest.mark.parametrize("answer", [math.nan, math.inf, -math.inf, "3", None, True, 1 + 1j])
def test_a_numeric_answer_outside_the_domain_is_refused_naming_it(answer):
    with pytest.raises(ValueError, match=r"^answer = .* is not allowed: must be"):
        C.Buckets.numeric([0, 1, 2]).bucket_of(answer)


@pytest.mark.parametrize("answer", ["maybe", "", 0, None, "YES"])
def test_a_choice_outside_the_options_is_refused_naming_them(answer):
    with pytest.raises(ValueError, match=r"^answer = .* is not allowed: must be one of the exercise's options "
                                         r"\('yes', 'no', 'it depends'\)"):
        CHOICE.bucket_of(answer)


@pytest.mark.parametrize("make, match", [
    (lambda: C.Buckets.categorical(["only"]), r"^labels has 1 entries.*between 2 and 100"),
    (lambda: C.Buckets.categorical([str(i) for i in range(101)]), r"^labels has 101 entries.*between 2 and 100"),
    (lambda: C.Buckets.categorical(["a", "a"]), r"^labels = \('a', 'a'\) is not allowed: must be distinct"),
    (lambda: C.Buckets.categorical(["a", " "]), r"^labels\[1\] = ' ' is not allowed: must be a non-empty string"),
    (lambda: C.Buckets.categorical(["a", "b" * 201]), r"^labels\[1\] = .* at most 200 characters"),
    (lambda: C.Buckets.categorical(["a", 2]), r"^labels\[1\] = 2 is not allowed"),
    (lambda: C.Buckets.numeric([0, 1]), r"^edges has 2 entries.*between 3 and 101"),
    (lambda: C.Buckets.numeric(range(102)), r"^edges has 102 entries.*between 3 and 101"),
    (lambda: C.Buckets.numeric([0, 2, 1]), r"^edges = \[0.0, 2.0, 1.0\] is not allowed: must be strictly increasing"),
    (lambda: C.Buckets.numeric([0, 1, 1]), r"must be strictly increasing"),
    (lambda: C.Buckets.numeric([0, 1, math.inf]), r"^edges contains 1 NaN or infinite"),
    (lambda: C.Buckets.numeric([0, 1, 2], labels=["a", "b", "c"]), r"^labels has 3 entries.*2 for 3 edges"),
])
def test_bad_buckets_are_refused_with_the_parameter_named(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_buckets_are_immutable_and_a_string_is_not_a_list_of_options():
    with pytest.raises(AttributeError):
        CHOICE.labels = ("x", "y")
    with pytest.raises(TypeError, match=r"^labels = str is not allowed"):
        C.Buckets.categorical("yes")


# ============================================================================================ local mode
def _law(k: int, eps: float, v: int) -> np.ndarray:
    """k-RR's report law from its definition (Kairouz, Oh & Viswanath 2014): e^ε/(e^ε + k − 1) at v, else
    1/(e^ε + k − 1)."""
    law = np.full(k, 1.0 / (math.exp(eps) + k - 1))
    law[v] = math.exp(eps) / (math.exp(eps) + k - 1)
    return law


def _max_ratio(laws) -> float:
    """The largest likelihood ratio P[report = j | answer a] / P[report = j | answer b] over all pairs a ≠ b."""
    return max(float(np.max(la / lb)) for i, la in enumerate(laws) for j, lb in enumerate(laws) if i != j)


@pytest.mark.parametrize("k", [2, 3, 10, 100])
@pytest.mark.parametrize("eps", [0.001, 0.1, 1.0, 4.0, 20.0])
def test_local_report_law_is_exact_and_its_ratio_is_e_to_the_epsilon(k, eps):
    """Exact-law privacy test, local mode: for every two answers (one student's answer changed), the report laws
    differ by a ratio ≤ e^ε at every report, and e^ε is attained (the true answer's report)."""
    b = C.Buckets.categorical([f"o{i}" for i in range(k)])
    laws = [C.report_law(v, b, eps) for v in range(k)]
    for v, law in enumerate(laws):
        assert law == pytest.approx(_law(k, eps, v), rel=1e-13, abs=0)
        assert float(np.sum(law)) == pytest.approx(1.0, rel=1e-14)
    assert _max_ratio(laws) <= math.exp(eps) * (1 + 1e-13)
    assert _max_ratio(laws) == pytest.approx(math.exp(eps), rel=1e-13)


def test_the_local_law_check_fails_on_a_wrong_implementation():
    """k-RR keeping the truth with the binary probability e^ε/(e^ε + 1) for k = 4 (the others sharing the rest)
    leaks (k − 1)e^ε: the same check refuses it."""
    k, eps = 4, 1.0
    p = math.exp(eps) / (math.exp(eps) + 1)
    wrong = [np.where(np.arange(k) == v, p, (1 - p) / (k - 1)) for v in range(k)]
    assert _max_ratio(wrong) == pytest.approx((k - 1) * math.exp(eps), rel=1e-13)
    assert _max_ratio(wrong) > math.exp(eps)


def test_randomize_draws_from_the_library_k_rr():
    """The report is dpviz.local.krr_release's draw (same generator, same report), so the law above is the law of
    the report the kernel sends."""
    b = C.Buckets.categorical([f"o{i}" for i in range(5)])
    for seed in range(40):
        for v in (0, 3):
            want = int(krr_release(np.array([v]), 5, 0.7, rng=np.random.default_rng(seed))[0])
            assert C.randomize(v, b, 0.7, np.random.default_rng(seed)) == want


def test_randomize_frequencies_match_the_report_law():
    """4000 reports of answer 1 (k = 3, ε = 1): each report's frequency within 5 standard deviations
    √(p(1 − p)/n) of its exact probability (a false alarm has probability < 2e-6 for the three)."""
    g = np.random.default_rng(2024)
    n = 4000
    reports = np.bincount([C.randomize(1, CHOICE, 1.0, g) for _ in range(n)], minlength=3) / n
    law = _law(3, 1.0, 1)
    assert np.all(np.abs(reports - law) <= 5 * np.sqrt(law * (1 - law) / n))


def test_local_estimate_is_the_debiased_count_with_the_exact_standard_error():
    """Reports (0, 0, 1, 2, 2, 2) with k = 3, ε = 1: n·(c/n − q)/(p − q) per bucket, and the standard error
    n·√([q(1 − q) + f(p − q)(1 − p − q)]/(n(p − q)²)) at f = f̂ clipped to [0, 1] (Wang et al. 2017, Thm 2)."""
    reports = [0, 0, 1, 2, 2, 2]
    est = C.local_estimate(reports, CHOICE, 1.0)
    e = math.e
    p, q, n = e / (e + 2), 1 / (e + 2), 6
    c = np.array([2, 1, 3])
    f = (c / n - q) / (p - q)
    assert est.n == 6 and est.epsilon == 1.0
    assert est.counts == pytest.approx(n * f, rel=1e-12)
    fc = np.clip(f, 0, 1)
    se = n * np.sqrt((q * (1 - q) + fc * (p - q) * (1 - p - q)) / (n * (p - q) ** 2))
    assert est.standard_errors == pytest.approx(se, rel=1e-12)
    assert f[1] < 0 < fc[0]  # the plug-in clip matters for this tally
    lo, hi = est.interval(0.95)
    assert (hi - lo) / 2 == pytest.approx(1.959963984540054 * se, rel=1e-12)
    assert "Wang et al. 2017" in est.source


@pytest.mark.slow
def test_local_estimate_is_unbiased_and_its_variance_is_the_exact_one():
    """A class of 30 with true counts (12, 3, 15), ε = 1, 4000 independent classes (fixed seed). The mean estimate
    of each count is within 5 standard errors of the truth, the standard error of the mean being
    n√(Var f̂_v/T) with the exact Var f̂_v; the empirical variance is within 6√(2/T) ≈ 13 % of the exact one (the
    sample variance of T near-normal draws has relative standard deviation √(2/(T − 1))). False alarm < 1e-5."""
    truth = np.array([12, 3, 15])
    answers = np.repeat(np.arange(3), truth)
    n, eps, trials = 30, 1.0, 4000
    g = np.random.default_rng(39)
    est = np.array([C.local_estimate(krr_release(answers, 3, eps, rng=g), CHOICE, eps).counts
                    for _ in range(trials)])
    var = np.array([n * n * krr_variance(n, 3, eps, t / n) for t in truth])
    assert np.all(np.abs(est.mean(axis=0) - truth) <= 5 * np.sqrt(var / trials))
    assert np.all(np.abs(est.var(axis=0, ddof=1) / var - 1) <= 6 * math.sqrt(2 / trials))


def test_local_estimate_refuses_bad_reports_naming_them():
    with pytest.raises(ValueError, match=r"^reports contains .*3\.0.*, which is not allowed: must be integers in 0..2"):
        C.local_estimate([0, 3], CHOICE, 1.0)
    with pytest.raises(ValueError, match=r"^reports is empty"):
        C.local_estimate([], CHOICE, 1.0)
    with pytest.raises(ValueError, match=r"^reports has 1000001 entries.*at most 1000000"):
        C.local_estimate(np.zeros(1_000_001), CHOICE, 1.0)
    with pytest.raises(ValueError, match=r"^epsilon = 0.0001 is not allowed: must be a number in \[0.001, 100\]"):
        C.local_estimate([0, 1], CHOICE, 1e-4)
    with pytest.raises(ValueError, match=r"^bucket = 3 is not allowed: must be an integer >= 0 and <= 2"):
        C.randomize(3, CHOICE, 1.0, 0)
    with pytest.raises(TypeError, match=r"^buckets = list is not allowed"):
        C.randomize(0, ["a", "b"], 1.0, 0)


# ============================================================================================ central mode
def _dlap(scale: float, y) -> np.ndarray:
    """The discrete Laplace pmf from its definition: (1 − r)/(1 + r)·r^{|y|}, r = e^{−1/scale}."""
    r = math.exp(-1.0 / scale)
    return (1 - r) / (1 + r) * r ** np.abs(np.asarray(y, dtype=float))


def test_central_release_adds_the_library_discrete_laplace_noise_at_scale_two_over_epsilon():
    """Same generator, same noise: the release is counts + DiscreteLaplace(2/ε) noise, the total exact."""
    counts = np.array([5, 0, 9, 2])
    for seed in range(20):
        rel = C.central_release(counts, 0.8, np.random.default_rng(seed))
        noise = DiscreteLaplace(scale=2.5).sample_noise(size=4, rng=np.random.default_rng(seed))
        assert rel.counts == tuple(int(v) for v in counts + noise)
        assert rel.total == 16 and rel.epsilon == 0.8
    assert rel.scale == C.central_scale(0.8) == 2.5
    assert rel.mechanism == DiscreteLaplace(scale=2.5)
    assert rel.mechanism.pmf(np.arange(-3, 4)) == pytest.approx(_dlap(2.5, np.arange(-3, 4)), rel=1e-13, abs=0)


def _grid(tallies, window: int) -> np.ndarray:
    """The released counts of one bucket looked at: every value within ``window`` of any tally's count."""
    return np.arange(min(map(min, tallies)) - window, max(map(max, tallies)) + window + 1)


def _joint_law(scale: float, tally, ys: np.ndarray) -> np.ndarray:
    """The exact pmf of the released histogram (k = 3 buckets) on the box ys³, from the mechanism's own closed
    form (:meth:`DiscreteLaplace.pmf`): entry [i, j, l] is P[release = (ys[i], ys[j], ys[l])]."""
    mech = DiscreteLaplace(scale=scale)
    return np.einsum("i,j,k->ijk", *[mech.pmf(ys, value=int(t)) for t in tally])


def _central_ratio(scale: float, x, x_prime, tail: float = 1e-12) -> tuple[float, float]:
    """The largest likelihood ratio between the released histograms of tallies x and x′, in both directions,
    over a window holding all but < ``tail`` of both laws; and the smaller mass the window holds."""
    r = math.exp(-1.0 / scale)
    window = math.ceil(scale * math.log(2 * 3 / (tail * (1 + r))))  # 3 buckets, each P[|Y| > w] = 2r^{w+1}/(1 + r)
    ys = _grid((x, x_prime), window)
    p, q = _joint_law(scale, x, ys), _joint_law(scale, x_prime, ys)
    assert np.all(p > 0) and np.all(q > 0)  # no probability underflowed: every ratio below is a true ratio
    return float(max(np.max(p / q), np.max(q / p))), float(min(p.sum(), q.sum()))


@pytest.mark.slow
@pytest.mark.parametrize("eps", [0.5, 1.0, 2.0, 5.0])
def test_central_release_law_on_neighbouring_tallies_has_ratio_e_to_the_epsilon(eps):
    """Exact-law privacy test, central mode: tallies x = (5, 2, 7) and x′ = (4, 2, 8) (one student's answer moved
    from the first bucket to the last; replace-one). The released histogram's exact law, over a window holding all
    but 1e-12 of it, has likelihood ratio ≤ e^ε at every output, and e^ε is attained (outputs below 4 in the first
    bucket and above 8 in the last)."""
    scale = C.central_release([5, 2, 7], eps, 0).scale
    ratio, mass = _central_ratio(scale, (5, 2, 7), (4, 2, 8))
    assert mass >= 1 - 1e-12
    assert ratio <= math.exp(eps) * (1 + 1e-12)
    assert ratio == pytest.approx(math.exp(eps), rel=1e-12)


def test_one_released_histogram_probability_matches_the_closed_form():
    """A far-out output has a probability of order 1e-13; it matches the product of the three pmfs written from
    the definition, relatively (abs=0), and the ratio to its neighbour-tally probability is e^ε exactly."""
    eps = 1.0
    scale = C.central_scale(eps)
    ys = _grid(((5, 2, 7), (4, 2, 8)), 60)
    p, q = _joint_law(scale, (5, 2, 7), ys), _joint_law(scale, (4, 2, 8), ys)
    y = (-10, 20, 25)
    idx = tuple(int(np.flatnonzero(ys == v)[0]) for v in y)
    want = float(np.prod(_dlap(scale, np.array(y) - np.array([5, 2, 7]))))
    assert want < 1e-12
    assert p[idx] == pytest.approx(want, rel=1e-12, abs=0)
    assert p[idx] / q[idx] == pytest.approx(math.exp(-eps), rel=1e-12, abs=0)


@pytest.mark.parametrize("wrong_scale", [lambda e: 1 / e, lambda e: 1 / (2 * e)])
def test_the_central_law_check_fails_on_a_wrong_scale(wrong_scale):
    """Noise of scale 1/ε (sensitivity 1, right for add/remove, wrong under replace-one) leaks e^{2ε}; scale 1/(2ε)
    leaks e^{4ε}: the same check sees both."""
    eps = 1.0
    ratio, _ = _central_ratio(wrong_scale(eps), (5, 2, 7), (4, 2, 8))
    assert ratio > math.exp(eps) * 1.5
    assert ratio == pytest.approx(math.exp(2 * eps / (wrong_scale(eps) * eps)), rel=1e-12)


@pytest.mark.parametrize("scale", [0.05, 0.5, 1.0, 2.0, 7.3, 40.0, 2000.0])
@pytest.mark.parametrize("level", [0.5, 0.9, 0.95, 0.99, 0.999999])
def test_noise_halfwidth_is_the_exact_quantile(scale, level):
    """Against the brute-force sums of the mechanism's pmf: P[|Y| ≤ m] ≥ level, and P[|Y| ≤ m − 1] < level."""
    m = C.noise_halfwidth(scale, level)
    pmf = DiscreteLaplace(scale=scale).pmf

    def mass(h):
        return float(pmf(0) + 2 * np.sum(pmf(np.arange(1, h + 1)))) if h >= 0 else 0.0

    assert mass(m) >= level - 1e-13
    assert mass(m - 1) < level + 1e-13


def test_central_interval_covers_with_the_exact_quantile():
    rel = C.central_release([10, 4, 0], 1.0, 5)
    m = C.noise_halfwidth(2.0, 0.95)
    assert m == 6  # P[|Y| > 5] = 2e^{−3}/(1 + e^{−1/2}) = 0.0620; P[|Y| > 6] = 2e^{−3.5}/(1 + e^{−1/2}) = 0.0376
    lo, hi = rel.interval()
    assert lo.tolist() == [c - 6 for c in rel.counts] and hi.tolist() == [c + 6 for c in rel.counts]


def test_central_release_refuses_bad_tallies_naming_them():
    for counts, match in (([1], r"^counts has 1 entries"), ([1, -1], r"^counts contains -1.0.*integers in"),
                          ([1, 0.5], r"^counts contains 0.5"), ([600_000, 600_000], r"^counts sum to 1200000"),
                          (np.zeros(101), r"^counts has 101 entries")):
        with pytest.raises(ValueError, match=match):
            C.central_release(counts, 1.0, 0)
    with pytest.raises(ValueError, match=r"^epsilon = 0 is not allowed"):
        C.central_release([1, 2], 0, 0)


# ============================================================================================ the budget
def test_the_budget_accounts_every_release_and_refuses_the_one_beyond_it():
    b = C.ClassBudget(4.0)
    out = b.release([3, 1], 1.0, 0)
    assert not out.refused and out.budget.spent == (1.0,)
    out = out.budget.release([3, 2], 2.5, 1, last=out.release)
    assert not out.refused and out.budget.spent_epsilon == 3.5 and out.budget.remaining_epsilon == 0.5
    kept = out.release
    refused = out.budget.release([4, 2], 1.0, 2, last=kept)
    assert refused.refused and refused.release is kept and refused.budget is out.budget
    assert "would exceed the class budget: 0.5 of 4 left" in refused.reason
    exact = out.budget.release([4, 2], 0.5, 3, last=kept)  # to the budget exactly: allowed
    assert not exact.refused and exact.budget.spent_epsilon == 4.0 and not exact.budget.allows(0.001)
    assert C.ClassBudget(1.0).release([1, 1], 2.0, 0).release is None


def test_the_budget_is_the_library_accountant():
    """The ledger is BasicAccountant's, under replace-one, with one PureDP event per distinct ε."""
    b = C.ClassBudget(4.0).charge(1.0).charge(0.5).charge(1.0)
    acct = b.accountant()
    assert isinstance(acct, BasicAccountant) and acct.neighboring == "replace_one"
    assert acct.ledger == ((PureDP(1.0), 2), (PureDP(0.5), 1))
    assert b.spent_epsilon == BasicAccountant().compose(PureDP(1.0), 2).compose(PureDP(0.5)).epsilon(1e-9) == 2.5


def test_the_budget_refuses_by_the_accountant_sum_in_double_precision():
    """0.1 + 0.2 composes to 0.30000000000000004 > 0.3: a budget of 0.3 refuses the second release (documented)."""
    b = C.ClassBudget(0.3).charge(0.1)
    assert not b.allows(0.2)
    with pytest.raises(ValueError, match=r"^epsilon = 0.2 is not allowed: the class has .* of its 0.3 left"):
        b.charge(0.2)


def test_a_budget_restored_from_its_releases_is_the_same_budget():
    b = C.ClassBudget(4.0).charge(1.0).charge(2.0)
    assert C.ClassBudget(4.0, spent=b.spent) == b
    with pytest.raises(ValueError, match=r"^spent = \(3.0, 2.0\) is not allowed: its releases compose to ε = 5.0, "
                                         r"beyond total_epsilon = 4.0"):
        C.ClassBudget(4.0, spent=(3.0, 2.0))
    with pytest.raises(ValueError, match=r"^spent\[1\] = -1.0 is not allowed"):
        C.ClassBudget(4.0, spent=(1.0, -1.0))
    with pytest.raises(ValueError, match=r"^total_epsilon = 0 is not allowed"):
        C.ClassBudget(0)


# ============================================================================================ the game, pooled
def test_the_ceiling_of_thirty_perfect_guesses_per_world_is_2_03():
    """30 right guesses on each dataset: each error rate's one-sided Clopper–Pearson bound at 97.5 % (Bonferroni
    for the 95 % pair) is 1 − u with u = 0.025^{1/30}, so ε ≥ ln(u/(1 − u)) = 2.0337634… (Clopper & Pearson 1934;
    Kairouz, Oh & Viswanath 2015, Thm 2.1). No class can prove more with 60 rounds, whatever the mechanism."""
    u = 0.025 ** (1 / 30)
    assert C.pooled_bound_ceiling(30) == 2.033763403617724
    assert C.pooled_bound_ceiling(30) == pytest.approx(math.log(u / (1 - u)), rel=1e-12)
    assert C.pooled_epsilon_bound(30, 30, 30, 30) == C.pooled_bound_ceiling(30)
    assert C.pooled_bound_ceiling(300) > C.pooled_bound_ceiling(30) > C.pooled_bound_ceiling(10)
    assert C.pooled_bound_ceiling(30, delta=1e-5) < C.pooled_bound_ceiling(30)


def test_the_pooled_bound_is_the_audit_bound_of_the_class_tally():
    """Wrong guesses on x are false positives of the test "say x′", right ones on x′ true positives."""
    assert C.pooled_epsilon_bound(25, 30, 28, 31) == epsilon_lower_bound(28, 5, 31, 30)
    assert C.pooled_epsilon_bound(25, 30, 28, 31) > 0
    assert C.pooled_epsilon_bound(15, 30, 15, 30) == 0.0  # a coin flip proves nothing
    assert C.pooled_epsilon_bound(5, 5, 0, 0) == 0.0  # x′ has not come up yet
    with pytest.raises(ValueError, match=r"^correct_on_x = 31 is not allowed: must be <= its rounds \(30\)"):
        C.pooled_epsilon_bound(31, 30, 1, 1)
    with pytest.raises(ValueError, match=r"^rounds_on_x_prime = 1000001 is not allowed"):
        C.pooled_epsilon_bound(1, 1, 1, 1_000_001)

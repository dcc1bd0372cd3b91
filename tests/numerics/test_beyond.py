"""dpviz.beyond against exact oracles: local sensitivity, A⁽ᵏ⁾, smooth sensitivity and PTR's distance by brute force
over every data set of a small grid; tail probabilities, hockey-sticks and the exponential-mechanism quantile's law
against mpmath; the privacy of each mechanism from its exact output laws; the samplers by binomial 5σ tests.

Brute force is exact here: the median of a data set with one record replaced by v is a clamp of v between two order
statistics, so the extreme neighbours replace a record by a bound; and the data sets that maximise LS within
distance k move records to the bounds or onto other records. A grid holding the data and both bounds therefore
attains every maximum over the continuous range [lower, upper].
"""

from __future__ import annotations

import functools
import itertools
import math

import mpmath as mp
import numpy as np
import pytest
from scipy import integrate

from dpviz import beyond as B

GRID = (0.0, 1.0, 3.0, 4.0, 6.0)  # uneven spacings, both bounds included
LO, HI = 0.0, 6.0


def median(values) -> float:
    """The lower median x_(⌈n/2⌉), by definition."""
    v = sorted(values)
    return v[(len(v) + 1) // 2 - 1]


@functools.lru_cache(maxsize=None)
def ls_brute(multiset: tuple, relation: str = "replace") -> float:
    """max |med(x) − med(x′)| over the neighbours x′ with values on GRID, by enumeration."""
    x = list(multiset)
    med = median(x)
    out = []
    if relation == "replace":
        out = [median(x[:i] + [v] + x[i + 1:]) for i in range(len(x)) for v in GRID]
    else:
        out = [median(x + [v]) for v in GRID] + [median(x[:i] + x[i + 1:]) for i in range(len(x))]
    return max(abs(med - o) for o in out)


def datasets(n):
    return list(itertools.product(GRID, repeat=n))


@functools.lru_cache(maxsize=None)
def all_vectors(n):
    return np.array(datasets(n))


def hamming_table(x, n):
    """Hamming distance from x to every vector of GRID^n, and LS of each (brute force)."""
    ys = all_vectors(n)
    d = (ys != np.asarray(x)[None, :]).sum(axis=1)
    ls = np.array([ls_brute(tuple(sorted(y))) for y in ys.tolist()])
    return d, ls


def sample_sets(n, count, seed):
    """``count`` data sets of n values from GRID, always including a few extreme ones."""
    rng = np.random.default_rng(seed)
    picks = [tuple(GRID[i] for i in rng.integers(0, len(GRID), n)) for _ in range(count)]
    return [(0.0,) * n, (6.0,) * n, (3.0,) * n] + picks


# ------------------------------------------------------------------------------------------ local sensitivity


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_local_sensitivity_replace_against_brute_force_over_every_data_set(n):
    for x in datasets(n):
        assert B.local_sensitivity_median(list(x), LO, HI) == ls_brute(tuple(sorted(x))), x


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_local_sensitivity_add_remove_against_brute_force_over_every_data_set(n):
    for x in datasets(n):
        assert B.local_sensitivity_median(list(x), LO, HI, "add_remove") == ls_brute(tuple(sorted(x)), "add_remove"), x


def test_data_outside_the_bounds_is_clamped_first():
    assert B.local_sensitivity_median([-5.0, 2.0, 100.0], 0.0, 6.0) == B.local_sensitivity_median([0.0, 2.0, 6.0],
                                                                                                    0.0, 6.0) == 4.0


@pytest.mark.parametrize("n", [3, 4, 5])
def test_sensitivity_at_distance_against_brute_force(n):
    """A⁽ᵏ⁾(x) = max over y with d(x, y) ≤ k of LS(y), enumerated over GRID^n (Nissim, Raskhodnikova & Smith 2007,
    Def. 3.1), against the closed form of their Prop. 3.4, for every k up to n + 2."""
    for x in sample_sets(n, 25, seed=n):
        d, ls = hamming_table(x, n)
        for k in range(n + 3):
            assert B.local_sensitivity_at_distance(list(x), k, LO, HI) == ls[d <= k].max(), (x, k)


def _mutant_a_k(z, m, k):
    """A deliberately wrong A⁽ᵏ⁾: t runs over 0..k instead of 0..k + 1 (an off-by-one)."""
    last = z.size - 1
    t = np.arange(k + 1)
    return float(np.max(z[np.minimum(m + t, last)] - z[np.maximum(m + t - k - 1, 0)]))


def test_the_brute_force_oracle_catches_an_off_by_one(monkeypatch):
    """The comparison above can fail: with the mutant kernel some (x, k) of the same sample disagree."""
    monkeypatch.setattr(B, "_a_k", _mutant_a_k)
    wrong = 0
    for x in sample_sets(5, 25, seed=5):
        d, ls = hamming_table(x, 5)
        wrong += sum(B.local_sensitivity_at_distance(list(x), k, LO, HI) != ls[d <= k].max() for k in range(6))
    assert wrong > 0


# ------------------------------------------------------------------------------------------ smooth sensitivity


@pytest.mark.parametrize("beta", [0.0, 0.1, 0.7, 2.0])
@pytest.mark.parametrize("n", [3, 4, 5])
def test_smooth_sensitivity_against_brute_force(n, beta):
    """S*_β(x) = max_y LS(y)·e^{−β d(x,y)} over every y of GRID^n (Nissim, Raskhodnikova & Smith 2007, Def. 2.3)."""
    for x in sample_sets(n, 15, seed=10 + n):
        d, ls = hamming_table(x, n)
        exact = float(np.max(ls * np.exp(-beta * d)))
        assert B.smooth_sensitivity_median(list(x), beta, LO, HI) == pytest.approx(exact, rel=1e-14, abs=0), x


def test_smooth_sensitivity_is_a_beta_smooth_upper_bound():
    """Def. 2.2 of Nissim, Raskhodnikova & Smith 2007: S ≥ LS, and S(x) ≤ e^β S(x′) for every neighbour x′."""
    beta = 0.3
    for x in sample_sets(5, 20, seed=3):
        s = B.smooth_sensitivity_median(list(x), beta, LO, HI)
        assert s >= B.local_sensitivity_median(list(x), LO, HI)
        for i, v in itertools.product(range(5), GRID):
            x2 = list(x[:i]) + [v] + list(x[i + 1:])
            assert s <= math.exp(beta) * B.smooth_sensitivity_median(x2, beta, LO, HI) * (1 + 1e-15)


def test_smooth_sensitivity_blocks_agree_with_the_sum_over_k_on_a_large_data_set():
    """n = 3001 (several row blocks in the kernel): the pair maximum equals max_k e^{−kβ} A⁽ᵏ⁾, computed k by k."""
    rng = np.random.default_rng(7)
    x = rng.normal(0.5, 0.1, 3001)
    for beta in (0.0, 0.01, 0.2):
        direct = max(math.exp(-k * beta) * B.local_sensitivity_at_distance(x, k, 0.0, 1.0) for k in range(3002))
        assert B.smooth_sensitivity_median(x, beta, 0.0, 1.0) == pytest.approx(direct, rel=1e-13)


def test_smooth_sensitivity_limits():
    x = [1.0, 2.0, 3.0, 7.0, 9.0]
    assert B.smooth_sensitivity_median(x, 0.0, 0.0, 10.0) == 10.0  # β = 0: the global sensitivity
    assert B.smooth_sensitivity_median(x, 1e6, 0.0, 10.0) == 4.0  # β → ∞: the local sensitivity


def test_release_parameters_follow_corollary_2_4():
    x = [1.0, 2.0, 3.0, 7.0, 9.0]
    p = B.smooth_sensitivity_release_parameters(x, 0.5, 1e-5, 0.0, 10.0)
    beta = 0.5 / (2 * math.log(2 / 1e-5))
    assert p.beta == pytest.approx(beta, rel=1e-15)
    assert p.smooth_sensitivity == B.smooth_sensitivity_median(x, beta, 0.0, 10.0)
    assert p.scale == pytest.approx(2 * p.smooth_sensitivity / 0.5, rel=1e-15) and p.median == 3.0
    c = B.smooth_sensitivity_release_parameters(x, 0.5, 0.0, 0.0, 10.0, "cauchy")
    assert c.beta == pytest.approx(0.5 / 6, rel=1e-15)
    assert c.scale == pytest.approx(6 * B.smooth_sensitivity_median(x, 0.5 / 6, 0.0, 10.0) / 0.5, rel=1e-15)


@pytest.mark.parametrize("noise, tail", [("laplace", math.exp(-1.0)), ("cauchy", 0.5)])
def test_smooth_release_sampler_has_the_stated_law(noise, tail):
    """P[|M − med| > scale] is e^{−1} for Laplace noise and ½ for standard Cauchy noise; 5σ binomial tolerance."""
    x = np.linspace(0.0, 10.0, 21)
    delta = 1e-6 if noise == "laplace" else 0.0
    p = B.smooth_sensitivity_release_parameters(x, 1.0, delta, 0.0, 10.0, noise)
    draws = B.smooth_sensitivity_release(x, 1.0, delta, 0.0, 10.0, noise, rng=11, size=200_000)
    frac = np.mean(np.abs(draws - p.median) > p.scale)
    assert abs(frac - tail) <= 5 * math.sqrt(tail * (1 - tail) / draws.size)
    assert np.mean(draws > p.median) == pytest.approx(0.5, abs=5 * math.sqrt(0.25 / draws.size))


def _smooth_pairs(count, seed):
    """Data sets of GRID^5 and each of their replace-neighbours."""
    for x in sample_sets(5, count, seed=seed):
        for i, v in itertools.product(range(5), GRID):
            yield list(x), list(x[:i]) + [v] + list(x[i + 1:])


def test_smooth_laplace_release_is_epsilon_delta_private_on_every_neighbour_pair():
    """Lap(med(x), 2S*(x)/ε) against Lap(med(x′), 2S*(x′)/ε): the exact hockey-stick at ε (the closed form that
    the leak test checks against mpmath) is at most δ on every pair (Nissim, Raskhodnikova & Smith 2007, Cor. 2.4);
    the same release with the local sensitivity instead exceeds δ on some of the same pairs."""
    eps, delta = 1.0, 0.05
    worst, worst_local = 0.0, 0.0
    for x, x2 in _smooth_pairs(10, seed=55):
        p = B.smooth_sensitivity_release_parameters(x, eps, delta, LO, HI)
        p2 = B.smooth_sensitivity_release_parameters(x2, eps, delta, LO, HI)
        worst = max(worst, B._laplace_hockey_stick(p.median, p.scale, p2.median, p2.scale, eps),
                    B._laplace_hockey_stick(p2.median, p2.scale, p.median, p.scale, eps))
        leak = B.local_sensitivity_leak(x, x2, eps, LO, HI)
        worst_local = max(worst_local, leak.delta)
    assert worst <= delta
    assert worst_local > delta


def test_smooth_cauchy_release_is_epsilon_private_on_every_neighbour_pair():
    """Cauchy(med(x), 6S*(x)/ε) against Cauchy(med(x′), 6S*(x′)/ε): the largest log density ratio is at most ε.
    The ratio is smooth and tends to ln(s′/s) in both tails, so a fine grid over ±10⁴ scales bounds it."""
    eps = 1.0

    def loss(mu, s, mu2, s2):
        w = max(s, s2)
        y = np.concatenate([np.linspace(-50 * w, 50 * w, 20001), np.geomspace(50 * w, 1e4 * w, 400),
                            -np.geomspace(50 * w, 1e4 * w, 400)]) + mu
        lr = np.log(s2 / s) + np.log1p(((y - mu2) / s2) ** 2) - np.log1p(((y - mu) / s) ** 2)
        return float(np.max(np.abs(lr)))

    worst, worst_local = 0.0, 0.0
    for x, x2 in _smooth_pairs(8, seed=66):
        p = B.smooth_sensitivity_release_parameters(x, eps, 0.0, LO, HI, "cauchy")
        p2 = B.smooth_sensitivity_release_parameters(x2, eps, 0.0, LO, HI, "cauchy")
        worst = max(worst, loss(p.median, p.scale, p2.median, p2.scale))
        ls, ls2 = B.local_sensitivity_median(x, LO, HI), B.local_sensitivity_median(x2, LO, HI)
        if ls > 0 and ls2 > 0:  # the same noise calibrated to the local sensitivity instead
            worst_local = max(worst_local, loss(p.median, 6 * ls / eps, p2.median, 6 * ls2 / eps))
    assert worst <= eps
    assert worst_local > eps


def test_sample_and_aggregate_mean_moves_by_at_most_its_scale_times_epsilon():
    """Replacing one record changes one block's estimate: the noisy average's centre moves by at most ε·scale, so
    the two Laplace laws (same scale) are ε-indistinguishable; checked on every replace-neighbour of a data set."""
    x = [0.0, 1.0, 3.0, 4.0, 6.0, 6.0, 1.0, 0.0, 3.0]
    eps = 0.8
    for blocks, statistic in ((3, "median"), (3, "mean"), (9, "mean")):
        base = B.sample_and_aggregate(x, blocks, eps, LO, HI, statistic=statistic, shuffle=False, rng=0)
        worst = 0.0
        for i, v in itertools.product(range(len(x)), GRID):
            x2 = x[:i] + [v] + x[i + 1:]
            other = B.sample_and_aggregate(x2, blocks, eps, LO, HI, statistic=statistic, shuffle=False, rng=0)
            assert other.scale == base.scale
            worst = max(worst, abs(other.estimates.mean() - base.estimates.mean()) / base.scale)
        assert worst <= eps * (1 + 1e-12)
    assert worst == pytest.approx(eps, rel=1e-12)  # one record per block: the bound is attained


# ------------------------------------------------------------------------------------------ the local-sensitivity leak


def mp_hockey(mu, b, mu2, b2, eps):
    """∫ (p − e^ε q)_+ for p = Lap(μ, b), q = Lap(μ′, b′), by mpmath quadrature cut at both medians and at every
    root of p = e^ε q (found on a fine grid by bisection)."""
    mu, b, mu2, b2 = (mp.mpf(v) for v in (mu, b, mu2, b2))
    p = lambda y: mp.exp(-abs(y - mu) / b) / (2 * b)  # noqa: E731
    q = lambda y: mp.exp(-abs(y - mu2) / b2) / (2 * b2)  # noqa: E731
    f = lambda y: p(y) - mp.e ** eps * q(y)  # noqa: E731
    span = 80 * max(b, b2)
    grid = [min(mu, mu2) - span + i * (2 * span + abs(mu - mu2)) / 4000 for i in range(4001)]
    cuts = sorted({mu, mu2} | {mp.findroot(f, (a, c), solver="bisect") for a, c in zip(grid[:-1], grid[1:])
                               if f(a) * f(c) < 0})
    pts = [-mp.inf, *cuts, mp.inf]
    return sum(mp.quad(lambda y: max(f(y), 0), [a, c]) for a, c in zip(pts[:-1], pts[1:]))


PAIRS = [([0.1, 0.2, 0.5, 0.6, 0.9], [0.1, 0.2, 0.5, 0.45, 0.9], 1.0),
         ([0.1, 0.2, 0.5, 0.6, 0.9], [0.1, 0.2, 0.5, 0.45, 0.9], 0.1),
         ([0.0, 0.3, 0.35, 0.9, 1.0], [0.0, 0.3, 0.8, 0.9, 1.0], 0.5),
         ([0.2, 0.4, 0.41, 0.6], [0.2, 0.3, 0.41, 0.6], 2.0)]


@pytest.mark.parametrize("x, x2, eps", PAIRS)
def test_leak_delta_against_mpmath(x, x2, eps):
    leak = B.local_sensitivity_leak(x, x2, eps, 0.0, 1.0)
    b, b2 = leak.scale, leak.scale_neighbour
    assert b == pytest.approx(B.local_sensitivity_median(x, 0.0, 1.0) / eps, rel=1e-15)
    assert b2 == pytest.approx(B.local_sensitivity_median(x2, 0.0, 1.0) / eps, rel=1e-15)
    exact = max(mp_hockey(leak.median, b, leak.median_neighbour, b2, eps),
                mp_hockey(leak.median_neighbour, b2, leak.median, b, eps))
    assert leak.delta == pytest.approx(float(exact), rel=1e-9, abs=1e-15)
    assert b != b2 and leak.max_privacy_loss == math.inf and leak.delta > 0  # ε-DP would need δ = 0


def test_leak_loss_exceeds_epsilon_and_grows_without_bound():
    """The privacy loss at outputs far out: L(y) − L(y′) = (y − y′)(1/b′ − 1/b) in the left tail, unbounded."""
    x, x2 = PAIRS[0][:2]
    ys = np.array([-1e3, -10.0, 0.5, 10.0, 1e3])
    loss = B.local_sensitivity_privacy_loss(ys, x, x2, 1.0, 0.0, 1.0)
    assert np.max(np.abs(loss)) > 1.0 and loss[0] > 100.0
    b, b2 = 0.3, 0.25
    direct = math.log(b2 / b) - np.abs(ys - 0.5) / b + np.abs(ys - 0.45) / b2
    assert loss == pytest.approx(direct, rel=1e-13, abs=1e-13)


def test_leak_with_equal_scales_is_within_epsilon_and_an_atom_leaks_everything():
    """Equal local sensitivities: the loss is |Δmed|/b ≤ ε and δ(ε) = 0. A local sensitivity of 0 releases the exact
    median (a point mass): δ = 1."""
    x, x2 = [0.0, 1.0, 2.0, 4.0, 6.0], [5.0, 1.0, 2.0, 4.0, 6.0]  # medians 2 and 4, both LS = 2
    leak = B.local_sensitivity_leak(x, x2, 0.7, 0.0, 10.0)
    assert leak.scale == leak.scale_neighbour and leak.max_privacy_loss == pytest.approx(0.7, rel=1e-15)
    assert leak.delta == pytest.approx(0.0, abs=1e-15)
    atom = B.local_sensitivity_leak([0.0, 0.5, 0.5, 0.5, 1.0], [0.0, 0.5, 0.5, 1.0, 1.0], 1.0, 0.0, 1.0)
    assert atom.scale == 0.0 and atom.delta == 1.0 and atom.max_privacy_loss == math.inf


# ------------------------------------------------------------------------------------------ propose–test–release


@pytest.mark.parametrize("bound", [0.5, 1.0, 2.0, 3.0, 5.0, 6.0])
def test_ptr_distance_against_brute_force(bound):
    """γ(x) = min{d(x, y) : LS(y) > b} over every y of GRID^5 (+inf if none)."""
    for x in sample_sets(5, 20, seed=21):
        d, ls = hamming_table(x, 5)
        exact = float(d[ls > bound].min()) if np.any(ls > bound) else math.inf
        assert B.ptr_distance_median(list(x), bound, LO, HI) == exact, (x, bound)


@pytest.mark.parametrize("eps, delta", [(1.0, 1e-6), (0.1, 1e-9), (3.0, 0.2)])
def test_ptr_pass_probability_against_mpmath_quadrature(eps, delta):
    """P[γ + Lap(1/ε) > ln(1/δ)/ε] by integrating the Laplace density in mpmath, tiny values at relative 1e-12."""
    T = mp.log(1 / mp.mpf(delta)) / eps
    gammas = [0, 1, 2, 5, 13, 14, 40, 200]
    got = B.ptr_pass_probability(gammas, eps, delta)
    for g, p in zip(gammas, got):
        exact = mp.quad(lambda z: eps / 2 * mp.exp(-eps * abs(z)), [T - g, mp.inf] if T - g >= 0 else
                        [T - g, 0, mp.inf])
        assert p == pytest.approx(float(exact), rel=1e-12, abs=0), g
    assert B.ptr_pass_probability(0, eps, delta) == pytest.approx(delta / 2, rel=1e-15)
    assert B.ptr_pass_probability(math.inf, eps, delta) == 1.0


def test_ptr_sampler_passes_with_the_exact_probability_and_releases_laplace():
    """γ = 3 against a threshold ln(10) ≈ 2.30 at ε = 1: P[pass] = 1 − e^{−3}/(2·0.1) ≈ 0.751; 5σ binomial."""
    x = [0.0] * 7
    r0 = B.propose_test_release(x, 2.0, 1.0, 0.1, 0.0, 6.0, rng=0)
    assert r0.distance == 3.0 and r0.pass_probability == pytest.approx(1 - math.exp(-3) / 0.2, rel=1e-14)
    g = np.random.default_rng(5)
    runs = [B.propose_test_release(x, 2.0, 1.0, 0.1, 0.0, 6.0, rng=g) for _ in range(4000)]
    passed = np.array([r.passed for r in runs])
    p = r0.pass_probability
    assert abs(passed.mean() - p) <= 5 * math.sqrt(p * (1 - p) / passed.size)
    values = np.array([r.value for r in runs if r.passed])
    assert all(r.value is None for r in runs if not r.passed)
    # |Lap(b/ε)| has mean b/ε = 2 and standard deviation 2
    assert abs(np.mean(np.abs(values)) - 2.0) <= 5 * 2.0 / math.sqrt(values.size)


def _ptr_law(x, bound, eps, delta):
    """(P[⊥], median, scale) of PTR's output on x."""
    r = B.propose_test_release(x, bound, eps, delta, LO, HI, rng=0)
    return 1.0 - r.pass_probability, median(np.clip(x, LO, HI)), r.scale


def _ptr_hockey(a, c, eps):
    """max over output sets of P_a − e^ε P_c for PTR's exact laws a, c (⊥ atom + a Laplace part), by quadrature."""
    (bot, mu, s), (bot2, mu2, _) = a, c
    ee = math.exp(eps)

    def f(y):
        return max(0.0, (1 - bot) * math.exp(-abs(y - mu) / s) / (2 * s)
                   - ee * (1 - bot2) * math.exp(-abs(y - mu2) / s) / (2 * s))

    pts = sorted({mu, mu2})
    cont = sum(integrate.quad(f, lo, hi, limit=200, epsabs=1e-15)[0]
               for lo, hi in zip([-np.inf, *pts], [*pts, np.inf]))
    return max(0.0, bot - ee * bot2) + cont


def test_ptr_is_two_epsilon_delta_private_on_every_neighbour_pair_of_a_grid():
    """The exact output laws of PTR on x and on each replace-neighbour x′: the hockey-stick at 2ε is at most δ
    (Dwork & Roth 2014, §7.2), in both directions, over data sets of GRID^5 with b = 2."""
    eps, delta, bound = 0.5, 0.05, 2.0
    worst = 0.0
    for x in sample_sets(5, 12, seed=33):
        a = _ptr_law(list(x), bound, eps, delta)
        for i, v in itertools.product(range(5), GRID):
            x2 = list(x[:i]) + [v] + list(x[i + 1:])
            c = _ptr_law(x2, bound, eps, delta)
            worst = max(worst, _ptr_hockey(a, c, 2 * eps), _ptr_hockey(c, a, 2 * eps))
    assert worst <= delta
    assert worst > 0  # the pairs include ones where the guarantee needs its δ


# ------------------------------------------------------------------------------------------ sample and aggregate


def test_sample_and_aggregate_blocks_and_noisy_mean():
    x = np.arange(10.0)  # blocks of sizes 4, 3, 3 without shuffling
    r = B.sample_and_aggregate(x, 3, 0.5, 0.0, 10.0, shuffle=False, rng=0)
    assert r.estimates.tolist() == [1.5, 5.0, 8.0] and r.scale == pytest.approx(10.0 / 3 / 0.5, rel=1e-15)
    med = B.sample_and_aggregate(x, 3, 0.5, 0.0, 10.0, statistic="median", shuffle=False, rng=0)
    assert med.estimates.tolist() == [1.0, 5.0, 8.0]
    g = np.random.default_rng(9)
    vals = np.array([B.sample_and_aggregate(x, 3, 0.5, 0.0, 10.0, shuffle=False, rng=g).value for _ in range(4000)])
    center, b = np.mean([1.5, 5.0, 8.0]), r.scale
    # Laplace(center, b): P[value > center] = ½, P[|value − center| > b] = e^{−1}
    for frac, p in ((np.mean(vals > center), 0.5), (np.mean(np.abs(vals - center) > b), math.exp(-1))):
        assert abs(frac - p) <= 5 * math.sqrt(p * (1 - p) / vals.size)


def test_sample_and_aggregate_median_follows_the_quantile_law_of_the_estimates():
    x = np.linspace(0.0, 1.0, 60)
    r = B.sample_and_aggregate(x, 6, 1.0, 0.0, 1.0, aggregate="median", shuffle=False, rng=0)
    law = B.dp_quantile_law(r.estimates, 0.5, 1.0, 0.0, 1.0)
    g = np.random.default_rng(4)
    vals = np.array([B.sample_and_aggregate(x, 6, 1.0, 0.0, 1.0, aggregate="median", shuffle=False, rng=g).value
                     for _ in range(3000)])
    for t in (0.2, 0.45, 0.6):
        p = law.cdf(t)
        assert abs(np.mean(vals <= t) - p) <= 5 * math.sqrt(p * (1 - p) / vals.size)


def test_sample_and_aggregate_shuffles_with_the_rng():
    x = np.arange(12.0)
    a = B.sample_and_aggregate(x, 3, 1.0, 0.0, 12.0, rng=1)
    b = B.sample_and_aggregate(x, 3, 1.0, 0.0, 12.0, rng=1)
    assert a.estimates.tolist() == b.estimates.tolist() and a.value == b.value
    assert sorted(a.estimates.tolist()) != [1.5, 5.5, 9.5]  # not the unshuffled blocks


# ------------------------------------------------------------------------------------------ DP quantiles


def mp_quantile_probabilities(x, q, eps, lo, hi):
    z = [mp.mpf(lo), *sorted(mp.mpf(min(max(v, lo), hi)) for v in x), mp.mpf(hi)]
    n = len(x)
    w = [(z[i + 1] - z[i]) * mp.exp(-mp.mpf(eps) * abs(i - mp.mpf(q) * n) / 2) for i in range(n + 1)]
    total = sum(w)
    return z, [wi / total for wi in w]


@pytest.mark.parametrize("q, eps", [(0.5, 1.0), (0.9, 0.3), (0.0, 2.0), (1.0, 2.0), (0.37, 100.0)])
def test_quantile_probabilities_against_mpmath(q, eps):
    rng = np.random.default_rng(2)
    x = np.concatenate([rng.uniform(-0.5, 1.5, 40), [0.3, 0.3, 0.3]])  # values outside [0, 1] and ties
    law = B.dp_quantile_law(x, q, eps, 0.0, 1.0)
    z, probs = mp_quantile_probabilities(x.tolist(), q, eps, 0.0, 1.0)
    assert law.edges.tolist() == [float(v) for v in z]
    for lp, p in zip(law.log_probabilities, probs):
        if p == 0:
            assert lp == -math.inf
        else:
            assert lp == pytest.approx(float(mp.log(p)), rel=1e-12, abs=1e-12)
            if p > mp.mpf("1e-300"):
                assert math.exp(lp) == pytest.approx(float(p), rel=1e-11, abs=0)
    # the CDF at points inside intervals and at the ends
    cum = np.cumsum([float(p) for p in probs])
    for i in range(0, len(probs), 5):
        if z[i + 1] > z[i]:
            t = float((z[i] + z[i + 1]) / 2)
            exact = (cum[i - 1] if i else 0.0) + float(probs[i]) / 2
            assert law.cdf(t) == pytest.approx(exact, rel=1e-10, abs=1e-15)
    assert law.cdf(-1.0) == 0.0 and law.cdf(1.0) == 1.0 and law.cdf(math.inf) == 1.0


def test_quantile_density_integrates_to_one_and_is_piecewise_constant():
    x = [0.1, 0.2, 0.2, 0.7]
    law = B.dp_quantile_law(x, 0.5, 1.5, 0.0, 1.0)
    total = sum(integrate.quad(law.pdf, a, c)[0] for a, c in zip(law.edges[:-1], law.edges[1:]) if c > a)
    assert total == pytest.approx(1.0, rel=1e-12)
    assert law.pdf(0.15) == pytest.approx(law.probabilities[1] / 0.1, rel=1e-13)
    assert law.pdf(-0.1) == 0.0 and law.pdf(1.0) > 0.0


def _merged_midpoints(*laws):
    cuts = np.unique(np.concatenate([law.edges for law in laws]))
    return (cuts[:-1] + cuts[1:]) / 2


@pytest.mark.parametrize("q, eps", [(0.5, 1.0), (0.9, 0.2), (0.25, 5.0)])
def test_quantile_is_epsilon_private_exactly_on_neighbour_pairs(q, eps):
    """Both densities are constant on the merged partition, so their log ratio at its midpoints is the whole
    story: max |ln f_x − ln f_x′| ≤ ε for every replace-neighbour (and add/remove neighbour) of data sets on GRID."""
    worst = 0.0
    for x in sample_sets(5, 10, seed=44):
        law = B.dp_quantile_law(list(x), q, eps, LO, HI)
        neighbours = [list(x[:i]) + [v] + list(x[i + 1:]) for i in range(5) for v in GRID]
        neighbours += [list(x) + [v] for v in GRID] + [list(x[:i] + x[i + 1:]) for i in range(5)]
        for x2 in neighbours:
            law2 = B.dp_quantile_law(x2, q, eps, LO, HI)
            y = _merged_midpoints(law, law2)
            worst = max(worst, float(np.max(np.abs(law.log_pdf(y) - law2.log_pdf(y)))))
    assert worst <= eps * (1 + 1e-12)
    assert worst > 0.4 * eps  # near the bound: a slip to e^{−ε|i − qn|} (no ½) would exceed ε


def test_quantile_sampler_matches_its_law():
    x = [0.1, 0.2, 0.2, 0.5, 0.7, 0.95]
    law = B.dp_quantile_law(x, 0.5, 2.0, 0.0, 1.0)
    draws = B.dp_quantile(x, 0.5, 2.0, 0.0, 1.0, rng=3, size=200_000)
    idx = np.searchsorted(law.edges, draws, side="right") - 1
    counts = np.bincount(idx, minlength=law.edges.size)[:law.edges.size - 1]
    for c, p in zip(counts, law.probabilities):
        assert abs(c / draws.size - p) <= 5 * math.sqrt(p * (1 - p) / draws.size) + 1e-12
    assert counts[2] == 0  # the empty interval [0.2, 0.2]
    # uniform within the widest interval [0.2, 0.5]: its draws have mean 0.35
    inside = draws[idx == 3]
    assert abs(inside.mean() - 0.35) <= 5 * 0.3 / math.sqrt(12 * inside.size)


def test_choose_clipping_bound_is_one_draw_of_the_quantile():
    x = np.arange(100.0)
    assert B.choose_clipping_bound(x, 1.0, 0.9, 0.0, 200.0, rng=8) == B.dp_quantile(x, 0.9, 1.0, 0.0, 200.0, rng=8)
    law = B.dp_quantile_law(x, 0.9, 1.0, 0.0, 200.0)
    assert 0.0 <= law.cdf(95.0) <= 1.0 and law.cdf(80.0) < 0.01  # far below the 0.9 quantile: unlikely

"""dpviz.attacks (lesson 01): differencing, reconstruction (Dinur & Nissim 2003) and membership inference.

Oracles: mpmath integrals of the Laplace densities, brute force over every data set of a few people, Monte Carlo
with tolerances derived from the binomial variance, and the (ε, δ)-DP bound on every test (Kairouz, Oh & Viswanath
2015, Thm 2.1).
"""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpviz import attacks as A
from dpviz.mechanisms import Gaussian
from dpviz.tradeoff import dp_region_lower_bound

# ============================================================================================ differencing


def test_synthetic_table_is_reproducible_and_read_only():
    t1, t2 = A.synthetic_table(8, 3), A.synthetic_table(8, 3)
    assert t1.names == t2.names and np.array_equal(t1.has_condition, t2.has_condition)
    assert t1.n == 8 and len(set(t1.names)) == 8 and np.all((t1.ages >= 20) & (t1.ages < 80))
    assert t1.names != A.synthetic_table(8, 4).names or not np.array_equal(t1.has_condition,
                                                                           A.synthetic_table(8, 4).has_condition)
    with pytest.raises(ValueError):
        t1.has_condition[0] = True


def test_exact_differencing_reveals_every_bit():
    bits = np.array([1, 0, 0, 1, 1, 0, 1])
    for t, b in enumerate(bits):
        r = A.differencing_attack(bits, t)
        assert r.answer_all == 4 and r.answer_without == 4 - b
        assert r.difference == b and r.guess == bool(b) == r.truth and r.correct


def test_noisy_differencing_uses_the_laplace_mechanism_draws():
    bits = np.array([1, 0, 1, 1])
    r = A.differencing_attack(bits, 2, noise_scale=2.0, rng=7)
    noise = np.random.default_rng(7).laplace(0.0, 2.0, size=2)  # what Laplace(2).release draws for two values
    assert r.answer_all == pytest.approx(3 + noise[0], abs=1e-12)
    assert r.answer_without == pytest.approx(2 + noise[1], abs=1e-12)
    assert r.guess == (r.difference >= 0.5)


def _success_mpmath(b: float) -> float:
    """P[1 + L₁ − L₂ ≥ ½] = ∫ f(l₂) P[L₁ ≥ l₂ − ½] dl₂, L ~ Laplace(b), by quadrature."""
    b = mpmath.mpf(b)

    def f(x):
        return mpmath.exp(-abs(x) / b) / (2 * b)

    def sf(x):
        return mpmath.exp(-x / b) / 2 if x >= 0 else 1 - mpmath.exp(x / b) / 2

    return float(mpmath.quad(lambda x: f(x) * sf(x - mpmath.mpf(0.5)), [-mpmath.inf, 0, 0.5, mpmath.inf]))


@pytest.mark.parametrize("b", [0.05, 0.3, 1.0, 2.0, 10.0])
def test_differencing_success_probability_matches_quadrature(b):
    assert A.differencing_success_probability(b) == pytest.approx(_success_mpmath(b), rel=1e-12, abs=0)


def test_differencing_success_probability_monte_carlo():
    # 200 000 attacks: the standard error of the hit rate is √(p(1 − p)/N) ≤ 0.0012; 5 standard errors allowed
    b, n = 1.5, 200_000
    rng = np.random.default_rng(11)
    truth = rng.integers(0, 2, n)
    diff = truth + rng.laplace(0, b, n) - rng.laplace(0, b, n)
    hit = np.mean((diff >= 0.5) == truth.astype(bool))
    p = A.differencing_success_probability(b)
    assert abs(hit - p) <= 5 * math.sqrt(p * (1 - p) / n)


@given(st.floats(min_value=1e-3, max_value=1e3))
def test_differencing_success_within_the_dp_bound(b):
    # two (1/b)-DP answers are (2/b)-DP together; no test of one bit beats e^ε/(1 + e^ε) with a fair prior
    eps = 2.0 / b
    bound = 1.0 / (1.0 + math.exp(-eps))
    p = A.differencing_success_probability(b)
    assert 0.5 <= p <= bound + 1e-15


def test_differencing_success_limits():
    assert A.differencing_success_probability(0.0) == 1.0
    assert A.differencing_success_probability(1e-3) == pytest.approx(1.0, abs=1e-12)
    assert A.differencing_success_probability(1e6) == pytest.approx(0.5, abs=1e-6)


def test_laplace_difference_pdf_is_the_convolution():
    b = 0.7
    for t in (0.0, 0.4, -1.3, 5.0):
        pts = [-80] + sorted({0.0, t}) + [80]  # the integrand is below e^-100 beyond ±80 (b = 0.7)
        conv = mpmath.quad(lambda x, t=t: mpmath.exp(-abs(x) / b - abs(x - t) / b) / (4 * b * b), pts)
        assert float(A.laplace_difference_pdf([t], b)[0]) == pytest.approx(float(conv), rel=1e-12)
    x = np.linspace(-60, 60, 200_001)
    assert np.trapezoid(A.laplace_difference_pdf(x, b), x) == pytest.approx(1.0, abs=1e-7)


@pytest.mark.parametrize("kwargs, name", [
    (dict(has_attribute=[1, 0, 2], target=0), "has_attribute"),
    (dict(has_attribute=[1], target=0), "has_attribute"),
    (dict(has_attribute=[1, 0], target=2), "target"),
    (dict(has_attribute=[1, 0], target=-1), "target"),
    (dict(has_attribute=[1, 0], target=0, noise_scale=-1.0), "noise_scale"),
    (dict(has_attribute=[1, 0], target=0, noise_scale=math.nan), "noise_scale"),
])
def test_differencing_bad_input(kwargs, name):
    with pytest.raises(ValueError, match=name):
        A.differencing_attack(**kwargs)


@pytest.mark.parametrize("call, name", [
    (lambda: A.synthetic_table(1), "n"), (lambda: A.synthetic_table(25), "n"),
    (lambda: A.synthetic_table(5, rate=1.5), "rate"), (lambda: A.differencing_success_probability(-1), "noise_scale"),
    (lambda: A.laplace_difference_pdf([0.0], 0.0), "noise_scale"),
])
def test_other_bad_input(call, name):
    with pytest.raises(ValueError, match=name):
        call()


# ============================================================================================ reconstruction


def test_positional_call_and_result_fields():
    r = A.reconstruction_attack(40, 200, 1.5, 3)
    assert r.n == 40 and r.num_queries == 200 and r.noise_scale == 1.5
    assert r.queries.shape == (200, 40) and set(np.unique(r.queries)) <= {0, 1}
    assert set(np.unique(r.secret)) <= {0, 1} and set(np.unique(r.estimate)) <= {0, 1}
    assert np.array_equal(r.true_answers, r.queries.astype(int) @ r.secret.astype(int))
    # bounded noise: every released answer is within E of the truth
    assert np.all(np.abs(r.noisy_answers - r.true_answers) <= 1.5)
    assert r.recovered_fraction == np.mean(r.estimate == r.secret)
    for a in (r.secret, r.queries, r.noisy_answers, r.estimate):
        assert not a.flags.writeable
    again = A.reconstruction_attack(40, 200, 1.5, rng=3)
    assert np.array_equal(again.noisy_answers, r.noisy_answers)


@pytest.mark.parametrize("n, m", [(30, 30), (50, 80), (200, 1000)])
def test_zero_noise_recovers_everything(n, m):
    r = A.reconstruction_attack(n, m, 0.0, 0)
    assert np.array_equal(r.estimate, r.secret)


def test_decoder_agrees_with_lstsq():
    # the normal-equations solve is numpy's least squares, to rounding
    r = A.reconstruction_attack(60, 300, 5.0, 2)
    ref = np.linalg.lstsq(r.queries.astype(float), r.noisy_answers, rcond=None)[0]
    assert np.allclose(A._least_squares(r.queries, r.noisy_answers), ref, atol=1e-9)
    # and falls back to the minimum-norm solution when m < n
    r2 = A.reconstruction_attack(60, 20, 0.0, 2)
    ref2 = np.linalg.lstsq(r2.queries.astype(float), r2.true_answers.astype(float), rcond=None)[0]
    assert np.allclose(A._least_squares(r2.queries, r2.true_answers.astype(float)), ref2, atol=1e-9)


def test_fewer_queries_than_people_cannot_recover_everything():
    # m < n: the min-norm solution cannot pin down all bits even without noise
    fr = np.mean([A.reconstruction_attack(100, 30, 0.0, s).recovered_fraction for s in range(5)])
    assert fr < 0.95


# Success / failure around the √n threshold, n = 100, m = 5n, 6 seeds. Least squares errs on bit i by ≈ N(0, v) with
# v = E²/3 · (AᵀA)⁻¹ᵢᵢ ≈ E²/3 · 4/m (Var U[−E, E] = E²/3; AᵀA ≈ (m/4)(I + J)); a bit is wrong when that error
# passes ½ the wrong way, P = Φ(−√(3m)/(4E)).
#   E = √n/10 = 1:  P = Φ(−9.7) ≈ 1e-22: every bit of every draw is recovered (we allow 1 wrong bit in 600);
#   E = 10√n = 100: P = Φ(−0.097) = 0.46: fraction ≈ 0.54, its mean over 600 bits has sd ≈ √(0.25/600) = 0.02:
#                   < 0.62 allows 4 sd; > 0.42 rules out a decoder that anti-correlates.
N, M, SEEDS = 100, 500, range(6)


def _fractions(E):
    return np.array([A.reconstruction_attack(N, M, E, s).recovered_fraction for s in SEEDS])


def _succeeds_below_and_fails_above() -> bool:
    below = _fractions(0.1 * math.sqrt(N))
    above = _fractions(10 * math.sqrt(N))
    return bool(below.mean() >= 1 - 1 / (N * len(SEEDS)) and 0.42 < above.mean() < 0.62)


def test_reconstruction_succeeds_below_and_fails_above_sqrt_n():
    assert _succeeds_below_and_fails_above()


def test_at_sqrt_n_matches_the_least_squares_error_model():
    # E = √n: predicted fraction 1 − Φ(−√(3m)/(4√n)) = 1 − Φ(−0.968) = 0.834; sd of the mean over 600 bits ≈ 0.015;
    # the Gaussian error model itself is approximate (AᵀA ≈ (m/4)(I + J)): ±0.06 covers both
    fr = _fractions(math.sqrt(N)).mean()
    pred = 1 - 0.5 * math.erfc(0.968 / math.sqrt(2))
    assert abs(fr - pred) < 0.06


@pytest.mark.parametrize("broken", ["ignore_answers", "transpose", "flip_rounding"])
def test_a_broken_decoder_fails_the_threshold_test(monkeypatch, broken):
    if broken == "ignore_answers":
        monkeypatch.setattr(A, "_least_squares", lambda q, y: np.zeros((q.shape[1],) + np.shape(y)[1:]))
    elif broken == "transpose":  # correlation Aᵀy/m without solving: biased by the others' bits
        monkeypatch.setattr(A, "_least_squares", lambda q, y: (np.asarray(y).T @ q).T / q.shape[0])
    else:
        monkeypatch.setattr(A, "_round_bits", lambda x: (x < 0.5).astype(np.int8))
    assert not _succeeds_below_and_fails_above()


def test_curve_draws_are_consecutive_attacks():
    es = np.array([0.0, 2.0, 10.0, 40.0])
    c = A.reconstruction_curve(50, 200, es, trials=3, rng=5)
    g = np.random.default_rng(5)
    for k in range(3):
        state = g.bit_generator.state
        for j, e in enumerate(es):
            g.bit_generator.state = state  # the same draw at every E
            r = A.reconstruction_attack(50, 200, e, g)
            # equal up to a bit sitting exactly on the rounding threshold (never seen; allowed: 1 bit)
            assert abs(c.per_trial[k, j] - r.recovered_fraction) <= 1 / 50
    assert np.allclose(c.recovered_fraction, c.per_trial.mean(axis=0))
    assert c.sqrt_n == math.sqrt(50) and c.trials == 3


def test_curve_progress_and_trend():
    seen = []
    es = np.geomspace(0.3, 300, 25)
    c = A.reconstruction_curve(64, 320, es, trials=4, rng=1, progress=seen.append)
    assert seen == [0.25, 0.5, 0.75, 1.0]
    assert c.recovered_fraction[0] == 1.0 and c.recovered_fraction[-1] < 0.7


@pytest.mark.parametrize("args, name", [
    ((0, 10, 1.0), "n"), ((2001, 10, 1.0), "n"), ((10.5, 10, 1.0), "n"), ((10, 0, 1.0), "num_queries"),
    ((2000, 2001, 1.0), "num_queries"), ((10, 10, -1.0), "noise_scale"), ((10, 10, math.inf), "noise_scale"),
])
def test_reconstruction_bad_input(args, name):
    with pytest.raises(ValueError, match=name):
        A.reconstruction_attack(*args)


def test_curve_bad_input():
    with pytest.raises(ValueError, match="trials"):
        A.reconstruction_curve(10, 20, [1.0], trials=0)
    with pytest.raises(ValueError, match="noise_scales"):
        A.reconstruction_curve(10, 20, [1.0, -2.0])
    with pytest.raises(ValueError, match="rng"):
        A.reconstruction_attack(10, 20, 1.0, rng="seed")


# ============================================================================================ membership


def _brute_force_laws(n, p):
    """Distribution of the count under H₀ (n drawn people) and H₁ (target with bit 1 + n − 1 drawn), by
    enumerating every bit vector of the drawn people."""
    def law(k, shift):
        out = np.zeros(n + 1)
        for bits in itertools.product((0, 1), repeat=k):
            out[sum(bits) + shift] += p ** sum(bits) * (1 - p) ** (k - sum(bits))
        return out
    return law(n, 0), law(n - 1, 1)


def _np_curve(p0, p1):
    """Neyman–Pearson vertices: outcomes sorted by likelihood ratio p1/p0, most 'member-like' first."""
    lr = np.where(p0 > 0, p1 / np.where(p0 > 0, p0, 1), np.inf)
    order = np.argsort(-lr, kind="stable")
    alpha = np.concatenate([[0.0], np.cumsum(p0[order])])
    beta = 1 - np.concatenate([[0.0], np.cumsum(p1[order])])
    return alpha, beta


@pytest.mark.parametrize("n, p", [(1, 0.3), (3, 0.2), (5, 0.5), (6, 0.85)])
def test_noiseless_curve_is_the_neyman_pearson_curve(n, p):
    p0, p1 = _brute_force_laws(n, p)
    a, b = _np_curve(p0, p1)
    t = A.membership_tradeoff(n, p)
    assert t.noise == "none" and t.epsilon == math.inf
    assert np.allclose(t.alpha, a, atol=1e-14) and np.allclose(t.beta, b, atol=1e-14)


def _grid_curve(n, p, density, half_width, h=2e-3):
    """The optimal test by brute force on a fine grid of outputs y: densities of the two mixtures, cells sorted by
    likelihood ratio (no monotonicity assumed), accumulated. Discretisation error O(h)."""
    p0, p1 = _brute_force_laws(n, p)
    y = np.arange(-half_width, n + half_width, h)
    f0 = sum(p0[s] * density(y - s) for s in range(n + 1)) * h
    f1 = sum(p1[s] * density(y - s) for s in range(n + 1)) * h
    return _np_curve(f0, f1)


@pytest.mark.parametrize("noise, scale", [("laplace", 0.7), ("laplace", 2.0), ("gaussian", 0.8), ("gaussian", 2.5)])
def test_noisy_curve_matches_brute_force(noise, scale):
    n, p = 4, 0.3
    if noise == "laplace":
        def density(x):
            return np.exp(-np.abs(x) / scale) / (2 * scale)
    else:
        def density(x):
            return np.exp(-0.5 * (x / scale) ** 2) / (scale * math.sqrt(2 * math.pi))
    ga, gb = _grid_curve(n, p, density, 40 * scale)
    t = A.membership_tradeoff(n, p, noise=noise, scale=scale, num_points=4000)
    # compare β at common α by interpolation; grid error ~ h · max density ≈ 2e-3 · 0.7 → 2e-3 allowed
    alphas = np.linspace(0.01, 0.99, 50)
    assert np.allclose(np.interp(alphas, t.alpha, t.beta), np.interp(alphas, ga, gb), atol=2e-3)


@pytest.mark.parametrize("n, p", [(1, 0.1), (10, 0.05), (200, 0.5)])
@pytest.mark.parametrize("b", [0.5, 1.0, 3.0])
def test_laplace_release_respects_its_epsilon(n, p, b):
    t = A.membership_tradeoff(n, p, noise="laplace", scale=b)
    assert t.epsilon == pytest.approx(1 / b)
    assert np.all(t.beta >= dp_region_lower_bound(t.alpha, 1 / b, 0.0) - 1e-12)


@pytest.mark.parametrize("sigma", [0.5, 1.0, 4.0])
def test_gaussian_release_respects_its_gdp_curve(sigma):
    t = A.membership_tradeoff(20, 0.1, noise="gaussian", scale=sigma)
    assert t.mu == pytest.approx(1 / sigma)
    assert np.all(t.beta >= Gaussian(sigma).tradeoff(t.alpha) - 1e-9)


def test_noiseless_release_violates_dp_and_noise_helps():
    # n = 10, p = 0.05: a rare trait; the raw count exposes the target far beyond ε = 1
    raw = A.membership_tradeoff(10, 0.05)
    assert np.any(raw.beta < dp_region_lower_bound(raw.alpha, 1.0, 0.0) - 1e-3)
    noisy = A.membership_tradeoff(10, 0.05, noise="laplace", scale=1.0)
    assert noisy.advantage() < raw.advantage()
    # a large crowd with a common trait hides the target even without noise: advantage ≈ √(2/π)/(2√(np(1−p)))·…
    assert A.membership_tradeoff(5000, 0.5).advantage() < 0.02


def test_curves_are_monotone_with_exact_ends():
    for noise in A.MEMBERSHIP_NOISES:
        t = A.membership_tradeoff(50, 0.2, noise=noise, scale=1.3)
        assert t.alpha[0] == 0 and t.beta[0] == 1 and t.alpha[-1] == 1 and t.beta[-1] == 0
        assert np.all(np.diff(t.alpha) >= -1e-15) and np.all(np.diff(t.beta) <= 1e-15)
        assert np.allclose(t.tpr, 1 - t.beta)


@pytest.mark.parametrize("kwargs, name", [
    (dict(n=0, p=0.5), "n"), (dict(n=10_001, p=0.5), "n"), (dict(n=10, p=0.0), "p"), (dict(n=10, p=1.0), "p"),
    (dict(n=10, p=0.5, noise="cauchy"), "noise"), (dict(n=10, p=0.5, noise="laplace", scale=0.0), "scale"),
    (dict(n=10, p=0.5, noise="gaussian", scale=1e5), "scale"), (dict(n=10, p=0.5, num_points=3), "num_points"),
])
def test_membership_bad_input(kwargs, name):
    with pytest.raises(ValueError, match=name):
        A.membership_tradeoff(**kwargs)

"""Tests of dpviz.dpsgd: the accountants' ε of DP-SGD against exact Gaussian values at q = 1 and an independent
quadrature oracle of the subsampled Gaussian at q < 1; the released iterate's exact ε (an mpmath oracle of the
hockey-stick divergence of two Gaussians) at most the reported one with the public denominator L, and not with the
data set's own size; clipping, noise and Poisson sampling; training against a loop oracle; sizes and bad input."""

from __future__ import annotations

import math
import tracemalloc

import mpmath as mp
import numpy as np
import pytest
from scipy import integrate, stats

from dpviz.dpsgd import (
    DPSGDRun,
    accuracy,
    clip_gradients,
    dpsgd_epsilon,
    gaussian_pair_epsilon,
    iter_train_dpsgd,
    lesson_schedule,
    make_dataset,
    noisy_gradient_sum,
    per_example_gradients,
    private_denominator_epsilon,
    recorded_steps,
    train_dpsgd,
)
from dpviz.mechanisms.gaussian import Gaussian


@pytest.mark.parametrize("sigma", [0.7, 1.0, 3.0])
def test_one_full_batch_step_is_the_gaussian_mechanism(sigma):
    exact = float(Gaussian(sigma, 1.0).epsilon(1e-5))  # Balle & Wang 2018, Thm 8
    assert dpsgd_epsilon(sigma, 1.0, 1, 1e-5, accountant="pld") == pytest.approx(exact, rel=1e-6)
    rdp = dpsgd_epsilon(sigma, 1.0, 1, 1e-5, accountant="rdp")
    assert exact <= rdp <= 1.5 * exact  # RDP is an upper bound, and not a silly one


def test_full_batch_steps_compose_to_one_gaussian():
    # T Gaussians of noise σ compose exactly to one of noise σ/√T (Dong, Roth & Su 2022, Cor. 3.3)
    exact = float(Gaussian(4.0 / math.sqrt(16), 1.0).epsilon(1e-6))
    assert dpsgd_epsilon(4.0, 1.0, 16, 1e-6, accountant="pld") == pytest.approx(exact, rel=1e-6)
    assert dpsgd_epsilon(4.0, 1.0, 16, 1e-6, accountant="rdp") >= exact


def _hockey(eps, q, sigma, direction):
    """δ(ε) of one Poisson-subsampled Gaussian step by quadrature: P = (1 − q)N(0, σ²) + qN(1, σ²), Q = N(0, σ²);
    H_ε(P‖Q) (remove) or H_ε(Q‖P) (add)."""
    def p(t):
        return (1 - q) * stats.norm.pdf(t, 0, sigma) + q * stats.norm.pdf(t, 1, sigma)

    def qq(t):
        return stats.norm.pdf(t, 0, sigma)
    a, b = (p, qq) if direction == "remove" else (qq, p)
    val, _ = integrate.quad(lambda t: max(a(t) - math.exp(eps) * b(t), 0.0), -12 * sigma, 1 + 12 * sigma,
                            limit=400, points=[0.5], epsabs=1e-14, epsrel=1e-10)
    return val


@pytest.mark.slow
@pytest.mark.parametrize("q,sigma,delta", [(0.1, 1.0, 1e-3), (0.3, 2.0, 1e-4)])
def test_subsampled_step_pld_against_quadrature(q, sigma, delta):
    eps = dpsgd_epsilon(sigma, q, 1, delta, accountant="pld")
    worst = max(_hockey(eps, q, sigma, "remove"), _hockey(eps, q, sigma, "add"))
    assert worst <= delta * (1 + 1e-6)  # valid: the accountant's ε really gives δ
    worst_lower = max(_hockey(0.97 * eps, q, sigma, "remove"), _hockey(0.97 * eps, q, sigma, "add"))
    assert worst_lower > delta  # tight: 3% less ε would not
    assert dpsgd_epsilon(sigma, q, 1, delta, accountant="rdp") >= eps * (1 - 1e-9)


def test_subsampling_amplifies_and_steps_cost():
    assert dpsgd_epsilon(1.0, 0.01, 100) < dpsgd_epsilon(1.0, 0.1, 100) < dpsgd_epsilon(1.0, 0.1, 400)
    assert dpsgd_epsilon(0.0, 0.1, 10) == math.inf


def test_clip_gradients():
    g = np.array([[3.0, 4.0, 0.0], [0.3, 0.4, 0.0], [0.0, 0.0, 0.0]])
    c, was = clip_gradients(g, 1.0)
    np.testing.assert_allclose(c, [[0.6, 0.8, 0.0], [0.3, 0.4, 0.0], [0.0, 0.0, 0.0]])
    assert was.tolist() == [True, False, False]


def test_per_example_gradients_against_finite_differences():
    X, y = make_dataset(5, rng=3)
    th = np.array([0.3, -0.7, 0.2])

    def loss(t, i):
        z = float(np.r_[X[i], 1.0] @ t)
        return math.log1p(math.exp(z)) - y[i] * z
    G = per_example_gradients(th, X, y)
    h = 1e-6
    for i in range(5):
        fd = [(loss(th + h * e, i) - loss(th - h * e, i)) / (2 * h) for e in np.eye(3)]
        np.testing.assert_allclose(G[i], fd, rtol=1e-6, atol=1e-8)


def test_noise_has_std_sigma_c():
    g = np.random.default_rng(11)
    grads = np.array([[0.5, 0.0, 0.0], [0.0, 3.0, 0.0]])  # the second is clipped to (0, 2, 0) at C = 2
    draws = np.array([noisy_gradient_sum(grads, 2.0, 1.5, g) for _ in range(4000)])
    # mean: each coordinate's sample mean has sd σC/√N = 3/63 ≈ 0.047: 4 sd tolerance
    np.testing.assert_allclose(draws.mean(axis=0), [0.5, 2.0, 0.0], atol=4 * 3.0 / math.sqrt(4000))
    # sd: the sample sd has relative sd ≈ 1/√(2N) ≈ 1.1%: 4 sd tolerance
    np.testing.assert_allclose(draws.std(axis=0, ddof=1), 3.0, rtol=4 / math.sqrt(2 * 4000))


def _loop_oracle(X, y, C, lr, T):
    """Clipped full-batch gradient descent written as a plain loop: θ after each of T steps."""
    th, out = np.zeros(3), []
    for _ in range(T):
        total = np.zeros(3)
        for xi, yi in zip(X, y):
            f = np.r_[xi, 1.0]
            gi = (1 / (1 + math.exp(-f @ th)) - yi) * f
            n = np.linalg.norm(gi)
            total += gi * min(1.0, C / n) if n > 0 else gi
        th = th - lr * total / len(X)
        out.append(th)
    return out


def test_training_without_noise_full_batch_matches_loop_oracle():
    X, y = make_dataset(50, rng=4)
    C, lr, T = 0.5, 0.3, 7
    th = _loop_oracle(X, y, C, lr, T)[-1]
    run = train_dpsgd(X, y, expected_batch_size=len(X), clip_norm=C, noise_multiplier=0.0, sampling_rate=1.0,
                      steps=T, learning_rate=lr, rng=0)
    np.testing.assert_allclose(run.theta, th, rtol=1e-10, atol=1e-12)


def test_recorded_steps():
    np.testing.assert_array_equal(recorded_steps(200, 10), np.arange(0, 201, 10))
    np.testing.assert_array_equal(recorded_steps(37, 5), [0, 5, 10, 15, 20, 25, 30, 35, 37])
    np.testing.assert_array_equal(recorded_steps(3, 10), [0, 3])
    with pytest.raises(ValueError, match="eval_every"):
        recorded_steps(10, 0)


_RUN_FIELDS = ("theta", "steps", "train_accuracy", "test_accuracy", "clipped_fraction", "batch_sizes")


@pytest.mark.parametrize("kwargs,pauses", [
    (dict(steps=200, eval_every=10), [50, 100, 150]),
    (dict(steps=1000, eval_every=50, noise_multiplier=2.0, sampling_rate=0.3), [50, 250, 500, 750]),
    (dict(steps=37, eval_every=5, clip_norm=0.1), [1, 3, 20, 36, 37, 500]),  # off the record, at and past T
    (dict(steps=10, eval_every=1), []),
])
def test_iterator_ends_on_the_batch_run_bit_for_bit_and_its_partial_runs_are_prefixes(kwargs, pauses):
    X, y = make_dataset(300, rng=3)
    test = make_dataset(300, rng=4)
    batch = train_dpsgd(X, y, expected_batch_size=40.0, test=test, rng=11, **kwargs)
    runs = list(iter_train_dpsgd(X, y, expected_batch_size=40.0, test=test, rng=11, pause_at=pauses, **kwargs))
    T = kwargs["steps"]
    assert [t for t, _ in runs] == sorted({p for p in pauses if p < T} | {T})
    last = runs[-1][1]
    for f in _RUN_FIELDS:  # the same seed gives the same run, pauses or not
        assert np.array_equal(getattr(last, f), getattr(batch, f)) and getattr(last, f).dtype == getattr(batch, f).dtype
    for t, run in runs[:-1]:
        assert isinstance(run, DPSGDRun) and run.steps[-1] == t
        on_record = batch.steps[batch.steps <= t]
        k = len(on_record)
        np.testing.assert_array_equal(run.steps[:k], on_record)
        for f in ("train_accuracy", "test_accuracy", "clipped_fraction"):
            np.testing.assert_array_equal(getattr(run, f)[:k], getattr(batch, f)[:k])
        if t not in on_record:  # a pause off the record: evaluated at t as well
            assert len(run.steps) == k + 1
            assert run.test_accuracy[-1] == accuracy(run.theta, *test)
        np.testing.assert_array_equal(run.batch_sizes, batch.batch_sizes[:t])


def test_iterator_partial_model_is_the_model_after_t_steps():
    """Full batch without noise (deterministic): θ of each partial run equals the loop oracle after t steps."""
    X, y = make_dataset(50, rng=4)
    C, lr, T = 0.5, 0.3, 9
    oracle = _loop_oracle(X, y, C, lr, T)
    runs = iter_train_dpsgd(X, y, expected_batch_size=len(X), clip_norm=C, noise_multiplier=0.0, sampling_rate=1.0,
                            steps=T, learning_rate=lr, rng=0, pause_at=[2, 5])
    for t, run in runs:
        np.testing.assert_allclose(run.theta, oracle[t - 1], rtol=1e-10, atol=1e-12)
        assert run.train_accuracy[-1] == accuracy(oracle[t - 1], X, y)


@pytest.mark.parametrize("pauses", ["50", 50, [0], [2.5], None])
def test_iterator_bad_pauses_refused_before_any_step(pauses):
    X, y = make_dataset(10, rng=0)
    with pytest.raises(ValueError, match="pause_at"):
        iter_train_dpsgd(X, y, expected_batch_size=5.0, pause_at=pauses)  # no next(): refused at the call
    with pytest.raises(ValueError, match="clip_norm"):
        iter_train_dpsgd(X, y, expected_batch_size=5.0, clip_norm=-1.0)


def test_poisson_batch_sizes():
    X, y = make_dataset(1000, rng=0)
    run = train_dpsgd(X, y, expected_batch_size=50.0, sampling_rate=0.05, steps=400, rng=1)
    # mean of 400 Bin(1000, 0.05) batch sizes: sd √(1000·0.05·0.95/400) ≈ 0.34; 4 sd tolerance
    assert abs(run.batch_sizes.mean() - 50) < 4 * math.sqrt(1000 * 0.05 * 0.95 / 400)


def test_training_learns_and_records():
    X, y = make_dataset(1000, rng=1)
    Xt, yt = make_dataset(1000, rng=2)
    run = train_dpsgd(X, y, expected_batch_size=50.0, noise_multiplier=1.0, sampling_rate=0.05, steps=200,
                      test=(Xt, yt), rng=0)
    # Bayes accuracy of two unit Gaussians 2 apart is Φ(1) ≈ 0.84; a trained model gets near it
    assert run.test_accuracy[-1] > 0.78
    assert run.steps[0] == 0 and run.steps[-1] == 200 and len(run.steps) == len(run.test_accuracy)
    assert accuracy(np.zeros(3), Xt, yt) in (np.mean(yt > 0.5), np.mean(yt < 0.5))


def test_dataset_is_reproducible():
    a, b = make_dataset(10, rng=5), make_dataset(10, rng=5)
    np.testing.assert_array_equal(a[0], b[0])


@pytest.mark.parametrize("kwargs,name", [(dict(clip_norm=0.0), "clip_norm"),
                                         (dict(noise_multiplier=-1.0), "noise_multiplier"),
                                         (dict(sampling_rate=0.0), "sampling_rate"),
                                         (dict(sampling_rate=1.5), "sampling_rate"),
                                         (dict(steps=0), "steps"), (dict(steps=2.5), "steps"),
                                         (dict(learning_rate=0.0), "learning_rate"),
                                         (dict(eval_every=0), "eval_every"),
                                         (dict(expected_batch_size=0.0), "expected_batch_size"),
                                         (dict(expected_batch_size=float("nan")), "expected_batch_size"),
                                         (dict(learning_rate=1e308), "learning_rate")])
def test_training_bad_input(kwargs, name):
    X, y = make_dataset(10, rng=0)
    with pytest.raises(ValueError, match=name):
        train_dpsgd(X, y, **{"expected_batch_size": 5.0, **kwargs})


@pytest.mark.parametrize("args,name", [((1.0, 0.0, 10), "sampling_rate"), ((1.0, 0.1, 0), "steps"),
                                       ((-1.0, 0.1, 10), "noise_multiplier")])
def test_epsilon_bad_input(args, name):
    with pytest.raises(ValueError, match=name):
        dpsgd_epsilon(*args)
    with pytest.raises(ValueError, match="delta"):
        dpsgd_epsilon(1.0, 0.1, 10, 0.0)
    with pytest.raises(ValueError, match="accountant"):
        dpsgd_epsilon(1.0, 0.1, 10, accountant="zcdp")


def test_dataset_bad_input():
    with pytest.raises(ValueError, match="n"):
        make_dataset(1)
    with pytest.raises(ValueError, match=r"X has shape \(3, 3\)"):
        train_dpsgd(np.zeros((3, 3)), np.zeros(3), expected_batch_size=3.0)


def test_lesson_data_and_reference_run_are_cached_read_only_and_equal_to_direct_runs():
    from dpviz.dpsgd import lesson_data, lesson_reference_run
    (X, y), (Xt, yt) = lesson_data()
    np.testing.assert_array_equal(X, make_dataset(1000, rng=7)[0])
    assert not X.flags.writeable
    ref = lesson_reference_run(1.0, 0.1, 20, 5)
    direct = train_dpsgd(X, y, expected_batch_size=100.0, clip_norm=1.0, noise_multiplier=0.0, sampling_rate=0.1,
                         steps=20, test=(Xt, yt), eval_every=5, rng=1)
    np.testing.assert_array_equal(ref.test_accuracy, direct.test_accuracy)
    assert lesson_reference_run(1.0, 0.1, 20, 5) is ref


# ------------------------------------------------------------------ the denominator must be public (the pitfall)
mp.mp.dps = 50


def _mp_mass(lo, hi, m, s):
    """P[lo < X < hi], X ~ N(m, s²), in mpmath from the nearer tails (a difference of two cdfs near 1 would need
    more digits than the masses have)."""
    a = (lo - m) / s if lo != -mp.inf else -mp.inf
    b = (hi - m) / s if hi != mp.inf else mp.inf
    if a >= 0:
        return mp.ncdf(-a) - mp.ncdf(-b)
    if b <= 0:
        return mp.ncdf(b) - mp.ncdf(a)
    return 1 - mp.ncdf(a) - mp.ncdf(-b)


def _mp_hockey(m1, s1, m2, s2, eps):
    """H_ε(P‖Q) = ∫ (p − e^ε q)_+ for P = N(m1, s1²), Q = N(m2, s2²), in closed form: ln p − ln q − ε is the
    quadratic a t² + b t + c, positive between or outside its roots."""
    m1, s1, m2, s2, eps = (mp.mpf(v) for v in (m1, s1, m2, s2, eps))
    a = -1 / (2 * s1 ** 2) + 1 / (2 * s2 ** 2)
    b = m1 / s1 ** 2 - m2 / s2 ** 2
    c = -m1 ** 2 / (2 * s1 ** 2) + m2 ** 2 / (2 * s2 ** 2) + mp.log(s2 / s1) - eps
    if a == 0:
        root = -c / b
        iv = [(root, mp.inf)] if b > 0 else [(-mp.inf, root)]
    else:
        disc = b * b - 4 * a * c
        if disc <= 0:
            iv = [] if a < 0 else [(-mp.inf, mp.inf)]
        else:
            r1, r2 = sorted([(-b - mp.sqrt(disc)) / (2 * a), (-b + mp.sqrt(disc)) / (2 * a)])
            iv = [(r1, r2)] if a < 0 else [(-mp.inf, r1), (r2, mp.inf)]
    return sum((_mp_mass(lo, hi, m1, s1) - mp.e ** eps * _mp_mass(lo, hi, m2, s2) for lo, hi in iv), mp.mpf(0))


def _mp_epsilon(m1, s1, m2, s2, delta):
    """The exact ε at δ of the pair (both directions), by bisection to ~1e-30 in mpmath."""
    def excess(e):
        return max(_mp_hockey(m1, s1, m2, s2, e), _mp_hockey(m2, s2, m1, s1, e)) - delta
    lo, hi = mp.mpf(0), mp.mpf(1)
    if excess(lo) <= 0:
        return 0.0
    while excess(hi) > 0:
        lo, hi = hi, 2 * hi
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if excess(mid) > 0 else (lo, mid)
    return float(hi)


@pytest.mark.slow
def test_the_exact_epsilon_oracle_reproduces_the_counterexample_table():
    """The issue's table: the u-coordinate of θ₁ when the step divides by its own data set's size (n on x, n + 1 on
    x′), against the accountant's ε for the same z (an oracle check of _mp_epsilon, and of the library's
    closed form against it)."""
    for n, z, delta, table in [(10, 1.0, 1e-5, 12.57), (100, 1.0, 1e-5, 10.24), (1000, 2.0, 1e-6, 4.91)]:
        m1, s1 = -1, mp.mpf(z) / n
        m2, s2 = -mp.mpf(n - 1) / (n + 1), mp.mpf(z) / (n + 1)
        exact = _mp_epsilon(m1, s1, m2, s2, delta)
        assert round(exact, 2) == table
        assert private_denominator_epsilon(n, z, delta) == pytest.approx(exact, rel=1e-12)
        assert exact > 2 * dpsgd_epsilon(z, 1.0, 1, delta)


@pytest.mark.parametrize("m1,s1,m2,s2,delta", [(0.0, 1.0, 1.0, 1.0, 1e-5), (0.0, 1.0, 0.5, 2.0, 1e-3),
                                               (3.0, 0.2, -1.0, 0.05, 1e-8), (0.0, 1.0, 0.0, 1.001, 1e-6),
                                               (-1.0, 1e-4, -0.99998, 0.99999e-4, 1e-12)])
def test_gaussian_pair_epsilon_against_mpmath(m1, s1, m2, s2, delta):
    exact = _mp_epsilon(m1, s1, m2, s2, delta)
    assert gaussian_pair_epsilon(m1, s1, m2, s2, delta) == pytest.approx(exact, rel=1e-10, abs=1e-14)
    assert gaussian_pair_epsilon(m2, s2, m1, s1, delta) == pytest.approx(exact, rel=1e-10, abs=1e-14)  # symmetric


_U = np.array([10.0, 0.0, 1.0]) / math.sqrt(101.0)


def _counterexample(n: int):
    """x: n examples (10, 0) with label 0, whose gradients at θ = 0 are ½(10, 0, 1), clipped to C·u (C = 1);
    x′: x plus one example (10, 0) with label 1, whose gradient −½(10, 0, 1) clips to −C·u."""
    X, y = np.tile([10.0, 0.0], (n, 1)), np.zeros(n)
    return (X, y), (np.vstack([X, [10.0, 0.0]]), np.r_[y, 1.0])


def _first_iterate(data, L, z, rng=0):
    return train_dpsgd(*data, expected_batch_size=L, clip_norm=1.0, noise_multiplier=z, sampling_rate=1.0, steps=1,
                       learning_rate=1.0, rng=rng).theta


@pytest.mark.parametrize("n,z,delta", [(10, 1.0, 1e-5), (100, 1.0, 1e-5), (1000, 2.0, 1e-6)])
def test_released_iterate_exact_epsilon_is_at_most_the_reported_one_and_the_private_denominator_is_not(n, z, delta):
    """The issue's requirement. The released θ₁ = −(Σ clip(g_i) + N(0, z²C²I))/L (η = 1, θ₀ = 0, q = 1, T = 1): its
    law on each data set is N(m, s²I) with m the noise-free run's θ₁ (from the code) and s = zC/L (the noise's
    scale, checked from the code by test_first_iterate_noise_scale_is_z_c_over_l). With one public L both laws have
    the same covariance, so their exact ε is the ε of the pair along m − m′. Dividing by the data set's own size
    instead (L = q·|x| on x, q·|x′| on x′, what the code did before) gives unequal variances, and the ε of the
    u-coordinate alone, a lower bound on θ₁'s ε, exceeds the report."""
    x, xp = _counterexample(n)
    reported = dpsgd_epsilon(z, 1.0, 1, delta)
    L = float(n)  # public: fixed before the data are seen, the same on x and on x′
    m, mp_ = _first_iterate(x, L, 0.0), _first_iterate(xp, L, 0.0)
    np.testing.assert_allclose(m, -n * _U / L, rtol=1e-12)
    np.testing.assert_allclose(mp_, -(n - 1) * _U / L, rtol=1e-12)
    s = z * 1.0 / L
    gap = float(np.linalg.norm(m - mp_))
    exact = _mp_epsilon(0.0, mp.mpf(s), mp.mpf(gap), mp.mpf(s), delta)
    assert exact <= reported * (1 + 1e-9)
    assert exact == pytest.approx(reported, rel=1e-6)  # and the report is tight here (one Gaussian step)
    # the old denominator q·|x|: the same code handed the private size of each data set
    m_old, mp_old = _first_iterate(x, float(n), 0.0), _first_iterate(xp, float(n + 1), 0.0)
    u_old = _mp_epsilon(float(m_old @ _U), mp.mpf(z) / n, float(mp_old @ _U), mp.mpf(z) / (n + 1), delta)
    assert u_old > reported  # the same test fails for the private denominator


@pytest.mark.slow
def test_first_iterate_noise_scale_is_z_c_over_l():
    """θ₁ − m = −η·N(0, z²C²I)/L: 3000 seeds; the sample sd of each coordinate has relative sd ≈ 1/√(2·3000) = 1.3%:
    4 sd tolerance; the mean is 0 within 4 sd of the sample mean (s/√3000)."""
    x, _ = _counterexample(10)
    L, z, C, lr = 7.0, 1.5, 1.0, 1.0
    m = _first_iterate(x, L, 0.0)
    draws = np.array([_first_iterate(x, L, z, rng=seed) for seed in range(3000)]) - m
    s = lr * z * C / L
    np.testing.assert_allclose(draws.std(axis=0, ddof=1), s, rtol=4 / math.sqrt(2 * 3000))
    np.testing.assert_allclose(draws.mean(axis=0), 0.0, atol=4 * s / math.sqrt(3000))


def test_private_denominator_approaches_sensitivity_two_for_large_n():
    """For large n the private denominator's pair tends to a Gaussian mechanism with μ = 2/z (means 2C/(n + 1)
    apart, noise zC/n): the pitfall doubles the sensitivity."""
    limit = float(Gaussian(1.0, 2.0).epsilon(1e-5))
    assert private_denominator_epsilon(100_000, 1.0, 1e-5) == pytest.approx(limit, rel=1e-3)
    assert private_denominator_epsilon(100_000, 1.0, 1e-5) > limit


def test_train_dpsgd_requires_the_public_denominator():
    X, y = make_dataset(10, rng=0)
    with pytest.raises(TypeError, match="expected_batch_size"):
        train_dpsgd(X, y)  # no default: a denominator is a deliberate, public choice


# ------------------------------------------------------------------------------------- sizes, memory, helpers


def test_the_largest_n_with_t_steps_refused_by_the_work_cap_not_a_memory_error():
    """Before: train_dpsgd(n = 10⁵, steps = 10⁴) drew all Poisson masks at once (10⁹ doubles, 7.45 GiB) and raised
    MemoryError; now the work cap refuses it at the call, by name."""
    X = np.zeros((100_000, 2))
    y = np.zeros(100_000)
    with pytest.raises(ValueError, match=r"the cap on the work of one DP-SGD run"):
        train_dpsgd(X, y, expected_batch_size=100.0, sampling_rate=0.001, steps=10_000, eval_every=10_000)


def test_a_run_at_the_example_cap_draws_its_masks_step_by_step():
    """n = 10⁵ examples, T = 600 steps (work 6·10⁷ + evaluations, inside the WORK cap): the peak of new allocations
    stays at a few per-step arrays (a few MB), where drawing all masks at once took T·n doubles (480 MB)."""
    X, y = make_dataset(100_000, rng=0)
    tracemalloc.start()
    try:
        run = train_dpsgd(X, y, expected_batch_size=100.0, sampling_rate=0.001, steps=600, eval_every=600, rng=0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert run.batch_sizes.shape == (600,)
    assert peak < 40e6


@pytest.mark.parametrize("call,name", [
    (lambda: per_example_gradients([np.nan, 0.0, 0.0], np.zeros((2, 2)), [0.0, 1.0]), "theta"),
    (lambda: per_example_gradients([0.0, 0.0], np.zeros((2, 2)), [0.0, 1.0]), "theta"),
    (lambda: per_example_gradients(np.zeros(3), np.zeros((2, 3)), [0.0, 1.0]), "X"),
    (lambda: per_example_gradients(np.zeros(3), [[np.inf, 0.0]], [0.0]), "X"),
    (lambda: per_example_gradients(np.zeros(3), np.zeros((2, 2)), [0.0, 2.0]), "y"),
    (lambda: per_example_gradients(np.zeros(3), np.zeros((2, 2)), [0.0]), "y"),
    (lambda: accuracy([np.nan, 0.0, 0.0], np.zeros((2, 2)), [0.0, 1.0]), "theta"),
    (lambda: accuracy(np.zeros(3), np.zeros((2, 2)), [0.0, 0.5]), "y"),
    (lambda: clip_gradients([1.0, 2.0], 1.0), "grads"),
    (lambda: clip_gradients([[np.nan, 2.0]], 1.0), "grads"),
    (lambda: clip_gradients([[1.0, 2.0]], 0.0), "clip_norm"),
    (lambda: noisy_gradient_sum([[np.nan, 2.0]], 1.0, 1.0, 0), "grads"),
    (lambda: noisy_gradient_sum([[1.0, 2.0]], 1.0, -1.0, 0), "noise_multiplier"),
])
def test_helpers_validate_shapes_finiteness_and_ranges(call, name):
    """Before, the helpers checked nothing: accuracy with a NaN θ or labels 0.5 returned a number, NaN gradients
    came back as NaN, and a wrong shape surfaced as numpy's matmul error."""
    with pytest.raises(ValueError, match=name):
        call()


def test_run_record_refuses_nan_and_inconsistent_traces():
    good = dict(theta=np.zeros(3), steps=[0, 1], train_accuracy=[0.5, 0.6], test_accuracy=[0.5, 0.6],
                clipped_fraction=[0.0, 0.1], batch_sizes=[3])
    assert DPSGDRun(**good).steps.dtype == np.int64
    for field, bad in [("theta", [np.nan, 0, 0]), ("steps", [1, 0]), ("train_accuracy", [0.5, 1.5]),
                       ("test_accuracy", [0.5]), ("clipped_fraction", [0.0, np.nan]), ("batch_sizes", [-1])]:
        with pytest.raises(ValueError, match=field):
            DPSGDRun(**{**good, field: bad})


def test_lesson_schedule():
    every, recorded, picks, pauses = lesson_schedule(200)
    assert every == 10 and recorded == list(range(0, 201, 10))
    assert [recorded[i] for i in picks] == [50, 100, 150, 200] and pauses == [50, 100, 150]
    every, recorded, picks, pauses = lesson_schedule(1000)
    assert [recorded[i] for i in picks] == [250, 500, 750, 1000] and pauses == [50, 250, 500, 750]

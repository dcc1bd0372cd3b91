"""Tests of dpviz.dpsgd: the accountants' ε of DP-SGD against exact Gaussian values at q = 1 and an independent
quadrature oracle of the subsampled Gaussian at q < 1; clipping, noise and Poisson sampling; training against a
loop oracle; bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats

from dpviz.dpsgd import (
    DPSGDRun,
    accuracy,
    clip_gradients,
    dpsgd_epsilon,
    iter_train_dpsgd,
    make_dataset,
    noisy_gradient_sum,
    per_example_gradients,
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
    run = train_dpsgd(X, y, clip_norm=C, noise_multiplier=0.0, sampling_rate=1.0, steps=T, learning_rate=lr, rng=0)
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
    batch = train_dpsgd(X, y, test=test, rng=11, **kwargs)
    runs = list(iter_train_dpsgd(X, y, test=test, rng=11, pause_at=pauses, **kwargs))
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
    runs = iter_train_dpsgd(X, y, clip_norm=C, noise_multiplier=0.0, sampling_rate=1.0, steps=T, learning_rate=lr,
                            rng=0, pause_at=[2, 5])
    for t, run in runs:
        np.testing.assert_allclose(run.theta, oracle[t - 1], rtol=1e-10, atol=1e-12)
        assert run.train_accuracy[-1] == accuracy(oracle[t - 1], X, y)


@pytest.mark.parametrize("pauses", ["50", 50, [0], [2.5], None])
def test_iterator_bad_pauses_refused_before_any_step(pauses):
    X, y = make_dataset(10, rng=0)
    with pytest.raises(ValueError, match="pause_at"):
        iter_train_dpsgd(X, y, pause_at=pauses)  # no next(): refused at the call
    with pytest.raises(ValueError, match="clip_norm"):
        iter_train_dpsgd(X, y, clip_norm=-1.0)


def test_poisson_batch_sizes():
    X, y = make_dataset(1000, rng=0)
    run = train_dpsgd(X, y, sampling_rate=0.05, steps=400, rng=1)
    # mean of 400 Bin(1000, 0.05) batch sizes: sd √(1000·0.05·0.95/400) ≈ 0.34; 4 sd tolerance
    assert abs(run.batch_sizes.mean() - 50) < 4 * math.sqrt(1000 * 0.05 * 0.95 / 400)


def test_training_learns_and_records():
    X, y = make_dataset(1000, rng=1)
    Xt, yt = make_dataset(1000, rng=2)
    run = train_dpsgd(X, y, noise_multiplier=1.0, sampling_rate=0.05, steps=200, test=(Xt, yt), rng=0)
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
                                         (dict(eval_every=0), "eval_every")])
def test_training_bad_input(kwargs, name):
    X, y = make_dataset(10, rng=0)
    with pytest.raises(ValueError, match=name):
        train_dpsgd(X, y, **kwargs)


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
    with pytest.raises(ValueError, match="X, y"):
        train_dpsgd(np.zeros((3, 3)), np.zeros(3))


def test_lesson_data_and_reference_run_are_cached_read_only_and_equal_to_direct_runs():
    from dpviz.dpsgd import lesson_data, lesson_reference_run
    (X, y), (Xt, yt) = lesson_data()
    np.testing.assert_array_equal(X, make_dataset(1000, rng=7)[0])
    assert not X.flags.writeable
    ref = lesson_reference_run(1.0, 0.1, 20, 5)
    direct = train_dpsgd(X, y, clip_norm=1.0, noise_multiplier=0.0, sampling_rate=0.1, steps=20, test=(Xt, yt),
                         eval_every=5, rng=1)
    np.testing.assert_array_equal(ref.test_accuracy, direct.test_accuracy)
    assert lesson_reference_run(1.0, 0.1, 20, 5) is ref

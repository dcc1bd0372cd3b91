"""Tests of dpviz.learning (tasks, Algorithm 7, user-level DP-SGD and baselines, privacy reports)."""

import math

import numpy as np
import pytest

from dpviz.accountants.group import group_privacy
from dpviz.learning import (
    FirstOrderMethod,
    algorithm3_budget,
    compare_training,
    concentration_radius,
    make_linear_task,
    make_logistic_task,
    run_first_order,
    train_example_level,
    train_naive,
    train_nonprivate,
    train_user_level,
    user_task_from_arrays,
)
from dpviz.mechanisms import Gaussian, gaussian_delta, gaussian_epsilon, gaussian_mu


@pytest.fixture(scope="module")
def small_task():
    return make_linear_task(300, 8, 4, rng=0)


# ------------------------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("fn", [train_nonprivate, train_naive, train_user_level, train_example_level])
def test_T_below_one_rejected(small_task, fn):
    with pytest.raises(ValueError, match="T = 0"):
        fn(small_task, T=0)


@pytest.mark.parametrize("lr", [0.0, -0.1, math.nan])
@pytest.mark.parametrize("fn", [train_nonprivate, train_naive, train_user_level, train_example_level])
def test_learning_rate_must_be_positive(small_task, fn, lr):
    with pytest.raises(ValueError, match="learning_rate"):
        fn(small_task, T=5, learning_rate=lr)


def test_mismatched_shapes_rejected():
    X = np.zeros((5, 3, 2))
    with pytest.raises(ValueError, match=r"y has shape \(5, 4\)"):
        user_task_from_arrays("linear", X, np.zeros((5, 4)))
    with pytest.raises(ValueError, match="user 1 has 3 feature rows but 2 labels"):
        user_task_from_arrays("linear", [np.zeros((3, 2))] * 2, [np.zeros(3), np.zeros(2)])
    with pytest.raises(ValueError, match="feature dimensions"):
        user_task_from_arrays("linear", [np.zeros((3, 2)), np.zeros((3, 4))], [np.zeros(3)] * 2)
    with pytest.raises(ValueError, match="same m"):
        user_task_from_arrays("linear", [np.zeros((3, 2)), np.zeros((4, 2))], [np.zeros(3), np.zeros(4)])
    task = make_linear_task(10, 2, 3, rng=0)
    with pytest.raises(ValueError, match="theta has shape"):
        task.user_gradients(np.zeros(4))


def test_users_with_no_examples_rejected():
    with pytest.raises(ValueError, match="user 2 has no examples"):
        user_task_from_arrays("logistic", [np.ones((2, 3))] * 2 + [np.ones((0, 3))], [np.ones(2)] * 2 + [np.ones(0)])
    with pytest.raises(ValueError, match="no examples"):
        user_task_from_arrays("linear", np.zeros((4, 0, 3)), np.zeros((4, 0)))


@pytest.mark.parametrize("kw, name", [(dict(epsilon=0.0), "epsilon"), (dict(delta=0.0), "delta"),
                                      (dict(delta=1.0), "delta"), (dict(mode="fast"), "mode"),
                                      (dict(tau=-1.0), "tau"), (dict(variant="adam"), "variant")])
def test_user_level_bad_parameters(small_task, kw, name):
    with pytest.raises(ValueError, match=name):
        train_user_level(small_task, T=3, **kw)


def test_strongly_convex_needs_mu():
    with pytest.raises(ValueError, match="strong_convexity"):
        FirstOrderMethod("strongly_convex", learning_rate=0.1)


# ------------------------------------------------------------------------------------------- tasks


def test_user_gradients_match_per_example_average():
    for task in (make_linear_task(40, 6, 3, heterogeneity=0.3, rng=1), make_logistic_task(40, 6, 3, rng=1)):
        th = np.array([0.3, -0.2, 0.1])
        brute = task.example_gradients(th).mean(axis=1)  # (1/m) Σ_j ∇ℓ(θ; z_j^(u))
        np.testing.assert_allclose(task.user_gradients(th), brute, atol=1e-12)
        np.testing.assert_allclose(task.full_gradient(th), brute.mean(axis=0), atol=1e-12)
        # gradient is the derivative of the loss (central differences)
        e = 1e-6
        num = [(task.loss(th + e * np.eye(3)[i]) - task.loss(th - e * np.eye(3)[i])) / (2 * e) for i in range(3)]
        np.testing.assert_allclose(task.full_gradient(th), num, atol=1e-7)


def test_clipped_example_mean_matches_brute_force():
    task = make_logistic_task(30, 5, 4, rng=2)
    th = np.array([2.0, -1.0, 0.5, 3.0])
    g = task.example_gradients(th).reshape(-1, 4)
    nrm = np.linalg.norm(g, axis=1, keepdims=True)
    brute = (g * np.minimum(1.0, 0.1 / nrm)).mean(axis=0)
    mean, frac = task.clipped_example_mean(th, 0.1)
    np.testing.assert_allclose(mean, brute, atol=1e-14)
    assert frac == pytest.approx(float((nrm > 0.1).mean()))


def test_public_lipschitz_bound_holds():
    task = make_linear_task(200, 10, 5, heterogeneity=0.5, rng=3)
    rng = np.random.default_rng(0)
    for _ in range(20):
        th = rng.normal(size=5)
        th *= task.radius / np.linalg.norm(th)  # worst case on the boundary of Θ
        assert np.linalg.norm(task.example_gradients(th), axis=-1).max() <= task.lipschitz


def test_linear_excess_risk_exact_formula():
    task = make_linear_task(10, 2, 3, rng=0)
    d = np.array([0.1, 0.2, -0.3])
    assert task.excess_risk(task.theta_star + d) == pytest.approx(0.5 * d @ task.sigma_x @ d, rel=1e-14)
    # Σ = E[xxᵀ] exactly: Monte-Carlo check, tolerance 5 standard errors per entry
    big = make_linear_task(20000, 5, 3, rng=1)
    x = big.X.reshape(-1, 3)
    outer = x[:, :, None] * x[:, None, :]
    se = outer.std(axis=0) / math.sqrt(x.shape[0])
    assert np.all(np.abs(outer.mean(axis=0) - big.sigma_x) < 5 * se + 1e-12)


def test_concentration_radius_covers_user_gradients():
    # the derived McDiarmid radius holds for all users in (at least) 1 − γ of datasets; here: all 5 seeds
    for seed in range(5):
        task = make_linear_task(500, 50, 4, rng=seed)
        th = np.zeros(4)
        g = task.user_gradients(th)
        pop = task.sigma_x @ (th - task.theta_star)  # population gradient at θ
        tau = concentration_radius(task.lipschitz, task.m, task.n, 0.01)
        assert np.linalg.norm(g - pop, axis=1).max() <= tau


# ------------------------------------------------------------------------------------------- Algorithm 7


def test_first_order_variants():
    target = np.array([0.3, -0.4])
    oracle = lambda th, t: th - target  # noqa: E731  ∇ of ½‖θ − target‖², μ = H = 1
    conv = run_first_order(oracle, np.zeros(2), 400, FirstOrderMethod("convex", 0.5, radius=1.0))
    np.testing.assert_allclose(conv.output, target, atol=0.01)  # average of iterates → 1/T bias
    sc = run_first_order(oracle, np.zeros(2), 400, FirstOrderMethod("strongly_convex", 0.5, 1.0, 1.0, 1.0))
    np.testing.assert_allclose(sc.output, target, atol=1e-9)
    nc = run_first_order(oracle, np.zeros(2), 50, FirstOrderMethod("nonconvex", 0.5, 1.0), rng=3)
    assert any(np.array_equal(nc.output, it) for it in nc.iterates)
    # projection: the optimum outside Θ is projected onto the sphere
    far = run_first_order(lambda th, t: th - np.array([3.0, 4.0]), np.zeros(2), 300,
                          FirstOrderMethod("strongly_convex", 0.5, 1.0, 1.0, 1.0))
    np.testing.assert_allclose(far.output, [0.6, 0.8], atol=1e-9)


def test_strongly_convex_schedule():
    m = FirstOrderMethod("strongly_convex", learning_rate=0.5, radius=1.0, strong_convexity=0.1, smoothness=1.0)
    T = 100
    assert m.step_size(0, T) == 0.5 and m.step_size(49, T) == 0.5
    k0 = 20.0
    assert m.step_size(50 + 30, T) == pytest.approx(2.0 / (0.1 * (30 + k0)))


def test_nonconvex_aggregate_is_uniform_over_iterates():
    """Remark 2(iii) of 004: Aggregate returns θ_t with t uniform on {0..T}; χ² goodness of fit at level 10⁻³."""
    from scipy import stats

    T = 5
    its = np.arange(T + 1, dtype=float)[:, None] * np.ones((1, 2))
    meth = FirstOrderMethod("nonconvex", 0.5, radius=10.0)
    rng = np.random.default_rng(0)
    picks = np.array([meth.aggregate(its, rng)[0] for _ in range(6000)]).astype(int)
    counts = np.bincount(picks, minlength=T + 1)
    assert counts.size == T + 1 and stats.chisquare(counts).pvalue > 1e-3


def test_strongly_convex_aggregate_weights():
    """Remark 2(ii) of 004 as implemented: after the restart at t₁ = ⌈T/2⌉, average θ_{t₁+1..T} with weights
    ∝ k + k₀, k₀ = 2H/μ (exact oracle on distinct iterates)."""
    T, mu, H = 10, 0.5, 1.0
    its = np.arange(T + 1, dtype=float)[:, None] ** 2 * np.array([[1.0, -1.0]])
    meth = FirstOrderMethod("strongly_convex", 0.5, radius=1e3, strong_convexity=mu, smoothness=H)
    k0, t1 = 2 * H / mu, math.ceil(T / 2)
    w = np.arange(T - t1) + k0
    expected = (w[:, None] * its[t1 + 1:]).sum(axis=0) / w.sum()
    np.testing.assert_allclose(meth.aggregate(its, np.random.default_rng(0)), expected, rtol=1e-14)


def test_progress_callback_reaches_one(small_task):
    seen = []
    train_naive(small_task, T=25, rng=0, progress=seen.append)
    assert seen[-1] == 1.0 and all(a < b for a, b in zip(seen, seen[1:]))


# ------------------------------------------------------------------------------------------- privacy


def test_gdp_profile_matches_mechanisms_gaussian():
    # independent exact implementation: dpviz.mechanisms.Gaussian (Balle & Wang 2018, Thm 8)
    for mu in (0.1, 0.7, 2.0):
        for eps in (0.0, 0.5, 3.0):
            assert gaussian_delta(eps, mu) == pytest.approx(Gaussian(sigma=1.0 / mu).delta(eps), rel=1e-9, abs=1e-15)
    assert gaussian_epsilon(1e-5, gaussian_mu(0.8, 1e-5)) == pytest.approx(0.8, rel=1e-9)


@pytest.mark.parametrize("fn", [train_naive, train_user_level])
def test_user_level_runs_spend_exactly_target(small_task, fn):
    T, eps, delta = 40, 0.7, 1e-6
    run = fn(small_task, eps, delta, T, rng=0)
    z = run.params["noise_multiplier"]
    # independent computation: T-fold Gaussian with Δ/σ = 1/z is a Gaussian with sensitivity √T
    exact = Gaussian(sigma=z, sensitivity=math.sqrt(T)).epsilon(delta)
    assert exact == pytest.approx(eps, rel=1e-8)
    assert run.privacy.delta == delta
    assert run.privacy.epsilon == pytest.approx(exact, rel=2e-3)  # PLD discretisation or exact closed form
    assert run.privacy.events == ((("gaussian", z), T),)


def test_example_level_user_level_cost_is_m_times_sensitivity(small_task):
    T, eps, delta = 30, 1.0, 1e-5
    run = train_example_level(small_task, eps, delta, T, rng=0)
    z, m = run.params["noise_multiplier"], small_task.m
    item = Gaussian(sigma=z, sensitivity=math.sqrt(T)).epsilon(delta)
    user = Gaussian(sigma=z, sensitivity=m * math.sqrt(T)).epsilon(delta)
    assert run.privacy.epsilon_item == pytest.approx(item, rel=2e-3)
    assert run.privacy.epsilon == pytest.approx(user, rel=2e-3)
    assert run.privacy.epsilon > 5 * eps  # example-level DP-SGD is far from user-level private
    # group privacy (Lemma 6 of 000) is a valid but looser bound on the same quantity
    # (compared at the group bound's own δ, which is larger)
    g_eps, g_delta = group_privacy(item, delta, m)
    assert Gaussian(sigma=z, sensitivity=m * math.sqrt(T)).epsilon(g_delta) <= g_eps


def test_paper_mode_privacy_within_paper_claim():
    task = make_linear_task(400, 10, 3, rng=0)
    T, eps, delta = 20, 1.0, 1e-5
    run = train_user_level(task, eps, delta, T, mode="paper", rng=0)
    e1, d1 = algorithm3_budget(eps, delta, T)
    assert run.params["epsilon_step"] == e1 and run.params["delta_step"] == d1
    dp = run.params["d_pad"]
    assert dp == 4
    e_coord = e1 / math.sqrt(8 * dp * math.log(1 / d1))  # Alg. 2 of 004 per-coordinate budget
    assert run.params["epsilon_coord"] == pytest.approx(e_coord, rel=1e-12)
    assert run.privacy.events == ((("pure", pytest.approx(e_coord)), T * dp),)
    # independent bound: k pure ε₀ events are (kε₀²/2)-zCDP (Bun & Steinke 2016, Prop. 1.4), hence
    # (ρ + 2√(ρ ln(1/δ)), δ)-DP (Prop. 1.3), capped by basic composition kε₀: the accountant's answer is tighter
    k = T * dp
    rho = k * e_coord**2 / 2.0
    closed_form = min(rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta)), k * e_coord)
    assert run.privacy.epsilon <= closed_form * (1 + 1e-9)
    # and the paper's claim (advanced composition, Thm 10 of 004) is valid, hence not below the true ε
    assert run.privacy.epsilon_paper == eps and run.privacy.epsilon <= eps
    assert np.isfinite(run.losses).all()


def test_paper_mode_reports_theorem10_beta():
    """Digest 004 pitfall P13: report β. Thm 10 of 004 = Thm 2's β per call at (ε′, δ′, γ/T), union over T calls:
    vacuous (β = 1) at lesson sizes, 2γ once n is huge."""
    from dpviz.mean import theorem2_beta

    task = make_linear_task(400, 10, 3, rng=0)
    run = train_user_level(task, 1.0, 1e-5, 20, mode="paper", rng=0)
    assert run.params["beta"] == 1.0
    big = make_linear_task(200_000, 1, 1, rng=0)
    T, gamma = 5, 0.01
    run = train_user_level(big, 1.0, 1e-5, T, mode="paper", gamma=gamma, rng=0)
    e1, d1 = algorithm3_budget(1.0, 1e-5, T)
    per_call = theorem2_beta(big.n, 1, e1, d1, run.params["tau"], big.lipschitz, gamma / T)
    assert run.params["beta"] == pytest.approx(min(1.0, T * per_call), rel=1e-12)
    assert run.params["beta"] == pytest.approx(2 * gamma, rel=1e-6)


# ------------------------------------------------------------------------------------------- utility


def _naive_expected_excess(task, lr, T, s):
    """Exact E[excess] of the averaged iterate of noisy GD on a quadratic (no clipping or projection active):
    θ̂ = θ̂_det + ē, Cov(ē) = (η s / T)² Σ_{j=1..T} S_j S_jᵀ, S_j = Σ_{i<j} (I − ηĀ)^i."""
    A = task._Abar
    d = task.d
    M = np.eye(d) - lr * A
    S = np.zeros((d, d))
    P = np.eye(d)
    cov = np.zeros((d, d))
    for _ in range(T):
        S = S + P
        P = P @ M
        cov += S @ S.T
    cov *= (lr * s / T) ** 2
    det = train_nonprivate(task, T, learning_rate=lr).theta
    diff = det - task.theta_star
    return 0.5 * diff @ task.sigma_x @ diff + 0.5 * np.trace(task.sigma_x @ cov)


@pytest.mark.slow
@pytest.mark.parametrize("n, m", [(2000, 5), (4000, 5), (2000, 20)])
def test_naive_excess_risk_matches_exact_prediction(n, m):
    """Excess risk of the naive run equals its exact expectation (so it falls as 1/n² in the privacy term and
    does not improve with m beyond the statistical term); 4 standard errors over 40 seeds."""
    task = make_linear_task(n, m, 3, label_noise=0.3, rng=11)
    T, lr, eps, delta = 60, 1.0, 2.0, 1e-5
    vals = []
    for seed in range(40):
        run = train_naive(task, eps, delta, T, learning_rate=lr, rng=seed)
        assert run.clip_fraction.max() == 0 and np.linalg.norm(run.iterates, axis=1).max() < task.radius
        vals.append(run.final_excess)
    s = run.noise_std[0]
    pred = _naive_expected_excess(task, lr, T, s)
    vals = np.array(vals)
    assert abs(vals.mean() - pred) < 4 * vals.std(ddof=1) / math.sqrt(len(vals))


def test_privacy_term_scales_as_theory():
    # the exact prediction's noise part scales as s² ∝ 1/n² (naive, fixed m) — Thm 3 of 004 / §2.12 baseline
    t1 = make_linear_task(500, 5, 3, rng=1)
    t2 = make_linear_task(1000, 5, 3, rng=1)
    r1 = train_naive(t1, 1.0, 1e-5, 60, learning_rate=2.0, rng=0)
    r2 = train_naive(t2, 1.0, 1e-5, 60, learning_rate=2.0, rng=0)
    assert r1.noise_std[0] / r2.noise_std[0] == pytest.approx(2.0 * t1.lipschitz / t2.lipschitz)


def test_erm_excess_falls_with_number_of_examples():
    """Non-private ERM on the linear task: E[excess] ≈ s_e²·d/(2nm) (classical OLS asymptotics), so it falls
    with both m and n; checked at two (n, m) with 4-SE tolerance plus the O(d/N) finite-sample correction."""
    s_e, d = 0.5, 3
    for n, m in [(200, 5), (200, 20), (800, 5)]:
        vals = []
        for seed in range(60):
            task = make_linear_task(n, m, d, label_noise=s_e, rng=seed)
            vals.append(task.excess_risk(task.erm_solution()))
        vals = np.array(vals)
        N = n * m
        pred = s_e**2 * d / (2 * N)
        tol = 4 * vals.std(ddof=1) / math.sqrt(len(vals)) + pred * 3 * d / N * 10
        assert abs(vals.mean() - pred) < tol, (n, m, vals.mean(), pred)


@pytest.mark.slow
def test_user_level_beats_naive_when_m_is_large():
    """The regime of 004 (privacy cost ∝ τ ∝ 1/√m for user-level, independent of m for naive): with m = 1000
    the winsorized (practical) run has lower excess risk than the naive one at the same (ε, δ); with m = 5 the
    user gradients are not concentrated (τ > G) and both coincide (to rounding)."""
    big = make_linear_task(500, 1000, 3, rng=4)
    assert concentration_radius(big.lipschitz, big.m, big.n) < big.lipschitz / 3
    u = np.array([train_user_level(big, 1.0, 1e-5, 60, learning_rate=2.0, rng=s).final_excess for s in range(12)])
    nv = np.array([train_naive(big, 1.0, 1e-5, 60, learning_rate=2.0, rng=s).final_excess for s in range(12)])
    diff = nv - u
    assert diff.mean() > 4 * diff.std(ddof=1) / math.sqrt(len(diff))
    small = make_linear_task(500, 5, 3, rng=4)
    assert concentration_radius(small.lipschitz, small.m, small.n) > small.lipschitz
    a = train_user_level(small, 1.0, 1e-5, 30, rng=7)
    b = train_naive(small, 1.0, 1e-5, 30, rng=7)
    # the same algorithm (clipping inactive), its noise std written 2z/n·C in one and z·2C/n in the other: equal up
    # to the rounding of that product
    np.testing.assert_allclose(a.iterates, b.iterates, rtol=1e-12, atol=1e-15)


@pytest.mark.slow
def test_user_level_excess_falls_with_m_and_n_naive_not_with_m():
    """Thm 3 of 004: the privacy term of user-level DP-SGD falls with n and with m (τ ∝ 1/√m), while the naive
    baseline's (clip to G) does not fall with m (004 §1, digest §2.12; its fall with n is checked exactly in
    test_naive_excess_risk_matches_exact_prediction). Same seeds across settings (paired noise);
    a change counts when the paired mean difference exceeds 4 standard errors; no change when it stays within 4.
    Regime: τ < G and n large enough that the public radius feedback is stable (module docstring)."""
    T, K, lr = 60, 30, 2.0
    cfg = {(2000, 100): None, (2000, 400): None, (4000, 100): None}
    for n, m in cfg:
        task = make_linear_task(n, m, 3, label_noise=0.3, rng=11)
        assert concentration_radius(task.lipschitz, m, n) < task.lipschitz  # radius τ, not the cap G
        u = [train_user_level(task, 1.0, 1e-5, T, learning_rate=lr, rng=s).final_excess for s in range(K)]
        nv = [train_naive(task, 1.0, 1e-5, T, learning_rate=lr, rng=s).final_excess for s in range(K) if n == 2000]
        cfg[n, m] = np.array(u), np.array(nv)

    def t_stat(a, b):
        d = a - b
        return d.mean() / (d.std(ddof=1) / math.sqrt(len(d)))

    base, more_m, more_n = cfg[2000, 100], cfg[2000, 400], cfg[4000, 100]
    assert t_stat(base[0], more_m[0]) > 4  # user-level: 4× more samples per user help
    assert t_stat(base[0], more_n[0]) > 4  # user-level: 2× more users help
    assert abs(t_stat(base[1], more_m[1])) < 4  # naive: more samples per user do not


def test_compare_training_runs_all_methods(small_task):
    seen = []
    runs = compare_training(small_task, 1.0, 1e-5, 20, rng=0, progress=seen.append)
    assert set(runs) == {"user_level", "naive", "example_level", "nonprivate"}
    assert seen[-1] == pytest.approx(1.0)
    assert runs["nonprivate"].privacy is None
    assert runs["nonprivate"].final_loss <= min(r.final_loss for r in runs.values()) + 1e-12


# ------------------------------------------------------------------------------------------- accountants cross-check


def test_noise_multiplier_matches_accountant_calibration(small_task):
    from dpviz.accountants import calibrate_sigma

    T, eps, delta = 50, 1.0, 1e-5
    z = train_naive(small_task, eps, delta, T, rng=0).params["noise_multiplier"]
    sig = calibrate_sigma(eps, delta, count=T, accountant="pld", neighboring="replace_one")
    assert z == pytest.approx(sig, rel=2e-4)  # calibrate_sigma returns σ within (1 + rtol) of the smallest


def test_gaussian_runs_recomposed_by_independent_accountants(small_task):
    from dpviz.accountants import RDPAccountant, ZCDPAccountant

    T, eps, delta = 40, 0.5, 1e-6
    run = train_user_level(small_task, eps, delta, T, rng=0)
    z = run.params["noise_multiplier"]
    # RDP and zCDP are valid upper bounds on the exact (PLD) answer, and not wildly above it
    for cls in (RDPAccountant, ZCDPAccountant):
        e = cls(neighboring="replace_one").compose(Gaussian(sigma=z), count=T).epsilon(delta)
        assert run.privacy.epsilon * (1 - 1e-9) <= e <= 1.5 * run.privacy.epsilon


def test_paper_mode_recomposed_by_optimal_accountant():
    from dpviz.accountants import AdvancedAccountant, OptimalAccountant, PureDP

    task = make_linear_task(400, 10, 3, rng=0)
    T, eps, delta = 20, 1.0, 1e-5
    run = train_user_level(task, eps, delta, T, mode="paper", rng=0)
    (_, e_coord), count = run.privacy.events[0]
    opt = OptimalAccountant(neighboring="replace_one").compose(PureDP(e_coord), count=count).epsilon(delta)
    adv = AdvancedAccountant(neighboring="replace_one").compose(PureDP(e_coord), count=count).epsilon(delta)
    # optimal composition of pure DP (Kairouz, Oh & Viswanath 2015) is exact: the PLD answer matches it
    assert opt * (1 - 1e-6) <= run.privacy.epsilon <= opt * 1.02
    # the paper's nested advanced composition claims ε; the true spend is far below it
    assert adv <= eps and run.privacy.epsilon < 0.2 * eps


def test_heterogeneity_floor_formula():
    """Non-private ERM under user drift h: E[excess] ≈ s²d/(2nm) + h²·tr Σ/(2nd) (the formula the heterogeneity
    panel draws; derived from OLS asymptotics and Cov(mean of n unit-sphere drifts) = I/(nd)); 4 SE over 30 seeds."""
    n, d, h, s_e = 200, 5, 0.3, 0.5
    for m in (1, 10, 100):
        vals = []
        for seed in range(30):
            t = make_linear_task(n, m, d, heterogeneity=h, label_noise=s_e, rng=seed)
            vals.append(t.excess_risk(t.erm_solution()))
        vals = np.array(vals)
        pred = s_e**2 * d / (2 * n * m) + h**2 * np.trace(t.sigma_x) / (2 * n * d)
        assert abs(vals.mean() - pred) < 4 * vals.std(ddof=1) / math.sqrt(len(vals)), (m, vals.mean(), pred)


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=40, deadline=None)
@given(T=st.integers(max_value=0), lr=st.floats(max_value=0.0, allow_nan=False))
def test_validation_property(T, lr):
    task = make_linear_task(20, 2, 2, rng=0)
    with pytest.raises(ValueError, match="T"):
        train_user_level(task, T=T)
    with pytest.raises(ValueError, match="learning_rate"):
        train_naive(task, T=3, learning_rate=lr)


@settings(max_examples=30, deadline=None)
@given(sizes=st.lists(st.integers(min_value=0, max_value=4), min_size=1, max_size=6))
def test_ragged_or_empty_users_rejected_property(sizes):
    xs = [np.zeros((k, 2)) for k in sizes]
    ys = [np.zeros(k) for k in sizes]
    if min(sizes) >= 1 and len(set(sizes)) == 1:
        assert user_task_from_arrays("linear", xs, ys).n == len(sizes)
    else:
        with pytest.raises(ValueError, match="no examples|same m"):
            user_task_from_arrays("linear", xs, ys)


# ------------------------------------------------------------------------------------------- streamed runs (issue 14)


def _same_run(a, b):
    for name in ("theta", "iterates", "steps", "losses", "excess", "clip_fraction", "noise_std"):
        x, y = getattr(a, name), getattr(b, name)
        assert (x is None and y is None) or np.array_equal(x, y), name
    assert a.final_loss == b.final_loss and a.final_excess == b.final_excess
    assert (a.privacy is None and b.privacy is None) or a.privacy.epsilon == b.privacy.epsilon


@pytest.mark.parametrize("mode,variant,kind", [("practical", "convex", "linear"), ("paper", "nonconvex", "linear"),
                                               ("practical", "strongly_convex", "logistic")])
def test_lockstep_runs_equal_each_method_run_on_its_own(mode, variant, kind):
    """iter_compare_training interleaves the methods step by step; each method's final run must equal the same
    method run alone with its own seed (drawn as compare_training draws them), and the batch function."""
    from dpviz.learning import iter_compare_training

    task = make_linear_task(60, 4, 3, rng=1) if kind == "linear" else make_logistic_task(60, 4, 3, holdout=200,
                                                                                          rng=1)
    T = 30
    steps = list(iter_compare_training(task, 1.0, 1e-5, T, mode=mode, variant=variant, rng=7, pause_at=[3, 12]))
    assert [t for t, _ in steps] == [3, 12, T]
    final = steps[-1][1]
    seeds = np.random.default_rng(7).integers(0, 2**63 - 1, size=4)
    alone = {
        "user_level": train_user_level(task, 1.0, 1e-5, T, mode=mode, variant=variant, rng=seeds[0]),
        "naive": train_naive(task, 1.0, 1e-5, T, variant=variant, rng=seeds[1]),
        "example_level": train_example_level(task, 1.0, 1e-5, T, variant=variant, rng=seeds[2]),
        "nonprivate": train_nonprivate(task, T, variant=variant, rng=seeds[3]),
    }
    batch = compare_training(task, 1.0, 1e-5, T, mode=mode, variant=variant, rng=7)
    assert list(final) == list(alone) == list(batch)
    for key in alone:
        _same_run(final[key], alone[key])
        _same_run(batch[key], alone[key])
    # a partial run is the prefix of the final one: the same iterates so far, θ = the current iterate
    for t, runs in steps[:-1]:
        for key, run in runs.items():
            assert np.array_equal(run.iterates, final[key].iterates[:t + 1])
            assert np.array_equal(run.theta, final[key].iterates[t]) and run.steps[-1] == t
            assert run.privacy is None or run.privacy.epsilon == final[key].privacy.epsilon
            assert len(run.noise_std) == t


def test_streamed_training_validates_at_the_call(small_task):
    from dpviz.learning import iter_compare_training

    with pytest.raises(ValueError, match="pause_at"):
        iter_compare_training(small_task, T=10, pause_at="5")
    with pytest.raises(ValueError, match="pause_at entry"):
        iter_compare_training(small_task, T=10, pause_at=[0])
    with pytest.raises(ValueError, match="epsilon"):
        iter_compare_training(small_task, -1.0, T=10)


def test_the_step_iterator_is_the_batch_run(small_task):
    checkpoints = list(train_naive.steps(small_task, 1.0, 1e-5, 12, rng=3))
    assert [c.t for c in checkpoints] == list(range(1, 13)) and checkpoints[-1].final
    _same_run(checkpoints[-1].run(), train_naive(small_task, 1.0, 1e-5, 12, rng=3))

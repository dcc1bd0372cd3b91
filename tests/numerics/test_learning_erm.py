"""Tests of dpviz.learning.erm (Algorithms 4, 5, H) and dpviz.learning.rates (Theorems 3–9 of 004, 29–32 of 003)."""

import math

import numpy as np
import pytest

from dpviz.learning import make_linear_task, rates, train_nonprivate
from dpviz.learning.erm import (
    algorithm_h_budget,
    phased_erm,
    phased_erm_schedule,
    private_selection,
    selection_tau,
    train_algorithm_h,
)

# ------------------------------------------------------------------------------------------- Algorithm 4


def test_phased_schedule_formulas():
    n, m, d, eps, G, sigma, R = 5000, 64, 8, 0.5, 2.0, 0.3, 3.0
    s = phased_erm_schedule(n, m, d, eps, G=G, sigma=sigma, R=R)
    T = math.ceil(math.log2(G * n * math.sqrt(m) * eps / (sigma * d)))
    g_under = min(G, sigma * math.sqrt(d))
    lam = math.sqrt(G * g_under / (n * m) + sigma**2 * d**2 / (n**2 * m * eps**2)) / R
    assert s.phases == T and s.lam == pytest.approx(lam, rel=1e-14)
    assert s.users.tolist() == [n // 2**t for t in range(1, T + 1)]
    np.testing.assert_allclose(s.lambdas, [lam * 4**t for t in range(1, T + 1)], rtol=1e-14)
    assert s.users_used < n  # disjoint groups fit in the n users
    # λ_t n_t² stays ≈ λ n² (the corrected identity, digest §3.4)
    np.testing.assert_allclose(s.lambdas[:5] * (n / 2.0 ** np.arange(1, 6)) ** 2, lam * n**2, rtol=1e-12)


def test_phased_schedule_bad_input():
    with pytest.raises(ValueError, match="epsilon"):
        phased_erm_schedule(100, 2, 2, 0.0)
    with pytest.raises(ValueError, match="n = 1"):
        phased_erm_schedule(1, 2, 2, 1.0)


@pytest.mark.slow
def test_phased_erm_uses_disjoint_users_and_learns():
    task = make_linear_task(20000, 40, 4, rng=0)
    run = phased_erm(task, 1.0, 1e-9, steps_per_phase=60, rng=1)
    sizes = [r.theta.shape for r in run.phase_runs]
    assert len(sizes) == run.phases_run
    # users per phase follow the schedule exactly
    assert [r.params["T"] for r in run.phase_runs] == [60] * run.phases_run
    assert run.privacy.epsilon <= 1.0 + 1e-6  # parallel composition: the max over phases
    # excess risk of the output is far below that of θ = 0 (the start)
    assert run.excess[-1] < 0.1 * task.excess_risk(np.zeros(4))


def test_phased_erm_phases_take_disjoint_groups_of_schedule_size(monkeypatch):
    """Pitfall P11 of digest 004: phase t runs on n_t = ⌊n/2^t⌋ users never used before (that is what makes the
    whole run (ε, δ) by parallel composition), and starts from the previous phase's output θ̂_{t−1}."""
    from dpviz.learning.tasks import UserTask

    seen = []
    orig = UserTask.subset

    def spy(self, users):
        seen.append(np.asarray(users).copy())
        return orig(self, users)

    monkeypatch.setattr(UserTask, "subset", spy)
    task = make_linear_task(3000, 10, 3, rng=0)
    run = phased_erm(task, 1.0, 1e-7, steps_per_phase=20, rng=2)
    sched = run.schedule
    assert [len(u) for u in seen] == [int(k) for k in sched.users if k >= 1] and len(seen) == run.phases_run
    allu = np.concatenate(seen)
    assert len(np.unique(allu)) == len(allu) and allu.min() >= 0 and allu.max() < task.n
    for prev, r in zip(run.phase_thetas[:-1], run.phase_runs[1:]):
        np.testing.assert_array_equal(r.iterates[0], prev)
    np.testing.assert_array_equal(run.theta, run.phase_thetas[-1])
    # each phase's own accountant answer is within (ε, δ); the run reports their maximum
    assert run.privacy.epsilon == max(r.privacy.epsilon for r in run.phase_runs)


# ------------------------------------------------------------------------------------------- Algorithm 5


def test_selection_tau_formula():
    assert selection_tau(7, 300, 16, 0.2, B=2.0) == pytest.approx(math.sqrt((math.log(2100) + math.log(50)) / 16))


@pytest.mark.slow
def test_private_selection_picks_best_when_gap_large():
    rng = np.random.default_rng(0)
    L = np.clip(rng.uniform(0.3, 0.9, size=(8, 400)), 0, 1)
    L[5] -= 0.3
    hits = sum(private_selection(L, 2.0, 100, rng=s).index == 5 for s in range(20))
    assert hits >= 18


@pytest.mark.slow
def test_private_selection_draw_count_is_geometric():
    # mean number of draws = 1/γ = 5K/α (proof of Thm 6); 300 runs, 4 standard errors of a Geometric mean
    L = np.full((4, 50), 0.5)
    draws = np.array([private_selection(L, 1.0, 10, alpha=0.5, rng=s).draws for s in range(300)])
    gamma = 0.5 / 20
    se = math.sqrt((1 - gamma) / gamma**2 / len(draws))
    assert abs(draws.mean() - 1 / gamma) < 4 * se


def test_private_selection_bad_input():
    with pytest.raises(ValueError, match="user_losses"):
        private_selection(np.zeros(5), 1.0, 3)
    with pytest.raises(ValueError, match="epsilon"):
        private_selection(np.zeros((2, 5)), -1.0, 3)


# ------------------------------------------------------------------------------------------- Algorithm H


def test_algorithm_h_budget_composes_back():
    e, d = algorithm_h_budget(1.0, 1e-6, 50)
    total = math.sqrt(2 * 50 * math.log(2 / 1e-6)) * e + 50 * e * math.expm1(e)
    assert total == pytest.approx(1.0, rel=1e-9) and d == 1e-6 / 100


@pytest.mark.slow
def test_algorithm_h_privacy_recomposed_independently():
    """T steps at (ε_t, δ_t) each: the reported ε (PLD accountant) equals the optimal composition of T (ε_t, δ_t)
    mechanisms (Kairouz, Oh & Viswanath 2015, a different accountant), which the DRV bound (003 Thm 12) caps at ε."""
    from dpviz.accountants import ApproxDP, OptimalAccountant

    task = make_linear_task(2000, 20, 3, rng=0)
    T, eps, delta = 30, 1.0, 1e-5  # T > 2 log(2/δ): the strong-composition split
    run = train_algorithm_h(task, eps, delta, T, rng=0)
    e_t, d_t = algorithm_h_budget(eps, delta, T)
    assert run.params["epsilon_step"] == e_t and run.params["delta_step"] == d_t == pytest.approx(delta / (2 * T))
    assert run.privacy.events == ((("approx", (e_t, d_t)), T),)
    opt = OptimalAccountant(neighboring="replace_one").compose(ApproxDP(e_t, d_t), count=T).epsilon(delta)
    assert run.privacy.epsilon == pytest.approx(opt, rel=1e-6)
    drv = math.sqrt(2 * T * math.log(1 / (delta - T * d_t))) * e_t + T * e_t * math.expm1(e_t)
    assert opt <= drv <= eps * (1 + 1e-9)


@pytest.mark.slow
def test_algorithm_h_runs_and_reports_privacy():
    task = make_linear_task(3000, 50, 3, rng=0)
    run = train_algorithm_h(task, 1.0, 1e-5, 10, rng=0)
    assert run.privacy.epsilon <= 1.0 + 1e-9
    assert np.isfinite(run.losses).all()
    with pytest.raises(ValueError, match="T = 0"):
        train_algorithm_h(task, T=0)
    with pytest.raises(ValueError, match="learning_rate"):
        train_algorithm_h(task, T=3, learning_rate=0.0)
    with pytest.raises(ValueError, match="steps_per_phase"):
        phased_erm(task, steps_per_phase=0)


# ------------------------------------------------------------------------------------------- rates


def test_rates_match_printed_formulas():
    n, m, d, eps, T = 2000.0, 16.0, 9.0, 0.5, 50.0
    assert rates.erm_convex(n, m, d, eps, T, R=2, H=3, sigma=0.5) == pytest.approx(
        4 * 3 / T + 2 * 0.5 * 9 / (n * 4 * eps))
    assert rates.erm_strongly_convex(n, m, d, eps, T, mu=0.1, H=1) == pytest.approx(
        math.exp(-5) + 81 / (0.1 * n**2 * m * eps**2))
    # Thm 4 vs Thm 5: equal shape when G = σ√d (then G_ = G), up to the √(G·G_) vs G_ and σd vs G_√d terms
    G = 0.5 * 3
    up = rates.sco_upper(n, m, d, eps, G=G, sigma=0.5)
    lo = rates.sco_lower(n, m, d, eps, G=G, sigma=0.5)
    assert up == pytest.approx(lo, rel=1e-12)
    assert rates.fixed_n_floor(2, 1.0) == pytest.approx(1 / (8 * (1 + math.e**2)))


def test_rate_scalings():
    # privacy term ∝ 1/(n√m): doubling n halves it, quadrupling m halves it
    p = lambda n, m: rates.erm_convex(n, m, 10, 1.0, 1e12)  # noqa: E731  (T huge: optimisation term → 0)
    assert p(1000, 4) / p(2000, 4) == pytest.approx(2.0, rel=1e-9)
    assert p(1000, 4) / p(1000, 16) == pytest.approx(2.0, rel=1e-9)
    naive = rates.sco_naive(1e6, np.array([1, 100, 10000]), 10, 1.0)
    upper = rates.sco_upper(1e6, np.array([1, 100, 10000]), 10, 1.0)
    assert upper[2] < naive[2] and np.all(np.diff(upper) < 0)
    # fixed-n floor does not depend on m and falls as e^{-nε}
    assert rates.fixed_n_floor(10, 1.0) / rates.fixed_n_floor(11, 1.0) == pytest.approx(
        (1 + math.e**11) / (1 + math.e**10))


def test_users_needed_003_vs_004():
    d, T = np.array([1, 16, 256]), 100
    ratio = rates.erm_users_needed(d, T, 1.0) / rates.erm_users_needed_003(d, T, 1.0)
    np.testing.assert_allclose(ratio, np.sqrt(d))


def test_heterogeneity_transfer_and_threshold():
    assert rates.heterogeneity_transfer(0.01, 10, 5, 1e-4, B=2.0) == pytest.approx(0.01 + 2 * 52 * 1e-4)
    D = rates.heterogeneity_threshold(0.01, 10, 5, B=2.0)
    assert rates.heterogeneity_transfer(0.01, 10, 5, D, B=2.0) == pytest.approx(0.02)


def test_finite_class_and_floor_validity_conditions():
    # Cor. 3 of 004: n ≥ (C/ε)·max{1/(Km), log(Km)}
    K, m, eps = 50, 4, 0.5
    edge = math.log(K * m) / eps
    assert rates.finite_class_valid(math.ceil(edge), m, K, eps) and not rates.finite_class_valid(
        math.floor(edge), m, K, eps)
    assert not rates.finite_class_valid(math.ceil(edge), m, K, eps, C=2.0)
    # Thm 7 of 004: log₂K ≥ 32 log 2 (≈ 22.18) and n ≥ log₂K·max{1/(192√m ε), 1/(96m)}
    K = 2**23
    edge = 23 * max(1 / (192 * 2 * 0.01), 1 / (96 * 4))
    assert rates.finite_class_lower_valid(math.ceil(edge), 4, K, 0.01)
    assert not rates.finite_class_lower_valid(math.floor(edge), 4, K, 0.01)
    assert not rates.finite_class_lower_valid(10**6, 4, 2**22, 0.01)
    # Thm 8 of 004: δ < 1/(2n e^{nε}); vectorised over n
    ns = np.arange(1, 30)
    mask = rates.fixed_n_floor_valid(ns, 0.5, 1e-6)
    np.testing.assert_array_equal(mask, 1e-6 < 1 / (2 * ns * np.exp(0.5 * ns)))
    assert mask[0] and not mask[-1]


def test_sco_valid_mask_monotone_in_n():
    mask = rates.sco_valid(np.geomspace(1, 1e7, 50), 10, 10, 1.0)
    assert mask.dtype == bool and (~mask[0]) and mask[-1] and np.all(np.diff(mask.astype(int)) >= 0)


def test_nonprivate_baseline_sanity():
    task = make_linear_task(100, 5, 2, rng=0)
    run = train_nonprivate(task, 500)
    assert task.loss(run.theta) == pytest.approx(task.loss(task.erm_solution()), abs=1e-6)


@pytest.mark.parametrize("bad", [1 + 1j, np.complex128(2 + 0j), np.array([10.0, 1j]), [10.0, 2 + 0j]],
                         ids=["complex", "np.complex128", "complex array", "list holding a complex"])
def test_rates_refuse_complex_input_naming_the_argument_and_its_range(bad):
    # numpy would silently drop the imaginary part (even of 2 + 0j, a real number in disguise): refused instead
    with pytest.raises(ValueError, match=r"^n = .*real numbers.*\[1, 1e\+15\]"):
        rates.sco_upper(bad, 10, 10, 1.0)
    with pytest.raises(ValueError, match=r"^epsilon = .*real numbers.*\[1e-15, 1e\+15\]"):
        rates.erm_convex(100, 10, 10, bad, 5)

"""The seeded, cached experiments behind the lesson-05 panels (moved from dpviz/panels/means.py, issue 13)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpviz import mean as MM

_P = MM.Population("bounded", 0.2)


def test_common_user_means_are_cached_read_only_and_seeded():
    a = MM.common_user_means(_P, 200, [1, 10, 100], trials=20, seed=5)
    assert a is MM.common_user_means(_P, 200, (1, 10, 100), trials=20, seed=5)
    assert all(not x.flags.writeable for x in a)
    # the same draws as sampling in order from one generator with that seed
    g = np.random.default_rng(5)
    for m, x in zip((1, 10, 100), a):
        np.testing.assert_array_equal(x, np.clip(MM.sample_user_means(_P, 200, m, size=20, rng=g), -1, 1))


def test_mse_against_m_formulas_are_the_scalar_functions_and_the_simulation_agrees():
    ms = [1, 10, 100, 1000]
    sim, form, cross = MM.mse_against_m(_P, 1000, ms, 1.0, trials=400)
    assert cross == MM.crossover_m(1000, 0.01, "safe")
    for i, m in enumerate(ms):
        t = MM.tau_safe(1.0, m, 1000, 0.01)
        v = _P.user_mean_variance(m) * m  # Var of one ±1 sample: 1 − μ² = 0.96
        assert v == pytest.approx(0.96)
        assert form["naive_laplace"][i] == MM.naive_laplace_mse(v, 1000, m, 1.0, 1.0)
        assert form["winsorized"][i] == MM.wme_mse(v, 1000, m, 1.0, t)
        assert form["nonprivate"][i] == pytest.approx(0.96 / (1000 * m))
        # Monte Carlo over 400 datasets: the relative standard error of an MSE is about √(2/400) ≈ 7 %
        assert sim["nonprivate"][i] == pytest.approx(form["nonprivate"][i], rel=0.3)
        assert sim["naive_laplace"][i] == pytest.approx(form["naive_laplace"][i], rel=0.3)


def test_mse_against_m_heavy_tails_have_no_nonprivate_formula():
    sim, form, _ = MM.mse_against_m(MM.Population("heavy", 0.2), 300, [1, 10], 1.0, trials=5)
    assert "nonprivate" not in form and len(sim["winsorized"]) == 2


def test_tau_knob_sweep_is_tau_sweep_on_a_tau_safe_grid():
    out = MM.tau_knob_sweep(_P, 300, 30, 1.0, [0.5, 1.0, 2.0], trials=10, seed=3, data_seed=4)
    ts = MM.tau_safe(1.0, 30, 300, 0.01)
    ref = MM.tau_sweep(_P, 300, 30, 1.0, np.array([0.5, 1.0, 2.0]) * ts, trials=10, rng=3)
    for k, v in ref.items():
        np.testing.assert_array_equal(out["sweep"][k], v)
        assert not out["sweep"][k].flags.writeable
    assert out["tau_safe"] == ts
    # τ_paper/τ_safe = √(log(2n/γ)/(2m)) / √(2 log(2n/γ)/m) = 1/2 exactly in 1-D
    assert out["paper"] == pytest.approx(0.5, rel=1e-14)
    x = MM.sample_user_means(_P, 300, 30, rng=4)
    assert out["oracle"] == pytest.approx(np.max(np.abs(x - 0.2)) / ts, rel=1e-14)


def test_algorithm_a_neighbours_2d_moves_only_the_last_user():
    x, xp, a0, a = MM.algorithm_a_neighbours_2d(10, 2.5, 0.5, 1e-3, resolution=40, seed=9)
    np.testing.assert_array_equal(x, np.random.default_rng(9).normal(0.0, 0.35, (10, 2)))
    np.testing.assert_array_equal(xp[:-1], x[:-1])
    assert xp[-1, 0] == x[-1, 0] + 2.5 and xp[-1, 1] == x[-1, 1]
    ref = MM.algorithm_a_2d(xp, 1.0, 0.5, 1e-3, resolution=40)
    np.testing.assert_array_equal(a.density, ref.density)
    # a probability law: the grid cells and the garbage atom carry all the mass
    for law in (a0, a):
        assert law.mass() + law.garbage == pytest.approx(1.0, abs=1e-12)
        assert law.mass(law.counts == 1) <= law.mass()
    with pytest.raises(ValueError, match="where"):
        a.mass(np.ones(3, dtype=bool))


def test_robustness_curve_naive_mean_moves_by_the_corrupted_mass():
    kappas = [0.0, 0.1, 0.25]
    calls = []
    rob, nai = MM.robustness_curve(kappas, 100, 1.0, n=200, runs=2, seed=1, progress=calls.append)
    assert calls == pytest.approx([1 / 3, 2 / 3, 1.0])
    assert MM.robustness_curve(kappas, 100, 1.0, n=200, runs=2, seed=1)[0] is rob  # cached
    # ⌊κn⌋ users moved by 20 along e₁: the plain mean moves by 20⌊κn⌋/n (± the sampling error r/√(nm) ≈ 0.007)
    for k, e in zip(kappas, nai):
        assert e == pytest.approx(20 * math.floor(k * 200) / 200, abs=0.03)
    # 003's estimator tolerates κ = 1/4: inside its guarantee r′(1 + √d), far below the plain mean's error
    assert rob[2] < MM.theorem7_guarantee(100, 2) < nai[2]


def test_iter_robustness_curve_streams_the_same_draws_as_the_batch():
    kappas = [0.0, 0.1, 0.2]
    steps = list(MM.iter_robustness_curve(kappas, 100, 1.0, n=80, runs=2, seed=5))
    assert [j for j, _, _ in steps] == [1, 2, 3]
    for j, rob, nai in steps[:-1]:
        assert len(rob) == len(nai) == j
        np.testing.assert_array_equal(rob, steps[-1][1][:j])
        np.testing.assert_array_equal(nai, steps[-1][2][:j])
    MM.robust._ROBUSTNESS_CACHE.clear()
    rob, nai = MM.robustness_curve(kappas, 100, 1.0, n=80, runs=2, seed=5)
    np.testing.assert_array_equal(rob, steps[-1][1])
    np.testing.assert_array_equal(nai, steps[-1][2])
    cached = list(MM.iter_robustness_curve(kappas, 100, 1.0, n=80, runs=2, seed=5))
    assert len(cached) == 1 and cached[0][1] is rob  # a cached curve comes in one step


@pytest.mark.parametrize("m, n", [(1, 200), (10, 300), (30, 1000)])
def test_algorithm_1_on_distinct_values_and_counts_is_algorithm_1_on_the_rows(m, n):
    """The grouped kernel (each trial as counts of the few distinct user means) draws the same private range and
    the same noise as the row kernel, and its clipped mean is the same sum reordered."""
    from dpviz.mean.winsorized import _wme_grouped, _wme_rows

    X = np.clip(MM.sample_user_means(_P, n, m, size=25, rng=7), -1, 1)
    values, inverse = np.unique(X, return_inverse=True)
    counts = np.stack([np.bincount(row, minlength=values.size) for row in inverse.reshape(X.shape)])
    for tau in (0.05, 0.3, 1.2):
        rows = _wme_rows(X, 0.8, tau, 1.0, np.random.default_rng(9))
        grouped = _wme_grouped(values, counts, n, 0.8, tau, 1.0, np.random.default_rng(9))
        np.testing.assert_array_equal(grouped[1], rows[1])  # μ̂: the same bins drawn
        np.testing.assert_allclose(grouped[2], rows[2], rtol=0, atol=1e-14)  # clipped mean
        np.testing.assert_array_equal(grouped[3], rows[3])  # the Laplace noise
        assert grouped[4] == rows[4]


def test_tau_sweep_on_distinct_values_equals_the_sweep_over_every_user(monkeypatch):
    """tau_sweep runs each τ on the distinct user means when there are few; forcing the per-user path gives the
    same bias², variance, MSE and clipped fraction (up to the rounding of sums)."""
    import dpviz.mean.simulate as sim

    taus = MM.tau_safe(1.0, 100, 1000, 0.01) * np.array([0.05, 0.3, 1.0, 4.0])
    fast = MM.tau_sweep(_P, 1000, 100, 0.5, taus, trials=40, rng=5)
    monkeypatch.setattr(sim, "_dense_selection", lambda *a: False)
    slow = MM.tau_sweep(_P, 1000, 100, 0.5, taus, trials=40, rng=5)
    for k in slow:
        np.testing.assert_allclose(fast[k], slow[k], rtol=1e-12, atol=1e-18)
    assert 0 < fast["clipped"][0] < 1  # the smallest radius clips some users and not all

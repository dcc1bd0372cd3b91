"""Tests of dpviz.plots.userlevel: exact oracles for the lesson helpers and content checks of the figures.

Oracles: mpmath high-precision group-privacy δ (Lemma 6 of 000) and analytic-Gaussian δ (Balle & Wang 2018, Thm 8),
brute-force truncation bias over every k, the library's own ``bounding_tradeoff`` on a UserDataset, exact
Pareto survival probabilities for the synthetic counts (tolerance = 4 binomial standard errors).
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpviz.plots import userlevel as P



# ------------------------------------------------------------------------------------------- group privacy


def _mp_group_delta(eps, delta, k):
    with mp.workdps(50):
        return +(mp.mpf(delta) * (mp.exp(k * mp.mpf(eps)) - 1) / (mp.exp(mp.mpf(eps)) - 1))


@pytest.mark.parametrize("eps,delta", [(0.01, 1e-9), (0.5, 1e-6), (1.0, 1e-5), (3.0, 1e-3)])
def test_group_privacy_cost_matches_mpmath(eps, delta):
    ks = np.array([1, 2, 3, 7, 10, 50, 100])
    e_k, d_k, d_loose = P.group_privacy_cost(eps, delta, ks)
    for k, ek, dk, dl in zip(ks, e_k, d_k, d_loose):
        assert ek == pytest.approx(k * eps, rel=1e-15)
        exact = _mp_group_delta(eps, delta, int(k))
        if exact < 1e300:
            assert dk == pytest.approx(float(exact), rel=1e-12)
            # the loose bound of Lemma 6 is an upper bound, equal at k = 1 only up to e^{ε}
            assert dl >= dk * (1 - 1e-12)


def test_group_privacy_factor_is_geometric_not_linear():
    # pitfall 3: the δ factor is Σ_{j<k} e^{jε}, strictly larger than k for ε > 0
    _, d_k, _ = P.group_privacy_cost(1.0, 1e-6, [10])
    geometric = sum(math.exp(j) for j in range(10))
    assert d_k[0] / 1e-6 == pytest.approx(geometric, rel=1e-12)
    assert d_k[0] > 10 * 1e-6


def test_group_privacy_cost_agrees_with_library_lift():
    from dpviz.userlevel.baselines import group_privacy_lift

    for eps, delta, m in [(0.1, 1e-6, 10), (0.5, 1e-8, 20), (1.0, 1e-9, 5)]:
        e_lib, d_lib = group_privacy_lift(eps, delta, m)
        e_k, d_k, _ = P.group_privacy_cost(eps, delta, [m])
        assert e_k[0] == pytest.approx(e_lib, rel=1e-12)
        assert d_k[0] == pytest.approx(d_lib, rel=1e-10)


def test_group_privacy_cost_no_overflow_for_huge_m():
    e_k, d_k, d_loose = P.group_privacy_cost(2.0, 1e-6, [10_000])
    assert np.isfinite(d_k).all() and d_k[0] > 1  # vacuous but finite (capped at e^700)


@pytest.mark.parametrize("kw,match", [
    (dict(epsilon=0.0, delta=1e-6, k=[1]), "epsilon"),
    (dict(epsilon=1.0, delta=1.0, k=[1]), "delta"),
    (dict(epsilon=1.0, delta=1e-6, k=[0]), "k"),
    (dict(epsilon=1.0, delta=1e-6, k=[1.5]), "k"),
])
def test_group_privacy_cost_rejects_bad_input(kw, match):
    with pytest.raises(ValueError, match=match):
        P.group_privacy_cost(**kw)


def test_group_privacy_figures_content():
    f = P.group_privacy_epsilon_figure(0.5, 1000, m_mark=10)
    x, y = np.asarray(f.data[0].x), np.asarray(f.data[0].y)
    assert x[0] == 1 and x[-1] == 1000
    np.testing.assert_allclose(y, 0.5 * x)
    assert f.layout.xaxis.type == "log" and f.layout.yaxis.type == "log"
    g = P.group_privacy_delta_figure(1.0, 1e-6, 1000, m_mark=10)
    # the "vacuous from m = …" line sits at the first m with δ′ ≥ 1
    first = next(m for m in range(1, 1000) if _mp_group_delta(1.0, 1e-6, m) >= 1)
    assert any(s.x0 == first for s in g.layout.shapes)
    assert any(f"m = {first}" in (a.text or "") for a in g.layout.annotations)
    with pytest.raises(ValueError, match="delta"):
        P.group_privacy_delta_figure(1.0, 0.0)


# ------------------------------------------------------------------------------------------- Gaussian calibration


def _mp_gauss_delta(sigma, eps):
    with mp.workdps(50):
        sigma, eps = mp.mpf(sigma), mp.mpf(eps)
        return +(mp.ncdf(1 / (2 * sigma) - eps * sigma) - mp.exp(eps) * mp.ncdf(-1 / (2 * sigma) - eps * sigma))


@pytest.mark.parametrize("eps,delta", [(0.1, 1e-6), (1.0, 1e-5), (1.0, 1e-10), (3.0, 1e-3), (0.001, 1e-9)])
def test_gaussian_sigma_is_the_smallest_valid_sigma(eps, delta):
    s = float(P._gaussian_sigma(eps, delta)[0])
    assert _mp_gauss_delta(s, eps) <= delta * (1 + 1e-9)
    assert _mp_gauss_delta(s * (1 - 1e-7), eps) > delta  # minimal up to 1e-7 relative


def test_gaussian_sigma_is_vectorised():
    eps = np.array([0.5, 1.0, 2.0])
    s = P._gaussian_sigma(eps, 1e-6)
    assert s.shape == (3,) and np.all(np.diff(s) < 0)


def test_gaussian_sigma_matches_mechanisms_module_when_available():
    mech = pytest.importorskip("dpviz.mechanisms")
    if not hasattr(mech, "Gaussian"):
        pytest.skip("dpviz.mechanisms.Gaussian not landed yet")
    s = float(P._gaussian_sigma(1.0, 1e-5)[0])
    assert mech.Gaussian(s).delta(1.0) == pytest.approx(1e-5, rel=1e-6)


# ------------------------------------------------------------------------------------------- synthetic counts


def test_sample_counts_follow_the_discretised_pareto():
    n, median, a, cap = 100_000, 5.0, 2.0, 10**5
    c = P._sample_counts(n, median, a, cap, 7)
    assert c.min() >= 1 and c.max() <= cap and np.all(np.diff(c) >= 0)
    x_min = median / 2 ** (1 / a)
    for q in [4, 5, 10, 30]:
        p = (x_min / q) ** a  # P(⌈x_min U^{-1/a}⌉ > q) = P(x_min U^{-1/a} > q) for integer q ≥ x_min
        se = math.sqrt(p * (1 - p) / n)
        assert abs(np.mean(c > q) - p) <= 4 * se


def test_sample_counts_respect_the_cap_and_are_read_only():
    c = P._sample_counts(1000, 5.0, 0.8, 50, 0)
    assert c.max() == 50
    with pytest.raises(ValueError):
        c[0] = 3


# ------------------------------------------------------------------------------------------- bounding curves


def test_bounding_curves_bias_brute_force_and_optimum():
    t = P.bounding_curves(200, 4.0, 1.5, 0.7, cap=300, seed=3)
    c = t.counts
    for k in [1, 2, 5, 17, 100, 300]:
        assert t.bias[k - 1] == -sum(max(int(ci) - k, 0) for ci in c)
    assert t.true_answer == c.sum()
    noise = math.sqrt(2) * np.arange(1, 301) / 0.7
    np.testing.assert_allclose(t.noise_user, noise)
    np.testing.assert_allclose(t.noise_item, math.sqrt(2) / 0.7)
    rmse = [math.sqrt(sum(max(int(ci) - k, 0) for ci in c) ** 2 + (math.sqrt(2) * k / 0.7) ** 2)
            for k in range(1, 301)]
    assert t.k_user == int(np.argmin(rmse)) + 1
    # item-level never needs truncation: its optimum keeps every record
    assert t.bias[t.k_item - 1] == 0


def test_bounding_curves_agree_with_library_bounding_tradeoff():
    from dpviz.userlevel import baselines
    from dpviz.userlevel.data import UserDataset

    t = P.bounding_curves(60, 3.0, 1.3, 1.0, cap=200, seed=5)
    x = UserDataset(tuple(np.ones(int(ci)) for ci in t.counts))
    ks = [1, 3, 10, 40, 200]
    for level, rmse in (("user", t.rmse_user), ("item", t.rmse_item)):
        lib = baselines.bounding_tradeoff(x, ks, 1.0, statistic="sum", level=level)
        np.testing.assert_allclose(lib["bias"], t.bias[np.array(ks) - 1])
        np.testing.assert_allclose(lib["rmse"], rmse[np.array(ks) - 1])


def test_bounding_curves_gaussian_and_group_privacy_lift():
    eps, delta = 1.0, 1e-6
    t = P.bounding_curves(500, 5.0, 2.0, eps, mechanism="gaussian", delta=delta, cap=400, seed=1)
    s1 = float(P._gaussian_sigma(eps, delta)[0])
    np.testing.assert_allclose(t.noise_user, s1 * np.arange(1, 401), rtol=1e-12)
    # exact at the grid points of the lift: σ(ε/k, δ(e^{ε/k}−1)/(e^{ε}−1))
    for k in [1, 400]:
        d_k = delta * math.expm1(eps / k) / math.expm1(eps)
        assert t.noise_group[k - 1] == pytest.approx(float(P._gaussian_sigma(eps / k, d_k)[0]), rel=1e-9)
    # group privacy is lossy for the Gaussian: never better than calibrating to sensitivity k
    assert np.all(t.noise_group >= t.noise_user * (1 - 1e-9))
    assert t.noise_group[-1] > t.noise_user[-1]  # strictly lossy (only slightly, for the analytic Gaussian)


def test_bounding_curves_laplace_group_lift_equals_user_level():
    t = P.bounding_curves(100, 5.0, 2.0, 1.0, cap=100)
    np.testing.assert_array_equal(t.noise_group, t.noise_user)
    assert t.k_group == t.k_user


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 3000), median=st.floats(1, 50), tail=st.floats(0.6, 8), eps=st.floats(0.05, 5))
def test_bounding_curves_invariants(n, median, tail, eps):
    t = P.bounding_curves(n, median, tail, eps, cap=500)
    assert np.all(np.diff(t.bias) >= 0) and t.bias[-1] == 0 and np.all(t.bias <= 0)
    assert np.all(np.isfinite(t.rmse_user)) and 1 <= t.k_user <= 500
    assert t.rmse_user[t.k_user - 1] == t.rmse_user.min()
    assert 0 <= t.dropped_fraction(t.k_user) <= 1


@pytest.mark.parametrize("kw,match", [
    (dict(n_users=0), "n_users"), (dict(median=0.5), "median"), (dict(tail=0.1), "tail"),
    (dict(epsilon=-1.0), "epsilon"), (dict(mechanism="cauchy"), "mechanism"), (dict(delta=0.0), "delta"),
    (dict(cap=0), "cap"),
])
def test_bounding_curves_rejects_bad_input(kw, match):
    with pytest.raises(ValueError, match=match):
        P.bounding_curves(**kw)


def test_bounding_figures_mark_optimum_and_current_k():
    t = P.bounding_curves(1000, 5.0, 2.0, 1.0)
    f = P.bounding_error_figure(t, 20)
    names = [tr.name for tr in f.data]
    assert f"optimum k* = {t.k_user}" in names and "your k = 20" in names
    star = f.data[names.index(f"optimum k* = {t.k_user}")]
    assert star.y[0] == pytest.approx(t.rmse_user.min())
    assert any(s.x0 == 20 for s in f.layout.shapes)
    h = P.contribution_histogram_figure(t, 20)
    kept, cut = h.data[0], h.data[1]
    assert sum(kept.y[:-1]) + sum(cut.y[:-1]) == t.counts.size
    assert sum(cut.y[:-1]) == int((t.counts > 20).sum())
    with pytest.raises(ValueError, match="k"):
        P.bounding_error_figure(t, 0)


# ------------------------------------------------------------------------------------------- neighbours


@pytest.mark.parametrize("kind", ["item", "user"])
def test_neighbours_figure_differs_in_the_right_cells(kind):
    pytest.importorskip("dpviz.userlevel")
    f = P.neighbours_figure(5, 4, user=2, index=1, kind=kind)
    a, b = np.asarray(f.data[0].z), np.asarray(f.data[1].z)
    diff = np.argwhere(a != b)
    if kind == "item":
        assert diff.tolist() == [[2, 1]]
    else:
        assert sorted(diff[:, 0].tolist()) == [2, 2, 2, 2] and len(diff) == 4  # the whole row of user 3
    assert set(np.unique(a)) <= {1, 2, 3, 4, 5} and set(np.unique(b)) <= {1, 2, 3, 4, 5}


def test_neighbours_figure_rejects_bad_input():
    with pytest.raises(ValueError, match="user"):
        P.neighbours_figure(3, 3, user=3)
    with pytest.raises(ValueError, match="kind"):
        P.neighbours_figure(3, 3, kind="group")


# =========================================================================================== lesson 04


def test_regime_breakpoints_match_closed_forms():
    from dpviz.userlevel import TABLE1_ROWS, breakpoints

    row = next(r for r in TABLE1_ROWS if r.key == "dd")
    for eps, alpha in [(0.5, 0.1), (0.2, 0.05), (0.9, 0.3)]:
        got = P.regime_breakpoints(row, eps, alpha, 7.0)
        m1, m2 = breakpoints(eps, alpha)  # ε²/α², 1/α²
        assert [b[0] for b in got] == pytest.approx([m1, m2], rel=1e-9)
        assert [(b[1], b[2]) for b in got] == [("statistical", "privacy"), ("privacy", "floor")]
    # for ε > 1, m₁ > m₂: the √m regime disappears and statistical hands over to the floor at L/(α²m) = L/ε
    (m_star, a, b), = P.regime_breakpoints(row, 1.5, 0.3, 7.0)
    assert m_star == pytest.approx(1.5 / 0.3**2, rel=1e-9) and (a, b) == ("statistical", "floor")
    pac = next(r for r in TABLE1_ROWS if r.key == "pac")
    (m_star, a, b), = P.regime_breakpoints(pac, 0.5, 0.02, 3.0)
    assert m_star == pytest.approx(1 / 0.02, rel=1e-9) and (a, b) == ("privacy", "floor")  # Theorem 4: m = 1/α


def test_users_needed_figure_traces_match_library_terms():
    from dpviz.userlevel import TABLE1_ROWS, TABLE2_ROWS

    for row in (*TABLE1_ROWS, *TABLE2_ROWS):
        f = P.users_needed_figure(row, 0.5, 0.05, 10.0, constant=2.0, m_mark=100)
        by = {tr.name: tr for tr in f.data}
        main = by[f"user-level, this paper ({row.source})"]
        m = np.asarray(main.x)
        np.testing.assert_allclose(main.y, row.user_level(m, 0.5, 0.05, 10.0, constant=2.0), rtol=1e-12)
        n1 = row.item_level(0.5, 0.05, 10.0, constant=2.0)
        assert np.all(np.asarray(main.y) <= n1 * (1 + 1e-12))  # Observation 28 upper bound
        assert np.all(np.asarray(main.y) >= np.ceil(n1 / m) * (1 - 1e-12))  # and lower bound
        # naive group privacy = n₁(ε/m)/m: for the pure three-term rows C·(L/(εα) + L/(α² m))
        if row.table == 1 and row.key != "pac":
            naive = np.asarray(by["naive group privacy n₁(ε/m)/m"].y)
            np.testing.assert_allclose(naive, 2.0 * (10 / (0.5 * 0.05) + 10 / (0.05**2 * m)), rtol=1e-12)
        assert any("≈" in (a.text or "") for a in f.layout.annotations)  # approx_note: constants hidden


def test_generic_users_crossover_matches_library():
    from dpviz.userlevel import crossover_group_privacy

    m = np.geomspace(1.0, 1e8, 240)
    for eps, dl in [(1.0, 1e-6), (0.5, 1e-9), (2.0, 1e-3)]:
        ours = P._users_crossover(m, eps, dl, 100.0, 1000.0, 1.0)
        lib = crossover_group_privacy(eps, dl, kind="users", n_priv=100, n_stat=1000, c=1, m_max=1e8)
        assert ours == pytest.approx(lib, rel=1e-8)
    f = P.generic_users_figure(1.0, 1e-6)
    assert any("beats group privacy" in (a.text or "") for a in f.layout.annotations)


def test_item_budget_figure_slopes():
    f = P.item_budget_figure(1.0, 1e-6)
    x = np.asarray(f.data[0].x)
    y10, ygp = np.asarray(f.data[0].y), np.asarray(f.data[1].y)
    # Theorem 10's ε′ = ε²/(L√(m ln(m/δ))) has log–log slope → −1/2 (slightly steeper from the log); ε/m slope −1
    s10 = np.diff(np.log(y10)) / np.diff(np.log(x))
    assert np.all(s10 < -0.5) and np.all(s10 > -0.56)
    np.testing.assert_allclose(np.diff(np.log(ygp)) / np.diff(np.log(x)), -1.0)
    L = math.log(1e6)
    np.testing.assert_allclose(y10, 1.0 / (L * np.sqrt(x * np.log(x / 1e-6))), rtol=1e-12)


@pytest.mark.parametrize("eps,delta,kappa_proof", [(1.0, 1e-6, 48), (1.0, 1e-3, 27), (3.0, 0.1, 6), (0.5, 1e-5, 80)])
def test_tdlap_figure_matches_digest_table(eps, delta, kappa_proof):
    f = P.tdlap_figure(eps, delta)
    r = np.concatenate([np.asarray(f.data[0].x), np.asarray(f.data[1].x)])
    assert sorted(r.tolist()) == list(range(2 * kappa_proof + 1))  # support {0..2κ}, digest §7.4
    pm = np.concatenate([np.asarray(f.data[0].y), np.asarray(f.data[1].y)])
    assert pm.sum() == pytest.approx(1.0, abs=1e-12)
    eb = eps / 3
    db = delta / (math.exp(2 * eb) + math.exp(eb) + 2)
    assert max(f.data[1].y) <= db  # end mass ≤ δ̄ (proof of Lemma 18)
    g = P.ptr_discard_figure(eps, delta)
    assert g.data[-1].y[0] == 4 * kappa_proof


def test_swap_loss_pmf_brute_force_and_moments():
    from scipy import stats

    for m, p in [(1, 0.5), (7, 0.3), (40, 0.05)]:
        b = stats.binom.pmf(np.arange(m + 1), m, p)
        brute = np.zeros(m + 1)
        for s in range(m + 1):
            for t in range(m + 1):
                brute[abs(s - t)] += b[s] * b[t]
        np.testing.assert_allclose(P._swap_loss_pmf(m, p), brute, atol=1e-14)
    # E[(S − S′)²] = 2mp(1−p) exactly
    pmf = P._swap_loss_pmf(2000, 0.3)
    d = np.arange(2001)
    assert np.dot(d**2, pmf) == pytest.approx(2 * 2000 * 0.3 * 0.7, rel=1e-10)


def test_swap_loss_figures_show_sqrt_m_scaling():
    f = P.swap_loss_figure(400, 0.5, 0.1)
    assert np.asarray(f.data[0].y).sum() == pytest.approx(1.0, abs=1e-9)
    xs = {round(s.x0, 9) for s in f.layout.shapes}
    assert round(0.1 * 20, 9) in xs  # ε₀·√m line
    g = P.swap_loss_scaling_figure(0.5, 0.1)
    m = np.asarray(g.data[0].x, dtype=float)
    med = np.asarray(g.data[1].y, dtype=float)
    ok = np.isfinite(med) & (m >= 100)
    slope = np.polyfit(np.log(m[ok]), np.log(med[ok]), 1)[0]
    assert abs(slope - 0.5) < 0.05  # typical loss ∝ √m (Theorems 13/17), worst case slope 1
    with pytest.raises(ValueError, match="p"):
        P.swap_loss_figure(10, 1.0, 0.1)


def test_pairwise_sum_pmf_brute_force():
    import itertools

    plus, minus, m = 0.3, 0.1, 5
    brute = np.zeros(2 * m + 1)
    law = {1: plus, -1: minus, 0: 1 - plus - minus}
    for combo in itertools.product([-1, 0, 1], repeat=m):
        brute[sum(combo) + m] += np.prod([law[c] for c in combo])
    np.testing.assert_allclose(P._pairwise_sum_pmf(m, plus, minus), brute, atol=1e-14)


def test_clipping_tradeoff_exact_and_monotone():
    t = P.clipping_tradeoff(50, 0.1, 0.3, 1.0, 1000, 100)
    u = np.arange(-50, 51)
    assert np.dot(u, t.pmf) == pytest.approx(50 * 0.1, rel=1e-10)  # E[u] = mα
    # clipping at τ ≥ m changes nothing: zero bias; bias decreases in τ; EM error = 2·(2τ)/ε·ln(|ℋ|/β)
    assert t.bias[-1] == pytest.approx(0.0, abs=1e-9)
    assert np.all(np.diff(t.bias) <= 1e-9)
    np.testing.assert_allclose(t.em_error, 4 * t.tau / 1.0 * math.log(100 / 0.1))
    assert t.tau_paper == pytest.approx(0.1 * 50 + math.sqrt(50 * math.log(10)))
    with pytest.raises(ValueError, match="alpha"):
        P.clipping_tradeoff(50, 0.4, 0.3, 1.0, 1000, 100)
    f = P.clipping_histogram_figure(t, 3.0)
    assert all(abs(x) <= 3.0 for x in f.data[0].x) and all(abs(x) > 3.0 for x in f.data[1].x)


def test_delstab_figures_report_the_two_sided_check():
    from dpviz.userlevel import DelStab, NoisySum, UserDataset

    x = UserDataset.bernoulli(24, 2, 0.5, rng=3)
    x2 = x.replace_user(0, np.ones(2, dtype=int))
    ds = DelStab(4.0, 0.1, NoisySum(0.1, (24 - 20) * 2))
    px, px2 = ds.output_pmf(x), ds.output_pmf(x2)
    f = P.delstab_output_figure(ds.outputs, px, px2, epsilon=4.0, delta=0.1)
    assert "✓" in f.layout.title.text
    # a pair that violates a tiny ε must be flagged ✗ (the figure is not always green)
    g = P.delstab_output_figure(["a", "b"], np.array([0.9, 0.1]), np.array([0.1, 0.9]), epsilon=0.1, delta=0.01)
    assert "✗" in g.layout.title.text
    st = ds.stability(x)
    h = P.delstab_test_figure(st["tdlap"], st["stable"], st["stable"])
    assert f"Pr[⊥ | x] = {float(st['tdlap'][~st['stable']].sum()):.3g}" in h.layout.title.text


def test_side_by_side_keeps_traces_lines_and_captions():
    a = P.tdlap_figure(1.0, 1e-6)
    b = P.ptr_discard_figure(1.0, 1e-6)
    f = P.side_by_side(a, b)
    assert len(f.data) == len(a.data) + len(b.data)
    assert [t.legend for t in f.data] == [None] * len(a.data) + ["legend2"] * len(b.data)
    assert [t.xaxis for t in f.data][-1] == "x2" and f.layout.xaxis2.type == "log"
    texts = [x.text or "" for x in f.layout.annotations]
    assert a.layout.title.text in texts and b.layout.title.text in texts  # subplot titles
    cap = next(t for t in texts if t.startswith("Left: "))
    assert "Definition 8" in cap and "Right: " in cap
    g = P.side_by_side(P.item_budget_figure(1.0, 1e-6), P.generic_users_figure(1.0, 1e-6))
    assert any(s.xref == "x" for s in g.layout.shapes) and any(s.xref == "x2" for s in g.layout.shapes)
    assert any((t or "").startswith("≈ ") for t in (x.text for x in g.layout.annotations))  # approx notes kept


@pytest.mark.parametrize("convention, shown, hidden", [("proof", "e^{ε̄}+2", "e^{ε}+2"),
                                                        ("printed", "e^{ε}+2", "e^{ε̄}+2")])
def test_tdlap_caption_states_the_convention_actually_used(convention, shown, hidden):
    # The caption must print the δ̄ formula the figure computes with (Algorithm 1 of 000, line 1).
    f = P.tdlap_figure(1.0, 1e-6, convention=convention)
    cap = next(a.text for a in f.layout.annotations if (a.text or "").startswith("Source"))
    assert shown in cap and hidden not in cap


def test_learner_facing_text_does_not_cite_the_internal_digest():
    # Captions are shown to learners, who have the paper, not dpviz's implementation digest.
    figs = [P.item_budget_figure(1.0, 1e-6), P.swap_loss_figure(100, 0.5, 0.1), P.tdlap_figure(1.0, 1e-6),
            P.generic_users_figure(1.0, 1e-6), P.swap_loss_scaling_figure(0.5, 0.1)]
    for f in figs:
        for a in f.layout.annotations:
            assert "digest" not in (a.text or "")


def test_plot_pmf_helpers_equal_the_library_closed_forms():
    from dpviz.userlevel import pairwise_sum_pmf, swap_difference_pmf

    for m, p in [(3, 0.2), (250, 0.5), (2500, 0.1)]:
        np.testing.assert_allclose(P._swap_loss_pmf(m, p), swap_difference_pmf(m, p), atol=1e-13)
    for m, pl, mi in [(4, 0.3, 0.2), (300, 0.25, 0.05)]:
        np.testing.assert_allclose(P._pairwise_sum_pmf(m, pl, mi), pairwise_sum_pmf(m, pl, mi), atol=1e-13)

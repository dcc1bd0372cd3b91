"""dpviz.gaussian_profiles: the Gaussian δ(ε) exact / classic / zCDP, against independent oracles (the Balle–Wang
profile and the textbook formula in mpmath; the simple zCDP bound δ = exp(−(ε − ρ)²/(4ρ)) written out)."""

import math

import mpmath as mp
import numpy as np
import pytest
from _oracles import bw_delta

from dpviz import mechanisms as M
from dpviz.gaussian_profiles import classic_gaussian_delta, gaussian_profile_curves

mp.mp.dps = 40



@pytest.mark.parametrize("sigma,sens", [(0.8, 1.5), (1.0, 1.0), (3.0, 1.0), (0.2, 3.0),
                                        (0.3, 2.0)])  # μ = 6.67: lesson 03's figure
def test_curves_against_mpmath_and_hand_formulas(sigma, sens):
    c = gaussian_profile_curves(sigma, sens)
    eps = c["eps"]
    assert eps[0] == 0.0 and len(eps) == 121 and np.all(np.diff(eps) > 0)
    mu = mp.mpf(sens) / mp.mpf(sigma)
    for e, v in zip(eps, c["exact"], strict=True):
        want = bw_delta(e, mu)
        if want > 1e-300:
            assert v == pytest.approx(float(want), rel=1e-12), e
    classic = [min(1.0, float(mp.mpf("1.25") * mp.e ** (-(mp.mpf(e) * sigma / sens) ** 2 / 2))) for e in eps]
    np.testing.assert_allclose(c["classic"], classic, rtol=1e-12)
    rho = sens**2 / (2 * sigma**2)
    ez = c["eps_zcdp"]
    simple = np.where(ez <= rho, 1.0, np.exp(-((ez - rho) ** 2) / (4 * rho)))
    np.testing.assert_allclose(c["simple"], simple, rtol=1e-12)
    # zCDP bounds are upper bounds of the exact profile; CKS is the tighter of the two
    assert np.all(c["exact"] <= c["cks"] * (1 + 1e-9) + 1e-300)
    assert np.all(c["cks"] <= c["simple"] * (1 + 1e-9))


def test_default_range_reaches_delta_1e12():
    c = gaussian_profile_curves(1.0)
    assert c["eps"][-1] == pytest.approx(max(1.5, 1.15 * M.Gaussian(1.0).epsilon(1e-12)), rel=1e-15)
    assert c["exact"][-1] < 1e-12


@pytest.mark.parametrize("sigma", [0.5, 1.0, 3.0])
def test_classic_formula_is_valid_below_one_and_wrong_somewhere_above_for_small_sigma(sigma):
    c = gaussian_profile_curves(sigma, 1.0)
    below = c["eps"] < 1
    assert np.all(c["classic"][below] >= c["exact"][below])  # Dwork & Roth Thm A.1 holds for ε < 1
    wrong = c["eps"][c["classic"] < c["exact"] * (1 - 1e-9)]
    assert np.all(wrong >= 1.0)
    if sigma == 0.5:
        assert wrong.size > 0


@pytest.mark.parametrize("eps,delta,sens", [(0.5, 1e-5, 1.0), (0.9, 1e-10, 2.5), (2.0, 0.1, 1.0)])
def test_classic_delta_inverts_the_textbook_sigma(eps, delta, sens):
    s = M.classic_gaussian_sigma(eps, delta, sens)
    assert classic_gaussian_delta(eps, s, sens) == pytest.approx(delta, rel=1e-12)
    assert classic_gaussian_delta(0.0, s, sens) == 1.0  # capped: a δ ≥ 1 says nothing
    arr = classic_gaussian_delta(np.array([eps, 2 * eps]), s, sens)
    assert arr.shape == (2,) and arr[1] == pytest.approx(delta ** 4 / 1.25 ** 3, rel=1e-10)  # (δ/1.25)^4·1.25


@pytest.mark.parametrize("call,name", [
    (lambda: classic_gaussian_delta(-1.0, 1.0), "epsilon"),
    (lambda: classic_gaussian_delta([0.5, math.nan], 1.0), "epsilon"),
    (lambda: classic_gaussian_delta(0.5, 0.0), "sigma"),
    (lambda: classic_gaussian_delta(0.5, 1.0, -1.0), "sensitivity"),
    (lambda: gaussian_profile_curves(0.0), "sigma"),
    (lambda: gaussian_profile_curves(1.0, math.inf), "sensitivity"),
    (lambda: gaussian_profile_curves(1.0, eps_max=-1.0), "eps_max"),
    (lambda: gaussian_profile_curves(1.0, n=1), "n"),
])
def test_bad_arguments_name_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


# ------------------------------------------------------------------------------------ the vector release (lesson 03 §5)
from dpviz.gaussian_profiles import DIMENSION, POINTS, clipped_sum_noise  # noqa: E402


def _sigma_oracle(eps, delta, sens):
    """The smallest σ with δ(ε; Δ/σ) ≤ δ (Balle & Wang 2018, Thm 8), by bisection in mpmath on σ."""
    lo, hi = mp.mpf("1e-6"), mp.mpf(1000)
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if bw_delta(eps, mp.mpf(sens) / mid) <= delta else (mid, hi)
    return float(hi)


@pytest.mark.parametrize("d,eps,delta,clip", [(1, 1.0, 1e-5, 1.0), (100, 1.0, 1e-5, 1.0), (7, 0.5, 1e-8, 2.5),
                                              (10_000, 3.0, 1e-3, 0.1)])
def test_clipped_sum_noise_against_oracles(d, eps, delta, clip):
    r = clipped_sum_noise(d, eps, delta, clip)
    # Δ₂ = C; Δ₁ = √d·C, reached by (C/√d, …, C/√d), and no vector of ℓ2 norm ≤ C has a larger ℓ1 norm
    assert r["l2_sensitivity"] == clip
    assert r["l1_sensitivity"] == pytest.approx(float(mp.sqrt(d) * clip), rel=1e-15)
    flat = np.full(min(d, 1000), clip / math.sqrt(min(d, 1000)))
    assert np.abs(flat).sum() == pytest.approx(math.sqrt(min(d, 1000)) * clip, rel=1e-12)
    rng = np.random.default_rng(3)
    v = rng.normal(size=(500, min(d, 1000)))
    v *= clip / np.linalg.norm(v, axis=1, keepdims=True)
    assert np.all(np.abs(v).sum(axis=1) <= math.sqrt(min(d, 1000)) * clip * (1 + 1e-12))
    # Laplace b = Δ₁/ε (Dwork & Roth 2014, Thm 3.6), sd √2·b; the Gaussian's σ, exact, independent of d
    assert r["laplace_scale"] == pytest.approx(float(mp.sqrt(d) * clip / eps), rel=1e-14)
    assert r["laplace_sd"] == pytest.approx(float(mp.sqrt(2 * d) * clip / eps), rel=1e-14)
    assert r["gaussian_sigma"] == pytest.approx(_sigma_oracle(eps, delta, clip), rel=1e-9)
    assert r["ratio"] == pytest.approx(r["laplace_sd"] / r["gaussian_sigma"], rel=1e-15)
    # the crossover, by brute force over d: the last d at which Laplace needs no more noise than the Gaussian
    s = r["gaussian_sigma"]
    brute = max([k for k in range(0, 5000) if k == 0 or math.sqrt(2.0) * (math.sqrt(k) * clip / eps) <= s])
    assert r["crossover"] == brute


@pytest.mark.slow
def test_the_vector_gaussian_has_the_one_dimensional_profile_of_its_l2_shift():
    """Lesson 03 §5: the privacy loss of N(f(x), σ²I) against N(f(x′), σ²I) depends only on ‖f(x) − f(x′)‖₂. Oracle:
    the hockey-stick divergence ∫ (p − e^ε q)₊ of two 2-D Gaussians, integrated numerically on the plane, against the
    1-D profile of μ = ‖v‖₂/σ (and against a 1-D profile of the ℓ1 length, which it must not match)."""
    from scipy import integrate, stats

    sigma, v = 1.3, np.array([0.9, -1.2])  # ‖v‖₂ = 1.5, ‖v‖₁ = 2.1
    p = stats.multivariate_normal(mean=[0.0, 0.0], cov=sigma**2)
    q = stats.multivariate_normal(mean=v, cov=sigma**2)
    for eps in (0.0, 0.5, 1.0):
        hs, _ = integrate.dblquad(lambda y, x, e=eps: max(p.pdf([x, y]) - math.exp(e) * q.pdf([x, y]), 0.0),
                                  -9, 10, -10, 9, epsabs=1e-10, epsrel=1e-8)
        assert hs == pytest.approx(M.Gaussian(sigma, float(np.linalg.norm(v))).delta(eps), abs=2e-8)
        assert abs(hs - M.Gaussian(sigma, float(np.abs(v).sum())).delta(eps)) > 1e-2


def test_clipped_sum_noise_broadcasts_and_agrees_with_the_scalar_calls():
    many = clipped_sum_noise([1, 6, 7, 100], 1.0, 1e-5)
    for i, d in enumerate([1, 6, 7, 100]):
        one = clipped_sum_noise(d, 1.0, 1e-5)
        assert many["laplace_sd"][i] == one["laplace_sd"] and many["ratio"][i] == one["ratio"]
    assert many["crossover"] == 6 and many["ratio"][1] < 1 < many["ratio"][2]  # lesson 03: up to d = 6


@pytest.mark.parametrize("call,name", [
    (lambda: clipped_sum_noise(0, 1.0, 1e-5), "dimension"),
    (lambda: clipped_sum_noise(2.5, 1.0, 1e-5), "dimension"),
    (lambda: clipped_sum_noise(DIMENSION.high + 1, 1.0, 1e-5), "dimension"),
    (lambda: clipped_sum_noise(np.ones(POINTS.high + 1), 1.0, 1e-5), "dimension"),
    (lambda: clipped_sum_noise(10, 0.0, 1e-5), "epsilon"),
    (lambda: clipped_sum_noise(10, 1.0, 0.0), "delta"),
    (lambda: clipped_sum_noise(10, 1.0, 1e-5, -1.0), "clip"),
    (lambda: clipped_sum_noise(10, 5e-324, 1e-5), "epsilon"),  # σ beyond the double range
    (lambda: clipped_sum_noise(10, 1e-300, 0.5, 1e10), "clip"),  # b = √d·C/ε beyond the double range
])
def test_clipped_sum_noise_refuses_bad_input_naming_the_parameter(call, name):
    with pytest.raises(ValueError, match=name) as info:
        call()
    assert "sensitivity =" not in str(info.value) and "scale =" not in str(info.value)  # no internal names


@pytest.mark.slow
def test_the_number_of_profile_points_is_capped():
    # the defect: n had no cap (10**8 points allocated ~5 GB; 10**400 gave numpy's "Maximum allowed size exceeded",
    # which names no parameter)
    for n in (POINTS.high + 1, 10**400, 2**62):
        with pytest.raises(ValueError, match=f"n = .* is not allowed: must be an integer >= 2 and <= {POINTS.high}"):
            gaussian_profile_curves(1.0, n=n)
    assert gaussian_profile_curves(1.0, n=POINTS.high, eps_max=1.0)["eps"].size == POINTS.high


def test_a_sigma_too_small_for_the_default_range_is_refused_naming_sigma_not_eps_max():
    # the defect: the message said "eps_max = inf is not allowed", a parameter the caller had not passed
    with pytest.raises(ValueError, match="sigma = 5e-324 and sensitivity = 1.0") as info:
        gaussian_profile_curves(5e-324)
    assert "eps_max = inf" not in str(info.value)
    # with a range of ε it answers: Δ/σ overflows to ∞, so no ε < ∞ gives δ < 1, and zCDP (ρ = ∞) proves nothing
    # (the defect: ρ = ∞ reached the zCDP conversion, whose message named "rho", a parameter the caller never saw)
    c = gaussian_profile_curves(5e-324, eps_max=10.0, n=3)
    assert c["exact"].tolist() == [1.0, 1.0, 1.0] and c["cks"].tolist() == c["simple"].tolist() == [1.0, 1.0, 1.0]

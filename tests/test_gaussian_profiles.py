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

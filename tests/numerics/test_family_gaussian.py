"""Every public entry point of the Gaussian family against one mpmath oracle (issue 13: one home per formula).

The Balle–Wang profile (Balle & Wang 2018, Thm 8), with μ = Δ/σ,

    δ(ε; μ) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ),

is evaluated in 100-digit mpmath and compared with every way dpviz computes it or its inverses:
``mechanisms.gaussian_delta``, ``Gaussian(σ, Δ).delta/epsilon``, ``gaussian_epsilon``, ``gaussian_epsilon_many``,
``gaussian_mu``, ``analytic_gaussian_sigma``, the textbook ``classic_gaussian_sigma/epsilon`` (Dwork & Roth 2014,
Thm A.1), the accountants' event path (a single Gaussian in
the basic and optimal accountants, ``calibrate_sigma``), and the amplification formula ln(1 + q(e^ε − 1)) with its
inverse (Balle, Barthe & Gaboardi 2018, Thm 8).

Tolerances. δ(ε): relative error ≤ 8 ulps × κ, where κ = 1 + (ε|∂δ/∂ε| + μ|∂δ/∂μ|)/δ is the condition number of
δ at (ε, μ) (computed in mpmath; ≈ 1 + x₁² with x₁ = ε/μ − μ/2 in the tail) — the error any algorithm must make
when its inputs are rounded. Inverses: the returned ε (σ, μ) is the smallest (largest) double with δ ≤ target,
as evaluated by the profile (checked with ``np.nextafter``), and within 1e-9 of the mpmath root.

These tests can fail. The copy of δ(ε) that ``accountants/events._gdelta`` (also ``plots/userlevel`` and
lesson 13's ``gdp_delta``) used until issue 13 is kept below as ``_old_gdelta``: at μ = 1e-12 its relative
error at ε = 0 is 1.8e-4 (κ ≈ 1 there), and ``test_the_oracle_catches_the_old_copy`` checks that the oracle test
rejects it. The mechanisms kernel of before issue 13 (erfcx difference for every x₁ > 0) failed the same test at
μ = 1e-12 for small positive x₁ (relative error 1e-4 at ε = 1e-20).
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from scipy import special

from dpviz import mechanisms as M
from dpviz.accountants import BasicAccountant, OptimalAccountant, amplify_poisson, calibrate_sigma
from dpviz.accountants.amplification import _amplified_eps, _amplified_many, _deamplified_eps
from dpviz.mechanisms import Gaussian

mp.mp.dps = 100
ULP = 2.0**-52
MUS = [1e-12, 1e-6, 1e-3, 1.0, 10.0]


def mp_delta(eps, mu):
    e, m = mp.mpf(eps), mp.mpf(mu)
    return mp.ncdf(m / 2 - e / m) - mp.e**e * mp.ncdf(-m / 2 - e / m)


def condition(eps, mu) -> float:
    """κ = 1 + (ε|∂δ/∂ε| + μ|∂δ/∂μ|)/δ in mpmath (∂δ/∂ε = −e^ε Φ(−x₂) and ∂δ/∂μ = φ(x₁), Balle & Wang 2018)."""
    e, m = mp.mpf(eps), mp.mpf(mu)
    d = mp_delta(e, m)
    x1, x2 = e / m - m / 2, e / m + m / 2
    d_e = mp.e**e * mp.ncdf(-x2)
    d_m = mp.npdf(x1)
    return float(1 + (e * d_e + m * d_m) / d)


def eps_grid(mu):
    g = [0.0, 1e-300, 1e-20, mu * mu / 8, mu * mu / 2, 2 * mu * mu, mu / 10, mu, 10 * mu, 0.1, 1.0, 5.0, 30.0,
         200.0, 1000.0]
    return sorted({float(e) for e in g})


def check_delta(fn, mu, where, eps=None):
    """fn(ε array) against the oracle on ``eps`` (default: the ε grid of μ); returns the list of failures."""
    eps = np.array(eps_grid(mu) if eps is None else eps)
    got = np.asarray(fn(eps), dtype=float)
    bad = []
    for e, g in zip(eps.tolist(), got.tolist()):
        truth = mp_delta(e, mu)
        if not (0.0 <= g <= 1.0):
            bad.append((where, e, g, "outside [0, 1]"))
        elif truth < mp.mpf("1e-300"):
            if g > 1e-290:
                bad.append((where, e, g, float(truth)))
        else:
            rel = abs(mp.mpf(g) / truth - 1)
            if rel > 8 * ULP * condition(e, mu):
                bad.append((where, e, g, float(truth), float(rel)))
    return bad


# --------------------------------------------------------------------------------------------- δ(ε)


@pytest.mark.parametrize("mu", MUS)
def test_gaussian_delta_against_mpmath(mu):
    assert check_delta(lambda e: M.gaussian_delta(e, mu), mu, "gaussian_delta") == []


#: large μ (6.67 is lesson 03's σ = 0.3, Δ = 2): where the 10-point Gauss–Legendre branch of the kernel (x₁ > 0,
#: x₁μ < 1, an interval of length μ) lost accuracy before issue 13 — relative error 4e-12 at μ = 4, 3.7e-9 at
#: μ = 6.67, 3e-7 at μ = 10, 1.3e-3 at μ = 30, just above ε = μ²/2 (x₁ ≈ 0)
BIG_MUS = [2.0, 4.0, 20.0 / 3.0, 10.0, 30.0]


def near_x1_zero(mu):
    """ε = (x₁ + μ/2)μ for a fine sweep of x₁ ∈ [−1/μ, 2/μ] around 0 (both sides of every branch switch)."""
    x1 = [s / mu for s in np.linspace(-1.0, 2.0, 61)] + [1e-300, 1e-20, 1e-12, 1e-8, 1e-4, -1e-8]
    return sorted({float((x + mu / 2) * mu) for x in x1 if (x + mu / 2) * mu >= 0})


@pytest.mark.parametrize("mu", BIG_MUS)
def test_gaussian_delta_against_mpmath_at_large_mu(mu):
    eps = eps_grid(mu) + near_x1_zero(mu)
    assert check_delta(lambda e: M.gaussian_delta(e, mu), mu, "gaussian_delta", eps) == []


@pytest.mark.parametrize("mu", [1e-12, 1e-3, 0.5, 1.0])
def test_gaussian_delta_against_mpmath_near_x1_zero_at_small_mu(mu):
    # the quadrature branch's own territory (x₁ ∈ (0, 1/μ)), up to its largest interval μ = 1
    assert check_delta(lambda e: M.gaussian_delta(e, mu), mu, "gaussian_delta", near_x1_zero(mu)) == []


def test_the_large_mu_test_catches_the_quadrature_at_mu_30():
    # the same sweep with the quadrature branch forced at μ = 30 (the kernel before the fix) must fail
    from dpviz.mechanisms import gaussian as G

    def quad_everywhere(e, mu=30.0):
        e = np.asarray(e, dtype=float)
        x1 = e / mu - mu / 2
        t = x1[:, None] + mu * G._GL_NODES
        f = 1.0 - t * (G._SQRT_HALF_PI * special.erfcx(t / math.sqrt(2.0)))
        q = G._INV_SQRT_2PI * np.exp(-0.5 * x1 * x1) * mu * (f @ G._GL_WEIGHTS)
        return np.where((x1 > 0) & (x1 * mu < 1), q, M.gaussian_delta(e, mu))

    bad = check_delta(quad_everywhere, 30.0, "quadrature at mu = 30", near_x1_zero(30.0))
    assert bad and max(b[4] for b in bad) > 1e-4


@pytest.mark.parametrize("mu", MUS)
def test_gaussian_delta_broadcasts_over_mu(mu):
    eps = np.array(eps_grid(mu))
    from dpviz.mechanisms.gaussian import _gaussian_delta

    grid = _gaussian_delta(eps[:, None], np.array([mu, 2 * mu])[None, :])
    assert grid.shape == (eps.size, 2)
    np.testing.assert_array_equal(grid[:, 0], M.gaussian_delta(eps, mu))
    np.testing.assert_array_equal(grid[:, 1], M.gaussian_delta(eps, 2 * mu))


@pytest.mark.parametrize("mu", MUS)
def test_gaussian_mechanism_delta_against_mpmath(mu):
    sigma = 1.0 / mu
    mech = Gaussian(sigma, 1.0)
    exact_mu = mp.mpf(1) / mp.mpf(sigma)  # μ = Δ/σ of the doubles given
    eps = np.array(eps_grid(mu))
    got = mech.delta(eps)
    for e, g in zip(eps.tolist(), got.tolist()):
        truth = mp_delta(e, exact_mu)
        if truth < mp.mpf("1e-300"):
            assert 0.0 <= g <= 1e-290
        else:
            assert abs(mp.mpf(g) / truth - 1) <= 8 * ULP * condition(e, exact_mu), (mu, e, g, float(truth))


@pytest.mark.slow
@pytest.mark.parametrize("mu", MUS)
def test_one_gaussian_in_the_basic_and_optimal_accountants(mu):
    # a single event: both accountants must return its own privacy profile δ(ε), the basic one exactly (it inverts
    # the curve), the optimal one to its documented tolerance (a minimisation over δ₀ inside, δ found by bisection
    # in ln δ to rtol 1e-6), never below the true δ; also at ε = 0, which the optimal accountant got below the true
    # δ(0) until issue 13 (its kov_epsilon rounded every ε below ~1e-16 to 0, e.g. ε(3.9894e-13) = 0 at μ = 1e-12)
    mech = Gaussian(1.0 / mu, 1.0)
    exact_mu = mp.mpf(1) / mp.mpf(1.0 / mu)
    for cls, tol in ((BasicAccountant, 1e-9), (OptimalAccountant, 2e-6)):
        acct = cls().compose(mech)
        for e in (0.0, 0.1, 1.0, 5.0):
            truth = mp_delta(e, exact_mu)
            got = acct.delta(e)
            if truth < mp.mpf("1e-300"):
                assert got <= 1e-290
            else:
                assert truth * (1 - 1e-12) <= got <= truth * (1 + tol), (cls.__name__, mu, e, got, float(truth))


def _old_gdelta(e: np.ndarray, mu: float) -> np.ndarray:
    """The copy in accountants/events.py until issue 13 (kept here only to show that the oracle rejects it)."""
    x1 = e / mu - mu / 2.0
    x2 = e / mu + mu / 2.0
    g = 0.5 * np.exp(-0.5 * x1 * x1)
    c2 = special.erfcx(x2 / math.sqrt(2.0))
    out = np.where(x1 > 0, g * (special.erfcx(x1 / math.sqrt(2.0)) - c2), special.ndtr(-x1) - g * c2)
    return np.clip(out, 0.0, 1.0)


def test_the_oracle_catches_the_old_copy():
    bad = check_delta(lambda e: _old_gdelta(e, 1e-12), 1e-12, "old _gdelta")
    assert bad, "the oracle test must reject the old copy"
    at_zero = [b for b in bad if b[1] == 0.0]
    assert at_zero and 1e-4 < at_zero[0][4] < 1e-3  # 1.8e-4 relative error at ε = 0, κ ≈ 1


# --------------------------------------------------------------------------------------------- ε(δ)


def mp_eps(delta, mu):
    """The mpmath root of δ(ε; μ) = delta (0 if δ(0) ≤ delta), by 200 bisection steps on the zCDP bracket
    [0, μ(μ/2 + √(2 ln(1/δ)))] (Bun & Steinke 2016, Prop. 1.3)."""
    d, m = mp.mpf(delta), mp.mpf(mu)
    if mp_delta(0, m) <= d:
        return mp.mpf(0)
    lo, hi = mp.mpf(0), m * (m / 2 + mp.sqrt(2 * mp.log(1 / d)))
    for _ in range(200):
        mid = (lo + hi) / 2
        if mp_delta(mid, m) > d:
            lo = mid
        else:
            hi = mid
    return hi


DELTAS = [1e-300, 1e-100, 1e-12, 1e-6, 1e-3, 0.3]


def _assert_smallest(eps, delta, profile, where):
    """eps is feasible under ``profile`` (the float evaluation) and its predecessor is not."""
    assert profile(eps) <= delta, (where, eps, delta)
    if eps > 0:
        assert profile(float(np.nextafter(eps, 0.0))) > delta, (where, eps, delta)


@pytest.mark.slow
@pytest.mark.parametrize("mu", MUS)
def test_gaussian_epsilon_is_the_smallest_feasible_double(mu):
    from dpviz.mechanisms.gaussian import _gaussian_delta

    for d in DELTAS:
        if mp_delta(0, mu) <= d:
            assert M.gaussian_epsilon(d, mu) == 0.0
            continue
        e = M.gaussian_epsilon(d, mu)
        _assert_smallest(e, d, lambda x: float(_gaussian_delta(x, mu)), "gaussian_epsilon")
        assert abs(mp.mpf(e) / mp_eps(d, mu) - 1) < 1e-9
        # the same answer through the mechanism object
        g = Gaussian(1.0 / mu, 1.0)
        if 1.0 / (1.0 / mu) == mu:
            assert g.epsilon(d) == e


@pytest.mark.parametrize("mu", MUS)
def test_gaussian_epsilon_many_is_feasible_and_within_ulps(mu):
    from dpviz.mechanisms.gaussian import _gaussian_delta

    ds = np.array([d for d in DELTAS if mp_delta(0, mu) > d])
    if ds.size == 0:
        return
    got = M.gaussian_epsilon_many(mu, ds)
    for e, d in zip(got.tolist(), ds.tolist()):
        assert float(_gaussian_delta(e, mu)) <= d  # never under-reports ε
        exact = M.gaussian_epsilon(d, mu)
        assert exact <= e <= exact * (1 + 16 * ULP), (mu, d, e, exact)


@pytest.mark.parametrize("mu", MUS)
def test_one_gaussian_epsilon_in_the_accountants(mu):
    mech = Gaussian(1.0 / mu, 1.0)
    below_zero = 0.5 * float(mp_delta(0, mp.mpf(1) / mp.mpf(1.0 / mu)))  # below δ(0): ε of order μ, tiny for tiny μ
    for cls in (BasicAccountant, OptimalAccountant):
        for d in (1e-12, 1e-6, 1e-3, below_zero):
            exact = mech.epsilon(d)
            got = cls().compose(mech).epsilon(d)
            assert exact <= got <= exact * (1 + 1e-12) + 1e-300, (cls.__name__, mu, d, got, exact)


# --------------------------------------------------------------------------------------------- calibration


@pytest.mark.parametrize("eps", [1e-3, 0.1, 1.0, 10.0])
@pytest.mark.parametrize("delta", [1e-12, 1e-5, 0.1])
def test_gaussian_mu_and_analytic_sigma_are_exact(eps, delta):
    from dpviz.mechanisms.gaussian import _gaussian_delta

    mu = M.gaussian_mu(eps, delta)
    assert float(_gaussian_delta(eps, mu)) <= delta < float(_gaussian_delta(eps, float(np.nextafter(mu, 2 * mu))))
    # oracle: the mpmath root in μ of δ(ε; μ) = delta
    root = mp.findroot(lambda m: mp_delta(eps, m) - delta, mp.mpf(mu))
    assert abs(mp.mpf(mu) / root - 1) < 1e-9
    sigma = M.analytic_gaussian_sigma(eps, delta)
    assert Gaussian(sigma).delta(eps) <= delta < Gaussian(float(np.nextafter(sigma, 0.0))).delta(eps)
    assert abs(mp.mpf(sigma) * root - 1) < 1e-9  # σ = 1/μ
    # the textbook σ solves its own formula, and is valid (not tight) for ε < 1 (Dwork & Roth 2014, Thm A.1)
    classic = M.classic_gaussian_sigma(eps, delta)
    truth = mp.sqrt(2 * mp.log(mp.mpf("1.25") / mp.mpf(delta))) / mp.mpf(eps)
    assert abs(mp.mpf(classic) / truth - 1) < 4 * ULP
    assert abs(mp.mpf(M.classic_gaussian_epsilon(classic, delta)) / mp.mpf(eps) - 1) < 8 * ULP
    if eps < 1 and delta < 1.25 * math.exp(-0.5):
        assert classic >= sigma


def test_calibrate_sigma_brackets_the_exact_answer():
    # one unsampled Gaussian run: the exact smallest σ is the analytic one; calibrate_sigma returns a feasible σ
    # at most a factor 1 + rtol above it (never below: it would overshoot the budget)
    for acct in ("optimal", "basic"):
        s = calibrate_sigma(1.0, 1e-5, 1, None, acct, rtol=1e-6)
        exact = M.analytic_gaussian_sigma(1.0, 1e-5)
        assert exact * (1 - 1e-12) <= s <= exact * (1 + 1e-6), (acct, s, exact)
    # k runs: GDP composition, the Gaussian of sensitivity √k (Dong, Roth & Su 2022, Cor. 3.3)
    s = calibrate_sigma(1.0, 1e-5, 16, None, "pld", rtol=1e-6)
    assert s == pytest.approx(M.analytic_gaussian_sigma(1.0, 1e-5, 4.0), rel=2e-3)


# --------------------------------------------------------------------------------------------- amplification


@pytest.mark.parametrize("q", [1e-6, 0.01, 0.5, 1.0])
def test_amplification_and_its_inverse_against_mpmath(q):
    # tolerance: 8 ulps × the condition number 1 + |x f′(x)/f(x)| of each map at the point
    qm = mp.mpf(q)
    for e in (1e-10, 0.1, 1.0, 10.0, 700.0, 1e4):
        em = mp.mpf(e)
        truth = mp.log(1 + qm * mp.expm1(em))
        kappa = float(1 + em * qm * mp.e**em / (1 + qm * mp.expm1(em)) / truth)
        got = _amplified_eps(e, q)
        assert abs(mp.mpf(got) / truth - 1) < 8 * ULP * kappa, (q, e, got, float(truth))
        assert amplify_poisson(e, 1e-6, q) == (got, q * 1e-6)
        many = _amplified_many(lambda d, e=e: np.full(np.shape(d), e), q, np.array([1e-9]))[0]
        assert abs(mp.mpf(many) / truth - 1) < 8 * ULP * kappa
        # inverse: ln(1 + (e^{ε′} − 1)/q)
        back = mp.log(1 + mp.expm1(em) / qm)
        kappa = float(1 + em * mp.e**em / qm / (1 + mp.expm1(em) / qm) / back)
        assert abs(mp.mpf(_deamplified_eps(e, q)) / back - 1) < 8 * ULP * kappa, (q, e)


def test_scalar_kernel_agrees_with_the_array_kernel_in_every_branch():
    """_gaussian_delta1 (the scalar inner loop of the inverses and accountants) computes the same three branches in
    scalar arithmetic: equal to the array kernel to a few ulps over μ from 1e-13 to 300 and ε from 0 to far tails."""
    from dpviz.mechanisms.gaussian import _gaussian_delta, _gaussian_delta1

    rng = np.random.default_rng(7)
    mus = 10.0 ** rng.uniform(-13, 2.5, 4000)
    eps = mus * rng.uniform(0, 3, 4000) * 10.0 ** rng.uniform(-3, 2, 4000)
    eps[::50] = 0.0
    got = np.array([_gaussian_delta1(e, m) for e, m in zip(eps, mus)])
    want = _gaussian_delta(eps, mus)
    assert np.all((got == want) | (np.abs(got - want) <= 8 * np.finfo(float).eps * want))
    assert _gaussian_delta1(1e300, 1e-300) == 0.0 and _gaussian_delta1(0.0, 1e300) == 1.0

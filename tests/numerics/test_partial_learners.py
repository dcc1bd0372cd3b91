"""Tests of dpviz.partial.learners (Section 6 and Appendix A.3 of 001)."""

import itertools
import math

import numpy as np
import pytest

from dpviz.partial import (
    distribution_estimate,
    halfspace_dec,
    halfspace_net,
    label_randomized_response,
    longest_polarizing_prefix,
    point_learner,
    polarization,
    robust_erm,
    robust_halfspace_learner,
    robust_loss,
    rr_excess_factor,
    rr_flip_probability,
    rr_risk,
    threshold_learner,
    threshold_predict,
)


def _sign(v):
    return 1 if v >= 0 else -1  # sign(0) = +1, the library's convention


def test_dec_against_brute_force():
    rng = np.random.default_rng(0)
    d = 4
    cube = np.array(list(itertools.product([-1, 1], repeat=d)))
    for _ in range(30):
        w = rng.integers(-3, 4, size=d).astype(float)  # integers: exact sums, so sign(0) ties are exercised exactly
        X = cube
        y = rng.choice([-1, 1], size=len(cube))
        got = halfspace_dec(w, X, y)[0]
        for i, (x, yy) in enumerate(zip(X, y)):
            dists = [np.sum(z != x) for z in cube if _sign(z @ w) != yy]
            assert got[i] == (min(dists) if dists else np.inf)


def test_robust_loss_sandwich_and_sensitivity():
    d, g, gp = 10, 0.5, 0.2
    dec = np.arange(0, 12, dtype=float)
    loss = robust_loss(dec, g, gp, d)
    assert np.all((dec <= gp * d) <= loss) and np.all(loss <= (dec <= g * d))
    assert np.max(np.abs(np.diff(loss))) <= 1 / ((g - gp) * d) + 1e-12
    assert robust_loss(np.inf, g, gp, d) == 0.0
    with pytest.raises(ValueError, match="gamma_prime"):
        robust_loss(dec, 0.2, 0.3, d)


def test_rr_fixtures_and_identity():
    assert [round(rr_excess_factor(e), 3) for e in (0.1, 0.5, 1.0)] == [20.017, 4.083, 2.164]
    # 0-1 risk identity (Lemma 21), checked on an explicit small distribution
    eps = 0.7
    rng = np.random.default_rng(1)
    X = np.array(list(itertools.product([-1, 1], repeat=3)))
    pD = rng.dirichlet(np.ones(2 * len(X))).reshape(len(X), 2)  # P[x, y = −1], P[x, y = +1]
    w = np.array([0.4, -0.3, 0.2])
    h = np.where(X @ w >= 0, 1, -1)
    risk = sum(pD[i, 0] * (h[i] != -1) + pD[i, 1] * (h[i] != 1) for i in range(len(X)))
    q = math.exp(eps) / (math.exp(eps) + 1)
    pD2 = q * pD + (1 - q) * pD[:, ::-1]
    risk2 = sum(pD2[i, 0] * (h[i] != -1) + pD2[i, 1] * (h[i] != 1) for i in range(len(X)))
    assert rr_risk(risk, eps) == pytest.approx(risk2, abs=1e-12)
    assert rr_flip_probability(eps) == pytest.approx(1 - q)


def test_label_rr_flip_rate():
    y = np.ones(100000)
    eps = 0.5
    out = label_randomized_response(y, eps, rng=0)
    p = 1 / (math.exp(eps) + 1)
    assert abs(np.mean(out == -1) - p) < 5 * math.sqrt(p * (1 - p) / y.size)
    with pytest.raises(ValueError, match="eps0"):
        label_randomized_response(y, 2.0)
    with pytest.raises(ValueError, match="±1"):
        label_randomized_response(np.array([0, 1]), 0.5)


def test_net_is_a_nu_net():
    d, nu = 2, 0.2
    net = halfspace_net(d, nu)
    assert np.all(np.abs(net).sum(axis=1) <= 1 + 1e-12)
    rng = np.random.default_rng(0)
    for _ in range(200):
        w = rng.normal(size=d)
        w /= np.abs(w).sum() * rng.uniform(1, 3)
        assert np.min(np.abs(net - w).sum(axis=1)) < nu


def test_robust_erm_prefers_low_loss():
    rng = np.random.default_rng(0)
    X = rng.choice([-1, 1], size=(400, 2))
    y = np.where(X[:, 0] >= 0, 1, -1)
    W = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]])
    picks = [robust_erm(W, X, y, 5.0, 0.9, 0.1, rng=s) for s in range(20)]
    assert np.mean(np.array(picks) == 0) > 0.9


def test_robust_halfspace_learner_small():
    rng = np.random.default_rng(0)
    X = rng.choice([-1, 1], size=(300, 2))
    y = np.where(X[:, 0] >= 0, 1, -1)
    res = robust_halfspace_learner(X, y, 1.0, 0.6, 0.1, rng=3)
    assert res.nu == pytest.approx(0.1) and res.net_size == len(halfspace_net(2, 0.1))
    with pytest.raises(ValueError, match="eps0"):
        robust_halfspace_learner(X, y, 1.5, 0.6, 0.1)
    with pytest.raises(ValueError, match="gamma_prime"):
        robust_halfspace_learner(X, y, 1.0, 0.1, 0.6)


@pytest.mark.slow
def test_robust_halfspace_learner_learns_a_separable_concept():
    """y = sign(x_1) on {±1}², n = 3000, ε0 = 1, (γ, γ') = (0.6, 0.1): ν = 0.1, margins (0.2, 0.1), so on the
    integer dec the loss is the 0-1 loss on the randomized-response labels, and Δ = 1/(νd) = 5. A hypothesis that
    mislabels one of the four points (≈ 750 samples each) has ≈ tanh(ε0/2)·750 ≈ 347 more loss than one that labels
    all four like sign(x_1) (w_1 > |w_2|), so the exponential mechanism exp(−ε0·Loss/(2Δ)) puts mass
    ≤ |net|·e^{−(347 − 5 sd)/10} < 10⁻⁹ on it (Lemma 22)."""
    rng = np.random.default_rng(0)
    X = rng.choice([-1, 1], size=(3000, 2))
    y = np.where(X[:, 0] >= 0, 1, -1)
    cube = np.array(list(itertools.product([-1, 1], repeat=2)))
    for seed in range(3):
        w = robust_halfspace_learner(X, y, 1.0, 0.6, 0.1, rng=seed).w
        assert np.array_equal(np.where(cube @ w >= 0, 1, -1), cube[:, 0])


def _planted_point(seed=0, n=20000, d=16, frac=0.3):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, d))
    u = rng.integers(0, 2, size=d)
    X[: int(frac * n)] = u
    return X, u


def test_point_learner_finds_planted_point():
    X, u = _planted_point()
    y = np.all(X == u, axis=1).astype(int)
    # x*∘1 has count 6000 ≥ 2τ with τ = 0.5·ν·n = 0.02n = 400; the miss probability over the 2·32 − 1 tree nodes is
    # below 63·½e^{−(τ − 4μ)/λ} (Lemma 30(i)), negligible here
    out = point_learner(X, y, 1.0, 0.2, rng=1)
    assert np.array_equal(out, u)
    # no positive examples: an x0 outside the list
    out0 = point_learner(X, np.zeros(len(X), int), 1.0, 0.2, rng=1)
    assert not np.array_equal(out0, u)


def test_polarization_and_prefix():
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 5)
    y = np.array([0, 1, 0, 1] * 5)
    assert polarization(X, y, 0) == pytest.approx(0.5)
    assert polarization(X, y, 1) == pytest.approx(0.25)
    assert polarization(X, y, 2) == 0.0
    with pytest.raises(ValueError, match="ell"):
        polarization(X, y, 3)
    rng = np.random.default_rng(0)
    Xb = rng.integers(0, 2, size=(20000, 8))
    z = np.array([1, 0, 1, 1, 0, 0, 1, 0])
    yb = threshold_predict(z, Xb)
    # Lemma 32's conclusion: a γ-polarizing prefix (of the true threshold) such that no longer prefix is
    # 2γ-polarizing. Here maxpol_3 = 0.054 and maxpol_4 = 0.008 against 1.5γ = 0.03, while the probe noise has
    # scale 2·4/(3·20000) ≈ 1.3·10⁻⁴ and the histogram counts of p∘0, p∘1 (≈ 1,090) sit far above 1.5γn = 600.
    for seed in range(3):
        p = longest_polarizing_prefix(Xb, yb, 3.0, 0.02, rng=seed)
        assert p is not None and np.array_equal(p, z[: len(p)])
        assert polarization(Xb, yb, len(p)) >= 0.02
        assert polarization(Xb, yb, len(p) + 1) < 2 * 0.02


def test_threshold_learner_accuracy():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(20000, 16))
    z = np.array([1, 0, 1, 1, 0, 0, 1, 0, 1, 1, 0, 1, 0, 0, 1, 1])
    y = threshold_predict(z, X)
    for s in range(3):
        zh = threshold_learner(X, y, 1.0, 0.2, rng=s)
        assert np.mean(threshold_predict(zh, X) != y) <= 0.2
    assert np.array_equal(threshold_learner(X, np.zeros(len(X), int), 1.0, 0.2, rng=0), np.ones(16))
    assert np.array_equal(threshold_learner(X, np.ones(len(X), int), 1.0, 0.2, rng=0), np.zeros(16))


def test_distribution_estimate():
    X, u = _planted_point(seed=2)
    r = distribution_estimate(X, 1.0, rng=0)
    est = {tuple(s): t for s, t in zip(r["strings"], r["theta"])}
    assert est[tuple(u)] == pytest.approx(np.mean(np.all(X == u, axis=1)), abs=10 * 4 / len(X))
    with pytest.raises(ValueError, match="eps0"):
        distribution_estimate(X[:2], 1.0)


def test_learner_bad_input():
    X = np.zeros((10, 4))
    with pytest.raises(ValueError, match="y"):
        point_learner(X, np.arange(10), 1.0, 0.2)
    with pytest.raises(ValueError, match="y"):
        threshold_learner(X, np.zeros(9), 1.0, 0.2)
    with pytest.raises(ValueError, match="alpha"):
        point_learner(X, np.zeros(10), 1.0, 0.0)


@pytest.mark.parametrize("bad", [1 + 1j, np.complex128(1 + 0j), np.array([0.0, 1j]), [0.0, 2 + 0j]],
                         ids=["complex", "np.complex128", "complex array", "list holding a complex"])
def test_robust_loss_refuses_complex_distances(bad):
    # numpy would silently drop the imaginary part: refused, naming dec and what it may hold
    with pytest.raises(ValueError, match=r"^dec = .*real numbers.*distances >= 0 \(or \+inf\)"):
        robust_loss(bad, 0.5, 0.2, 10)


def test_robust_loss_accepts_infinite_distances_and_refuses_negative_or_nan_ones():
    # dec = +inf: no flip changes h's answer, the loss is 0 (dec ≥ γd); the same inside an array
    np.testing.assert_array_equal(robust_loss(np.array([np.inf, 0.0]), 0.5, 0.2, 10), [0.0, 1.0])
    for bad in (np.array([-1.0]), [np.nan], -np.inf):
        with pytest.raises(ValueError, match=r"dec .*distances >= 0 \(or \+inf\)"):
            robust_loss(bad, 0.5, 0.2, 10)

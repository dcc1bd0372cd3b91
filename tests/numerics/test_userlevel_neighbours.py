"""Exact user-level neighbour checks of every dpviz.userlevel algorithm that exposes exact output probabilities
(issue 12, finding 2).

A user-level neighbour replaces ONE user's whole block by any other block — including a block of a different length
(ragged users). For each algorithm the test enumerates such replacements (all blocks up to a small length over the
domain, plus a few long ones), computes the EXACT output probabilities on each dataset, and asserts the guarantee
between every pair of mutual neighbours (all the replacements of one user share x_{−i}, so every pair of them is a
neighbour pair):

* pure ε-DP learners (ALG-8 … ALG-12): max |log P(o)/P′(o)| ≤ ε;
* DelStab (ε, δ): d_ε(P‖P′) = Σ_o [P(o) − e^ε P′(o)]_+ ≤ δ in both directions (computed here, not by the library).

The Scheffé probabilities are also recomputed from scratch (per-example comparisons, clipping, exponential mechanism)
in mpmath, so the test checks the library's probabilities as well as the bound. The regression test is the issue's
reproducer: on the old code (τ from the largest per-user count) |log P/P′| reached 2.75 > ε = 0.8.
"""

from __future__ import annotations

import itertools
import math

import mpmath as mp
import numpy as np
import pytest

from dpviz.userlevel import (
    ClippedPairwiseEM,
    DelStab,
    NoisySum,
    ThresholdClass,
    UserDataset,
    agnostic_pac_learner,
    discrete_cover,
    learn_distribution_cover,
    paper_tau,
    realizable_pac_learner,
    scheffe_selection,
)

TOL = 1e-12  # float64 round-off slack on log-ratios of probabilities computed in closed form


def worst_log_ratio(probs) -> float:
    """max over outputs o and over pairs (j, j′) of |log P_j(o) − log P_j′(o)| for a stack of pmfs P_j."""
    L = np.log(np.stack(probs))
    assert np.all(np.isfinite(L))
    return float((L.max(axis=0) - L.min(axis=0)).max())


def worst_hockey_stick(pmfs, epsilon) -> float:
    """max over ordered pairs of Σ_o [P(o) − e^ε·P′(o)]_+ (the (ε, δ) condition), by a plain double loop."""
    P = np.stack(pmfs)
    e = math.exp(epsilon)
    return max(float(np.maximum(P[i][None, :] - e * P, 0.0).sum(axis=1).max()) for i in range(len(P)))


def ragged_blocks(symbols, max_len, extra=()):
    """Every block of length 1..max_len over ``symbols``, then the ``extra`` (long) blocks."""
    out = [list(b) for L in range(1, max_len + 1) for b in itertools.product(symbols, repeat=L)]
    return out + [list(b) for b in extra]


# ------------------------------------------------------------------------------------------------ the reproducer
C3 = np.array([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.1, 0.2, 0.7]])


def _reproducer_users():
    g = np.random.default_rng(5)
    return [list(g.choice(3, size=2, p=C3[0])) for _ in range(40)]


def test_finding2_reproducer_public_m():
    """Issue 12, finding 2: one user replacing 2 samples by 30 moved τ (old: τ from the largest count) and
    |log P/P′| reached 2.75 against ε = 0.8. With the paper's m = 2 passed publicly, τ is fixed and the bound holds."""
    u = _reproducer_users()
    P = scheffe_selection(UserDataset(u, domain=(0, 2)), C3, 0.8, alpha=0.3, m=2, rng=0).probabilities
    Q = scheffe_selection(UserDataset([[0] * 30] + u[1:], domain=(0, 2)), C3, 0.8, alpha=0.3, m=2, rng=0).probabilities
    assert np.abs(np.log(P / Q)).max() <= 0.8 + TOL


def test_finding2_reproducer_default_refuses_ragged():
    """Without a public m or τ, τ could only come from the data: rectangular input keeps its common count (a
    parameter of the data universe), the ragged neighbour is refused instead of leaking through τ."""
    u = _reproducer_users()
    with pytest.raises(ValueError, match=r"ragged.*tau or m"):  # the old code answered, with τ from the 30
        scheffe_selection(UserDataset([[0] * 30] + u[1:], domain=(0, 2)), C3, 0.8, alpha=0.3, rng=0)
    with pytest.raises(ValueError, match=r"ragged.*tau or m"):
        learn_distribution_cover(UserDataset([[0] * 30] + u[1:]), 3, 0.8, 0.3,
                                 cover=discrete_cover(3, 0.5, resolution=4), rng=0)
    P = scheffe_selection(UserDataset(u, domain=(0, 2)), C3, 0.8, alpha=0.3, rng=0).probabilities
    want = scheffe_selection(UserDataset(u, domain=(0, 2)), C3, 0.8, tau=paper_tau(2, 0.3), rng=0).probabilities
    assert np.array_equal(P, want)


def test_old_rule_would_fail():
    """The check below can fail: with τ read from each dataset's largest count (the old rule), the same neighbour
    pair breaks ε — the test's oracle would catch a regression to it."""
    u = _reproducer_users()
    x, x2 = UserDataset(u), UserDataset([[0] * 30] + u[1:])
    P = scheffe_selection(x, C3, 0.8, tau=paper_tau(2, 0.3), rng=0).probabilities
    Q = scheffe_selection(x2, C3, 0.8, tau=paper_tau(30, 0.3), rng=0).probabilities
    assert np.abs(np.log(P / Q)).max() > 2.0


# ------------------------------------------------------------------------------------------------ ALG-11 / ALG-12
def scheffe_oracle(blocks, cands, epsilon, tau):
    """ALG-11 from its definition, in mpmath: ψ_{a,b}(z) = P_a(W) − 1[z ∈ W], W = {P_a > P_b} strict; per-user sums
    clipped to [−τ, τ]; scr[a] = max_{b≠a} Σ_i; P(a) ∝ exp(−ε·scr[a]/(4τ))."""
    K, k = cands.shape
    tau_m = mp.mpf(tau)
    scr = []
    for a in range(K):
        best = None
        for b in range(K):
            if b == a:
                continue
            W = [cands[a][z] > cands[b][z] for z in range(k)]
            PW = mp.fsum(mp.mpf(cands[a][z]) for z in range(k) if W[z])
            tot = mp.mpf(0)
            for blk in blocks:
                u = mp.fsum(PW - (1 if W[int(z)] else 0) for z in blk)
                tot += min(max(u, -tau_m), tau_m)
            best = tot if best is None else max(best, tot)
        scr.append(best if best is not None else mp.mpf(0))
    w = [mp.e ** (-mp.mpf(epsilon) * s / (4 * tau_m)) for s in scr]
    Z = mp.fsum(w)
    return np.array([float(v / Z) for v in w])


@pytest.mark.parametrize("how", ["m", "tau"])
def test_scheffe_ragged_neighbours_exact(how):
    eps = 0.8
    base = [[0, 1], [2], [1, 1, 0], [0, 2], [2, 2, 1, 0]]
    alts = ragged_blocks(range(3), 4, extra=([0] * 30, [2] * 30, [1] * 17))
    kw = {"alpha": 0.3, "m": 2} if how == "m" else {"tau": 1.4}
    tau = paper_tau(2, 0.3) if how == "m" else 1.4
    probs = []
    for i, blk in enumerate(alts):
        blocks = [blk] + base[1:]
        sel = scheffe_selection(UserDataset(blocks), C3, eps, rng=0, **kw)
        assert sel.sensitivity == pytest.approx(2 * tau)
        if i % 10 == 0 or len(blk) > 4:  # the mpmath oracle on a subset (it is slow); every one is compared below
            assert np.allclose(sel.probabilities, scheffe_oracle(blocks, C3, eps, tau), rtol=1e-12, atol=0)
        probs.append(sel.probabilities)
    worst = worst_log_ratio(probs)
    assert worst <= eps + TOL
    assert worst > 0.5 * eps  # the enumeration reaches near the bound: a check that cannot pass vacuously


def test_learn_distribution_cover_ragged_neighbours_exact():
    eps = 1.0
    cover = discrete_cover(3, 0.5, resolution=3)
    base = [[0, 1, 2], [2], [1, 1], [0, 2, 2, 2]]
    probs = []
    for blk in ragged_blocks(range(3), 3, extra=([1] * 25,)):
        _, sel = learn_distribution_cover(UserDataset([blk] + base[1:]), 3, eps, 0.5, cover=cover, m=3, rng=0)
        probs.append(sel.probabilities)
    assert worst_log_ratio(probs) <= eps + TOL


# ------------------------------------------------------------------------------------------------ ALG-8, ALG-10
LABELLED = list(itertools.product(range(3), (0, 1)))  # (x, y) on a 3-point grid


def _rows(width):
    for blk in itertools.product(LABELLED, repeat=width):
        yield [b[0] for b in blk], [b[1] for b in blk]


@pytest.mark.parametrize("alpha", [None, 0.5])
def test_realizable_neighbours_exact(alpha):
    eps = 0.9
    H = ThresholdClass(3)
    X = np.array([[0, 2], [1, 1], [2, 0], [0, 0]])
    Y = np.array([[0, 1], [1, 1], [1, 0], [0, 0]])
    probs = []
    for xr, yr in _rows(2):
        X2, Y2 = X.copy(), Y.copy()
        X2[0], Y2[0] = xr, yr
        probs.append(realizable_pac_learner(X2, Y2, H.predictions(), eps, alpha=alpha, rng=0).probabilities)
    worst = worst_log_ratio(probs)
    assert worst <= eps + TOL and worst > 0.5 * eps


@pytest.mark.parametrize("kw", [{"alpha": 0.3}, {"tau": 1.2}, {}])
def test_agnostic_neighbours_exact(kw):
    eps = 0.9
    H = ThresholdClass(3)
    X = np.array([[0, 2], [1, 1], [2, 0]])
    Y = np.array([[0, 1], [1, 1], [1, 1]])
    probs = []
    for xr, yr in _rows(2):
        X2, Y2 = X.copy(), Y.copy()
        X2[0], Y2[0] = xr, yr
        probs.append(agnostic_pac_learner(X2, Y2, H.predictions(), eps, rng=0, **kw).probabilities)
    worst = worst_log_ratio(probs)
    assert worst <= eps + TOL and worst > 0.3 * eps


def test_agnostic_single_user_of_any_width():
    """ALG-10 reads m from X's width. With n ≥ 2 a neighbour keeps the width (it replaces one row of a rectangular
    array); with n = 1 the width itself can change, so τ = paper_tau(m, α) moves — yet the bound survives:
    scr ∈ [−τ, τ] makes every exponent −ε·scr/(4τ) lie in [−ε/4, ε/4], so each log-probability moves by ≤ ε."""
    eps = 0.9
    H = ThresholdClass(3)
    probs = []
    for width in (1, 2, 3):
        for xr, yr in _rows(width):
            probs.append(agnostic_pac_learner([xr], [yr], H.predictions(), eps, alpha=0.3, rng=0).probabilities)
    assert worst_log_ratio(probs) <= eps + TOL


# ------------------------------------------------------------------------------------------------ ALG-9
def test_clipped_pairwise_em_ragged_user_sums():
    """ALG-9 on per-user sums: user i with c_i examples has u[a, b, i] ∈ [−c_i, c_i]; replacing one user by one with
    any count moves the probabilities by at most e^ε."""
    eps, tau = 0.7, 1.5
    em = ClippedPairwiseEM(eps, tau)
    rng = np.random.default_rng(0)
    K, n = 4, 5
    base = rng.uniform(-2, 2, size=(K, K, n))
    probs = []
    for c in (1, 2, 5, 40):
        for _ in range(30):
            u = base.copy()
            col = rng.uniform(-1, 1, size=(K, K)) * c
            col[rng.random((K, K)) < 0.3] = rng.choice([-c, c])
            u[:, :, 0] = col
            probs.append(em.probabilities(u))
    worst = worst_log_ratio(probs)
    assert worst <= eps + TOL and worst > 0.5 * eps


# ------------------------------------------------------------------------------------------------ DelStab
def test_delstab_ragged_neighbours_exact():
    """DelStab is (ε, δ)-user-level DP for every inner algorithm (Lemma 18); the inner NoisySum sees a user only
    through the sum of its block, so ragged blocks of any length are covered by the per-user sums 0..30."""
    eps, delta = 3.0, 0.1
    ds = DelStab(eps, delta, NoisySum(epsilon0=0.1, high=20))
    rng = np.random.default_rng(2)
    base = [list(rng.integers(0, 2, size=int(c))) for c in rng.integers(1, 4, size=26)]
    pmfs = []
    for s in list(range(0, 5)) + [7, 12, 30]:
        blk = [1] * s + [0] * (1 if s == 0 else 0)
        pmfs.append(ds.output_pmf(UserDataset([blk] + base[1:])))
    worst = worst_hockey_stick(pmfs, eps)
    assert worst <= delta + TOL
    assert worst_hockey_stick(pmfs, 0.0) > 0.01  # the replaced user does move the output law

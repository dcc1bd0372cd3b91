"""Tests for dpviz.accountants: the shared contract (run for every accountant), closed forms with mpmath,
brute-force exact compositions, group privacy, calibration and input validation.

Cross-checks against Google's dp-accounting live in tests/numerics/test_accountants_crosscheck.py.
"""

import itertools
import math

import mpmath as mp
import numpy as np
import pytest

from dpviz.accountants import (
    ACCOUNTANTS,
    ZCDP,
    AdvancedAccountant,
    ApproxDP,
    BasicAccountant,
    OptimalAccountant,
    PLDAccountant,
    PoissonSampled,
    PureDP,
    RDPAccountant,
    SampledWithoutReplacement,
    ZCDPAccountant,
    amplify_poisson,
    amplify_without_replacement,
    calibrate_laplace_scale,
    calibrate_sigma,
    group_privacy,
    group_privacy_mechanism,
)
from dpviz.accountants.advanced import drv_epsilon
from dpviz.accountants.optimal import kov_delta, kov_epsilon
from dpviz.accountants.rdp import (
    rdp_discrete_laplace,
    rdp_laplace,
    rdp_poisson_gaussian,
    rdp_pure,
)
from dpviz.mechanisms import DiscreteGaussian, DiscreteLaplace, Gaussian, Laplace, RandomizedResponse

mp.mp.dps = 30

ALL = list(ACCOUNTANTS.items())

# one representative supported event per accountant (used by the contract tests)
EVENT = {
    "basic": Laplace(2.0),
    "advanced": Laplace(2.0),
    "optimal": RandomizedResponse(0.5),
    "rdp": Gaussian(3.0),
    "zcdp": Gaussian(3.0),
    "pld": PoissonSampled(Gaussian(1.5), 0.1),
}
UNSUPPORTED = {
    "basic": "not an event",
    "advanced": "not an event",
    "optimal": "not an event",
    "rdp": ApproxDP(1.0, 1e-6),
    "zcdp": ApproxDP(1.0, 1e-6),
    "pld": ZCDP(0.1),
}
MECHANISMS = [
    Laplace(1.5),
    Gaussian(2.0),
    RandomizedResponse(0.7),
    DiscreteLaplace(1.5, 2),
    DiscreteGaussian(2.0),
    PureDP(0.3),
    PoissonSampled(Gaussian(1.2), 0.2),
]


# ---------------------------------------------------------------------------------------------- contract suite


@pytest.mark.parametrize("name, cls", ALL)
def test_contract_noop_and_chaining(name, cls):
    acct = cls()
    assert acct.ledger == ()
    assert acct.epsilon(1e-5) == 0.0 and acct.delta(1.0) == 0.0
    assert acct.compose(EVENT[name], count=0) is acct
    assert acct.ledger == () and acct.epsilon(1e-5) == 0.0
    assert acct.compose(EVENT[name]).compose(EVENT[name], 2) is acct
    assert acct.ledger == ((EVENT[name], 1), (EVENT[name], 2))
    with pytest.raises(AttributeError):
        acct.ledger = ()
    assert isinstance(acct.ledger, tuple)
    assert acct.neighboring == "add_remove"
    assert name == cls.name


@pytest.mark.slow
@pytest.mark.parametrize("name, cls", ALL)
def test_contract_monotone_in_count(name, cls):
    eps = [cls().compose(EVENT[name], count=k).epsilon(1e-6) for k in (1, 2, 5, 20)]
    assert all(a <= b * (1 + 1e-9) for a, b in zip(eps, eps[1:]))
    assert eps[0] < eps[-1]
    dels = [cls().compose(EVENT[name], count=k).delta(1.0) for k in (1, 2, 5, 20)]
    assert all(a <= b * (1 + 1e-9) + 1e-15 for a, b in zip(dels, dels[1:]))


@pytest.mark.parametrize("name, cls", ALL)
def test_contract_monotone_in_delta_and_epsilon(name, cls):
    acct = cls().compose(EVENT[name], count=10)
    eps = [acct.epsilon(d) for d in (1e-10, 1e-7, 1e-4, 1e-2)]
    assert all(a >= b - 1e-12 for a, b in zip(eps, eps[1:]))
    dels = [acct.delta(e) for e in (0.0, 0.5, 1.0, 2.0, 4.0)]
    assert all(a >= b - 1e-15 for a, b in zip(dels, dels[1:]))
    assert all(0.0 <= d <= 1.0 for d in dels)


@pytest.mark.parametrize("name, cls", ALL)
def test_contract_epsilon_delta_are_consistent(name, cls):
    # δ(ε(δ)) ≤ δ (up to the inner tolerances): the two queries describe the same guarantee
    acct = cls().compose(EVENT[name], count=10)
    for d in (1e-8, 1e-5, 1e-3):
        e = acct.epsilon(d)
        assert acct.delta(e) <= d * (1 + 1e-4)


@pytest.mark.parametrize("name, cls", ALL)
def test_contract_unsupported_event_names_it_and_leaves_ledger(name, cls):
    acct = cls().compose(EVENT[name])
    bad = UNSUPPORTED[name]
    assert not acct.supports(bad)
    with pytest.raises(ValueError, match=type(bad).__name__ if not isinstance(bad, str) else "not an event"):
        acct.compose(bad)
    assert acct.ledger == ((EVENT[name], 1),)
    assert acct.supports(EVENT[name])


@pytest.mark.parametrize("name, cls", ALL)
def test_contract_subsampling_follows_the_neighbouring_relation(name, cls):
    poisson = PoissonSampled(PureDP(1.0), 0.1)
    fixed = SampledWithoutReplacement(PureDP(1.0), 10, 100)
    with pytest.raises(ValueError, match="PoissonSampled"):
        cls(neighboring="replace_one").compose(poisson)
    with pytest.raises(ValueError, match="SampledWithoutReplacement"):
        cls(neighboring="add_remove").compose(fixed)
    assert cls(neighboring="add_remove").supports(poisson)
    assert cls(neighboring="replace_one").supports(fixed)


# every (accountant, mechanism) pair the accountant supports (the others raise: see the UNSUPPORTED tests)
SUPPORTED = [pytest.param(name, cls, mech, id=f"{type(mech).__name__}-{name}")
             for mech in MECHANISMS for name, cls in ALL if cls().supports(mech)]


@pytest.mark.slow
@pytest.mark.parametrize("name, cls, mech", SUPPORTED)
def test_contract_count_k_equals_k_calls(name, cls, mech):
    # catches an accountant that ignores `count` (dp-accounting's PLD accountant does so for randomized response)
    k = 7
    once = cls().compose(mech, count=k)
    many = cls()
    for _ in range(k):
        many.compose(mech)
    for d in (1e-7, 1e-4):
        assert once.epsilon(d) == pytest.approx(many.epsilon(d), rel=1e-9)
    assert once.epsilon(1e-5) > cls().compose(mech).epsilon(1e-5)


@pytest.mark.parametrize("name, cls", ALL)
def test_contract_bad_input(name, cls):
    acct = cls().compose(EVENT[name])
    for bad in (0.0, 1.0, -0.1, 1.5, float("nan")):
        with pytest.raises(ValueError, match="delta"):
            acct.epsilon(bad)
    for bad in (-1.0, float("inf"), float("nan")):
        with pytest.raises(ValueError, match="epsilon"):
            acct.delta(bad)
    for bad in (-1, 2.5, True):
        with pytest.raises(ValueError, match="count"):
            acct.compose(EVENT[name], count=bad)
    with pytest.raises(ValueError, match="neighboring"):
        cls(neighboring="swap")


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: PoissonSampled(Gaussian(1.0), 0.0), "rate"),
        (lambda: PoissonSampled(Gaussian(1.0), 1.5), "rate"),
        (lambda: PoissonSampled("gauss", 0.5), "mechanism"),
        (lambda: SampledWithoutReplacement(PureDP(1.0), 0, 10), "sample_size"),
        (lambda: SampledWithoutReplacement(PureDP(1.0), 11, 10), "sample_size"),
        (lambda: SampledWithoutReplacement(PureDP(1.0), 1, 0), "population"),
        (lambda: PureDP(-1.0), "epsilon"),
        (lambda: ApproxDP(1.0, 1.0), "delta"),
        (lambda: ZCDP(-0.1), "rho"),
        (lambda: group_privacy(1.0, 1e-6, 0), "k"),
        (lambda: group_privacy(1.0, 1.5, 2), "delta"),
        (lambda: group_privacy_mechanism(RandomizedResponse(1.0), 2), "mechanism"),
        (lambda: calibrate_sigma(1.0, 0.0), "delta"),
        (lambda: calibrate_sigma(-1.0, 1e-5), "target_epsilon"),
        (lambda: calibrate_sigma(1.0, 1e-5, count=-3), "count"),
        (lambda: calibrate_sigma(1.0, 1e-5, sampling_rate=0.0), "sampling_rate"),
        (lambda: calibrate_sigma(1.0, 1e-5, accountant="moments"), "accountant"),
        (lambda: calibrate_laplace_scale(1.0, sampling_rate=2.0), "sampling_rate"),
        (lambda: PLDAccountant(value_discretization_interval=0.0), "value_discretization_interval"),
        (lambda: RDPAccountant(orders=[0.5, 2.0]), "orders"),
        (lambda: ZCDPAccountant().compose(Gaussian(1.0)).epsilon(1e-5, method="x"), "method"),
        (lambda: RDPAccountant().compose(Gaussian(1.0)).epsilon(1e-5, method="x"), "method"),
    ],
)
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


# ---------------------------------------------------------------------------------------------- events


def test_amplification_formulas_theorem7():
    # Theorem 7 of 000: ε′ = ln(1 + η(e^ε − 1)), δ′ = ηδ, η = n/n′
    for eps, delta, n, npop in [(1.0, 1e-6, 10, 100), (0.01, 0.0, 1, 3), (5.0, 1e-3, 7, 7)]:
        eta = mp.mpf(n) / npop
        e2, d2 = amplify_without_replacement(eps, delta, n, npop)
        assert e2 == pytest.approx(float(mp.log(1 + eta * (mp.e**eps - 1))), rel=1e-14)
        assert d2 == pytest.approx(float(eta * delta), rel=1e-14, abs=0)
    e2, d2 = amplify_poisson(1e-8, 1e-6, 1e-3)  # stable for tiny ε and rate
    assert e2 == pytest.approx(float(mp.log(1 + mp.mpf("1e-3") * mp.expm1(mp.mpf("1e-8")))), rel=1e-12)


def test_sampled_without_replacement_in_basic_accountant():
    ev = SampledWithoutReplacement(ApproxDP(1.0, 1e-6), 10, 100)
    acct = BasicAccountant(neighboring="replace_one").compose(ev, count=3)
    assert acct.epsilon(1e-5) == pytest.approx(3 * math.log1p(0.1 * math.expm1(1.0)), rel=1e-14)
    assert acct.epsilon(2e-7) == math.inf  # 3 × 1e-7 > 2e-7: no finite ε


# ---------------------------------------------------------------------------------------------- basic/advanced/optimal


def test_basic_closed_forms():
    acct = BasicAccountant().compose(Laplace(2.0, sensitivity=1.0), count=5).compose(ApproxDP(0.25, 1e-7), 2)
    assert acct.epsilon(1e-6) == pytest.approx(5 * 0.5 + 0.5, rel=1e-15)
    assert acct.delta(3.0) == pytest.approx(2e-7, rel=1e-12)
    assert acct.delta(2.99) == 1.0
    # Gaussians share the remaining δ equally and use their exact ε(δ_i)
    g = Gaussian(4.0)
    acct = BasicAccountant().compose(g, count=4)
    assert acct.epsilon(1e-5) == pytest.approx(4 * g.epsilon(2.5e-6), rel=1e-12)


def test_advanced_closed_form_and_crossover():
    acct = AdvancedAccountant().compose(PureDP(0.01), count=10000)
    d = 1e-6
    expected = 0.01 * math.sqrt(2 * 10000 * math.log(1 / d)) + 10000 * 0.01 * math.expm1(0.01)
    assert acct.epsilon(d) == pytest.approx(expected, rel=1e-12)
    assert acct.epsilon(d) < BasicAccountant().compose(PureDP(0.01), count=10000).epsilon(d)
    # few compositions: advanced is worse than basic (reported as is)
    assert AdvancedAccountant().compose(PureDP(1.0), count=2).epsilon(d) > 2.0
    # with curve events the split is optimised: never worse than the equal split with δ′ = δ/2
    g = Gaussian(10.0)
    adv = AdvancedAccountant().compose(g, count=100).epsilon(1e-5)
    naive = drv_epsilon([g.epsilon(0.5e-5 / 100)], [100], 0.5e-5)
    assert adv <= naive + 1e-9



def _mp_drv(epsilons, counts, slack):
    """Dwork, Rothblum & Vadhan 2010, Thm III.3 in 30-digit mpmath:
    √(2 ln(1/δ′) Σ k_i ε_i²) + Σ k_i ε_i(e^{ε_i} − 1)."""
    e = [mp.mpf(x) for x in epsilons]
    sq = mp.fsum(k * x * x for k, x in zip(counts, e))
    return mp.sqrt(2 * mp.log(1 / mp.mpf(slack)) * sq) + mp.fsum(k * x * mp.expm1(x) for k, x in zip(counts, e))


@pytest.mark.parametrize("epsilons, counts, slack", [
    ([1e-200], [10], 1e-5),            # Σ k ε² = 1e-399 underflows to 0: returned 0.0 before issue 13
    ([1e-170, 3e-171], [4, 7], 1e-12),
    ([1e-300, 5e-324], [1, 1000], 1e-300),
    ([1e-160], [1], 0.5),              # ε² = 1e-320 is subnormal (3 digits)
    ([0.1, 1e-200], [100, 5], 1e-6),
    ([1e-5, 2e-3], [1000, 3], 1e-9),
])
def test_drv_epsilon_against_mpmath_also_at_tiny_epsilon(epsilons, counts, slack):
    want = _mp_drv(epsilons, counts, slack)
    got = drv_epsilon(epsilons, counts, slack)
    assert mp.almosteq(mp.mpf(got), want, rel_eps=1e-14, abs_eps=0), (got, float(want))
    assert drv_epsilon([0.0, 0.0], [3, 4], 1e-300) == 0.0


def test_advanced_accountant_at_tiny_epsilon_both_directions():
    # pure events: ε(δ) = drv_epsilon and its closed-form inverse δ(ε) = exp(−(ε − L)²/(2S)) (S = Σ k ε² underflowed
    # to 0 for ε < 1e-162, which reported ε(δ) = 0 and δ(ε) = 0 before issue 13)
    acct = AdvancedAccountant().compose(PureDP(1e-200), count=10)
    eps = acct.epsilon(1e-5)
    assert mp.almosteq(mp.mpf(eps), _mp_drv([1e-200], [10], 1e-5), rel_eps=1e-14, abs_eps=0)
    for e in (1e-199, 2e-199, 5e-199):
        want = mp.exp(-(mp.mpf(e) - 10 * mp.mpf(1e-200) * mp.expm1(mp.mpf(1e-200))) ** 2 / (20 * mp.mpf(1e-200) ** 2))
        assert mp.almosteq(mp.mpf(acct.delta(e)), want, rel_eps=1e-12, abs_eps=0), e
    # curve events (the split δ = δ′ + 10·δ_c is optimised): against the best of a fine grid of splits, each an
    # exact ε(δ_c) of the Gaussian in drv_epsilon (checked above); at μ = 1e-170 (ε² < 1e-330 underflows) the
    # accountant returned ~0 before issue 13
    from dpviz.mechanisms import gaussian_epsilon_many

    mu, delta = 1e-170, 1e-175
    got = AdvancedAccountant().compose(Gaussian(1.0 / mu), count=10).epsilon(delta)
    fracs = 1.0 / (1.0 + np.exp(-np.linspace(-12.0, 12.0, 4001)))  # δ′/δ
    ces = gaussian_epsilon_many(mu, delta * (1.0 - fracs) / 10)
    grid_best = min(drv_epsilon([c], [10], delta * f) for c, f in zip(ces.tolist(), fracs.tolist()))
    assert 1e-170 < got and grid_best * (1 - 1e-6) <= got <= grid_best * (1 + 1e-12), (got, grid_best)

def _brute_force_rr_delta(eps0, k, eps):
    """Enumerate all 2^k outputs of k randomized responses on neighbouring bits: exact hockey-stick divergence."""
    p = mp.e**eps0 / (1 + mp.e**eps0)
    total = mp.mpf(0)
    for out in itertools.product((0, 1), repeat=k):
        px = mp.fprod(p if o == 0 else 1 - p for o in out)
        py = mp.fprod(1 - p if o == 0 else p for o in out)
        total += max(px - mp.e**eps * py, 0)
    return total


@pytest.mark.slow
@pytest.mark.parametrize("eps0, k", [(0.5, 6), (1.0, 9), (0.1, 10)])
def test_optimal_is_exact_for_randomized_response(eps0, k):
    for eps in (0.0, 0.3 * eps0, eps0, 2.5 * eps0):
        exact = float(_brute_force_rr_delta(eps0, k, eps))
        assert kov_delta(eps0, 0.0, k, eps) == pytest.approx(exact, rel=1e-10, abs=1e-16)
        acct = OptimalAccountant().compose(RandomizedResponse(eps0), count=k)
        assert acct.delta(eps) == pytest.approx(exact, rel=1e-10, abs=1e-16)
    for d in (1e-4, 1e-2):
        e = kov_epsilon(eps0, 0.0, k, d)
        assert float(_brute_force_rr_delta(eps0, k, e)) == pytest.approx(d, rel=1e-8)


def test_optimal_with_delta0_and_heterogeneous_error():
    # 1 − (1 − δ₀)^k (1 − δ_RR): at ε = kε₀ the RR part vanishes
    assert kov_delta(0.2, 1e-6, 10, 2.0) == pytest.approx(-math.expm1(10 * math.log1p(-1e-6)), rel=1e-12)
    assert kov_epsilon(0.2, 1e-3, 10, 5e-3) == math.inf
    acct = OptimalAccountant().compose(PureDP(0.1), 5)
    with pytest.raises(ValueError, match="ONE mechanism"):
        acct.compose(PureDP(0.2))
    # the optimal bound is never above basic nor advanced
    for k in (1, 10, 300):
        o = OptimalAccountant().compose(PureDP(0.1), k).epsilon(1e-6)
        assert o <= BasicAccountant().compose(PureDP(0.1), k).epsilon(1e-6) + 1e-12
        assert o <= AdvancedAccountant().compose(PureDP(0.1), k).epsilon(1e-6) + 1e-12


def test_optimal_gaussian_between_pld_and_basic():
    g = Gaussian(5.0)
    o = OptimalAccountant().compose(g, 50).epsilon(1e-5)
    assert PLDAccountant().compose(g, 50).epsilon(1e-5) <= o <= BasicAccountant().compose(g, 50).epsilon(1e-5)


# ---------------------------------------------------------------------------------------------- zCDP


@pytest.mark.parametrize("make", [
    lambda: ZCDPAccountant(),  # empty ledger: δ = 0
    lambda: ZCDPAccountant().compose(Gaussian(2.0), 10),
    lambda: ZCDPAccountant().compose(Gaussian(0.05), 3).compose(Laplace(1.0)),
    lambda: ZCDPAccountant().compose(ZCDP(1e-9)),
    lambda: ZCDPAccountant().compose(Gaussian(1e-200)),  # ρ overflows to ∞: δ = 1
    lambda: RDPAccountant().compose(Gaussian(1.5), 20),  # the default: one delta() per ε
], ids=["empty", "gaussian", "mixed", "tiny-rho", "infinite-rho", "rdp"])
def test_profile_deltas_equal_one_delta_per_epsilon(make):
    """A privacy-profile curve asks for δ at a whole ε grid at once (Accountant._deltas); zCDP answers in one
    vectorised zcdp_delta call. Every value must be the one delta(ε) gives, exactly."""
    acct = make()
    grid = np.concatenate([[0.0, 1e-12], np.logspace(-3, 2.5, 30), [1e4]])
    assert acct._deltas(grid).tolist() == [acct.delta(float(e)) for e in grid]


def test_zcdp_closed_forms():
    acct = ZCDPAccountant().compose(Gaussian(2.0, sensitivity=3.0), 4).compose(Laplace(1.0), 2).compose(ZCDP(0.1))
    assert acct.rho == pytest.approx(4 * 9 / 8 + 2 * 0.5 + 0.1, rel=1e-15)
    rho = acct.rho
    assert acct.epsilon(1e-6, method="simple") == pytest.approx(rho + 2 * math.sqrt(rho * math.log(1e6)), rel=1e-14)
    assert acct.epsilon(1e-6) < acct.epsilon(1e-6, method="simple")
    # subsampled Gaussian is charged in full (no amplification in zCDP), subsampled pure uses the amplified ε
    assert ZCDPAccountant().compose(PoissonSampled(Gaussian(2.0), 0.01)).rho == pytest.approx(1 / 8, rel=1e-15)
    assert ZCDPAccountant().compose(PoissonSampled(PureDP(1.0), 0.1)).rho == pytest.approx(
        0.5 * math.log1p(0.1 * math.expm1(1.0)) ** 2, rel=1e-14
    )


# ---------------------------------------------------------------------------------------------- RDP


def _mp_renyi_discrete(p, q, alpha):
    return mp.log(mp.fsum(pi**alpha * qi ** (1 - alpha) for pi, qi in zip(p, q))) / (alpha - 1)


@pytest.mark.slow
@pytest.mark.parametrize("alpha", [1.1, 1.5, 2.0, 3.7, 10.0, 64.0])
def test_rdp_laplace_and_pure_and_dlap_against_mpmath(alpha):
    a = mp.mpf(alpha)
    # Laplace: numerical integral of p^α q^{1−α}, p = Lap(0, 1), q = Lap(ε, 1)
    for eps in (0.1, 1.0, 3.0):
        f = lambda z, eps=eps: mp.e ** (-a * abs(z) - (1 - a) * abs(z - eps)) / 2  # noqa: E731
        oracle = mp.log(mp.quad(f, [-mp.inf, 0, eps, mp.inf])) / (a - 1)
        assert rdp_laplace([alpha], eps)[0] == pytest.approx(float(oracle), rel=1e-10)
    # randomized response: two outputs
    for eps in (0.1, 1.0, 3.0):
        p = mp.e**eps / (1 + mp.e**eps)
        oracle = _mp_renyi_discrete([p, 1 - p], [1 - p, p], a)
        assert rdp_pure([alpha], eps)[0] == pytest.approx(float(oracle), rel=1e-10)
    # discrete Laplace with sensitivity 3: brute-force sum over the integers
    b, d = 1.3, 3
    ks = range(-80, 84)
    z = mp.fsum(mp.e ** (-abs(k) / mp.mpf(b)) for k in range(-200, 201))
    p = [mp.e ** (-abs(k) / mp.mpf(b)) / z for k in ks]
    q = [mp.e ** (-abs(k - d) / mp.mpf(b)) / z for k in ks]
    assert rdp_discrete_laplace([alpha], b, d)[0] == pytest.approx(float(_mp_renyi_discrete(p, q, a)), rel=1e-9)


def _mp_poisson_gaussian(alpha, q, sigma):
    a, q, s = mp.mpf(alpha), mp.mpf(q), mp.mpf(sigma)
    f = lambda z: mp.npdf(z, 0, s) * (1 - q + q * mp.e ** ((2 * z - 1) / (2 * s * s))) ** a  # noqa: E731
    peak = max(a, 1)
    return float(mp.log(mp.quad(f, [-mp.inf, -5 * s, 0, 1, peak, peak + 10 * s, mp.inf])) / (a - 1))


@pytest.mark.slow
@pytest.mark.parametrize("alpha", [1.25, 1.5, 2.0, 2.5, 3.3, 7.0, 10.9, 20.0])
@pytest.mark.parametrize("q, sigma", [(0.01, 1.1), (0.1, 0.8), (0.5, 2.0)])
def test_rdp_poisson_gaussian_against_mpmath_including_fractional_orders(alpha, q, sigma):
    got = rdp_poisson_gaussian([alpha], q, sigma)[0]
    assert got == pytest.approx(_mp_poisson_gaussian(alpha, q, sigma), rel=1e-9)


@pytest.mark.slow
@pytest.mark.parametrize("alpha", [1.1, 1.5, 2.5, 7.3])
@pytest.mark.parametrize("q, sigma", [(0.001, 0.6), (1e-4, 2.0)])
def test_rdp_poisson_gaussian_fractional_orders_keep_relative_precision_when_tiny(alpha, q, sigma):
    # DP-SGD regime: A_α = 1 + O(q²), so ε_α = ln(A_α)/(α − 1) is ~1e-5 … 1e-9. Summing A_α itself in floating point
    # loses it to the rounding of 1 + tiny (it was 5e-8 relative BELOW the true value at q = 0.001, σ = 0.6, α = 1.1);
    # A_α − 1 must be summed directly.
    got = rdp_poisson_gaussian([alpha], q, sigma)[0]
    assert got == pytest.approx(_mp_poisson_gaussian(alpha, q, sigma), rel=1e-10, abs=0)


def test_rdp_accountant_composition_and_methods():
    acct = RDPAccountant().compose(Gaussian(2.0), 3).compose(Laplace(1.0))
    orders = acct.orders
    assert np.allclose(acct.rdp(), 3 * orders / 8 + rdp_laplace(orders, 1.0), rtol=1e-14)
    assert acct.epsilon(1e-6) < acct.epsilon(1e-6, method="classic")
    assert acct.delta(3.0) <= acct.delta(3.0, method="classic")
    with pytest.raises(ValueError, match="read-only"):
        acct.orders[0] = 5.0
    # Gaussian only: RDP + improved conversion equals the CKS conversion of ρ (orders fine enough)
    fine = RDPAccountant(orders=np.linspace(1.01, 100, 20000)).compose(Gaussian(3.0), 10)
    assert fine.epsilon(1e-5) == pytest.approx(ZCDPAccountant().compose(Gaussian(3.0), 10).epsilon(1e-5), rel=1e-6)


# ---------------------------------------------------------------------------------------------- PLD


def test_pld_k_gaussians_equal_one_and_heterogeneous_closed_form():
    a = PLDAccountant().compose(Gaussian(3.0), count=9)
    b = PLDAccountant().compose(Gaussian(1.0))
    for d in (1e-9, 1e-5, 1e-2):
        assert a.epsilon(d) == pytest.approx(b.epsilon(d), rel=1e-12)
        lo, hi = a.epsilon_bounds(d)
        assert lo == hi == a.epsilon(d)
    # σ_eff = (Σ Δ²/σ²)^{−1/2}
    het = PLDAccountant().compose(Gaussian(2.0, 1.0), 2).compose(Gaussian(1.0, 0.5)).compose(Gaussian(4.0, 2.0))
    s_eff = (2 / 4 + 0.25 + 0.25) ** -0.5
    assert het.epsilon(1e-6) == pytest.approx(Gaussian(s_eff).epsilon(1e-6), rel=1e-12)
    assert het.delta(1.0) == pytest.approx(Gaussian(s_eff).delta(1.0), rel=1e-12)


def _exact_delta_finite(p, q, k, eps):
    """δ(ε) of the k-fold composition of the pair (p, q) of finite pmfs, by exact enumeration of loss classes
    (numpy convolution of the loss-indexed joint pmf would do; here a dict keyed by exact rational losses)."""
    states = {(): (mp.mpf(1), mp.mpf(1))}
    for _ in range(k):
        new = {}
        for key, (pp, qq) in states.items():
            for i in range(len(p)):
                nk = tuple(sorted(key + (i,)))
                a, b = new.get(nk, (mp.mpf(0), mp.mpf(0)))
                new[nk] = (a + pp * p[i], b + qq * q[i])
        # merge identical multisets: probability mass of the multiset is counted per ordering already
        states = new
    return float(mp.fsum(max(a - mp.e**eps * b, 0) for a, b in states.values()))


@pytest.mark.parametrize("k", [1, 3, 6])
def test_pld_bounds_sandwich_exact_randomized_response(k):
    eps0 = 0.73005  # not a multiple of the grid step h = 1e-4, so the bounds differ
    acct = PLDAccountant().compose(RandomizedResponse(eps0), count=k)
    p = mp.e**eps0 / (1 + mp.e**eps0)
    for eps in (0.0, 0.5, 1.0, 2.0):
        exact = _exact_delta_finite([p, 1 - p], [1 - p, p], k, eps)
        lo, hi = acct.delta_bounds(eps)
        assert lo <= exact * (1 + 1e-9) + 1e-15 and exact <= hi * (1 + 1e-9) + 1e-15
        assert hi - lo <= 2 * k * 1e-4  # first-order optimistic error, at most h per run in the loss
    for d in (1e-3, 1e-1):
        lo, hi = acct.epsilon_bounds(d)
        assert lo <= hi + 1e-12 and hi - lo <= k * 1e-4 + 1e-12


@pytest.mark.parametrize("k", [1, 2, 3])
def test_pld_bounds_sandwich_exact_discrete_laplace(k):
    b, d = 0.9, 2
    acct = PLDAccountant().compose(DiscreteLaplace(b, d), count=k)
    ks = range(-45, 48)
    z = mp.fsum(mp.e ** (-abs(j) / mp.mpf(b)) for j in range(-300, 301))
    p = [mp.e ** (-abs(j) / mp.mpf(b)) / z for j in ks]
    q = [mp.e ** (-abs(j - d) / mp.mpf(b)) / z for j in ks]
    # group outputs by loss class (k ≤ 0, 0 < k < d, k ≥ d) to keep the enumeration small; exact
    classes = {}
    for j, pj, qj in zip(ks, p, q):
        key = min(max(j, 0), d)
        a, c = classes.get(key, (0, 0))
        classes[key] = (a + pj, c + qj)
    pc = [v[0] for v in classes.values()]
    qc = [v[1] for v in classes.values()]
    for eps in (0.0, 1.0, 2.5):
        exact = _exact_delta_finite(pc, qc, k, eps)
        lo, hi = acct.delta_bounds(eps)
        assert lo <= exact * (1 + 1e-9) + 1e-15 and exact <= hi * (1 + 1e-9) + 1e-15


def _mp_subsampled_gaussian_delta(q, eps):
    """Exact δ(ε) of one Poisson-subsampled Gaussian (σ = 1, Δ = 1, add/remove) with mpmath: the hockey-stick
    integrands change sign at explicit points, where the integrals are normal tail probabilities."""
    q, e = mp.mpf(q), mp.e ** mp.mpf(eps)
    sf = lambda z, m: 1 - mp.ncdf(z - m)  # noqa: E731  P(N(m, 1) > z)
    # remove: ((1−q)N(0) + qN(1) − e^ε N(0))₊ > 0  ⇔  z > ½ + ln((e^ε − 1 + q)/q)
    z1 = mp.mpf(1) / 2 + mp.log((e - 1 + q) / q)
    d_remove = (1 - q) * sf(z1, 0) + q * sf(z1, 1) - e * sf(z1, 0)
    # add: (N(0) − e^ε((1−q)N(0) + qN(1)))₊ > 0  ⇔  z < ½ + ln((e^{−ε} − 1 + q)/q)  (if e^{−ε} > 1 − q)
    d_add = mp.mpf(0)
    if 1 / e > 1 - q:
        z2 = mp.mpf(1) / 2 + mp.log((1 / e - 1 + q) / q)
        d_add = mp.ncdf(z2) - e * ((1 - q) * mp.ncdf(z2) + q * mp.ncdf(z2 - 1))
    return float(max(d_remove, d_add))


def test_pld_subsampled_gaussian_single_run_sandwich_mpmath():
    q = 0.2
    acct = PLDAccountant().compose(PoissonSampled(Gaussian(1.0), q))
    for eps in (0.0, 0.1, 0.5, 1.0, 2.0):
        exact = _mp_subsampled_gaussian_delta(q, eps)
        lo, hi = acct.delta_bounds(eps)
        assert lo <= exact * (1 + 1e-12) and exact <= hi * (1 + 1e-12)
        assert hi == pytest.approx(exact, rel=1e-5)  # connect-the-dots: second-order accurate


@pytest.mark.parametrize("k", [1, 3])
def test_pld_poisson_sampled_approx_dp_keeps_the_amplified_delta(k):
    # Regression: in the add direction, the pair (Q, (1−q)Q + qP) has its largest loss −ln(1−q) at Q's δ₀-atom
    # (the outcome P never produces). A loss range that missed that atom sent δ₀ — not qδ₀ — to +∞ on the
    # pessimistic side, so ε(δ) was ∞ for every δ < kδ₀ and PLD was looser than basic composition.
    eps0, d0, q = mp.mpf(1), mp.mpf("1e-6"), mp.mpf("0.1")
    e = mp.e**eps0
    p = [d0, (1 - d0) * e / (1 + e), (1 - d0) / (1 + e), mp.mpf(0)]  # canonical (ε₀, δ₀) pair (KOV 2015)
    qq = [mp.mpf(0), (1 - d0) / (1 + e), (1 - d0) * e / (1 + e), d0]
    mix = [(1 - q) * b + q * a for a, b in zip(p, qq)]
    ev = PoissonSampled(ApproxDP(1.0, 1e-6), 0.1)
    acct = PLDAccountant().compose(ev, count=k)
    eps_top = k * math.log1p(0.1 * math.expm1(1.0))  # the largest finite loss (BBG18 Theorem 8, k runs)
    for eps in (0.0, 0.05, 0.2, eps_top + 1e-3):
        exact = max(_exact_delta_finite(mix, qq, k, eps), _exact_delta_finite(qq, mix, k, eps))  # remove, add
        lo, hi = acct.delta_bounds(eps)
        assert lo <= exact * (1 + 1e-9) + 1e-15 and exact <= hi * (1 + 1e-9) + 1e-15
    # above every finite loss only the +∞ atoms remain: δ = 1 − (1 − qδ₀)^k exactly, not 1 − (1 − δ₀)^k
    assert acct.delta(eps_top + 1e-3) == pytest.approx(-math.expm1(k * math.log1p(-1e-7)), rel=1e-9)
    # finite below δ₀, and no looser than basic composition up to the grid step h = 1e-4 per run
    basic = BasicAccountant().compose(ev, count=k).epsilon(2 * k * 1e-7)
    lo, hi = acct.epsilon_bounds(2 * k * 1e-7)
    assert lo <= basic and hi <= basic + k * 1e-4


def test_pld_heterogeneous_and_approxdp():
    acct = PLDAccountant().compose(Gaussian(2.0), 3).compose(Laplace(1.5), 2).compose(ApproxDP(0.1, 1e-7))
    lo, hi = acct.epsilon_bounds(1e-5)
    assert 0 < lo <= hi
    # never worse than the basic composition of the parts, never better than the pure-Gaussian part alone
    basic = BasicAccountant().compose(Gaussian(2.0), 3).compose(Laplace(1.5), 2).compose(ApproxDP(0.1, 1e-7))
    assert hi <= basic.epsilon(1e-5)
    assert lo >= PLDAccountant().compose(Gaussian(2.0), 3).epsilon(1e-5) - 1e-9
    # an (ε, δ) event whose δ alone exceeds the target: no finite ε
    assert PLDAccountant().compose(ApproxDP(0.1, 1e-3)).epsilon(1e-4) == math.inf


def test_pld_tighter_than_rdp_for_subsampled_gaussian():
    ev = PoissonSampled(Gaussian(1.1), 0.01)
    pld = PLDAccountant(value_discretization_interval=1e-3).compose(ev, 1000).epsilon(1e-5)
    rdp = RDPAccountant().compose(ev, 1000).epsilon(1e-5)
    assert pld < rdp


# ---------------------------------------------------------------------------------------------- group privacy


@pytest.mark.parametrize("eps, delta, k", [(1.0, 1e-6, 3), (0.1, 1e-8, 10), (2.0, 1e-5, 1), (1e-9, 1e-6, 4)])
def test_group_privacy_lemma6(eps, delta, k):
    ek, dk = group_privacy(eps, delta, k)
    assert ek == pytest.approx(k * eps, rel=1e-15)
    oracle = mp.mpf(delta) * mp.fsum(mp.e ** (j * mp.mpf(eps)) for j in range(k))  # geometric sum, not k
    assert dk == pytest.approx(float(oracle), rel=1e-12)
    assert dk <= k * math.exp(k * eps) * delta * (1 + 1e-12)


def test_group_privacy_mechanism_is_exact_and_beats_generic():
    g = Gaussian(3.0)
    gk = group_privacy_mechanism(g, 4)
    assert gk == Gaussian(3.0, sensitivity=4.0)
    assert gk.epsilon(1e-5) == pytest.approx(Gaussian(0.75).epsilon(1e-5), rel=1e-12)
    e1 = g.epsilon(1e-6)
    ek, dk = group_privacy(e1, 1e-6, 4)
    assert gk.delta(ek) <= dk  # the generic bound is valid, and looser
    assert group_privacy_mechanism(Laplace(2.0), 3) == Laplace(2.0, sensitivity=3.0)
    assert group_privacy_mechanism(DiscreteLaplace(2.0, 1), 3).sensitivity == 3
    assert group_privacy_mechanism(PureDP(0.5), 3) == PureDP(1.5)
    assert group_privacy_mechanism(ZCDP(0.5), 3) == ZCDP(4.5)


# ---------------------------------------------------------------------------------------------- calibration


@pytest.mark.slow
@pytest.mark.parametrize("accountant", ["pld", "rdp", "zcdp", "basic", "advanced", "optimal"])
def test_calibrate_sigma_never_overshoots(accountant):
    cls = ACCOUNTANTS[accountant]
    for target in (0.3, 1.0, 3.0, 8.0):
        s = calibrate_sigma(target, 1e-5, count=10, accountant=accountant)
        assert cls().compose(Gaussian(s), 10).epsilon(1e-5) <= target
        # and it is the smallest, to the stated relative tolerance
        assert cls().compose(Gaussian(s / (1 + 2e-4)), 10).epsilon(1e-5) > target


def test_calibrate_sigma_with_sampling_and_closed_form():
    s = calibrate_sigma(1.0, 1e-5, count=1)
    assert Gaussian(s).epsilon(1e-5) <= 1.0 < Gaussian(s * (1 - 2e-4)).epsilon(1e-5)
    s = calibrate_sigma(2.0, 1e-5, count=100, sampling_rate=0.05, accountant="rdp")
    acct = lambda sig: RDPAccountant().compose(PoissonSampled(Gaussian(sig), 0.05), 100)  # noqa: E731
    assert acct(s).epsilon(1e-5) <= 2.0 < acct(s / (1 + 2e-4)).epsilon(1e-5)


@pytest.mark.slow
def test_calibrate_laplace_scale():
    assert calibrate_laplace_scale(2.0, count=4) == pytest.approx(2.0, rel=1e-15)
    b = calibrate_laplace_scale(1.0, count=10, sampling_rate=0.1)
    assert 10 * math.log1p(0.1 * math.expm1(1.0 / b)) == pytest.approx(1.0, rel=1e-12)
    for target in (0.5, 2.0, 5.0):
        b = calibrate_laplace_scale(target, delta=1e-6, count=20, accountant="pld")
        assert PLDAccountant().compose(Laplace(b), 20).epsilon(1e-6) <= target
        assert PLDAccountant().compose(Laplace(b / (1 + 2e-4)), 20).epsilon(1e-6) > target


# ---------------------------------------------------------------------------------------------- properties

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=30, deadline=None)
@given(
    eps0=st.floats(0.01, 2.0),
    k=st.integers(1, 40),
    log_delta=st.floats(-10.0, -1.5),
)
def test_property_pure_dp_accountants_agree_and_order(eps0, k, log_delta):
    # PureDP's worst case is randomized response, so the KOV optimum (closed form) and the PLD of k RR's
    # (FFT on a grid) describe the same distribution: PLD optimistic ≤ KOV ≤ PLD pessimistic; and the
    # classic bounds are never below the optimum.
    delta = 10.0**log_delta
    ev = PureDP(eps0)
    kov = OptimalAccountant().compose(ev, k).epsilon(delta)
    lo, hi = PLDAccountant().compose(ev, k).epsilon_bounds(delta)
    assert lo - 1e-9 <= kov <= hi + 1e-9
    assert kov <= BasicAccountant().compose(ev, k).epsilon(delta) + 1e-12
    assert kov <= AdvancedAccountant().compose(ev, k).epsilon(delta) + 1e-9
    assert kov <= RDPAccountant().compose(ev, k).epsilon(delta) + 1e-9
    assert kov <= ZCDPAccountant().compose(ev, k).epsilon(delta) + 1e-9


# ---------------------------------------------------------------------------------------------- δ(ε) for every event
# Issue 12, finding 4: δ(ε) crashed on 131 of 188 random configurations (curve-type events: Gaussian, subsampled
# Gaussian, discrete Gaussian, ZCDP) in the basic, advanced and optimal accountants. Every (event type, accountant)
# pair is exercised below with warnings raised as errors; the only exception allowed is the documented ValueError of
# compose() for an unsupported pair.

import warnings  # noqa: E402

from dpviz._inverse import TINY_DELTA, TOP_DELTA  # noqa: E402


def _mp_gauss_delta(mu, eps):
    """Balle & Wang 2018, Theorem 8, at 50 digits: δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ)."""
    mu, eps = mp.mpf(mu), mp.mpf(eps)
    return mp.ncdf(mu / 2 - eps / mu) - mp.e**eps * mp.ncdf(-mu / 2 - eps / mu)


def test_regression_basic_gaussian_delta_is_the_exact_inverse():
    # was ZeroDivisionError. Basic composition of k equal curves gives each run ε/k, so δ(ε) = k·δ_G(ε/k), exactly
    # (μ = 1/2 for σ = 2): the oracle is the Balle–Wang closed form at 50 digits.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        d = BasicAccountant().compose(Gaussian(2.0), count=2).delta(1.0)
    expected = float(2 * _mp_gauss_delta(0.5, 0.5))
    assert d == pytest.approx(expected, rel=1e-12)
    assert d >= expected * (1 - 4e-16)


def test_regression_optimal_gaussian_delta_matches_a_brute_force_kov_oracle():
    # was "ValueError: math domain error". The KOV bound minimised over δ₀ by brute force on a fine grid, written
    # independently (scipy's Gaussian profile and the k = 2 binomial sum by hand): δ = min over δ₀ of
    # 1 − (1 − δ₀)²(1 − δ_RR), δ_RR = Σ_l C(2,l)[e^{(2−l)ε₀} − e^{ε+lε₀}]₊/(1 + e^{ε₀})².
    from scipy import optimize, special

    def gauss_eps(d0, mu=1.0):
        f = lambda e: special.ndtr(mu / 2 - e / mu) - math.exp(e) * special.ndtr(-mu / 2 - e / mu) - d0  # noqa
        return optimize.brentq(f, 0.0, 60.0, xtol=1e-14)

    def kov2(e0, d0, eps):
        d_rr = sum(math.comb(2, l) * max(math.exp((2 - l) * e0) - math.exp(eps + l * e0), 0.0)
                   for l in range(3)) / (1 + math.exp(e0)) ** 2
        return 1 - (1 - d0) ** 2 * (1 - d_rr)

    eps = 4.0
    grid = np.logspace(-12, math.log10(0.38), 801)  # δ_G(0) = 2Φ(1/2) − 1 = 0.383: ε₀ > 0 below it
    vals = [kov2(gauss_eps(d0), d0, eps) for d0 in grid]
    i = int(np.argmin(vals))
    fine = np.geomspace(grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)], 801)
    # the objective has a kink where δ_RR reaches 0 (2ε₀ = ε): evaluate there too, with ε₀ = ε/2 exactly
    kink = float(1 - (1 - _mp_gauss_delta(1.0, eps / 2)) ** 2)
    oracle = min(min(vals), min(kov2(gauss_eps(d0), d0, eps) for d0 in fine), kink)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        acct = OptimalAccountant().compose(Gaussian(1.0), count=2)
        d = acct.delta(eps)
    # the accountant's own ε(δ) minimises over δ₀ numerically (and δ(ε) inverts it to 1e-6): slightly above at most
    assert oracle * (1 - 1e-6) <= d <= oracle * (1 + 1e-5)
    assert acct.epsilon(d) <= eps
    exact = float(_mp_gauss_delta(math.sqrt(2.0), eps))  # two Gaussians σ = 1 are one with μ = √2 (never below)
    assert d >= exact


@pytest.mark.slow
def test_regression_advanced_zcdp_delta_matches_an_independent_split_search():
    # was "ValueError: delta = 0.0 is not allowed". One ZCDP(0.5) run under advanced composition: δ = δ_c + δ′ with
    # ε = √(2 ln(1/δ′))·ε_c + ε_c(e^{ε_c} − 1), ε_c the CKS ε of ZCDP(0.5) at δ_c; the oracle minimises δ_c + δ′
    # over δ_c, with its own CKS minimisation over α (scipy), independent of dpviz.
    from scipy import optimize

    rho, eps = 0.5, 5.0

    def cks_eps(d):
        f = lambda t: ((1 + math.exp(t)) * rho + (math.log(1 / d) - math.log1p(math.exp(t))) / math.exp(t)  # noqa
                       + math.log1p(-1 / (1 + math.exp(t))))
        return optimize.minimize_scalar(f, bounds=(-20, 20), method="bounded", options={"xatol": 1e-12}).fun

    def total(log_dc):
        dc = math.exp(log_dc)
        ec = cks_eps(dc)
        lin = ec * math.expm1(ec)
        if lin >= eps:
            return 1.0
        return dc + math.exp(-((eps - lin) ** 2) / (2 * ec * ec))

    res = optimize.minimize_scalar(total, bounds=(-40, -0.01), method="bounded", options={"xatol": 1e-10})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        acct = AdvancedAccountant().compose(ZCDP(rho))
        d = acct.delta(eps)
    assert d == pytest.approx(res.fun, rel=1e-4)
    assert acct.epsilon(d) <= eps


def test_regression_optimal_single_gaussian_delta_is_the_gaussian_delta():
    # emitted a RuntimeWarning in pld.py. With k = 1 the KOV bound at δ₀ = δ_G(ε) gives exactly δ_G(ε) and no δ₀
    # does better (the Gaussian's profile is exact), so δ_opt(ε) = δ_G(ε): Balle–Wang at 50 digits.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        d = OptimalAccountant().compose(Gaussian(1.0)).delta(4.0)
    expected = float(_mp_gauss_delta(1.0, 4.0))
    assert expected <= d <= expected * (1 + 1e-5)


def _strategies():
    """Every event type, with parameters that keep every accountant fast (a few seconds per example at most)."""
    pos = lambda lo, hi: st.floats(lo, hi, allow_nan=False)  # noqa: E731
    log_u = lambda lo, hi: st.floats(math.log(lo), math.log(hi)).map(math.exp)  # noqa: E731
    rate = log_u(1e-3, 1.0)
    return {
        "Gaussian": st.builds(Gaussian, log_u(0.3, 30.0), st.sampled_from([1.0, 2.0])),
        "Laplace": st.builds(Laplace, log_u(0.2, 30.0), st.sampled_from([1.0, 2.0])),
        "RandomizedResponse": st.builds(RandomizedResponse, pos(1e-3, 5.0)),
        "DiscreteLaplace": st.builds(DiscreteLaplace, log_u(0.3, 10.0), st.integers(1, 3)),
        "DiscreteGaussian": st.builds(DiscreteGaussian, log_u(0.7, 6.0), st.integers(1, 2)),
        "TruncatedDiscreteLaplace": st.builds(lambda e, d: __import__("dpviz.mechanisms").mechanisms
                                              .TruncatedDiscreteLaplace(e, d), pos(0.2, 3.0), log_u(1e-9, 1e-3)),
        "PureDP": st.builds(PureDP, pos(0.0, 5.0)),
        "ApproxDP": st.builds(ApproxDP, pos(0.0, 5.0), st.one_of(st.just(0.0), log_u(1e-12, 1e-2))),
        "ZCDP": st.builds(ZCDP, st.one_of(st.just(0.0), log_u(1e-4, 5.0))),
        "PoissonSampled(Gaussian)": st.builds(PoissonSampled, st.builds(Gaussian, log_u(0.5, 10.0)), rate),
        "PoissonSampled(pure)": st.builds(PoissonSampled, st.one_of(st.builds(PureDP, pos(0.0, 3.0)),
                                                                    st.builds(Laplace, log_u(0.3, 10.0)),
                                                                    st.builds(RandomizedResponse, pos(1e-3, 3.0))),
                                          rate),
        "PoissonSampled(other)": st.builds(PoissonSampled, st.one_of(st.builds(ZCDP, log_u(1e-3, 2.0)),
                                                                     st.builds(ApproxDP, pos(0.0, 2.0),
                                                                               log_u(1e-9, 1e-3)),
                                                                     st.builds(DiscreteGaussian, log_u(1.0, 4.0))),
                                           rate),
        "SampledWithoutReplacement": st.builds(
            lambda ev, n, extra: SampledWithoutReplacement(ev, n, n + extra),
            st.one_of(st.builds(PureDP, pos(0.0, 3.0)), st.builds(ApproxDP, pos(0.0, 2.0), log_u(1e-9, 1e-3)),
                      st.builds(Gaussian, log_u(0.5, 10.0)), st.builds(ZCDP, log_u(1e-3, 2.0))),
            st.integers(1, 100), st.integers(0, 1000)),
    }


_EVENT_STRATEGIES = _strategies()


def _loose_eps(acct, d):
    """A lower bound of the ε the accountant certifies at δ = d (its ε for every accountant but PLD, whose query
    may be refined on another grid than the δ query: its optimistic bound, below the exact ε(d)); and d nudged up
    by a few ulps (a δ is a rounded number: near 1 one ulp of δ moves ε)."""
    d_up = min(TOP_DELTA, d * (1 + 1e-12) + 4 * math.ulp(d))
    return acct.epsilon_bounds(d_up)[0] if isinstance(acct, PLDAccountant) else acct.epsilon(d_up)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(ACCOUNTANTS))
@pytest.mark.parametrize("kind", list(_EVENT_STRATEGIES))
@settings(max_examples=6, deadline=None)
@given(data=st.data())
def test_property_delta_and_epsilon_for_every_event_and_accountant(kind, name, data):
    ev = data.draw(_EVENT_STRATEGIES[kind], label="event")
    rel = data.draw(st.sampled_from(["add_remove", "replace_one"]), label="neighboring")
    k = data.draw(st.integers(1, 30), label="count")
    eps = data.draw(st.one_of(st.just(0.0), st.floats(1e-4, 60.0)), label="epsilon")
    delta = data.draw(st.floats(-30.0, -0.01).map(lambda x: 10.0**x), label="delta")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        acct = ACCOUNTANTS[name](neighboring=rel)
        if not acct.supports(ev):
            with pytest.raises(ValueError, match="does not support"):
                acct.compose(ev, count=k)
            return
        acct.compose(ev, count=k)
        d = acct.delta(eps)
        assert 0.0 <= d <= 1.0  # (NaN fails this too)
        # consistency: the δ returned is certified at ε — ε(δ(ε)) ≤ ε (never an ε below the truth)
        if 0.0 < d < 1.0:
            assert _loose_eps(acct, d) <= eps * (1 + 1e-9) + 1e-12
        # minimality: a visibly smaller δ is not certified at ε (the search stops within 1e-6 relative)
        if 1e-300 < d < 1.0 and not isinstance(acct, PLDAccountant):
            assert acct.epsilon(d * (1 - 1e-4)) > eps or d * (1 - 1e-4) < TINY_DELTA
        # monotone: a larger ε never needs a larger δ
        d2 = acct.delta(eps + 0.5)
        assert d2 <= d * (1 + 1e-6) + 1e-300
        # ε(δ): a number ≥ 0 (∞ allowed), and δ(ε(δ)) ≤ δ up to the search tolerance
        e = acct.epsilon(delta)
        assert e >= 0.0
        if math.isfinite(e):
            d_back = acct.delta_bounds(e)[0] if isinstance(acct, PLDAccountant) else acct.delta(e)
            assert d_back <= delta * (1 + 2e-6) + 1e-300

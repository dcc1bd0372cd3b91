"""Which events are pure, and their ε: one answer for every accountant (issue 13, one home per formula).

The expected values below are worked out by hand from the definitions: PureDP(ε) and ApproxDP(ε, 0) are ε-DP;
Laplace with scale b and discrete Laplace with scale s (Δ = 1) are (1/b)- and (1/s)-DP; randomized response RR(ε) is
ε-DP; ApproxDP(ε, δ > 0) and TDLap(ε, δ) only have the pair (ε, δ); Gaussian-type events and ZCDP have no fixed pair.
Each accountant is then checked against this one table, so two accountants that disagreed about an event (one taking
it as pure, the other refusing it or using another ε) cannot both pass.
"""

import math

import numpy as np
import pytest

from dpviz import mechanisms as M
from dpviz.accountants import (
    ZCDP,
    ApproxDP,
    BasicAccountant,
    PLDAccountant,
    PureDP,
    RDPAccountant,
    SampledWithoutReplacement,
    ZCDPAccountant,
)
from dpviz.accountants.profiles import event_fixed_pair, event_pure_epsilon

EPS = 0.5
DELTA = 1e-6
ETA = 0.1  # 10 of 100 records, without replacement (substitution neighbours)

# name -> (event, its fixed pair worked out by hand, or None)
TABLE = {
    "PureDP": (PureDP(EPS), (EPS, 0.0)),
    "ApproxDP with δ = 0": (ApproxDP(EPS, 0.0), (EPS, 0.0)),
    "Laplace b = 2": (M.Laplace(2.0), (EPS, 0.0)),
    "discrete Laplace s = 2": (M.DiscreteLaplace(2.0), (EPS, 0.0)),
    "randomized response": (M.RandomizedResponse(EPS), (EPS, 0.0)),
    "ApproxDP": (ApproxDP(EPS, DELTA), (EPS, DELTA)),
    "TDLap": (M.TruncatedDiscreteLaplace(EPS, DELTA), (EPS, DELTA)),
    "Gaussian": (M.Gaussian(2.0), None),
    "discrete Gaussian": (M.DiscreteGaussian(2.0), None),
    "ZCDP": (ZCDP(0.1), None),
}
PURE = [k for k, (_, pair) in TABLE.items() if pair is not None and pair[1] == 0.0]
PAIR_ONLY = [k for k, (_, pair) in TABLE.items() if pair is not None and pair[1] > 0.0]


def _amplified(eps):  # ln(1 + η(e^ε − 1)) (Balle, Barthe & Gaboardi 2018, Thm 9), written out here
    return math.log(1.0 + ETA * (math.exp(eps) - 1.0))


def _rr_renyi2(eps):  # D_2 of randomized response: ln((e^{2ε} + e^{−ε})/(1 + e^ε)) (Mironov 2017, Prop 5)
    return math.log((math.exp(2 * eps) + math.exp(-eps)) / (1.0 + math.exp(eps)))


def _sampled(event):
    return SampledWithoutReplacement(event, 10, 100)


@pytest.mark.parametrize("name", list(TABLE))
def test_the_one_helper_matches_the_table(name):
    event, pair = TABLE[name]
    got = event_fixed_pair(event)
    assert got == (None if pair is None else pytest.approx(pair, rel=1e-15))
    pure = pair[0] if pair is not None and pair[1] == 0.0 else None
    assert event_pure_epsilon(event) == (None if pure is None else pytest.approx(pure, rel=1e-15))


@pytest.mark.parametrize("name", PURE)
def test_every_accountant_takes_a_pure_event_as_pure_with_the_same_eps(name):
    event, (eps, _) = TABLE[name]
    # zCDP: ρ = ε²/2 (Bun & Steinke 2016, Prop 1.4), and ε′²/2 for the subsampled run
    assert ZCDPAccountant().compose(event).rho == pytest.approx(eps * eps / 2, rel=1e-12)
    z = ZCDPAccountant("replace_one").compose(_sampled(event))
    assert z.rho == pytest.approx(_amplified(eps) ** 2 / 2, rel=1e-12)
    # RDP: the subsampled pure event enters as randomized response at ε′ (the worst case of an ε′-DP mechanism)
    r = RDPAccountant("replace_one", orders=[2.0]).compose(_sampled(event))
    assert r.rdp()[0] == pytest.approx(_rr_renyi2(_amplified(eps)), rel=1e-12)
    if not isinstance(event, (M.Laplace, M.DiscreteLaplace)):  # those two have their own, tighter, exact curves
        assert RDPAccountant(orders=[2.0]).compose(event).rdp()[0] == pytest.approx(_rr_renyi2(eps), rel=1e-12)
    # PLD: one subsampled run is RR(ε′): δ(0) = (e^ε′ − 1)/(e^ε′ + 1), δ(ε′) = 0
    p = PLDAccountant("replace_one").compose(_sampled(event))
    e1 = _amplified(eps)
    assert p.delta(0.0) == pytest.approx(math.expm1(e1) / (math.exp(e1) + 1.0), rel=1e-9)
    assert p.delta(e1 * (1 + 1e-9)) == 0.0
    # the (ε, δ) theorems: (ε, 0) exactly
    b = BasicAccountant().compose(event)
    assert b.delta(eps) == 0.0 and b.epsilon(1e-9) == pytest.approx(eps, rel=1e-15)


@pytest.mark.parametrize("name", PAIR_ONLY)
def test_no_accountant_takes_a_pair_with_positive_delta_as_pure(name):
    event, (eps, delta) = TABLE[name]
    for acct in (RDPAccountant(), ZCDPAccountant()):
        assert not acct.supports(event)
    for acct in (RDPAccountant("replace_one"), ZCDPAccountant("replace_one")):
        assert not acct.supports(_sampled(event))
    # PLD: the pair's worst case keeps its amplified δ′ = ηδ beyond ε′
    p = PLDAccountant("replace_one").compose(_sampled(event))
    assert p.delta(_amplified(eps) * (1 + 1e-9)) == pytest.approx(ETA * delta, rel=1e-6)
    b = BasicAccountant().compose(event)
    assert b.delta(eps) == pytest.approx(delta, rel=1e-15) and b.epsilon(delta / 2) == math.inf


def test_the_accountants_agree_on_which_subsampled_events_are_pure():
    # the set each accountant treats as "a pure event, amplified" — all equal, and equal to the table's
    def pure_by_rdp(ev):
        acct = RDPAccountant("replace_one", orders=[2.0])
        return acct.supports(_sampled(ev))

    def pure_by_zcdp(ev):
        acct = ZCDPAccountant("replace_one")
        return acct.supports(_sampled(ev)) and not isinstance(ev, (M.Gaussian, M.DiscreteGaussian, ZCDP))

    def pure_by_pld(ev):
        acct = PLDAccountant("replace_one")
        if not acct.supports(_sampled(ev)):
            return False
        pair = event_fixed_pair(ev)
        return acct.compose(_sampled(ev)).delta(_amplified(pair[0]) * (1 + 1e-9)) == 0.0

    for judge in (pure_by_rdp, pure_by_zcdp, pure_by_pld):
        assert sorted(k for k, (ev, _) in TABLE.items() if judge(ev)) == sorted(PURE), judge.__name__
    assert np.isfinite([event_pure_epsilon(TABLE[k][0]) for k in PURE]).all()

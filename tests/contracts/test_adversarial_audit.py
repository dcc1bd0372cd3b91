"""Adversarial-input sweep of :mod:`dpviz.audit` (the shared contract of ``tests/_adversarial.py``).

Every public callable of ``dpviz.audit.__all__`` gets one valid baseline call; the sweep replaces each positional
argument in turn by 16 hostile values (warnings are errors); only a ValueError/TypeError with a message, or a
NaN-free result, passes. Keyword-only arguments that matter (trials, delta, confidence, clip_norm) are swept
through small named wrappers that take them positionally; the records' constructors and the methods of a case and
of a game are swept too. The sampler is the caller's code: what it raises on a hostile dataset must come back as a
ValueError naming the dataset.
"""

from __future__ import annotations

import numpy as np
from _adversarial import contract_tests

import dpviz.audit as A


def _named(fn, name):
    fn.__name__ = name
    return fn


def _laplace(d, size, rng):
    return d + rng.laplace(0.0, 1.0, size)


RESULT = A.audit_case("laplace_ok", trials=200, rng=0)
CASE = A.AUDIT_CASES["dpsgd_ok"]
GAME = A.NeighbourGame(1.0, 1.0, rng=0)

mechanism_positional = _named(lambda f, x, xp, trials, delta, conf: A.audit_mechanism(
    f, x, xp, trials=trials, delta=delta, confidence=conf, rng=0), "audit_mechanism_positional")
case_positional = _named(lambda key, trials, conf: A.audit_case(key, trials=trials, confidence=conf, rng=0),
                         "audit_case_positional")
bound_positional = _named(lambda tp, fp, pos, neg, delta, conf: A.epsilon_lower_bound(
    tp, fp, pos, neg, delta=delta, confidence=conf), "epsilon_lower_bound_positional")
game_positional = _named(lambda g, z, c, delta, conf: A.NeighbourGame(g, z, 0, clip_norm=c, delta=delta,
                                                                      confidence=conf).bound(),
                         "NeighbourGame_positional")

BASELINES = {
    "AuditResult": ((RESULT.epsilon_lower, RESULT.true_positives, RESULT.false_positives, RESULT.positives,
                     RESULT.negatives, RESULT.delta, RESULT.confidence, RESULT.threshold, RESULT.direction,
                     RESULT.discrete, RESULT.calibration_bound), {}),
    "AuditCase": ((CASE.key, CASE.label, CASE.sampler, CASE.x, CASE.x_prime, CASE.claimed_epsilon,
                   CASE.claimed_delta, CASE.bug, CASE.exact_epsilon, CASE.source), {}),
    "audit_case": (("rr_ok",), {"trials": 200, "rng": 0}),
    "audit_case_curve": (("laplace_ok", 400, 0.9), {}),
    "audit_mechanism": ((_laplace, 0.0, 1.0), {"trials": 200, "rng": 0}),
    "clopper_pearson_upper": ((3, 10, 0.05), {}),
    "epsilon_from_rates": ((0.1, 0.2, 1e-5), {}),
    "epsilon_lower_bound": ((90, 10, 100, 100), {}),
    "gaussian_witness_alpha": ((1 / 2.4, 1e-5), {}),
    "NeighbourGame": ((3.0, 1.0, 0), {}),
}

METHODS = {
    "audit_mechanism (keywords positional)": (mechanism_positional, (_laplace, 0.0, 1.0, 200, 1e-5, 0.95), {}),
    "audit_case (keywords positional)": (case_positional, ("svt_ok", 200, 0.95), {}),
    "epsilon_lower_bound (keywords positional)": (bound_positional, (90, 10, 100, 100, 1e-5, 0.95), {}),
    "NeighbourGame (keywords positional)": (game_positional, (3.0, 1.0, 1.0, 1e-5, 0.95), {}),
    "AuditCase.sample": (CASE.sample, (50, 0), {}),
    "NeighbourGame.play": (GAME.play, (True,), {}),
    "NeighbourGame.bound": (GAME.bound, (), {}),
}

globals().update(contract_tests(A, BASELINES, methods=METHODS))


def test_audit_arrays_of_counts_broadcast():
    np.testing.assert_array_equal(A.clopper_pearson_upper([10, 10], [10, 10], 0.05), [1.0, 1.0])

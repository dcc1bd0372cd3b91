"""Speed targets of issue 17, lesson 10 (dpviz.audit, dpviz.dpsgd): `CASES = [(name, zero-arg callable, target s)]`.

The issue's targets: a default audit (10 000 trials) and a default DP-SGD run (200 steps on 1000 examples, with the
ε of both accountants) each within 2 s.
"""

from dpviz.audit import AUDIT_CASES, audit_case
from dpviz.dpsgd import dpsgd_epsilon, lesson_batch_size, make_dataset, train_dpsgd

_X, _Y = make_dataset(1000, rng=7)
_TEST = make_dataset(1000, rng=8)


def _audit_all():
    for key in AUDIT_CASES:
        audit_case(key, trials=10_000, rng=0)


def _audit_one():
    audit_case("dpsgd_ok", trials=10_000, rng=0)


def _train():
    train_dpsgd(_X, _Y, expected_batch_size=lesson_batch_size(0.05), noise_multiplier=1.0, sampling_rate=0.05,
                steps=200, test=_TEST, rng=0)


def _train_and_account():
    _train()
    # fresh settings each call would defeat the accountants' cache; a z a learner is unlikely to pick first
    dpsgd_epsilon(1.01, 0.05, 200, 1e-5, accountant="rdp")
    dpsgd_epsilon(1.01, 0.05, 200, 1e-5, accountant="pld")


CASES = [
    ("audit: one mechanism, 10 000 trials", _audit_one, 2.0),
    ("audit: all 8 catch-a-bug mechanisms, 10 000 trials each", _audit_all, 2.0),
    ("dpsgd: 200 steps on 1000 examples", _train, 2.0),
    ("dpsgd: 200 steps on 1000 examples + RDP and PLD ε", _train_and_account, 2.0),
]

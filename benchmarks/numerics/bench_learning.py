"""Speed targets of issue 6 (dpviz.learning): `CASES = [(name, zero-arg callable, target seconds or None)]`.

The issue's target: a default run (n = 1000 users, m = 20, d = 10, T = 200) within 2 s. "all four methods" trains
user-level, naive, example-level and non-private on the same task, as the lesson's live panel does.
"""

from dpviz.learning import compare_training, make_linear_task, make_logistic_task, phased_erm, train_user_level

_LIN = make_linear_task(1000, 20, 10, rng=0)
_LOG = make_logistic_task(1000, 20, 10, rng=0)


def _default_user_level():
    train_user_level(_LIN, 1.0, 1e-5, 200, rng=0)


def _default_all_linear():
    compare_training(_LIN, 1.0, 1e-5, 200, rng=0)


def _default_all_logistic():
    compare_training(_LOG, 1.0, 1e-5, 200, rng=0)


def _paper_mode():
    train_user_level(_LIN, 1.0, 1e-5, 200, mode="paper", rng=0)


def _phased():
    phased_erm(make_linear_task(20000, 20, 10, rng=0), 1.0, 1e-9, steps_per_phase=100, rng=0)


CASES = [
    ("learning: user-level DP-SGD n=1000 m=20 d=10 T=200 (linear)", _default_user_level, 2.0),
    ("learning: all four methods n=1000 m=20 d=10 T=200 (linear)", _default_all_linear, 2.0),
    ("learning: all four methods n=1000 m=20 d=10 T=200 (logistic)", _default_all_logistic, 2.0),
    ("learning: Algorithm 3 paper constants n=1000 m=20 d=10 T=200", _paper_mode, 2.0),
    ("learning: Phased ERM n=20000 m=20 d=10", _phased, None),
]

"""Speed targets of issue 5 (dpviz.mean): `CASES = [(name, zero-arg callable, target seconds or None)]`."""

import numpy as np

from dpviz.mean import Population, simulate_errors, winsorized_mean_1d, winsorized_mean_highd


def _sim_200x10k_m100():
    simulate_errors(Population("bounded", 0.2), 10_000, 100, 1.0, trials=200,
                    estimators=("nonprivate", "naive_laplace", "winsorized"), rng=0)


_X1 = np.random.default_rng(0).uniform(-1, 1, 10_000)
_XD = np.random.default_rng(0).uniform(-1, 1, (10_000, 64)) / 8


def _wme_1d():
    winsorized_mean_1d(_X1, 1.0, 0.05, 1.0, rng=0)


def _wme_highd():
    winsorized_mean_highd(_XD, 1.0, 1e-6, 0.5, 1.0, rng=0)


def _robust_user():
    from dpviz.mean import dp_estimate_user

    data = np.random.default_rng(0).normal(0.0, 1.0, (200, 50, 16))
    dp_estimate_user(data, 1.0, 1.0, 1e-6, rng=0)


CASES = [
    ("mean: simulate 200 trials, n=1e4, m=100, 1-D (3 estimators)", _sim_200x10k_m100, 1.0),
    ("mean: winsorized_mean_1d n=1e4", _wme_1d, None),
    ("mean: winsorized_mean_highd n=1e4, d=64", _wme_highd, None),
    ("mean: dp_estimate_user n=200, m=50, d=16", _robust_user, None),
]

"""Timings of dpviz.userlevel's heavier computations (``make bench``): exact DelStab pmfs and learner simulations.

Targets: DelStab pmfs feed the lesson-04 DelStab panel (two datasets per update, ≤ 100 ms each at the panel's
defaults); simulations must finish within 3 s at default settings (issue 4, Speed).
"""

from __future__ import annotations

from dpviz.userlevel import DelStab, NoisySum, UserDataset, delstab_parameters, simulate_threshold_learning
from dpviz.userlevel import ptr


def _delstab(n: int, m: int, eps: float, delta: float, eps0: float):
    par = delstab_parameters(eps, delta)
    x = UserDataset.bernoulli(n, m, 0.5, rng=12345)
    ds = DelStab(eps, delta, NoisySum(epsilon0=eps0, high=(n - par.discarded) * m))

    def run():
        ptr._cached_analysis.cache_clear()  # time the exact computation, not the cache
        ds.output_pmf(x)

    return run


def _simulate():
    for m in (1, 8):
        for n in (5, 10, 20, 40, 80, 160, 320):
            simulate_threshold_learning(n, m, 1.0, grid_size=100, trials=20, rng=1000 * m + n)


CASES = [
    ("DelStab.output_pmf n=32 m=4 (eps, delta)=(3, 0.1)", _delstab(32, 4, 3.0, 0.1, 0.5), 0.1),
    ("DelStab.output_pmf n=60 m=10 (eps, delta)=(3, 0.1)", _delstab(60, 10, 3.0, 0.1, 0.5), 3.0),
    ("DelStab.output_pmf n=60 m=4 (eps, delta)=(3, 0.001)", _delstab(60, 4, 3.0, 0.001, 0.5), 3.0),
    ("simulate_threshold_learning: 14 (n, m) points x 20 runs, K=100", _simulate, 3.0),
]

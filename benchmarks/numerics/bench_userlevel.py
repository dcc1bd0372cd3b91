"""Timings of dpviz.userlevel's heavier computations (``make bench``): exact DelStab pmfs, learner simulations and
the models behind lessons 11 and 14's sliders (uncached).

Targets: DelStab pmfs feed the lesson-04 DelStab panel (two datasets per update, ≤ 100 ms each at the panel's
defaults); simulations must finish within 3 s at default settings (issue 4, Speed); a slider's model ≤ 50 ms.
"""

from __future__ import annotations

from dpviz.userlevel import (
    DelStab,
    NoisySum,
    UserDataset,
    bounding,
    bounding_curves,
    clipping_tradeoff,
    crossover_group_privacy,
    delstab_parameters,
    learners,
    ptr,
    simulate_threshold_learning,
    swap_difference_pmf,
)


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


def _bounding_gaussian():
    bounding._bounding_curves.cache_clear()  # time the model, not the cache
    bounding._group_sigma_curve.cache_clear()
    bounding._sample_counts.cache_clear()
    bounding_curves(100_000, 5.0, 1.2, 1.0, mechanism="gaussian", delta=1e-6, cap=1000)


def _swap_scaling():
    ptr._swap_difference_pmf.cache_clear()
    for m in (1, 10, 100, 1000, 10_000):
        swap_difference_pmf(m, 0.5)


def _clipping():
    learners._pairwise_sum_pmf.cache_clear()
    clipping_tradeoff(3162, 0.1, 0.3, 1.0, 1000, 100)


CASES = [
    ("bounding_curves n=1e5 cap=1000 Gaussian with group lift (uncached)", _bounding_gaussian, 0.1),
    ("swap_difference_pmf m=1..1e4 (uncached)", _swap_scaling, 0.05),
    ("clipping_tradeoff m=3162 (uncached)", _clipping, 0.05),
    ("crossover_group_privacy kind=users, m <= 1e8", lambda: crossover_group_privacy(
        1.0, 1e-6, kind="users", n_priv=100, n_stat=1000, c=1, m_max=1e8), 0.05),
    ("DelStab.output_pmf n=32 m=4 (eps, delta)=(3, 0.1)", _delstab(32, 4, 3.0, 0.1, 0.5), 0.1),
    ("DelStab.output_pmf n=60 m=10 (eps, delta)=(3, 0.1)", _delstab(60, 10, 3.0, 0.1, 0.5), 3.0),
    ("DelStab.output_pmf n=60 m=4 (eps, delta)=(3, 0.001)", _delstab(60, 4, 3.0, 0.001, 0.5), 3.0),
    ("simulate_threshold_learning: 14 (n, m) points x 20 runs, K=100", _simulate, 3.0),
]

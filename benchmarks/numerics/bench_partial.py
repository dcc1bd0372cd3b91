"""Benchmarks of dpviz.partial (issue 7): PrivHeavyHitter on n = 20,000 records with d = 16 binary attributes
must finish within 1 s; the other cases are reported for information."""

from __future__ import annotations

import math

import numpy as np

from dpviz.partial import heavy_hitter_params, heavy_hitter_worst_case_loss, priv_heavy_hitter, priv_histogram
from dpviz.partial.histograms import _worst_case_loss


def _data(n=20000, d=16, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, d)).astype(np.uint8)
    planted = rng.integers(0, 2, size=(5, d))
    i = 0
    for p, c in zip(planted, (1200, 2500, 3500, 4500, 6000)):
        X[i:i + c] = p
        i += c
    return X


_X = _data()
_P = heavy_hitter_params(1.0, 0.1, _X.shape[0])


def _hh():
    priv_heavy_hitter(_X, _P.lam, _P.tau, _P.mu, rng=1)


def _hist():
    priv_histogram(_X, 1.0, rng=2)


def _worst():
    _worst_case_loss.cache_clear()  # time the computation, not the cache
    lam = 3.0
    heavy_hitter_worst_case_loss(lam, 5.0, lam * math.log(160), 4, 40)


CASES = [
    ("PrivHeavyHitter n=20000 d=16 (Alg 2 of 001)", _hh, 1.0),
    ("eps0-histogram n=20000 d=16 (Thm 15 of 001)", _hist, 1.0),
    ("worst-case HH privacy loss, 4 levels, n<=40", _worst, None),
]

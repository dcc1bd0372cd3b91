"""Benchmarks of lesson 02's core (dpviz.local, dpviz.sensitivity): one local survey of a million people (release +
estimate) and the exact clipping curve on the lesson's data set; reported for information, targets generous."""

from __future__ import annotations

import numpy as np

from dpviz import local as LOC
from dpviz import sensitivity as S

_VALUES = np.arange(1_000_000) % 8
_OUE_VALUES = _VALUES[:100_000]
_DATA = S.example_dataset(1001)
_GRID = np.geomspace(1.0, 3000.0, 80)


def _krr_survey():
    LOC.krr_estimate(LOC.krr_release(_VALUES, 8, 1.0, rng=1), 8, 1.0)


def _oue_survey():
    LOC.oue_estimate(LOC.oue_release(_OUE_VALUES, 8, 1.0, rng=1), 1.0)


def _clipping_curve():
    S.clipping_error(_DATA, 0.0, _GRID, 1.0)


CASES = [
    ("k-RR release + estimate, n = 10⁶, k = 8", _krr_survey, 1.0),
    ("OUE release + estimate, n = 10⁵, k = 8", _oue_survey, 1.0),
    ("exact clipping error, 80 bounds × 1,001 values", _clipping_curve, 0.05),
]

"""Benchmarks of dpviz.selection (issue 17): the exact selection probabilities for k = 200 distinct scores and the exact
sparse-vector check on 4 queries (81 neighbours); reported for information, targets with room for a busy machine."""

from __future__ import annotations

import numpy as np

from dpviz import selection as S

_U = np.r_[0.0, np.linspace(-0.5, -8.0, 199)]


def _laplace_200():
    S.selection_probabilities(_U, 1.0, noise="laplace")


def _pf_200():
    S.selection_probabilities(_U, 1.0, noise="exponential")


def _svt_check():
    S.sparse_vector_privacy_check([0.0, 1.0, 0.0, 2.0], 0.5, 1.0, max_positives=2)


CASES = [
    ("selection: Laplace noisy-max probabilities, k = 200 distinct scores", _laplace_200, 1.0),
    ("selection: permute-and-flip probabilities, k = 200 distinct scores", _pf_200, 0.05),
    ("selection: exact sparse-vector check, 4 queries, 81 neighbours", _svt_check, 2.0),
]

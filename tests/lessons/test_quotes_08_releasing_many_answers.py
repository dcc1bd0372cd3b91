"""Lesson-quote tests of ``notebooks/08_releasing_many_answers.ipynb``: every number the prose states about k queries,
trees, MWEM, synthetic data and TopDown is computed here (with the library, or independently) and looked up in the
prose."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _lesson_text import flat, prose

from dpviz import release as R
from dpviz.panels import release as PR

TEXT = flat(prose("08_releasing_many_answers"))


def test_composition_against_the_histogram():
    eps = 1.0
    assert R.composition_variance(7, eps) == 2 * 7**2 and R.histogram_range_variance(128, 5, eps) == 2 * 5
    assert "variance **2k²/ε²**" in TEXT and "variance **2w/ε²**" in TEXT and "**w < k²**" in TEXT
    # k = 1: composition's 2/ε² ≤ 2w/ε² for every w ≥ 1 (a tie at w = 1)
    assert all(R.composition_variance(1, eps) < R.histogram_range_variance(128, w, eps) for w in range(2, 129))
    assert "At k = 1 one query with the whole ε beats any histogram range wider than one cell" in TEXT
    # k = 10: the histogram wins exactly for w < 100
    wins = [w for w in range(1, 129) if R.histogram_range_variance(128, w, eps) < R.composition_variance(10, eps)]
    assert wins == list(range(1, 100))
    assert "By k = 10 the histogram wins for every range of fewer than 100 cells" in TEXT
    assert R.histogram_range_variance(128, 128, eps) == 256 and R.composition_variance(1, eps) == 2
    assert "2·128/ε² = 256/ε², where one query with the whole budget would have 2/ε²" in TEXT


def test_the_tree_numbers_at_1024_cells():
    w = np.arange(1, 1025)
    tree = R.tree_width_variance(w, 1.0, 10)
    cons = R.tree_width_variance(w, 1.0, 10, consistent=True)
    assert tree[0] == 2 * 11**2 == 242 and tree[-1] == 242
    assert f"2·11²/ε² = {2 * 11**2}/ε² against 2/ε²" in TEXT
    assert f"at width 512 the tree has {tree[511]:.1f}/ε² on average against 1024/ε²" in TEXT
    assert "(242/ε² against 2048/ε²)" in TEXT
    assert np.all(tree[:-1] > 2 * w[:-1]) and tree[-1] < 2 * w[-1]
    assert "the plain tree loses to the flat histogram at every width but the whole domain" in TEXT
    first = int(np.nonzero(cons >= 2 * w)[0][-1] + 2)
    assert first == 239 and np.all(cons[first - 1:] < 2 * w[first - 1:])
    assert f"beats the flat histogram at every width from {first} on ({cons[511]:.1f}/ε² at width 512" in TEXT
    assert f"made consistent** by least squares (Hay et al. 2010, §5) it wins from width {first} on" in TEXT
    assert np.all(cons <= tree * (1 + 1e-12))  # least squares: never worse than the canonical decomposition
    assert "beats both the flat histogram on wide ranges and the plain tree everywhere" in TEXT


def _mwem_mean_errors(eps: float, seeds: int = 4) -> np.ndarray:
    h = R.example_age_histogram(PR.PEOPLE, PR.MWEM_BINS)
    Q = R.range_query_matrix(PR._mwem_ranges(100, PR.MWEM_BINS), PR.MWEM_BINS)
    out = np.zeros(len(PR.MWEM_ROUNDS))
    for s in range(seeds):
        g = np.random.default_rng(1000 + s)
        out += [R.max_query_error(R.mwem(h, Q, eps, T, rng=g).synthetic, h, Q) for T in PR.MWEM_ROUNDS]
    return out / seeds


def test_mwem_rounds_against_epsilon_and_its_budget():
    assert R.mwem_budget(0.5, 10)["measure"] == pytest.approx(0.5 / 20)
    low, high = _mwem_mean_errors(0.1), _mwem_mean_errors(10.0)
    best = int(np.argmin(low))
    assert 0 < best < len(low) - 1 and low[-1] > 1.5 * low[best]  # falls for a few rounds, then rises
    assert high[-1] < high[len(high) // 2] < high[0]  # keeps helping up to T = 200
    assert PR.MWEM_ROUNDS[-1] == 200
    assert "At ε = 0.1 the error falls for a few rounds, then rises" in TEXT
    assert "At ε = 10 more rounds keep helping, up to the 200 shown" in TEXT


def test_synthetic_data_numbers():
    J = R.example_age_table(10_000, 128)
    N = J.sum()
    old = J[65:, 1].sum()
    product = N * (J[65:].sum() / N) * (J[:, 1].sum() / N)
    assert old == 1266 and f"{product:.1f}" == "217.2"
    assert "ages 65 to 127, the truth is 1266 retired people" in TEXT
    assert "217.2 for ages 65 to 127 where the truth is 1266" in TEXT
    young = J[:50, 1].sum()
    product_young = N * (J[:50].sum() / N) * (J[:, 1].sum() / N)
    assert young == 3 and round(product_young) == 1093
    assert "The truth is 3 retired people; the records put about 1093 there" in TEXT


def test_topdown_numbers():
    rho = 0.01
    sigma = math.sqrt(1 / (2 * rho / 3))
    assert f"{sigma:.1f}" == "12.2" and "At the default ρ = 0.01, σ ≈ 12.2 people" in TEXT
    assert PR.TopDownPanel.controls["rho"].value == pytest.approx(rho)
    assert R.example_geography().min() == 8 and R.example_geography().max() == 50_000
    assert "from 50 000 people down to 8" in TEXT
    G = R.example_geography()
    runs = [R.topdown(G, rho, rng=s) for s in range(300)]
    noisy = np.mean([r.noisy_rmse for r in runs], axis=0)
    td = np.mean([r.topdown_rmse for r in runs], axis=0)
    assert noisy[0] == td[0]  # the nation is only clamped (it is far above 0)
    shrink = 1 - td[1:] / noisy[1:]
    assert np.all((shrink > 0.05) & (shrink < 0.15)), shrink  # "about a tenth"
    assert "the errors of the states and of the counties shrink by about a tenth after TopDown" in TEXT

"""Figures of the lesson "Releasing many answers": the curves and bars carry exact values computed here
independently (closed forms, numpy least squares, brute force), hidden answers leak nothing, text has no raw TeX,
figures are JSON-compliant."""

from __future__ import annotations

import json
import math

import numpy as np
import plotly.graph_objects as go
import pytest

from dpviz import release as R
from dpviz.plots import release as P


def _texts(fig: go.Figure) -> list[str]:
    lay = fig.layout
    out = [lay.title.text or "", lay.xaxis.title.text or "", lay.yaxis.title.text or ""]
    out += [t.name or "" for t in fig.data]
    out += [a.text or "" for a in lay.annotations]
    return out


def _figures():
    res = R.topdown(R.example_geography(), 0.01, rng=0)
    h = R.example_age_histogram(1000, 16)
    w = np.arange(1, 9.0)
    return [
        P.queries_error_figure(1.0, 16, 128, k_mark=10),
        P.queries_error_figure(1.0, 16, 128, show_crossing=False),
        P.width_error_figure(1.0, 10, 128, width_mark=16),
        P.width_error_figure(1.0, 20, 128),
        P.tree_variance_figure(w, 2 * w, 3 * w, w, epsilon=1.0, depth=3),
        P.tree_variance_figure(w, 2 * w, 3 * w, None, epsilon=1.0, depth=3, statistic="max"),
        P.mwem_error_figure([1, 2, 5], [30.0, 20.0, float("nan")], 10.0, 14.1, epsilon=1.0, k=10, seed=0),
        P.histogram_estimate_figure(h, {"estimate": h + 1.0}, title="t", note="one draw"),
        P.joint_query_figure(1266.0, 217.2, 230.0, age_range="65 to 127"),
        P.joint_query_figure(1266.0, None, None, age_range="65 to 127"),
        P.topdown_levels_figure(res, seed=0),
        P.topdown_counties_figure(res),
    ]


def _lap_var(b):
    return 2.0 * b * b  # Laplace(b): E[X²] = 2b²


def test_queries_figure_is_exact_and_crosses_at_root_w():
    eps, w = 0.5, 49
    fig = P.queries_error_figure(eps, w, 128, k_mark=10)
    k = np.array(fig.data[0].x, dtype=float)
    np.testing.assert_allclose(np.array(fig.data[0].y, dtype=float), np.sqrt(_lap_var(k / eps)), rtol=1e-13)
    assert fig.data[1].y[0] == pytest.approx(math.sqrt(w * _lap_var(1 / eps)), rel=1e-13)
    assert fig.layout.shapes[0].x0 == pytest.approx(7.0)
    assert fig.data[2].y[0] == pytest.approx(math.sqrt(2) * 10 / eps, rel=1e-13)
    assert k.min() == 1 and k.max() == 1000
    hidden = P.queries_error_figure(eps, w, 128, show_crossing=False)
    assert not hidden.layout.shapes and "7" not in hidden.layout.annotations[0].text.split("<br>")[0]


def test_width_figure_is_exact_and_crosses_at_k_squared():
    eps, k = 2.0, 5
    fig = P.width_error_figure(eps, k, 128)
    w = np.array(fig.data[1].x, dtype=float)
    np.testing.assert_allclose(np.array(fig.data[1].y, dtype=float), np.sqrt(w * _lap_var(1 / eps)), rtol=1e-13)
    assert fig.data[0].y[0] == pytest.approx(math.sqrt(_lap_var(k / eps)), rel=1e-13)
    assert fig.layout.shapes[0].x0 == 25.0
    assert not P.width_error_figure(eps, 20, 128).layout.shapes  # k² = 400 > 128 cells: no crossing


def _brute_variances(L: int, eps: float):
    """Exact range variances by brute force at 2^L cells: the canonical decomposition found by a recursive cover
    (independent of dpviz's interval arithmetic), and the ordinary least-squares covariance σ²(AᵀA)⁻¹ from numpy."""
    n, v = 2**L, _lap_var((L + 1) / eps)
    nodes = [(lvl, j) for lvl in range(L + 1) for j in range(2**lvl)]

    def cover(lo, hi, lvl=0, j=0):
        size = n >> lvl
        a, b = j * size, (j + 1) * size
        if hi <= a or b <= lo:
            return 0
        if lo <= a and b <= hi:
            return 1
        return cover(lo, hi, lvl + 1, 2 * j) + cover(lo, hi, lvl + 1, 2 * j + 1)

    A = np.array([[1.0 if (n >> lvl) * j <= i < (n >> lvl) * (j + 1) else 0.0 for i in range(n)] for lvl, j in nodes])
    C = v * np.linalg.pinv(A.T @ A)
    canon, cons = {}, {}
    for w in range(1, n + 1):
        c = [cover(lo, lo + w) * v for lo in range(n - w + 1)]
        s = [C[lo:lo + w, lo:lo + w].sum() for lo in range(n - w + 1)]
        canon[w], cons[w] = np.mean(c), np.mean(s)
    return canon, cons


def test_tree_figure_draws_the_given_exact_curves_and_hides_the_consistent_one():
    L, eps = 4, 0.7
    w = np.arange(1, 2**L + 1)
    tree = R.tree_width_variance(w, eps, L)
    cons = R.tree_width_variance(w, eps, L, consistent=True)
    canon, ls = _brute_variances(L, eps)
    np.testing.assert_allclose(tree, [canon[x] for x in w], rtol=1e-12)
    np.testing.assert_allclose(cons, [ls[x] for x in w], rtol=1e-9)
    flat = R.histogram_range_variance(2**L, w.astype(float), eps)
    fig = P.tree_variance_figure(w, flat, tree, cons, epsilon=eps, depth=L)
    np.testing.assert_allclose(np.array(fig.data[0].y, dtype=float), w * _lap_var(1 / eps), rtol=1e-13)
    np.testing.assert_array_equal(np.array(fig.data[1].y, dtype=float), tree)
    np.testing.assert_array_equal(np.array(fig.data[2].y, dtype=float), cons)
    hidden = P.tree_variance_figure(w, flat, tree, None, epsilon=eps, depth=L)
    assert len(hidden.data[2].y) == 0 and "hidden" in hidden.data[2].name
    text = json.dumps(hidden.to_plotly_json(), default=lambda o: o.tolist())
    assert f"{cons[100 % len(cons)]:.4g}" not in text


def test_the_lessons_tree_finding_at_1024_cells():
    w = np.arange(1, 1025)
    flat = 2.0 * w
    tree = R.tree_width_variance(w, 1.0, 10)
    cons = R.tree_width_variance(w, 1.0, 10, consistent=True)
    assert np.all(tree[:-1] > flat[:-1]) and tree[-1] < flat[-1] and tree[-1] == pytest.approx(2 * 11**2)
    assert np.all(cons[238:] < flat[238:]) and cons[237] >= flat[237]  # widths 239.. (index 238)


def test_mwem_figure_draws_the_errors_with_gaps_and_says_it_is_one_draw():
    fig = P.mwem_error_figure([1, 2, 5], [30.0, 20.0, float("nan")], 10.0, 14.1, epsilon=1.0, k=10, seed=3)
    assert list(fig.data[0].y) == [30.0, 20.0, None]
    assert list(fig.data[1].y) == [10.0, 10.0] and list(fig.data[2].y) == [14.1, 14.1]
    assert any("one random draw (seed 3)" in a.text for a in fig.layout.annotations)


def test_joint_query_bars_and_hidden_bars():
    J = R.example_age_table(10_000, 128)
    r = R.correlation_lost(J, 65, 128, 1)
    N = J.sum()
    assert r["from_marginals"] == pytest.approx(N * (J[65:].sum() / N) * (J[:, 1].sum() / N), rel=1e-12)
    fig = P.joint_query_figure(r["truth"], r["from_marginals"], 230.0, age_range="65 to 127")
    assert list(fig.data[0].y) == [1266.0, r["from_marginals"], 230.0]
    hidden = P.joint_query_figure(r["truth"], None, None, age_range="65 to 127")
    assert list(hidden.data[0].y) == [1266.0]
    assert "217" not in json.dumps(hidden.to_plotly_json(), default=lambda o: o.tolist())


def test_topdown_figures_carry_the_results_errors():
    res = R.topdown(R.example_geography(), 0.01, rng=1)
    fig = P.topdown_levels_figure(res, seed=1)
    truth = [res.true_counts[0], res.true_counts[1], res.true_counts[2]]
    rmse = [math.sqrt(np.mean((np.asarray(a, float) - t) ** 2)) for a, t in zip(res.estimates, truth)]
    np.testing.assert_allclose(np.array(fig.data[1].y, dtype=float), rmse, rtol=1e-12)
    sigma = math.sqrt(3 / (2 * 0.01))
    assert f"{sigma:.3g}" in fig.layout.annotations[-1].text
    counties = P.topdown_counties_figure(res)
    np.testing.assert_allclose(np.array(counties.data[1].y, dtype=float),
                               (res.estimates[2] - res.true_counts[2]).ravel(), atol=1e-9)


@pytest.mark.parametrize("fig", _figures(), ids=lambda f: (f.layout.title.text or "")[:30])
def test_no_raw_tex_json_compliant_and_template(fig):
    for text in _texts(fig):
        assert "$" not in text and "\\" not in text
    json.dumps(fig.to_plotly_json(), default=lambda o: o.tolist(), allow_nan=False)
    assert fig.layout.template.layout.font.family  # the house template


def test_bad_arguments_are_messages():
    with pytest.raises(ValueError, match="width"):
        P.queries_error_figure(1.0, 200, 128)
    with pytest.raises(ValueError, match="statistic"):
        P.tree_variance_figure([1.0], [1.0], [1.0], None, epsilon=1.0, depth=3, statistic="median")
    with pytest.raises(TypeError, match="TopDownResult"):
        P.topdown_levels_figure("x", seed=0)

"""Figures of lesson 05: every curve carries exact numbers, checked here against independent computations (brute
force over neighbours, closed-form densities written out, the exponential mechanism's weights summed by hand); text
has no raw TeX; figures are JSON-compliant; what an exercise hides is absent."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import plotly.graph_objects as go
import pytest

from dpviz import beyond as B
from dpviz.plots import beyond as P

X = [3.0, 7.0, 12.0, 20.0, 31.0, 45.0, 80.0]
LEAK_X, LEAK_X2 = [0.1, 0.2, 0.5, 0.6, 0.9], [0.1, 0.2, 0.5, 0.45, 0.9]


def _texts(fig: go.Figure) -> list[str]:
    lay = fig.layout
    out = [lay.title.text or "", lay.xaxis.title.text or "", lay.yaxis.title.text or ""]
    out += [t.name or "" for t in fig.data]
    out += [a.text or "" for a in lay.annotations]
    return out


def _y(trace) -> np.ndarray:
    return np.array([np.nan if v is None else v for v in trace.y], dtype=float)


def _figures():
    rel = B.smooth_sensitivity_release_parameters(X, 1.0, 1e-6, 1.0, 100.0)
    cau = B.smooth_sensitivity_release_parameters(X, 1.0, 0.0, 1.0, 100.0, "cauchy")
    sa = B.sample_and_aggregate(list(range(1, 41)), 4, 1.0, 0.0, 50.0, rng=0)
    sm = B.sample_and_aggregate(list(range(1, 41)), 4, 1.0, 0.0, 50.0, aggregate="median", rng=0)
    return [P.replace_one_record_figure(X, 1.0, 100.0), P.replace_one_record_figure(X, 0.0, 100.0, show_median=False),
            P.leak_densities_figure(LEAK_X, LEAK_X2, 1.0, 0.0, 1.0),
            P.leak_privacy_loss_figure(LEAK_X, LEAK_X2, 1.0, 0.0, 1.0),
            P.smooth_sensitivity_figure(X, 1.0, 100.0, beta_mark=0.05), P.smooth_release_figure(rel, 1.0, 100.0),
            P.smooth_release_figure(cau, 1.0, 100.0), P.ptr_pass_figure(1.0, 1e-6, distance=7.0),
            P.ptr_pass_figure(1.0, 1e-6, distance=math.inf), P.sample_aggregate_figure(sa, 0.0, 50.0, truth=20.0),
            P.sample_aggregate_figure(sm, 0.0, 50.0), P.quantile_law_figure(X, 0.5, 1.0, 1.0, 100.0, mark=30.0)]


def test_replace_one_record_curves_are_the_neighbours_statistics():
    fig = P.replace_one_record_figure(X, 1.0, 100.0)
    v = np.array(fig.data[0].x, dtype=float)
    assert v[0] == pytest.approx(1.0) and v[-1] == pytest.approx(100.0) and fig.layout.xaxis.type == "log"
    for i in range(0, v.size, 17):  # the neighbour x′ = X with the median's record (20.0) replaced by v
        xp = sorted([3.0, 7.0, 12.0, v[i], 31.0, 45.0, 80.0])
        assert _y(fig.data[0])[i] == pytest.approx(sum(xp) / 7, rel=1e-14)
        assert _y(fig.data[1])[i] == pytest.approx(xp[3], rel=1e-14)
    # the median never leaves [x_(m−1), x_(m+1)] = [12, 31]; the mean spans (U − L)/n
    assert np.nanmin(_y(fig.data[1])) == 12.0 and np.nanmax(_y(fig.data[1])) == 31.0
    assert np.nanmax(_y(fig.data[0])) - np.nanmin(_y(fig.data[0])) == pytest.approx(99.0 / 7, rel=1e-12)


def test_hidden_median_curve_leaks_nothing():
    fig = P.replace_one_record_figure(X, 1.0, 100.0, show_median=False)
    assert len(fig.data[1].x) == 0 and "hidden" in fig.data[1].name
    # no trace holds the median's plateaus x_(m−1) = 12 and x_(m+1) = 31 (the mean's line never passes 12 or 31
    # exactly on the grid, and the marker holds the median 20 and the mean only)
    values = {float(v) for t in fig.data for v in t.y if v is not None}
    assert 12.0 not in values and 31.0 not in values and 20.0 in values


def test_leak_densities_and_loss_are_the_laplace_closed_forms():
    d = P.leak_densities_figure(LEAK_X, LEAK_X2, 1.0, 0.0, 1.0)
    y = np.array(d.data[0].x, dtype=float)
    # med(x) = 0.5, LS(x) = max(0.6 − 0.5, 0.5 − 0.2) = 0.3; med(x′) = 0.45, LS(x′) = max(0.05, 0.25) = 0.25
    np.testing.assert_allclose(_y(d.data[0]), np.exp(-np.abs(y - 0.5) / 0.3) / 0.6, rtol=1e-12)
    np.testing.assert_allclose(_y(d.data[1]), np.exp(-np.abs(y - 0.45) / 0.25) / 0.5, rtol=1e-12)
    f = P.leak_privacy_loss_figure(LEAK_X, LEAK_X2, 1.0, 0.0, 1.0)
    y = np.array(f.data[0].x, dtype=float)
    want = math.log(0.25 / 0.3) - np.abs(y - 0.5) / 0.3 + np.abs(y - 0.45) / 0.25
    np.testing.assert_allclose(_y(f.data[0]), want, rtol=1e-12, atol=1e-12)
    assert "unbounded" in f.layout.title.text and np.nanmax(np.abs(_y(f.data[1]))) > 1.0
    assert "0.000696" in " ".join(_texts(f))
    with pytest.raises(ValueError, match="local sensitivity 0"):
        P.leak_densities_figure([0.0, 0.5, 0.5, 0.5, 1.0], [0.0, 0.5, 0.5, 1.0, 1.0], 1.0, 0.0, 1.0)


def _smooth_brute(x, beta, lo, hi):
    """max over every pair l ≤ m ≤ i, l < i of (z_i − z_l)e^{−β(i − l − 1)} on the padded data, a plain double loop."""
    z = [lo, *sorted(x), hi]
    n = len(x)
    m = (n + 1) // 2
    return max((z[i] - z[j]) * math.exp(-beta * (i - j - 1)) for j in range(0, m + 1) for i in range(m, n + 2)
               if j < i)


def test_smooth_sensitivity_curve_is_exact_and_between_local_and_global():
    fig = P.smooth_sensitivity_figure(X, 1.0, 100.0, beta_mark=0.05)
    betas = np.array(fig.data[0].x, dtype=float)
    s = _y(fig.data[0])
    for i in range(0, betas.size, 5):
        assert s[i] == pytest.approx(_smooth_brute(X, betas[i], 1.0, 100.0), rel=1e-12)
    assert fig.data[1].y[0] == 99.0 and fig.data[2].y[0] == 11.0  # LS = max(31 − 20, 20 − 12)
    assert np.all(np.diff(s) <= 1e-12) and s[-1] >= fig.data[2].y[0] - 1e-12 and s[0] <= 99.0
    assert fig.data[3].x[0] == 0.05 and fig.data[3].y[0] == pytest.approx(_smooth_brute(X, 0.05, 1.0, 100.0))
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"


def test_smooth_release_density_is_laplace_or_cauchy_at_the_corollary_scale():
    rel = B.smooth_sensitivity_release_parameters(X, 1.0, 1e-6, 1.0, 100.0)
    assert rel.beta == pytest.approx(1.0 / (2 * math.log(2e6)))
    assert rel.scale == pytest.approx(2 * _smooth_brute(X, rel.beta, 1.0, 100.0), rel=1e-12)
    fig = P.smooth_release_figure(rel, 1.0, 100.0)
    y = np.array(fig.data[0].x, dtype=float)
    np.testing.assert_allclose(_y(fig.data[0]), np.exp(-np.abs(y - 20.0) / rel.scale) / (2 * rel.scale), rtol=1e-12)
    np.testing.assert_allclose(_y(fig.data[1]), np.exp(-np.abs(y - 20.0) / 99.0) / 198.0, rtol=1e-12)
    cau = B.smooth_sensitivity_release_parameters(X, 1.0, 0.0, 1.0, 100.0, "cauchy")
    assert cau.beta == pytest.approx(1 / 6) and cau.scale == pytest.approx(6 * _smooth_brute(X, 1 / 6, 1.0, 100.0))
    fc = P.smooth_release_figure(cau, 1.0, 100.0)
    y = np.array(fc.data[0].x, dtype=float)
    s = cau.scale
    np.testing.assert_allclose(_y(fc.data[0]), 1.0 / (math.pi * s * (1 + ((y - 20.0) / s) ** 2)), rtol=1e-12)
    assert "(1-DP)" in fc.layout.title.text and "Cor. 2.4" in " ".join(_texts(fc))
    assert "(1, 1e-06)-DP" in fig.layout.title.text


def test_ptr_curve_is_the_laplace_cdf_and_the_marker_hides_until_given():
    fig = P.ptr_pass_figure(1.0, 1e-6)
    g = np.array(fig.data[0].x, dtype=float)
    t = math.log(1e6)
    want = np.where(g <= t, 0.5e-6 * np.exp(g), 1 - np.exp(-g) / 2e-6)
    np.testing.assert_allclose(_y(fig.data[0]), want, rtol=1e-12)
    assert len(fig.data) == 1 and fig.layout.yaxis.type == "log"
    marked = P.ptr_pass_figure(1.0, 1e-6, distance=20.0)
    assert marked.data[1].x[0] == 20.0 and marked.data[1].y[0] == pytest.approx(1 - math.exp(-20) / 2e-6)
    inf = P.ptr_pass_figure(1.0, 1e-6, distance=math.inf)
    assert inf.data[1].y[0] == 1.0 and "∞" in inf.data[1].name
    # a subnormal δ: ½δe^{εγ} is still below 1 at γ = 744 (ln(1/δ) = 744.4): no overflow, the exact value
    tiny = P.ptr_pass_figure(1.0, 5e-324, distance=744.0)
    assert tiny.data[1].y[0] == pytest.approx(0.5 * math.exp(744.0 + math.log(5e-324)), rel=1e-12)
    with pytest.raises(ValueError, match="distance"):
        P.ptr_pass_figure(1.0, 1e-6, distance=2.5)


def test_sample_aggregate_law_is_exact_given_the_blocks():
    data = np.arange(1.0, 41.0)
    r = B.sample_and_aggregate(data, 4, 1.0, 0.0, 50.0, shuffle=False, rng=0)
    np.testing.assert_allclose(r.estimates, [5.5, 15.5, 25.5, 35.5])
    fig = P.sample_aggregate_figure(r, 0.0, 50.0, truth=20.5)
    y = np.array(fig.data[0].x, dtype=float)
    np.testing.assert_allclose(_y(fig.data[0]), np.exp(-np.abs(y - 20.5) / 12.5) / 25.0, rtol=1e-12)  # 50/(4·1)
    np.testing.assert_allclose(np.array(fig.data[1].x, dtype=float), r.estimates)
    m = B.sample_and_aggregate(data, 4, 1.0, 0.0, 50.0, aggregate="median", shuffle=False, rng=0)
    fm = P.sample_aggregate_figure(m, 0.0, 50.0)
    # the EM median of (5.5, 15.5, 25.5, 35.5) in [0, 50]: interval weights (length)·e^{−|i − 2|/2}
    lengths = np.array([5.5, 10.0, 10.0, 10.0, 14.5])
    w = lengths * np.exp(-np.abs(np.arange(5) - 2.0) / 2)
    dens = w / w.sum() / lengths
    xs = np.array(fm.data[0].x, dtype=float)
    for k, (a, b) in enumerate(zip([0.0, 5.5, 15.5, 25.5, 35.5], [5.5, 15.5, 25.5, 35.5, 50.0])):
        inside = (xs > a + 1e-9) & (xs < b - 1e-9)
        np.testing.assert_allclose(_y(fm.data[0])[inside], dens[k], rtol=1e-12)


def test_quantile_density_is_the_exponential_mechanism_and_integrates_to_one():
    fig = P.quantile_law_figure(X, 0.5, 1.0, 1.0, 100.0, mark=30.0)
    z = [1.0, *X, 100.0]
    w = [(z[i + 1] - z[i]) * math.exp(-abs(i - 3.5) / 2) for i in range(8)]
    want = [wi / sum(w) / (z[i + 1] - z[i]) for i, wi in enumerate(w)]
    xs, ys = fig.data[0].x, fig.data[0].y  # a step line ("hv"): the density of [xs[j], xs[j + 1]] is ys[j]
    assert fig.data[0].line.shape == "hv" and len(xs) == len(ys) == 9
    steps = [(xs[j], xs[j + 1], ys[j]) for j in range(len(xs) - 1)]
    assert [s[:2] for s in steps] == list(zip(z[:-1], z[1:]))
    np.testing.assert_allclose([s[2] for s in steps], want, rtol=1e-12)
    assert sum((b - a) * d for a, b, d in steps) == pytest.approx(1.0, rel=1e-12)
    assert fig.layout.yaxis.type == "log" and "P[output above every value]" in " ".join(_texts(fig))
    hidden = P.quantile_law_figure(X, 0.5, 1.0, 1.0, 100.0, show_tail=False)
    tail = f"{w[-1] / sum(w):.3g}"
    assert "above every value" not in " ".join(_texts(hidden)) and tail not in " ".join(_texts(hidden))


def test_figures_are_json_compliant_and_without_raw_tex():
    for f in _figures():
        json.dumps(f.to_plotly_json(), allow_nan=False, default=lambda o: o.tolist())
        for text in _texts(f):
            assert "^{" not in text and "_{" not in text and "$" not in text and "\\" not in text, text
        assert f.layout.template.layout.font.family.startswith("Inter")
        assert any("20" in (a.text or "") for a in f.layout.annotations), "every figure cites its source"


def test_validation():
    with pytest.raises(ValueError, match="upper"):
        P.replace_one_record_figure(X, 5.0, 5.0)
    with pytest.raises(ValueError, match="epsilon"):
        P.leak_densities_figure(LEAK_X, LEAK_X2, 0.0, 0.0, 1.0)
    with pytest.raises(ValueError, match="neighbour"):
        P.leak_privacy_loss_figure(LEAK_X, [0.0, 0.0, 0.0, 0.0, 0.0], 1.0, 0.0, 1.0)
    with pytest.raises(TypeError, match="release"):
        P.smooth_release_figure(1.0, 0.0, 1.0)
    with pytest.raises(ValueError, match="delta"):
        P.ptr_pass_figure(1.0, 1.0)
    with pytest.raises(TypeError, match="result"):
        P.sample_aggregate_figure(None, 0.0, 1.0)
    with pytest.raises(ValueError, match="q"):
        P.quantile_law_figure(X, 1.5, 1.0, 1.0, 100.0)


def test_brute_force_local_sensitivity_of_the_figure_data():
    # LS of the median of X in [1, 100] by trying every replacement on a grid including the data and the bounds
    grid = sorted({1.0, 100.0, *X, *(np.linspace(1, 100, 199))})
    base = sorted(X)[3]
    ls = max(abs(sorted(X[:i] + [v] + X[i + 1:])[3] - base) for i, v in itertools.product(range(7), grid))
    assert ls == B.local_sensitivity_median(X, 1.0, 100.0) == 11.0

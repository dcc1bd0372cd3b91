"""Figure builders of lesson 02: what is drawn equals independently recomputed exact quantities, no TeX, sources."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
import pytest

from dpviz import sensitivity as S
from dpviz.plots import counting as P

TEX = ("^{", "_{", "\\frac", "$")


def _texts(fig: go.Figure) -> str:
    parts = [str(fig.layout.title.text), str(fig.layout.xaxis.title.text), str(fig.layout.yaxis.title.text)]
    parts += [str(a.text) for a in fig.layout.annotations or ()]
    parts += [str(t.name) for t in fig.data]
    return " ".join(parts)


def _all_figures():
    data = S.example_dataset(101)
    return [P.noise_figure(2.0, 0.5, label="a sum"), P.clipping_figure(data, 0.0, 50.0, 1.0),
            P.clipping_figure(data, 0.0, 50.0, 1.0, "mean", "replace"), P.clamping_figure(1.0),
            P.consistency_figure(8, 1.0), P.consistency_figure(8, 1.0, "replace"), P.composition_figure(1.0, 10),
            P.local_central_figure(1.0, 4, "oue", 0.2, 100), P.note_figure("t", "nothing to plot")]


def test_every_figure_is_themed_with_no_tex_and_cites_its_source():
    for fig in _all_figures():
        assert isinstance(fig, go.Figure)
        assert fig.layout.template.layout.font.family.startswith("Inter")
        text = _texts(fig)
        assert not any(t in text for t in TEX), text
        if fig.data and fig.data[0].x is not None and len(fig.data[0].x) > 0:
            assert any(y in text for y in ("2010", "2014", "2017")), text  # a cited source


def test_noise_figure_is_the_laplace_density_with_scale_delta_over_epsilon():
    fig = P.noise_figure(3.0, 0.5)
    x, y = np.asarray(fig.data[0].x), np.asarray(fig.data[0].y)
    b = 3.0 / 0.5
    assert np.allclose(y, np.exp(-np.abs(x) / b) / (2 * b), rtol=1e-12)
    assert max(fig.data[1].x) == 3.0 and min(fig.data[1].x) == -3.0  # ±Δ


def test_clipping_figure_total_is_bias_squared_plus_two_b_squared():
    data = S.example_dataset(51)
    eps = 0.8
    fig = P.clipping_figure(data, 0.0, 40.0, eps, "sum", "replace")
    grid, total = np.asarray(fig.data[2].x), np.asarray(fig.data[2].y)
    for u, t in zip(grid[::13], total[::13]):
        bias = sum(max(v - u, 0.0) for v in data)
        assert t == pytest.approx(bias**2 + 2 * (u / eps) ** 2, rel=1e-10)  # replace: Δ = U − L = U
    assert fig.data[3].x[0] == 40.0
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"


def test_clamping_figure_matches_the_closed_form_and_halves_at_zero():
    fig = P.clamping_figure(2.0)
    b = 0.5
    assert fig.data[0].y[0] == pytest.approx(2 * b * b)
    y = np.asarray(fig.data[1].y)
    assert y[0] == pytest.approx(b * b, rel=1e-12)
    assert np.all(y <= 2 * b * b + 1e-15) and np.all(np.diff(y) >= -1e-15)


def test_consistency_figure_add_remove_draws_the_fair_baseline_at_the_same_epsilon():
    """Hierarchy: Δ = 2, each count Lap(2/ε), variance 8/ε²; bins alone: Δ = 1, Lap(1/ε), 2r/ε². Least squares beats
    the hierarchy's own raw answers everywhere, the bins alone only from r = ¾(B + 1) on (the dotted line)."""
    bins, eps = 6, 0.5
    fig = P.consistency_figure(bins, eps)
    alone, own, best, ls = (np.asarray(fig.data[i].y) for i in range(4))
    r = np.arange(1, bins + 1)
    assert alone.tolist() == pytest.approx((2 * r / eps**2).tolist(), rel=1e-14)
    assert own.tolist() == pytest.approx((8 * r / eps**2).tolist(), rel=1e-14)
    assert best.tolist() == pytest.approx((8 * np.minimum(r, bins + 1 - r) / eps**2).tolist(), rel=1e-14)
    assert ls.tolist() == pytest.approx((8 * r * (bins + 1 - r) / ((bins + 1) * eps**2)).tolist(), rel=1e-14)
    assert np.all(ls <= best * (1 + 1e-12))
    assert [bool(x) for x in ls < alone] == [x >= 0.75 * (bins + 1) for x in r]  # r ≥ 5.25: r = 6 only
    assert fig.layout.shapes[0].x0 == pytest.approx(0.75 * 7)
    assert "bins alone" in fig.data[0].name and "1/ε" in fig.data[0].name
    assert "multi-level" in _texts(fig)


def test_consistency_figure_replace_uses_the_public_total_and_wins_everywhere():
    bins, eps = 5, 2.0
    fig = P.consistency_figure(bins, eps, "replace")
    alone, best, ls = (np.asarray(fig.data[i].y) for i in range(3))
    r = np.arange(1, bins + 1)
    assert alone.tolist() == pytest.approx((8 * r / eps**2).tolist(), rel=1e-14)  # Δ = 2 under replace
    assert best.tolist() == pytest.approx((8 * np.minimum(r, bins - r) / eps**2).tolist(), rel=1e-14, abs=0)
    assert ls.tolist() == pytest.approx((8 * r * (bins - r) / (bins * eps**2)).tolist(), rel=1e-14, abs=1e-15)
    assert np.all(ls[:-1] < alone[:-1]) and ls[-1] == pytest.approx(0.0, abs=1e-15)
    assert "public" in _texts(fig) and not fig.layout.shapes


def test_clamping_figure_hides_the_rounded_curve_until_asked():
    shown, hidden = P.clamping_figure(1.0), P.clamping_figure(1.0, show_rounded=False)
    assert len(shown.data) == 3 and len(hidden.data) == 2
    assert "round" not in _texts(hidden)
    assert shown.data[2].y[0] == pytest.approx(S.rounded_laplace_mse(1.0), rel=1e-15)
    assert "+3.8 % against 2b²" in shown.data[2].name  # 2.0764/2 − 1 at ε = 1


def test_composition_figure_parallel_is_flat_sequential_grows_and_hidden_before_reveal():
    fig = P.composition_figure(0.5, 10, "add_remove")
    seq, par = fig.data
    assert np.allclose(np.asarray(seq.y), math.sqrt(2) * np.asarray(seq.x) / 0.5)
    assert np.allclose(np.asarray(par.y), math.sqrt(2) / 0.5)
    assert np.allclose(np.asarray(P.composition_figure(0.5, 10, "replace").data[1].y), 2 * math.sqrt(2) / 0.5)
    hidden = P.composition_figure(0.5, 10, show_parallel=False)
    assert len(hidden.data) == 1 and "parallel" not in _texts(hidden).split("Sequential")[0]


def test_local_central_figure_slopes():
    fig = P.local_central_figure(1.0, 2, "krr", 0.0, n_mark=1000)
    n, local = np.asarray(fig.data[0].x), np.asarray(fig.data[0].y)
    p, q = math.e / (math.e + 1), 1 / (math.e + 1)
    assert np.allclose(local, np.sqrt(n * q * (1 - q)) / (p - q), rtol=1e-12)
    assert np.allclose(np.asarray(fig.data[1].y), math.sqrt(2))
    assert fig.layout.shapes[0].x0 == 1000


@pytest.mark.parametrize("call,name", [
    (lambda: P.noise_figure(0.0, 1.0), "sensitivity"),
    (lambda: P.clipping_figure([1.0], 0.0, 5.0, 1.0, "count"), "query"),
    (lambda: P.composition_figure(1.0, 0), "bins"),
    (lambda: P.local_central_figure(1.0, 3, "rappor"), "protocol"),
    (lambda: P.consistency_figure(4, -1.0), "epsilon"),
])
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()

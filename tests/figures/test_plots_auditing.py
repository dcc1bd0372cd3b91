"""Figure builders of lesson 10: what is drawn equals the inputs / independent recomputations; no raw TeX;
Monte Carlo figures say so; bad input raises a ValueError naming the parameter."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
import pytest
from scipy import stats

from dpviz.plots import auditing as P


def _texts(fig: go.Figure) -> str:
    parts = [fig.layout.title.text or "", fig.layout.xaxis.title.text or "", fig.layout.yaxis.title.text or ""]
    parts += [a.text for a in fig.layout.annotations] + [t.name or "" for t in fig.data]
    return " ".join(parts)


def _no_tex(fig):
    s = _texts(fig)
    for bad in ("^{", "_{", "\\frac", "$"):
        assert bad not in s


def test_training_figure_draws_the_curves():
    t = np.array([0, 10, 20])
    fig = P.training_figure(t, [0.5, 0.7, 0.8], [0.5, 0.8, 0.85], noise_multiplier=1.0, clip_norm=1.0,
                            sampling_rate=0.05)
    assert list(fig.data[1].y) == [0.5, 0.7, 0.8] and list(fig.data[0].y) == [0.5, 0.8, 0.85]
    assert "Abadi et al. 2016" in _texts(fig)
    assert fig.layout.legend.orientation == "h"
    _no_tex(fig)
    with pytest.raises(ValueError, match="same length"):
        P.training_figure(t, [0.5], [0.5, 0.8, 0.85], noise_multiplier=1.0, clip_norm=1.0, sampling_rate=0.05)


def test_epsilon_steps_figure_log_axis_when_spanning_orders():
    fig = P.epsilon_steps_figure([1, 2, 4], [0.01, 0.1, 2.0], 1.9, 4, delta=1e-5)
    assert fig.layout.yaxis.type == "log"
    assert list(fig.data[1].x) == [4] and list(fig.data[1].y) == [1.9]
    fig = P.epsilon_steps_figure([1, 2, 4], [1.0, 1.5, 2.0], 1.9, 4, delta=1e-5)
    assert fig.layout.yaxis.type != "log"
    assert "Mironov, Talwar & Zhang 2019" in _texts(fig)
    _no_tex(fig)


def test_game_figure_densities_output_and_tally():
    fig = P.game_figure(0.8, 1.5, 0.3, [1, 2, 3], [0.0, 0.0, 0.4], 2.0, confidence=0.95)
    y = np.asarray(fig.data[0].x)
    np.testing.assert_allclose(fig.data[0].y, stats.norm.pdf(y, 0, 1.5), rtol=1e-12)
    np.testing.assert_allclose(fig.data[1].y, stats.norm.pdf(y, 0.8, 1.5), rtol=1e-12)
    assert fig.layout.shapes[0].x0 == 0.3
    assert list(fig.data[2].y) == [0.0, 0.0, 0.4] and fig.data[2].yaxis == "y2"
    assert list(fig.data[3].y) == [2.0, 2.0] and "claimed ε = 2" in fig.data[3].name
    assert "Clopper & Pearson 1934" in _texts(fig)
    # before a guess the title does not say which dataset produced the output
    assert "came from" not in fig.layout.title.text
    assert "came from x′" in P.game_figure(0.8, 1.5, 0.3, [], [], 2.0, confidence=0.95,
                                           truth="x′").layout.title.text
    _no_tex(fig)
    with pytest.raises(ValueError, match="sigma"):
        P.game_figure(0.8, 0.0, 0.3, [], [], 2.0, confidence=0.95)
    with pytest.raises(ValueError, match="same length"):
        P.game_figure(0.8, 1.0, 0.3, [1], [], 2.0, confidence=0.95)


def test_audit_trials_figure_marks_refuted_points():
    fig = P.audit_trials_figure([1000, 10000], [0.5, 1.8], 1.0, confidence=0.95)
    assert list(fig.data[1].x) == [10000] and list(fig.data[1].y) == [1.8]
    assert fig.layout.xaxis.type == "log"
    assert "Monte Carlo" in _texts(fig)
    _no_tex(fig)


def test_audit_outputs_figure_continuous_histogram_integrates_to_one():
    g = np.random.default_rng(0)
    a, b = g.normal(0, 1, 4000), g.normal(1, 1, 4000)
    fig = P.audit_outputs_figure(a, b, threshold=0.5, direction=1, discrete=False)
    w = fig.data[0].width
    # the window holds all but the 0.2% tails of the pooled sample (a little more or less per class)
    assert float(np.sum(fig.data[0].y) * w) == pytest.approx(1.0, abs=0.02)
    assert fig.layout.shapes[0].x0 == 0.5
    fig = P.audit_outputs_figure(a, b, threshold=0.5, direction=-1, discrete=False)
    assert fig.layout.shapes[0].x0 == -0.5  # the test "−o ≥ t" is "o ≤ −t"
    assert "Monte Carlo" in _texts(fig)


def test_audit_outputs_figure_discrete_fractions():
    a = np.array([0.0, 0.0, 1.0, 2.0])
    b = np.array([1.0, 1.0, 1.0, 2.0])
    fig = P.audit_outputs_figure(a, b, threshold=None, direction=1, discrete=True)
    assert list(fig.data[0].y) == [0.5, 0.25, 0.25] and list(fig.data[1].y) == [0.0, 0.75, 0.25]
    assert math.isclose(sum(fig.data[1].y), 1.0)


def test_accuracy_epsilon_figure_pairs_points():
    fig = P.accuracy_epsilon_figure([0.5, 1.0, 2.0], [0.6, 0.7, 0.8], [10, 20, 40], 1.7, 0.8, delta=1e-5)
    assert list(fig.data[0].x) == [0.5, 1.0, 2.0] and list(fig.data[0].y) == [0.6, 0.7, 0.8]
    assert list(fig.data[0].text) == ["t = 10", "t = 20", "t = 40"]
    assert list(fig.data[1].x) == [1.7] and list(fig.data[1].y) == [0.8]
    _no_tex(fig)
    with pytest.raises(ValueError, match="same length"):
        P.accuracy_epsilon_figure([0.5], [0.6, 0.7], [10, 20], 1.7, 0.8, delta=1e-5)


def test_noise_multiplier_is_z_and_sigma_is_the_standard_deviation():
    fig = P.training_figure([0, 10], [0.5, 0.7], [0.5, 0.8], noise_multiplier=1.5, clip_norm=2.0, sampling_rate=0.05)
    assert fig.data[0].name == "clipped SGD, no noise (z = 0)" and fig.data[1].name == "DP-SGD, z = 1.5"
    assert "z = 1.5" in fig.layout.title.text and "σ" not in fig.layout.title.text
    texts = _texts(fig)
    assert "σ = z·C" in texts and "public L = q·1000" in texts
    assert "noise σ = z·C" in _texts(P.epsilon_steps_figure([1], [1.0], 1.2, 1, delta=1e-5))
    assert "σ = z·C" in _texts(P.game_figure(0.8, 1.5, 0.3, [], [], 2.0, confidence=0.95))


def test_audit_trials_figure_draws_the_exact_epsilon_of_the_pair():
    fig = P.audit_trials_figure([1000, 10000], [0.2, 0.35], 1.0, confidence=0.95, exact_epsilon=0.396)
    assert [sh.y0 for sh in fig.layout.shapes] == [1.0, 0.396]
    assert "exact ε on this x, x′ = 0.396" in _texts(fig)
    fig = P.audit_trials_figure([1000, 10000], [3.0, 5.0], 1.63, confidence=0.95, exact_epsilon=97.84)
    assert len(fig.layout.shapes) == 1 and "exact ε on this x, x′ = 97.8 (off the scale)" in _texts(fig)
    assert "= ∞" in _texts(P.audit_trials_figure([100], [2.0], 1.0, confidence=0.95, exact_epsilon=math.inf))


@pytest.mark.parametrize("call,name", [
    (lambda: P.audit_trials_figure([1000], [math.nan], 1.0, confidence=0.95), "bounds"),
    (lambda: P.audit_trials_figure([1000, 10], [0.1], 1.0, confidence=0.95), "same length"),
    (lambda: P.training_figure([0], [1.5], [0.5], noise_multiplier=1.0, clip_norm=1.0, sampling_rate=0.1),
     "private_accuracy"),
    (lambda: P.epsilon_steps_figure([1, 2], [1.0], 1.0, 2, delta=1e-5), "same length"),
    (lambda: P.epsilon_steps_figure([1], [-1.0], 1.0, 2, delta=1e-5), "epsilon_rdp"),
    (lambda: P.game_figure(math.nan, 1.0, 0.3, [], [], 2.0, confidence=0.95), "shift"),
    (lambda: P.game_figure(0.5, 1.0, math.inf, [], [], 2.0, confidence=0.95), "output"),
    (lambda: P.audit_outputs_figure([0.0, 1.0], [1.0, 2.0], threshold=None, direction=0, discrete=True), "direction"),
])
def test_figures_refuse_what_they_cannot_draw(call, name):
    with pytest.raises(ValueError, match=name):
        call()

"""Figures of lesson 04: the bars and curves carry the exact numbers of dpviz.selection (checked against independent
closed forms where one exists), nothing hidden leaks, text has no raw TeX, figures are JSON-compliant."""

from __future__ import annotations

import json
import math

import numpy as np
import plotly.graph_objects as go
import pytest

from dpviz import selection as S
from dpviz.plots import selection as P


def _texts(fig: go.Figure) -> list[str]:
    lay = fig.layout
    out = [lay.title.text or "", lay.xaxis.title.text or "", lay.yaxis.title.text or ""]
    out += [t.name or "" for t in fig.data]
    out += [a.text or "" for a in lay.annotations]
    return out


def _figures():
    r = S.above_threshold([10.0, 80.0, 20.0, 90.0, 5.0], 50.0, 1.0, max_positives=1, rng=0)
    d, d2 = [0.0, 1.0, 0.0], [1.0, 0.0, 1.0]
    return [
        P.selection_probabilities_figure([3.0, 2.0, 2.0, 0.0], 1.0),
        P.selection_probabilities_figure([3.0, 2.0], 1.0, show_gumbel=False),
        P.utility_against_epsilon_figure(10, 2.0, 0.05),
        P.utility_against_k_figure(1.0, 2.0, 0.05),
        P.sparse_vector_stream_figure([10.0, 80.0, 20.0, 90.0, 5.0], 50.0, r),
        P.sparse_vector_budget_figure(r, 5),
        P.sparse_vector_check_figure(S.sparse_vector_privacy_loss(d, d2, 0.5, 1.0, variant="no_query_noise"), 1.0,
                                     "no_query_noise"),
    ]


def test_probability_bars_are_exact():
    u = [3.0, 2.0, 2.0, 0.0]
    fig = P.selection_probabilities_figure(u, 1.0)
    gumbel = np.array(fig.data[0].y, dtype=float)
    w = np.exp(np.array(u) / 2.0)  # softmax(εu/(2Δ)), ε = Δ = 1
    np.testing.assert_allclose(gumbel, w / w.sum(), rtol=1e-13)
    for trace, noise in zip(fig.data, S.NOISES):
        np.testing.assert_array_equal(np.array(trace.y, dtype=float), S.selection_probabilities(u, 1.0, noise=noise))


def test_hidden_bars_leak_nothing():
    fig = P.selection_probabilities_figure([3.0, 2.0], 1.0, show_gumbel=False)
    assert len(fig.data[0].y) == 0 and "hidden" in fig.data[0].name
    p = S.selection_probabilities([3.0, 2.0], 1.0)
    text = json.dumps(fig.to_plotly_json(), default=lambda o: o.tolist())
    assert f"{p[0]:.4g}" not in text and f"{p[0]:.3g}" not in text


def test_utility_curves_and_bound():
    fig = P.utility_against_epsilon_figure(10, 2.0, 0.05)
    eps = np.array(fig.data[0].x, dtype=float)
    bound = np.array(fig.data[3].y, dtype=float)
    np.testing.assert_allclose(bound, 2.0 / eps * math.log(10 / 0.05), rtol=1e-14)
    # exponential mechanism on (0, −2, …, −2): E[gap] = 2·9e^{−ε}/(1 + 9e^{−ε}) (ε/(2Δ)·d = ε)
    gap = np.array(fig.data[0].y, dtype=float)
    np.testing.assert_allclose(gap, 2 * 9 * np.exp(-eps) / (1 + 9 * np.exp(-eps)), rtol=1e-12)
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"
    fk = P.utility_against_k_figure(1.0, 2.0, 0.05)
    ks = np.array(fk.data[0].x, dtype=float)
    np.testing.assert_allclose(np.array(fk.data[0].y, dtype=float),
                               2 * (ks - 1) * np.exp(-1.0) / (1 + (ks - 1) * np.exp(-1.0)), rtol=1e-12)


def test_sparse_vector_figures_follow_the_run():
    q = [10.0, 80.0, 20.0, 90.0, 5.0]
    r = S.above_threshold(q, 50.0, 1.0, max_positives=2, rng=3)
    fig = P.sparse_vector_stream_figure(q, 50.0, r)
    n_up = len(fig.data[2].x)
    assert n_up == len(r.positives) and len(fig.data[1].x) + n_up == len(r.answers)
    assert fig.data[3].y[0] == pytest.approx(r.noisy_threshold)
    b = P.sparse_vector_budget_figure(r, 5)
    y = [v for v in b.data[0].y if v is not None]
    assert y[0] == pytest.approx(0.5) and y[-1] == pytest.approx(r.epsilon_spent)


def test_check_figure_marks_infinite_and_failing_bars():
    losses = {(False, True): math.inf, (True,): 0.3, (False, False): -2.0}
    fig = P.sparse_vector_check_figure(losses, 1.0, "no_query_noise")
    assert list(fig.data[0].text) == ["∞", "0.3", "-2"]
    assert fig.data[0].marker.color[1] != fig.data[0].marker.color[0] == fig.data[0].marker.color[2]
    assert "FAILS" in fig.layout.title.text
    ok = P.sparse_vector_check_figure({(True,): 0.3}, 1.0, "correct")
    assert "passes" in ok.layout.title.text


def test_figures_are_json_compliant_and_without_raw_tex():
    for f in _figures():
        json.dumps(f.to_plotly_json(), allow_nan=False, default=lambda o: o.tolist())
        for text in _texts(f):
            assert "^{" not in text and "_{" not in text and "$" not in text, text
        assert f.layout.template.layout.font.family.startswith("Inter")


def test_validation():
    with pytest.raises(ValueError, match="scores"):
        P.selection_probabilities_figure(np.zeros(61), 1.0)
    with pytest.raises(ValueError, match="epsilon"):
        P.selection_probabilities_figure([1.0, 2.0], 0.0)
    with pytest.raises(ValueError, match="k"):
        P.utility_against_epsilon_figure(1, 1.0, 0.05)
    with pytest.raises(ValueError, match="beta"):
        P.utility_against_k_figure(1.0, 1.0, 1.5)
    with pytest.raises(ValueError, match="d"):
        P.utility_against_k_figure(1.0, -1.0, 0.05)


def test_dotted_line_is_the_uniform_choice_limit_not_d():
    # a uniform choice among one best and k − 1 candidates d below loses d(k − 1)/k on average: 1.8 at k = 10,
    # d = 2 (the line used to be drawn at d and labelled "largest possible gap d")
    fig = P.utility_against_epsilon_figure(10, 2.0, 0.05)
    line = fig.data[4]
    assert "d(k − 1)/k" in line.name and "largest" not in line.name
    np.testing.assert_allclose(np.array(line.y, dtype=float), 1.8, rtol=1e-15)
    # it is the small-ε limit of the exact expected gaps (each candidate then wins with probability 1/k)
    u = np.r_[0.0, np.full(9, -2.0)]
    for noise in S.NOISES:
        assert S.expected_gap(u, 1e-9, noise=noise) == pytest.approx(1.8, rel=1e-8)
    fk = P.utility_against_k_figure(1.0, 2.0, 0.05)
    ks = np.array(fk.data[4].x, dtype=float)
    np.testing.assert_allclose(np.array(fk.data[4].y, dtype=float), 2.0 * (ks - 1) / ks, rtol=1e-15)


def test_sparse_vector_figures_name_the_noises_z_not_rho_or_nu():
    # ρ is the zCDP parameter and ν the total-variation drift elsewhere in the course
    r = S.above_threshold([10.0, 80.0, 20.0], 50.0, 1.0, rng=0)
    d, d2 = [0.0, 1.0], [1.0, 0.0]
    figs = [P.sparse_vector_stream_figure([10.0, 80.0, 20.0], 50.0, r), P.sparse_vector_budget_figure(r, 3)]
    figs += [P.sparse_vector_check_figure(S.sparse_vector_privacy_loss(d, d2, 0.5, 1.0, variant=v), 1.0, v)
             for v in S.SVT_VARIANTS]
    text = " ".join(" ".join(_texts(f)) for f in figs)
    assert "ρ" not in text and "ν" not in text and "D′" not in text
    assert "T + Z<sub>T</sub>" in text and "q<sub>i</sub> + Z<sub>i</sub>" in text


def test_budget_figure_says_the_account_is_ex_post_and_the_guarantee_is_epsilon():
    r = S.above_threshold([10.0, 80.0, 20.0], 50.0, 1.0, rng=0)
    fig = P.sparse_vector_budget_figure(r, 3)
    cap = " ".join(a.text for a in fig.layout.annotations)
    assert "Ex post" in cap and "guarantee ε" in cap and "privacy filter" in cap
    assert "ex post" in fig.data[0].name


def test_figure_inputs_are_checked():
    r = S.above_threshold([10.0, 80.0, 20.0], 50.0, 1.0, rng=0)
    with pytest.raises(ValueError, match="result"):
        P.sparse_vector_budget_figure(0, 3)
    with pytest.raises(ValueError, match="n_queries"):
        P.sparse_vector_budget_figure(r, P.FIGURE_QUERIES.limit + 1)
    with pytest.raises(ValueError, match="n_queries"):
        P.sparse_vector_budget_figure(r, len(r.answers) - 1)
    with pytest.raises(ValueError, match="result"):
        P.sparse_vector_stream_figure([10.0], 50.0, r)  # more answers than queries
    with pytest.raises(ValueError, match="variant"):
        P.sparse_vector_check_figure({(True,): 0.1}, 1.0, "alg7")
    with pytest.raises(ValueError, match="losses"):
        P.sparse_vector_check_figure({(True,): float("nan")}, 1.0, "correct")
    with pytest.raises(ValueError, match="pattern"):
        P.pattern_label("⊤⊥")
    with pytest.raises(ValueError, match="probabilities"):
        P.selection_probabilities_figure([1.0, 2.0], 1.0, probabilities={"laplace": [0.5]})
    with pytest.raises(ValueError, match="epsilon_mark"):
        P.utility_against_epsilon_figure(3, 1.0, 0.05, epsilon_mark=float("nan"))

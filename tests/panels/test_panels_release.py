"""Headless tests of the panels of "Releasing many answers": every control moves the figure, bad settings show a
message and no figure, each exercise's answer is right by an independent computation, and no answer shows before
the learner commits."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from dpviz import release as R
from dpviz.panels import release as PR
from dpviz.panels.panel import PANEL_REGISTRY

PANELS = [PR.ManyQueriesPanel, PR.TreeHistogramPanel, PR.MWEMPanel, PR.SyntheticDataPanel, PR.TopDownPanel]


def _data(p) -> str:
    return json.dumps([f.to_plotly_json() for f in p.figures], default=lambda o: o.tolist())


def _other(control):
    if hasattr(control, "options"):
        values = [o[1] if isinstance(o, tuple) else o for o in control.options]
        return next(x for x in values if x != control.value)
    if hasattr(control, "max"):
        return control.max if control.value != control.max else control.min
    return not control.value


@pytest.mark.parametrize("cls", PANELS)
def test_builds_registered_and_every_control_moves_the_figure(cls):
    p = cls().refresh()
    assert p.last_error is None and p.figures and cls.__name__ in PANEL_REGISTRY and p.readout.value
    for name, control in p.controls.items():
        before = _data(p)
        if cls is PR.SyntheticDataPanel and name in ("lo", "hi"):
            control.value = {"lo": 10, "hi": 100}[name]  # an end of the range would make lo ≥ hi: tested below
        else:
            control.value = _other(control)
        assert p.last_error is None, (name, p.last_error)
        assert _data(p) != before, name


def _shapes(fig) -> list:
    return fig.to_plotly_json()["layout"].get("shapes") or []


def test_many_queries_exercise_and_the_crossing_hidden_until_then():
    p = PR.ManyQueriesPanel().refresh()
    p.controls["width"].value = 50
    assert not _shapes(p.figures[0]) and not _shapes(p.figures[1])
    assert "answer the exercise" in p.figures[0].layout.annotations[0].text.lower()
    k = next(k for k in range(1, 100) if 2 * k * k > 2 * 50)  # first k with Var_comp = 2k²/ε² > Var_hist = 2w/ε²
    assert k == 8
    p.exercise.guess.value = 3.0
    assert "the answer is 8" in p.exercise.feedback.value
    assert _shapes(p.figures[0])[0]["x0"] == pytest.approx(math.sqrt(50))
    p.controls["width"].value = 64
    assert not _shapes(p.figures[0])  # a new setting: predict again


def test_many_queries_readout_is_exact():
    p = PR.ManyQueriesPanel(epsilon=0.5, k=20, width=100).refresh()
    assert f"{math.sqrt(2) * 20 / 0.5:.4g}" in p.readout.value and f"{math.sqrt(200) / 0.5:.4g}" in p.readout.value
    assert "the histogram" in p.readout.value  # 100 < 400


def test_misconceptions_give_feedback_only_after_a_pick():
    for cls, right in [(PR.ManyQueriesPanel, 1), (PR.MWEMPanel, 0), (PR.SyntheticDataPanel, 1), (PR.TopDownPanel, 1)]:
        ex = cls().refresh().misconception
        assert ex.feedback.value == "" and "Pick" in ex.reveal()
        ex.choice.index = right
        assert ex.reveal().startswith("✅"), cls
        ex.choice.index = (right + 1) % 3
        assert ex.reveal().startswith("❌"), cls


def _consistent_first_win(L: int) -> int:
    """Independent: the least-squares covariance σ²(AᵀA)⁻¹ of the tree by numpy, averaged over positions."""
    n, v = 2**L, 2.0 * (L + 1) ** 2
    A = np.concatenate([np.kron(np.eye(2**lvl), np.ones((1, n >> lvl))) for lvl in range(L + 1)])
    C = v * np.linalg.inv(A.T @ A)
    S = np.zeros((n + 1, n + 1))
    S[1:, 1:] = C.cumsum(0).cumsum(1)
    cons = np.array([np.mean([S[lo + w, lo + w] - S[lo, lo + w] - S[lo + w, lo] + S[lo, lo]
                              for lo in range(n - w + 1)]) for w in range(1, n + 1)])
    better = cons < 2.0 * np.arange(1, n + 1)
    return int(np.nonzero(~better)[0][-1] + 2)


def test_tree_exercise_answer_is_the_least_squares_crossover_and_hidden_before():
    p = PR.TreeHistogramPanel(depth=6).refresh()
    answer = _consistent_first_win(6)
    assert len(p.figures[0].data[2].y) == 0 and "?" in p.readout.value
    assert f"from width {answer}" not in p.readout.value and f"width {answer} on" not in p.exercise.feedback.value
    p.exercise.guess.value = 5.0
    assert f"from width {answer} on" in p.exercise.feedback.value
    assert len(p.figures[0].data[2].y) == 64 and f"from width {answer} on" in p.readout.value


def test_tree_at_1024_cells_reports_the_lessons_finding():
    p = PR.TreeHistogramPanel().refresh()
    assert "only on the whole domain" in p.readout.value
    p.exercise.guess.value = 239.0
    assert p.exercise.feedback.value.startswith("<div") and "239" in p.exercise.feedback.value


def test_mwem_exercise_answer_and_streamed_errors():
    p = PR.MWEMPanel(epsilon=2.0, rounds=10).refresh()
    p.exercise.guess.value = 0.1
    assert f"{2.0 / 20:.4g}" in p.exercise.feedback.value
    errors = np.array(p.figures[0].data[0].y, dtype=float)
    assert errors.shape == (len(PR.MWEM_ROUNDS),) and np.all(np.isfinite(errors))
    # the run at T = 10 again, independently of the panel: the first run of the draw with seed 0
    h = R.example_age_histogram(PR.PEOPLE, PR.MWEM_BINS)
    Q = R.range_query_matrix(PR._mwem_ranges(100, PR.MWEM_BINS), PR.MWEM_BINS)
    g = np.random.default_rng(0)
    R.noisy_histogram(h, 2.0, rng=g)
    run = R.mwem(h, Q, 2.0, 10, rng=g)
    assert errors[PR.MWEM_ROUNDS.index(10)] == pytest.approx(float(np.max(np.abs(Q @ run.synthetic - Q @ h))))


def test_mwem_queries_are_valid_ranges():
    r = PR._mwem_ranges(400, 64)
    assert np.all(r[:, 0] >= 0) and np.all(r[:, 1] <= 64) and np.all(r[:, 1] > r[:, 0])


def test_synthetic_exercise_hides_the_marginal_bars_and_answers_the_product():
    p = PR.SyntheticDataPanel().refresh()
    J = R.example_age_table(PR.PEOPLE, PR.BINS)
    answer = J.sum() * (J[65:].sum() / J.sum()) * (J[:, 1].sum() / J.sum())  # N·P(age ≥ 65)·P(retired)
    assert list(p.figures[1].data[0].y) == [1266.0] and "?" in p.readout.value
    assert f"{answer:.5g}" not in _data(p) + p.readout.value
    p.exercise.guess.value = 1000.0
    assert f"{answer:.5g}" in p.exercise.feedback.value
    assert p.figures[1].data[0].y[1] == pytest.approx(answer, rel=1e-12)


def test_synthetic_bad_range_is_a_message_and_no_figure():
    p = PR.SyntheticDataPanel().refresh()
    p.controls["lo"].value = 100
    p.controls["hi"].value = 50
    assert p.last_error is not None and "not allowed" in p.last_error
    assert p._figbox.layout.visibility == "hidden" and p.readout.value == ""
    p.controls["hi"].value = 120
    assert p.last_error is None and p._figbox.layout.visibility == "visible"


def test_topdown_exercise_sigma_and_consistency():
    p = PR.TopDownPanel(rho=0.03).refresh()
    p.exercise.guess.value = 1.0
    assert f"{math.sqrt(3 / (2 * 0.03)):.4g}" in p.exercise.feedback.value  # σ² = 1/(2·ρ/3)
    assert "yes" in p.readout.value

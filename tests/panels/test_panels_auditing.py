"""Headless tests of the lesson-07 panels: controls change figures, the game's tally and bound follow the guesses,
the audit flags the planted bugs, nothing gives an exercise's answer away before Reveal."""

from __future__ import annotations

import numpy as np
import pytest

from dpviz import audit as A
from dpviz import dpsgd as D
from dpviz.panels.auditing import AuditPanel, DPSGDPanel, NeighbourGamePanel


def test_dpsgd_panel_trains_and_reports_both_accountants():
    p = DPSGDPanel(steps=50).refresh()
    assert p.last_error is None and p.streams and p.on_release  # fires on release
    rdp = p.figures[1].data[0].y[-1]
    pld = p.figures[1].data[1].y[0]
    q = p.values()["sampling_rate"]  # 10^−1.3 ≈ 0.0501: the log slider's grid point nearest 0.05
    assert abs(q - 0.05) < 0.001
    assert rdp == D.dpsgd_epsilon(1.0, q, 50, 1e-5, accountant="rdp")
    assert pld == D.dpsgd_epsilon(1.0, q, 50, 1e-5, accountant="pld")
    before = np.asarray(p.figures[0].data[1].y).copy()
    p.controls["noise_multiplier"].value = 4.0
    assert p.last_error is None and not np.array_equal(before, np.asarray(p.figures[0].data[1].y))


def test_dpsgd_prediction_not_shown_before_reveal():
    p = DPSGDPanel(steps=50).refresh()
    answer = D.dpsgd_epsilon(1.0, p.values()["sampling_rate"], 100, 1e-5)
    shown = p.readout.value + " ".join(str(list(t.y)) for f in p.figures for t in f.data)
    assert f"{answer:.3g}" not in shown and f"{answer:.4g}" not in shown
    assert p.exercise.feedback.value == ""
    p.exercise.guess.value = answer
    assert "Close" in p.exercise.reveal()


@pytest.mark.slow
@pytest.mark.parametrize("T,shown,checkpoints", [(1000, [50, 250, 500, 750, 1000], [250, 500, 750, 1000]),
                                                  (200, [50, 100, 150, 200], [50, 100, 150, 200])])
def test_dpsgd_panel_streams_the_run_labelled_partial_and_ends_on_the_whole_run(T, shown, checkpoints):
    """Streamed (issue 17): a view about 50 steps in, then every quarter; each partial view says so in every title
    and the readout, draws a prefix of the final curves and the RDP ε of the checkpoints reached (no PLD point yet),
    and never shows the exercise's answer."""
    p = DPSGDPanel(steps=T).refresh()
    v = p.values()
    q = v["sampling_rate"]
    steps = list(p.render(v))
    assert [st.done for st in steps] == shown and all(st.total == T for st in steps)
    assert [st.final for st in steps] == [False] * (len(shown) - 1) + [True]
    final = steps[-1].draw()
    assert all("after" not in f.layout.title.text for f in final.figures)
    answer = D.dpsgd_epsilon(1.0, q, 2 * T, 1e-5)
    for st in steps[:-1]:
        t = st.done
        view = st.draw()
        assert all(f"after {t} of {T} steps" in f.layout.title.text for f in view.figures)
        assert f"after {t} of {T} steps" in view.readout and view.hint is None
        x = np.asarray(view.figures[0].data[1].x)
        assert x[-1] == t and len(x) >= 2
        for i in (0, 1):  # the noise-free reference and DP-SGD: prefixes of the final curves
            np.testing.assert_array_equal(view.figures[0].data[i].y, np.asarray(final.figures[0].data[i].y)[:len(x)])
        reached = [c for c in checkpoints if c <= t]
        assert list(view.figures[1].data[0].x) == reached
        assert list(view.figures[1].data[0].y) == [D.dpsgd_epsilon(1.0, q, c, 1e-5, accountant="rdp") for c in reached]
        assert len(view.figures[1].data[1].x) == 0 and len(view.figures[2].data[1].x) == 0  # no PLD ε before T
        shown_text = view.readout + " ".join(str(list(tr.y)) + str(list(tr.x)) for f in view.figures for tr in f.data)
        assert f"{answer:.3g}" not in shown_text and f"{answer:.4g}" not in shown_text
    assert p.exercise.feedback.value == ""


def test_game_tally_and_bound():
    p = NeighbourGamePanel(rng=3).refresh()
    assert p.last_error is None
    for _ in range(40):
        p.guess(p.game.output > 0.5)  # the likelihood-ratio test of two Gaussians: a threshold half-way
    g = p.game
    assert g.positives + g.negatives == 40 and len(g.history) == 40
    assert len(p.figures[0].data[2].y) == 40
    expected = A.epsilon_lower_bound(g.true_positives, g.false_positives, g.positives, g.negatives, delta=1e-5)
    assert p.figures[0].data[2].y[-1] == expected == g.bound()
    assert f"{g.true_positives} / {g.false_positives}" in p.readout.value
    # another mechanism: a new game
    p.controls["noise_multiplier"].value = 2.0
    assert p.game is not g and p.game.rounds == 0


def test_game_buttons_are_actions_that_play_a_round_and_start_over():
    """The guess buttons play the current round of the panel's core game (then the panel redraws); "start over"
    deals a new game with the same mechanism."""
    p = NeighbourGamePanel(rng=4).refresh()
    g = p.game
    secret = g._secret_is_prime
    p.guess_xp.click()
    assert p.game is g and g.rounds == 1 and g.true_positives == int(secret) and g.false_positives == int(not secret)
    p.guess_x.click()
    assert g.rounds == 2 and g.true_positives + g.false_positives == 1
    assert "rounds played" in p.readout.value and "2 (" in p.readout.value
    assert len(p.figures[0].data[2].y) == 2
    p.reset.click()
    assert p.game is not g and p.game.rounds == 0 and p.game.shift == g.shift and "0 (0 on x′" in p.readout.value


def test_game_does_not_reveal_the_secret_before_the_guess():
    p = NeighbourGamePanel(rng=5).refresh()
    secret = "x′" if p.game._secret_is_prime else "x"
    assert "came from" not in p.figures[0].layout.title.text
    p.guess(True)
    assert "came from" in p.figures[0].layout.title.text and secret in p.figures[0].layout.title.text


def test_game_canary_is_clipped():
    p = NeighbourGamePanel(rng=1, canary=3.0).refresh()
    x, y = np.asarray(p.figures[0].data[1].x), np.asarray(p.figures[0].data[1].y)
    assert abs(x[np.argmax(y)] - 1.0) < 0.05 and p.game.shift == 1.0
    assert "clipped" in p.hint.value


def test_game_labels_say_noise_multiplier_z():
    p = NeighbourGamePanel(rng=1).refresh()
    assert p.controls["noise_multiplier"].description.startswith("noise multiplier z")
    assert "σ = z·C" in p.intro


def test_audit_panel_flags_bug_and_not_correct_one():
    p = AuditPanel().refresh()
    assert p.last_error is None and "not refuted" in p.readout.value
    p.controls["mechanism"].value = "dpsgd_no_clip"
    assert "REFUTED" in p.readout.value and A.AUDIT_CASES["dpsgd_no_clip"].bug in p.readout.value
    assert len(p.figures[0].data[1].x) >= 1  # a refuted point is marked
    p.controls["mechanism"].value = "svt_ok"
    assert "not refuted" in p.readout.value


def test_audit_panel_defaults_refute_exactly_the_buggy_cases():
    p = AuditPanel().refresh()
    for key, case in A.AUDIT_CASES.items():
        p.controls["mechanism"].value = key
        assert p.last_error is None
        assert ("REFUTED" in p.readout.value) == case.buggy, key


def test_audit_misconception_exercise():
    p = AuditPanel().refresh()
    assert p.exercise.feedback.value == ""
    correct = [i for i, (_, ok, _) in enumerate(p.exercise.options) if ok]
    p.exercise.choice.index = correct[0]
    assert p.exercise.reveal().startswith("✅")
    p.exercise.choice.index = (correct[0] + 1) % len(p.exercise.options)
    assert p.exercise.reveal().startswith("❌")


def test_dpsgd_panel_names_z_and_the_public_denominator():
    p = DPSGDPanel(steps=50).refresh()
    assert p.controls["noise_multiplier"].description.startswith("noise multiplier z")
    q = p.values()["sampling_rate"]
    assert "public expected batch size L = q·1000" in p.readout.value
    assert f"{D.lesson_batch_size(q):.1f}" in p.readout.value
    assert "z = 1" in p.figures[0].data[1].name and "σ" not in p.figures[0].data[1].name
    assert "σ = z·C" in p.intro and "L = q·1000" in p.intro


def test_dpsgd_explanation_states_when_growth_is_sub_linear():
    """Lesson 06's turn: the factor for 2T lies between √2 (spread) and 2 (mean); the explanation says which."""
    p = DPSGDPanel(steps=50).refresh()
    v = p.values()
    text = p._explain(v, p._answer(v))
    assert "sub-linearly only while the spread dominates" in text
    now = D.dpsgd_epsilon(1.0, v.sampling_rate, 50, 1e-5)
    ratio = p._answer(v) / now
    assert ("here the spread dominates" in text) == (ratio < 1.71)


def test_audit_panel_shows_the_claim_and_the_computed_exact_epsilon():
    p = AuditPanel().refresh()
    p.controls["mechanism"].value = "svt_ok"
    case = A.AUDIT_CASES["svt_ok"]
    assert "claimed" in p.readout.value and "0.396" in p.readout.value
    notes = " ".join(a.text for a in p.figures[0].layout.annotations)
    assert "claimed ε = 1" in notes and "exact ε on this x, x′ = 0.396" in notes
    assert case.exact_epsilon < case.claimed_epsilon
    p.controls["mechanism"].value = "svt_no_query_noise"
    assert "∞" in p.readout.value

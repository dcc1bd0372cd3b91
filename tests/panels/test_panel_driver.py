"""The panel base (dpviz.panels.panel): declared controls, one render method, the cooperative driver.

Toy panels whose renders are known exactly: each test says what the learner must see, and fails on a base that
renders in ``__init__``, ignores a rule, lets a stale generator draw, or hides a bug behind a stale figure.
"""

from __future__ import annotations

import asyncio

import numpy as np
import plotly.graph_objects as go
import pytest

from dpviz.panels import (
    Action,
    Checkbox,
    Choice,
    ChoiceReveal,
    IntSlider,
    LogSlider,
    Panel,
    PredictReveal,
    Slider,
    Step,
    View,
)
from dpviz.panels import panel as base


def _fig(y) -> go.Figure:
    return go.Figure(go.Scatter(x=np.arange(len(y)), y=np.asarray(y, dtype=float)))


class _Plain(Panel):
    title = "plain"
    controls = {
        "a": Slider("a", 1.0, 0.0, 4.0, step=0.5),
        "kind": Choice("kind", [("Line", "line"), ("Flat", "flat")], "line"),
        "b": IntSlider("b", 2, 1, 5, visible=lambda v: v.kind == "line"),
        "n": LogSlider("n", 100, 10, 1e4, step=0.5, integer=True),
        "c": IntSlider("c", 3, 1, max=lambda v: v.b),
        "on": Checkbox("on", True),
    }
    renders = 0

    def render(self, v):
        type(self).renders += 1
        if v.a == 3.5:
            raise ValueError("a = 3.5 is not allowed: the toy refuses it.")
        if v.a == 4.0:
            raise RuntimeError("a bug")
        y = [v.a * i for i in range(3)] if v.kind == "line" else [v.a] * 3
        return View([_fig(y)], readout=f"n={v.n} c={v.c}", hint="big" if v.a > 2 else None)


def test_init_never_renders_and_refresh_renders_once():
    _Plain.renders = 0
    p = _Plain()
    assert _Plain.renders == 0 and p.figures == []
    assert p.refresh() is p and _Plain.renders == 1
    assert list(p.figures[0].data[0].y) == [0.0, 1.0, 2.0]


def test_values_are_attributes_in_real_units_and_integer_log_sliders_give_ints():
    v = _Plain().values()
    assert (v.a, v.kind, v.b, v.n, v.on) == (1.0, "line", 2, 100, True) and type(v.n) is int
    with pytest.raises(AttributeError, match="no control named 'zz'"):
        v.zz  # noqa: B018


def test_a_control_change_redraws_in_place():
    p = _Plain().refresh()
    fig = p.figures[0]
    p.controls["a"].value = 2.0
    assert p.figures[0] is fig and list(fig.data[0].y) == [0.0, 2.0, 4.0]
    p.controls["kind"].value = "flat"
    assert list(fig.data[0].y) == [2.0, 2.0, 2.0]


def test_visibility_follows_its_rule_and_a_hidden_control_keeps_its_value():
    p = _Plain().refresh()
    assert p.controls["b"].layout.display is None
    p.controls["kind"].value = "flat"
    assert p.controls["b"].layout.display == "none" and p.values().b == 2
    p.controls["kind"].value = "line"
    assert p.controls["b"].layout.display is None


def test_a_bound_rule_moves_the_bound_and_clamps_the_value_before_the_render():
    p = _Plain().refresh()
    assert p.controls["c"].max == 2 and p.values().c == 2  # the default 3 is above max = b = 2
    assert p.readout.value == "n=100 c=2"
    p.controls["b"].value = 5
    assert p.controls["c"].max == 5
    p.controls["c"].value = 5
    p.controls["b"].value = 1
    assert p.controls["c"].max == 1 and p.values().c == 1 and p.readout.value == "n=100 c=1"


def test_a_value_error_hides_the_figure_behind_a_message_and_the_next_setting_brings_it_back():
    p = _Plain().refresh()
    p.controls["a"].value = 3.5
    assert "the toy refuses it" in p.status.value and p.figures[0] and p._figbox.layout.visibility == "hidden"
    assert p.readout.value == "" and p.last_error.startswith("a = 3.5")
    p.controls["a"].value = 3.0
    assert p.status.value == "" and p._figbox.layout.visibility == "visible" and p.last_error is None


def test_a_bug_is_contained_as_a_short_message(caplog):
    p = _Plain().refresh()
    p.controls["a"].value = 4.0
    assert "Something went wrong" in p.status.value and "RuntimeError" in p.status.value
    assert "Traceback" not in p.status.value


def test_overrides_are_checked_against_the_declaration():
    assert _Plain(a=2.5, kind="flat").values().a == 2.5
    with pytest.raises(ValueError, match=r"a = 9 is not allowed for _Plain: must be a number in \[0, 4\]"):
        _Plain(a=9)
    with pytest.raises(ValueError, match=r"kind = 'x' is not allowed for _Plain: must be one of \['line', 'flat'\]"):
        _Plain(kind="x")
    with pytest.raises(ValueError, match="zz is not a control of _Plain"):
        _Plain(zz=1)


def test_the_browser_may_set_only_declared_values_in_range():
    p = _Plain().refresh()
    a = p.controls["a"]
    a.set_state({"value": 100.0})
    assert a.value == 1.0
    a.set_state({"max": 1e9, "value": 2.0})  # min/max are not the browser's to set: the whole message is refused
    assert a.max == 4.0
    a.set_state({"value": 2.0})
    assert a.value == 2.0
    p.controls["kind"].set_state({"index": 7})
    assert p.values().kind == "line"
    p.controls["on"].set_state({"value": "yes"})
    assert p.values().on is True


def test_bench_values_come_from_the_declaration():
    vals = _Plain().bench_values()
    assert vals["kind"] == ["line", "flat"] and vals["on"] == [True, False]
    assert vals["n"][0] == pytest.approx(10) and vals["n"][-1] == pytest.approx(1e4)
    assert np.allclose(np.diff(np.log10(vals["n"])), np.log10(1e3) / 11)


def test_declarations_refuse_bad_specs():
    with pytest.raises(ValueError, match=r"value = 5.0 is not allowed: must be in \[min, max\]"):
        Slider("a", 5.0, 0.0, 1.0)
    with pytest.raises(ValueError, match="log slider's values must be > 0"):
        LogSlider("n", 1.0, 0.0, 10.0)
    with pytest.raises(ValueError, match="must be one of"):
        Choice("k", ["a", "b"], "c")
    with pytest.raises(ValueError, match="done = -1"):
        Step(-1, 2, lambda: None)


# -- exercises and actions -----------------------------------------------------------------------------------------


class _Quiz(Panel):
    controls = {"a": Slider("a", 1.0, 0.0, 4.0, step=0.5)}

    def _answer(self, v):
        return 2 * v.a

    def _question(self, v):
        return f"What is 2·{v.a:g}?"

    exercises = {
        "exercise": PredictReveal(_question, answer=_answer, explain=lambda panel, v, t: f"because 2·{v.a:g}={t:g}",
                                  redraw=True),
        "keep": ChoiceReveal("Which?", [("yes", True, "right"), ("no", False, "tempting")], redraw=True, sticky=True),
    }
    actions = {"double": Action("Double a", lambda panel, v: panel.hits.append(v.a))}

    def __init__(self, **kw):
        self.hits: list[float] = []
        super().__init__(**kw)

    def render(self, v):
        return View([_fig([v.a])], readout=f"revealed={self.revealed('exercise')} keep={self.revealed('keep')}")


def test_an_exercise_question_follows_the_settings_and_reveal_redraws_until_a_control_moves():
    p = _Quiz().refresh()
    assert "What is 2·1?" in p.exercise.question.value and p.exercise.feedback.value == ""
    assert "2" not in p.readout.value.replace("revealed", "")  # no answer shown before the learner commits
    p.exercise.guess.value = 2.0
    assert "✅ Close" in p.exercise.feedback.value and "because 2·1=2" in p.exercise.feedback.value
    assert p.readout.value == "revealed=True keep=False"
    p.controls["a"].value = 1.5
    assert p.readout.value == "revealed=False keep=False" and "What is 2·1.5?" in p.exercise.question.value


def test_a_sticky_choice_stays_revealed_and_a_reveal_without_a_pick_commits_nothing():
    p = _Quiz().refresh()
    p.keep.reveal()
    assert "Pick the statement" in p.keep.feedback.value and not p.revealed("keep")
    p.keep.choice.index = 1
    p.keep.reveal()
    assert "❌ Not quite. tempting" in p.keep.feedback.value and p.revealed("keep")
    p.controls["a"].value = 2.0
    assert p.revealed("keep") and p.readout.value == "revealed=False keep=True"


def test_exercises_are_built_per_panel():
    a, b = _Quiz().refresh(), _Quiz().refresh()
    a.exercise.guess.value = 2.0
    assert a.exercise is not b.exercise and b.exercise.feedback.value == "" and not b.revealed("exercise")


def test_an_action_acts_with_the_current_values_then_redraws():
    p = _Quiz(a=2.5).refresh()
    p.double.click()
    assert p.hits == [2.5]


# -- streamed renders ----------------------------------------------------------------------------------------------


class _Stream(Panel):
    controls = {"a": Slider("a", 1.0, 0.0, 4.0, step=0.5)}
    log: list = []

    def render(self, v):
        for k in range(1, 4):
            type(self).log.append((v.a, k))
            if v.a == 3.5 and k == 2:
                raise ValueError("a = 3.5 is not allowed at step 2.")
            yield Step(k, 3, lambda k=k: View([_fig([v.a, k])], readout=f"{v.a}:{k}"), unit="rounds")


@pytest.fixture
def stream(monkeypatch):
    monkeypatch.setattr(base, "PARTIAL_INTERVAL", 0.0)
    _Stream.log = []
    p = _Stream().refresh()
    p.background = True
    return p


def test_a_streamed_panel_renders_on_release_and_its_first_render_is_complete():
    p = _Stream().refresh()
    assert p.streams and p.controls["a"].continuous_update is False and p.readout.value == "1.0:3"


def test_a_change_shows_the_first_partial_result_at_once_then_steps_to_the_final_one(stream):
    stream.controls["a"].value = 2.0
    assert stream.readout.value == "2.0:1" and "Partial result, after 1 of 3 rounds" in stream.note.value
    assert stream.progress.layout.visibility == "visible" and stream.stop_button.layout.visibility == "visible"
    assert stream.wait()
    assert stream.readout.value == "2.0:3" and stream.note.value == "" and stream._job is None
    assert stream.progress.layout.visibility == "hidden" and len(stream.timings.first) == 1


def test_a_newer_change_closes_the_stale_generator(stream):
    stream.controls["a"].value = 2.0
    stream.controls["a"].value = 3.0
    stream.wait()
    assert stream.readout.value == "3.0:3"
    assert [k for a, k in _Stream.log if a == 2.0] == [1]  # the stale render never computed its second step


def test_stop_keeps_the_partial_figure_with_a_note(stream):
    stream.controls["a"].value = 2.0
    stream.stop()
    assert "Stopped after 1 of 3 rounds" in stream.note.value and stream.readout.value == "2.0:1"
    assert stream.wait() and [k for a, k in _Stream.log if a == 2.0] == [1]


def test_an_error_in_a_later_step_becomes_the_friendly_message(stream):
    stream.controls["a"].value = 3.5
    stream.wait()
    assert "at step 2" in stream.status.value and stream._figbox.layout.visibility == "hidden"
    assert stream.note.value == "" and stream.stop_button.layout.visibility == "hidden"


def test_steps_that_come_too_soon_are_skipped_but_the_final_one_is_drawn(monkeypatch, stream):
    monkeypatch.setattr(base, "PARTIAL_INTERVAL", 1e9)
    drawn = []
    monkeypatch.setattr(stream, "_apply", lambda view: drawn.append(view.readout))
    stream.controls["a"].value = 2.0
    stream.wait()
    assert drawn == ["2.0:1", "2.0:3"]


def test_on_a_running_event_loop_steps_interleave_with_other_messages():
    """In a kernel the steps run on the loop with a pause between them (``PAUSE``): a message that is already
    waiting (here a later control change, scheduled as the page's next message) is handled before the next step,
    and closes the stale render; the new one then runs to its end."""
    _Stream.log = []
    p = _Stream().refresh()

    async def main():
        loop = asyncio.get_running_loop()
        p.controls["a"].value = 2.0  # inside the loop, as a comm message handler
        assert p.readout.value == "2.0:1"
        loop.call_soon(lambda: setattr(p.controls["a"], "value", 3.0))
        for _ in range(200):
            await asyncio.sleep(0.005)
            if p.readout.value == "3.0:3":
                break
        return p.readout.value

    assert asyncio.run(main()) == "3.0:3"
    assert [k for a, k in _Stream.log if a == 2.0] == [1]  # no further step of the stale render ran first


def test_without_the_pause_a_waiting_message_would_wait_a_step():
    """The pause is what lets the message through: with steps scheduled for the very next turn (``PAUSE = 0``) the
    stale render takes one more step before the change is handled (the check above would fail)."""
    import dpviz.panels.panel as panel_module

    _Stream.log = []
    p = _Stream().refresh()
    saved, panel_module.PAUSE = panel_module.PAUSE, 0.0
    try:
        async def main():
            loop = asyncio.get_running_loop()
            p.controls["a"].value = 2.0
            loop.call_soon(lambda: loop.call_soon(lambda: setattr(p.controls["a"], "value", 3.0)))
            for _ in range(50):
                await asyncio.sleep(0)
            return p.readout.value

        assert asyncio.run(main()) == "3.0:3"
    finally:
        panel_module.PAUSE = saved
    assert [k for a, k in _Stream.log if a == 2.0] == [1, 2]


def test_overrides_meet_the_bound_rules_at_their_settings():
    """A bound that follows another control holds from the start: c ≤ b is checked at the panel's settings, with
    the overrides applied (a later override that moves an earlier one's bound is refused, not clamped)."""
    assert _Plain(b=4, c=3).values().c == 3
    assert _Plain().bench_values()["c"] == [1, 2]  # the rule's range at the defaults, before any render
    with pytest.raises(ValueError, match=r"c = 3 is not allowed for _Plain: must be an integer in \[1, 2\]"):
        _Plain(c=3)
    class _Later(_Plain):  # c's bound follows b, declared after c: b = 1 moves it below c
        controls = {"c": IntSlider("c", 3, 1, max=lambda v: v.b), "b": IntSlider("b", 5, 1, 5)}

    with pytest.raises(ValueError, match=r"c = 4 is not allowed for _Later with these settings: must be in \[1, 1\]"):
        _Later(c=4, b=1)


class _Pausing(Panel):
    controls = {"a": Slider("a", 1.0, 0.0, 4.0, step=0.5)}
    log: list = []

    def render(self, v):
        for k in range(1, 3):
            for part in range(3):  # a long step in three parts, a pause after each
                type(self).log.append((v.a, k, part))
                yield
            yield Step(k, 2, lambda k=k: View([_fig([v.a, k])], readout=f"{v.a}:{k}"))


def test_a_bare_yield_is_a_pause_after_the_first_result_and_nothing_before_it(monkeypatch):
    """Before the first result (what the learner waits for) pauses run on; after it, a pause hands the loop back, so
    a newer change arriving there stops the stale render mid-step."""
    monkeypatch.setattr(base, "PARTIAL_INTERVAL", 0.0)
    _Pausing.log = []
    p = _Pausing().refresh()
    assert p.readout.value == "1.0:2"  # a synchronous render skips the pauses
    p.background = True
    p.controls["a"].value = 2.0
    assert p.readout.value == "2.0:1" and [x for x in _Pausing.log if x[0] == 2.0] == [(2.0, 1, 0), (2.0, 1, 1),
                                                                                      (2.0, 1, 2)]
    p._advance(p._job)  # one turn of the loop: one part of the second step, then a pause
    assert [x for x in _Pausing.log if x[0] == 2.0][-1] == (2.0, 2, 0) and p.readout.value == "2.0:1"
    p.controls["a"].value = 3.0
    p.wait()
    assert p.readout.value == "3.0:2" and [x for x in _Pausing.log if x[0] == 2.0][-1] == (2.0, 2, 0)

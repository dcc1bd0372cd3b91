"""Slow panels stay live: a streamed render (a generator) shows its first result at once and refines step by step
on the kernel's event loop; a newer change closes the stale render, Stop keeps the partial figure, errors are shown
as in a synchronous update.

Every lesson panel whose render is a generator is driven here with ``background`` set and no event loop, so each
test steps the render itself (:meth:`Panel.wait`, or one :meth:`Panel._advance` at a time): the order is exact,
with no threads and no sleeps. Figures are compared as their plotly JSON (trace uids aside) with what a
synchronous update at the same settings draws. (The driver on a real asyncio loop: tests/panels/test_panel_driver.py.)
"""

from __future__ import annotations

import html
import inspect
import json

import pytest

import dpviz.mean.robust as robust_module
from dpviz.learning import experiments
from dpviz.panels.auditing import AuditingProblemsPanel, DPSGDPanel
from dpviz.panels.composition import (
    AccountingProblemsPanel,
    CalibrationPanel,
    CompositionLabPanel,
    EpsilonVsCompositionsPanel,
)
from dpviz.panels.few_examples import ThresholdLearnerPanel
from dpviz.panels.learning import HeterogeneityPanel, TrainLivePanel
from dpviz.panels.means import RobustnessPanel
from dpviz.panels.panel import registered_panels
from dpviz.panels.release import MWEMPanel, TreeHistogramPanel

#: panel, settings that keep it quick, the control moved, and two values for it (first, second)
CASES = {
    "TrainLivePanel": (TrainLivePanel, {"n": 100.0, "m": 5.0, "T": 40}, "epsilon", 2.0, 0.5),
    "HeterogeneityPanel": (HeterogeneityPanel, {"n": 100.0}, "heterogeneity", 0.5, 0.8),
    "ThresholdLearnerPanel": (ThresholdLearnerPanel, {"trials": 10, "grid_size": 100}, "epsilon", 2.0, 3.0),
    "RobustnessPanel": (RobustnessPanel, {}, "m", 25, 400),
    "CompositionLabPanel": (CompositionLabPanel, {}, "k", 1000.0, 10000.0),
    "EpsilonVsCompositionsPanel": (EpsilonVsCompositionsPanel, {"max_k": 100.0}, "sigma", 2.0, 8.0),
    "CalibrationPanel": (CalibrationPanel, {"k": 10.0}, "target", 2.0, 3.0),
    "DPSGDPanel": (DPSGDPanel, {}, "steps", 400, 120),
    "AccountingProblemsPanel": (AccountingProblemsPanel, {}, "k", 1000.0, 10000.0),
    "TreeHistogramPanel": (TreeHistogramPanel, {"depth": 5}, "depth", 6, 7),
    "MWEMPanel": (MWEMPanel, {"k": 50}, "k", 60, 70),
    "AuditingProblemsPanel": (AuditingProblemsPanel, {}, "steps", 300, 400),
}


def test_every_streamed_lesson_panel_is_a_case():
    streamed = sorted(n for n, cls in registered_panels().items() if inspect.isgeneratorfunction(cls.render))
    assert streamed == sorted(CASES)


@pytest.fixture(autouse=True)
def _fresh_caches():
    """robustness_curve caches whole curves (a cached curve arrives in one step) and heterogeneity_point its points
    (a cached point reports no progress), so each test starts without."""
    robust_module._ROBUSTNESS_CACHE.clear()
    experiments._POINTS.clear()
    yield
    robust_module._ROBUSTNESS_CACHE.clear()
    experiments._POINTS.clear()


def _state(panel) -> str:
    figs = []
    for fig in panel.figures:
        d = json.loads(json.dumps(fig.to_plotly_json(), default=lambda o: o.tolist() if hasattr(o, "tolist")
                                  else str(o), sort_keys=True))
        for trace in d["data"]:
            trace.pop("uid", None)
        figs.append(d)
    return json.dumps({"figures": figs, "readout": panel.readout.value}, sort_keys=True)


def _sync_state(name: str, value) -> str:
    """What a synchronous update draws: the panel at the case's settings, the control moved to ``value``."""
    cls, settings, control, _, _ = CASES[name]
    ref = cls(**settings).refresh()
    ref.background = False
    ref.controls[control].value = value
    assert ref.last_error is None
    return _state(ref)


def _live(name: str):
    cls, settings, _, _, _ = CASES[name]
    panel = cls(**settings).refresh()
    panel.background = True
    return panel


class _Recorder:
    """Records every figure write of a panel: the moved control's value then, and the state after."""

    def __init__(self, panel, control: str):
        self.writes: list[tuple[object, str]] = []
        original = panel._apply

        def apply(view):
            original(view)
            self.writes.append((panel.values()[control], _state(panel)))

        panel._apply = apply


class _Counted:
    """Wraps a panel's render: counts the steps each value of the moved control computed."""

    def __init__(self, panel, control: str):
        self.counts: dict[object, int] = {}
        inner = panel.render

        def render(v):
            for step in inner(v):
                if step is not None:  # a bare yield is a pause, not a step
                    self.counts[v[control]] = self.counts.get(v[control], 0) + 1
                yield step

        panel.render = render


@pytest.mark.slow
@pytest.mark.parametrize("name", CASES)
def test_a_change_streams_partial_figures_and_ends_on_the_synchronous_one(name, monkeypatch):
    import dpviz.panels.panel as base

    monkeypatch.setattr(base, "PARTIAL_INTERVAL", 0.0)  # draw every step (the default skips some that come fast)
    _, _, control, value, _ = CASES[name]
    panel = _live(name)
    rec = _Recorder(panel, control)
    panel.controls[control].value = value
    assert len(rec.writes) == 1  # the first result is drawn before the change returns
    assert panel.wait()
    states = [s for _, s in rec.writes]
    assert len(set(states)) > 1, "only one figure state was drawn: nothing streamed"
    assert states[-1] == _sync_state(name, value)  # the last write is exactly the synchronous render
    assert panel.last_error is None and panel.note.value == ""
    assert panel.progress.layout.visibility == "hidden" and panel.stop_button.layout.visibility == "hidden"
    assert len(panel.timings.first) == 1 and panel.timings.first[0] <= panel.timings.samples[-1]


@pytest.mark.slow
@pytest.mark.parametrize("name", CASES)
def test_partial_views_say_they_are_partial(name):
    _, _, control, value, _ = CASES[name]
    panel = _live(name)
    panel.controls[control].value = value
    job = panel._job
    assert job is not None and not job.shown.final
    assert "Partial result" in panel.note.value and job.shown.describe() in panel.note.value
    assert panel.progress.layout.visibility == "visible" and panel.stop_button.layout.visibility == "visible"
    assert panel.wait()
    assert panel.note.value == ""


@pytest.mark.slow
@pytest.mark.parametrize("name", CASES)
def test_a_second_change_closes_the_first(name):
    _, _, control, first, second = CASES[name]
    panel = _live(name)
    counted = _Counted(panel, control)
    rec = _Recorder(panel, control)
    panel.controls[control].value = first  # its first result drawn; the rest waits for the loop
    panel.controls[control].value = second  # a newer change before the next step
    assert panel.wait()
    assert [v for v, _ in rec.writes][1:] == [second] * (len(rec.writes) - 1)
    assert rec.writes[-1][1] == _sync_state(name, second)
    assert counted.counts.get(first) == 1, "the stale render went on computing after it was replaced"
    assert panel.last_error is None and panel.note.value == ""


@pytest.mark.slow
@pytest.mark.parametrize("name", CASES)
def test_stop_keeps_the_partial_figure_with_a_note(name):
    _, _, control, value, other = CASES[name]
    panel = _live(name)
    counted = _Counted(panel, control)
    rec = _Recorder(panel, control)
    panel.controls[control].value = value
    done = panel._job.shown.describe()
    partial = rec.writes[-1][1]
    panel.stop_button.click()
    assert panel.wait()
    assert len(rec.writes) == 1 and _state(panel) == partial and counted.counts[value] == 1  # nothing after Stop
    assert partial != _sync_state(name, value)  # and it is the partial figure, not the final one
    assert "Stopped after" in panel.note.value and done in panel.note.value
    assert panel.progress.layout.visibility == "hidden" and panel.stop_button.layout.visibility == "hidden"
    assert panel.last_error is None
    panel.controls[control].value = other  # a new change computes again, to the end
    assert panel.wait()
    assert panel.note.value == "" and _state(panel) == _sync_state(name, other)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["ValueError", "bug"])
@pytest.mark.parametrize("name", CASES)
def test_errors_in_a_later_step_become_the_friendly_message(name, kind):
    _, _, control, value, other = CASES[name]
    panel = _live(name)
    inner = panel.render

    def failing(v):
        steps = inner(v)
        yield next(steps)  # one partial view, then the computation fails
        if kind == "ValueError":
            raise ValueError("epsilon = -1 is not allowed: must be > 0.")
        raise ZeroDivisionError("a bug")

    panel.render = failing
    panel.controls[control].value = value
    assert panel.wait()
    if kind == "ValueError":
        assert panel.last_error == "epsilon = -1 is not allowed: must be > 0."
    else:
        assert panel.last_error.startswith("Something went wrong while drawing this figure (ZeroDivisionError)")
    assert html.escape(panel.last_error) in panel.status.value
    assert "Traceback" not in panel.status.value and panel.note.value == ""
    assert panel.progress.layout.visibility == "hidden" and panel.stop_button.layout.visibility == "hidden"
    panel.render = inner  # the panel keeps working
    panel.controls[control].value = other
    assert panel.wait()
    assert panel.last_error is None and panel.status.value == ""
    assert _state(panel) == _sync_state(name, other)


@pytest.mark.slow
@pytest.mark.parametrize("name", CASES)
def test_without_background_an_update_is_synchronous_and_complete(name):
    _, _, control, value, _ = CASES[name]
    panel = _live(name)
    panel.background = False
    rec = _Recorder(panel, control)
    renders = len(panel.timings.samples)
    panel.controls[control].value = value  # returns with the final figure drawn: no job, no partial view
    assert panel._job is None
    assert len(rec.writes) == 1 and len(panel.timings.samples) == renders + 1
    assert _state(panel) == _sync_state(name, value)
    assert panel.note.value == "" and panel.stop_button.layout.visibility == "hidden"


@pytest.mark.parametrize("name", CASES)
def test_the_first_render_is_synchronous_and_complete_even_in_a_kernel(name):
    cls, settings, _, _, _ = CASES[name]
    panel = cls(**settings)
    panel.background = True
    panel.refresh()
    assert panel._job is None and panel.note.value == ""
    ref = cls(**settings).refresh()
    ref.background = False
    assert _state(panel) == _state(ref)


def test_the_stop_button_shows_only_on_streamed_panels():
    from dpviz.panels.composition import GroupPrivacyPanel

    plain = GroupPrivacyPanel()
    assert not plain.streams and plain.stop_button.layout.display == "none"
    streamed = RobustnessPanel()
    assert streamed.streams and streamed.stop_button.layout.display is None


def _bench_module():
    import importlib

    return importlib.import_module("benchmarks.panels.run")


@pytest.mark.slow
def test_make_bench_times_the_first_partial_result_of_every_streamed_panel():
    run = _bench_module()
    run.import_panels()
    assert sorted(name for name, _ in run._streamed_panels("")) == sorted(CASES)
    firsts, finals, problems = run.bench_streaming(RobustnessPanel)
    assert not problems and firsts and len(firsts) == len(finals)
    assert all(0 < f <= F for f, F in zip(firsts, finals))  # the first figure never comes after the final one


#: The streamed panels whose reference curves are closed forms: (panel, settings, name prefix of those curves).
REFERENCE_CURVES = {
    "HeterogeneityPanel": (HeterogeneityPanel, {"n": 100.0}, "non-private:"),
    "ThresholdLearnerPanel": (ThresholdLearnerPanel, {"trials": 10, "grid_size": 100}, "theory,"),
}


@pytest.mark.parametrize("name", REFERENCE_CURVES)
def test_partial_views_draw_the_reference_curves_of_the_final_view_from_the_first_on(name):
    """A partial view draws the closed-form curves over the final view's whole grid (the simulated points fill in
    along them): the axes stand still while the panel refines."""
    cls, settings, prefix = REFERENCE_CURVES[name]
    panel = cls(**settings)
    views = [step.draw() for step in panel.render(panel.values())]
    assert len(views) > 1

    def curves(view):
        (fig,) = view.figures
        ref = {t.name: (list(t.x), list(t.y)) for t in fig.data if t.name.startswith(prefix)}
        sim = {t.name: list(t.x) for t in fig.data if not t.name.startswith(prefix)}
        return ref, sim

    final_ref, final_sim = curves(views[-1])
    assert final_ref and final_sim
    for view in views[:-1]:
        ref, sim = curves(view)
        assert ref == final_ref
        assert sim.keys() == final_sim.keys()
        assert all(0 < len(x) < len(final_sim[k]) and x == final_sim[k][:len(x)] for k, x in sim.items())

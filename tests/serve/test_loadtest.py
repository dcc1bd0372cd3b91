"""``benchmarks/classroom/loadtest.py`` (``make loadtest``, ``dpviz loadtest``) with a class of three against a
classroom server it starts itself.

One run of the tool as a subprocess (class size 3 on lesson 07; three light clients, or two and one headless
Chromium page when Chromium and Playwright are there): every student is served (a kernel, a first figure, every
slider move answered by a figure update, no error), and after they leave the server reclaims their kernels
(``status.json`` sessions back to 0, their kernel processes gone, memory back). No test asserts a time: the
timings the tool prints are for people, on whatever machine runs them. Plus the tool's pure helpers (v1 framing,
slider steps, percentiles) without a server.

And its class mode (``--answer``, issue 39.7) once, small: three light clients on lesson 01 answer the page's first
think-then-reveal exercise with the class view on; the teacher's view counts every click, every student sees "your
class so far", and nothing goes wrong. Its times are printed, not asserted.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import psutil
import pytest
from _notation import panel_classes

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "benchmarks" / "classroom" / "loadtest.py"
CHROMIUM = os.environ.get("DPVIZ_CHROMIUM", "/usr/bin/chromium")
STUDENTS = 3
MOVES = 2
#: --shutdown-grace of the server: how long after a student left its kernel ends (short, so the test is quick;
#: a page has --connect-grace, 120 s by default, to connect in the first place).
GRACE = 15


def _browsers() -> int:
    """One browser student when Chromium and Playwright are installed, else none (a failure in CI)."""
    try:
        import playwright.async_api  # noqa: F401

        available = Path(CHROMIUM).exists()
    except ImportError:
        available = False
    if not available and os.environ.get("DPVIZ_REQUIRE_BROWSER") == "1":
        pytest.fail(f"DPVIZ_REQUIRE_BROWSER=1 but Chromium ({CHROMIUM}) or playwright is missing")
    return 1 if available else 0


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("loadtest")
    out = tmp / "loadtest.json"
    browsers = _browsers()
    proc = subprocess.run(
        [sys.executable, str(TOOL), "--classroom", f"--students={STUDENTS}", f"--browsers={browsers}", "--lesson=07",
         "--arrival-seconds=2", f"--moves={MOVES}", "--think-seconds=0.3", f"--shutdown-grace={GRACE}",
         "--timeout=300", "--leave-timeout=120", "--start-timeout=400", f"--json={out}", f"--log-dir={tmp}"],
        capture_output=True, text=True, timeout=900, cwd=tmp,
    )
    where = f"\nstdout:\n{proc.stdout[-4000:]}\nstderr:\n{proc.stderr[-4000:]}"
    assert out.exists(), "the load test wrote no report" + where
    return proc, json.loads(out.read_text()), where, browsers


def test_every_student_is_served_and_moves_a_figure(run):
    proc, rep, where, browsers = run
    students = rep["students"]
    assert len(students) == STUDENTS and sum(s["kind"] == "browser" for s in students) == browsers
    assert rep["summary"]["errors"]["count"] == 0, rep["summary"]["errors"]["first"] + [where]
    for s in students:
        assert s["http_status"] == 200, s
        assert s["kernel_id"], f"student {s['index']} got no kernel" + where
        assert s["page_widget_views"] == students[0]["page_widget_views"] > 0, (
            f"student {s['index']}: the page lacks widget outputs other pages carry" + where)
        assert s["first_figure_s"] is not None, f"student {s['index']} saw no figure" + where
        assert s["figure_updates"] >= 1, f"student {s['index']}: no figure update came back" + where
        assert len(s["slider_figure_s"]) == MOVES, (
            f"student {s['index']}: not every slider move changed a figure" + where)
    # The server was in classroom mode with the class pre-heated, and every student was counted as a session.
    assert rep["mode"] == "classroom" and rep["server"]["ready_line"].startswith(f"ready for {STUDENTS} students")
    assert rep["memory"]["before"]["sessions"] == 0
    assert rep["memory"]["peak"]["sessions"] == STUDENTS
    # The table and the targets are printed (their PASS/FAIL is reported, not asserted).
    assert "slider→figure" in proc.stdout and "targets (classroom mode):" in proc.stdout


def test_kernels_are_reclaimed_after_the_class_leaves(run):
    proc, rep, where, _ = run
    after = rep["memory"]["after"]
    assert after["sessions"] == 0, where
    assert after["student_kernels_alive"] == [], where
    assert after["returned"] is True, where
    assert proc.returncode == 0, where
    # The tool stopped its server: no kernel process of a student is left on the machine.
    assert all(s["kernel_pid"] for s in rep["students"]), "the tool did not find every student's kernel process"
    left = []
    for pid in {s["kernel_pid"] for s in rep["students"]}:
        try:
            command = " ".join(psutil.Process(pid).cmdline())
        except psutil.Error:  # gone
            continue
        if "ipykernel" in command or "dpviz.serve.forkserver" in command:  # a kernel still (or its fork server)
            left.append((pid, command))
    assert not left, f"student kernel processes still running: {left}"


def test_slider_times_are_broken_down_by_the_panel_each_student_moved(run):
    """Students are spread over the lesson's panels; the report says which panel each moved (its class, for light
    clients and browsers alike) and gives each panel's own slider→figure times, so that a tail can be traced to a
    panel."""
    proc, rep, where, _ = run
    lesson_07 = {cls.__name__ for cls in panel_classes("07_accounting_in_practice")}  # the panels the lesson shows
    assert {"CompositionLabPanel", "CalibrationPanel"} <= lesson_07
    names = [s["panel_name"] for s in rep["students"]]
    assert all(n in lesson_07 for n in names), names
    assert len(set(names)) == min(STUDENTS, len(lesson_07)), names  # spread: student i moves panel i mod n
    by_panel = rep["summary"]["slider_figure_by_panel_s"]
    assert set(by_panel) == set(names)
    for name, st in by_panel.items():
        assert st["n"] == MOVES * names.count(name), (name, st)
        assert f"  {name} (ms)" in proc.stdout, where


def test_each_student_kernel_is_measured_in_proportional_memory(run):
    """The per-session memory a teacher sizes a machine with: every student kernel's PSS was read while it lived;
    forked from the fork server, a kernel holds far less of its own than its RSS says."""
    _, rep, where, _ = run
    for s in rep["students"]:
        assert s["kernel_pss_mb"] is not None and s["kernel_rss_mb"], f"student {s['index']}" + where
        assert 0 < s["kernel_pss_mb"] < s["kernel_rss_mb"], s


# ---- class mode: the class answers one exercise, the teacher's view counts it ------------------------------------


@pytest.fixture(scope="module")
def answered(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("loadtest-answer")
    out = tmp / "loadtest.json"
    proc = subprocess.run(
        [sys.executable, str(TOOL), "--answer", f"--students={STUDENTS}", "--browsers=0", "--lesson=01",
         "--arrival-seconds=2", "--answer-seconds=2", "--shutdown-grace=5", "--timeout=120", "--answer-timeout=30",
         "--leave-timeout=60", "--start-timeout=300", f"--json={out}", f"--log-dir={tmp}"],
        capture_output=True, text=True, timeout=600, cwd=tmp,
    )
    where = f"\nstdout:\n{proc.stdout[-4000:]}\nstderr:\n{proc.stderr[-4000:]}"
    assert out.exists(), "the class-mode load test wrote no report" + where
    return proc, json.loads(out.read_text()), where, tmp


def test_class_mode_counts_every_click_on_the_teachers_view(answered):
    from dpviz.panels import ChoiceReveal

    proc, rep, where, tmp = answered
    klass = rep["class"]
    assert rep["summary"]["errors"]["count"] == 0, rep["summary"]["errors"]["first"] + [where]
    assert klass["teacher_errors"] == [], where
    # every student clicked Reveal, and the teacher's view counted every click
    assert klass["students"] == klass["clicked"] == klass["received"] == STUDENTS, (klass, where)
    assert klass["not_visible"] == 0 and klass["submit_visible_s"]["n"] == STUDENTS, klass
    assert klass["class_so_far_shown"] == STUDENTS and klass["reveal_class_so_far_s"]["n"] == STUDENTS, klass
    for s in rep["students"]:
        assert s["clicked_s"] is not None and s["class_box"] == "so far", s
        assert s["clicked_s"] >= klass["answer_now_s"], s  # nobody answered before "answer now"
    counts = [c for _, c in klass["counts"]]
    assert counts == sorted(counts) and counts[-1] == STUDENTS, klass["counts"]
    # the exercise: lesson 01's first think-then-reveal, with its key on the teacher's view
    first = next(f"{cls.__name__}.{name}" for cls in panel_classes("01_why_privacy")
                 for name, ex in cls.exercises.items() if isinstance(ex, ChoiceReveal))
    assert klass["exercise"] == first and klass["privacy"] == "local", klass
    release = klass["release"]
    assert release is not None and release["n"] == STUDENTS and release["privacy"] == "local", release
    # the server ran with the class view on, its tally in a new folder of the log directory
    args = rep["server"]["args"]
    assert f"--class-size={STUDENTS}" in args and "--lessons=01" in args and "--class-privacy=local" in args, args
    class_dir = next(a.split("=", 1)[1] for a in args if a.startswith("--class-dir="))
    assert Path(class_dir).parent == tmp, class_dir
    assert rep["memory"]["after"]["returned"] is True, where
    assert proc.returncode == 0, where
    assert "submit→visible on the teacher's view" in proc.stdout and "every submission counted" in proc.stdout, where


# ---- helpers, without a server ----------------------------------------------------------------------------------


def test_class_mode_defaults_and_its_exercise(tool):
    opts = tool.parse_args(["--answer"])
    assert (opts.classroom, opts.lesson, opts.moves, opts.answer_seconds, opts.class_privacy) == (
        True, "01", 0, 5.0, "local")
    assert (tool.parse_args([]).lesson, tool.parse_args([]).moves) == ("07", 5)
    lesson = tool.lesson_filename("01")
    assert tool.plan_exercise(lesson, "MembershipPanel").key == "MembershipPanel.exercise"
    with pytest.raises(SystemExit, match="DifferencingPanel"):  # a panel with no think-then-reveal exercise
        tool.plan_exercise(lesson, "DifferencingPanel")


def test_each_click_is_matched_with_the_first_poll_that_counts_it(tool):
    """The j-th click in time order goes with the first poll whose count reached j + 1."""
    plan = tool.ExercisePlan("P", "exercise", 0, 2)
    students = [tool.Student(i, "light", 0.0, clicked_s=t) for i, t in enumerate([1.0, 1.2, 3.0])]
    teacher = type("T", (), {"changes": [(0.5, 0), (1.3, 2), (3.4, 3)], "count": 3, "polls": 30, "errors": [],
                             "exercise_state": None})()
    teacher.visible_at = tool.Teacher.visible_at.__get__(teacher)
    opts = tool.parse_args(["--answer"])
    klass = tool.class_summary(students, teacher, plan, opts, 0.9)
    assert (klass["clicked"], klass["received"], klass["not_visible"]) == (3, 3, 0)
    assert klass["submit_visible_s"]["max"] == pytest.approx(0.4)
    assert klass["submit_visible_s"]["p50"] == pytest.approx(0.3)
    teacher.changes, teacher.count = [(1.3, 1)], 1  # two clicks never counted
    assert tool.class_summary(students, teacher, plan, opts, 0.9)["not_visible"] == 2




@pytest.fixture(scope="module")
def tool():
    spec = importlib.util.spec_from_file_location("dpviz_loadtest", TOOL)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop(spec.name, None)


def test_v1_frames_round_trip_and_match_the_servers_check(tool):
    from dpviz.serve.guards import plausible_v1_frame

    msg_id, frame = tool.v1_frame("shell", "comm_msg", {"comm_id": "c", "data": {"method": "update"}},
                                  {"version": "2.1.0"})
    assert plausible_v1_frame(frame)
    msg = tool.parse_v1(frame)
    assert (msg.channel, msg.msg_type, msg.content["comm_id"], msg.n_buffers) == ("shell", "comm_msg", "c", 0)
    with pytest.raises(ValueError):
        tool.parse_v1((2**62).to_bytes(8, "little") + bytes(8))


def test_slider_steps_stay_in_range_and_step_in_exponent_space_for_log_sliders(tool):
    log_state = {"min": 0.0, "max": 5.0, "step": 0.1, "base": 10.0}
    assert tool.next_slider_value("FloatLogSliderModel", log_state, 100.0, 1) == pytest.approx(10**2.1)
    assert tool.next_slider_value("FloatLogSliderModel", log_state, 10**5, 1) is None
    int_state = {"min": 1, "max": 10, "step": 1}
    assert tool.next_slider_value("IntSliderModel", int_state, 10, 1) is None
    assert tool.next_slider_value("IntSliderModel", int_state, 10, -1) == 9
    float_state = {"min": 0.0, "max": 1.0, "step": 0.05}
    assert tool.next_slider_value("FloatSliderModel", float_state, 0.98, 1) == 1.0


def test_percentiles_interpolate_like_numpy(tool):
    import numpy as np

    xs = [0.3, 0.1, 2.0, 0.7, 0.5]
    for q in (50, 95):
        assert tool.percentile(xs, q) == pytest.approx(float(np.percentile(xs, q)))
    assert tool.percentile([], 95) is None
    assert tool.stats([None, 1.0])["n"] == 1


def test_figure_updates_are_told_from_plotly_bookkeeping(tool):
    assert tool.changes_figure({"_py2js_update": {"style_data": {"y": [[1, 2]]}}})
    assert tool.changes_figure({"_widget_data": []})
    assert not tool.changes_figure({"_py2js_update": None})
    assert not tool.changes_figure({"_last_trace_edit_id": 3})
    assert not tool.changes_figure({"value": 2.0})


def test_each_light_move_is_split_into_relay_kernel_and_relay_back(run):
    """Where a move's time goes: sent → the kernel's ``busy`` (the server's relay in, the kernel waking), ``busy`` →
    the figure message made (the kernel's work), made → received (the relay back), from the kernel's own message
    dates on this machine's clock. Each stage is non-negative (to the clocks' resolution) and together they make
    the move's slider→figure time, which a wrong date (another message's, a time zone) would break. The load
    generator reports its own share of the machine and how late its event loop woke."""
    proc, rep, where, _ = run
    light = [s for s in rep["students"] if s["kind"] == "light"]
    assert light, where
    for s in light:
        stages = list(zip(s["move_inbound_s"], s["move_kernel_s"], s["move_outbound_s"]))
        assert len(stages) == len(s["slider_figure_s"]) == MOVES, s
        for (inbound, kernel, outbound), total in zip(stages, s["slider_figure_s"]):
            assert min(inbound, kernel, outbound) > -0.002, (inbound, kernel, outbound)
            assert inbound + kernel + outbound == pytest.approx(total, abs=0.005), (inbound, kernel, outbound, total)
    assert "light: made → received" in proc.stdout, where
    cpu = rep["cpu"]
    assert cpu["generator_loop_lag_s"]["n"] > 0 and cpu["generator_cpu_s"] > 0, cpu
    assert "the load generator on the same cores" in proc.stdout, where


def test_chromium_runs_in_a_session_group_at_the_lowest_priority(run):
    """The browser students stand for the students' own devices: their session's scheduler group is set to
    --browser-nice (19), not only their threads (which, with autogroups, weigh only against Chromium's own)."""
    proc, rep, where, browsers = run
    if not browsers or not Path("/proc/self/autogroup").exists():
        assert rep["cpu"]["browser_sessions_lowered"] == 0, rep["cpu"]
        return
    assert rep["cpu"]["browser_sessions_lowered"] >= 1, where
    assert "Chromium's sessions at autogroup nice 19: " in proc.stderr, where  # the progress log


def test_kernel_dates_are_read_on_the_wall_clock(tool):
    assert tool.wall_time("1970-01-01T00:00:01.500000Z") == 1.5
    assert tool.wall_time("1970-01-01T01:00:01.500000+01:00") == 1.5
    assert tool.wall_time("") is None and tool.wall_time("yesterday") is None

"""The class view's server side (dpviz.serve.classview) over a real store: submissions from kernels owned by pages,
releases in both protections, the budget across a restart, the game's pool, and what the teacher's state holds.

The HTTP routes against a running app are in tests/serve/test_classview_app.py; the exact output laws of the two
mechanisms in tests/numerics/test_classpoll.py, tied here to the release path (same seed, same numbers)."""

import json
import math
import uuid

import numpy as np
import pytest

from dpviz import classpoll
from dpviz.serve import classview
from dpviz.serve.classstore import ClassEnded, ClassStore, DomainDiffers

LABELS = ["yes", "no", "not sure"]


def _kernels(n):
    return {str(uuid.uuid4()): f"browser{i:02d}aaaaaaaaaaaa" for i in range(n)}


def _view(tmp_path, privacy="local", owners=None, **kw):
    owners = owners if owners is not None else _kernels(5)
    store = ClassStore(tmp_path)
    return classview.ClassView(store, privacy=privacy, owner_of=owners.get, **kw), owners


def _body(kernel, bucket, submission=None, exercise="ChoicePanel.quiz", labels=LABELS, correct=(0,)):
    return {"kernel": kernel, "exercise": exercise, "submission": submission or uuid.uuid4().hex[:16],
            "bucket": bucket, "domain": {"labels": list(labels), "title": "Which holds?", "lesson": "why_privacy",
                                         "correct": list(correct), "kind": "choice"}}


def test_local_submissions_release_the_debiased_estimate_of_the_reports(tmp_path):
    view, owners = _view(tmp_path, report_epsilon=2.0)
    buckets = [0, 0, 1, 2, 0]
    for kernel, b in zip(owners, buckets):
        reply = view.submit(_body(kernel, b))
    release = reply["release"]
    expected = classpoll.local_estimate(np.array(buckets), classpoll.Buckets.categorical(LABELS), 2.0)
    assert release["counts"] == pytest.approx(list(expected.counts), rel=1e-12)
    low, high = expected.interval(0.95)
    assert release["low"] == pytest.approx(low.tolist(), rel=1e-12)
    assert release["high"] == pytest.approx(high.tolist(), rel=1e-12)
    assert release["standard_errors"] == pytest.approx(list(expected.standard_errors), rel=1e-12)
    assert (release["n"], release["epsilon"], release["privacy"]) == (5, 2.0, "local")
    assert view.budget.spent_epsilon == 0.0  # post-processing of ε-DP reports costs the class nothing


def test_one_answer_per_exercise_per_browser_and_a_retry_counts_once(tmp_path):
    view, owners = _view(tmp_path)
    kernel = next(iter(owners))
    assert view.submit(_body(kernel, 0, "sub-aaaaaaaa"))["outcome"] == "stored"
    assert view.submit(_body(kernel, 0, "sub-aaaaaaaa"))["outcome"] == "duplicate"
    assert view.submit(_body(kernel, 1, "sub-bbbbbbbb"))["outcome"] == "replaced"
    assert view.store.tally("ChoicePanel.quiz").counts == (0, 1, 0)


def test_a_kernel_no_page_owns_cannot_submit(tmp_path):
    view, _owners = _view(tmp_path)
    with pytest.raises(PermissionError):
        view.submit(_body(str(uuid.uuid4()), 0))
    with pytest.raises(PermissionError):
        view.submit(_body("../../etc/passwd", 0))


def test_a_bucket_outside_the_domain_and_a_changed_domain_are_refused(tmp_path):
    view, owners = _view(tmp_path)
    kernel = next(iter(owners))
    with pytest.raises(ValueError, match="bucket"):
        view.submit(_body(kernel, 3))
    view.submit(_body(kernel, 1))
    with pytest.raises(DomainDiffers):
        view.submit(_body(kernel, 1, labels=["yes", "no"]))


def test_a_central_release_is_the_library_mechanism_on_the_true_tally_and_is_charged(tmp_path):
    view, owners = _view(tmp_path, privacy="central", total_epsilon=2.5, release_epsilon=1.0, rng=7)
    for kernel, b in zip(owners, [0, 0, 1, 2, 0]):
        assert view.submit(_body(kernel, b))["release"] is None  # nothing shown before the teacher releases
    out = view.release("ChoicePanel.quiz")
    expected = classpoll.central_release([3, 1, 1], 1.0, rng=np.random.default_rng(7))
    assert out["release"]["counts"] == list(map(float, expected.counts))
    low, high = expected.interval(0.95)
    assert (out["release"]["low"], out["release"]["high"]) == (low.tolist(), high.tolist())
    assert out["release"]["standard_errors"] is None  # central: the interval is the noise's exact quantile
    assert view.budget.spent_epsilon == 1.0
    view.release("ChoicePanel.quiz")
    refused = view.release("ChoicePanel.quiz")  # 1 + 1 + 1 > 2.5: refused, the last release kept
    assert refused["refused"] and "exceed" in refused["reason"]
    assert refused["release"]["seq"] == view.released("ChoicePanel.quiz")["seq"]
    assert view.budget.spent_epsilon == 2.0


def test_a_restart_keeps_every_answer_release_and_the_budget(tmp_path):
    view, owners = _view(tmp_path, privacy="central", total_epsilon=4.0, rng=1)
    for kernel, b in zip(owners, [0, 1, 1, 2, 0]):
        view.submit(_body(kernel, b))
    first = view.release("ChoicePanel.quiz")["release"]
    view.store.close()
    again, _ = _view(tmp_path, privacy="central", owners=owners, total_epsilon=4.0)
    assert again.store.tally("ChoicePanel.quiz").counts == (2, 2, 1)
    assert again.released("ChoicePanel.quiz") == first
    assert again.budget.spent == (1.0,)
    with pytest.raises(ValueError, match="local"):  # the folder's answers are central: not to be mixed
        _view(tmp_path, privacy="local", owners=owners)


def test_the_teachers_state_holds_releases_and_counts_never_a_raw_tally(tmp_path):
    view, owners = _view(tmp_path, privacy="central", rng=3)
    for kernel, b in zip(owners, [0, 0, 0, 0, 1]):
        view.submit(_body(kernel, b))
    state = view.state()
    (ex,) = state["exercises"]
    assert ex["answers"] == 5 and ex["release"] is None and ex["correct"] == [0]
    assert "counts" not in json.dumps(state)  # no release yet: no histogram at all, raw or not
    view.release("ChoicePanel.quiz")
    state = view.state()
    assert state["exercises"][0]["release"]["counts"] == view.released("ChoicePanel.quiz")["counts"]
    assert state["budget"] == {"total": 4.0, "spent": 1.0, "remaining": 3.0, "release_epsilon": 1.0}


def test_ending_the_class_deletes_the_answers_and_keeps_the_releases(tmp_path):
    view, owners = _view(tmp_path, privacy="central", rng=5)
    kernels = list(owners)
    for kernel in kernels:
        view.submit(_body(kernel, 1))
    kept = view.release("ChoicePanel.quiz")["release"]
    view.end()
    with pytest.raises(ClassEnded):
        view.submit(_body(kernels[0], 0))
    state = view.state()
    assert state["ended"] and state["exercises"][0]["answers"] == 5
    assert state["exercises"][0]["release"] == kept


def test_the_class_ends_at_its_end_time(tmp_path):
    now = [1000.0]
    view, owners = _view(tmp_path, clock=lambda: now[0])
    view.ends_at = 1060.0
    view.submit(_body(next(iter(owners)), 0))
    assert not view.state()["ended"]
    now[0] = 1061.0
    assert view.state()["ended"]


def test_the_end_time_is_parsed_or_refused_naming_it():
    import datetime as dt

    now = dt.datetime(2026, 12, 2, 9, 0, tzinfo=dt.timezone.utc)
    half_past_ten = dt.datetime(2026, 12, 2, 10, 30, tzinfo=dt.timezone.utc)
    assert classview.parse_end_time("10:30", now) == half_past_ten.timestamp()
    assert classview.parse_end_time("2026-12-02T15:00+00:00", now) == now.replace(hour=15).timestamp()
    with pytest.raises(ValueError, match="class_end = 'soon'"):
        classview.parse_end_time("soon", now)


def test_the_games_pool_is_one_clopper_pearson_bound_with_its_ceiling(tmp_path):
    view, owners = _view(tmp_path)
    kernels = list(owners)
    game = {"exercise": "NeighbourGamePanel.game.z1-g1", "domain": {"title": "game", "lesson": "dp_sgd",
                                                                     "claimed_epsilon": 4.2, "delta": 1e-5}}
    view.submit_game({**game, "kernel": kernels[0], "submission": "g0aaaaaaaa", "counts": [10, 12, 9, 11]})
    reply = view.submit_game({**game, "kernel": kernels[1], "submission": "g1aaaaaaaa", "counts": [20, 20, 19, 19]})
    pooled = reply["pooled"]
    assert (pooled["players"], pooled["rounds_on_x"], pooled["correct_on_x_prime"]) == (2, 32, 28)
    assert pooled["bound"] == classpoll.pooled_epsilon_bound(30, 32, 28, 30, delta=1e-5, confidence=0.95)
    assert pooled["ceiling"] == classpoll.pooled_bound_ceiling(30, delta=1e-5, confidence=0.95)
    assert view.state()["games"][0]["bound"] == pooled["bound"]


def test_bad_settings_are_refused_naming_them(tmp_path):
    with pytest.raises(ValueError, match="class_privacy = 'none'"):
        _view(tmp_path, privacy="none")
    with pytest.raises(ValueError, match="class_release_epsilon"):
        _view(tmp_path, privacy="central", release_epsilon=0.0)


def test_the_qr_code_encodes_the_join_address():
    svg = classview.qr_svg("http://192.168.1.5:8866/")
    assert svg.startswith("<svg") and "http://192.168.1.5:8866/" in svg  # its title names the address
    text = classview.qr_terminal("http://192.168.1.5:8866/")
    assert len(text.splitlines()) > 10 and math.isfinite(len(text))


def test_the_store_is_class_sqlite3_in_the_class_folder(tmp_path):
    store = classview.open_store(str(tmp_path / "week-3"), "ignored")
    assert store.path == tmp_path / "week-3" / "class.sqlite3" and store.path.exists()


def test_a_submitter_the_server_authenticated_replaces_the_kernels_owner(tmp_path):
    """Under JupyterHub the service names the submitter (its hub user); the body's kernel is then ignored, and two
    kernels of one user give one answer."""
    view, _ = _view(tmp_path, owners={})  # no kernel belongs to any page here
    with pytest.raises(PermissionError):
        view.submit(_body(str(uuid.uuid4()), 0))
    ana = "hub-" + "a" * 32
    assert view.submit(_body("not-a-kernel-id", 0), browser=ana)["outcome"] == "stored"
    assert view.submit(_body(str(uuid.uuid4()), 2), browser=ana)["outcome"] == "replaced"
    assert view.submit(_body(None, 1), browser="hub-" + "b" * 32)["outcome"] == "stored"
    assert view.store.tally("ChoicePanel.quiz").total == 2
    game = {"kernel": None, "exercise": "NeighbourGamePanel.game.z1", "submission": uuid.uuid4().hex[:16],
            "counts": [1, 2, 1, 2], "domain": {"claimed_epsilon": 1.0, "delta": 0.0}}
    assert view.submit_game(game, browser=ana)["pooled"]["players"] == 1
    with pytest.raises(ValueError, match="browser"):
        view.submit(_body(None, 0), browser="ana")  # the store's own check of a browser id

"""The class view against a running app: one test per thing a student (or anyone on the network) may try, the
teacher's view behind its token, and a restart that loses nothing.

A test plays a student's kernel with the key the server gave its kernels (read from a kernel's environment, as
only the server's own processes can), and a student's browser with its own cookie jar."""

import json
import math
import re
import uuid

import pytest
from _server import Client, start_app

pytestmark = pytest.mark.slow

EXERCISE = "ProbePanel.quiz"
LABELS = ["yes", "no", "<img src=x onerror=alert(1)>"]


def _kernel_key(app) -> str:
    for pid in app.kernel_pids().values():
        with open(f"/proc/{pid}/environ", "rb") as f:
            env = dict(kv.split(b"=", 1) for kv in f.read().split(b"\0") if b"=" in kv)
        if b"DPVIZ_CLASS" in env:
            return json.loads(env[b"DPVIZ_CLASS"])["key"]
    raise AssertionError("no kernel has DPVIZ_CLASS")


def _teacher_token(app) -> str:
    return re.search(r"/dpviz/class\?token=([A-Za-z0-9_\-]+)", app.log())[1]


class Kernel:
    """A student's kernel speaking the class API."""

    def __init__(self, app, kernel_id, key):
        self.client, self.kernel_id, self.key = Client(app.url), kernel_id, key

    def post(self, route, body, key=None, raw=None):
        data = raw if raw is not None else json.dumps(body).encode()
        return self.client.request(f"/dpviz/class/api/{route}", "POST", data=data,
                                   headers={"X-Dpviz-Class-Key": self.key if key is None else key,
                                            "Content-Type": "application/json"})

    def submit(self, bucket, submission=None, labels=LABELS, key=None, kernel=None):
        return self.post("submit", {"kernel": kernel or self.kernel_id, "exercise": EXERCISE,
                                    "submission": submission or uuid.uuid4().hex[:16], "bucket": bucket,
                                    "domain": {"labels": labels, "title": "<b>Which</b> holds?", "lesson": "probe",
                                               "correct": [0], "kind": "choice"}}, key=key)


@pytest.fixture(scope="module")
def classroom(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("classview")
    args = ("--class-size=2", "--lessons=01", f"--class-dir={tmp / 'class'}", "--class-privacy=central",
            "--cull-idle=600")
    app = start_app(tmp, *args, wait_for="Teacher's view", timeout=240)
    try:
        students = [Client(app.url) for _ in range(2)]
        kernels = [s.open_lesson("01_why_privacy.ipynb") for s in students]
        key = _kernel_key(app)
        yield {"app": app, "tmp": tmp, "args": args, "students": students,
               "kernels": [Kernel(app, k, key) for k in kernels], "key": key, "token": _teacher_token(app)}
    finally:
        app.stop()


def _state(classroom):
    status, body = Client(classroom["app"].url).request(f"/dpviz/class/state.json?token={classroom['token']}")
    assert status == 200, body
    return json.loads(body)


def test_the_server_prints_the_teachers_address_and_the_join_address(classroom):
    log = classroom["app"].log()
    assert "Students join here" in log and ("█" in log or "▀" in log)  # the QR code, in half blocks
    assert f"/dpviz/class?token={classroom['token']}" in log


def test_a_kernel_submits_and_the_teacher_sees_only_the_count_until_a_release(classroom):
    k = classroom["kernels"][0]
    status, body = k.submit(1)
    assert status == 200 and json.loads(body)["outcome"] in ("stored", "replaced"), body
    (ex,) = [e for e in _state(classroom)["exercises"] if e["exercise"] == EXERCISE]
    assert ex["answers"] >= 1 and ex["release"] is None


def test_no_one_reaches_the_teachers_view_without_the_token(classroom):
    student = classroom["students"][0]
    for path in ("/dpviz/class", "/dpviz/class/state.json", "/dpviz/class?token=wrong",
                 "/dpviz/class/state.json?token=" + "x" * len(classroom["token"])):
        status, body = student.request(path)
        assert status == 403 and "answers" not in body, path
    for path in ("/dpviz/class/release", "/dpviz/class/end"):
        status, _ = student.request(path, "POST", data=b"{}", headers={"X-Dpviz-Teacher": "guess"})
        assert status == 403, path


def test_a_browser_cannot_use_the_kernels_api(classroom):
    """The API needs the key only kernels hold; a student's browser (with its cookie) has no way to it."""
    student, kernel_id = classroom["students"][1], classroom["kernels"][1].kernel_id
    body = json.dumps({"kernel": kernel_id, "exercise": EXERCISE, "submission": "forgedaaaa", "bucket": 0,
                       "domain": {"labels": LABELS}}).encode()
    for headers in ({}, {"X-Dpviz-Class-Key": "0" * 64}, {"X-Dpviz-Class-Key": classroom["key"][:-1]}):
        status, _ = student.request("/dpviz/class/api/submit", "POST", data=body, headers=headers)
        assert status == 403
    status, _ = student.request(f"/dpviz/class/api/released?exercise={EXERCISE}")
    assert status == 403


def test_a_kernel_no_page_was_given_cannot_submit(classroom):
    k = classroom["kernels"][0]
    status, _ = k.submit(0, kernel=str(uuid.uuid4()))
    assert status == 403


def test_a_flood_counts_one_answer_and_is_then_refused(classroom):
    k = classroom["kernels"][1]
    codes = [k.submit(i % 3)[0] for i in range(35)]
    assert codes[0] == 200 and 429 in codes  # bounded rate: 30 new submissions a minute per browser
    (ex,) = [e for e in _state(classroom)["exercises"] if e["exercise"] == EXERCISE]
    assert ex["answers"] <= 2  # one answer per browser, however many submissions


def test_values_outside_the_declared_domain_are_refused(classroom):
    k = classroom["kernels"][0]
    for bucket in (3, -1, "1; DROP TABLE answers", 1.5, None):
        status, body = k.submit(bucket)
        assert status == 400 and "bucket" in body, (bucket, body)
    assert k.submit(0, labels=["yes", "no"])[0] == 409  # a domain other than the declared one
    assert k.post("submit", None, raw=b"{" * 20000)[0] == 413
    assert k.post("submit", None, raw=b"not json")[0] == 400


def test_nothing_submitted_is_rendered_as_html(classroom):
    status, page = Client(classroom["app"].url).request(f"/dpviz/class?token={classroom['token']}")
    assert status == 200
    assert "onerror" not in page and "<b>Which</b>" not in page  # the page holds no submitted text at all
    state_status, _ = Client(classroom["app"].url).request(f"/dpviz/class/state.json?token={classroom['token']}")
    assert state_status == 200
    (ex,) = [e for e in _state(classroom)["exercises"] if e["exercise"] == EXERCISE]
    assert ex["labels"][2] == LABELS[2]  # kept as plain text, for the page to set with textContent
    script = (classroom["app"].url + "/dpviz-static/class.js")
    status, js = Client(classroom["app"].url).request("/dpviz-static/class.js")
    assert status == 200 and "innerHTML" not in js and "insertAdjacentHTML" not in js, script


def test_the_games_pool_reaches_the_teacher_and_a_bad_tally_is_refused(classroom):
    k = classroom["kernels"][0]
    game = {"kernel": k.kernel_id, "exercise": "NeighbourGamePanel.game.z1-g1",
            "domain": {"title": "game", "lesson": "dp_sgd", "claimed_epsilon": 4.5, "delta": 0.0}}
    status, body = k.post("game", {**game, "submission": "gameaaaaaa", "counts": [30, 30, 30, 30]})
    assert status == 200, body
    (pooled,) = [g for g in _state(classroom)["games"] if g["exercise"] == game["exercise"]]
    u = 0.025 ** (1 / 30)  # 30 of 30 right on each dataset: the Clopper–Pearson bounds are 1 − u and u
    assert pooled["players"] == 1 and pooled["bound"] == pytest.approx(math.log(u / (1 - u)), rel=1e-12)
    for counts in ([31, 30, 0, 0], [-1, 3, 0, 0], [1, 2, 3], ["a", 1, 1, 1]):
        status, _ = k.post("game", {**game, "submission": uuid.uuid4().hex[:16], "counts": counts})
        assert status == 400, counts



def test_the_teacher_releases_within_the_budget_and_a_restart_loses_nothing(classroom):
    app, token = classroom["app"], classroom["token"]
    teacher = Client(app.url)
    status, body = teacher.request("/dpviz/class/release", "POST", data=json.dumps({"exercise": EXERCISE}).encode(),
                                   headers={"X-Dpviz-Teacher": token})
    assert status == 200, body
    release = json.loads(body)["release"]
    assert release["epsilon"] == 1.0 and release["privacy"] == "central" and len(release["counts"]) == 3
    before = _state(classroom)
    app.stop()
    again = start_app(classroom["tmp"], *classroom["args"], wait_for="Teacher's view", timeout=240)
    try:
        assert _teacher_token(again) == token  # the teacher's address survives the restart
        status, body = Client(again.url).request(f"/dpviz/class/state.json?token={token}")
        after = json.loads(body)
        assert after["exercises"] == before["exercises"] and after["budget"] == before["budget"]
    finally:
        again.stop()

"""The kernel's side of the class view (issue 39): exercises and the neighbouring-dataset game feed the class tally.

A fake class server (the contract's HTTP API on 127.0.0.1, a port of its own) records every request. Without
``DPVIZ_CLASS`` nothing changes; with it, a reveal sends the answer's bucket (randomized in the kernel first in
local privacy), the box says what is shared, the learner can opt out, and "your class so far" appears only after
a shared reveal.
"""

from __future__ import annotations

import asyncio
import json
import math
import socket
import sys
import threading
import types
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import numpy as np
import pytest

from dpviz import classpoll
from dpviz.panels import ChoiceReveal, Panel, PredictReveal, Slider, View, auditing
from dpviz.panels import classfeed as CF
from dpviz.panels.auditing import AuditPanel, NeighbourGamePanel
from dpviz.panels.figure import go

KEY = "ab" * 16
KERNEL = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"


# ---- the fake class server ---------------------------------------------------------------------------------------

class FakeClass(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, privacy="local"):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.privacy = privacy
        self.requests: list[dict] = []
        self.drop = 0  # drop this many requests without a reply (a connection error)
        self.status = 200  # reply with this status
        self.tally: dict[str, list[int]] = {}
        self.lock = threading.Lock()

    @property
    def api(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/dpviz/class/api/"

    def release(self, exercise, labels):
        if self.privacy == "central" or exercise not in self.tally:
            return None
        counts = [float(c) for c in self.tally[exercise]]
        return {"exercise": exercise, "labels": labels, "counts": counts, "low": [c - 1.5 for c in counts],
                "high": [c + 1.5 for c in counts], "n": int(sum(counts)), "epsilon": 2.0, "privacy": self.privacy,
                "seq": None, "released_at": 0, "correct": self.correct.get(exercise, []), "title": "t"}

    correct: dict = {}


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):  # quiet
        pass

    def _reply(self, obj, status=200):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _record(self, body):
        srv: FakeClass = self.server
        url = urlsplit(self.path)
        rec = {"method": self.command, "path": url.path, "query": parse_qs(url.query), "body": body,
               "key": self.headers.get(CF.KEY_HEADER), "authorization": self.headers.get("Authorization")}
        with srv.lock:
            srv.requests.append(rec)
            if srv.drop > 0:
                srv.drop -= 1
                self.close_connection = True
                return None
        return rec

    def do_GET(self):
        rec = self._record(None)
        if rec is None:
            return
        srv: FakeClass = self.server
        if srv.status != 200:
            return self._reply({"error": "refused"}, srv.status)
        ex = rec["query"]["exercise"][0]
        self._reply({"release": srv.release(ex, srv.labels.get(ex, ["a", "b"]))})

    def do_POST(self):
        n = int(self.headers.get("Content-Length", 0))
        body = json.loads(self.rfile.read(n).decode())
        rec = self._record(body)
        if rec is None:
            return
        srv: FakeClass = self.server
        if srv.status != 200:
            return self._reply({"error": "refused"}, srv.status)
        ex = body["exercise"]
        if rec["path"].endswith("/submit"):
            labels = body["domain"]["labels"]
            srv.labels[ex] = labels
            srv.correct[ex] = body["domain"]["correct"]
            with srv.lock:
                srv.tally.setdefault(ex, [0] * len(labels))[body["bucket"]] += 1
            self._reply({"outcome": "stored", "release": srv.release(ex, labels)})
        else:
            c = body["counts"]
            self._reply({"outcome": "stored", "pooled": {
                "players": 1, "correct_on_x": c[0], "rounds_on_x": c[1], "correct_on_x_prime": c[2],
                "rounds_on_x_prime": c[3], "bound": 0.25, "ceiling": 2.0338,
                "claimed_epsilon": body["domain"]["claimed_epsilon"], "confidence": 0.95}})

    labels: dict = {}


@pytest.fixture
def server():
    srv = FakeClass()
    srv.labels, srv.correct = {}, {}
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield srv
    srv.shutdown()
    srv.server_close()


@pytest.fixture
def use_feed():
    """Install a feed for the panels built in the test (and none afterwards)."""
    def install(feed):
        CF.set_class_feed(feed)
        return feed
    yield install
    CF.reset_class_feed()


def _env(api, privacy="local", epsilon=2.0, key=KEY):
    return {CF.CLASS_ENV: json.dumps({"api": api, "key": key, "privacy": privacy, "epsilon": epsilon})}


def _feed(srv, privacy="local", epsilon=2.0, rng=7):
    srv.privacy = privacy
    return CF.ClassFeed.from_environment(_env(srv.api, privacy, epsilon), rng=np.random.default_rng(rng),
                                         kernel_id=KERNEL)


def _submits(srv):
    return [r for r in srv.requests if r["path"].endswith("/submit")]


# ---- a toy panel with both kinds of exercise ---------------------------------------------------------------------

def _truth(self, v):
    return 10.0 * v.x


class _ClassToy(Panel):
    controls = {"x": Slider("x", 1.0, 0.5, 2.0, step=0.5)}
    exercises = {
        "predict": PredictReveal("How <i>big</i> is 10·x?", answer=_truth, rel_tol=0.1),
        "choice": ChoiceReveal("Which is <b>right</b>?", [("<b>x</b>", True, "yes"), ("y & z", False, "no"),
                                                          ("w", False, "no")]),
    }

    def render(self, v):
        return View([go.Figure()])


# ---- no class: exactly today's behaviour ----------------------------------------------------------------------------

@pytest.mark.slow
def test_without_the_variable_there_is_no_feed_no_notice_and_no_request(server, monkeypatch):
    monkeypatch.delenv(CF.CLASS_ENV, raising=False)
    CF.reset_class_feed()
    try:
        assert CF.ClassFeed.from_environment({}) is None and CF.class_feed() is None
        p = _ClassToy().refresh()
        for ex in p.exercise_list:
            assert ex.class_box is None and ex.feed is None
        assert len(p.choice.widget.children) == 4 and len(p.predict.widget.children) == 3
        assert p.choice.client_checks().keys() == {p.choice.choice}
        p.choice.choice.index = 0
        p.choice.reveal()
        p.predict.guess.value = 10.0
        game = NeighbourGamePanel(rng=1).refresh()
        game.guess(True)
        assert game.class_box is None
        assert server.requests == []
    finally:
        CF.reset_class_feed()


# ---- the environment ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("field,value", [
    ("api", "https://127.0.0.1:8866/api/"), ("api", "http://example.com/api/"), ("api", "http://10.0.0.1/api/"),
    ("api", "ftp://127.0.0.1/"), ("api", "http://127.0.0.1:99999/"), ("api", 7), ("api", "http://u:p@localhost/"),
    ("key", "xyz" * 12), ("key", "ab" * 8), ("key", "ab" * 65), ("key", None),
    ("privacy", "public"), ("privacy", None),
    ("epsilon", 0.0), ("epsilon", 1000.0), ("epsilon", "2"), ("epsilon", True), ("epsilon", math.nan),
])
def test_a_bad_value_is_refused_naming_it(field, value):
    spec = {"api": "http://127.0.0.1:8866/dpviz/class/api/", "key": KEY, "privacy": "local", "epsilon": 2.0}
    spec[field] = value
    env = {CF.CLASS_ENV: json.dumps(spec)}
    with pytest.raises(ValueError, match=field) as info:
        CF.ClassFeed.from_environment(env, kernel_id=KERNEL)
    if field == "key" and isinstance(value, str):
        assert value not in str(info.value)  # the key is a secret: never in a message


@pytest.mark.parametrize("raw,name", [("not json", "JSON"), ("[1, 2]", "JSON"),
                                      (json.dumps({"api": "http://127.0.0.1/", "key": KEY, "privacy": "local"}),
                                       "epsilon")])
def test_a_malformed_variable_is_refused(raw, name):
    with pytest.raises(ValueError, match=name):
        CF.ClassFeed.from_environment({CF.CLASS_ENV: raw}, kernel_id=KERNEL)


@pytest.mark.parametrize("api", ["http://localhost:8866/dpviz/class/api/", "http://[::1]:8866/x/",
                                 "http://127.0.0.1/dpviz/class/api"])
def test_loopback_hosts_are_accepted(api):
    feed = CF.ClassFeed.from_environment(_env(api), kernel_id=KERNEL)
    assert feed.api.endswith("/") and feed.kernel_id == KERNEL and KEY not in repr(feed)


def test_outside_a_kernel_the_kernel_id_is_missing_and_class_feed_gives_none(monkeypatch):
    env = _env("http://127.0.0.1:8866/dpviz/class/api/")
    with pytest.raises(ValueError, match="kernel"):
        CF.ClassFeed.from_environment(env)
    monkeypatch.setenv(CF.CLASS_ENV, env[CF.CLASS_ENV])
    CF.reset_class_feed()
    try:
        assert CF.class_feed() is None  # logged, never a traceback on the learner's page
    finally:
        CF.reset_class_feed()


def test_the_kernel_id_is_the_connection_files_stem(monkeypatch):
    # a stand-in for ipykernel.connect (importing the real one would replace comm's manager for the other tests)
    fake = types.ModuleType("ipykernel.connect")
    fake.get_connection_file = lambda: f"/run/user/1/kernel-{KERNEL}.json"
    monkeypatch.setitem(sys.modules, "ipykernel.connect", fake)
    feed = CF.ClassFeed.from_environment(_env("http://127.0.0.1:1/x/"))
    assert feed.kernel_id == KERNEL


# ---- under JupyterHub: the kernel's hub token, no key ---------------------------------------------------------------

HUB_TOKEN = "hub-server-token-0123456789abcdef"


def _hub_env(api, token=HUB_TOKEN, **extra):
    env = {CF.CLASS_ENV: json.dumps({"api": api, "auth": "hub", "privacy": "local", "epsilon": 2.0, **extra})}
    if token is not None:
        env[CF.HUB_TOKEN_ENV] = token
    return env


def test_hub_mode_sends_the_servers_token_and_no_key(server, caplog):
    feed = CF.ClassFeed.from_environment(_hub_env(server.api), rng=np.random.default_rng(3), kernel_id=KERNEL)
    assert feed.hub and HUB_TOKEN not in repr(feed) and "auth='hub'" in repr(feed)
    labels = ["a", "b", "c"]
    feed.submit("Toy.choice", 1, classpoll.Buckets.categorical(labels), {"labels": labels, "correct": [0]})
    feed.released("Toy.choice")
    assert [(r["authorization"], r["key"]) for r in server.requests] == [(f"token {HUB_TOKEN}", None)] * 2
    server.status = 403
    with pytest.raises(CF.ClassFeedError, match="did not recognise this server") as info:
        feed.released("Toy.choice")
    assert info.value.status == 403 and HUB_TOKEN not in str(info.value)
    assert HUB_TOKEN not in caplog.text


@pytest.mark.parametrize("api", ["http://hub:10101/services/dpviz-class/api/", "http://10.0.0.7:10101/x/",
                                 "https://hub.example.org/services/dpviz-class/api/"])
def test_any_host_is_allowed_only_under_the_hub(api):
    feed = CF.ClassFeed.from_environment(_hub_env(api), kernel_id=KERNEL)
    assert feed.api.startswith(api.rstrip("/"))
    with pytest.raises(ValueError, match="api"):
        CF.ClassFeed.from_environment(_env(api), kernel_id=KERNEL)
    with pytest.raises(ValueError, match="api"):
        CF.ClassFeed(api, KEY, "local", 2.0, KERNEL)


@pytest.mark.parametrize("api", ["ftp://hub/x/", "http://u:p@hub/x/", "http://hub/x/?q=1", "http:///x/",
                                 "http://hub x/api/"])
def test_a_bad_api_is_refused_under_the_hub_too(api):
    with pytest.raises(ValueError, match="api"):
        CF.ClassFeed.from_environment(_hub_env(api), kernel_id=KERNEL)


@pytest.mark.parametrize("token", [None, "", "has space", "tab\there", "ünïcode-token", "x" * 513, "new\nline"])
def test_a_bad_hub_token_is_refused_without_showing_it(token):
    with pytest.raises(ValueError, match=CF.HUB_TOKEN_ENV) as info:
        CF.ClassFeed.from_environment(_hub_env("http://hub:10101/api/", token=token), kernel_id=KERNEL)
    if token:
        assert token not in str(info.value) and token not in repr(info.value)
    with pytest.raises(ValueError, match=CF.HUB_TOKEN_ENV):
        CF.ClassFeed("http://hub:10101/api/", None, "local", 2.0, KERNEL, hub_token=token if token else "")


def test_the_longest_hub_token_is_taken():
    feed = CF.ClassFeed("http://hub/api/", None, "central", 2.0, KERNEL, hub_token="t" * 512)
    assert feed.hub and "t" * 512 not in repr(feed)


def test_hub_mode_needs_no_key_and_takes_none():
    with pytest.raises(ValueError, match="key") as info:
        CF.ClassFeed("http://hub/api/", KEY, "local", 2.0, KERNEL, hub_token=HUB_TOKEN)
    assert KEY not in str(info.value) and HUB_TOKEN not in str(info.value)
    env = _hub_env("http://hub/api/", key=KEY)  # a key in the variable is ignored under the hub
    assert CF.ClassFeed.from_environment(env, kernel_id=KERNEL).hub


@pytest.mark.parametrize("auth", ["key", "HUB", 1, None])
def test_an_unknown_auth_is_refused_naming_it(auth):
    spec = {"api": "http://127.0.0.1:8866/dpviz/class/api/", "key": KEY, "privacy": "local", "epsilon": 2.0,
            "auth": auth}
    if auth is None:  # "auth": null is as absent: dpviz serve's key
        assert not CF.ClassFeed.from_environment({CF.CLASS_ENV: json.dumps(spec)}, kernel_id=KERNEL).hub
        return
    with pytest.raises(ValueError, match="auth"):
        CF.ClassFeed.from_environment({CF.CLASS_ENV: json.dumps(spec)}, kernel_id=KERNEL)


def test_under_the_hub_the_variable_needs_no_key_but_the_rest():
    with pytest.raises(ValueError, match="epsilon is missing"):
        CF.ClassFeed.from_environment({CF.CLASS_ENV: json.dumps({"api": "http://hub/", "auth": "hub",
                                                                 "privacy": "local"}),
                                       CF.HUB_TOKEN_ENV: HUB_TOKEN}, kernel_id=KERNEL)


# ---- local privacy: randomized in the kernel ----------------------------------------------------------------------

@pytest.mark.slow
def test_local_mode_sends_the_randomized_bucket_with_the_key_and_the_domain(server, use_feed):
    use_feed(_feed(server, rng=11))
    p = _ClassToy().refresh()
    ex = p.choice
    assert "k-ary randomized response with ε = 2" in ex.class_box.notice.value
    assert "the server never sees your true answer" in ex.class_box.notice.value
    ex.choice.index = 1
    ex.reveal()
    (req,) = _submits(server)
    body = req["body"]
    assert req["method"] == "POST" and req["path"] == "/dpviz/class/api/submit" and req["key"] == KEY
    assert body["bucket"] == classpoll.randomize(1, ex.buckets, 2.0, np.random.default_rng(11))
    assert body["kernel"] == KERNEL and body["exercise"] == "_ClassToy.choice"
    assert len(body["submission"]) == 16 and int(body["submission"], 16) >= 0
    assert body["domain"] == {"labels": ["<b>x</b>", "y & z", "w"], "title": "Which is right?",
                              "lesson": "test_classfeed", "correct": [0], "kind": "choice"}
    assert "Your class so far" in ex.class_box.view.value


@pytest.mark.slow
def test_local_reports_follow_the_krr_law(server):
    """Over many answers, the sent buckets' frequencies are those of k-RR: p = e^ε/(e^ε + k − 1) on the true bucket,
    q elsewhere (within 4 binomial standard deviations, fixed seed)."""
    feed = _feed(server, epsilon=1.0, rng=2024)
    buckets = classpoll.Buckets.categorical(["a", "b", "c", "d"])
    n = 1500
    for i in range(n):
        feed.submit(f"T.e{i}", 2, buckets, {"labels": list(buckets.labels), "title": "t", "lesson": "l",
                                            "correct": [0], "kind": "choice"})
    sent = np.array([r["body"]["bucket"] for r in _submits(server)])
    assert sent.size == n
    law = classpoll.report_law(2, buckets, 1.0)
    for b in range(4):
        sd = math.sqrt(n * law[b] * (1 - law[b]))
        assert abs(np.sum(sent == b) - n * law[b]) <= 4 * sd, (b, np.sum(sent == b), n * law[b])


@pytest.mark.slow
def test_a_repeated_reveal_of_the_same_answer_resends_the_same_report(server):
    """Memoised randomized response: revealing one answer again gives the server the same report (not a fresh draw
    of the same answer, which would compose), with a new submission id."""
    feed = _feed(server, rng=5)
    buckets = classpoll.Buckets.categorical([str(i) for i in range(10)])
    dom = {"labels": list(buckets.labels), "title": "t", "lesson": "l", "correct": [0], "kind": "choice"}
    for _ in range(5):
        feed.submit("T.same", 3, buckets, dom)
    sent = _submits(server)
    assert len({r["body"]["bucket"] for r in sent}) == 1 and len({r["body"]["submission"] for r in sent}) == 5


@pytest.mark.slow
def test_central_mode_sends_the_raw_bucket_and_shows_no_release_yet(server, use_feed):
    use_feed(_feed(server, privacy="central"))
    p = _ClassToy().refresh()
    ex = p.predict
    assert "discrete Laplace noise" in ex.class_box.notice.value
    assert "raw answers are deleted when the class ends" in ex.class_box.notice.value
    ex.guess.value = 16.0  # truth 10: 60 % too high, beyond max(0.5, 0.3): far too high
    (req,) = _submits(server)
    assert req["body"]["bucket"] == 4 and req["body"]["domain"]["correct"] == [2]
    assert req["body"]["domain"]["title"] == "How big is 10·x?" and req["body"]["domain"]["kind"] == "predict"
    assert "no release yet" in ex.class_box.view.value
    assert ex.class_box.update_button.layout.display is None  # the learner may look again


@pytest.mark.slow
def test_opting_out_sends_nothing(server, use_feed):
    use_feed(_feed(server))
    p = _ClassToy().refresh()
    p.choice.class_box.share.value = False
    p.choice.choice.index = 0
    p.choice.reveal()
    p.predict.class_box.share.value = False
    p.predict.guess.value = 10.0
    assert server.requests == []
    assert "not shared" in p.choice.class_box.view.value and "Your class so far" not in p.choice.class_box.view.value


@pytest.mark.slow
def test_a_retry_reuses_the_submission_id_and_the_report(server, use_feed):
    use_feed(_feed(server))
    p = _ClassToy().refresh()
    server.drop = 1  # the first attempt's connection closes without a reply
    p.choice.choice.index = 2
    p.choice.reveal()
    first, second = _submits(server)
    assert first["body"] == second["body"]  # same submission id, same randomized bucket
    assert "Your class so far" in p.choice.class_box.view.value
    assert server.tally["_ClassToy.choice"][second["body"]["bucket"]] == 1


# ---- what the learner sees ----------------------------------------------------------------------------------------

@pytest.mark.slow
def test_the_class_so_far_escapes_labels(server, use_feed):
    use_feed(_feed(server, privacy="central"))
    server.privacy = "local"  # the fake releases at once
    p = _ClassToy().refresh()
    p.choice.choice.index = 0
    p.choice.reveal()
    shown = p.choice.class_box.view.value
    assert "&lt;b&gt;x&lt;/b&gt;" in shown and "<b>x</b>" not in shown and "y &amp; z" in shown
    assert "1 answer;" in shown and "ε = 2" in shown and "95 %" in shown
    direct = CF.release_html({"labels": ["<script>1</script>", "b"], "counts": [1.0, 2.0], "low": [0, 1],
                              "high": [2, 3], "n": 3, "epsilon": 1.0, "privacy": "central", "correct": [1]})
    assert "<script>" not in direct and "&lt;script&gt;" in direct and "for this release" in direct


@pytest.mark.slow
def test_nothing_about_the_class_is_shown_before_the_reveal(server, use_feed):
    use_feed(_feed(server))
    p = _ClassToy().refresh()
    for ex in p.exercise_list:
        assert ex.class_box.view.value == "" and ex.class_box.update_button.layout.display == "none"
        ex.update_class()  # even a click on the (hidden) update button shows nothing
        assert ex.class_box.view.value == ""
    p.choice.choice.index = 0
    assert server.requests == []
    p.choice.reveal()
    assert "Your class so far" in p.choice.class_box.view.value
    p.choice.choice.index = 1  # a new pick: the reveal's class view goes with its verdict
    assert p.choice.class_box.view.value == ""
    p.choice.reveal()
    p.choice.update_class()
    (got,) = [r for r in server.requests if r["method"] == "GET"]
    assert got["query"]["exercise"] == ["_ClassToy.choice"] and got["key"] == KEY
    assert "Your class so far" in p.choice.class_box.view.value


@pytest.mark.slow
def test_the_class_view_of_a_reveal_goes_when_the_settings_move(server, use_feed):
    use_feed(_feed(server))

    class _Moving(_ClassToy):
        exercises = {"predict": PredictReveal(lambda p, v: f"How big at x = {v.x}?", answer=_truth)}

    p = _Moving().refresh()
    p.predict.guess.value = 10.0
    assert "Your class so far" in p.predict.class_box.view.value
    p.controls["x"].value = 2.0
    assert p.predict.class_box.view.value == ""


@pytest.mark.slow
def test_a_real_lesson_exercise_is_keyed_by_its_panel(server, use_feed):
    use_feed(_feed(server))
    p = AuditPanel(trials=1000).refresh()
    p.exercise.choice.index = 2
    p.exercise.reveal()
    (req,) = _submits(server)
    assert req["body"]["exercise"] == "AuditPanel.exercise"
    assert req["body"]["domain"]["lesson"] == "auditing" and req["body"]["domain"]["correct"] == [2]
    assert req["body"]["domain"]["title"].startswith("An audit of a mechanism that claims ε = 1")


@pytest.mark.slow
@pytest.mark.parametrize("status,words", [(None, "not reachable"), (403, "did not recognise"), (410, "has ended"),
                                          (429, "too many"), (500, "not reachable")])
def test_a_server_problem_is_a_friendly_line_not_an_exception(server, use_feed, status, words):
    if status is None:
        with socket.socket() as s:  # a port nobody listens on
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        feed = CF.ClassFeed.from_environment(_env(f"http://127.0.0.1:{port}/api/"), kernel_id=KERNEL, rng=1)
    else:
        server.status = status
        feed = _feed(server)
    use_feed(feed)
    p = _ClassToy().refresh()
    p.choice.choice.index = 0
    text = p.choice.reveal()
    assert text.startswith("✅")  # the exercise itself still works
    shown = p.choice.class_box.view.value
    assert words in shown and "your answer was not shared" in shown and "Traceback" not in shown
    with pytest.raises(CF.ClassFeedError, match=words):
        feed.released("_ClassToy.choice")


@pytest.mark.slow
def test_the_opt_out_box_takes_only_a_bool_from_the_browser(server, use_feed):
    use_feed(_feed(server))
    p = _ClassToy().refresh()
    box = p.choice.class_box.share
    assert box.value is True
    for bad in ("false", 0, None, [False]):
        box._handle_msg({"content": {"data": {"method": "update", "state": {"value": bad}, "buffer_paths": []}},
                         "buffers": []})
        assert box.value is True
    box._handle_msg({"content": {"data": {"method": "update", "state": {"value": False}, "buffer_paths": []}},
                     "buffers": []})
    assert box.value is False


# ---- the buckets ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("rel_tol,truth,guess,bucket", [
    (0.1, 10.0, 9.0, 2), (0.1, 10.0, 11.0, 2), (0.1, 10.0, 10.0, 2),  # |r| = t: close, as verdict() says
    (0.1, 10.0, 8.99, 1), (0.1, 10.0, 11.01, 3),
    (0.1, 10.0, 5.0, 1), (0.1, 10.0, 4.99, 0),  # r = −f = −0.5: still "too low"; below it "far too low"
    (0.1, 10.0, 15.0, 3), (0.1, 10.0, 15.01, 4),
    (0.1, -10.0, -11.0, 2), (0.1, -10.0, -15.0, 1), (0.1, -10.0, -4.0, 4),  # r = (guess − truth)/|truth|
    (0.25, 4.0, 7.0, 3), (0.25, 4.0, 7.01, 4), (0.25, 4.0, 0.99, 0),  # f = max(0.5, 3·0.25) = 0.75
    (0.1, 0.0, 0.1, 2), (0.1, 0.0, -0.1, 2), (0.1, 0.0, 0.5, 3), (0.1, 0.0, 0.51, 4), (0.1, 0.0, -0.2, 1),
])
def test_relative_error_buckets_at_their_edges(rel_tol, truth, guess, bucket):
    ex = PredictReveal("?", answer=lambda p, v: truth, rel_tol=rel_tol)
    assert ex.bucket_of(guess, truth) == bucket
    assert (bucket == 2) == ex.verdict(guess, truth).startswith("✅")
    assert ex.buckets.k == 5 and ex.correct_buckets(truth) == [2]


def test_relative_labels_say_the_percentages_in_words():
    assert PredictReveal("?", answer=lambda p, v: 1.0, rel_tol=0.15).buckets.labels == (
        "far too low: more than 50% below the answer", "too low: 15% to 50% below the answer",
        "close: within ±15% of the answer", "too high: 15% to 50% above the answer",
        "far too high: more than 50% above the answer")
    assert "within ±2.5%" in PredictReveal("?", answer=lambda p, v: 1.0, rel_tol=0.025).buckets.labels[2]
    assert "more than 150%" in PredictReveal("?", answer=lambda p, v: 1.0, rel_tol=0.5).buckets.labels[0]


def test_declared_bins_bucket_the_guess_and_the_truth():
    ex = PredictReveal("?", answer=lambda p, v: 2.5, bins=[0, 1, 2, 3])
    assert ex.buckets.labels == ("< 1", "[1, 2)", "≥ 2")
    assert [ex.bucket_of(g, 2.5) for g in (-4.0, 0.999, 1.0, 2.0, 99.0)] == [0, 0, 1, 2, 2]
    assert ex.correct_buckets(2.5) == [2] and ex.correct_buckets(0.5) == [0]
    assert ex.bucket_of(math.nan, 1.0) is None
    with pytest.raises(ValueError, match="edges"):
        PredictReveal("?", answer=lambda p, v: 1.0, bins=[0, 0, 1])


def test_choice_buckets_are_its_options():
    ex = _ClassToy.exercises["choice"]
    assert ex.buckets.labels == ("<b>x</b>", "y & z", "w") and ex.correct == [0]


def test_plain_title_strips_tags_and_caps_the_length():
    assert CF.plain_title("Is <b>δ</b> = 1/n&nbsp;safe?<br>\n <i>Why</i>?") == "Is δ = 1/n safe? Why?"
    assert len(CF.plain_title("x" * 1000)) == 300


# ---- the neighbouring-dataset game --------------------------------------------------------------------------------

def _counts(game):
    return [game.negatives - game.false_positives, game.negatives, game.true_positives, game.positives]


@pytest.mark.slow
def test_the_game_posts_its_tally_at_once_without_a_loop(server, use_feed):
    use_feed(_feed(server))
    p = NeighbourGamePanel(rng=4, canary=3.0, noise_multiplier=1.5).refresh()
    assert "as it is, without noise" in p.class_box.notice.value and p.class_box.view.value == ""
    for _ in range(6):
        p.guess(p.game.output > 0.5)
    posts = [r for r in server.requests if r["path"].endswith("/game")]
    assert len(posts) == 6 and all(r["key"] == KEY for r in posts)
    body = posts[-1]["body"]
    assert body["exercise"] == "NeighbourGamePanel.game.z1.5-g1"  # the canary is clipped to C = 1
    assert body["counts"] == _counts(p.game)
    assert body["domain"]["claimed_epsilon"] == p.game.claimed_epsilon and body["domain"]["delta"] == 1e-5
    shown = p.class_box.view.value
    assert "1 player," in shown and "pooled 95 % lower bound ε ≥ 0.25" in shown
    assert f"claimed ε = {p.game.claimed_epsilon:.3g}" in shown


@pytest.mark.slow
def test_the_game_debounces_on_the_kernel_loop_and_posts_the_latest_counts(server, use_feed, monkeypatch):
    monkeypatch.setattr(auditing, "GAME_POST_INTERVAL", 0.3)
    use_feed(_feed(server))
    p = NeighbourGamePanel(rng=9).refresh()

    def posts():
        return [r["body"] for r in server.requests if r["path"].endswith("/game")]

    async def play():
        for _ in range(8):
            p.guess(bool(p.game.output > 0.5))
        assert len(posts()) == 1  # the first at once, the rest wait for the interval
        await asyncio.sleep(0.6)
        assert len(posts()) == 2 and posts()[-1]["counts"] == _counts(p.game)  # the latest counts, once
        p.guess(True)  # 0.6 s after the last post: at once
        assert len(posts()) == 3 and posts()[-1]["counts"] == _counts(p.game)
        p.guess(False)
        p.class_box.share.value = False  # opting out cancels the post due
        await asyncio.sleep(0.5)
        assert len(posts()) == 3

    asyncio.run(play())
    assert sum(_counts(p.game)[1::2]) == 10


@pytest.mark.slow
def test_the_game_pools_only_plays_of_one_mechanism(server, use_feed):
    use_feed(_feed(server))
    p = NeighbourGamePanel(rng=2).refresh()
    p.guess(True)
    p.controls["noise_multiplier"].value = 2.0
    assert p.class_box.view.value == ""  # another mechanism: its pool is not this learner's yet
    p.guess(True)
    keys = [r["body"]["exercise"] for r in server.requests]
    assert keys == ["NeighbourGamePanel.game.z1-g1", "NeighbourGamePanel.game.z2-g1"]
    assert server.requests[-1]["body"]["counts"] == _counts(p.game)


@pytest.mark.slow
def test_the_game_opt_out_sends_nothing_and_a_down_server_is_a_friendly_line(server, use_feed):
    use_feed(_feed(server))
    p = NeighbourGamePanel(rng=2).refresh()
    p.class_box.share.value = False
    p.guess(True)
    assert server.requests == [] and "not shared" in p.class_box.view.value
    p.class_box.share.value = True
    server.status = 410
    p.guess(True)
    assert "the class has ended; your tally was not shared" in p.class_box.view.value

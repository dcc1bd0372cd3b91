"""The class view as a JupyterHub service (dpviz.serve.hubclass), in-process against a fake hub.

A fake hub API on loopback answers ``GET /hub/api/user`` for the tokens it knows (students' servers' tokens, a
service's, the teachers' OAuth tokens) and ``POST /hub/api/oauth2/token`` for one OAuth code; the service runs on a
free loopback port of its own, in the same event loop (a thread of the test), so the kernels' feeds
(:class:`dpviz.panels.classfeed.ClassFeed` in hub mode) speak to it over real HTTP."""

from __future__ import annotations

import asyncio
import http.client
import http.cookies
import json
import threading
import urllib.parse
import uuid

import pytest
from jupyterhub.services.auth import HubOAuth
from tornado import httpserver, netutil, web

from dpviz import classpoll
from dpviz.panels import classfeed as CF
from dpviz.serve import classview, hubclass
from dpviz.serve.classstore import ClassStore

PREFIX = "/services/dpviz-class/"
ACCESS = "access:services!service=dpviz-class"
SERVICE_TOKEN = "service-secret-token"
LABELS = ["yes", "no", "not sure"]
EXERCISE = "ChoicePanel.quiz"
DOMAIN = {"labels": LABELS, "title": "Which holds?", "lesson": "why_privacy", "correct": [0], "kind": "choice"}

#: What the fake hub's /hub/api/user says of each token (None: the hub does not know it).
MODELS = {
    "server-token-ana": {"kind": "user", "name": "ana", "admin": False, "groups": [],
                         "scopes": ["users:activity!user=ana"]},
    "server-token-bob": {"kind": "user", "name": "bøb ünïcode", "admin": False, "groups": ["students"],
                         "scopes": ["users:activity!user=bøb ünïcode"]},
    "service-token-x": {"kind": "service", "name": "announcer", "scopes": []},
    "oauth-admin": {"kind": "user", "name": "ada", "admin": True, "groups": [], "scopes": [ACCESS]},
    "oauth-teacher": {"kind": "user", "name": "tess", "admin": False, "groups": ["teachers"], "scopes": [ACCESS]},
    "oauth-student": {"kind": "user", "name": "<b>stu</b>", "admin": False, "groups": ["students"],
                      "scopes": [ACCESS]},
}
#: The one OAuth code the fake hub exchanges, and the token it gives.
CODES = {"code-for-tess": "oauth-teacher"}


class _HubUser(web.RequestHandler):
    def get(self):
        token = self.request.headers.get("Authorization", "").removeprefix("token ")
        self.application.settings["seen"].append(token)
        model = MODELS.get(token)
        if model is None:
            raise web.HTTPError(403)
        self.finish(json.dumps(model))


class _HubToken(web.RequestHandler):
    def post(self):
        if self.get_body_argument("client_secret") != SERVICE_TOKEN:
            raise web.HTTPError(403)
        token = CODES.get(self.get_body_argument("code"))
        if token is None:
            raise web.HTTPError(400)
        self.finish(json.dumps({"access_token": token, "token_type": "Bearer"}))


class Loop:
    """An asyncio loop in a thread, serving the fake hub and any number of services."""

    def __init__(self):
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.seen: list[str] = []
        self.hub_port = self.serve(lambda: web.Application([("/hub/api/user", _HubUser),
                                                            ("/hub/api/oauth2/token", _HubToken)], seen=self.seen))

    def call(self, fn):
        async def run():
            return fn()
        return asyncio.run_coroutine_threadsafe(run(), self.loop).result(10)

    def serve(self, make_app) -> int:
        def start():
            sockets = netutil.bind_sockets(0, "127.0.0.1")
            server = httpserver.HTTPServer(make_app(), xheaders=True)
            server.add_sockets(sockets)
            return server, sockets[0].getsockname()[1]
        server, port = self.call(start)
        self.servers = getattr(self, "servers", []) + [server]
        return port

    def stop(self, port=None):
        for server in list(self.servers):
            if port is None or any(s.getsockname()[1] == port for s in server._sockets.values()):
                self.call(server.stop)
                self.servers.remove(server)

    def close(self):
        self.stop()
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


@pytest.fixture(scope="module")
def loop():
    lp = Loop()
    yield lp
    lp.close()


def _hub_auth(loop) -> HubOAuth:
    return HubOAuth(api_token=SERVICE_TOKEN, api_url=f"http://127.0.0.1:{loop.hub_port}/hub/api",
                    oauth_client_id="service-dpviz-class", oauth_redirect_uri=PREFIX + "oauth_callback",
                    base_url=PREFIX, hub_prefix="/hub/", access_scopes={ACCESS}, cache_max_age=60)


class Service:
    """The service on a port of its own, over ``class_dir``."""

    def __init__(self, loop, class_dir, privacy="local", join_url="", **kw):
        self.loop = loop
        # the store is the service's: made and used in the service's thread (sqlite3's rule), as in the real one
        self.view = loop.call(lambda: classview.ClassView(ClassStore(class_dir), privacy=privacy, **kw))
        self.port = loop.serve(lambda: hubclass.make_app(self.view, _hub_auth(loop), join_url=join_url))
        self.api = f"http://127.0.0.1:{self.port}{PREFIX}api/"
        self.token = loop.call(self.view.store.teacher_token)

    def request(self, path, method="GET", body=None, headers=None):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            conn.request(method, path, body=body, headers=headers or {})
            reply = conn.getresponse()
            return reply.status, reply, reply.read().decode("utf-8", "replace")
        finally:
            conn.close()

    def state(self):
        status, _, body = self.request(PREFIX + "state.json", headers={"X-Dpviz-Teacher": self.token})
        assert status == 200, body
        return json.loads(body)

    def feed(self, token, kernel=None, privacy="local"):
        return CF.ClassFeed(self.api, None, privacy, 2.0, kernel or str(uuid.uuid4()), rng=7, hub_token=token)

    def stop(self):
        if self.port is not None:
            self.loop.stop(self.port)
            self.loop.call(self.view.store.close)
            self.port = None


@pytest.fixture
def service(loop, tmp_path):
    made = []

    def make(privacy="local", class_dir=None, **kw):
        s = Service(loop, class_dir or tmp_path / "class", privacy, **kw)
        made.append(s)
        return s
    yield make
    for s in made:
        s.stop()


def _buckets():
    return classpoll.Buckets.categorical(LABELS)


def _raw_submit(svc, headers, kernel=None):
    body = {"kernel": kernel or str(uuid.uuid4()), "exercise": EXERCISE, "submission": uuid.uuid4().hex[:16],
            "bucket": 1, "domain": DOMAIN}
    return svc.request(PREFIX + "api/submit", "POST", json.dumps(body), {"Content-Type": "application/json",
                                                                         **headers})


# ---- the kernels -------------------------------------------------------------------------------------------------

def test_two_students_submit_through_their_feeds_and_the_teacher_sees_the_tally(service):
    svc = service()
    ana, bob = svc.feed("server-token-ana"), svc.feed("server-token-bob")
    release = ana.submit(EXERCISE, 0, _buckets(), DOMAIN)
    assert release["n"] == 1 and release["privacy"] == "local"
    assert bob.submit(EXERCISE, 2, _buckets(), DOMAIN)["n"] == 2
    # the submitter is the hub user, not the kernel: ana's second kernel replaces her answer
    assert svc.feed("server-token-ana").submit(EXERCISE, 1, _buckets(), DOMAIN)["n"] == 2
    (ex,) = svc.state()["exercises"]
    assert ex["exercise"] == EXERCISE and ex["answers"] == 2 and ex["release"]["n"] == 2
    assert ana.released(EXERCISE)["n"] == 2
    pooled = bob.submit_game("NeighbourGamePanel.game.z1", [3, 4, 2, 4],
                             {"title": "game", "lesson": "dp_sgd", "claimed_epsilon": 1.0, "delta": 0.0})
    assert pooled["players"] == 1


def test_an_unknown_token_no_token_and_a_service_token_are_refused(service, loop):
    svc = service()
    for headers in ({}, {"Authorization": "token nobody-knows-this"}, {"Authorization": "token service-token-x"},
                    {"Authorization": "server-token-ana"}, {"X-Dpviz-Class-Key": "ab" * 32},
                    {"Authorization": "token " + "x" * 600}):
        status, _, body = _raw_submit(svc, headers)
        assert status == 403 and "forbidden" in body, headers
    status, _, _ = svc.request(PREFIX + f"api/released?exercise={EXERCISE}")
    assert status == 403
    status, _, _ = svc.request(PREFIX + f"api/released?exercise={EXERCISE}&token=server-token-ana")
    assert status == 403  # a token in the address is not taken
    with pytest.raises(CF.ClassFeedError) as info:
        svc.feed("nobody-knows-this").submit(EXERCISE, 0, _buckets(), DOMAIN)
    assert info.value.status == 403 and "nobody" not in str(info.value)
    assert svc.state()["exercises"] == []


def test_the_kernels_requests_are_checked_like_dpviz_serves(service):
    svc = service()
    auth = {"Authorization": "token server-token-ana"}
    status, _, body = svc.request(PREFIX + "api/submit", "POST", b"not json", auth)
    assert status == 400 and "JSON" in body
    status, _, _ = svc.request(PREFIX + "api/submit", "POST", b"{" * 20000, auth)
    assert status == 413
    body = {"exercise": EXERCISE, "submission": uuid.uuid4().hex[:16], "bucket": 7, "domain": DOMAIN}
    status, _, reply = svc.request(PREFIX + "api/submit", "POST", json.dumps(body), auth)
    assert status == 400 and "bucket" in reply  # the body's kernel is not needed under the hub


# ---- the teacher -------------------------------------------------------------------------------------------------

def test_only_a_teacher_sees_the_page(service):
    svc = service(join_url="https://hub.example.org/")
    for token in ("oauth-admin", "oauth-teacher"):
        status, reply, page = svc.request(PREFIX, headers={"Authorization": f"token {token}"})
        assert status == 200, (token, page)
        assert reply.getheader("Cache-Control") == "no-store" and reply.getheader("Referrer-Policy") == "no-referrer"
        config = json.loads(page.split('id="dpviz-class-config" type="application/json">')[1].split("</script>")[0])
        assert config == {"state": PREFIX + "state.json", "release": PREFIX + "release", "end": PREFIX + "end",
                          "privacy": "local", "token": svc.token}
        assert f'src="{PREFIX}static/class.js"' in page and "https://hub.example.org/" in page and "<svg" in page
    status, reply, page = svc.request(PREFIX, headers={"Authorization": "token oauth-student"})
    assert status == 403 and reply.getheader("Content-Type").startswith("text/html")
    assert "teachers" in page and svc.token not in page and "<b>stu</b>" not in page and "&lt;b&gt;stu" in page
    # a student's server token opens no page (it holds no access to the service)
    status, _, page = svc.request(PREFIX, headers={"Authorization": "token server-token-ana"})
    assert status == 403 and svc.token not in page


def test_the_teacher_group_is_a_flag(service, loop, tmp_path):
    svc = service()
    port = loop.serve(lambda: hubclass.make_app(svc.view, _hub_auth(loop), teacher_group="students"))
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", PREFIX, headers={"Authorization": "token oauth-student"})
    assert conn.getresponse().status == 200
    conn.close()
    loop.stop(port)
    with pytest.raises(ValueError, match="teacher_group"):
        hubclass.make_app(svc.view, _hub_auth(loop), teacher_group="")


def test_a_browser_without_the_hubs_login_goes_through_the_oauth_dance(service):
    svc = service()
    status, reply, _ = svc.request(PREFIX + "?projector=1")
    assert status == 302
    location = urllib.parse.urlsplit(reply.getheader("Location"))
    query = urllib.parse.parse_qs(location.query)
    assert location.path == "/hub/api/oauth2/authorize" and query["client_id"] == ["service-dpviz-class"]
    assert query["redirect_uri"] == [PREFIX + "oauth_callback"] and query["response_type"] == ["code"]
    jar = http.cookies.SimpleCookie()
    for header in reply.headers.get_all("Set-Cookie"):
        jar.load(header)
    cookies = "; ".join(f"{k}={m.value}" for k, m in jar.items())
    # the hub sends the browser back with a code, which the service exchanges for the teacher's token
    back = {"code": "code-for-tess", "state": query["state"][0]}
    callback = PREFIX + "oauth_callback?" + urllib.parse.urlencode(back)
    status, reply, body = svc.request(callback, headers={"Cookie": cookies})
    assert status == 302, body
    assert reply.getheader("Location") == PREFIX + "?projector=1"
    for header in reply.headers.get_all("Set-Cookie"):
        jar.load(header)
    cookies = "; ".join(f"{k}={m.value}" for k, m in jar.items() if m.value)
    status, _, page = svc.request(PREFIX + "?projector=1", headers={"Cookie": cookies})
    assert status == 200 and 'class="projector"' in page and svc.token in page
    # the join address: the hub's root on the host the teacher used
    assert f"http://127.0.0.1:{svc.port}/" in page


def test_the_teachers_routes_need_the_token_and_class_js_is_served(service):
    svc = service()
    for path in ("state.json", "state.json?token=wrong"):
        status, _, body = svc.request(PREFIX + path, headers={"Authorization": "token oauth-admin"})
        assert status == 403 and "exercises" not in body, path
    for path in ("release", "end"):
        status, _, _ = svc.request(PREFIX + path, "POST", b"{}", {"X-Dpviz-Teacher": "guess"})
        assert status == 403
    status, _, js = svc.request(PREFIX + "static/class.js")
    assert status == 200 and "config.token" in js and "innerHTML" not in js
    assert svc.request(PREFIX + "static/class.html.j2")[0] == 404


def test_central_release_and_a_restart_keeps_the_answers(service, tmp_path):
    svc = service("central")
    for token, bucket in (("server-token-ana", 0), ("server-token-bob", 0)):
        assert svc.feed(token, privacy="central").submit(EXERCISE, bucket, _buckets(), DOMAIN) is None
    status, _, body = svc.request(PREFIX + "release", "POST", json.dumps({"exercise": EXERCISE}),
                                  {"X-Dpviz-Teacher": svc.token})
    assert status == 200, body
    release = json.loads(body)["release"]
    assert release["privacy"] == "central" and release["epsilon"] == 1.0
    before = svc.state()
    assert before["budget"]["spent"] == 1.0 and before["exercises"][0]["answers"] == 2
    svc.stop()
    again = service("central", class_dir=tmp_path / "class")
    assert again.token == svc.token  # the teacher's token survives, so an open page keeps working
    after = again.state()
    assert after["exercises"] == before["exercises"] and after["budget"] == before["budget"]
    assert again.feed("server-token-ana", privacy="central").submit(EXERCISE, 1, _buckets(), DOMAIN)
    assert again.state()["exercises"][0]["answers"] == 2  # ana's answer replaced, not added
    status, _, _ = again.request(PREFIX + "end", "POST", b"{}", {"X-Dpviz-Teacher": again.token})
    assert status == 200 and again.state()["ended"]
    with pytest.raises(CF.ClassFeedError, match="ended"):
        again.feed("server-token-bob", privacy="central").submit(EXERCISE, 1, _buckets(), DOMAIN)


def test_the_hub_is_asked_once_per_token(service, loop):
    svc = service()
    loop.seen.clear()
    feed = svc.feed("server-token-ana")
    feed.submit(EXERCISE, 0, _buckets(), DOMAIN)
    for _ in range(3):
        assert feed.released(EXERCISE)["n"] == 1
    assert loop.seen == ["server-token-ana"]  # HubAuth's cache


# ---- the pieces ----------------------------------------------------------------------------------------------------

def test_the_submitter_id_is_a_browser_id_the_store_accepts():
    ids = {hubclass.submitter_id(n) for n in ("ana", "bøb ünïcode", "a" * 300, "ANA")}
    assert len(ids) == 4 and all(i.startswith("hub-") and len(i) == 36 for i in ids)
    with pytest.raises(ValueError, match="name"):
        hubclass.submitter_id("")


def test_is_teacher():
    assert hubclass.is_teacher({"admin": True, "groups": []})
    assert hubclass.is_teacher({"admin": False, "groups": ["teachers"]})
    assert not hubclass.is_teacher({"admin": False, "groups": ["students"]})
    assert not hubclass.is_teacher({"admin": "yes", "groups": "teachers"})
    assert hubclass.is_teacher({"groups": ["staff"]}, "staff")


def test_the_hub_environment_of_the_kernels():
    env = json.loads(classview.hub_environment("http://hub:10101/services/dpviz-class/api/", "central", 2))
    assert env == {"api": "http://hub:10101/services/dpviz-class/api/", "auth": "hub", "privacy": "central",
                   "epsilon": 2.0}
    feed = CF.ClassFeed.from_environment({CF.CLASS_ENV: json.dumps(env), CF.HUB_TOKEN_ENV: "server-token-ana"},
                                         kernel_id="k1")
    assert feed.hub and "server-token-ana" not in repr(feed)
    with pytest.raises(ValueError, match="privacy"):
        classview.hub_environment("http://hub/", "public", 2)
    with pytest.raises(ValueError, match="report_epsilon"):
        classview.hub_environment("http://hub/", "local", 0)


@pytest.mark.parametrize("argv,words", [
    (["--epsilon", "0"], ["--epsilon", "0.0", "[0.001, 1000]"]),
    (["--epsilon", "lots"], ["--epsilon", "'lots'", "[0.001, 1000]"]),
    (["--release-epsilon", "101"], ["--release-epsilon", "101", "[0.001, 100]"]),
    (["--report-epsilon", "nan"], ["--report-epsilon", "nan", "[0.001, 100]"]),
    (["--privacy", "public"], ["--privacy", "'public'", "local", "central"]),
    (["--class-name", "../etc"], ["--class-name", "'../etc'", "64 letters"]),
    (["--class-end", "25:99"], ["--class-end", "'25:99'", "HH:MM"]),
    (["--teacher-group", ""], ["--teacher-group", "''", "255"]),
    (["--join-url", "ftp://x/"], ["--join-url", "'ftp://x/'", "http or https"]),
    (["--ip", "a b"], ["--ip", "'a b'", "IP address"]),
])
def test_a_bad_flag_exits_2_naming_it(argv, words, capsys):
    with pytest.raises(SystemExit) as info:
        hubclass.parse_args(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert all(w in err for w in words), err


def test_the_flags_defaults():
    args = hubclass.parse_args([])
    assert (args.privacy, args.epsilon, args.release_epsilon, args.report_epsilon) == ("local", 4.0, 1.0, 2.0)
    assert args.teacher_group == "teachers" and args.class_end is None and args.class_name.startswith("class-")
    assert args.join_url is None and args.ip is None and args.class_dir == ""
    args = hubclass.parse_args(["--privacy", "central", "--epsilon", "8", "--class-end", "2026-12-02T15:30",
                                "--join-url", "https://hub.example.org/"])
    assert args.epsilon == 8.0 and args.class_end > 0 and args.join_url == "https://hub.example.org/"


def test_main_outside_a_hub_says_so(monkeypatch, capsys):
    monkeypatch.delenv("JUPYTERHUB_SERVICE_URL", raising=False)
    with pytest.raises(SystemExit) as info:
        hubclass.main([])
    assert "managed service" in str(info.value.code)

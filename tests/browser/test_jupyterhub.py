"""dpviz behind a real JupyterHub: the recipe ``deploy/jupyterhub/jupyterhub_config.py``, run as a school runs it.

One hub on loopback (JupyterHub from PyPI, configurable-http-proxy from npm: ``make hub-proxy``), started with the
recipe itself plus what a test machine changes (:data:`OVERLAY`: the dummy authenticator, the local process
spawner with homes in a temporary folder, loopback ports, short cull times). Then, as in a class:

- three students log in at once, each in a Chromium of their own; each opens lesson 07 (the composition lab; in
  lesson 05 before the split, its figures were where, under the hub without dpviz's extension, anywidget failed
  to start 1-5 figures in 4 of 6 runs): every
  figure is drawn, no page error, each panel's first control changes its figures, plotly.js is fetched once per
  page, and no request leaves the machine;
- two of them answer lesson 01's exercise, and the teacher (a member of the ``teachers`` group) sees the class's
  released histogram at ``/services/dpviz-class/`` (after the hub's OAuth login), where a student is refused;
- the pages close: each kernel is freed with its page (the shutdown beacon), and the idle culler stops the
  idle servers.

It prints the numbers the docs' sizing section quotes: each student's memory (proportional set size of the server,
its fork server and its kernels) and the time from the lesson link to the lesson's figures.

Bounded: every wait has a deadline, and the hub, its proxy, its services and every student's server are stopped
(the whole process group) at the end, passed or failed.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from _server import free_port, wait_until
from test_browser import (
    CHROMIUM,
    CHROMIUM_ARGS,
    _move_first_control_and_wait,
    _new_page,
    _unavailable_reason,
    _wait_for_every_panels_figures,
    _wait_for_first_figure,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
RECIPE = ROOT / "deploy" / "jupyterhub" / "jupyterhub_config.py"
#: Where ``make hub-proxy`` (and so ``make test``) installs configurable-http-proxy; ``DPVIZ_HUB_PROXY`` overrides.
PROXY = Path(os.environ.get("DPVIZ_HUB_PROXY", ROOT / ".venv" / "hub-proxy" / "node_modules" / ".bin" /
                            "configurable-http-proxy"))
STUDENTS = ("ada", "bo", "cy")
TEACHER = "teach"
FIGURES_LESSON = "07_accounting_in_practice.ipynb"
EXERCISE_LESSON = "01_why_privacy.ipynb"
EXERCISE = "ReconstructionPanel.exercise"
#: Seconds: the culler's timeout and period, and the servers' activity interval, in this test.
CULL_TIMEOUT, CULL_EVERY, ACTIVITY = 30, 10, 5

OVERLAY = """
c = get_config()  # noqa: F821
load_subconfig({recipe!r})  # noqa: F821  (the recipe, unchanged)
c.JupyterHub.authenticator_class = "dummy"
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = {homes!r} + "/{{username}}"
if {root!r}:
    # this test runs as root; a school's spawner runs each student as themselves
    c.Spawner.args.append("--allow-root")
c.JupyterHub.bind_url = "http://127.0.0.1:{port}"
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {hub_port}
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{proxy_port}"
c.ConfigurableHTTPProxy.command = [{proxy!r}]
c.JupyterHub.db_url = "sqlite:///" + {folder!r} + "/jupyterhub.sqlite"
c.JupyterHub.cookie_secret_file = {folder!r} + "/cookie_secret"
c.JupyterHub.pid_file = {folder!r} + "/jupyterhub.pid"
c.JupyterHub.services.append({{"name": "dpviz-test", "api_token": {token!r}}})
c.JupyterHub.load_roles.append({{"name": "dpviz-test", "scopes": ["list:users", "read:users", "read:servers",
                                                                     "access:servers", "access:services"],
                                 "services": ["dpviz-test"]}})
"""


@pytest.fixture(scope="module")
def browser_available():
    reason = _unavailable_reason()
    if reason is None and not PROXY.exists():
        reason = f"configurable-http-proxy not found at {PROXY} (make hub-proxy installs it with npm)"
    if reason:
        if os.environ.get("DPVIZ_REQUIRE_BROWSER") == "1":
            pytest.fail(f"the real-hub test is required (DPVIZ_REQUIRE_BROWSER=1) but cannot run: {reason}")
        pytest.skip(reason)


class Hub:
    """A JupyterHub started with the recipe in its own process group, and the test's API token."""

    def __init__(self, folder: Path, shared: bool = False):
        self.folder = folder
        self.shared = shared
        self.lessons_port = free_port()
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.token = secrets.token_hex(16)
        self.class_port = free_port()
        config = folder / "jupyterhub_test_config.py"
        config.write_text(OVERLAY.format(recipe=str(RECIPE), homes=str(folder / "homes"), root=os.geteuid() == 0,
                                         port=self.port, hub_port=free_port(), proxy_port=free_port(),
                                         proxy=str(PROXY), folder=str(folder), token=self.token))
        env = {**os.environ,
               "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
               "DPVIZ_HUB_CULL_TIMEOUT": str(CULL_TIMEOUT), "DPVIZ_HUB_CULL_EVERY": str(CULL_EVERY),
               "DPVIZ_HUB_ACTIVITY_INTERVAL": str(ACTIVITY), "DPVIZ_HUB_CLASS_PORT": str(self.class_port),
               "DPVIZ_HUB_CLASS_DIR": str(folder / "class"), "DPVIZ_HUB_TEACHERS": TEACHER,
               "DPVIZ_HUB_SHARED": "1" if shared else "0", "DPVIZ_HUB_LESSONS_PORT": str(self.lessons_port),
               "DPVIZ_HUB_CLASS_SIZE": str(len(STUDENTS)), "DPVIZ_HUB_LESSONS": "01,07",
               "XDG_DATA_HOME": str(folder / "data")}
        self.log_path = folder / "jupyterhub.log"
        self._log = self.log_path.open("wb")
        self.proc = subprocess.Popen([sys.executable, "-m", "jupyterhub", "-f", str(config)], cwd=folder, env=env,
                                     stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def lessons(self, name: str) -> str:
        """Where ``name`` opens the lessons: their own server, or the shared one."""
        return f"{self.url}/services/dpviz-lessons" if self.shared else f"{self.url}/user/{name}"

    def shared_status(self) -> dict:
        """The shared lesson server's status.json (with the test's token, which may access the service)."""
        req = urllib.request.Request(f"{self.url}/services/dpviz-lessons/dpviz/status.json",
                                     headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.loads(r.read())

    def api(self, path: str) -> dict | list:
        req = urllib.request.Request(f"{self.url}/hub/api/{path}", headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.loads(r.read())

    def up(self) -> bool:
        try:
            self.api("")
            if self.shared:  # the shared lesson server has pre-heated the class (its class view is its own)
                return "ready for" in self.log()
            with urllib.request.urlopen(f"http://127.0.0.1:{self.class_port}/services/dpviz-class/api/released",
                                        timeout=5):
                pass
        except urllib.error.HTTPError as e:  # the class view answers (a request without a token is refused)
            return e.code in (401, 403)
        except OSError:
            return False
        return True

    def kernels(self, name: str) -> list:
        """The kernels running in ``name``'s server (none when it has stopped)."""
        req = urllib.request.Request(f"{self.url}/user/{name}/api/kernels",
                                     headers={"Authorization": f"token {self.token}"})
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return json.loads(r.read())
        except urllib.error.HTTPError as e:
            if e.code in (404, 424, 503):  # the server is not running
                return []
            raise

    def servers(self) -> dict[str, dict]:
        return {u["name"]: u.get("servers", {}) for u in self.api("users")}

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)  # the hub stops its servers, services and proxy
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                pass
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)  # and whatever is left of its process group
        except ProcessLookupError:
            pass
        self._log.close()


def _started(folder: Path, shared: bool):
    h = Hub(folder, shared=shared)
    try:
        if not wait_until(lambda: h.proc.poll() is not None or h.up(), 180) or h.proc.poll() is not None:
            pytest.fail("the hub did not start within 180 s:\n" + h.log()[-4000:])
        yield h
    finally:
        h.stop()
        shutil.rmtree(h.folder / "homes", ignore_errors=True)


@pytest.fixture
def hub(browser_available, tmp_path):
    yield from _started(tmp_path, shared=False)


@pytest.fixture
def shared_hub(browser_available, tmp_path):
    yield from _started(tmp_path, shared=True)


def _login(pg, hub: Hub, name: str) -> None:
    pg.goto(f"{hub.url}/hub/login")
    pg.fill("#username_input", name)
    pg.fill("#password_input", "any")
    pg.click("#login_submit")
    pg.wait_for_url("**/voila/render/index.ipynb", timeout=180_000)
    assert pg.url.startswith(hub.lessons(name)), pg.url


def _server_cost(name: str) -> tuple[dict[str, float], float]:
    """Proportional set size of ``name``'s single-user server and every process below it (its fork server, its
    kernels), in MB, by process (pages shared between them are split between them, so the sum counts them once),
    and the CPU seconds they have used."""
    import psutil

    sizes: dict[str, float] = {}
    cpu = 0.0
    for proc in psutil.process_iter(["cmdline", "environ"]):
        try:
            env = proc.info["environ"] or {}
            if env.get("JUPYTERHUB_USER") != name or "singleuser" not in " ".join(proc.info["cmdline"]):
                continue
            if psutil.Process(proc.ppid()).environ().get("JUPYTERHUB_USER") == name:
                continue  # a child of the server: counted below
            for p in [proc, *proc.children(recursive=True)]:
                what = " ".join(p.cmdline())
                kind = ("kernel" if "ipykernel" in what or "kernel-" in what else
                        "fork server" if "forkserver" in what else "server" if "singleuser" in what else what[:40])
                sizes[kind] = sizes.get(kind, 0.0) + p.memory_full_info().pss / 2**20
                times = p.cpu_times()
                cpu += times.user + times.system
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return sizes, cpu


def _student(hub: Hub, name: str, results: dict, start: threading.Barrier) -> None:
    """One student, in a Chromium of their own: log in (together with the others), open the figures' lesson, check
    every figure and every panel's first control; two of them then answer lesson 01's exercise."""
    from playwright.sync_api import sync_playwright

    record: dict = {"errors": [], "plotly_fetches": 0, "outside": []}
    results[name] = record
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            context, pg = _new_page(browser, viewport={"width": 1100, "height": 900})

            def seen(request):
                if "plotly" in request.url and request.url.endswith(".js"):
                    record["plotly_fetches"] += 1
                if not request.url.startswith((hub.url, "data:", "blob:", "about:")):
                    record["outside"].append(request.url)

            pg.on("request", seen)
            start.wait(timeout=60)
            t_login = time.monotonic()
            _login(pg, hub, name)
            t0 = time.monotonic()
            record["login_s"] = t0 - t_login
            pg.goto(f"{hub.lessons(name)}/voila/render/{FIGURES_LESSON}")
            _wait_for_first_figure(pg, f"{name}: {FIGURES_LESSON}")
            record["first_figure_s"] = time.monotonic() - t0
            record["panels"] = _wait_for_every_panels_figures(pg)
            record["all_figures_s"] = time.monotonic() - t0
            if hub.shared:
                record["status"] = hub.shared_status()
            else:
                record["memory_mb"], record["cpu_s"] = _server_cost(name)
            record["moved"] = [_move_first_control_and_wait(pg, i) for i in range(record["panels"])]
            record["errors"] += pg.page_errors
            if name != STUDENTS[-1]:
                record["answer"] = _answer(pg, hub, name, record, option=STUDENTS.index(name))
                record["errors"] += pg.page_errors
            pg.goto("about:blank")  # the student leaves the lesson: its page's beacon frees its kernel
            context.close()
        except Exception as exc:  # noqa: BLE001  (reported by the test, with the hub's log)
            record["errors"].append(f"{type(exc).__name__}: {exc}")
        finally:
            browser.close()


def _answer(pg, hub: Hub, name: str, record: dict, option: int) -> str:
    t0 = time.monotonic()
    pg.goto(f"{hub.lessons(name)}/voila/render/{EXERCISE_LESSON}")
    _wait_for_first_figure(pg, f"{name}: {EXERCISE_LESSON}")
    record["second_first_figure_s"] = time.monotonic() - t0
    box = pg.locator(".dpviz-ReconstructionPanel .dpviz-exercise").first
    box.scroll_into_view_if_needed()
    box.locator(".dpviz-class-notice").wait_for(timeout=60_000)
    box.locator("input[type=radio]").nth(option).check()
    box.get_by_role("button", name="Reveal").click()
    view = box.locator(".dpviz-class-view")
    pg.wait_for_function("(el) => el.innerText.includes('class so far')", arg=view.element_handle(), timeout=60_000)
    return view.inner_text()


def _class_of_three(hub: Hub) -> dict[str, dict]:
    """Three students at once (see the module docstring); fails with every problem seen and the hub's log."""
    results: dict[str, dict] = {}
    start = threading.Barrier(len(STUDENTS))
    threads = [threading.Thread(target=_student, args=(hub, n, results, start)) for n in STUDENTS]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=600)
    assert not any(t.is_alive() for t in threads), "a student did not finish within 10 minutes"
    problems = []
    for name in STUDENTS:
        r = results[name]
        problems += [f"{name}: {e}" for e in r["errors"]]
        if r.get("panels"):
            problems += [f"{name}: panel {i} did not follow its first control" for i, m in enumerate(r["moved"])
                         if m is None]
        if r["plotly_fetches"] > 2:  # the bundle, and at most the figure module's own import of it (cached)
            problems.append(f"{name}: plotly.js fetched {r['plotly_fetches']} times")
        problems += [f"{name}: a request left the machine: {u}" for u in r["outside"]]
        if name != STUDENTS[-1] and "class so far" not in r.get("answer", ""):
            problems.append(f"{name}: no class tally after answering: {r.get('answer')!r}")
    assert not problems, "\n".join(problems) + "\n--- hub log ---\n" + hub.log()[-6000:]
    return results


def _teacher_sees_the_class(hub: Hub, view: str) -> None:
    """The teacher logs in to the hub and sees the two answers released at ``view``; a student is refused there."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            context, teacher = _new_page(browser, viewport={"width": 1280, "height": 1000})
            teacher.goto(f"{hub.url}/hub/login")
            teacher.fill("#username_input", TEACHER)
            teacher.fill("#password_input", "any")
            teacher.click("#login_submit")
            teacher.wait_for_url("**/voila/render/index.ipynb", timeout=180_000)
            teacher.goto(view)
            section = teacher.locator(f"section[data-exercise='{EXERCISE}']")
            section.wait_for(timeout=60_000)
            teacher.wait_for_function(
                "(sel) => document.querySelector(sel).innerText.includes('2 answer(s)')",
                arg=f"section[data-exercise='{EXERCISE}']", timeout=60_000)
            assert "estimated from 2 randomized answers" in section.inner_text()
            assert section.locator(".dpviz-bars .dpviz-track").count() >= 2
            assert not teacher.page_errors, teacher.page_errors
            context.close()
            # a student is refused the teacher's view
            context, student = _new_page(browser)
            student.goto(f"{hub.url}/hub/login")
            _login(student, hub, STUDENTS[0])
            reply = student.goto(view)
            # (refused by the hub, which gives students no access to the dpviz-class service, or by the view)
            assert reply.status == 403, reply.status
            assert "2 answer(s)" not in student.content()
            context.close()
        finally:
            browser.close()


def test_three_students_a_teacher_and_the_culler_behind_a_real_hub(hub):
    results = _class_of_three(hub)
    # Each student's pages have closed: their kernels went with them (the shutdown beacon), long before any cull.
    left = {}

    def freed() -> bool:
        left.update({n: hub.kernels(n) for n in STUDENTS})
        return not any(left.values())

    assert wait_until(freed, 30), f"kernels still running after their pages closed: {left}"

    # The teacher's view, through the hub's login: the two answers, released (local privacy: after each answer).
    _teacher_sees_the_class(hub, f"{hub.url}/services/dpviz-class/")

    # Every page has gone, and the culler stops the idle servers.
    stopped = wait_until(lambda: not any(hub.servers().get(n) for n in (*STUDENTS, TEACHER)),
                         CULL_TIMEOUT + 3 * CULL_EVERY + 4 * ACTIVITY + 60, step=2)
    assert stopped, f"the culler left servers running: {hub.servers()}\n--- hub log ---\n{hub.log()[-4000:]}"
    for n in STUDENTS:
        r = results[n]
        memory = ", ".join(f"{k} {v:.0f}" for k, v in r["memory_mb"].items())
        print(f"\nunder the hub, {n}: PSS {sum(r['memory_mb'].values()):.0f} MB ({memory}), CPU {r['cpu_s']:.1f} s "
              f"(server start, lesson 07 drawn); login → server ready {r['login_s']:.1f} s; lesson link → first "
              f"figure {r['first_figure_s']:.1f} s, → every figure {r['all_figures_s']:.1f} s ({FIGURES_LESSON}, "
              f"{len(STUDENTS)} students at once); then {EXERCISE_LESSON} alone → first figure "
              f"{r.get('second_first_figure_s', float('nan')):.1f} s")


def test_one_shared_lesson_server_behind_the_hubs_login(shared_hub):
    """DPVIZ_HUB_SHARED=1: every student on one dpviz serve, a hub service behind the hub's login: the same class
    of three, its own class view (the teacher's page after the hub's login), kernels freed with their pages, and a
    browser without the login sent to the hub's."""
    hub = shared_hub
    idle = hub.shared_status()
    results = _class_of_three(hub)
    assert wait_until(lambda: hub.shared_status()["sessions"] == 0, 60), hub.shared_status()

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    try:
        urllib.request.build_opener(NoRedirect).open(f"{hub.url}/services/dpviz-lessons/voila/render/"
                                                     f"{FIGURES_LESSON}", timeout=30)
        status, where = 200, ""
    except urllib.error.HTTPError as e:
        status, where = e.code, e.headers.get("Location", "")
    assert status == 302 and "/hub/api/oauth2/authorize" in where, (status, where)

    # A student who answers again from another browser is still one student: the shared server's kernels belong to
    # the hub user, not to a browser's cookie, so the class view below counts two answers, not three.
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            context, pg = _new_page(browser, viewport={"width": 1100, "height": 900})
            _login(pg, hub, STUDENTS[0])
            again = _answer(pg, hub, STUDENTS[0], {}, option=1)
            assert "class so far" in again and not pg.page_errors, (again, pg.page_errors)
            context.close()
        finally:
            browser.close()
    # the class view is the shared server's own; its teacher's page opens after the hub's login, no token needed
    _teacher_sees_the_class(hub, f"{hub.url}/services/dpviz-lessons/dpviz/class")
    for n in STUDENTS:
        r = results[n]
        st = r["status"]
        print(f"\nshared under the hub, {n}: lesson link → first figure {r['first_figure_s']:.1f} s, → every figure "
              f"{r['all_figures_s']:.1f} s ({FIGURES_LESSON}, {len(STUDENTS)} students at once), then "
              f"{EXERCISE_LESSON} → {r.get('second_first_figure_s', float('nan')):.1f} s; login "
              f"{r['login_s']:.1f} s; the server's PSS {st['memory_mb']:.0f} MB with {st['sessions']} sessions "
              f"(idle, pools full: {idle['memory_mb']:.0f} MB), a kernel ≈ {st.get('kernel_mb_estimate', 0):.0f} MB")

"""The class view as a JupyterHub service: ``python -m dpviz.serve.hubclass``, one process that every student reaches.

Under JupyterHub each student has a single-user server of their own, so the class tally cannot live in any of
them: it is a hub-managed service, ``dpviz-class``, at ``/services/dpviz-class/`` behind the hub's proxy. Its view,
store, privacy modes, budget, end of class and rate limits are :class:`dpviz.serve.classview.ClassView`'s and
:class:`~dpviz.serve.classstore.ClassStore`'s, unchanged; its routes' bodies are
:mod:`dpviz.serve.classview`'s (:class:`~dpviz.serve.classview.ClassRoute` and its subclasses), so the two servers
answer alike. Only the authentication differs, and it is the hub's:

- **the kernels** (``P api/submit``, ``P api/game``, ``P api/released``; P is ``$JUPYTERHUB_SERVICE_PREFIX``) send
  ``Authorization: token <T>``, T their single-user server's ``JUPYTERHUB_API_TOKEN``, which the kernel inherits
  (:mod:`dpviz.panels.classfeed` in ``"auth": "hub"`` mode). The service asks the hub whose token it is
  (``HubAuth.user_for_token``, cached a minute) and takes only a **user**'s (a service's token is refused): the
  submitter is that user, whichever kernel or browser sent it (the body's kernel id is ignored), stored as
  :func:`submitter_id` of the name. No token, or one the hub does not know: 403. There is no class-wide key to hand
  out and no loopback rule (in Kubernetes the kernels reach the service across the pod network);
- **the teacher** opens ``P`` (``P?projector=1``: large type), which the hub's OAuth guards (``HubOAuthenticated``;
  a browser without the hub's login is sent through it, back to ``P oauth_callback``). Only a teacher sees it: a hub
  admin, or a member of ``--teacher-group`` (default ``teachers``); any other logged-in user gets a short 403 page.
  The page is ``dpviz serve``'s (:func:`dpviz.serve.classview.teacher_page`, ``class.js`` served at
  ``P static/class.js``) with the class's teacher token in its configuration, which ``class.js`` sends to
  ``P state.json``, ``P release`` and ``P end`` in ``X-Dpviz-Teacher``, as under ``dpviz serve``; the token is kept
  in the class's store, so it survives a restart, and it never appears in an address.

**Role scopes the service needs: none.** The hub's ``GET /hub/api/user`` answers any valid token with its owner's
identity model (``kind``, ``name``, ``admin``, ``groups``, the token's ``scopes``): that is all the kernel check and
the teacher check read, so the service makes no API call with its own token (which it uses only for the OAuth code
exchange, as every OAuth service does). **What the hub's config must set**::

    c.JupyterHub.services = [{
        "name": "dpviz-class", "url": "http://127.0.0.1:10101", "oauth_no_confirm": True,
        "command": [sys.executable, "-m", "dpviz.serve.hubclass", "--privacy", "local"],
    }]
    # the teachers' browsers may log in to the service (admins may already: the admin role has access:services);
    # to show every other user this service's own 403 page instead of the hub's, grant it to the "user" role
    c.JupyterHub.load_roles = [{"name": "dpviz-teachers", "groups": ["teachers"],
                                "scopes": ["access:services!service=dpviz-class"]}]
    c.Spawner.environment = {"DPVIZ_CLASS": classview.hub_environment(
        "http://127.0.0.1:10101/services/dpviz-class/api/", "local", 2.0)}  # the same privacy and ε as the flags

The kernels may reach the service at its own URL (as above, bypassing the proxy) or through the proxy; in Kubernetes
at the hub's service name (``http://hub:10101/services/dpviz-class/api/``, with ``--ip 0.0.0.0``). The kernels'
``"privacy"`` and ``"epsilon"`` must be the service's ``--privacy`` and ``--report-epsilon``.

Command line (a bad value exits with status 2 and a message naming the flag, its value and the allowed range;
the ε ranges are ``dpviz serve``'s class flags', :data:`dpviz.classpoll.TOTAL_EPSILON` and
:data:`~dpviz.classpoll.EPSILON`)::

    python -m dpviz.serve.hubclass [--class-dir DIR] [--class-name NAME] [--privacy local|central]
        [--epsilon 4] [--release-epsilon 1] [--report-epsilon 2] [--class-end HH:MM|ISO]
        [--teacher-group teachers] [--join-url URL] [--ip ADDRESS]

``--join-url`` is the address the teacher's page shows and QR-codes: by default ``$JUPYTERHUB_PUBLIC_URL`` when the
hub sets it, else the hub's root (``$JUPYTERHUB_BASE_URL``) on the scheme and host the teacher's own browser used
to reach the page (a student opening it logs in and lands on their own server). The service listens on the host and
port of ``$JUPYTERHUB_SERVICE_URL`` (``--ip`` overrides the host, e.g. ``0.0.0.0`` in a pod).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import logging
import os
import re
import secrets
import sys
import urllib.parse
from pathlib import Path

from jupyterhub.services.auth import HubOAuth, HubOAuthCallbackHandler, HubOAuthenticated, UserNotAllowed
from tornado import web

from dpviz import classpoll
from dpviz.serve import classstore, classview
from dpviz.serve.classview import ClassRoute, ClassView
from dpviz.serve.guards import render_page  # the pages' templates (at start-up: the first page answers at once)

__all__ = ["NAME", "TEACHER_GROUP", "submitter_id", "is_teacher", "make_app", "hub_auth_from_environment",
           "parse_args", "main"]

log = logging.getLogger("dpviz.hubclass")

#: The service's name in the hub's ``c.JupyterHub.services`` (its prefix is ``/services/dpviz-class/``).
NAME = "dpviz-class"
TEACHER_GROUP = classview.TEACHER_GROUP  # besides the hub's admins (``--teacher-group``)
is_teacher = classview.is_teacher
#: Seconds the service trusts the hub's answer about a token (a removed teacher or a stopped server: at most this).
CACHE_SECONDS = 60
STATIC = Path(__file__).resolve().parent / "static"
#: ``Authorization: token <T>`` (or ``bearer``, as the hub accepts): a token of 1 to 512 printable ASCII characters.
_AUTHORIZATION = re.compile(r"(?:token|bearer) +([\x21-\x7e]{1,512})", re.IGNORECASE)
#: A hub group's name as ``--teacher-group``: one line of at most 255 characters.
_GROUP = re.compile(r"[^\x00-\x1f\x7f-\x9f]{1,255}")
#: Join addresses' QR codes kept (one per host the teachers used; a few at most).
_QR_CACHE = 8


def submitter_id(name: str) -> str:
    """The browser id the store keeps a hub user's answers under: ``"hub-"`` and 32 hex digits of SHA-256 of the
    name. A hub user name may be any Unicode the authenticator allows, the store's browser ids are short ASCII
    tokens; the store HMACs this id again with its per-class key, so the file names no one."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"name = {name!r:.80} is not allowed: must be a non-empty hub user name")
    return "hub-" + hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:32]


# ============================================================================================ the handlers


class _ServiceRoute(ClassRoute, web.RequestHandler):
    """The service's class routes: tornado handlers (there is no jupyter_server app here)."""


class _HubKernelAuth:
    """The kernels' authentication under the hub: ``Authorization: token <T>``, T a hub **user**'s token (a kernel's
    server's ``JUPYTERHUB_API_TOKEN``), resolved by the hub. Sets ``self.submitter`` to the user's
    :func:`submitter_id`; anything else is 403, with one reason for every case (a prober learns nothing)."""

    async def prepare(self):
        match = _AUTHORIZATION.fullmatch(self.request.headers.get("Authorization", "").strip())
        if match is None:
            raise web.HTTPError(403, reason="forbidden")
        model = await self.extra["hub_auth"].user_for_token(match[1], sync=False)
        if not isinstance(model, dict) or model.get("kind") != "user" or not isinstance(model.get("name"), str) \
                or not model["name"]:
            raise web.HTTPError(403, reason="forbidden")
        self.submitter = submitter_id(model["name"])
        return super().prepare()


class SubmitHandler(classview.SubmitRoute, _HubKernelAuth, _ServiceRoute):
    """``POST P api/submit``."""


class GameHandler(classview.GameRoute, _HubKernelAuth, _ServiceRoute):
    """``POST P api/game``."""


class ReleasedHandler(classview.ReleasedRoute, _HubKernelAuth, _ServiceRoute):
    """``GET P api/released?exercise=…``."""


class StateHandler(classview.StateRoute, _ServiceRoute):
    """``P state.json`` (the teacher's token)."""


class ReleaseHandler(classview.ReleaseRoute, _ServiceRoute):
    """``POST P release`` (the teacher's token)."""


class EndHandler(classview.EndRoute, _ServiceRoute):
    """``POST P end`` (the teacher's token)."""


class TeacherPage(HubOAuthenticated, _ServiceRoute):
    """``P`` (``?projector=1``): the teacher's live view, for a hub admin or a member of the teacher group.

    The hub user is found in ``prepare``, asynchronously (the mixin's own ``get_current_user`` would block the
    service's event loop on the hub's reply): from the OAuth cookie, checked against the access scopes the hub gave
    this service (a token for anything else is refused)."""

    def initialize(self, view: ClassView, secret: str, **extra):
        super().initialize(view, secret, **extra)
        self.hub_auth = extra["hub_auth"]

    async def prepare(self):
        model = await self.hub_auth.get_user(self, sync=False)
        try:
            self.current_user = self.check_hub_user(model) if model else None
        except UserNotAllowed:
            self._not_a_teacher(model)

    def _not_a_teacher(self, model: dict) -> None:
        group = self.extra["teacher_group"]
        self.set_status(403)
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.finish(render_page(
            "refused.html.j2", tab_title="Teachers only · dpviz", heading="The class view is for the teachers",
            text=f"You are logged in to the hub as {model.get('name', '')}, who is not one of this class's teachers "
                 f"(the hub's admins and the members of its group {group!r}). Students see the class's tally under "
                 "each exercise, in their own lessons."))

    @web.authenticated
    def get(self):
        user = self.current_user
        if not is_teacher(user, self.extra["teacher_group"]):
            log.info("class view refused to hub user %s: not a teacher", user.get("name"))
            self._not_a_teacher(user)
            return
        prefix = self.hub_auth.base_url
        join = self._join_url()
        classview.teacher_page(self, self.view, join_url=join, qr_svg=self._qr(join),
                               script_url=prefix + "static/class.js", state_url=prefix + "state.json",
                               release_url=prefix + "release", end_url=prefix + "end", token=self.secret)

    def write_error(self, status_code, **kwargs):  # the page's errors are for a person, not for class.js
        self.set_header("Content-Type", "text/plain; charset=utf-8")
        self.finish(f"{status_code}: {self._reason}")

    def _join_url(self) -> str:
        fixed = self.extra["join_url"]
        if fixed:
            return fixed
        # the hub's root on the scheme and host the teacher's browser used (X-Forwarded-Proto from the proxy)
        return f"{self.request.protocol}://{self.request.host}{self.extra['hub_base_url']}"

    def _qr(self, url: str) -> str:
        cache = self.extra["qr_cache"]
        if url not in cache:
            if len(cache) >= _QR_CACHE:
                cache.pop(next(iter(cache)))
            cache[url] = classview.qr_svg(url)
        return cache[url]


class OAuthCallback(HubOAuthCallbackHandler):
    """``P oauth_callback``: the end of the hub's OAuth dance (jupyterhub's handler, with this service's HubOAuth)."""

    def initialize(self, hub_auth: HubOAuth):
        self.hub_auth = hub_auth


# ============================================================================================ the app


def hub_auth_from_environment(prefix: str | None = None) -> HubOAuth:
    """The service's HubOAuth, from the environment the hub gives a managed service (``JUPYTERHUB_API_TOKEN``,
    ``JUPYTERHUB_API_URL``, ``JUPYTERHUB_CLIENT_ID``, ``JUPYTERHUB_OAUTH_CALLBACK_URL``,
    ``JUPYTERHUB_SERVICE_PREFIX``, ``JUPYTERHUB_OAUTH_ACCESS_SCOPES``…), caching the hub's answers
    :data:`CACHE_SECONDS`."""
    kwargs = {"cache_max_age": CACHE_SECONDS}
    if prefix is not None:
        kwargs["base_url"] = prefix
    return HubOAuth(**kwargs)


def make_app(view: ClassView, hub_auth: HubOAuth, *, teacher_group: str = TEACHER_GROUP, join_url: str = "",
             hub_base_url: str = "/", cookie_secret: bytes | None = None) -> web.Application:
    """The service's tornado application, its routes under ``hub_auth.base_url`` (the service's prefix).

    ``join_url``: the address the teacher's page shows ("" for the hub's root, ``hub_base_url``, on the teacher's
    own scheme and host). ``cookie_secret`` signs the OAuth cookies (default: random per process; a restart sends
    the teacher through the hub's login again, which with ``oauth_no_confirm`` is one redirect)."""
    if not isinstance(teacher_group, str) or not _GROUP.fullmatch(teacher_group):
        raise ValueError(f"teacher_group = {teacher_group!r:.80} is not allowed: must be a hub group name of 1 to "
                         "255 characters, one line")
    prefix = hub_auth.base_url
    kernel = {"view": view, "secret": "", "hub_auth": hub_auth}
    teacher = {"view": view, "secret": view.store.teacher_token()}
    page = {**teacher, "hub_auth": hub_auth, "teacher_group": teacher_group, "join_url": join_url,
            "hub_base_url": hub_base_url, "qr_cache": {}}
    routes = [
        (re.escape(prefix.rstrip("/")) + "/?", TeacherPage, page),
        (re.escape(prefix + "oauth_callback"), OAuthCallback, {"hub_auth": hub_auth}),
        (re.escape(prefix + "state.json"), StateHandler, teacher),
        (re.escape(prefix + "release"), ReleaseHandler, teacher),
        (re.escape(prefix + "end"), EndHandler, teacher),
        (re.escape(prefix + "api/submit"), SubmitHandler, kernel),
        (re.escape(prefix + "api/game"), GameHandler, kernel),
        (re.escape(prefix + "api/released"), ReleasedHandler, kernel),
        (re.escape(prefix + "static/") + r"(class\.js)", web.StaticFileHandler, {"path": str(STATIC)}),
    ]
    return web.Application(routes, cookie_secret=cookie_secret or secrets.token_bytes(32), xsrf_cookies=False)


# ============================================================================================ the command line


def _interval(interval, flag: str):
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{flag} = {text!r} is not allowed: must be a number in "
                                             f"[{interval.low:g}, {interval.high:g}]") from None
        try:
            return interval.check(value, flag)
        except ValueError as e:
            raise argparse.ArgumentTypeError(str(e)) from None
    return parse


def _class_name(text: str) -> str:
    if not classstore.EXERCISE_PATTERN.fullmatch(text):
        raise argparse.ArgumentTypeError(f"--class-name = {text!r:.80} is not allowed: must be 1 to 64 letters, "
                                         "digits, '_', '-' or '.', starting with a letter or digit")
    return text


def _class_end(text: str) -> float:
    try:
        return classview.parse_end_time(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(f"--class-end: {e}") from None


def _teacher_group(text: str) -> str:
    if not _GROUP.fullmatch(text):
        raise argparse.ArgumentTypeError(f"--teacher-group = {text!r:.80} is not allowed: must be a hub group name "
                                         "of 1 to 255 characters, one line")
    return text


def _join_url(text: str) -> str:
    try:
        url = urllib.parse.urlsplit(text)
    except ValueError:
        url = None
    if url is None or url.scheme not in ("http", "https") or not url.hostname or len(text) > 2000 \
            or re.search(r"[\x00-\x20\x7f]", text):
        raise argparse.ArgumentTypeError(f"--join-url = {text!r:.80} is not allowed: must be an http or https URL "
                                         "with a host, e.g. https://hub.example.org/")
    return text


def _ip(text: str) -> str:
    if not re.fullmatch(r"[A-Za-z0-9.:\-]{1,253}", text):
        raise argparse.ArgumentTypeError(f"--ip = {text!r:.80} is not allowed: must be an IP address or host name, "
                                         "e.g. 127.0.0.1 or 0.0.0.0")
    return text


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line (module docstring); a bad value exits with status 2, naming the flag, value and range."""
    parser = argparse.ArgumentParser(
        prog="python -m dpviz.serve.hubclass",
        description="The dpviz class view as a JupyterHub managed service (dpviz-class).")
    parser.add_argument("--class-dir", default="",
                        help="folder of the class's store class.sqlite3 (default: a per-class folder under the "
                             "user's data directory, named by --class-name)")
    parser.add_argument("--class-name", type=_class_name, default=classview.default_class_name(),
                        help="the class's name (default: class-YYYY-MM-DD, today)")
    parser.add_argument("--privacy", choices=classview.PRIVACY, default="local",
                        help="local: each answer randomized in the student's kernel; central: noisy releases "
                             "within --epsilon (default: local)")
    parser.add_argument("--epsilon", type=_interval(classpoll.TOTAL_EPSILON, "--epsilon"), default=4.0,
                        help="central privacy: the class's whole budget ε (default 4)")
    parser.add_argument("--release-epsilon", type=_interval(classpoll.EPSILON, "--release-epsilon"), default=1.0,
                        help="central privacy: the ε of one release (default 1)")
    parser.add_argument("--report-epsilon", type=_interval(classpoll.EPSILON, "--report-epsilon"), default=2.0,
                        help="local privacy: the ε of each student's randomized answer (default 2); the kernels' "
                             "DPVIZ_CLASS must say the same")
    parser.add_argument("--class-end", type=_class_end, default=None,
                        help="when the class ends (HH:MM today, or an ISO date and time): the raw answers are "
                             "deleted then")
    parser.add_argument("--teacher-group", type=_teacher_group, default=TEACHER_GROUP,
                        help="the hub group whose members are teachers (hub admins always are; default teachers)")
    parser.add_argument("--join-url", type=_join_url, default=None,
                        help="the address the teacher's page shows and QR-codes (default: $JUPYTERHUB_PUBLIC_URL, "
                             "else the hub's root on the teacher's own host)")
    parser.add_argument("--ip", type=_ip, default=None,
                        help="the address to listen on (default: the host of $JUPYTERHUB_SERVICE_URL)")
    return parser.parse_args(argv)


def _listen_address(service_url: str, ip: str | None) -> tuple[str, int]:
    url = urllib.parse.urlsplit(service_url)
    port = url.port or (443 if url.scheme == "https" else 80)
    return ip or url.hostname or "127.0.0.1", port


async def _serve(app: web.Application, host: str, port: int, view: ClassView) -> None:
    app.listen(port, address=host, xheaders=True)  # X-Forwarded-Proto from the hub's proxy: the join URL's scheme
    asyncio.get_running_loop().create_task(view.watch_end())
    await asyncio.Event().wait()  # until the hub stops the service (SIGTERM): every answer is committed already


def main(argv: list[str] | None = None) -> None:
    """``python -m dpviz.serve.hubclass``: started by the hub, with its environment."""
    args = parse_args(argv)
    env = os.environ
    if not env.get("JUPYTERHUB_SERVICE_URL") or not env.get("JUPYTERHUB_API_TOKEN"):
        sys.exit("dpviz.serve.hubclass: JUPYTERHUB_SERVICE_URL and JUPYTERHUB_API_TOKEN are not set: run it as a "
                 "JupyterHub managed service (c.JupyterHub.services), which sets them")
    logging.basicConfig(level=logging.INFO, format="[%(levelname)1.1s %(asctime)s %(name)s] %(message)s")
    try:
        store = classview.open_store(args.class_dir, args.class_name)
        view = ClassView(store, privacy=args.privacy, total_epsilon=args.epsilon,
                         release_epsilon=args.release_epsilon, report_epsilon=args.report_epsilon)
    except ValueError as e:
        print(f"dpviz.serve.hubclass: {e}", file=sys.stderr)
        sys.exit(2)
    view.ends_at = args.class_end
    hub_auth = hub_auth_from_environment(env.get("JUPYTERHUB_SERVICE_PREFIX") or f"/services/{NAME}/")
    join = args.join_url or env.get("JUPYTERHUB_PUBLIC_URL", "")
    app = make_app(view, hub_auth, teacher_group=args.teacher_group, join_url=join,
                   hub_base_url=env.get("JUPYTERHUB_BASE_URL") or "/")
    host, port = _listen_address(env["JUPYTERHUB_SERVICE_URL"], args.ip)
    mode = (f"local (ε = {args.report_epsilon:g} per answer)" if args.privacy == "local" else
            f"central (a class budget of ε = {args.epsilon:g})")
    log.info("the class view, privacy %s, on %s:%d%s; the class's answers are kept in %s; teachers: hub admins and "
             "group %r", mode, host, port, hub_auth.base_url, store.path, args.teacher_group)
    asyncio.run(_serve(app, host, port, view))


if __name__ == "__main__":
    main()

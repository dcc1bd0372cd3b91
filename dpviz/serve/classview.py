"""The class view: every exercise a student reveals feeds a class tally, released with differential privacy.

A student's kernel sends the bucket of each committed answer to this server (:class:`SubmitHandler`, on loopback,
with the server's kernel key); the server maps the kernel to the browser that owns it (the page's client cookie:
the kernel never knows who its student is) and keeps one answer per exercise per browser in the class's
:class:`~dpviz.serve.classstore.ClassStore`. The teacher's page, ``/dpviz/class?token=…`` (:class:`TeacherPage`),
shows every exercise's **released** histogram, live, and never a raw one.

Two protections, chosen with ``--class-privacy`` (:data:`PRIVACY`):

- ``local`` (the default): the kernel has already applied k-ary randomized response to the bucket
  (:func:`dpviz.classpoll.randomize`), so the server never holds a true answer. After each submission the view's
  histogram is recomputed from the reports (:func:`dpviz.classpoll.local_estimate`, debiased, with its standard
  error) and stored as a release that costs nothing more: each report is ε-DP already (post-processing).
- ``central``: the server holds the raw buckets. The teacher releases an exercise's histogram with the button on
  the view: :meth:`dpviz.classpoll.ClassBudget.release` adds discrete Laplace noise of scale 2/ε to every bucket
  and accounts the release with :class:`dpviz.accountants.BasicAccountant` against ``--class-epsilon``; a release
  beyond the budget is refused and the last one kept. ``--class-end`` (or the view's End button) deletes the raw
  answers (:meth:`ClassStore.end_class`).

The numerics are :mod:`dpviz.classpoll`'s; nothing here re-implements a mechanism. This is the one module of the
server that imports them (and so numpy): a central release must be drawn in the process that holds the raw tally.
It is imported only when the class view is on (``dpviz.serve.app`` imports it then), so a server without a class
stays as small as before.

The neighbouring-dataset game pools each browser's guesses (:meth:`ClassView.submit_game`) into one
Clopper–Pearson lower bound on ε (:func:`dpviz.classpoll.pooled_epsilon_bound`) shown beside the claimed ε and
the ceiling that the number of rounds allows (:func:`dpviz.classpoll.pooled_bound_ceiling`). That pool is released
exactly: the guesses are about outputs the kernel drew from a mechanism, the student opts in (the box under the
game), and noise would make the bound's level wrong; the page says so.

What the browser sends is input to check: the kernel API answers only loopback connections carrying the kernel
key (compared in constant time) for a kernel a page owns; the teacher's view only the teacher's token (also in
constant time); every value is checked by the store against the exercise's declared domain; and no value is
rendered as HTML (the page builds its text with ``textContent``).

Under JupyterHub the same view runs in one hub-managed service, :mod:`dpviz.serve.hubclass`, that every student's
kernel reaches with its server's hub token. The routes' bodies are written once here (:class:`ClassRoute` and its
subclasses, mixins with no server base) and each server adds its base class and its authentication of kernels:
``dpviz serve``'s handlers below are jupyter_server handlers (loopback and the kernel key), the service's are
tornado handlers with JupyterHub's auth mixins (the hub names the token's user).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import hmac
import ipaddress
import json
import math
import re
import secrets
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from jupyter_server.auth.decorator import allow_unauthenticated
from jupyter_server.base.handlers import JupyterHandler
from tornado import web

from dpviz import classpoll
from dpviz.serve import classstore
from dpviz.serve.classstore import ClassEnded, ClassStore, DomainDiffers, RateLimited, Refused

__all__ = ["PRIVACY", "KEY_HEADER", "ClassView", "class_handlers", "hub_environment", "kernel_environment",
           "parse_end_time", "teacher_page"]

#: The two protections (``--class-privacy``).
PRIVACY = ("local", "central")
#: The header a kernel's request carries the kernel key in.
KEY_HEADER = "X-Dpviz-Class-Key"
#: The header (or ``?token=``) the teacher's page sends its token in.
TOKEN_HEADER = "X-Dpviz-Teacher"
#: Environment variable the kernels read the class API from (:mod:`dpviz.panels.classfeed`).
ENV = "DPVIZ_CLASS"
#: Largest request body a kernel may send (a submission is a few hundred bytes).
MAX_BODY = 16 * 1024
#: A kernel id: jupyter_client's uuid4.
_KERNEL_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
#: Coverage of every interval the view shows.
LEVEL = 0.95
#: Most characters of an exercise's question kept for the view.
TITLE_LENGTH = 300


def kernel_environment(api_url: str, key: str, privacy: str, report_epsilon: float) -> str:
    """The value of :data:`ENV` in every kernel: where the class API is, its key, and the protection in force."""
    return json.dumps({"api": api_url, "key": key, "privacy": privacy, "epsilon": float(report_epsilon)})


def hub_environment(api_url: str, privacy: str, report_epsilon: float) -> str:
    """The value of :data:`ENV` for kernels under JupyterHub (the hub's ``c.Spawner.environment``): where the class
    service's API is and the protection in force, with ``"auth": "hub"`` and no key. Each kernel authenticates with
    its own single-user server's ``JUPYTERHUB_API_TOKEN`` instead, which names its hub user
    (:mod:`dpviz.serve.hubclass`): there is no class-wide secret to hand to every student's server."""
    if privacy not in PRIVACY:
        raise ValueError(f"privacy = {privacy!r} is not allowed: must be one of {', '.join(PRIVACY)}")
    epsilon = classpoll.EPSILON.check(report_epsilon, "report_epsilon")
    return json.dumps({"api": api_url, "auth": "hub", "privacy": privacy, "epsilon": float(epsilon)})


def default_class_name(today: _dt.date | None = None) -> str:
    """The class's name when none is given (``--class-name``): ``class-YYYY-MM-DD``, today."""
    return "class-" + (today or _dt.date.today()).isoformat()


def parse_end_time(text: str, now: _dt.datetime | None = None) -> float:
    """``--class-end``: ``"15:30"`` (today, local time; tomorrow if it has passed by more than 12 hours) or an ISO
    date and time (``"2026-12-02T15:30"``) -> seconds since the epoch. ValueError naming the value otherwise."""
    now = now or _dt.datetime.now().astimezone()
    value = text.strip()
    match = re.fullmatch(r"(\d{1,2}):(\d{2})", value)
    try:
        if match:
            hour, minute = int(match[1]), int(match[2])
            when = now.replace(hour=hour, minute=minute, second=0, microsecond=0)
            if (now - when).total_seconds() > 12 * 3600:
                when += _dt.timedelta(days=1)
            return when.timestamp()
        when = _dt.datetime.fromisoformat(value)
    except ValueError:
        raise ValueError(f"class_end = {text!r} is not allowed: must be a clock time HH:MM (today) or an ISO date "
                         f"and time, e.g. 2026-12-02T15:30") from None
    if when.tzinfo is None:
        when = when.astimezone()
    return when.timestamp()


def _plain(value, limit: int) -> str:
    """Plain text of at most ``limit`` characters, control characters dropped (never HTML: the page escapes it)."""
    text = re.sub(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]", " ", str(value))
    return text[:limit]


def _release_json(release: classstore.Release, domain: classstore.Domain, privacy: str) -> dict:
    meta = release.meta
    return {
        "exercise": release.exercise,
        "title": domain.title,
        "labels": list(domain.labels),
        "correct": list(domain.correct),
        "counts": [float(c) for c in release.counts],
        "low": [float(x) for x in meta.get("low", release.counts)],
        "high": [float(x) for x in meta.get("high", release.counts)],
        # local privacy: each estimate's standard error (Wang et al. 2017, Thm 2), which the interval is ±1.96 of
        "standard_errors": [float(x) for x in meta["standard_errors"]] if "standard_errors" in meta else None,
        "n": int(release.total),
        "epsilon": float(meta.get("epsilon", release.epsilon)),
        "privacy": meta.get("privacy", privacy),
        "seq": release.seq,
        "released_at": release.released,
    }


class ClassView:
    """One class's tally, releases and budget, over its store (the server keeps one).

    ``owner_of(kernel_id)`` names the browser that owns a kernel (the kernel manager's record of which page was
    given it), or None. ``rng`` draws the central releases' noise; by default a Generator seeded from the operating
    system's entropy (a seed an onlooker could guess would undo the privacy of every release).
    """

    def __init__(self, store: ClassStore, *, privacy: str = "local", total_epsilon: float = 4.0,
                 release_epsilon: float = 1.0, report_epsilon: float = 2.0,
                 owner_of: Callable[[str], str | None] = lambda _kernel: None, rng=None, clock=time.time):
        if privacy not in PRIVACY:
            raise ValueError(f"class_privacy = {privacy!r} is not allowed: must be one of {', '.join(PRIVACY)}")
        self.store = store
        self.privacy = privacy
        self.release_epsilon = classpoll.EPSILON.check(release_epsilon, "class_release_epsilon")
        self.report_epsilon = classpoll.EPSILON.check(report_epsilon, "class_report_epsilon")
        self.owner_of = owner_of
        self._rng = np.random.default_rng(rng)
        self._clock = clock
        self.ends_at: float | None = None
        for domain in store.exercises():  # a class folder reused with the other protection would mix two tallies
            if domain.kind == "game" or store.ended:
                continue
            mode = store.tally(domain.exercise).privacy
            if mode is not None and mode != privacy:
                raise ValueError(f"class_privacy = {privacy!r} is not allowed for this class folder: its answers were "
                                 f"submitted with {mode!r} privacy (use --class-privacy={mode}, or a new --class-name)")
        # The budget is replayed from the ledger, so a restart neither forgets a release nor spends it twice.
        self.budget = classpoll.ClassBudget(total_epsilon, tuple(c.epsilon for c in store.spent()))
        self.revision = 0  # bumped by every change the teacher's view should show

    # ------------------------------------------------------------------------------------------ from the kernels

    def _browser(self, kernel: str) -> str:
        if not isinstance(kernel, str) or not _KERNEL_ID.fullmatch(kernel):
            raise PermissionError("unknown kernel")
        owner = self.owner_of(kernel)
        if owner is None:
            raise PermissionError("this kernel belongs to no page")
        return owner

    def _declare(self, exercise: str, k: int, labels, domain: dict, kind: str) -> classstore.Domain:
        correct = domain.get("correct", [])
        if not isinstance(correct, list) or len(correct) > k:
            raise ValueError(f"correct = {correct!r} is not allowed: must be a list of bucket indices")
        return self.store.declare(exercise, k, labels, title=_plain(domain.get("title", ""), TITLE_LENGTH),
                                  lesson=str(domain.get("lesson", "")), correct=tuple(correct), kind=kind)

    def _submitter(self, body: dict, browser: str | None) -> str:
        """Who submits: ``browser`` when the server already knows it (under JupyterHub, from the hub user the
        request's token names; the body's kernel id is then ignored), else the page that owns the body's kernel."""
        return self._browser(body.get("kernel")) if browser is None else browser

    def submit(self, body: dict, browser: str | None = None) -> dict:
        """A kernel's submission (see the contract in :mod:`dpviz.panels.classfeed`): store it, and in local privacy
        release the exercise's new estimate. Returns the reply's JSON.

        ``browser`` is the submitter when the server authenticated it itself (a token the store's browser pattern
        accepts, e.g. :func:`dpviz.serve.hubclass.submitter_id`); None: ``owner_of`` the body's kernel."""
        self.check_end()
        browser = self._submitter(body, browser)
        exercise, domain = body.get("exercise"), body.get("domain")
        if not isinstance(domain, dict):
            raise ValueError("domain is not allowed: must be an object with the exercise's labels")
        labels = domain.get("labels")
        if not isinstance(labels, list):
            raise ValueError("domain.labels is not allowed: must be a list of the buckets' labels")
        kind = domain.get("kind", "choice")
        if kind not in ("predict", "choice"):
            raise ValueError(f"domain.kind = {kind!r} is not allowed: must be 'predict' or 'choice'")
        declared = self._declare(exercise, len(labels), labels, domain, kind)
        outcome = self.store.submit(declared.exercise, browser, body.get("bucket"), body.get("submission"),
                                    privacy=self.privacy)
        if self.privacy == "local" and outcome != classstore.SubmitOutcome.DUPLICATE:
            self._release_local(declared)
        self.revision += 1
        return {"outcome": outcome, "release": self.released(declared.exercise)}

    def _release_local(self, domain: classstore.Domain) -> None:
        tally = self.store.tally(domain.exercise)
        if tally.total == 0:
            return
        reports = np.repeat(np.arange(domain.k), tally.counts)
        estimate = classpoll.local_estimate(reports, classpoll.Buckets.categorical(list(domain.labels)),
                                            self.report_epsilon)
        low, high = estimate.interval(LEVEL)
        self.store.record_release(domain.exercise, 0.0, estimate.counts, estimate.n,
                                  {"low": low.tolist(), "high": high.tolist(), "epsilon": self.report_epsilon,
                                   "privacy": "local", "standard_errors": list(estimate.standard_errors)})

    def submit_game(self, body: dict, browser: str | None = None) -> dict:
        """A browser's game tally (replacing its previous one); ``browser`` as in :meth:`submit`."""
        self.check_end()
        browser = self._submitter(body, browser)
        domain = body.get("domain")
        if not isinstance(domain, dict):
            raise ValueError("domain is not allowed: must be an object with the game's claimed_epsilon and delta")
        counts = body.get("counts")
        if not isinstance(counts, list) or len(counts) != 4:
            raise ValueError(f"counts = {counts!r} is not allowed: must be 4 integers")
        outcome = self.store.submit_game(body.get("exercise"), browser, tuple(counts), body.get("submission"),
                                         claimed_epsilon=domain.get("claimed_epsilon"), delta=domain.get("delta"),
                                         title=_plain(domain.get("title", ""), TITLE_LENGTH),
                                         lesson=str(domain.get("lesson", "")))
        self.revision += 1
        return {"outcome": outcome, "pooled": self.pooled(body["exercise"])}

    def pooled(self, exercise: str) -> dict:
        """The game's pooled guesses as one lower bound on ε, with the claimed ε and the ceiling of its rounds."""
        t = self.store.game_totals(exercise)
        delta = float(t.delta)
        bound = classpoll.pooled_epsilon_bound(t.correct_on_x, t.rounds_on_x, t.correct_on_x_prime,
                                               t.rounds_on_x_prime, delta=delta, confidence=LEVEL)
        per_world = min(t.rounds_on_x, t.rounds_on_x_prime)
        ceiling = (classpoll.pooled_bound_ceiling(per_world, delta=delta, confidence=LEVEL) if per_world else 0.0)
        return {"exercise": t.exercise, "title": t.title, "lesson": t.lesson, "players": t.players,
                "correct_on_x": t.correct_on_x, "rounds_on_x": t.rounds_on_x,
                "correct_on_x_prime": t.correct_on_x_prime, "rounds_on_x_prime": t.rounds_on_x_prime,
                "bound": bound, "ceiling": ceiling, "claimed_epsilon": float(t.claimed_epsilon), "delta": delta,
                "confidence": LEVEL}

    def released(self, exercise) -> dict | None:
        """The exercise's last release (what the class may see), or None before the first."""
        domain = self.store.domain(exercise)
        releases = self.store.releases(domain.exercise)
        return _release_json(releases[-1], domain, self.privacy) if releases else None

    # ------------------------------------------------------------------------------------------ from the teacher

    def release(self, exercise, epsilon: float | None = None) -> dict:
        """Central privacy: release ``exercise``'s histogram at ``epsilon`` (default ``--class-release-epsilon``)
        if the class's budget allows it; otherwise refuse and keep the last release. Returns
        ``{"refused": bool, "reason": str, "release": …}``."""
        if self.privacy != "central":
            raise ValueError("release: only in central privacy (in local privacy every report is randomized already)")
        domain = self.store.domain(exercise)
        if domain.kind == "game":
            raise ValueError(f"exercise = {exercise!r} is not allowed: a game's pool is shown as it is")
        eps = self.release_epsilon if epsilon is None else classpoll.EPSILON.check(epsilon, "epsilon")
        tally = self.store.tally(domain.exercise)
        outcome = self.budget.release(tally.counts, eps, rng=self._rng)
        if outcome.refused:
            return {"refused": True, "reason": outcome.reason, "release": self.released(domain.exercise)}
        rel = outcome.release
        low, high = rel.interval(LEVEL)
        # The ledger entry and the release are one transaction: the budget in memory follows only once it is stored.
        self.store.record_release(domain.exercise, eps, rel.counts, rel.total,
                                  {"low": low.tolist(), "high": high.tolist(), "epsilon": eps, "privacy": "central",
                                   "scale": rel.scale})
        self.budget = outcome.budget
        self.revision += 1
        return {"refused": False, "reason": "", "release": self.released(domain.exercise)}

    def end(self) -> None:
        """End the class: the raw answers go (secure_delete); the releases, the ledger and the game pools stay."""
        self.store.end_class()
        self.revision += 1

    def check_end(self) -> bool:
        """End the class if ``--class-end`` has come; True if it has ended."""
        if self.ends_at is not None and self._clock() >= self.ends_at and not self.store.ended:
            self.end()
        return self.store.ended

    async def watch_end(self, every: float = 15.0) -> None:
        """End the class at ``--class-end`` even if nobody asks (checked every ``every`` seconds; the view and every
        submission check it too): the raw answers must go at the stated time, not at the next request."""
        import asyncio

        while self.ends_at is not None and not self.check_end():
            await asyncio.sleep(every)

    def state(self) -> dict:
        """Everything the teacher's view shows, as JSON values: no raw tally, only releases and counts of answers."""
        self.check_end()
        ended = self.store.ended
        exercises, games = [], []
        for domain in self.store.exercises():
            if domain.kind == "game":
                games.append(self.pooled(domain.exercise))
                continue
            releases = self.store.releases(domain.exercise)
            # After the end the raw answers are gone; the last release still says how many there were.
            answers = (releases[-1].total if releases else 0) if ended else self.store.tally(domain.exercise).total
            spent = math.fsum(r.epsilon for r in releases)
            exercises.append({
                "exercise": domain.exercise, "title": domain.title, "lesson": domain.lesson, "kind": domain.kind,
                "labels": list(domain.labels), "correct": list(domain.correct), "answers": answers,
                "release": _release_json(releases[-1], domain, self.privacy) if releases else None,
                "epsilon_spent": spent if self.privacy == "central" else self.report_epsilon,
                "releases": len(releases),
            })
        budget = {"total": self.budget.total_epsilon, "spent": self.budget.spent_epsilon,
                  "remaining": self.budget.remaining_epsilon, "release_epsilon": self.release_epsilon}
        return {"privacy": self.privacy, "report_epsilon": self.report_epsilon, "budget": budget, "ended": ended,
                "ends_at": self.ends_at, "revision": self.revision, "exercises": exercises, "games": games,
                "level": LEVEL}


# ============================================================================================ HTTP


def _loopback(ip: str) -> bool:
    try:
        return ipaddress.ip_address(ip.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


#: Under JupyterHub, the hub group whose members are teachers, besides the hub's admins.
TEACHER_GROUP = "teachers"


def is_teacher(model: dict, teacher_group: str = TEACHER_GROUP) -> bool:
    """Whether the hub user ``model`` (the hub's identity model of the user's token) is a teacher of the class: a hub
    admin, or a member of ``teacher_group``."""
    groups = model.get("groups")
    return model.get("admin") is True or (isinstance(groups, list) and teacher_group in groups)


def _same(given: str | None, secret: str) -> bool:
    return isinstance(given, str) and hmac.compare_digest(given.encode("utf-8", "replace"), secret.encode())


class ClassRoute:
    """What every class route does, whichever server it is in (``dpviz serve``'s jupyter_server app, or the hub
    service :mod:`dpviz.serve.hubclass`): JSON errors, no caching, no XSRF cookie (each route checks a secret that
    no other site can know: a kernel's credential or the teacher's token), the body's size and shape, and the map
    from the view's exceptions to HTTP statuses. A mixin: the servers put it before their own handler base, so the
    bodies below are written once and the two servers cannot drift apart."""

    def initialize(self, view: ClassView, secret: str, **extra):
        self.view = view
        self.secret = secret
        self.extra = extra

    def check_xsrf_cookie(self):
        return None

    def set_default_headers(self):
        super().set_default_headers()
        self.set_header("Cache-Control", "no-store")
        self.set_header("X-Content-Type-Options", "nosniff")

    def write_error(self, status_code, **kwargs):
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps({"error": self._reason}))

    def _json(self, value, status: int = 200) -> None:
        self.set_status(status)
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps(value, allow_nan=False))

    def _body(self) -> dict:
        if len(self.request.body) > MAX_BODY:
            raise web.HTTPError(413, reason="request too large")
        try:
            value = json.loads(self.request.body or b"{}")
        except (ValueError, UnicodeDecodeError):
            raise web.HTTPError(400, reason="the body is not JSON") from None
        if not isinstance(value, dict):
            raise web.HTTPError(400, reason="the body must be a JSON object")
        return value

    def _answer(self, act: Callable[[], dict]) -> None:
        try:
            self._json(act())
        except PermissionError as e:
            raise web.HTTPError(403, reason=str(e)) from None
        except ClassEnded as e:
            raise web.HTTPError(410, reason=str(e)) from None
        except RateLimited as e:
            raise web.HTTPError(429, reason=str(e)) from None
        except DomainDiffers as e:
            raise web.HTTPError(409, reason=str(e)) from None
        except Refused as e:
            raise web.HTTPError(403, reason=str(e)) from None
        except (ValueError, TypeError) as e:
            raise web.HTTPError(400, reason=_plain(e, 300)) from None


class SubmitRoute(ClassRoute):
    """``POST …/api/submit``: one committed answer's bucket. Who submits is the authentication's, which sets
    ``self.submitter`` in ``prepare``: None (``dpviz serve``: the view maps the body's kernel to its page's browser)
    or the submitter's browser id (the hub service: from the hub user the request's token names)."""

    submitter: str | None = None

    def post(self):
        body = self._body()
        self._answer(lambda: self.view.submit(body, browser=self.submitter))


class GameRoute(SubmitRoute):
    """``POST …/api/game``: one browser's game tally, replacing its previous one."""

    def post(self):
        body = self._body()
        self._answer(lambda: self.view.submit_game(body, browser=self.submitter))


class ReleasedRoute(ClassRoute):
    """``GET …/api/released?exercise=…``: the exercise's last release ("your class so far")."""

    def get(self):
        exercise = self.get_query_argument("exercise", "")
        self._answer(lambda: {"release": self.view.released(exercise)})


class TeacherTokenRoute(ClassRoute):
    """The teacher's JSON routes: the token in the ``X-Dpviz-Teacher`` header (or ``?token=``), compared in
    constant time, in both servers."""

    def prepare(self):
        given = self.request.headers.get(TOKEN_HEADER) or self.get_query_argument("token", None)
        if not _same(given, self.secret):
            self.set_status(403)
            self.set_header("Content-Type", "text/plain; charset=utf-8")
            self.finish("403: the teacher's view needs the address the server printed (with its token)")
            return None
        return super().prepare()


class StateRoute(TeacherTokenRoute):
    """``…/state.json``: what the view shows, polled by the page."""

    def get(self):
        self._json(self.view.state())


class ReleaseRoute(TeacherTokenRoute):
    """``POST …/release`` ``{"exercise": …, "epsilon": …}``: a central release."""

    def post(self):
        body = self._body()
        eps = body.get("epsilon")
        self._answer(lambda: self.view.release(body.get("exercise"), None if eps is None else eps))


class EndRoute(TeacherTokenRoute):
    """``POST …/end``: end the class (delete the raw answers)."""

    def post(self):
        self._answer(lambda: (self.view.end(), {"ended": True})[1])


def teacher_page(handler: web.RequestHandler, view: ClassView, *, join_url: str, qr_svg: str, script_url: str,
                 state_url: str, release_url: str, end_url: str, token: str | None = None) -> None:
    """Answer ``handler``'s request with the teacher's live view (``&projector=1``: large type), for either server.

    ``token``: the teacher's token, embedded in the page's configuration for ``class.js`` to send (the hub service,
    whose page the hub's login opens, so the token never appears in an address); None: ``class.js`` takes it from
    the page's own ``?token=`` (``dpviz serve``)."""
    from dpviz.serve.guards import render_page

    handler.set_header("Content-Type", "text/html; charset=utf-8")
    handler.set_header("Referrer-Policy", "no-referrer")  # the token is in this page's address or in its text
    projector = handler.get_query_argument("projector", "") not in ("", "0")
    handler.finish(render_page(
        "class.html.j2", tab_title="dpviz · the class", projector=projector, join_url=join_url, qr_svg=qr_svg,
        script_url=script_url, state_url=state_url, release_url=release_url, end_url=end_url,
        privacy=view.privacy, token=token,
    ))


# ------------------------------------------------------------------------------ dpviz serve's handlers (jupyter_server)


class _ClassHandler(ClassRoute, JupyterHandler):
    """The class routes of ``dpviz serve``: jupyter_server handlers (their host checks matter on a classroom's
    network: they refuse DNS rebinding)."""


class _KernelApi(_ClassHandler):
    """The kernels' routes: loopback connections with the kernel key only. A kernel has no login of its own, so
    behind a login (``dpviz serve --hub-service``: JupyterHub's) these routes are marked ``allow_unauthenticated``
    (jupyter_server ≥ 2.13 refuses an anonymous request to any other route): the key is their authentication."""

    def prepare(self):
        ip = self.request.remote_ip or ""
        near = _loopback(ip) or ip == self.extra.get("kernel_ip")
        if not near or not _same(self.request.headers.get(KEY_HEADER), self.secret):
            raise web.HTTPError(403, reason="forbidden")
        return super().prepare()


class SubmitHandler(SubmitRoute, _KernelApi):
    """``POST dpviz/class/api/submit``."""

    post = allow_unauthenticated(SubmitRoute.post)


class GameHandler(GameRoute, _KernelApi):
    """``POST dpviz/class/api/game``."""

    post = allow_unauthenticated(GameRoute.post)


class ReleasedHandler(ReleasedRoute, _KernelApi):
    """``GET dpviz/class/api/released?exercise=…``."""

    get = allow_unauthenticated(ReleasedRoute.get)


class _TeacherRoute(TeacherTokenRoute, _ClassHandler):
    """The teacher's routes of ``dpviz serve``: the token in ``?token=`` or the header, which is their
    authentication, behind a login too (``allow_unauthenticated``, as the kernels' routes)."""


class TeacherPage(_TeacherRoute):
    """``/dpviz/class?token=…`` (``&projector=1``: large type): the teacher's live view of the class."""

    @allow_unauthenticated
    def get(self):
        from jupyter_server.utils import url_path_join

        base = self.base_url
        teacher_page(self, self.view, join_url=self.extra["join_url"], qr_svg=self.extra["qr_svg"],
                     script_url=url_path_join(base, "dpviz-static/class.js"),
                     state_url=url_path_join(base, "dpviz/class/state.json"),
                     release_url=url_path_join(base, "dpviz/class/release"),
                     end_url=url_path_join(base, "dpviz/class/end"))


class HubTeacherPage(TeacherPage):
    """``dpviz serve --hub-service``: the teacher's view at ``dpviz/class`` after the hub's login, for a hub admin or
    a member of the teacher group (``extra["teacher_group"]``), with no token in the address. A browser without the
    login is sent to the hub's; another user gets a short 403 page. The page it serves carries the token for its
    JSON routes, as on one machine."""

    def prepare(self):  # the hub's login (the identity provider), not the token in the address
        return JupyterHandler.prepare(self)

    def get(self):
        model = getattr(self.current_user, "hub_user", None) or {}
        group = self.extra["teacher_group"]
        if not is_teacher(model, group):
            from dpviz.serve.guards import render_page

            self.set_status(403)
            self.set_header("Content-Type", "text/html; charset=utf-8")
            self.finish(render_page(
                "refused.html.j2", tab_title="Teachers only · dpviz", heading="The class view is for the teachers",
                text=f"You are logged in to the hub as {model.get('name', '')}, who is not one of this class's "
                     f"teachers (the hub's admins and the members of its group {group!r}). Students see the "
                     "class's tally under each exercise, in their own lessons."))
            return
        from jupyter_server.utils import url_path_join

        base = self.base_url
        # the hub's root on the scheme and host the teacher's browser used (X-Forwarded-Proto from the proxy),
        # unless the hub has a public URL
        join = self.extra["join_url"] or f"{self.request.protocol}://{self.request.host}{self.extra['hub_base_url']}"
        cache = self.extra["qr_cache"]
        if join not in cache:
            if len(cache) >= 4:  # a host name or two, not one per request a client can invent
                cache.pop(next(iter(cache)))
            cache[join] = qr_svg(join)
        teacher_page(self, self.view, join_url=join, qr_svg=cache[join],
                     script_url=url_path_join(base, "dpviz-static/class.js"),
                     state_url=url_path_join(base, "dpviz/class/state.json"),
                     release_url=url_path_join(base, "dpviz/class/release"),
                     end_url=url_path_join(base, "dpviz/class/end"), token=self.secret)


class StateHandler(StateRoute, _TeacherRoute):
    """``/dpviz/class/state.json``."""

    get = allow_unauthenticated(StateRoute.get)


class ReleaseHandler(ReleaseRoute, _TeacherRoute):
    """``POST /dpviz/class/release``."""

    post = allow_unauthenticated(ReleaseRoute.post)


class EndHandler(EndRoute, _TeacherRoute):
    """``POST /dpviz/class/end``."""

    post = allow_unauthenticated(EndRoute.post)


@dataclasses.dataclass(frozen=True)
class ClassRoutes:
    """What :func:`class_handlers` needs to know of the server."""

    view: ClassView
    kernel_key: str
    teacher_token: str
    join_url: str
    qr_svg: str
    kernel_ip: str = "127.0.0.1"
    #: Behind JupyterHub (``dpviz serve --hub-service``): the teachers' hub group, whose members and the hub's admins
    #: open the teacher's view after the hub's login (:class:`HubTeacherPage`); None: the token in the address.
    hub_teacher_group: str | None = None


def class_handlers(server_url: str, routes: ClassRoutes) -> list[tuple]:
    """The class view's tornado routes under ``server_url``."""
    from jupyter_server.utils import url_path_join

    kernel = {"view": routes.view, "secret": routes.kernel_key, "kernel_ip": routes.kernel_ip}
    teacher = {"view": routes.view, "secret": routes.teacher_token}
    page = {**teacher, "join_url": routes.join_url, "qr_svg": routes.qr_svg}
    if routes.hub_teacher_group is not None:
        import os

        page = {**page, "teacher_group": routes.hub_teacher_group, "qr_cache": {},
                "hub_base_url": os.environ.get("JUPYTERHUB_BASE_URL", "/")}
        view_page = HubTeacherPage
    else:
        view_page = TeacherPage
    api = url_path_join(server_url, "dpviz/class/api")
    return [
        (url_path_join(api, "submit"), SubmitHandler, kernel),
        (url_path_join(api, "game"), GameHandler, kernel),
        (url_path_join(api, "released"), ReleasedHandler, kernel),
        (url_path_join(server_url, "dpviz/class"), view_page, page),
        (url_path_join(server_url, r"dpviz/class/state\.json"), StateHandler, teacher),
        (url_path_join(server_url, "dpviz/class/release"), ReleaseHandler, teacher),
        (url_path_join(server_url, "dpviz/class/end"), EndHandler, teacher),
    ]


def qr_svg(url: str) -> str:
    """The join address as an inline SVG QR code (segno: a maintained encoder), dark on light, for the page."""
    import segno

    return segno.make(url, error="m").svg_inline(scale=6, border=2, dark="#111", light="#fff", title=url)


def qr_terminal(url: str) -> str:
    """The join address as a QR code for the terminal (segno), in Unicode half blocks."""
    import io

    import segno

    out = io.StringIO()
    segno.make(url, error="m").terminal(out=out, compact=True, border=2)
    return out.getvalue()


def new_secret() -> str:
    """A kernel key: 32 random bytes as hex."""
    return secrets.token_hex(32)


def open_store(class_dir: str, name: str) -> ClassStore:
    """The class's store, ``class.sqlite3`` in ``class_dir`` (default: :func:`classstore.default_class_dir`)."""
    return ClassStore(Path(class_dir) if class_dir else classstore.default_class_dir(name))

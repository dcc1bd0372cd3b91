"""The kernel's side of the class view: a learner's committed answers go to the class tally of ``dpviz serve``.

``dpviz serve`` with the class view on puts one environment variable in every kernel it starts::

    DPVIZ_CLASS = '{"api": "http://127.0.0.1:8866/dpviz/class/api/", "key": "<hex>", "privacy": "local",
                    "epsilon": 2.0}'

:func:`class_feed` reads it once, lazily (in the kernel, after the fork server has forked it), and gives the
kernel's :class:`ClassFeed`, or None when the variable is absent (JupyterLab, the tests, a self-learner's server):
then no exercise shows anything about a class. The feed speaks the server's class API (``POST {api}submit``,
``POST {api}game``, ``GET {api}released``) over HTTP on the loopback interface with the standard library's
:mod:`http.client`, synchronously: the server answers in milliseconds, and a panel starts no threads.

**What leaves the kernel.** In ``local`` privacy the feed applies k-ary randomized response
(:func:`dpviz.classpoll.randomize`; Kairouz, Oh & Viswanath 2014) to the answer's bucket *before* anything is sent:
the true bucket never leaves the kernel, and the server holds only ε-LDP reports. The report of a given true bucket
is drawn once per exercise and sent again if the learner reveals the same bucket again (memoised randomized
response, as RAPPOR's permanent randomized response, Erlingsson, Pihur & Korolova 2014, §3): a learner pressing
Reveal ten times gives the server one report, not ten independent ones of the same answer, which would compose to
10ε. In ``central`` privacy the raw bucket is sent; the server releases only noisy histograms.

:class:`ClassBox` is the few widgets an exercise (or the neighbouring-dataset game) shows under itself when a feed
exists: the one-line notice of what is shared and how, the opt-out check box, and "your class so far".

**Under JupyterHub** the class tally is the hub service :mod:`dpviz.serve.hubclass`, and the hub's config puts
``DPVIZ_CLASS = '{"api": "http://127.0.0.1:10101/services/dpviz-class/api/", "auth": "hub", "privacy": "local",
"epsilon": 2.0}'`` in every student's server (:func:`dpviz.serve.classview.hub_environment`). There is no key: each
request carries ``Authorization: token <T>``, T the kernel's ``JUPYTERHUB_API_TOKEN`` (inherited from its
single-user server), by which the hub tells the service which user submits. The api may then be on any host (on
one machine the service's loopback URL; in Kubernetes the hub's service name across the pod network), http or
https: the hub's config, which the student cannot change, sets it. The token is the student's server's credential:
it is checked (non-empty printable ASCII, at most 512 characters) and never shown in an error, a repr or a log.
"""

from __future__ import annotations

import asyncio
import html
import http.client
import json
import logging
import math
import os
import re
import secrets
import sys
import urllib.parse
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import ipywidgets as W
import numpy as np

from dpviz import classpoll
from dpviz._validation import as_rng
from dpviz.panels.controls import REJECT, button, html_widget

__all__ = ["CLASS_ENV", "KEY_HEADER", "HUB_TOKEN_ENV", "ClassFeed", "ClassFeedError", "ClassBox", "class_feed",
           "set_class_feed", "reset_class_feed", "release_html", "pooled_text", "plain_title", "running_loop"]

log = logging.getLogger("dpviz.panels")

#: The environment variable ``dpviz serve`` puts in every kernel it starts when the class view is on.
CLASS_ENV = "DPVIZ_CLASS"
#: The header every request carries the class key in.
KEY_HEADER = "X-Dpviz-Class-Key"
#: Under JupyterHub (``"auth": "hub"``): the variable the kernel's hub token is read from, inherited from its server.
HUB_TOKEN_ENV = "JUPYTERHUB_API_TOKEN"
#: Seconds a request may take: the server is on the loopback interface and answers in milliseconds.
TIMEOUT = 2.0
#: Hosts the class API may be on: the server that started this kernel, on this machine.
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
#: Bytes of a reply read at most (a release is a few hundred bytes).
REPLY_BYTES = 1 << 16
#: Characters of an exercise's title in its domain.
TITLE_CHARS = 300

_PRIVACY = ("local", "central")
_KEY = re.compile(r"[0-9a-fA-F]{32,128}")
_HUB_TOKEN = re.compile(r"[\x21-\x7e]{1,512}")
_AUTH = ("hub",)
_KERNEL = re.compile(r"[A-Za-z0-9_-]{1,128}")
_UNREACHABLE = "the class tally is not reachable right now"
#: What the learner reads when the server refuses a request, by HTTP status (the server's own text goes to the log).
_REFUSED = {
    400: "the class tally refused this answer",
    403: "the class tally did not recognise this kernel (reloading the page rejoins the class)",
    409: "this exercise differs from the one the class declared (an older copy of the lesson?)",
    410: "the class has ended",
    413: "the class tally refused this answer (too large)",
    429: "too many answers in a short time: wait a few seconds and try again",
}
#: A 403 under JupyterHub: the hub did not recognise the server's token (stopped, or restarted since).
_HUB_REFUSED = "the class tally did not recognise this server (restarting your server from the hub's home rejoins)"


class ClassFeedError(Exception):
    """A class-tally request that failed; ``str(error)`` is a short plain sentence for the learner (no traceback,
    no server detail), ``status`` the HTTP status (None: the server was not reached or its reply was unreadable)."""

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status


def _env_fail(name: str, value: Any, allowed: str) -> ValueError:
    return ValueError(f"{CLASS_ENV} {name} = {value!r:.80} is not allowed: must be {allowed}.")


def _check_api(api: Any, hub: bool = False) -> str:
    """The API's base URL: http on a loopback host (``dpviz serve`` started this kernel, on this machine); under the
    hub (``hub``) http or https on any host, as the hub's config says."""
    allowed = ("an http or https URL, e.g. http://127.0.0.1:10101/services/dpviz-class/api/" if hub else
               "an http URL on a loopback host (127.0.0.1, localhost or [::1]), e.g. http://127.0.0.1:8866/dpviz/class/api/")
    if not isinstance(api, str) or len(api) > 2000:
        raise _env_fail("api", api, allowed)
    try:
        url = urllib.parse.urlsplit(api)
        url.port  # noqa: B018  (a malformed port raises here)
    except ValueError:
        raise _env_fail("api", api, allowed) from None
    schemes, near = (("http", "https"), True) if hub else (("http",), url.hostname in LOOPBACK)
    if url.scheme not in schemes or not url.hostname or not near or url.username is not None \
            or url.password is not None or url.query or url.fragment or re.search(r"[\x00-\x20\x7f]", api):
        raise _env_fail("api", api, allowed)
    return api if api.endswith("/") else api + "/"


def _check_key(key: Any) -> str:
    if not isinstance(key, str) or not _KEY.fullmatch(key):
        # the key is a secret: the message never shows it
        raise ValueError(f"{CLASS_ENV} key is not allowed: must be a string of 32 to 128 hex digits (its value is "
                         "not shown: it is the class's secret).")
    return key


def _check_hub_token(token: Any) -> str:
    if not isinstance(token, str) or not _HUB_TOKEN.fullmatch(token):
        # the token is the student's server's credential: the message never shows it
        raise ValueError(f"{HUB_TOKEN_ENV} is not allowed: the class feed under JupyterHub needs the kernel's hub "
                         "token, 1 to 512 printable ASCII characters (its value is not shown: it is a credential).")
    return token


def _check_epsilon(epsilon: Any) -> float:
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float)):
        raise _env_fail("epsilon", epsilon, f"a number in [{classpoll.EPSILON.low:g}, {classpoll.EPSILON.high:g}]")
    try:
        return float(classpoll.EPSILON.check(float(epsilon), "epsilon"))
    except ValueError:
        raise _env_fail("epsilon", epsilon,
                        f"a number in [{classpoll.EPSILON.low:g}, {classpoll.EPSILON.high:g}]") from None


def _connection_kernel_id() -> str:
    """This kernel's id: the stem of its connection file, ``…/kernel-<id>.json``."""
    try:
        if "ipykernel.connect" not in sys.modules and "ipykernel.kernelapp" not in sys.modules:
            raise RuntimeError("no kernel")  # not in a kernel: importing ipykernel would only change comm's globals
        from ipykernel.connect import get_connection_file

        stem = Path(get_connection_file()).stem
    except Exception:  # not in a kernel (a script, the tests): there is no kernel id to give
        raise ValueError("kernel is not allowed: the class feed needs a kernel's connection file (kernel-<id>.json),"
                         " and this process is not a running kernel.") from None
    if not stem.startswith("kernel-"):
        raise ValueError(f"kernel = {stem!r:.80} is not allowed: the connection file's name must be "
                         "kernel-<id>.json.")
    return stem[len("kernel-"):]


class ClassFeed:
    """The kernel's client of the class API of ``dpviz serve`` (see the module docstring).

    Parameters
    ----------
    api : str
        The API's base URL: http, on a loopback host (127.0.0.1, localhost, ::1); with ``hub_token``, http or https
        on any host.
    key : str or None
        The class key, 32 to 128 hex digits, sent in the ``X-Dpviz-Class-Key`` header of every request; None with
        ``hub_token`` (there is no key under the hub).
    privacy : "local" or "central"
        ``local``: each bucket is randomized here (k-RR with ``epsilon``) before it is sent; ``central``: sent raw.
    epsilon : float in [0.001, 100]
        ε of each local report (ignored in central privacy, where the server's releases carry their own ε).
    kernel_id : str
        The kernel's id (``[A-Za-z0-9_-]``, at most 128): the server maps it to the browser that owns the kernel.
    rng : numpy Generator, int seed or None
        Draws the local reports. None (the default) is a fresh Generator from OS entropy, and it must stay so in a
        class: the randomization protects an answer only while nobody can predict its coin flips. With a fixed
        seed every kernel (all forked from one fork server, all running the same lesson) would draw the same
        flips, so whoever knows the seed (it would be in the source) could undo the randomized response and read
        every true answer: ε would be infinite. Tests pass a seeded Generator to check the law.
    timeout : float
        Seconds per request (default 2: the server is on this machine, or the hub's service on its network).
    hub_token : str or None
        Under JupyterHub: the kernel's ``JUPYTERHUB_API_TOKEN`` (printable ASCII, at most 512 characters), sent as
        ``Authorization: token <T>``; the hub tells the class service whose it is. None: ``dpviz serve``'s key.

    Raises
    ------
    ValueError
        A value out of its range, naming it (never showing the key or the token).
    """

    def __init__(self, api: str, key: str | None, privacy: str, epsilon: float, kernel_id: str, *, rng=None,
                 timeout: float = TIMEOUT, hub_token: str | None = None):
        self.hub = hub_token is not None
        self.api = _check_api(api, self.hub)
        if self.hub:
            if key is not None:
                raise ValueError("key is not allowed with hub_token: under JupyterHub the hub's token authenticates "
                                 "the kernel (its value is not shown).")
            self._credential = {"Authorization": "token " + _check_hub_token(hub_token)}
        else:
            self._credential = {KEY_HEADER: _check_key(key)}
        if privacy not in _PRIVACY:
            raise _env_fail("privacy", privacy, "'local' or 'central'")
        self.privacy: str = privacy
        self.epsilon = _check_epsilon(epsilon)
        if not isinstance(kernel_id, str) or not _KERNEL.fullmatch(kernel_id):
            raise ValueError(f"kernel_id = {kernel_id!r:.80} is not allowed: must be 1 to 128 characters of "
                             "[A-Za-z0-9_-].")
        self.kernel_id = kernel_id
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout <= 60:
            raise ValueError(f"timeout = {timeout!r:.60} is not allowed: must be a number of seconds in (0, 60].")
        self.timeout = float(timeout)
        self.rng = as_rng(rng)
        self._reports: dict[tuple[str, int], int] = {}  # (exercise, true bucket) -> its local report (memoised)
        url = urllib.parse.urlsplit(self.api)
        self._host, self._port, self._path = url.hostname, url.port, url.path or "/"
        self._connection = http.client.HTTPSConnection if url.scheme == "https" else http.client.HTTPConnection

    def __repr__(self) -> str:  # never the key nor the token
        auth = ", auth='hub'" if self.hub else ""
        return f"ClassFeed(api={self.api!r}, privacy={self.privacy!r}, epsilon={self.epsilon:g}{auth})"

    @classmethod
    def from_environment(cls, env: Mapping[str, str] = os.environ, rng=None, *,
                         kernel_id: str | None = None) -> ClassFeed | None:
        """The feed ``DPVIZ_CLASS`` in ``env`` describes, or None when it is absent.

        ``kernel_id`` defaults to this kernel's (its connection file's stem, ``kernel-<id>``); tests pass one.
        With ``"auth": "hub"`` there is no key: the token is ``JUPYTERHUB_API_TOKEN`` in ``env``. A malformed
        variable raises ValueError naming the field (api, key, auth, privacy, epsilon, kernel or the token's
        variable, whose value is never shown).
        """
        raw = env.get(CLASS_ENV)
        if raw is None:
            return None
        try:
            spec = json.loads(raw)
        except (TypeError, ValueError):
            spec = None
        if not isinstance(spec, dict):
            raise ValueError(f"{CLASS_ENV} is not allowed: must be a JSON object with api, key, privacy and "
                             "epsilon.")
        auth = spec.get("auth")
        if auth is not None and auth not in _AUTH:
            raise _env_fail("auth", auth, "'hub' (JupyterHub's token) or absent (dpviz serve's key)")
        hub = auth == "hub"
        needed = ("api", "privacy", "epsilon") if hub else ("api", "key", "privacy", "epsilon")
        for name in needed:
            if name not in spec:
                raise ValueError(f"{CLASS_ENV} {name} is missing: the object must hold {', '.join(needed)}.")
        api, privacy, epsilon = _check_api(spec["api"], hub), spec["privacy"], _check_epsilon(spec["epsilon"])
        key = None if hub else _check_key(spec["key"])
        token = _check_hub_token(env.get(HUB_TOKEN_ENV)) if hub else None
        return cls(api, key, privacy, epsilon, _connection_kernel_id() if kernel_id is None else kernel_id, rng=rng,
                   hub_token=token)

    # -- what it says ------------------------------------------------------------------------------------------
    def notice(self) -> str:
        """The one line under an exercise: what is shared, and how it is protected (plain text)."""
        if self.privacy == "local":
            return ("Your answer's bucket is shared with the class after k-ary randomized response with "
                    f"ε = {self.epsilon:g} in this browser's kernel: the server never sees your true answer.")
        return ("Your answer's bucket is sent to the class server, which releases only histograms with discrete "
                "Laplace noise, ε stated on the teacher's screen; raw answers are deleted when the class ends.")

    def game_notice(self) -> str:
        """The line under the neighbouring-dataset game: its tally is sent as it is (the class pools it)."""
        return ("Your tally (rounds played and right guesses on x and on x′, at these settings) is sent to the class "
                "server as it is, without noise, and pooled with the class's into one lower bound on ε; it holds "
                "nothing but your guesses.")

    # -- the requests ------------------------------------------------------------------------------------------
    def submit(self, exercise_key: str, bucket: int, buckets: classpoll.Buckets,
               domain: Mapping[str, Any]) -> dict | None:
        """Send one committed answer's bucket (randomized first in local privacy); return the server's current
        release of the exercise (a Release dict) or None (nothing released yet).

        Each call is a new submission with a fresh random id (``secrets.token_hex(8)``); a connection error is
        retried once with the same id and the same report, which the server counts once. Raises
        :class:`ClassFeedError` (a friendly message) when the answer could not be shared."""
        if not isinstance(buckets, classpoll.Buckets):
            raise TypeError(f"buckets = {type(buckets).__name__} is not allowed: must be a classpoll.Buckets.")
        if isinstance(bucket, bool) or not isinstance(bucket, (int, np.integer)) or not 0 <= bucket < buckets.k:
            raise ValueError(f"bucket = {bucket!r:.60} is not allowed: must be an integer in [0, {buckets.k - 1}].")
        bucket = int(bucket)
        if self.privacy == "local":
            memo = (exercise_key, bucket)
            if memo not in self._reports:
                self._reports[memo] = classpoll.randomize(bucket, buckets, self.epsilon, self.rng)
            sent = self._reports[memo]
        else:
            sent = bucket
        body = {"kernel": self.kernel_id, "exercise": exercise_key, "submission": secrets.token_hex(8),
                "bucket": sent, "domain": dict(domain)}
        return _release(self._request("POST", "submit", body).get("release"))

    def submit_game(self, exercise_key: str, counts: Sequence[int], domain: Mapping[str, Any]) -> dict | None:
        """Send the game's cumulative tally ``counts`` = (correct_on_x, rounds_on_x, correct_on_x_prime,
        rounds_on_x_prime) for ``exercise_key`` (the server keeps the latest per browser); return the class's
        pooled record (players, the pooled counts, bound, ceiling, claimed_epsilon, confidence) or None."""
        counts = [int(c) for c in counts] if isinstance(counts, (list, tuple)) and len(counts) == 4 and all(
            isinstance(c, (int, np.integer)) and not isinstance(c, bool) for c in counts) else None
        if counts is None or min(counts) < 0 or counts[0] > counts[1] or counts[2] > counts[3]:
            raise ValueError("counts is not allowed: must be 4 integers >= 0, (correct_on_x, rounds_on_x, "
                             "correct_on_x_prime, rounds_on_x_prime), each correct count <= its rounds.")
        body = {"kernel": self.kernel_id, "exercise": exercise_key, "submission": secrets.token_hex(8),
                "counts": counts, "domain": dict(domain)}
        pooled = self._request("POST", "game", body).get("pooled")
        return pooled if isinstance(pooled, dict) else None

    def released(self, exercise_key: str) -> dict | None:
        """The exercise's current release (a Release dict), or None when nothing is released yet."""
        query = urllib.parse.urlencode({"exercise": exercise_key})
        return _release(self._request("GET", f"released?{query}").get("release"))

    def _request(self, method: str, path: str, body: Mapping | None = None) -> dict:
        data = None if body is None else json.dumps(body, ensure_ascii=False).encode("utf-8")
        for attempt in (1, 2):  # one retry on a connection error; the body (and its submission id) is the same
            try:
                return self._once(method, path, data)
            except (OSError, http.client.HTTPException) as exc:
                log.warning("class tally %s %s: %s (attempt %d)", method, path.split("?")[0], type(exc).__name__,
                            attempt)
        raise ClassFeedError(_UNREACHABLE)

    def _once(self, method: str, path: str, data: bytes | None) -> dict:
        headers = {**self._credential, "Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = "application/json; charset=utf-8"
        conn = self._connection(self._host, self._port, timeout=self.timeout)
        try:
            conn.request(method, self._path + path, body=data, headers=headers)
            reply = conn.getresponse()
            raw = reply.read(REPLY_BYTES + 1)
            status = reply.status
        finally:
            conn.close()
        if status != 200:
            log.warning("class tally refused %s %s: HTTP %d %.200s", method, path.split("?")[0], status,
                        raw.decode("utf-8", "replace"))
            refused = _HUB_REFUSED if self.hub and status == 403 else _REFUSED.get(status, _UNREACHABLE)
            raise ClassFeedError(refused, status)
        try:
            obj = json.loads(raw.decode("utf-8")) if len(raw) <= REPLY_BYTES else None
        except ValueError:
            obj = None
        if not isinstance(obj, dict):
            raise ClassFeedError(_UNREACHABLE, status)
        return obj


def _release(obj: Any) -> dict | None:
    """A Release from the server, its fields checked (so the panel draws only numbers and escaped text); None."""
    if obj is None:
        return None
    try:
        labels = [str(x) for x in obj["labels"]]
        out = {"labels": labels, "n": int(obj.get("n", 0)), "epsilon": float(obj["epsilon"]),
               "privacy": str(obj.get("privacy", "")), "correct": [int(i) for i in obj.get("correct", ())]}
        for name in ("counts", "low", "high"):
            out[name] = [float(x) for x in obj.get(name, obj["counts"])]
            if len(out[name]) != len(labels) or not all(math.isfinite(x) for x in out[name]):
                raise ValueError(name)
        for key in ("exercise", "seq", "released_at", "title"):
            if key in obj:
                out[key] = obj[key]
        if not 2 <= len(labels) <= classpoll.BUCKETS.high or not math.isfinite(out["epsilon"]):
            raise ValueError("labels")
    except (KeyError, TypeError, ValueError, AttributeError):
        raise ClassFeedError("the class tally sent a reply this kernel cannot read") from None
    return out


# ============================================================================================ the kernel's feed

_UNSET: Any = object()
_feed: Any = _UNSET


def class_feed() -> ClassFeed | None:
    """This kernel's feed, made on first use from ``DPVIZ_CLASS`` (None without it; a malformed variable is logged
    to the server's log and gives None: a learner never sees a traceback). Made lazily: a kernel forked by the fork
    server reads its own environment and draws its own entropy."""
    global _feed
    if _feed is _UNSET:
        try:
            _feed = ClassFeed.from_environment(os.environ)
        except ValueError as exc:
            log.warning("no class feed: %s", exc)
            _feed = None
    return _feed


def set_class_feed(feed: ClassFeed | None) -> ClassFeed | None:
    """Use ``feed`` (or no feed) from now on (tests); returns the one used before (None if none or not made yet)."""
    global _feed
    if feed is not None and not isinstance(feed, ClassFeed):
        raise TypeError(f"feed = {feed!r:.60} is not allowed: must be a ClassFeed or None.")
    before, _feed = _feed, feed
    return None if before is _UNSET else before


def reset_class_feed() -> None:
    """Forget the feed: the next :func:`class_feed` reads the environment again."""
    global _feed
    _feed = _UNSET


def running_loop() -> asyncio.AbstractEventLoop | None:
    """The kernel's running event loop (inside a message handler), or None (tests, scripts)."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


# ============================================================================================ what the learner sees


_BREAK = re.compile(r"<\s*/?\s*(?:br|p|div|li|ul|ol|tr|td|th|h[1-6])\b[^>]*>", re.IGNORECASE)
_TAG = re.compile(r"<[^>]*>")


def plain_title(text: str) -> str:
    """An exercise's question as the title of its class domain: tags stripped, entities decoded, spaces collapsed,
    at most 300 characters."""
    plain = " ".join(html.unescape(_TAG.sub("", _BREAK.sub(" ", str(text)))).split())
    return plain if len(plain) <= TITLE_CHARS else plain[:TITLE_CHARS - 1].rstrip() + "…"


def _num(x: float) -> str:
    return f"{x:.0f}" if abs(x) >= 10 else f"{x:.1f}"


def release_html(release: Mapping[str, Any] | None, *, privacy: str = "") -> str:
    """"Your class so far": the released histogram as a small accessible HTML bar chart (a table whose rows are the
    buckets: label, a bar, the count with its 95 % interval; the correct bucket marked), with n and ε. Labels are
    escaped (they come from a server). None: "no release yet"."""
    if release is None:
        wait = (" The teacher releases the class's histogram, with noise, from the teacher's screen; press update "
                "to look again." if privacy == "central" else " Press update to look again.")
        return f"<div class='dpviz-class-so-far'><b>Your class so far:</b> no release yet.{wait}</div>"
    labels, counts = release["labels"], release["counts"]
    low, high = release.get("low", counts), release.get("high", counts)
    correct = set(release.get("correct", ()))
    top = max([max(counts), 1.0])
    rows = []
    for i, (label, c, lo, hi) in enumerate(zip(labels, counts, low, high)):
        width = 100.0 * max(c, 0.0) / top
        mark = " <span title='the right answer'>✓</span>" if i in correct else ""
        rows.append(
            "<tr><th scope='row' style='text-align:left;font-weight:normal;padding:1px 8px 1px 0'>"
            f"{html.escape(str(label))}{mark}</th>"
            "<td style='width:160px;padding:1px 0'><div aria-hidden='true' style='background:#0072B2;height:0.9em;"
            f"width:{width:.1f}%'></div></td>"
            f"<td style='padding:1px 0 1px 8px;white-space:nowrap'>{_num(c)} "
            f"<span style='color:#555'>(95 %: {_num(lo)} to {_num(hi)})</span></td></tr>")
    n, eps = int(release.get("n", 0)), float(release["epsilon"])
    if release.get("privacy", privacy) == "local":
        how = (f"ε = {eps:g} per answer (k-ary randomized response in each kernel); the counts are the debiased "
               "estimate")
    else:
        how = f"ε = {eps:g} for this release (discrete Laplace noise added by the server)"
    return ("<div class='dpviz-class-so-far' style='padding:4px 8px;background:#f4f4f4'>"
            "<table style='border-collapse:collapse'><caption style='text-align:left;font-weight:bold'>Your class so "
            "far</caption><thead><tr><th scope='col' style='text-align:left'>answer</th><th scope='col'>"
            "<span style='position:absolute;left:-9999px'>bar</span></th><th scope='col' style='text-align:left'>"
            "answers</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>"
            f"<div>{n} answer{'s' if n != 1 else ''}; {html.escape(how)}.</div></div>")


def pooled_text(pooled: Mapping[str, Any] | None) -> str:
    """The game's line: the class's pooled lower bound on ε next to the claimed ε (plain text)."""
    if not pooled:
        return "The class so far: no pooled tally yet."
    try:
        players, bound = int(pooled["players"]), float(pooled["bound"])
        claimed, conf = float(pooled["claimed_epsilon"]), float(pooled.get("confidence", 0.95))
        ceiling = pooled.get("ceiling")
    except (KeyError, TypeError, ValueError):
        return "The class so far: the class tally sent a reply this kernel cannot read."
    text = (f"The class so far: {players} player{'s' if players != 1 else ''}, pooled {100 * conf:g} % lower bound "
            f"ε ≥ {bound:.3g}, claimed ε = {claimed:.3g}.")
    try:
        if ceiling is not None and math.isfinite(float(ceiling)):
            text += f" With these rounds no class could prove more than ε ≥ {float(ceiling):.3g}."
    except (TypeError, ValueError):
        pass
    return text


def _bool_only(v: Any) -> Any:
    return v if isinstance(v, bool) else REJECT


class ClassBox:
    """The widgets under an exercise (or the game) when a feed exists: the notice, the opt-out check box ("share my
    answer with the class", on by default), the class so far (empty until a shared reveal) and, for an exercise,
    an "update" button (hidden until then)."""

    def __init__(self, feed: ClassFeed, *, game: bool = False):
        self.feed = feed
        self.notice = html_widget(f"<span class='dpviz-class-notice' style='color:#555;font-size:0.9em'>ℹ "
                                  f"{html.escape(feed.game_notice() if game else feed.notice())}</span>")
        self.share = W.Checkbox(value=True, description="share my answer with the class" if not game else
                                "share my tally with the class", indent=False,
                                layout=W.Layout(width="auto", max_width="100%"))
        self.view = html_widget("")
        self.view.add_class("dpviz-class-view")
        self.update_button = None if game else button(description="update", tooltip="Fetch the class's latest "
                                                      "release", layout=W.Layout(width="auto", display="none"))
        self.widgets: list[W.Widget] = [self.notice, self.share, self.view] + (
            [self.update_button] if self.update_button is not None else [])

    @property
    def sharing(self) -> bool:
        return bool(self.share.value)

    def client_checks(self) -> dict[W.Widget, dict]:
        """The browser may send the check box a bool, and nothing else to these widgets."""
        return {self.share: {"value": _bool_only}}

    def show(self, html_text: str, *, update: bool = False) -> None:
        self.view.value = html_text
        if self.update_button is not None:
            self.update_button.layout.display = None if update else "none"

    def problem(self, message: str) -> None:
        self.show(f"<div class='dpviz-class-problem' style='color:#8a4b00'>⚠ {html.escape(message)}</div>")

    def clear(self) -> None:
        self.show("")

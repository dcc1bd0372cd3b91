"""The class view's store: a class's answers and releases in one SQLite file, ``class.sqlite3``, that nothing loses.

A :class:`ClassStore` holds, for one class:

- each exercise's **public domain** (:meth:`ClassStore.declare`): its number of buckets k and their labels, fixed
  on first declaration (a second declaration with a different domain is refused with :class:`DomainDiffers`, so
  no answer is ever counted in a domain other than the one it was checked against), and its public metadata (the
  question's title, its lesson, the correct bucket(s), its kind), kept from the first declaration;
- each student's **answer** per exercise (:meth:`ClassStore.submit`): one bucket per exercise per browser (a
  later submission replaces it), keyed by a submission id so that a retried request counts once. In ``local``
  privacy the bucket was already randomized by the student's kernel (k-ary randomized response); in ``central``
  privacy it is the raw bucket, which only the server's release code reads (:meth:`ClassStore.tally`);
- each browser's record of each **neighbouring-dataset game** (:meth:`ClassStore.submit_game`): four counts
  (right guesses and rounds in world x, the same in world x′), one record per browser per game key, replaced by
  each update; the class's pooled sums (:meth:`ClassStore.game_totals`) are what the view shows;
- the **teacher's token** (:meth:`ClassStore.teacher_token`), random, made once and kept, so a restarted server
  keeps the teacher's address;
- every **release** (:meth:`ClassStore.record_release`) and with it the class's **privacy ledger**
  (:meth:`ClassStore.spent`): what the class was shown, and every ε it cost, in order.

Durability. The file is in WAL mode (write-ahead logging: readers never block the writer, a commit appends to the
log) and every submission is one ``BEGIN IMMEDIATE … COMMIT`` transaction, so a submission is either wholly
stored or not at all, and two server processes never interleave half-writes (the writer lock is taken at
``BEGIN``, and a writer waits up to ``busy_timeout`` for it). ``synchronous=FULL`` by default: SQLite syncs the
log at every commit, so an acknowledged submission survives a power cut and an operating-system crash, not only
a restart of the server; it costs one ``fsync`` of the log per submission (on an SSD, well under the class
view's budget of 5 ms). ``synchronous="NORMAL"`` (WAL's usual setting) skips that sync: a commit still survives
the server process dying at any point (the log is in the operating system's cache), but the last commits may be
lost if the machine itself loses power. Choose it only on a disk whose sync is slow.

Privacy of what is kept.

- Browser ids (the page's client cookie) are never stored: the store keeps ``HMAC-SHA256(key, browser)`` with a
  random per-class key (:mod:`hmac`, :mod:`secrets`), so a copy of the file neither names a browser nor gives its
  cookie away (the cookie also proves ownership of a kernel), and two classes' files cannot be linked.
- :meth:`ClassStore.end_class` deletes every answer, every browser's game record and every submission in one
  transaction, with ``secure_delete`` on (SQLite overwrites deleted content with zeros) and then truncates the
  log, so the raw buckets are gone from the file, not only from its tables. The domains, the releases and each
  game's pooled totals stay: they are what the class was shown.
- :meth:`ClassStore.tally` is the raw count per bucket. It is for the server's release code only, which turns it
  into a released histogram (a central release adds noise; a local one debiases reports that are already
  randomized); it is **never sent to a student** nor shown on the teacher's view as it is.

Nothing stored is HTML: labels and release metadata are plain text, kept as they are (``"< 10"`` is a label), and
the view escapes them when it renders them. Identifiers (exercise keys, browser ids, submission ids) are checked
against short patterns of letters, digits and ``_-.`` before anything is stored, and every bucket against its
exercise's declared k. A bad field is refused with a :class:`ValueError` that names it.

Flooding. A browser may make at most ``rate_limit`` new submissions per ``rate_window`` seconds (30 per minute by
default; a retry of a submission already stored costs nothing). The limit is **persisted**: it counts the
browser's stored submissions in the window, so it holds across a server restart and across two server processes
sharing the file. Beyond it :class:`RateLimited` is raised. The number of exercises a class may declare is capped
(:data:`MAX_EXERCISES`).

Standard library only (the serving layer imports no numerics): :mod:`sqlite3`, :mod:`json`, :mod:`hmac`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import json
import math
import os
import re
import secrets
import sqlite3
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

__all__ = [
    "SCHEMA_VERSION",
    "FILENAME",
    "PRIVACY_MODES",
    "MAX_BUCKETS",
    "MAX_EXERCISES",
    "ClassStore",
    "GAME_LABELS",
    "KINDS",
    "MAX_GAME_ROUNDS",
    "MAX_TITLE",
    "Domain",
    "GameTotals",
    "Tally",
    "Release",
    "Charge",
    "SubmitOutcome",
    "Refused",
    "RateLimited",
    "ClassEnded",
    "DomainDiffers",
    "default_class_dir",
]

#: Version of the file's schema, kept in its ``meta`` table; a file of a newer version is refused.
SCHEMA_VERSION = 1
#: The store's file inside a class folder.
FILENAME = "class.sqlite3"
#: ``local``: the bucket was randomized in the student's kernel (k-RR); ``central``: the raw bucket.
PRIVACY_MODES = ("local", "central")
#: Most buckets an exercise may declare (as :data:`dpviz.classpoll.MAX_BUCKETS`; not imported: numerics layer).
MAX_BUCKETS = 100
#: Most exercises one class may declare (a whole course, with room to spare).
MAX_EXERCISES = 1000
#: Most characters in a bucket's label (as in :class:`dpviz.classpoll.Buckets`).
MAX_LABEL = 200
#: Most characters of a release's metadata, as JSON.
MAX_META = 8192
#: Most answers one exercise's tally may hold (as :data:`dpviz.classpoll.MAX_ANSWERS`).
MAX_ANSWERS = 1_000_000
#: Most characters of an exercise's title (the question, one line of plain text).
MAX_TITLE = 300
#: An exercise's kind: a *predict, then reveal* box, a *think, then reveal* choice, or the neighbouring-dataset game.
KINDS = ("predict", "choice", "game")
#: Most rounds one browser's game record may count in each world.
MAX_GAME_ROUNDS = 100_000
#: The two buckets of a game's domain: the worlds x and x′ (a game's record counts guesses in each).
GAME_LABELS = ("x", "x′")

#: An exercise key or a class name: a letter or digit, then up to 63 letters, digits, ``_``, ``-`` or ``.``.
EXERCISE_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}")
#: A browser id (the client cookie, an opaque random token): 16 to 128 letters, digits, ``_`` or ``-``.
BROWSER_PATTERN = re.compile(r"[A-Za-z0-9_\-]{16,128}")
#: A submission id (random, made by the student's page or kernel): 8 to 64 letters, digits, ``_`` or ``-``.
SUBMISSION_PATTERN = re.compile(r"[A-Za-z0-9_\-]{8,64}")
#: Characters a label may not hold: control characters (a label is one line of plain text).
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS exercises (
    exercise TEXT PRIMARY KEY,
    k INTEGER NOT NULL CHECK (k BETWEEN 2 AND {max_buckets}),
    labels TEXT NOT NULL,
    declared REAL NOT NULL,
    title TEXT NOT NULL,
    lesson TEXT NOT NULL,
    correct TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('predict', 'choice', 'game')),
    claimed_epsilon REAL,
    delta REAL,
    CHECK ((kind = 'game') = (claimed_epsilon IS NOT NULL AND delta IS NOT NULL)));
CREATE TABLE IF NOT EXISTS answers (
    exercise TEXT NOT NULL REFERENCES exercises(exercise),
    browser BLOB NOT NULL,
    bucket INTEGER NOT NULL CHECK (bucket >= 0),
    privacy TEXT NOT NULL CHECK (privacy IN ('local', 'central')),
    received REAL NOT NULL,
    PRIMARY KEY (exercise, browser));
CREATE TABLE IF NOT EXISTS games (
    exercise TEXT NOT NULL REFERENCES exercises(exercise),
    browser BLOB NOT NULL,
    correct_on_x INTEGER NOT NULL CHECK (correct_on_x BETWEEN 0 AND rounds_on_x),
    rounds_on_x INTEGER NOT NULL CHECK (rounds_on_x BETWEEN 0 AND {max_rounds}),
    correct_on_x_prime INTEGER NOT NULL CHECK (correct_on_x_prime BETWEEN 0 AND rounds_on_x_prime),
    rounds_on_x_prime INTEGER NOT NULL CHECK (rounds_on_x_prime BETWEEN 0 AND {max_rounds}),
    received REAL NOT NULL,
    PRIMARY KEY (exercise, browser));
CREATE TABLE IF NOT EXISTS game_finals (
    exercise TEXT PRIMARY KEY REFERENCES exercises(exercise),
    players INTEGER NOT NULL,
    correct_on_x INTEGER NOT NULL,
    rounds_on_x INTEGER NOT NULL,
    correct_on_x_prime INTEGER NOT NULL,
    rounds_on_x_prime INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS submissions (
    browser BLOB NOT NULL,
    submission TEXT NOT NULL,
    exercise TEXT NOT NULL,
    received REAL NOT NULL,
    PRIMARY KEY (browser, submission));
CREATE INDEX IF NOT EXISTS submissions_by_time ON submissions (browser, received);
CREATE TABLE IF NOT EXISTS releases (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    exercise TEXT NOT NULL REFERENCES exercises(exercise),
    epsilon REAL NOT NULL CHECK (epsilon >= 0),
    counts TEXT NOT NULL,
    total INTEGER NOT NULL CHECK (total >= 0),
    meta TEXT NOT NULL,
    released REAL NOT NULL);
""".format(max_buckets=MAX_BUCKETS, max_rounds=MAX_GAME_ROUNDS)


class Refused(Exception):
    """A well-formed request the store will not carry out now (the server answers it with an HTTP error other than
    400; a malformed field is a :class:`ValueError` instead)."""


class RateLimited(Refused):
    """The browser made ``rate_limit`` submissions in the last ``rate_window`` seconds (HTTP 429)."""


class ClassEnded(Refused):
    """The class has ended (:meth:`ClassStore.end_class`): its answers are deleted and no more are taken (HTTP 410)."""


class DomainDiffers(Refused):
    """An exercise is declared again with another domain (another k or labels; for a game, another claimed ε or
    δ) than its first declaration, against which its answers were checked (HTTP 409). The message names the
    exercise."""


@dataclasses.dataclass(frozen=True)
class Domain:
    """An exercise's public domain: ``k`` buckets named by ``labels`` (plain text), and its public metadata:
    ``title`` (the question, plain text, may be empty), ``lesson`` (the lesson's module name, or empty),
    ``correct`` (the indices of the right bucket(s), may be empty), ``kind`` (one of :data:`KINDS`). A game
    (``kind == "game"``) also has the ``claimed_epsilon`` and ``delta`` its players audit; other kinds have None."""

    exercise: str
    k: int
    labels: tuple[str, ...]
    title: str = ""
    lesson: str = ""
    correct: tuple[int, ...] = ()
    kind: str = "choice"
    claimed_epsilon: float | None = None
    delta: float | None = None


@dataclasses.dataclass(frozen=True)
class GameTotals:
    """A neighbouring-dataset game's pooled record: the sums over every browser's (latest) record of the right
    guesses and rounds in world x and in world x′, ``players`` the number of browsers, and the game's declared
    ``claimed_epsilon``, ``delta``, ``title`` and ``lesson``. After :meth:`ClassStore.end_class`, the totals at the
    end (the browsers' records are deleted)."""

    exercise: str
    players: int
    correct_on_x: int
    rounds_on_x: int
    correct_on_x_prime: int
    rounds_on_x_prime: int
    claimed_epsilon: float
    delta: float
    title: str
    lesson: str


@dataclasses.dataclass(frozen=True)
class Tally:
    """The raw count per bucket of an exercise (for the release code only; never sent to a student).

    ``counts[i]`` is the number of browsers whose current answer is bucket i, ``total`` their sum, ``privacy`` the
    mode the answers were submitted in (``None`` while there are none): in ``local`` mode the buckets are k-RR
    reports, to be debiased; in ``central`` mode they are true answers, to be released with noise."""

    exercise: str
    counts: tuple[int, ...]
    total: int
    privacy: str | None


@dataclasses.dataclass(frozen=True)
class Release:
    """One stored release: ``seq`` orders every release of the class; ``epsilon`` is what it charged the class's
    budget (0 for a release that costs nothing more, e.g. a local one); ``counts`` the released histogram,
    ``total`` the released number of answers, ``meta`` any further plain values the view shows (e.g. the
    interval's half-width); ``released`` the time (seconds since the epoch)."""

    seq: int
    exercise: str
    epsilon: float
    counts: tuple[float, ...]
    total: int
    meta: dict
    released: float


@dataclasses.dataclass(frozen=True)
class Charge:
    """One entry of the class's privacy ledger: the release ``seq`` of ``exercise`` charged ``epsilon``."""

    seq: int
    exercise: str
    epsilon: float


class SubmitOutcome:
    """What :meth:`ClassStore.submit` did: ``STORED`` (a first answer), ``REPLACED`` (the browser's earlier
    answer to the exercise replaced) or ``DUPLICATE`` (a retry of a submission id already stored: nothing changed)."""

    STORED = "stored"
    REPLACED = "replaced"
    DUPLICATE = "duplicate"


def _fail(name: str, value, allowed: str) -> ValueError:
    shown = repr(value)
    if len(shown) > 80:
        shown = shown[:77] + "..."
    return ValueError(f"{name} = {shown} is not allowed: must be {allowed}.")


def _identifier(value, name: str, pattern: re.Pattern, allowed: str) -> str:
    if not isinstance(value, str) or pattern.fullmatch(value) is None:
        raise _fail(name, value, allowed)
    return value


def _exercise(value, name: str = "exercise") -> str:
    return _identifier(value, name, EXERCISE_PATTERN,
                       "a string of 1 to 64 letters, digits, '_', '-' or '.', starting with a letter or digit")


def _browser(value) -> str:
    return _identifier(value, "browser", BROWSER_PATTERN, "an opaque token of 16 to 128 letters, digits, '_' or '-'")


def _submission(value) -> str:
    return _identifier(value, "submission_id", SUBMISSION_PATTERN,
                       "a token of 8 to 64 letters, digits, '_' or '-'")


def _privacy(value) -> str:
    if not isinstance(value, str) or value not in PRIVACY_MODES:
        raise _fail("privacy", value, "'local' or 'central'")
    return value


def _integer(value, name: str, low: int, high: int) -> int:
    """An int (not a bool, not a float) in [low, high]."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise _fail(name, value, f"an integer in [{low}, {high}]")
    return value


def _labels(labels, k: int) -> tuple[str, ...]:
    if isinstance(labels, (str, bytes)) or not isinstance(labels, Sequence):
        raise _fail("labels", labels, f"a sequence of {k} strings")
    if len(labels) != k:
        raise ValueError(f"labels has {len(labels)} entries, which is not allowed: must hold one per bucket, {k}.")
    out = []
    for i, label in enumerate(labels):
        if not isinstance(label, str) or not 1 <= len(label) <= MAX_LABEL or _CONTROL.search(label) \
                or not label.strip():
            raise _fail(f"labels[{i}]", label, f"one line of plain text, 1 to {MAX_LABEL} characters, not blank")
        out.append(label)
    if len(set(out)) != len(out):
        raise _fail("labels", tuple(out), "distinct")
    return tuple(out)


def _counts(counts, k: int) -> tuple[float, ...]:
    if isinstance(counts, (str, bytes)) or not isinstance(counts, Sequence) or len(counts) != k:
        raise _fail("counts", counts, f"a sequence of {k} finite numbers, one per bucket")
    out = []
    for i, c in enumerate(counts):
        if isinstance(c, bool) or not isinstance(c, (int, float)) or not math.isfinite(c) \
                or abs(c) > 1e12:
            raise _fail(f"counts[{i}]", c, "a finite number of magnitude at most 1e12")
        out.append(c)
    return tuple(out)


def _meta(meta) -> str:
    if meta is None:
        meta = {}
    if not isinstance(meta, Mapping) or not all(isinstance(key, str) for key in meta):
        raise _fail("meta", meta, "a mapping from strings to plain JSON values")
    try:
        text = json.dumps(dict(meta), allow_nan=False, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        raise _fail("meta", meta, "a mapping from strings to plain JSON values (finite numbers, strings, "
                                  "booleans, None, lists and mappings of them)") from None
    if len(text) > MAX_META:
        raise ValueError(f"meta is {len(text)} characters as JSON, which is not allowed: must be at most {MAX_META}.")
    return text


def _title(value) -> str:
    if not isinstance(value, str) or len(value) > MAX_TITLE or _CONTROL.search(value):
        raise _fail("title", value, f"one line of plain text, at most {MAX_TITLE} characters (may be empty)")
    return value


def _lesson(value) -> str:
    if value == "":
        return value
    return _identifier(value, "lesson", EXERCISE_PATTERN, "empty or a lesson's name: 1 to 64 letters, digits, "
                                                          "'_', '-' or '.', starting with a letter or digit")


def _kind(value) -> str:
    if not isinstance(value, str) or value not in KINDS:
        raise _fail("kind", value, "one of " + ", ".join(repr(k) for k in KINDS))
    return value


def _correct(value, k: int) -> tuple[int, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise _fail("correct", value, f"a sequence of distinct bucket indices in [0, {k})")
    out = tuple(_integer(c, f"correct[{i}]", 0, k - 1) for i, c in enumerate(value))
    if len(set(out)) != len(out):
        raise _fail("correct", out, "distinct bucket indices")
    return out


def _number(value, name: str, low: float, high: float, *, open_high: bool = False) -> float:
    """A finite int or float (not a bool) in [low, high] (or [low, high) if ``open_high``)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or not low <= value <= high or (open_high and value == high):
        raise _fail(name, value, f"a finite number in [{low:g}, {high:g}{')' if open_high else ']'}")
    return float(value)


def _game_counts(counts) -> tuple[int, int, int, int]:
    names = ("correct_on_x", "rounds_on_x", "correct_on_x_prime", "rounds_on_x_prime")
    if isinstance(counts, (str, bytes)) or not isinstance(counts, Sequence) or len(counts) != 4:
        raise _fail("counts", counts, "a sequence of 4 integers (" + ", ".join(names) + ")")
    out = tuple(_integer(c, f"counts[{i}] ({names[i]})", 0, MAX_GAME_ROUNDS) for i, c in enumerate(counts))
    for i in (0, 2):
        if out[i] > out[i + 1]:
            raise _fail(f"counts[{i}] ({names[i]})", out[i], f"at most counts[{i + 1}] ({names[i + 1]}) = "
                                                             f"{out[i + 1]}: no more right guesses than rounds")
    return out  # type: ignore[return-value]


def _epsilon(value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or not 0 <= value <= 1000:
        raise _fail("epsilon", value, "a finite number in [0, 1000] (the ε this release charges the class)")
    return float(value)


def default_class_dir(name: str) -> Path:
    """The folder of class ``name`` under the user's data directory (created by :class:`ClassStore`, not here).

    Linux and other Unix: ``$XDG_DATA_HOME/dpviz/classes/<name>`` when ``XDG_DATA_HOME`` is set to an absolute path
    (the XDG Base Directory specification ignores a relative one), else ``~/.local/share/dpviz/classes/<name>``.
    macOS: ``~/Library/Application Support/dpviz/classes/<name>``. Windows: ``%LOCALAPPDATA%\\dpviz\\classes\\<name>``
    (the answers stay on this machine: not the roaming profile). ``name`` is checked like an exercise key, so it is
    one path component (no ``/``, no ``..``).

    >>> default_class_dir("week-3").parts[-3:]
    ('dpviz', 'classes', 'week-3')
    """
    name = _exercise(name, "name")
    if sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    elif sys.platform == "win32":
        local = os.environ.get("LOCALAPPDATA", "")
        base = Path(local) if local and Path(local).is_absolute() else Path.home() / "AppData" / "Local"
    else:
        xdg = os.environ.get("XDG_DATA_HOME", "")
        base = Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".local" / "share"
    return base / "dpviz" / "classes" / name


class ClassStore:
    """One class's answers, domains and releases, in ``<path>/class.sqlite3`` (see the module docstring).

    ``path`` is the class's folder (created, private to the user, if missing; :func:`default_class_dir` gives the
    usual one). The schema is created if missing, in one transaction, and checked against :data:`SCHEMA_VERSION`.
    ``synchronous`` is ``"FULL"`` (the default: every acknowledged submission survives a power cut) or ``"NORMAL"``
    (survives the server dying, not the machine). ``rate_limit`` submissions per ``rate_window`` seconds per
    browser; ``busy_timeout`` seconds a writer waits for another process's transaction; ``clock`` gives the time in
    seconds since the epoch (tests pass a fake one).

    One connection, used from one thread (the server's event loop). Several processes may each open their own
    :class:`ClassStore` on the same folder: SQLite serialises their transactions. Close it with :meth:`close` (or use
    it as a context manager).
    """

    def __init__(self, path, *, synchronous: str = "FULL", rate_limit: int = 30, rate_window: float = 60.0,
                 busy_timeout: float = 10.0, clock: Callable[[], float] = time.time):
        if synchronous not in ("FULL", "NORMAL"):
            raise _fail("synchronous", synchronous, "'FULL' or 'NORMAL'")
        self._rate_limit = _integer(rate_limit, "rate_limit", 1, 10_000)
        if isinstance(rate_window, bool) or not isinstance(rate_window, (int, float)) \
                or not 0 < rate_window <= 86_400:
            raise _fail("rate_window", rate_window, "a number of seconds in (0, 86400]")
        self._rate_window = float(rate_window)
        if isinstance(busy_timeout, bool) or not isinstance(busy_timeout, (int, float)) \
                or not 0 <= busy_timeout <= 600:
            raise _fail("busy_timeout", busy_timeout, "a number of seconds in [0, 600]")
        self._clock = clock
        self.directory = Path(path)
        self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.path = self.directory / FILENAME
        fresh = not self.path.exists()
        # isolation_level=None: no implicit transactions; every write below opens its own BEGIN IMMEDIATE.
        self._db = sqlite3.connect(self.path, timeout=busy_timeout, isolation_level=None)
        if fresh:
            os.chmod(self.path, 0o600)  # the WAL and shared-memory files take the database file's permissions
        try:
            self._db.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
            mode = self._db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if mode.lower() != "wal":
                raise OSError(f"{self.path}: SQLite could not switch to WAL mode (got {mode!r}); is it on a "
                              "network file system?")
            self._db.execute(f"PRAGMA synchronous = {synchronous}")
            self._db.execute("PRAGMA secure_delete = ON")
            self._db.execute("PRAGMA foreign_keys = ON")
            self._create_schema()
            self._key = bytes.fromhex(self._meta_value("browser_key"))
        except BaseException:
            self._db.close()
            raise

    # ---------------------------------------------------------------------------------------------- the file

    def _create_schema(self) -> None:
        with self._transaction() as db:
            for statement in _SCHEMA.split(";"):  # one by one: executescript would commit first
                if statement.strip():
                    db.execute(statement)
            db.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
            db.execute("INSERT OR IGNORE INTO meta VALUES ('browser_key', ?)", (secrets.token_hex(32),))
            db.execute("INSERT OR IGNORE INTO meta VALUES ('created', ?)", (repr(self._clock()),))
            version = int(db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0])
        if version != SCHEMA_VERSION:
            raise OSError(f"{self.path} has schema version {version}; this dpviz reads version {SCHEMA_VERSION}. "
                          "Use the dpviz that wrote it, or a new --class-dir.")

    def _transaction(self, write: bool = True):
        return _Transaction(self._db, "BEGIN IMMEDIATE" if write else "BEGIN")

    def _meta_value(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]

    @property
    def journal_mode(self) -> str:
        """The file's journal mode as SQLite reports it (``"wal"``)."""
        return self._db.execute("PRAGMA journal_mode").fetchone()[0]

    @property
    def synchronous(self) -> str:
        """``"FULL"`` or ``"NORMAL"``, as SQLite reports it."""
        return {2: "FULL", 1: "NORMAL"}.get(self._db.execute("PRAGMA synchronous").fetchone()[0], "OTHER")

    def close(self) -> None:
        """Close the connection (committed data is in the file already)."""
        self._db.close()

    def __enter__(self) -> ClassStore:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ------------------------------------------------------------------------------------------- the domains

    _DOMAIN_COLUMNS = "exercise, k, labels, title, lesson, correct, kind, claimed_epsilon, delta"

    @staticmethod
    def _domain_of(row) -> Domain:
        exercise, k, labels, title, lesson, correct, kind, claimed_epsilon, delta = row
        return Domain(exercise, k, tuple(json.loads(labels)), title, lesson, tuple(json.loads(correct)), kind,
                      claimed_epsilon, delta)

    def _stored_domain(self, db, exercise: str) -> Domain | None:
        row = db.execute(f"SELECT {self._DOMAIN_COLUMNS} FROM exercises WHERE exercise = ?", (exercise,)).fetchone()
        return None if row is None else self._domain_of(row)

    @staticmethod
    def _refuse_if_differs(stored: Domain, new: Domain) -> None:
        def shown(d: Domain) -> str:
            text = f"k = {d.k} and labels {d.labels!r}"
            if d.kind == "game" or d.claimed_epsilon is not None:
                text += f", claimed ε = {d.claimed_epsilon!r} and δ = {d.delta!r}"
            return text

        if (stored.k, stored.labels, stored.claimed_epsilon, stored.delta) != \
                (new.k, new.labels, new.claimed_epsilon, new.delta):
            raise DomainDiffers(f"exercise = {stored.exercise!r} is already declared with {shown(stored)}: a second "
                                f"declaration with {shown(new)} is refused (its answers were checked against the "
                                "first).")

    def _insert_domain(self, db, domain: Domain) -> None:
        (declared,) = db.execute("SELECT COUNT(*) FROM exercises").fetchone()
        if declared >= MAX_EXERCISES:
            raise ValueError(f"exercise = {domain.exercise!r} is not allowed: the class has {declared} exercises "
                             f"declared, the most it may hold ({MAX_EXERCISES}).")
        db.execute(f"INSERT INTO exercises ({self._DOMAIN_COLUMNS}, declared) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   (domain.exercise, domain.k, json.dumps(domain.labels, ensure_ascii=False), domain.title,
                    domain.lesson, json.dumps(domain.correct), domain.kind, domain.claimed_epsilon, domain.delta,
                    self._clock()))

    def declare(self, exercise: str, k: int, labels: Sequence[str], *, title: str = "", lesson: str = "",
                correct: Sequence[int] = (), kind: str = "choice", claimed_epsilon: float | None = None,
                delta: float | None = None) -> Domain:
        """Record ``exercise``'s public domain: ``k`` buckets (2 ≤ k ≤ :data:`MAX_BUCKETS`) named by ``labels``
        (distinct one-line plain text, kept as given: the view escapes it), and its public metadata: ``title`` (the
        question: one line of plain text, at most :data:`MAX_TITLE` characters, may be empty), ``lesson`` (empty, or
        the lesson's name, checked like an exercise key), ``correct`` (distinct bucket indices in [0, k) of the
        right answer(s), may be empty) and ``kind`` (one of :data:`KINDS`). A ``"game"`` also takes the
        ``claimed_epsilon`` (finite, in [0, 1000]) and ``delta`` (in [0, 1)) its players audit; other kinds take
        neither. (:meth:`submit_game` declares its game itself.)

        Idempotent: declaring the same domain again returns the stored one; the metadata of the first declaration
        is kept. A different k or labels (or, for a game, claimed ε or δ) for a declared exercise is refused with
        :class:`DomainDiffers` naming the exercise: its answers were checked against the first. A malformed field is
        a ValueError naming it. Allowed after the class has ended (a restarted server declares its lessons'
        exercises again)."""
        domain = self._checked_domain(exercise, k, labels, title=title, lesson=lesson, correct=correct, kind=kind,
                                      claimed_epsilon=claimed_epsilon, delta=delta)
        with self._transaction() as db:
            stored = self._stored_domain(db, domain.exercise)
            if stored is None:
                self._insert_domain(db, domain)
                return domain
            self._refuse_if_differs(stored, domain)
            return stored

    @staticmethod
    def _checked_domain(exercise, k, labels, *, title, lesson, correct, kind, claimed_epsilon, delta) -> Domain:
        exercise = _exercise(exercise)
        k = _integer(k, "k", 2, MAX_BUCKETS)
        labels = _labels(labels, k)
        title = _title(title)
        lesson = _lesson(lesson)
        correct = _correct(correct, k)
        kind = _kind(kind)
        if kind == "game":
            claimed_epsilon = _number(claimed_epsilon, "claimed_epsilon", 0, 1000)
            delta = _number(delta, "delta", 0, 1, open_high=True)
        else:
            for name, value in (("claimed_epsilon", claimed_epsilon), ("delta", delta)):
                if value is not None:
                    raise _fail(name, value, f"None for an exercise of kind {kind!r} (only a game has one)")
        return Domain(exercise, k, labels, title, lesson, correct, kind, claimed_epsilon, delta)

    def domain(self, exercise: str) -> Domain:
        """``exercise``'s declared domain (ValueError naming the exercise if it was never declared)."""
        exercise = _exercise(exercise)
        domain = self._stored_domain(self._db, exercise)
        if domain is None:
            raise _fail("exercise", exercise, "a declared exercise")
        return domain

    def exercises(self) -> tuple[Domain, ...]:
        """Every declared exercise's domain (games too: ``kind == "game"``), in the order they were declared."""
        rows = self._db.execute(f"SELECT {self._DOMAIN_COLUMNS} FROM exercises ORDER BY declared, exercise")
        return tuple(self._domain_of(row) for row in rows.fetchall())

    # ------------------------------------------------------------------------------------------- the answers

    @property
    def ended(self) -> bool:
        """Whether :meth:`end_class` has run on this file (by this or any process)."""
        return self._meta_value("ended") is not None

    def _refuse_if_ended(self, db) -> None:
        if db.execute("SELECT 1 FROM meta WHERE key = 'ended'").fetchone() is not None:
            raise ClassEnded("The class has ended: its answers were deleted and no more are taken. The released "
                             "histograms are kept.")

    def _browser_key(self, browser: str) -> bytes:
        return hmac.new(self._key, browser.encode("ascii"), hashlib.sha256).digest()

    def _is_retry(self, db, who: bytes, submission_id: str) -> bool:
        return db.execute("SELECT 1 FROM submissions WHERE browser = ? AND submission = ?",
                          (who, submission_id)).fetchone() is not None

    def _refuse_if_flooding(self, db, who: bytes, now: float) -> None:
        (recent,) = db.execute("SELECT COUNT(*) FROM submissions WHERE browser = ? AND received > ?",
                               (who, now - self._rate_window)).fetchone()
        if recent >= self._rate_limit:
            raise RateLimited(f"This browser sent {recent} answers in the last {self._rate_window:g} s, the most "
                              f"it may ({self._rate_limit}); try again in a minute.")

    def submit(self, exercise: str, browser: str, bucket: int, submission_id: str, *, privacy: str) -> str:
        """Store ``browser``'s answer ``bucket`` to ``exercise``, in one transaction; return a :class:`SubmitOutcome`.

        ``bucket`` is an int in [0, k) for the exercise's declared k; ``privacy`` is ``"local"`` (the bucket is a
        k-RR report made by the student's kernel) or ``"central"`` (the raw bucket). An exercise's answers are all
        in one mode: a submission in the other is refused (ValueError naming ``privacy``), so no tally mixes
        reports with raw answers. One answer per exercise per browser: a later submission replaces the earlier
        (``REPLACED``). A ``submission_id`` this browser already submitted is a retry: nothing changes
        (``DUPLICATE``), whatever it carries, and it is not counted against the rate.

        Raises ValueError naming the field for a malformed one (or an undeclared exercise),
        :class:`RateLimited` beyond ``rate_limit`` new submissions per window, :class:`ClassEnded` after
        :meth:`end_class`."""
        exercise = _exercise(exercise)
        browser = _browser(browser)
        submission_id = _submission(submission_id)
        privacy = _privacy(privacy)
        if isinstance(bucket, bool) or not isinstance(bucket, int):
            raise _fail("bucket", bucket, "an integer bucket index")
        who = self._browser_key(browser)
        with self._transaction() as db:
            self._refuse_if_ended(db)
            row = db.execute("SELECT k, kind FROM exercises WHERE exercise = ?", (exercise,)).fetchone()
            if row is None:
                raise _fail("exercise", exercise, "a declared exercise")
            k, kind = row
            if kind == "game":
                raise _fail("exercise", exercise, "an exercise that takes a bucket, not a game (see submit_game)")
            if not 0 <= bucket < k:
                raise _fail("bucket", bucket, f"an integer in [0, {k}) for exercise {exercise!r} (k = {k})")
            if self._is_retry(db, who, submission_id):
                return SubmitOutcome.DUPLICATE
            now = self._clock()
            self._refuse_if_flooding(db, who, now)
            other = db.execute("SELECT privacy FROM answers WHERE exercise = ? AND privacy != ? LIMIT 1",
                               (exercise, privacy)).fetchone()
            if other is not None:
                raise _fail("privacy", privacy, f"{other[0]!r}, the mode of exercise {exercise!r}'s other answers")
            previous = db.execute("SELECT 1 FROM answers WHERE exercise = ? AND browser = ?",
                                  (exercise, who)).fetchone()
            if previous is None:
                (answers,) = db.execute("SELECT COUNT(*) FROM answers WHERE exercise = ?", (exercise,)).fetchone()
                if answers >= MAX_ANSWERS:
                    raise RateLimited(f"Exercise {exercise!r} holds {answers} answers, the most it may.")
            db.execute("INSERT INTO submissions VALUES (?, ?, ?, ?)", (who, submission_id, exercise, now))
            db.execute("INSERT INTO answers VALUES (?, ?, ?, ?, ?) ON CONFLICT (exercise, browser) DO UPDATE SET "
                       "bucket = excluded.bucket, privacy = excluded.privacy, received = excluded.received",
                       (exercise, who, bucket, privacy, now))
        return SubmitOutcome.STORED if previous is None else SubmitOutcome.REPLACED

    def tally(self, exercise: str) -> Tally:
        """The raw count per bucket of ``exercise``'s current answers.

        **For the server's release code only**: it is never sent to a student and never shown as it is (in
        central mode it is the class's true answers; in local mode the undebiased reports). Raises
        :class:`ClassEnded` after :meth:`end_class` (the answers are gone; the releases remain)."""
        exercise = _exercise(exercise)
        with self._transaction(write=False):  # one snapshot: the counts and the mode agree
            self._refuse_if_ended(self._db)
            k = self.domain(exercise).k
            counts = [0] * k
            rows = self._db.execute("SELECT bucket, COUNT(*) FROM answers WHERE exercise = ? GROUP BY bucket",
                                    (exercise,)).fetchall()
            for bucket, n in rows:
                counts[bucket] = n
            mode = self._db.execute("SELECT privacy FROM answers WHERE exercise = ? LIMIT 1", (exercise,)).fetchone()
        return Tally(exercise, tuple(counts), sum(counts), None if mode is None else mode[0])

    # ------------------------------------------------------------------------------------------- the games

    def submit_game(self, exercise: str, browser: str, counts: Sequence[int], submission_id: str, *,
                    claimed_epsilon: float, delta: float, title: str = "", lesson: str = "") -> str:
        """Store ``browser``'s record of the neighbouring-dataset game ``exercise``, in one transaction; return a
        :class:`SubmitOutcome`.

        ``counts`` is ``(correct_on_x, rounds_on_x, correct_on_x_prime, rounds_on_x_prime)``: integers with
        0 ≤ correct ≤ rounds ≤ :data:`MAX_GAME_ROUNDS` in each world. ``claimed_epsilon`` (finite, in [0, 1000]) and
        ``delta`` (in [0, 1)) are the guarantee the game audits, part of its domain. The first submission to a game
        key declares it (kind ``"game"``, k = 2 buckets :data:`GAME_LABELS`, with ``title`` and ``lesson``; the
        first declaration's title and lesson are kept); a later one with another claimed ε or δ, or to a key
        declared as another kind of exercise, is refused with :class:`DomainDiffers`. One record per game per
        browser: a later submission replaces it (``REPLACED``: the browser's page sends its running totals). The
        submission id, the retries and the rate are as in :meth:`submit` (one count for both).

        Raises ValueError naming a malformed field, :class:`RateLimited`, :class:`ClassEnded` after
        :meth:`end_class`."""
        browser = _browser(browser)
        submission_id = _submission(submission_id)
        counts = _game_counts(counts)
        domain = self._checked_domain(exercise, 2, GAME_LABELS, title=title, lesson=lesson, correct=(),
                                      kind="game", claimed_epsilon=claimed_epsilon, delta=delta)
        exercise = domain.exercise
        who = self._browser_key(browser)
        with self._transaction() as db:
            self._refuse_if_ended(db)
            stored = self._stored_domain(db, exercise)
            if stored is not None:
                self._refuse_if_differs(stored, domain)
            if self._is_retry(db, who, submission_id):
                return SubmitOutcome.DUPLICATE
            now = self._clock()
            self._refuse_if_flooding(db, who, now)
            if stored is None:
                self._insert_domain(db, domain)
            previous = db.execute("SELECT 1 FROM games WHERE exercise = ? AND browser = ?",
                                  (exercise, who)).fetchone()
            if previous is None:
                (players,) = db.execute("SELECT COUNT(*) FROM games WHERE exercise = ?", (exercise,)).fetchone()
                if players >= MAX_ANSWERS:
                    raise RateLimited(f"Game {exercise!r} holds {players} players' records, the most it may.")
            db.execute("INSERT INTO submissions VALUES (?, ?, ?, ?)", (who, submission_id, exercise, now))
            db.execute("INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (exercise, browser) DO UPDATE SET "
                       "correct_on_x = excluded.correct_on_x, rounds_on_x = excluded.rounds_on_x, "
                       "correct_on_x_prime = excluded.correct_on_x_prime, "
                       "rounds_on_x_prime = excluded.rounds_on_x_prime, received = excluded.received",
                       (exercise, who, *counts, now))
        return SubmitOutcome.STORED if previous is None else SubmitOutcome.REPLACED

    def game_totals(self, exercise: str) -> GameTotals:
        """The pooled record of game ``exercise``: the sums over every browser's latest record (zeros while there is
        none), with the game's claimed ε, δ, title and lesson. After :meth:`end_class`, the totals at the end (the
        browsers' records are deleted; the sums are kept). ValueError naming the exercise if it is not a declared
        game.

        These sums are what the teacher's view pools into one lower bound on ε (and what each student's panel is
        shown back); no single browser's record is ever returned."""
        exercise = _exercise(exercise)
        with self._transaction(write=False) as db:  # one snapshot: the end and the sums agree
            domain = self._stored_domain(db, exercise)
            if domain is None or domain.kind != "game":
                raise _fail("exercise", exercise, "a declared game (see submit_game)")
            if db.execute("SELECT 1 FROM meta WHERE key = 'ended'").fetchone() is not None:
                row = db.execute("SELECT players, correct_on_x, rounds_on_x, correct_on_x_prime, rounds_on_x_prime "
                                 "FROM game_finals WHERE exercise = ?", (exercise,)).fetchone()
            else:
                row = db.execute("SELECT COUNT(*), SUM(correct_on_x), SUM(rounds_on_x), SUM(correct_on_x_prime), "
                                 "SUM(rounds_on_x_prime) FROM games WHERE exercise = ?", (exercise,)).fetchone()
        players, cx, rx, cxp, rxp = (0, 0, 0, 0, 0) if row is None else (v or 0 for v in row)
        return GameTotals(exercise, players, cx, rx, cxp, rxp, domain.claimed_epsilon, domain.delta, domain.title,
                          domain.lesson)

    # ------------------------------------------------------------------------------------ the teacher's token

    def teacher_token(self) -> str:
        """The teacher's token (``secrets.token_urlsafe(24)``: 32 characters, 192 random bits), made on the first
        call and kept in the file, so the teacher's address survives a server restart; the same on every call, by
        any process sharing the file. The server compares a presented token with it in constant time."""
        with self._transaction() as db:
            db.execute("INSERT OR IGNORE INTO meta VALUES ('teacher_token', ?)", (secrets.token_urlsafe(24),))
            (token,) = db.execute("SELECT value FROM meta WHERE key = 'teacher_token'").fetchone()
        return token

    # ------------------------------------------------------------------------------------------ the releases

    def record_release(self, exercise: str, epsilon: float, counts: Sequence[float], total: int,
                       meta: Mapping | None = None) -> Release:
        """Store one release of ``exercise`` and charge ``epsilon`` to the class's ledger, in one transaction.

        ``epsilon`` is the ε this release costs the class's budget (≥ 0; 0 for a release that costs nothing more,
        such as a local one, whose reports were each randomized already: put their ε in ``meta``). The budget
        check itself (refuse a release that would exceed the class's ε) is the release code's, with dpviz's
        accountant, before it calls this. ``counts`` are the k released (noisy or debiased) counts, ``total`` the
        released number of answers, ``meta`` a mapping of plain JSON values (at most :data:`MAX_META` characters),
        kept as text. Refused with :class:`ClassEnded` after :meth:`end_class` (there is nothing left to
        release)."""
        exercise = _exercise(exercise)
        epsilon = _epsilon(epsilon)
        total = _integer(total, "total", 0, MAX_ANSWERS)
        meta_text = _meta(meta)
        with self._transaction() as db:
            self._refuse_if_ended(db)
            row = db.execute("SELECT k FROM exercises WHERE exercise = ?", (exercise,)).fetchone()
            if row is None:
                raise _fail("exercise", exercise, "a declared exercise")
            counts = _counts(counts, row[0])
            now = self._clock()
            cursor = db.execute("INSERT INTO releases (exercise, epsilon, counts, total, meta, released) "
                                "VALUES (?, ?, ?, ?, ?, ?)",
                                (exercise, epsilon, json.dumps(counts), total, meta_text, now))
            seq = cursor.lastrowid
        return Release(seq, exercise, epsilon, counts, total, json.loads(meta_text), now)

    def releases(self, exercise: str | None = None) -> tuple[Release, ...]:
        """Every stored release of ``exercise`` (of every exercise if None), oldest first; the last is the one the
        view shows."""
        query = "SELECT seq, exercise, epsilon, counts, total, meta, released FROM releases"
        args: tuple = ()
        if exercise is not None:
            query += " WHERE exercise = ?"
            args = (_exercise(exercise),)
        rows = self._db.execute(query + " ORDER BY seq", args).fetchall()
        return tuple(Release(seq, ex, eps, tuple(json.loads(c)), total, json.loads(m), at)
                     for seq, ex, eps, c, total, m, at in rows)

    def spent(self) -> tuple[Charge, ...]:
        """The class's privacy ledger: every ε > 0 a release charged, in the order of the releases. The class's
        budget spent so far is their composition (with pure ε-DP releases, their sum); the release code replays
        them into its accountant after a restart."""
        rows = self._db.execute("SELECT seq, exercise, epsilon FROM releases WHERE epsilon > 0 ORDER BY seq")
        return tuple(Charge(seq, ex, eps) for seq, ex, eps in rows.fetchall())

    # -------------------------------------------------------------------------------------------- the end

    def end_class(self) -> None:
        """End the class: delete every answer, every browser's game record and every submission (the raw buckets)
        and keep the domains, the releases, the ledger and each game's pooled totals (:meth:`game_totals` still
        answers). Idempotent. Afterwards :meth:`submit`, :meth:`submit_game`, :meth:`tally` and
        :meth:`record_release` raise :class:`ClassEnded`.

        The deletion is one transaction with ``secure_delete`` on (the rows' bytes are overwritten), followed by a
        checkpoint that truncates the write-ahead log, so the answers are gone from the files on disk too. (A
        checkpoint cannot pass a reader another process holds open; the log is then truncated by the next
        checkpoint, at the latest when the last connection closes.)"""
        with self._transaction() as db:
            db.execute("INSERT OR REPLACE INTO game_finals SELECT exercise, COUNT(*), SUM(correct_on_x), "
                       "SUM(rounds_on_x), SUM(correct_on_x_prime), SUM(rounds_on_x_prime) FROM games "
                       "GROUP BY exercise")
            db.execute("DELETE FROM answers")
            db.execute("DELETE FROM games")
            db.execute("DELETE FROM submissions")
            db.execute("INSERT OR IGNORE INTO meta VALUES ('ended', ?)", (repr(self._clock()),))
        self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()


class _Transaction:
    """``BEGIN IMMEDIATE`` (a write: the writer lock is taken at once, so a transaction never fails half-way to
    upgrade a read lock while another process writes) or ``BEGIN`` (a read: one snapshot) … ``COMMIT``, or
    ``ROLLBACK`` on any exception."""

    def __init__(self, db: sqlite3.Connection, begin: str):
        self._db, self._begin = db, begin

    def __enter__(self) -> sqlite3.Connection:
        self._db.execute(self._begin)
        return self._db

    def __exit__(self, kind, exc, tb) -> None:
        self._db.execute("COMMIT" if kind is None else "ROLLBACK")

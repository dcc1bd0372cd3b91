"""The class view's store (dpviz.serve.classstore): WAL, nothing lost over a restart, a retry counts once, one answer
per exercise per browser, every field checked by name, a bounded rate, the end of class deletes the answers and
keeps the releases, two processes writing at once lose nothing; the cost of a submission is printed, not asserted.
Also: an exercise's metadata (title, lesson, correct, kind) kept from its first declaration, a changed domain
refused with DomainDiffers, the neighbouring-dataset game's per-browser records and their pooled sums (kept after
the end, the records themselves securely deleted), and the teacher's token kept over a restart."""

import re
import sqlite3
import statistics
import string
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpviz.serve import classstore
from dpviz.serve.classstore import (
    FILENAME,
    GAME_LABELS,
    MAX_GAME_ROUNDS,
    ClassEnded,
    ClassStore,
    DomainDiffers,
    GameTotals,
    RateLimited,
    Refused,
    SubmitOutcome,
    default_class_dir,
)

LABELS = ("yes", "no", "< 10")
B1, B2, B3 = "a" * 32, "b" * 32, "c" * 32  # browser ids (the client cookie is 32 hex digits)


class Clock:
    """A fake clock the test moves by hand."""

    def __init__(self, now=1_000_000.0):
        self.now = now

    def __call__(self):
        return self.now


@pytest.fixture
def store(tmp_path):
    s = ClassStore(tmp_path / "class", clock=Clock())
    s.declare("q1", 3, LABELS)
    yield s
    s.close()


def test_the_file_is_in_wal_mode_with_full_sync(store):
    assert store.journal_mode == "wal"
    assert store.synchronous == "FULL"
    other = sqlite3.connect(store.path)  # the mode is the file's, not only this connection's
    assert other.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert other.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0] == "1"
    other.close()


def test_normal_sync_is_available_and_nothing_else(tmp_path):
    with ClassStore(tmp_path, synchronous="NORMAL") as s:
        assert s.synchronous == "NORMAL"
    with pytest.raises(ValueError, match="synchronous = 'OFF'"):
        ClassStore(tmp_path, synchronous="OFF")


def test_reopening_is_idempotent_and_a_newer_schema_is_refused(tmp_path):
    ClassStore(tmp_path).close()
    ClassStore(tmp_path).close()  # the schema exists already: nothing fails, nothing duplicated
    db = sqlite3.connect(tmp_path / FILENAME)
    assert db.execute("SELECT COUNT(*) FROM meta WHERE key = 'schema_version'").fetchone()[0] == 1
    db.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    db.commit()
    db.close()
    with pytest.raises(OSError, match="schema version 99"):
        ClassStore(tmp_path)


def test_a_restart_keeps_every_submission_and_every_release(tmp_path):
    s = ClassStore(tmp_path / "c")
    s.declare("q1", 3, LABELS)
    s.declare("q2", 2, ["a", "b"])
    for i, browser in enumerate([B1, B2, B3]):
        s.submit("q1", browser, i % 3, f"sub-{i:05d}", privacy="central")
    s.submit("q2", B1, 1, "sub-q2-0001", privacy="local")
    s.record_release("q1", 1.0, [1, 1, 2], 3, {"halfwidth": 5})
    s.record_release("q1", 0.5, [0, 2, 1], 3, None)
    s.record_release("q2", 0.0, [0.25, 0.75], 1, {"report_epsilon": 2.0})
    s.close()  # the server stops

    r = ClassStore(tmp_path / "c")  # and starts again on the same folder
    assert r.tally("q1").counts == (1, 1, 1) and r.tally("q1").privacy == "central"
    assert r.tally("q2").counts == (0, 1) and r.tally("q2").privacy == "local"
    assert [d.exercise for d in r.exercises()] == ["q1", "q2"]
    assert r.domain("q1").labels == LABELS
    got = [(x.exercise, x.epsilon, x.counts, x.total, x.meta) for x in r.releases()]
    assert got == [("q1", 1.0, (1, 1, 2), 3, {"halfwidth": 5}), ("q1", 0.5, (0, 2, 1), 3, {}),
                   ("q2", 0.0, (0.25, 0.75), 1, {"report_epsilon": 2.0})]
    assert [x.seq for x in r.releases("q1")] == [1, 2]
    assert [(c.exercise, c.epsilon) for c in r.spent()] == [("q1", 1.0), ("q1", 0.5)]
    # a retry that arrives after the restart still counts once
    assert r.submit("q1", B1, 2, "sub-00000", privacy="central") == SubmitOutcome.DUPLICATE
    assert r.tally("q1").counts == (1, 1, 1)
    r.close()


def test_a_retry_counts_once(store):
    assert store.submit("q1", B1, 0, "retry-0001", privacy="central") == SubmitOutcome.STORED
    for _ in range(3):
        assert store.submit("q1", B1, 0, "retry-0001", privacy="central") == SubmitOutcome.DUPLICATE
    # a retry carrying something else changes nothing either: the id is what counts
    assert store.submit("q1", B1, 2, "retry-0001", privacy="central") == SubmitOutcome.DUPLICATE
    assert store.tally("q1").counts == (1, 0, 0)
    # another browser may use the same id: ids are per browser, so no one can block another's submission
    assert store.submit("q1", B2, 1, "retry-0001", privacy="central") == SubmitOutcome.STORED
    assert store.tally("q1").counts == (1, 1, 0)


def test_a_later_answer_replaces_the_earlier(store):
    store.submit("q1", B1, 0, "first-0001", privacy="central")
    store.submit("q1", B2, 0, "first-0002", privacy="central")
    assert store.submit("q1", B1, 2, "second-001", privacy="central") == SubmitOutcome.REPLACED
    t = store.tally("q1")
    assert (t.counts, t.total) == ((1, 0, 1), 2)
    store.declare("q2", 2, ["a", "b"])
    store.submit("q2", B1, 1, "other-0001", privacy="central")  # another exercise: another answer
    assert store.tally("q1").counts == (1, 0, 1) and store.tally("q2").counts == (0, 1)


def test_an_exercise_keeps_one_privacy_mode(store):
    store.submit("q1", B1, 0, "mode-00001", privacy="local")
    with pytest.raises(ValueError, match="privacy = 'central' is not allowed: must be 'local'"):
        store.submit("q1", B2, 0, "mode-00002", privacy="central")
    assert store.tally("q1").counts == (1, 0, 0)


def test_the_browser_id_is_not_stored(store):
    store.submit("q1", B1, 0, "hidden-001", privacy="central")
    store.close()
    raw = b"".join(p.read_bytes() for p in store.directory.iterdir() if p.name.startswith(FILENAME))
    assert b"hidden-001" in raw  # the search can find what is there
    assert B1.encode() not in raw


GOOD = {"exercise": "q1", "browser": B1, "bucket": 1, "submission_id": "good-0001", "privacy": "central"}
BAD_FIELDS = [
    ("exercise", ""), ("exercise", "-q1"), ("exercise", "q1\n"), ("exercise", "<b>q</b>"), ("exercise", "x" * 65),
    ("exercise", "q 1"), ("exercise", 7), ("exercise", "q9"),  # well-formed but never declared
    ("browser", "short"), ("browser", "a" * 129), ("browser", "a" * 31 + "/"), ("browser", None),
    ("browser", "a" * 31 + "é"),
    ("bucket", -1), ("bucket", 3), ("bucket", 1.0), ("bucket", True), ("bucket", "1"), ("bucket", None),
    ("submission_id", "1234567"), ("submission_id", "x" * 65), ("submission_id", "abc def gh"),
    ("submission_id", b"abcdefgh"),
    ("privacy", "global"), ("privacy", "Local"), ("privacy", None),
]


@pytest.mark.parametrize(("field", "value"), BAD_FIELDS, ids=[f"{f}={v!r}"[:40] for f, v in BAD_FIELDS])
def test_submit_refuses_each_bad_field_by_name(store, field, value):
    args = dict(GOOD, **{field: value})
    privacy = args.pop("privacy")
    with pytest.raises(ValueError, match=rf"^{field} = .* is not allowed: must be"):
        store.submit(**args, privacy=privacy)
    assert store.tally("q1").total == 0


def test_the_good_submission_of_the_table_is_accepted(store):
    args = dict(GOOD)
    privacy = args.pop("privacy")
    assert store.submit(**args, privacy=privacy) == SubmitOutcome.STORED


BAD_DECLARATIONS = [
    ({"exercise": "no/slash"}, "exercise"), ({"k": 1, "labels": ["a"]}, "k"), ({"k": 101}, "k"),
    ({"k": 2.0}, "k"), ({"labels": ["a", "b"]}, "labels"), ({"labels": "abc"}, "labels"),
    ({"labels": ["a", "a", "b"]}, "labels"), ({"labels": ["a", "", "b"]}, r"labels\[1\]"),
    ({"labels": ["a", "b\nc", "d"]}, r"labels\[1\]"), ({"labels": ["a", "   ", "d"]}, r"labels\[1\]"),
    ({"labels": ["a", "b", 3]}, r"labels\[2\]"), ({"labels": ["a", "b", "x" * 201]}, r"labels\[2\]"),
]


@pytest.mark.parametrize(("change", "field"), BAD_DECLARATIONS, ids=[f for _, f in BAD_DECLARATIONS])
def test_declare_refuses_each_bad_field_by_name(tmp_path, change, field):
    args = {"exercise": "q1", "k": 3, "labels": ["a", "b", "c"]} | change
    if "k" in change and "labels" not in change and isinstance(change["k"], int) and change["k"] > 3:
        args["labels"] = [str(i) for i in range(change["k"])]
    with ClassStore(tmp_path) as s, pytest.raises(ValueError, match=rf"^{field}"):
        s.declare(**args)


def test_a_second_declaration_must_match_the_first(store):
    assert store.declare("q1", 3, list(LABELS)).labels == LABELS  # the same domain again: nothing happens
    with pytest.raises(DomainDiffers, match="exercise = 'q1' is already declared with k = 3"):
        store.declare("q1", 2, ["yes", "no"])
    with pytest.raises(DomainDiffers, match="exercise = 'q1' is already declared") as caught:
        store.declare("q1", 3, ["yes", "no", "maybe"])  # the same k, changed labels
    assert isinstance(caught.value, Refused) and not isinstance(caught.value, ValueError)  # HTTP 409, not 400
    assert store.domain("q1").labels == LABELS


def test_an_exercise_keeps_the_metadata_of_its_first_declaration(tmp_path):
    with ClassStore(tmp_path) as s:
        first = s.declare("Quiz.q", 3, LABELS, title="Which is <b>right</b>?", lesson="why_privacy", correct=[2, 0],
                          kind="predict")
        assert (first.title, first.lesson, first.correct, first.kind) == \
            ("Which is <b>right</b>?", "why_privacy", (2, 0), "predict")
        assert (first.claimed_epsilon, first.delta) == (None, None)
        again = s.declare("Quiz.q", 3, LABELS, title="Other", lesson="other", correct=(1,), kind="choice")
        assert again == first  # the same domain: the stored one, with the first declaration's metadata
        plain = s.declare("Quiz.plain", 2, ["a", "b"])
        assert (plain.title, plain.lesson, plain.correct, plain.kind) == ("", "", (), "choice")
    with ClassStore(tmp_path) as r:  # kept over a restart
        assert r.domain("Quiz.q") == first
        assert r.exercises() == (first, plain)


BAD_METADATA = [
    ({"title": "x" * 301}, "title"), ({"title": "two\nlines"}, "title"), ({"title": "tab\there"}, "title"),
    ({"title": None}, "title"), ({"title": "a\u2028b"}, "title"),
    ({"lesson": "a/b"}, "lesson"), ({"lesson": " why"}, "lesson"), ({"lesson": "x" * 65}, "lesson"),
    ({"lesson": None}, "lesson"),
    ({"correct": [3]}, r"correct\[0\]"), ({"correct": [0, -1]}, r"correct\[1\]"), ({"correct": [0, 0]}, "correct"),
    ({"correct": [True]}, r"correct\[0\]"), ({"correct": [1.0]}, r"correct\[0\]"), ({"correct": "0"}, "correct"),
    ({"correct": 1}, "correct"),
    ({"kind": "quiz"}, "kind"), ({"kind": "Game"}, "kind"), ({"kind": None}, "kind"),
    ({"claimed_epsilon": 1.0}, "claimed_epsilon"), ({"delta": 0.0}, "delta"),  # only a game has them
    ({"kind": "game"}, "claimed_epsilon"), ({"kind": "game", "claimed_epsilon": 1.0}, "delta"),
]


@pytest.mark.parametrize(("change", "field"), BAD_METADATA, ids=[f"{f}:{c}"[:40] for c, f in BAD_METADATA])
def test_declare_refuses_each_bad_metadata_field_by_name(tmp_path, change, field):
    with ClassStore(tmp_path) as s:
        with pytest.raises(ValueError, match=rf"^{field} = .* is not allowed: must be"):
            s.declare("q1", 3, LABELS, **change)
        assert s.exercises() == ()  # nothing declared
        s.declare("q1", 3, LABELS, title="x" * 300, lesson="why_privacy", correct=(0, 2), kind="choice")


_TITLE_ALPHABET = st.sampled_from(list("ab <>&é\n\t\r\x00\x1f\x7f\x85\x9f\xa0\u2028\u2029\u2027"))


def _title_oracle(s):
    return len(s) <= 300 and not any(ord(c) < 0x20 or 0x7f <= ord(c) <= 0x9f or c in "\u2028\u2029" for c in s)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(_TITLE_ALPHABET, max_size=310), st.text(max_size=40),
                 st.integers(290, 310).map(lambda n: "q" * n)))
def test_titles_and_lessons_are_accepted_exactly_as_documented(s):
    assert _accepts(classstore._title, s) == _title_oracle(s)
    assert _accepts(classstore._lesson, s) == (s == "" or _exercise_oracle(s))


def test_labels_are_kept_as_plain_text(store):
    store.declare("html", 2, ["<script>alert(1)</script>", "a & b"])
    assert store.domain("html").labels == ("<script>alert(1)</script>", "a & b")  # not escaped here: the view does


BAD_RELEASES = [
    ({"exercise": "q9"}, "exercise"), ({"epsilon": -0.1}, "epsilon"), ({"epsilon": float("nan")}, "epsilon"),
    ({"epsilon": float("inf")}, "epsilon"), ({"counts": [1, 2]}, "counts"), ({"counts": [1, 2, float("nan")]},
                                                                                r"counts\[2\]"),
    ({"counts": [1, 2, "3"]}, r"counts\[2\]"), ({"total": -1}, "total"), ({"total": 2.5}, "total"),
    ({"meta": {"x": object()}}, "meta"), ({"meta": {1: "a"}}, "meta"), ({"meta": {"x": float("nan")}}, "meta"),
    ({"meta": {"x": "y" * 9000}}, "meta"),
]


@pytest.mark.parametrize(("change", "field"), BAD_RELEASES, ids=[f for _, f in BAD_RELEASES])
def test_record_release_refuses_each_bad_field_by_name(store, change, field):
    args = {"exercise": "q1", "epsilon": 1.0, "counts": [1, -2, 3], "total": 2, "meta": {"a": [1, "b"]}} | change
    with pytest.raises(ValueError, match=rf"^{field}"):
        store.record_release(**args)
    assert store.releases() == ()
    store.record_release("q1", 1.0, [1, -2, 3], 2, {"a": [1, "b"]})  # the table's good release is accepted
    assert store.releases()[0].counts == (1, -2, 3)


# ---- the identifiers, as a property: accepted exactly when the pattern's plain-words reading says so ------------

_WORD = set(string.ascii_letters + string.digits)


def _exercise_oracle(s):
    return 1 <= len(s) <= 64 and s[0] in _WORD and all(c in _WORD | set("_-.") for c in s)


def _token_oracle(s, low, high):
    return low <= len(s) <= high and all(c in _WORD | set("_-") for c in s)


_ALPHABET = st.sampled_from(list(string.ascii_letters + string.digits + "_-./\\ <>&\"'\n\t\x00é\u2028"))
_TEXT = st.one_of(st.text(_ALPHABET, max_size=140), st.text(max_size=140))


def _accepts(check, value):
    try:
        assert check(value) == value
        return True
    except ValueError:
        return False


@settings(max_examples=300, deadline=None)
@given(_TEXT)
def test_identifiers_are_accepted_exactly_as_documented(s):
    assert _accepts(classstore._exercise, s) == _exercise_oracle(s)
    assert _accepts(classstore._browser, s) == _token_oracle(s, 16, 128)
    assert _accepts(classstore._submission, s) == _token_oracle(s, 8, 64)
    if _exercise_oracle(s) or _token_oracle(s, 8, 128):
        assert not set(s) & set("<>&\"'/\\ \n")  # nothing accepted can be markup, a path or a second line


# ---- flooding -----------------------------------------------------------------------------------------------------


def test_a_browser_is_refused_beyond_its_rate_and_served_again_later(tmp_path):
    clock = Clock()
    with ClassStore(tmp_path, rate_limit=5, rate_window=60.0, clock=clock) as s:
        s.declare("q1", 2, ["a", "b"])
        for i in range(5):
            s.submit("q1", B1, i % 2, f"rate-{i:04d}", privacy="central")
            clock.now += 1.0
        with pytest.raises(RateLimited, match="5 answers in the last 60 s"):
            s.submit("q1", B1, 0, "rate-0005", privacy="central")
        assert s.submit("q1", B1, 1, "rate-0004", privacy="central") == SubmitOutcome.DUPLICATE  # a retry is free
        assert s.submit("q1", B2, 1, "rate-0100", privacy="central") == SubmitOutcome.STORED  # another browser
        assert s.tally("q1").counts == (1, 1)  # B1's last stored answer (bucket 0) and B2's
        clock.now += 55.5  # t = 60.5: the first submission (t = 0) has left the window, the next four have not
        assert s.submit("q1", B1, 1, "rate-0005", privacy="central") == SubmitOutcome.REPLACED
    with ClassStore(tmp_path, rate_limit=5, clock=clock) as s:  # persisted: a restart does not reset it
        with pytest.raises(RateLimited):
            s.submit("q1", B1, 0, "rate-0006", privacy="central")


def test_the_number_of_exercises_is_capped(tmp_path, monkeypatch):
    monkeypatch.setattr(classstore, "MAX_EXERCISES", 3)
    with ClassStore(tmp_path) as s:
        for i in range(3):
            s.declare(f"e{i}", 2, ["a", "b"])
        with pytest.raises(ValueError, match="exercise = 'e3' is not allowed: the class has 3 exercises"):
            s.declare("e3", 2, ["a", "b"])
        s.declare("e0", 2, ["a", "b"])  # re-declaring one it has is fine


# ---- the end of class -----------------------------------------------------------------------------------------------


def test_end_class_deletes_the_answers_and_keeps_the_releases(tmp_path):
    s = ClassStore(tmp_path)
    s.declare("q1", 3, LABELS)
    for i, browser in enumerate([B1, B2, B3]):
        s.submit("q1", browser, i, f"ending-sub-{i}", privacy="central")
    s.record_release("q1", 1.5, [2, 0, 1], 3, {"halfwidth": 4})
    raw = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith(FILENAME))
    assert b"ending-sub-0" in raw  # the search below can find what is there
    s.end_class()
    assert s.ended
    with pytest.raises(ClassEnded, match="The class has ended"):
        s.submit("q1", B1, 0, "after-end-1", privacy="central")
    with pytest.raises(ClassEnded):
        s.tally("q1")
    with pytest.raises(ClassEnded):
        s.record_release("q1", 1.0, [0, 0, 0], 0)
    s.end_class()  # idempotent
    s.close()

    db = sqlite3.connect(tmp_path / FILENAME)
    assert db.execute("SELECT COUNT(*) FROM answers").fetchone()[0] == 0
    assert db.execute("SELECT COUNT(*) FROM submissions").fetchone()[0] == 0
    db.close()
    raw = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith(FILENAME))
    assert b"ending-sub-" not in raw  # gone from the bytes on disk, not only from the tables

    with ClassStore(tmp_path) as r:  # after a restart: still ended, releases and ledger kept
        assert r.ended
        assert [(x.counts, x.total, x.meta) for x in r.releases("q1")] == [((2, 0, 1), 3, {"halfwidth": 4})]
        assert [c.epsilon for c in r.spent()] == [1.5]
        assert r.declare("q1", 3, LABELS).k == 3  # a restarted server may declare its exercises again
        with pytest.raises(ClassEnded):
            r.submit("q1", B1, 0, "after-end-2", privacy="central")


# ---- two processes at once ------------------------------------------------------------------------------------------

_WRITER = """
import importlib.util, sys
spec = importlib.util.spec_from_file_location("classstore", sys.argv[1])
m = sys.modules["classstore"] = importlib.util.module_from_spec(spec)  # (dataclasses look it up)
spec.loader.exec_module(m)  # the module alone (standard library only): no need to import dpviz's numerics
store = m.ClassStore(sys.argv[2], rate_limit=10_000)
tag = sys.argv[3]
for i in range(int(sys.argv[4])):
    browser = (tag * 16 + "%016d" % i)[:32]
    for attempt in range(2):  # every submission sent twice: the retry must count once
        store.submit("q1", browser, i % 3, "s%s%08d" % (tag, i), privacy="central")
store.close()
"""


def test_two_processes_submitting_at_once_lose_nothing(tmp_path):
    with ClassStore(tmp_path) as s:
        s.declare("q1", 3, LABELS)
    n = 150
    procs = [subprocess.Popen([sys.executable, "-c", _WRITER, classstore.__file__, str(tmp_path), tag, str(n)],
                              stderr=subprocess.PIPE, text=True) for tag in ("x", "y")]
    try:
        errors = [p.communicate(timeout=120)[1] for p in procs]
    finally:
        for p in procs:
            p.kill()
    assert [p.returncode for p in procs] == [0, 0], errors
    with ClassStore(tmp_path) as s:
        t = s.tally("q1")
        expected = [sum(1 for i in range(n) if i % 3 == b) * 2 for b in range(3)]
        assert (list(t.counts), t.total) == (expected, 2 * n)


# ---- the cost of a submission (printed for the docs; never asserted) ---------------------------------------------


@pytest.mark.parametrize("synchronous", ["FULL", "NORMAL"])
def test_the_cost_of_a_submission_is_printed(tmp_path, synchronous, capsys):
    with ClassStore(tmp_path, synchronous=synchronous, rate_limit=10_000) as s:
        s.declare("q1", 3, LABELS)
        times = []
        for i in range(300):
            start = time.perf_counter()
            s.submit("q1", f"{i:032d}", i % 3, f"cost-{i:06d}", privacy="central")
            times.append(time.perf_counter() - start)
        assert s.tally("q1").total == 300
    times.sort()
    with capsys.disabled():
        print(f"\nclassstore submit, synchronous={synchronous}, {Path(tmp_path)}: median "
              f"{statistics.median(times) * 1e3:.2f} ms, p95 {times[int(0.95 * len(times))] * 1e3:.2f} ms, "
              f"max {times[-1] * 1e3:.2f} ms over {len(times)}")


# ---- where a class lives ---------------------------------------------------------------------------------------------


def test_default_class_dir_respects_xdg_data_home(monkeypatch, tmp_path):
    if sys.platform in ("darwin", "win32"):
        pytest.fail("this test states the Linux rule; add the platform's own case")  # no silent skip
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_class_dir("week-3") == tmp_path / "dpviz" / "classes" / "week-3"
    monkeypatch.setenv("XDG_DATA_HOME", "relative/path")  # the XDG specification ignores a relative path
    assert default_class_dir("week-3") == Path.home() / ".local" / "share" / "dpviz" / "classes" / "week-3"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert default_class_dir("w") == Path.home() / ".local" / "share" / "dpviz" / "classes" / "w"


@pytest.mark.parametrize("name", ["..", "../x", "a/b", "", ".hidden", "a b"])
def test_default_class_dir_takes_one_plain_path_component(name):
    with pytest.raises(ValueError, match="^name = "):
        default_class_dir(name)


def test_the_class_folder_and_file_are_private(tmp_path):
    with ClassStore(tmp_path / "new" / "class") as s:
        assert (s.directory.stat().st_mode & 0o777) == 0o700
        assert (s.path.stat().st_mode & 0o777) == 0o600


# ---- the neighbouring-dataset game ----------------------------------------------------------------------------------

GAME = "NeighbourGamePanel.game.z1-g1"
EPS, DELTA = 1.0, 1e-5


def _game(s, browser, counts, sid, **kw):
    kw = {"claimed_epsilon": EPS, "delta": DELTA} | kw
    return s.submit_game(GAME, browser, counts, sid, **kw)


def test_game_totals_are_the_sums_of_each_browsers_latest_record(store):
    assert _game(store, B1, (3, 5, 4, 5), "game-b1-01", title="Can you tell x from x′?",
                 lesson="neighbours") == SubmitOutcome.STORED
    assert _game(store, B2, (10, 10, 0, 7), "game-b2-01") == SubmitOutcome.STORED
    assert _game(store, B1, (6, 9, 8, 9), "game-b1-02", title="later title") == SubmitOutcome.REPLACED
    assert _game(store, B3, (0, 0, 0, 0), "game-b3-01") == SubmitOutcome.STORED
    # by hand: B1's latest (6, 9, 8, 9) + B2's (10, 10, 0, 7) + B3's (0, 0, 0, 0); B1's first record is replaced
    assert store.game_totals(GAME) == GameTotals(GAME, 3, 16, 19, 8, 16, EPS, DELTA, "Can you tell x from x′?",
                                                 "neighbours")
    domain = store.domain(GAME)
    assert (domain.kind, domain.k, domain.labels) == ("game", 2, GAME_LABELS)
    assert (domain.claimed_epsilon, domain.delta, domain.title) == (EPS, DELTA, "Can you tell x from x′?")
    assert {d.exercise for d in store.exercises()} == {"q1", GAME}  # exercises() lists the games too
    assert store.tally("q1").total == 0  # a game's records are not answers to another exercise


def test_a_game_with_no_record_yet_totals_zero(store):
    store.declare("G.g", 2, GAME_LABELS, kind="game", claimed_epsilon=2.0, delta=0.0)
    assert store.game_totals("G.g") == GameTotals("G.g", 0, 0, 0, 0, 0, 2.0, 0.0, "", "")
    with pytest.raises(ValueError, match="exercise = 'q1' is not allowed: must be a declared game"):
        store.game_totals("q1")
    with pytest.raises(ValueError, match="exercise = 'nope' is not allowed: must be a declared game"):
        store.game_totals("nope")


def test_a_retried_game_submission_counts_once(store):
    assert _game(store, B1, (2, 4, 1, 4), "game-retry1") == SubmitOutcome.STORED
    for counts in [(2, 4, 1, 4), (9, 9, 9, 9)]:  # whatever the retry carries: the id is what counts
        assert _game(store, B1, counts, "game-retry1") == SubmitOutcome.DUPLICATE
    assert store.game_totals(GAME) == GameTotals(GAME, 1, 2, 4, 1, 4, EPS, DELTA, "", "")
    # the id space is the browser's, shared with its answers: an answer's id replayed as a game's is a retry
    store.submit("q1", B2, 0, "shared-0001", privacy="central")
    assert _game(store, B2, (1, 1, 0, 0), "shared-0001") == SubmitOutcome.DUPLICATE
    assert store.game_totals(GAME).players == 1


def test_games_and_answers_share_one_persisted_rate(tmp_path):
    clock = Clock()
    with ClassStore(tmp_path, rate_limit=4, rate_window=60.0, clock=clock) as s:
        s.declare("q1", 2, ["a", "b"])
        s.submit("q1", B1, 0, "rate-0000", privacy="central")
        for i in range(1, 4):
            _game(s, B1, (i, i, 0, 0), f"rate-{i:04d}")
        with pytest.raises(RateLimited, match="4 answers in the last 60 s"):
            _game(s, B1, (5, 5, 0, 0), "rate-0004")
        assert _game(s, B1, (0, 0, 0, 0), "rate-0003") == SubmitOutcome.DUPLICATE  # a retry costs nothing
        assert s.game_totals(GAME).correct_on_x == 3  # the refused update changed nothing
    with ClassStore(tmp_path, rate_limit=4, rate_window=60.0, clock=clock) as s:  # a restart does not reset it
        with pytest.raises(RateLimited):
            _game(s, B1, (5, 5, 0, 0), "rate-0004")
        clock.now += 61.0
        assert _game(s, B1, (5, 5, 0, 0), "rate-0004") == SubmitOutcome.REPLACED


def test_a_restart_keeps_the_games_records(tmp_path):
    with ClassStore(tmp_path) as s:
        _game(s, B1, (7, 8, 6, 8), "keep-b1-01", title="t", lesson="l1")
        _game(s, B2, (1, 2, 2, 2), "keep-b2-01")
    with ClassStore(tmp_path) as r:
        assert r.game_totals(GAME) == GameTotals(GAME, 2, 8, 10, 8, 10, EPS, DELTA, "t", "l1")
        assert _game(r, B1, (7, 8, 6, 8), "keep-b1-01") == SubmitOutcome.DUPLICATE  # a retry after the restart
        assert _game(r, B1, (8, 9, 6, 8), "keep-b1-02") == SubmitOutcome.REPLACED
        assert r.game_totals(GAME).rounds_on_x == 11


def test_a_game_with_another_guarantee_or_kind_is_refused(store):
    _game(store, B1, (1, 1, 1, 1), "differ-0001")
    for change in [{"claimed_epsilon": 2.0}, {"delta": 0.0}]:
        with pytest.raises(DomainDiffers, match=f"exercise = '{GAME}' is already declared .*claimed ε = 1.0"):
            _game(store, B2, (1, 1, 1, 1), "differ-0002", **change)
    with pytest.raises(DomainDiffers, match="exercise = 'q1' is already declared"):  # a choice's key is no game
        store.submit_game("q1", B2, (1, 1, 1, 1), "differ-0003", claimed_epsilon=EPS, delta=DELTA)
    with pytest.raises(DomainDiffers, match=f"exercise = '{GAME}'"):  # nor a game's key a choice
        store.declare(GAME, 2, GAME_LABELS)
    with pytest.raises(ValueError, match=f"exercise = '{GAME}' is not allowed: must be an exercise that takes"):
        store.submit(GAME, B2, 0, "differ-0004", privacy="central")
    assert store.game_totals(GAME).players == 1 and store.tally("q1").total == 0


GOOD_GAME = {"exercise": GAME, "browser": B1, "counts": (1, 2, 3, 4), "submission_id": "good-game-1",
             "claimed_epsilon": 1.0, "delta": 1e-6, "title": "", "lesson": ""}
BAD_GAME_FIELDS = [
    ("exercise", "a/b"), ("exercise", ""), ("browser", "short"), ("submission_id", "1234"),
    ("counts", (1, 2, 3)), ("counts", (1, 2, 3, 4, 5)), ("counts", "1234"), ("counts", None),
    ("counts", (-1, 2, 3, 4)), ("counts", (1, 2, 3, MAX_GAME_ROUNDS + 1)), ("counts", (1.0, 2, 3, 4)),
    ("counts", (True, 2, 3, 4)), ("counts", (3, 2, 3, 4)), ("counts", (1, 2, 5, 4)), ("counts", (1, 2, "3", 4)),
    ("claimed_epsilon", -0.1), ("claimed_epsilon", 1000.5), ("claimed_epsilon", float("nan")),
    ("claimed_epsilon", float("inf")), ("claimed_epsilon", True), ("claimed_epsilon", "1"),
    ("claimed_epsilon", None), ("delta", 1.0), ("delta", -1e-9), ("delta", float("nan")), ("delta", None),
    ("title", "x" * 301), ("title", "a\nb"), ("lesson", "../x"),
]


@pytest.mark.parametrize(("field", "value"), BAD_GAME_FIELDS, ids=[f"{f}={v!r}"[:40] for f, v in BAD_GAME_FIELDS])
def test_submit_game_refuses_each_bad_field_by_name(store, field, value):
    args = dict(GOOD_GAME, **{field: value})
    with pytest.raises(ValueError, match=rf"^{field}(\[\d\] \(\w+\))? = .* is not allowed: must be"):
        store.submit_game(**args)
    assert [d.exercise for d in store.exercises()] == ["q1"]  # nothing declared, nothing stored
    assert store.submit_game(**GOOD_GAME) == SubmitOutcome.STORED  # the table's good submission is accepted


def test_the_game_round_cap_is_inclusive(store):
    top = (MAX_GAME_ROUNDS, MAX_GAME_ROUNDS, 0, MAX_GAME_ROUNDS)
    assert _game(store, B1, top, "cap-000001") == SubmitOutcome.STORED
    assert store.game_totals(GAME).rounds_on_x_prime == MAX_GAME_ROUNDS


_COUNT = st.integers(-2, MAX_GAME_ROUNDS + 2) | st.integers(-2, 12)


@settings(max_examples=300, deadline=None)
@given(st.tuples(_COUNT, _COUNT, _COUNT, _COUNT))
def test_game_counts_are_accepted_exactly_as_documented(counts):
    cx, rx, cxp, rxp = counts
    ok = 0 <= cx <= rx <= MAX_GAME_ROUNDS and 0 <= cxp <= rxp <= MAX_GAME_ROUNDS
    assert _accepts(classstore._game_counts, counts) == ok


def test_end_class_deletes_the_games_records_and_keeps_their_totals(tmp_path):
    s = ClassStore(tmp_path)
    _game(s, B1, (4, 5, 3, 5), "end-game-b1")
    _game(s, B3, (5, 5, 5, 5), "end-game-b3", title="the game", lesson="neighbours")
    marker = s._browser_key(B3)  # B3 only played the game: its key is in its game record (and its submission)
    raw = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith(FILENAME))
    assert marker in raw and b"end-game-b3" in raw  # the search below can find what is there
    before = s.game_totals(GAME)
    s.end_class()
    assert s.game_totals(GAME) == before == GameTotals(GAME, 2, 9, 10, 8, 10, EPS, DELTA, "", "")
    with pytest.raises(ClassEnded, match="The class has ended"):
        _game(s, B1, (5, 5, 3, 5), "end-game-b1-2")
    s.end_class()  # idempotent: the kept totals stay
    assert s.game_totals(GAME) == before
    s.close()

    db = sqlite3.connect(tmp_path / FILENAME)
    assert db.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 0
    db.close()
    raw = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith(FILENAME))
    assert marker not in raw and b"end-game-b3" not in raw  # gone from the bytes on disk

    with ClassStore(tmp_path) as r:  # after a restart the view still shows the game's final totals
        assert r.game_totals(GAME) == before
        with pytest.raises(ClassEnded):
            _game(r, B2, (1, 1, 1, 1), "end-game-b2")


# ---- the teacher's token ---------------------------------------------------------------------------------------------


def test_the_teacher_token_is_made_once_and_kept(tmp_path):
    with ClassStore(tmp_path / "a") as s:
        token = s.teacher_token()
        assert re.fullmatch(r"[A-Za-z0-9_\-]{32}", token)  # token_urlsafe(24): 24 random bytes, 32 characters
        assert s.teacher_token() == token
        with ClassStore(tmp_path / "a") as other:  # another process on the same file
            assert other.teacher_token() == token
    with ClassStore(tmp_path / "a") as r:  # a restart keeps the teacher's address
        assert r.teacher_token() == token
        r.end_class()
        assert r.teacher_token() == token  # and so does the end of the class
    with ClassStore(tmp_path / "b") as b:  # another class: another token
        assert b.teacher_token() != token

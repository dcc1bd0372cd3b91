"""benchmarks/anatomy.py's split of a slider move into stages, on a hand-made timeline (the browser test runs it on
a real page: test_browser.py)."""

from __future__ import annotations

import importlib.util
from datetime import datetime, timezone
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def _anatomy():
    return importlib.import_module("benchmarks.panels.anatomy")


ORIGIN = 1_800_000_000_000.0  # the page's time origin (ms since the epoch)


def _date(page_ms: float) -> str:
    """The kernel's header date of an instant given on the page's clock."""
    return datetime.fromtimestamp((ORIGIN + page_ms) / 1000, tz=timezone.utc).isoformat().replace("+00:00", "Z")


def test_a_move_splits_into_stages_that_add_up_to_the_total():
    A = _anatomy()
    key, seen = 1000.0, 1130.0
    messages = [
        {"t": 990.0, "kind": "status", "state": "busy", "date": _date(985.0)},  # before the key: ignored
        {"t": 1012.0, "kind": "status", "state": "busy", "date": _date(1008.0)},  # the first press's update
        {"t": 1030.0, "kind": "status", "state": "busy", "date": _date(1025.0)},  # the second's, which draws
        {"t": 1031.0, "kind": "comm_msg", "state": "value", "date": _date(1026.0)},
        {"t": 1078.0, "kind": "comm_msg", "state": "_py2js_update", "date": _date(1060.0)},
        {"t": 1079.0, "kind": "comm_msg", "state": "_py2js_update", "date": _date(1060.5)},  # the clearing message
    ]
    updates = [{"start": 900.0, "end": 920.0}, {"start": 1081.0, "end": 1118.0}]
    row = A.stages(key, seen, messages, updates, ORIGIN)
    expected = {"to kernel": 25.0, "kernel": 35.0, "to page": 18.0, "queued": 3.0, "plotly.js": 37.0,
                "to frame": 12.0, "total": 130.0}
    assert row.pop("to server") is None  # no server clock: the relay is one stage
    assert row == pytest.approx(expected, abs=1e-3)
    assert sum(row[s] for s in A.STAGES if s in row) == pytest.approx(row["total"], abs=1e-9)
    # with the server's clock (benchmarks/classroom/server_clock.py), the relay splits where the server received
    # the message
    server = {_date(1060.0): ORIGIN + 1066.0, _date(1025.0): ORIGIN + 1027.0}
    row = A.stages(key, seen, messages, updates, ORIGIN, server)
    assert row == pytest.approx(dict(expected, **{"to server": 6.0, "to page": 12.0}), abs=1e-3)
    assert sum(row[s] for s in A.STAGES) == pytest.approx(row["total"], abs=1e-9)


def test_a_move_without_a_figure_message_or_drawing_is_not_split():
    A = _anatomy()
    busy = {"t": 1012.0, "kind": "status", "state": "busy", "date": _date(1008.0)}
    figure = {"t": 1078.0, "kind": "comm_msg", "state": "_py2js_update", "date": _date(1060.0)}
    assert A.stages(1000.0, 1130.0, [busy], [{"start": 1081.0, "end": 1118.0}], ORIGIN) is None
    assert A.stages(1000.0, 1130.0, [busy, figure], [], ORIGIN) is None  # no Plotly.update before the change
    assert A.stages(1000.0, 1130.0, [figure], [{"start": 1081.0, "end": 1118.0}], ORIGIN) is None  # no busy


def test_percentiles_pick_a_measured_value():
    A = _anatomy()
    assert A._percentile([5.0, 1.0, 3.0], 50) == 3.0
    assert A._percentile([float(v) for v in range(1, 101)], 95) == 95.0
    assert A._percentile([], 95) is None  # a stage no move had (no server clock)
    assert A._cell(None).strip() == "-" and A._cell(12.4).strip() == "12"


def test_server_clock_logs_each_kernel_message_as_it_arrives_and_still_relays_it(tmp_path, monkeypatch):
    import json
    import types

    from jupyter_client.session import Session
    from jupyter_server.services.kernels.connection.channels import ZMQChannelsWebsocketConnection as C

    from benchmarks.classroom import server_clock

    relayed = []
    monkeypatch.setattr(C, "handle_outgoing_message", lambda self, stream, msg: relayed.append((stream, msg)))
    log = tmp_path / "clock"
    clock = server_clock.install(str(log))
    assert clock is not None
    session = Session(key=b"secret")
    sent = [session.serialize(session.msg(kind, {"n": i}), ident=[b"kernel"]) for i, kind in
            enumerate(["status", "comm_msg"])]
    conn = types.SimpleNamespace(session=session)
    for parts in sent:
        C.handle_outgoing_message(conn, "iopub", parts)
    C.handle_outgoing_message(conn, "iopub", [b"not a message"])  # logged as nothing, relayed all the same
    clock.close()
    assert relayed == [("iopub", p) for p in sent] + [("iopub", [b"not a message"])]
    dates = [json.loads(p[p.index(b"<IDS|MSG>") + 2])["date"] for p in sent]  # the header, after the signature
    lines = log.read_text().splitlines()
    assert [ln.split()[1:] for ln in lines] == [[dates[0], "status"], [dates[1], "comm_msg"]]
    arrivals = server_clock.arrivals(str(log))
    assert list(arrivals) == dates and all(t > 1.7e12 for t in arrivals.values())  # ms since the epoch
    assert server_clock.arrivals(str(tmp_path / "none")) == {}

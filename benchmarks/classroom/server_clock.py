"""``dpviz serve`` with a clock on its relay: ``python benchmarks/classroom/server_clock.py LOG [app options]``.

Writes one line to LOG for every message a kernel sends towards a page, as the server receives it from the kernel:
``<ms since the epoch> <the message header's date> <msg_type>``. ``benchmarks/anatomy.py`` starts its server this
way to split a message's way from the kernel to the page in two: kernel → server (the kernel's IOPub thread, ZeroMQ,
the server's event loop) and server → page (tornado's WebSocket write, the browser's network stack, the page's
main thread). That split is how a 35-45 ms hold in the second half was found (Nagle's algorithm on the kernel
WebSocket, 2026-11-29). A measuring tool, never part of the served app: it wraps jupyter_server's
``ZMQChannelsWebsocketConnection.handle_outgoing_message``, a method that is not a public API; when it is not there
the server runs unwrapped and the anatomy prints "-" for the split.
"""

from __future__ import annotations

import json
import sys
import time
from typing import TextIO


def install(path: str) -> TextIO | None:
    """Wrap the server's receiving end of each kernel message to log its arrival in ``path``; the log, open for the
    server's lifetime, or None when jupyter_server has no such method to wrap (then nothing is logged)."""
    try:
        from jupyter_server.services.kernels.connection.channels import ZMQChannelsWebsocketConnection as C
    except ImportError:
        return None
    receive = getattr(C, "handle_outgoing_message", None)
    if receive is None:
        return None
    log = open(path, "a", buffering=1)  # noqa: SIM115 (open for the server's lifetime)

    def handle_outgoing_message(self, stream, outgoing_msg):
        now = time.time() * 1000
        try:
            _, parts = self.session.feed_identities(outgoing_msg)
            header = json.loads(bytes(parts[1]))  # parts: signature, header, parent header, metadata, content
            log.write(f"{now:.3f} {header['date']} {header['msg_type']}\n")
        except Exception:  # a message this clock cannot read is still relayed
            pass
        return receive(self, stream, outgoing_msg)

    C.handle_outgoing_message = handle_outgoing_message
    return log


def arrivals(path: str) -> dict[str, float]:
    """The server's arrival time (ms since the epoch) of each kernel message in ``path``, by header date."""
    seen: dict[str, float] = {}
    try:
        with open(path) as f:
            for line in f:
                parts = line.split()
                if len(parts) == 3:
                    seen.setdefault(parts[1], float(parts[0]))
    except FileNotFoundError:
        pass
    return seen


if __name__ == "__main__":
    if install(sys.argv[1]) is None:
        print("server_clock: jupyter_server has no handle_outgoing_message to wrap; no server clock",
              file=sys.stderr)
    from dpviz.serve.app import main

    main(sys.argv[2:])

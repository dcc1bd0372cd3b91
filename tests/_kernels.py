"""Kernels a test starts itself talk over Unix sockets (ZeroMQ's ``ipc`` transport), never over TCP ports.

jupyter_client chooses a kernel's TCP ports by binding port 0 and closing the socket; the kernel binds them again
a second later, and any process on the machine may take one in between (jupyter_client issue 487). A fresh clone's
``make test`` once failed that way: the kernel died with "Address already in use" before its first reply. The
app's kernels survive it (jupyter_server's restarter starts a kernel that died on new ports,
``random_ports_until_alive``), but a test's own ``KernelManager`` has no restarter. Socket files that only this
test names cannot be taken, and what the tests check (the kernel's answers, its process) does not depend on the
transport.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import uuid

_DIRECTORY: list[str] = []


def ipc_connection() -> dict[str, str]:
    """``transport`` and ``ip`` for one kernel: its own socket-file prefix in a private directory under the system's
    temporary directory (short: a Unix socket's path holds at most 107 bytes)."""
    if not _DIRECTORY:
        _DIRECTORY.append(tempfile.mkdtemp(prefix="dpviz-kernels-"))
        atexit.register(shutil.rmtree, _DIRECTORY[0], ignore_errors=True)
    return {"transport": "ipc", "ip": os.path.join(_DIRECTORY[0], uuid.uuid4().hex[:12])}

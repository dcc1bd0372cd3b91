"""The kernel WebSocket's connection to its kernel, for ``dpviz serve`` and ``make lab`` alike.

:class:`NoDelayConnection` is jupyter_server's own connection (``ZMQChannelsWebsocketConnection``) with one change:
the WebSocket sends each message at once. tornado leaves Nagle's algorithm on for a WebSocket and jupyter_server
never turns it off, so a small message written while the previous one is still unacknowledged waits for that
acknowledgement, which a browser delays by up to 40 ms: after a slider move, messages the server had at once
reached the page 35-45 ms later while the page was idle (lesson 13, timed by ``benchmarks/panels/anatomy.py``
with the server's clock; 1-4 ms with no-delay). The app sets it as its ``kernel_websocket_connection_class``;
``make lab`` passes it to JupyterLab's server.
"""

from __future__ import annotations

from jupyter_server.services.kernels.connection.channels import ZMQChannelsWebsocketConnection

__all__ = ["NoDelayConnection"]


class NoDelayConnection(ZMQChannelsWebsocketConnection):
    """jupyter_server's kernel WebSocket connection, sending each message at once (TCP_NODELAY)."""

    def connect(self):
        self.websocket_handler.set_nodelay(True)  # the handshake is done: the socket is the page's
        return super().connect()

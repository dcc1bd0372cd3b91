"""gzip for every page and file the server sends, each static file compressed once.

A lesson page loads ~4.8 MB of JavaScript and CSS (Voilà's front end, the widget managers, plotly.js's cartesian
bundle), and Voilà sends it uncompressed: a class of 30 sharing one Wi-Fi fetches ~145 MB when the lesson starts,
a phone on a mobile network ~5 MB per lesson. gzip makes that ~1.4 MB per page. tornado's own transform
(``compress_response``) compresses every response anew, ~0.17 CPU-seconds per page on the 2-core development
machine, ~5 CPU-seconds for a class arriving together: the very seconds in which the kernels need the cores.
:class:`CachedGzip` compresses a static file once per server and serves the compressed bytes from memory after
that (:class:`GzipCache`, least recently used dropped beyond its size); a page or message made for one request
(a lesson's HTML, the status page) is compressed as it streams (a flush still reaches the browser at once).

Not compressed: responses other than 200 (a 304 has no body; a 206 is a byte range of the uncompressed file),
types that are compressed already (images, fonts), bodies under 1 KiB, clients that do not accept gzip, WebSocket
frames (see the README: a slider's message is mostly binary floats, and compressing each costs the kernels' cores).
A compressed response's ``Etag`` is marked weak (``W/``): the compressed and the plain body are different bytes.
"""

from __future__ import annotations

import gzip
import threading
import zlib
from collections import OrderedDict

from tornado.web import OutputTransform

__all__ = ["CACHE", "CachedGzip", "GzipCache", "accepts_gzip"]

#: gzip level: 6 is gzip's and tornado's default (9 saves 0.3 % more on these files for 1.5x the CPU).
LEVEL = 6
#: Bodies shorter than this (bytes) are sent as they are: gzip's header would eat most of the gain.
MIN_LENGTH = 1024
#: Content types worth compressing besides ``text/*``.
COMPRESSIBLE = frozenset({
    "application/javascript", "application/x-javascript", "application/json", "application/manifest+json",
    "application/xml", "application/xhtml+xml", "image/svg+xml",
})


def accepts_gzip(accept_encoding: str) -> bool:
    """Whether an ``Accept-Encoding`` header value admits gzip (``gzip`` or ``x-gzip`` with a non-zero q, or
    ``*``), as RFC 9110 §12.5.3 reads it."""
    for item in accept_encoding.split(","):
        name, _, params = item.strip().partition(";")
        if name.strip().lower() not in ("gzip", "x-gzip", "*"):
            continue
        q = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if q > 0:
            return True
    return False


def _compressible(content_type: str) -> bool:
    ctype = content_type.split(";")[0].strip().lower()
    return ctype.startswith("text/") or ctype in COMPRESSIBLE


class GzipCache:
    """Compressed bodies by key, at most ``max_bytes`` of them (least recently used dropped first)."""

    def __init__(self, max_bytes: int = 64 * 2**20) -> None:
        self.max_bytes = max_bytes
        self._items: OrderedDict[tuple, bytes] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: tuple) -> bytes | None:
        with self._lock:
            body = self._items.get(key)
            if body is None:
                self.misses += 1
                return None
            self._items.move_to_end(key)
            self.hits += 1
            return body

    def put(self, key: tuple, body: bytes) -> None:
        if len(body) > self.max_bytes:
            return
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._bytes -= len(old)
            self._items[key] = body
            self._bytes += len(body)
            while self._bytes > self.max_bytes:
                _, dropped = self._items.popitem(last=False)
                self._bytes -= len(dropped)

    @property
    def size_bytes(self) -> int:
        return self._bytes

    def __len__(self) -> int:
        return len(self._items)


#: The server's cache of compressed static files.
CACHE = GzipCache()


class CachedGzip(OutputTransform):
    """tornado output transform: gzip, static files compressed once (see the module's docstring).

    A static file is recognised by the headers tornado's ``StaticFileHandler`` sends with it (``Last-Modified`` and
    ``Content-Length``; Voilà's files also have an ``Etag``, the extensions' files not), and cached under the
    request's path and these (a file changed on disk gets new ones).
    It is collected whole, compressed in one go and sent at the end (the first time) or sent from the cache with
    its length (after that); any other response is compressed chunk by chunk, each flush passed on at once.
    """

    cache = CACHE

    def __init__(self, request) -> None:
        self._gzip = accepts_gzip(request.headers.get("Accept-Encoding", ""))
        self._path = request.path
        self._mode = "plain"  # plain | cached (sent whole already) | collect (static, first time) | stream
        self._parts: list[bytes] = []
        self._key: tuple | None = None
        self._length: int | None = None  # a static file's size, as its Content-Length declares it
        self._stream = None

    def transform_first_chunk(self, status_code, headers, chunk, finishing):
        ctype = headers.get("Content-Type", "")
        if not _compressible(ctype):
            return status_code, headers, chunk
        headers["Vary"] = headers["Vary"] + ", Accept-Encoding" if "Vary" in headers else "Accept-Encoding"
        length = headers.get("Content-Length")
        size = len(chunk) if finishing else int(length) if length and length.isdigit() else None
        if (not self._gzip or status_code != 200 or "Content-Encoding" in headers
                or (size is not None and size < MIN_LENGTH)):
            return status_code, headers, chunk
        headers["Content-Encoding"] = "gzip"
        etag = headers.get("Etag")
        if etag and not etag.startswith("W/"):
            headers["Etag"] = "W/" + etag
        modified = headers.get("Last-Modified")
        if modified and length:  # a static file
            self._key = (self._path, etag or "", modified, length)
            self._length = int(length) if length.isdigit() else None
            body = self.cache.get(self._key)
            if body is None and finishing:
                body = self._compress_and_keep(chunk)
            if body is not None:
                self._mode = "cached"
                headers["Content-Length"] = str(len(body))
                return status_code, headers, body
            self._mode = "collect"
            self._parts.append(chunk)
            headers.pop("Content-Length", None)
            return status_code, headers, b""
        self._mode = "stream"
        self._stream = zlib.compressobj(LEVEL, zlib.DEFLATED, 16 + zlib.MAX_WBITS)  # gzip framing
        body = self.transform_chunk(chunk, finishing)
        if finishing:
            headers["Content-Length"] = str(len(body))
        else:
            headers.pop("Content-Length", None)
        return status_code, headers, body

    def _compress_and_keep(self, data: bytes) -> bytes:
        """A static file's body, compressed, and cached under its key when it is the whole file. A browser that
        leaves while a file is being sent (a tab closed while the page loads) ends the transfer early, and tornado
        still finishes the response with the part it read: cached, that part was served to every later page (a
        truncated script: "Unexpected end of input", and no lesson drew a figure until the server restarted)."""
        body = gzip.compress(data, LEVEL, mtime=0)
        if len(data) == self._length:
            self.cache.put(self._key, body)
        return body

    def transform_chunk(self, chunk, finishing):
        if self._mode == "plain":
            return chunk
        if self._mode == "cached":
            return b""
        if self._mode == "collect":
            self._parts.append(chunk)
            if not finishing:
                return b""
            body, self._parts = self._compress_and_keep(b"".join(self._parts)), []
            return body
        out = self._stream.compress(chunk)
        return out + self._stream.flush(zlib.Z_FINISH if finishing else zlib.Z_SYNC_FLUSH)

"""gzip for the server's responses (:mod:`dpviz.server.compression`): static files compressed once and served
from memory, pages compressed as they stream, and nothing a browser could misread (weak validators, ranges and
304s untouched, clients that refuse gzip get the plain bytes).

A tornado app on a loopback port with tornado's own ``StaticFileHandler`` (what Voilà's and dpviz's static routes
are), a handler that streams its page in flushed pieces (what Voilà's lesson handler does) and one that writes a
small JSON answer.
"""

from __future__ import annotations

import gzip
import json
import os
import zlib

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tornado import web
from tornado.testing import AsyncHTTPTestCase

from dpviz.serve import compression
from dpviz.serve.compression import CachedGzip, GzipCache, accepts_gzip

GZ = {"Accept-Encoding": "gzip, deflate, br"}


@pytest.mark.parametrize(("header", "expected"), [
    ("gzip", True), ("GZIP", True), ("gzip, deflate, br", True), ("br;q=1.0, gzip;q=0.8", True), ("x-gzip", True),
    ("*", True), ("gzip;q=0", False), ("gzip; q=0.000", False), ("gzip;q=abc", False), ("deflate, br", False),
    ("identity", False), ("", False), ("gzipped", False),
])
def test_accept_encoding_is_read_with_its_q_values(header, expected):
    assert accepts_gzip(header) is expected


@given(st.text(max_size=80))
def test_any_accept_encoding_header_is_read_without_error(header):
    assert accepts_gzip(header) in (True, False)


def test_the_cache_keeps_the_most_recently_used_bodies_within_its_size():
    cache = GzipCache(max_bytes=10)
    cache.put(("a",), b"1234")
    cache.put(("b",), b"5678")
    assert cache.get(("a",)) == b"1234"  # a is now the most recently used
    cache.put(("c",), b"90ab")  # 12 bytes: b goes
    assert cache.get(("b",)) is None and cache.get(("a",)) == b"1234" and cache.get(("c",)) == b"90ab"
    assert cache.size_bytes == 8 and len(cache) == 2
    cache.put(("huge",), b"x" * 11)  # larger than the whole cache: not kept, nothing dropped for it
    assert cache.get(("huge",)) is None and len(cache) == 2
    assert (cache.hits, cache.misses) == (3, 2)


class _FakeRequest:
    def __init__(self, accept="gzip", path="/page"):
        self.headers = {"Accept-Encoding": accept}
        self.path = path


def test_a_streamed_page_reaches_the_browser_flush_by_flush():
    """Each flushed piece of a page decompresses on its own arrival (a lesson's prose shows while its cells run),
    and the pieces together are the page."""
    from tornado.httputil import HTTPHeaders

    t = CachedGzip(_FakeRequest())
    pieces = [b"<html><body>" + b"prose " * 400, b"<div>" + b"cell output " * 300 + b"</div>", b"</body></html>"]
    status, headers, first = t.transform_first_chunk(200, HTTPHeaders({"Content-Type": "text/html"}), pieces[0],
                                                     False)
    assert headers["Content-Encoding"] == "gzip" and "Content-Length" not in headers
    reader = zlib.decompressobj(16 + zlib.MAX_WBITS)
    assert reader.decompress(first) == pieces[0]
    assert reader.decompress(t.transform_chunk(pieces[1], False)) == pieces[1]
    assert reader.decompress(t.transform_chunk(pieces[2], True)) == pieces[2]
    assert reader.eof


def test_a_static_file_cut_short_by_a_browser_that_left_is_never_cached():
    """A tab closed while a static file is sent ends the transfer early; tornado still finishes the response with
    the part it read. That part must not be cached: served to every later page, a truncated script broke every
    lesson until the server restarted (a fresh clone's browser test, 2026-11-29). The whole file is cached."""
    from tornado.httputil import HTTPHeaders

    data = b"var x = 1;\n" * 4000

    def send(parts: list[bytes]) -> GzipCache:
        cache = GzipCache()
        t = CachedGzip(_FakeRequest(path="/static/chunk.js"))
        t.cache = cache
        headers = HTTPHeaders({"Content-Type": "application/javascript", "Content-Length": str(len(data)),
                               "Last-Modified": "Sun, 29 Nov 2026 12:00:00 GMT"})
        t.transform_first_chunk(200, headers, parts[0], False)
        for part in parts[1:-1]:
            t.transform_chunk(part, False)
        assert gzip.decompress(t.transform_chunk(parts[-1], True)) == b"".join(parts)
        return cache

    assert len(send([data[:20000], data[20000:30000], b""])) == 0  # the browser left after 30 000 bytes
    whole = send([data[:20000], data[20000:], b""])
    assert len(whole) == 1 and gzip.decompress(next(iter(whole._items.values()))) == data


class _Streamed(web.RequestHandler):
    async def get(self):
        self.set_header("Content-Type", "text/html")
        for k in range(3):
            self.write(f"<p>part {k} " + "words " * 300 + "</p>")
            await self.flush()
        self.finish()


class _Small(web.RequestHandler):
    def get(self):
        self.write({"ready": True})


class _App(AsyncHTTPTestCase):
    def setUp(self):
        self.cache = GzipCache()
        self._old_cache = CachedGzip.cache
        CachedGzip.cache = self.cache
        self.dir = self._make_files()
        super().setUp()

    def tearDown(self):
        super().tearDown()
        CachedGzip.cache = self._old_cache

    @staticmethod
    def _make_files():
        import tempfile

        d = tempfile.mkdtemp(prefix="dpviz-gzip-")
        with open(os.path.join(d, "big.js"), "w") as f:
            f.write("".join(f"var v{k} = {k * k} + 'some text';\n" for k in range(20000)))
        with open(os.path.join(d, "tiny.js"), "w") as f:
            f.write("var a = 1;\n")
        with open(os.path.join(d, "pic.png"), "wb") as f:
            f.write(os.urandom(5000))
        return d

    def get_app(self):
        return web.Application([
            (r"/static/(.*)", web.StaticFileHandler, {"path": self.dir}),
            (r"/page", _Streamed),
            (r"/status.json", _Small),
        ], transforms=[CachedGzip])

    def file_bytes(self, name):
        with open(os.path.join(self.dir, name), "rb") as f:
            return f.read()

    def get(self, path, headers=None):
        return self.fetch(path, headers=headers or {}, decompress_response=False)


class TestStaticFiles(_App):
    def test_a_static_file_is_compressed_once_and_then_served_from_memory(self):
        plain = self.file_bytes("big.js")
        first = self.get("/static/big.js", GZ)
        assert first.code == 200 and first.headers["Content-Encoding"] == "gzip"
        assert "Accept-Encoding" in first.headers["Vary"]
        assert gzip.decompress(first.body) == plain
        assert len(first.body) < len(plain) / 3
        assert (self.cache.hits, len(self.cache)) == (0, 1)
        second = self.get("/static/big.js", GZ)
        assert second.body == first.body and int(second.headers["Content-Length"]) == len(second.body)
        assert self.cache.hits == 1

    def test_the_validators_of_a_compressed_file_are_weak_and_still_answer_304(self):
        first = self.get("/static/big.js", GZ)
        etag = first.headers["Etag"]
        assert etag.startswith('W/"')
        again = self.get("/static/big.js", {**GZ, "If-None-Match": etag})
        assert again.code == 304 and again.body == b""

    def test_a_browser_that_refuses_gzip_gets_the_plain_file(self):
        for accept in ("identity", "gzip;q=0"):
            r = self.get("/static/big.js", {"Accept-Encoding": accept})
            assert r.code == 200 and "Content-Encoding" not in r.headers and r.body == self.file_bytes("big.js")
            assert not r.headers["Etag"].startswith("W/")

    def test_ranges_tiny_files_and_compressed_types_are_sent_as_they_are(self):
        part = self.get("/static/big.js", {**GZ, "Range": "bytes=100-199"})
        assert part.code == 206 and part.body == self.file_bytes("big.js")[100:200]
        assert "Content-Encoding" not in part.headers
        for name in ("tiny.js", "pic.png"):
            r = self.get(f"/static/{name}", GZ)
            assert "Content-Encoding" not in r.headers and r.body == self.file_bytes(name)
        assert "Vary" not in self.get("/static/pic.png", GZ).headers

    def test_a_file_changed_on_disk_is_not_served_from_the_cache(self):
        self.get("/static/big.js", GZ)
        path = os.path.join(self.dir, "big.js")
        with open(path, "a") as f:
            f.write("var changed = true;\n")
        st_ = os.stat(path)
        os.utime(path, (st_.st_atime, st_.st_mtime + 10))
        r = self.get("/static/big.js", GZ)
        assert gzip.decompress(r.body) == self.file_bytes("big.js")
        assert gzip.decompress(r.body).endswith(b"var changed = true;\n")

    def test_a_head_request_is_answered(self):
        r = self.fetch("/static/big.js", method="HEAD", headers=GZ, decompress_response=False)
        assert r.code == 200 and r.body == b""


class TestDynamicResponses(_App):
    def test_a_streamed_page_is_compressed_and_never_cached(self):
        r = self.get("/page", GZ)
        assert r.headers["Content-Encoding"] == "gzip"
        text = gzip.decompress(r.body).decode()
        assert text.count("<p>part") == 3 and text.endswith("</p>")
        self.get("/page", GZ)
        assert len(self.cache) == 0

    def test_a_small_answer_is_sent_as_it_is(self):
        r = self.get("/status.json", GZ)
        assert "Content-Encoding" not in r.headers and json.loads(r.body) == {"ready": True}
        assert len(self.cache) == 0


def test_the_server_cache_is_one_shared_object():
    assert CachedGzip.cache is compression.CACHE

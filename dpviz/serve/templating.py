"""Compile Voilà's page templates once per server, not once per page.

Voilà builds a new nbconvert exporter, and with it a new Jinja environment, for every lesson page it renders, so
every page request parsed and compiled the same dozen templates again: about a third of the server's CPU while a
class opens a lesson without pre-heated kernels (measured with py-spy). Jinja's bytecode cache is the documented
remedy; here it lives in memory, shared by the environments the exporters create. A cached template is used only
when its source checksum matches (Jinja checks it), and environments that compile differently (async or not, other
extensions) get separate caches.
"""

from __future__ import annotations

import jinja2

__all__ = ["MemoryBytecodeCache", "install"]


class MemoryBytecodeCache(jinja2.BytecodeCache):
    """Jinja bytecode kept in a dict (the server's lifetime; a dozen templates)."""

    def __init__(self) -> None:
        self._store: dict[str, bytes] = {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        code = self._store.get(bucket.key)
        if code is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self._store[bucket.key] = bucket.bytecode_to_string()

    def clear(self) -> None:
        self._store.clear()


_CACHES: dict[tuple, MemoryBytecodeCache] = {}


def cache_for(environment: jinja2.Environment) -> MemoryBytecodeCache:
    """The shared cache of environments that compile like this one."""
    key = (environment.is_async, tuple(sorted(environment.extensions)), environment.autoescape is True,
           environment.block_start_string, environment.variable_start_string, environment.comment_start_string)
    return _CACHES.setdefault(key, MemoryBytecodeCache())


def install() -> None:
    """Give every environment Voilà's exporter creates the shared bytecode cache (idempotent)."""
    from voila.exporter import VoilaExporter

    if getattr(VoilaExporter, "_dpviz_bytecode_cache", False):
        return
    create = VoilaExporter._create_environment

    def _create_environment(self):
        environment = create(self)
        environment.bytecode_cache = cache_for(environment)
        return environment

    VoilaExporter._create_environment = _create_environment
    VoilaExporter._dpviz_bytecode_cache = True

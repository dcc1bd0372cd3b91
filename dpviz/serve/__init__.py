"""Serving dpviz to a class: Voilà with a kernel pool, a fork server and guards (``dpviz serve``; the
``dpviz[serve]`` extra installs what it needs beyond the library).

- :mod:`dpviz.serve.app`: the Voilà application (``python -m dpviz.serve``; ``dpviz serve`` is an alias);
- :mod:`dpviz.serve.pool`: the kernel pool for a class, the memory budget, kernel ownership and lifecycle (a
  kernel ends when its page is gone), as a mixin for Voilà's pooled kernel manager;
- :mod:`dpviz.serve.forkserver`: kernels forked from a process that has already imported the lessons' modules;
- :mod:`dpviz.serve.guards`: the HTTP and WebSocket handlers that guard the kernels (framing checks, ownership,
  "class is full" pages) and the teacher's status page;
- :mod:`dpviz.serve.procs`: memory and CPU of the server and its kernels (psutil);
- :mod:`dpviz.serve.compression`, :mod:`dpviz.serve.templating`, :mod:`dpviz.serve.connection`: gzip with a
  per-file cache, compiled page templates, no-delay kernel WebSockets.

Nothing in the library imports this package: it sits on top of the lessons (tests/contracts/test_layers.py).
"""

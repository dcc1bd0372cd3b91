"""Serving dpviz to a class: the pieces ``python -m dpviz.app`` adds to Voilà.

- :mod:`dpviz.server.procinfo`: CPU and memory of the server and its kernels, read from ``/proc``;
- :mod:`dpviz.server.kernels`: the kernel pool for a class, the memory budget, kernel ownership and lifecycle
  (a kernel ends when its page is gone);
- :mod:`dpviz.server.forkserver`: kernels forked from a process that has already imported the lessons' modules
  (about half a CPU-second less per student);
- :mod:`dpviz.server.handlers`: the HTTP and WebSocket handlers that guard the kernels (framing checks,
  ownership, friendly "class is full" pages) and the teacher's status page;
- :mod:`dpviz.server.compression`: gzip for pages and files, each static file compressed once.

Nothing in the library imports this package; it sits above the notebooks, beside :mod:`dpviz.app`.
"""

"""The classroom benchmarks: the load test (``make loadtest``, ``dpviz loadtest``), what one session costs, and the
server's clock for ``benchmarks/anatomy.py``. Each runs as ``python -m benchmarks.classroom.<name>`` from the
checkout, or by its path."""

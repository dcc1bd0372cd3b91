"""Moved to ``benchmarks/classroom/server_clock.py``; this name stays for ``benchmarks/anatomy.py`` (which imports
it and runs it by path) until it uses the new one."""
import sys

from classroom.server_clock import arrivals, install  # noqa: F401

if __name__ == "__main__":
    if install(sys.argv[1]) is None:
        print("server_clock: jupyter_server has no handle_outgoing_message to wrap; no server clock", file=sys.stderr)
    from dpviz.serve.app import main

    main(sys.argv[2:])

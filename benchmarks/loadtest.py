"""Moved to ``benchmarks/classroom/loadtest.py``; this name stays for ``benchmarks/redraw.py``'s import until it
imports from there."""
from classroom.loadtest import *  # noqa: F403
from classroom.loadtest import CHROMIUM, browser_unavailable  # noqa: F401

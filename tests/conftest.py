"""Shared test configuration.

The tests mirror the layers, one folder each: ``numerics/`` (the core against exact oracles), ``figures/``
(``dpviz.plots``), ``panels/``, ``contracts/`` (the adversarial sweeps, layering, lint, references), ``lessons/``
(notebooks, prose quotes, notation, export, docs), ``serve/`` (the server, the fork server, the class store, the
load test's smoke run, packaging), ``browser/`` (Chromium through Voilà) and ``benchmarks/``. Each test is marked with
its folder's name (``pytest -m numerics``), and ``make test-fast`` runs the fast layer alone.

Hypothesis: a fixed profile (derandomized, modest examples, no deadline) so runs are reproducible on a 2-core
machine; set HYPOTHESIS_PROFILE=thorough for a longer local search.
"""

import json
import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("thorough", max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


TESTS = Path(__file__).resolve().parent
#: The folders of tests/, each a marker (registered in pyproject.toml).
LAYERS = ("numerics", "figures", "panels", "contracts", "lessons", "serve", "browser", "benchmarks")


def pytest_collection_modifyitems(config, items):
    """Mark each test with its folder (its layer)."""
    for item in items:
        try:
            folder = Path(str(item.path)).resolve().relative_to(TESTS).parts[0]
        except ValueError:  # the package's doctests (testpaths includes dpviz/)
            continue
        if folder in LAYERS:
            item.add_marker(getattr(pytest.mark, folder))


@pytest.fixture(autouse=True)
def _mpmath_precision():
    """mpmath's precision is process-global and several test modules set it at import; the last import would
    win for every module. Every test runs its high-precision oracles at 50 significant digits instead."""
    try:
        import mpmath
    except ImportError:  # pragma: no cover
        yield
        return
    saved = mpmath.mp.dps
    mpmath.mp.dps = 50
    yield
    mpmath.mp.dps = saved


def pytest_terminal_summary(terminalreporter):
    """The browser tests' first-figure and slider→figure times (issue 14: reported, never asserted)."""
    module = sys.modules.get("test_browser")
    import numpy as np

    firsts = sorted(getattr(module, "FIRST_FIGURE_TIMES", []), key=lambda r: r[1])
    warm = [r for r in firsts if r[2]]
    if warm:
        p50, worst = 1000 * float(np.percentile([r[1] for r in warm], 50)), warm[-1]
        cold = f"; {len(firsts) - len(warm)} opened without one (not counted)" if len(warm) < len(firsts) else ""
        terminalreporter.write_line(
            f"browser first figure, pre-heated kernel ({len(warm)} lessons; page request until a figure is drawn, "
            f"page's clock): p50 {p50:.0f} ms, slowest: " + ", ".join(
                f"lesson {name[:2]} {1000 * t:.0f} ms" for name, t, _ in warm[::-1][:4]) + cold
            + f" (target ≤ 3 s: {'met' if worst[1] <= 3.0 else 'not met'})")
    records = sorted(getattr(module, "SLIDER_TIMES", []), key=lambda r: r[1])
    if not records:
        return
    if os.environ.get("DPVIZ_BROWSER_TIMES"):  # one JSON line per run, to compare runs (each panel is moved once)
        with open(os.environ["DPVIZ_BROWSER_TIMES"], "a", encoding="utf-8") as out:
            out.write(json.dumps({"first_figure": firsts, "slider": records}) + "\n")

    groups = [("every panel", records), ("drag panels", [r for r in records if not r[2]]),
              ("slow (release-only) panels", [r for r in records if r[2]])]
    for label, rows in groups:
        if not rows:
            continue
        p50, p95 = (1000 * float(np.percentile([r[1] for r in rows], q)) for q in (50, 95))
        slowest = ", ".join(f"lesson {name[:2]} {panel} {1000 * t:.0f} ms" for name, t, _, panel in rows[::-1][:8])
        terminalreporter.write_line(f"browser slider→figure, {label} ({len(rows)}; first key press until the figure "
                                    f"changed): p50 {p50:.0f} ms, p95 {p95:.0f} ms; slowest: {slowest}")


@pytest.fixture(scope="session", autouse=True)
def _collect_test_client_sockets_at_the_end():
    """A test's own loopback client socket left to the garbage collector (the server tests provoke closed
    connections) would otherwise surface as an unraisable ResourceWarning in pytest's final collection, after every
    test passed (fresh-clone run of 2026-11-29). Collected here, with that warning (about this process's client
    sockets, not the server) ignored."""
    yield
    import gc
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        gc.collect()

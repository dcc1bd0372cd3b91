"""``make bench``: in-kernel update time of every widget panel, and the named computations of each topic.

Panels: every registered :class:`dpviz.panels.Panel` is built at its defaults, then each control is driven
programmatically across its range (``Panel.bench_values()``), one value at a time, and every update is timed
(the same code path a slider move runs in the kernel: render + figure sync). After each control's sweep it is
put back to its default, so each row measures the panel around its default settings.

Computations: each ``benchmarks/bench_*.py`` may expose ``CASES = [(name, zero_arg_callable, target_s), ...]``
and a ``compare_dp_accounting()`` returning printable lines.

Prints a table of p50 / p95 / max per widget with its target; no test asserts a time.
Usage: ``python benchmarks/run.py [--repeat N] [--only SUBSTRING]``.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from dpviz.panels._base import PANEL_REGISTRY  # noqa: E402


def import_panels() -> list[str]:
    """Import every dpviz.panels submodule so its panels register; report (not hide) modules that fail."""
    import importlib
    import pkgutil

    import dpviz.panels as pkg

    problems = []
    for m in pkgutil.iter_modules(pkg.__path__):
        if m.name.startswith("_"):
            continue
        try:
            importlib.import_module(f"dpviz.panels.{m.name}")
        except Exception as exc:  # report and go on: one broken module must not hide the others' numbers
            problems.append(f"dpviz.panels.{m.name}: {type(exc).__name__}: {exc}")
    return problems

#: Per-panel targets (seconds, p95) from the issues: lesson 01 widgets 50 ms, the others 100 ms.
DEFAULT_TARGET = 0.100
LESSON_TARGETS = {"dpviz.panels.privacy_loss": 0.050}


def _pct(samples, q):
    return float(np.percentile(np.asarray(samples), q)) if samples else float("nan")


def bench_panel(cls, repeat: int = 1) -> tuple[list[float], int, list[str]]:
    panel = cls()
    problems = [f"default settings: {panel.last_error}"] if panel.last_error else []
    panel.update()  # warm-up: lazy imports and plotly validators are paid once per kernel, not per slider move
    samples: list[float] = []
    slow_updates = 0
    defaults = panel.values()
    for _ in range(repeat):
        for name, values in panel.bench_values().items():
            control = panel.controls[name]
            for value in values:
                if value == control.value:
                    continue
                n_before = len(panel.timings.samples)
                control.value = value
                if len(panel.timings.samples) > n_before:
                    samples.append(panel.timings.samples[-1])
            if control.value != defaults[name]:
                control.value = defaults[name]  # back to default (not timed separately: also an update)
                samples.append(panel.timings.samples[-1])
    if getattr(cls, "slow", False):
        slow_updates = len(samples)
    return samples, slow_updates, problems


def load_case_modules():
    modules = []
    for path in sorted(HERE.glob("bench_*.py")):
        spec = importlib.util.spec_from_file_location(path.stem, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        modules.append(mod)
    return modules


def time_case(fn, repeat: int) -> list[float]:
    fn()  # warm-up (imports, caches)
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=1, help="sweeps per control (panels) / runs per case")
    ap.add_argument("--only", default="", help="run only panels/cases whose name contains this")
    args = ap.parse_args(argv)

    print("Widget update time (in-kernel: render + figure sync), each control swept across its range")
    header = f"{'panel':44s} {'module':28s} {'n':>4s} {'p50 ms':>8s} {'p95 ms':>8s} {'max ms':>8s} {'target':>7s}  ok"
    print(header)
    print("-" * len(header))
    for problem in import_panels():
        print(f"  ! could not import {problem}")
    for name, cls in sorted(PANEL_REGISTRY.items(), key=lambda kv: (kv[1].__module__, kv[0])):
        if args.only and args.only not in name and args.only not in cls.__module__:
            continue
        samples, _, problems = bench_panel(cls, args.repeat)
        target = LESSON_TARGETS.get(cls.__module__, DEFAULT_TARGET)
        p50, p95, mx = _pct(samples, 50), _pct(samples, 95), max(samples) if samples else float("nan")
        ok = p95 <= target and not problems
        mark = "yes" if ok else ("slow*" if getattr(cls, "slow", False) else "NO")
        print(f"{name:44s} {cls.__module__.replace('dpviz.panels.', ''):28s} {len(samples):4d} "
              f"{p50 * 1e3:8.1f} {p95 * 1e3:8.1f} {mx * 1e3:8.1f} {target * 1e3:6.0f}ms  {mark}")
        for problem in problems:
            print(f"    ! {problem}")
    print("  * slow panels fire on release only and show a progress bar while they compute.")

    modules = load_case_modules()
    cases = [(c, m.__name__) for m in modules for c in getattr(m, "CASES", [])]
    if cases:
        print()
        print("Computations")
        header = f"{'case':60s} {'runs':>4s} {'p50 s':>8s} {'p95 s':>8s} {'target':>8s}  ok"
        print(header)
        print("-" * len(header))
        for (case_name, fn, target), _mod in cases:
            if args.only and args.only not in case_name:
                continue
            ts = time_case(fn, max(args.repeat, 3))
            p50, p95 = statistics.median(ts), _pct(ts, 95)
            ok = target is None or p95 <= target
            tgt = f"{target:7.2f}s" if target is not None else "       -"
            print(f"{case_name:60s} {len(ts):4d} {p50:8.3f} {p95:8.3f} {tgt}  {'yes' if ok else 'NO'}")
    for m in modules:
        if hasattr(m, "compare_dp_accounting") and not args.only:
            print()
            print("PLD accountant against dp-accounting (same query, same run)")
            for line in m.compare_dp_accounting():
                print("  " + line)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""What one student's session costs the server: a kernel started, a lesson executed, every figure built.

For each lesson, a fresh kernel is started as ``dpviz serve`` starts them (same environment: one BLAS
thread, the shared plotly bundle), the lesson's code cells are executed in it as Voila executes them, and the
kernel's CPU time (user + system, from /proc) and resident memory are read when the last cell has finished.
A kernel that only imports ipykernel, ipywidgets, numpy, scipy (the lazy package) and plotly is measured the
same way as the floor. With ``--profile LESSON`` the lesson's cells run under cProfile inside the kernel and
the top functions by cumulative time are printed.

    .venv/bin/python -m benchmarks.classroom.session_cost [--lessons 03,07] [--repeat 2] [--profile 11]

Target (issue 11): ≤ 2 CPU-seconds and ≤ 130 MB per session on the 2-core development machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

from jupyter_client.manager import KernelManager

from dpviz.lessons import NOTEBOOK_DIR, lessons

# the floor: "Python with numpy, scipy, plotly, ipywidgets and ipykernel imported"
FLOOR = "import ipywidgets, numpy, scipy, plotly.graph_objects"
ENV = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "NUMEXPR_NUM_THREADS": "1",
       "DPVIZ_PLOTLY_BUNDLE_URL": "/dpviz-static/plotly-cartesian.min.js"}
TICK = os.sysconf("SC_CLK_TCK")


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK  # utime, stime


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _code_cells(path: Path) -> list[str]:
    nb = json.loads(path.read_text())
    return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]


def _run(cells: list[str], timeout: float = 300) -> dict:
    km = KernelManager(kernel_name="python3")
    km.start_kernel(env={**os.environ, **ENV}, cwd=str(NOTEBOOK_DIR))
    t0 = time.perf_counter()
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=120)
        for code in cells:
            reply = kc.execute_interactive(code, timeout=timeout, output_hook=lambda msg: None)
            if reply["content"]["status"] != "ok":
                raise RuntimeError(f"cell failed: {code[:80]!r}: {reply['content'].get('evalue')}")
        pid = km.provisioner.process.pid
        return {"cpu_s": _cpu_seconds(pid), "rss_mb": _rss_mb(pid), "wall_s": time.perf_counter() - t0}
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def _profile_cells(cells: list[str]) -> list[str]:
    body = "\n".join(cells[1:])
    return [
        "import cProfile, pstats, io\n_dpviz_prof = cProfile.Profile()\n_dpviz_prof.enable()\n" + cells[0]
        + "\n_dpviz_prof.disable()",
        "_dpviz_prof.enable()\n" + body + "\n_dpviz_prof.disable()\n_s = io.StringIO()\n"
        "pstats.Stats(_dpviz_prof, stream=_s).sort_stats('cumulative').print_stats(45)\n"
        "open('/tmp/dpviz_session_profile.txt', 'w').write(_s.getvalue())",
    ]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lessons", default="", help="comma-separated lesson numbers (default: all)")
    ap.add_argument("--repeat", type=int, default=1, help="kernels per lesson (the median is reported)")
    ap.add_argument("--profile", default="", help="one lesson number: print where its session's time goes")
    ap.add_argument("--json", default="", help="write the numbers to this file")
    args = ap.parse_args(argv)
    chosen = [lesson for lesson in lessons()
              if not args.lessons or lesson.filename[:2] in args.lessons.split(",")]
    if args.profile:
        lesson = next(x for x in lessons() if x.filename.startswith(args.profile))
        _run(_profile_cells(_code_cells(lesson.path)))
        print(Path("/tmp/dpviz_session_profile.txt").read_text())
        return 0

    rows = {}
    floor = [_run([FLOOR]) for _ in range(args.repeat)]
    rows["(imports only)"] = floor
    for lesson in chosen:
        rows[lesson.filename] = [_run(_code_cells(lesson.path)) for _ in range(args.repeat)]
    print(f"{'session':34s} {'CPU s':>7s} {'RSS MB':>7s} {'wall s':>7s}")
    out = {}
    for name, runs in rows.items():
        med = {k: statistics.median(r[k] for r in runs) for k in ("cpu_s", "rss_mb", "wall_s")}
        out[name] = med
        print(f"{name:34s} {med['cpu_s']:7.2f} {med['rss_mb']:7.0f} {med['wall_s']:7.2f}")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

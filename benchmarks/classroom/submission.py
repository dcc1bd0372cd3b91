"""What one class-view submission costs the server: :meth:`dpviz.serve.classview.ClassView.submit` on a real store.

A class of ``--students`` browsers (kernels each owned by one) answers one four-option exercise, every answer a
``BEGIN IMMEDIATE … COMMIT`` with ``synchronous=FULL`` (one fsync of the log per answer) in a fresh class folder;
in local privacy each answer also recomputes and stores the class's debiased estimate (the release a student's
"your class so far" shows). Then, in central privacy, the teacher's release (discrete Laplace noise, budget check,
the release and its ledger entry in one transaction). Times are wall-clock per call on this machine, p50 and p95
over ``--repeat`` classes; the HTTP relay (tornado parsing the request, loopback) comes on top and is in the load
test's submit→visible time.

    .venv/bin/python -m benchmarks.classroom.submission [--students 30] [--repeat 10] [--json]

Target (issue 39): under 5 ms per submission.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
import uuid
from pathlib import Path

from dpviz.serve.classstore import ClassStore
from dpviz.serve.classview import ClassView

LABELS = ["a", "b", "c", "d"]


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run(students: int = 30, repeat: int = 10) -> dict:
    """Per privacy mode: p50/p95/max of one submission (ms), and in central privacy of one release."""
    report = {}
    for privacy in ("local", "central"):
        submit_ms, release_ms = [], []
        for r in range(repeat):
            with tempfile.TemporaryDirectory() as tmp:
                owners = {str(uuid.uuid4()): f"browser-{r:03d}-{i:04d}-xxxx" for i in range(students)}
                view = ClassView(ClassStore(Path(tmp)), privacy=privacy, owner_of=owners.get)
                for i, kernel in enumerate(owners):
                    body = {"kernel": kernel, "exercise": "Bench.exercise", "submission": uuid.uuid4().hex[:16],
                            "bucket": i % 4, "domain": {"labels": LABELS, "title": "q", "lesson": "bench",
                                                        "correct": [0], "kind": "choice"}}
                    t = time.perf_counter()
                    view.submit(body)
                    submit_ms.append(1e3 * (time.perf_counter() - t))
                if privacy == "central":
                    t = time.perf_counter()
                    view.release("Bench.exercise")
                    release_ms.append(1e3 * (time.perf_counter() - t))
                view.store.close()
        entry = {"submissions": len(submit_ms), "submit_p50_ms": statistics.median(submit_ms),
                 "submit_p95_ms": _percentile(submit_ms, 0.95), "submit_max_ms": max(submit_ms)}
        if release_ms:
            entry.update(release_p50_ms=statistics.median(release_ms), release_p95_ms=_percentile(release_ms, 0.95))
        report[privacy] = entry
    return report


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--students", type=int, default=30, help="answers per class (default 30)")
    p.add_argument("--repeat", type=int, default=10, help="classes per mode (default 10)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    opts = p.parse_args(argv)
    if not 1 <= opts.students <= 10_000 or not 1 <= opts.repeat <= 1000:
        p.error("--students must be in [1, 10000] and --repeat in [1, 1000]")
    report = run(opts.students, opts.repeat)
    if opts.json:
        print(json.dumps(report, indent=2))
        return
    print(f"class-view submission cost ({opts.students} answers x {opts.repeat} classes per mode; target < 5 ms):")
    for privacy, e in report.items():
        line = (f"  {privacy:7s} submit p50 {e['submit_p50_ms']:.2f} ms, p95 {e['submit_p95_ms']:.2f} ms, "
                f"max {e['submit_max_ms']:.2f} ms")
        if "release_p50_ms" in e:
            line += f"; release p50 {e['release_p50_ms']:.2f} ms, p95 {e['release_p95_ms']:.2f} ms"
        print(line)


if __name__ == "__main__":
    main()

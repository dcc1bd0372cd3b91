"""The class-view submission benchmark runs and reports what it says (no time is asserted: speed is measured in
``make bench``, never as a timed unit test)."""

from benchmarks.classroom import submission


def test_the_submission_benchmark_reports_both_modes_and_the_release():
    report = submission.run(students=4, repeat=2)
    assert set(report) == {"local", "central"}
    for entry in report.values():
        assert entry["submissions"] == 8
        assert 0 < entry["submit_p50_ms"] <= entry["submit_p95_ms"] <= entry["submit_max_ms"]
    assert "release_p50_ms" in report["central"] and "release_p50_ms" not in report["local"]


def test_the_percentile_is_an_order_statistic():
    assert submission._percentile([5.0, 1.0, 3.0, 2.0, 4.0], 0.5) == 3.0
    assert submission._percentile([1.0, 2.0], 0.95) == 2.0

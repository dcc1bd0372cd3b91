"""dpviz._cache.RecentResults: the bounded cache behind heterogeneity_point and robustness_curve."""

from __future__ import annotations

from dpviz._cache import RecentResults


def test_the_least_recently_used_result_goes_first():
    c = RecentResults(2)
    c.put("a", 1)
    c.put("b", 2)
    assert c.get("a") == 1  # a is now the most recently used
    c.put("c", 3)  # over the size: b goes
    assert "b" not in c and c.get("b") is None
    assert c.get("a") == 1 and c.get("c") == 3 and len(c) == 2
    c.put("a", 10)  # a new value for a kept key replaces it, no growth
    assert c.get("a") == 10 and len(c) == 2
    c.clear()
    assert len(c) == 0 and "a" not in c


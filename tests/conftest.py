"""Shared test configuration.

Hypothesis: a fixed profile (derandomized, modest examples, no deadline) so runs are reproducible on a 2-core
machine; set HYPOTHESIS_PROFILE=thorough for a longer local search.
"""

import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("thorough", max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


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

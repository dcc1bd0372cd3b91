"""Shared test configuration.

Hypothesis: a fixed profile (derandomized, modest examples, no deadline) so runs are reproducible on a 2-core
machine; set HYPOTHESIS_PROFILE=thorough for a longer local search.
"""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("thorough", max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

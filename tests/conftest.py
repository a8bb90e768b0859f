"""Suite-wide test settings."""

from __future__ import annotations

from hypothesis import HealthCheck, settings

# A busy CI machine must not fail a property: no per-example deadline, and a bounded example count
# so that the suite's length does not depend on hypothesis' defaults. Tests may ask for fewer.
settings.register_profile(
    "conveyor",
    deadline=None,
    max_examples=100,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("conveyor")

"""Suite-wide test settings."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from conveyor.log import Log, open_log

# A busy CI machine must not fail a property: no per-example deadline, and a bounded example count
# so that the suite's length does not depend on hypothesis' defaults. Tests may ask for fewer.
settings.register_profile(
    "conveyor",
    deadline=None,
    max_examples=100,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("conveyor")


@pytest.fixture
def log_url(tmp_path: Path) -> str:
    """A fresh embedded log in the test's own directory; tests/log overrides it for every backend."""
    return f"embedded:{tmp_path / 'log'}"


@pytest.fixture
def log(log_url: str) -> Iterator[Log]:
    opened = open_log(log_url)
    yield opened
    opened.close()

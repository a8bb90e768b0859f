"""The log backends a test can run on, and a fresh, empty log of each: one place for every test folder.

Every Kafka test shares the session's broker (`kafka_bootstrap`); a namespace of its own prefixes its
topics, groups and transactional ids, so the log looks fresh and empty to it.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

BACKENDS = ["embedded", "kafka"]


def fresh_log_url(request: pytest.FixtureRequest, backend: str, directory: Path) -> str:
    """The URL of a fresh log of ``backend`` (an embedded one in ``directory``); an ``embedded_only`` test
    is reported skipped on Kafka."""
    only = request.node.get_closest_marker("embedded_only")
    if only is not None and backend != "embedded":
        pytest.skip(f"embedded log only: {only.kwargs['reason']}")
    if backend == "embedded":
        return f"embedded:{directory / 'log'}"
    if backend == "kafka":
        bootstrap: str = request.getfixturevalue("kafka_bootstrap")
        return f"kafka://{bootstrap}?namespace=t{uuid.uuid4().hex[:12]}."
    raise AssertionError(f"no log for backend {backend}")


def embedded_only(reason: str) -> pytest.MarkDecorator:
    """Marks a test that runs on the embedded log only; on Kafka it is reported skipped, with ``reason``."""
    return pytest.mark.embedded_only(reason=reason)

"""Standalone workers for the behaviour and chaos tests: real log, real Spark, real REST.

Every test module shares the test process's one SparkSession; each module starts the workers it
needs on data dirs of its own, and the connectors a test creates are deleted after it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from log_backends import BACKENDS, fresh_log_url

REPOSITORY = Path(__file__).resolve().parents[2]

# The test connectors are named by their dotted path `tests.worker.connectors:...`, which the
# worker (this process) and the Spark executors (started in the repository) both import.
if str(REPOSITORY) not in sys.path:
    sys.path.insert(0, str(REPOSITORY))


@pytest.fixture(scope="module", params=BACKENDS)
def worker_log_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The log a module's workers run on, each backend in turn: the embedded log, then the session's Kafka
    broker under a namespace of the module's own (fresh topics, groups and transactional ids)."""
    return fresh_log_url(request, request.param, tmp_path_factory.mktemp("log"))

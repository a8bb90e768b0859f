"""Fixtures of the Spark data source tests: one shared SparkSession, a fresh log per test.

A test marked ``on_both_backends`` runs twice: on the embedded log and on the session's Kafka broker
(``kafka_bootstrap``), where a namespace of its own makes the log look fresh. Other tests use the
embedded log only.
"""

from __future__ import annotations

import itertools
import uuid
from pathlib import Path
from typing import Final

import pytest
from pyspark.sql import SparkSession

from conveyor.log import Log
from conveyor.spark.datasource import register
from conveyor.spark.session import get_or_create_session

BACKENDS: Final = ("embedded", "kafka")
BOTH_BACKENDS_MARKER: Final = "on_both_backends"

on_both_backends = getattr(pytest.mark, BOTH_BACKENDS_MARKER)
"""Runs a test on every log backend (its ``log_url`` is parametrized)."""

_topic_numbers = itertools.count()


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "log_url" in metafunc.fixturenames and metafunc.definition.get_closest_marker(BOTH_BACKENDS_MARKER):
        metafunc.parametrize("log_url", BACKENDS, indirect=True)


@pytest.fixture
def log_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh log: embedded in the test's directory, or a namespace of its own on the Kafka broker."""
    backend: str = getattr(request, "param", "embedded")
    if backend == "embedded":
        return f"embedded:{tmp_path / 'log'}"
    bootstrap: str = request.getfixturevalue("kafka_bootstrap")
    return f"kafka://{bootstrap}?namespace=s{uuid.uuid4().hex[:12]}."


@pytest.fixture(scope="session")
def spark_session() -> SparkSession:
    """The process's SparkSession (never stopped here)."""
    return get_or_create_session()


@pytest.fixture
def spark(spark_session: SparkSession) -> SparkSession:
    """The process's SparkSession with the conveyor source registered, checked before each test: the
    workers other tests run in this process share the session."""
    register(spark_session)
    return spark_session


@pytest.fixture
def topic(log: Log) -> str:
    """A fresh topic with three partitions."""
    name = f"events-{next(_topic_numbers)}"
    log.admin().create_topic(name, partitions=3)
    return name

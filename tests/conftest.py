"""Suite-wide test settings."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from tests.blocking import Blocker

from conveyor.kafka_broker import KafkaBroker
from conveyor.log import Log, open_log
from conveyor.postgres_server import PostgresServer

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


@pytest.fixture(scope="session")
def kafka_bootstrap(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The bootstrap servers of one real Apache Kafka broker, started once for the whole test session.

    ``CONVEYOR_KAFKA_BOOTSTRAP`` names a running broker to use instead (``make kafka`` starts one).
    """
    external = os.environ.get("CONVEYOR_KAFKA_BOOTSTRAP")
    if external:
        yield external
        return
    with KafkaBroker(tmp_path_factory.mktemp("kafka-broker")) as broker:
        yield broker.bootstrap_servers


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    """One real PostgreSQL server (``wal_level=logical``) for the whole test session.

    Tests that need a database of their own create one (``CREATE DATABASE``) rather than share ``postgres``.
    """
    with PostgresServer() as server:
        yield server


@pytest.fixture
def blockers(tmp_path: Path) -> Iterator[Callable[[str], Blocker]]:
    """Makes blockers, each in a directory of its own; every one is released after the test."""
    made: list[Blocker] = []

    def blocker(call: str) -> Blocker:
        directory = tmp_path / f"blocker-{len(made)}"
        directory.mkdir()
        made.append(Blocker(directory, call))
        return made[-1]

    yield blocker
    for each in made:
        each.release()

"""One standalone worker (embedded log, the process's SparkSession, REST) for the Spark sink tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from pyspark.sql import SparkSession

from conveyor.cli.worker_process import StandaloneWorker
from conveyor.log import Log
from conveyor.spark.session import get_or_create_session

from .support import running_worker


@pytest.fixture(scope="session")
def spark() -> SparkSession:
    """The process's SparkSession (never stopped here)."""
    return get_or_create_session()


@pytest.fixture(scope="module")
def worker(tmp_path_factory: pytest.TempPathFactory, spark: SparkSession) -> Iterator[StandaloneWorker]:
    with running_worker(tmp_path_factory.mktemp("worker")) as started:
        yield started


@pytest.fixture
def log(worker: StandaloneWorker) -> Log:
    return worker.log


@pytest.fixture
def client(worker: StandaloneWorker) -> Iterator[httpx.Client]:
    """The worker's REST client; the connectors a test creates are deleted after it."""
    with httpx.Client(base_url=worker.url, timeout=60.0) as rest:
        yield rest
        for name in rest.get("/connectors").json():
            rest.delete(f"/connectors/{name}")


@pytest.fixture
def output(tmp_path: Path) -> Path:
    return tmp_path / "output"

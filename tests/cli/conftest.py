"""One real standalone worker (embedded log, Spark, REST) per module for the operator commands to drive."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from tests.worker.support import delete_all_connectors, rest_client, running_worker

from conveyor.cli.worker_process import StandaloneWorker


@pytest.fixture(scope="module")
def worker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StandaloneWorker]:
    with running_worker(tmp_path_factory.mktemp("cli"), **{"task.restart.enable": "false"}) as started:
        yield started


@pytest.fixture
def rest(worker: StandaloneWorker) -> Iterator[httpx.Client]:
    """The worker's REST API, to check what a command did; connectors are deleted after each test."""
    with rest_client(worker) as client:
        yield client
        delete_all_connectors(client)

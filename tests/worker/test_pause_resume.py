"""Pausing and resuming a source connector (Kafka's `test_pause_and_resume_source`)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest

from conveyor.cli.worker_process import StandaloneWorker

from .support import (
    create_connector,
    delete_all_connectors,
    end_offset,
    generator_config,
    rest_client,
    running_worker,
    unique,
    wait_for_states,
    wait_until,
)

QUIET_S = 2.0


@pytest.fixture(scope="module")
def worker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StandaloneWorker]:
    with running_worker(tmp_path_factory.mktemp("pause")) as started:
        yield started


@pytest.fixture
def client(worker: StandaloneWorker) -> Iterator[httpx.Client]:
    with rest_client(worker) as rest:
        yield rest
        delete_all_connectors(rest)


@pytest.fixture
def generating(client: httpx.Client, worker: StandaloneWorker) -> tuple[str, str]:
    """A running two-task generator at a modest rate, and its topic, which is already growing."""
    name, topic = unique("paced"), unique("paced-topic")
    create_connector(client, name, generator_config(topic, rate="200", **{"tasks.max": "2"}))
    wait_for_states(client, name, "RUNNING", ["RUNNING", "RUNNING"])
    wait_until(lambda: end_offset(worker.log, topic) > 0, f"records in {topic}")
    return name, topic


def test_pause_shows_the_connector_and_every_task_paused(
    client: httpx.Client, generating: tuple[str, str]
) -> None:
    name, _ = generating
    assert client.put(f"/connectors/{name}/pause").status_code == 202
    wait_for_states(client, name, "PAUSED", ["PAUSED", "PAUSED"])


def test_a_paused_source_writes_nothing_more(
    client: httpx.Client, worker: StandaloneWorker, generating: tuple[str, str]
) -> None:
    name, topic = generating
    client.put(f"/connectors/{name}/pause")
    wait_for_states(client, name, "PAUSED", ["PAUSED", "PAUSED"])
    paused_at = end_offset(worker.log, topic)
    time.sleep(QUIET_S)
    assert end_offset(worker.log, topic) == paused_at


def test_a_resumed_source_runs_and_writes_again(
    client: httpx.Client, worker: StandaloneWorker, generating: tuple[str, str]
) -> None:
    name, topic = generating
    client.put(f"/connectors/{name}/pause")
    wait_for_states(client, name, "PAUSED", ["PAUSED", "PAUSED"])
    paused_at = end_offset(worker.log, topic)
    assert client.put(f"/connectors/{name}/resume").status_code == 202
    wait_for_states(client, name, "RUNNING", ["RUNNING", "RUNNING"])
    wait_until(lambda: end_offset(worker.log, topic) > paused_at, f"{topic} to grow after the resume")

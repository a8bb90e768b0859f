"""A task host has a resident memory limit of Conveyor's own (`task.memory.limit`): a task that allocates
without bound ends FAILED with a `MemoryError` naming the limit and the key to raise, while the other
connectors of the worker run on; one that does not stop after it has its host process ended; each task's
status and `GET /metrics` show the limit beside the memory.

The limit is a worker property, so the test runs a `conveyor standalone` process of its own with a low
one (and without Spark's `spark.executor.pyspark.memory`), and with `task.placement=spread`: the limit
is a host process's, and only a task with a process of its own has one of its own (the default placement
lets idle tasks share a process)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from tests.conveyor_process import ConveyorProcess, start_standalone, with_test_plugins

from scraping import scrape, value

from .connectors import MEMORY_HOG, STUCK_MEMORY_HOG
from .support import create_connector, generator_config, status, wait_for_states, wait_until

STARTUP_S = 240.0
WAIT_S = 180.0
LIMIT_MB = 256


@pytest.fixture(scope="module")
def watched_worker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ConveyorProcess]:
    directory = tmp_path_factory.mktemp("memory-watchdog")
    props = {
        "data.dir": str(directory / "data"),
        "listeners": "http://127.0.0.1:0",
        "spark.master": "local[2,1]",
        "task.memory.limit": f"{LIMIT_MB}m",
        "task.placement": "spread",
        "task.restart.backoff.initial.ms": "60000",
    }
    worker = start_standalone(directory, props, STARTUP_S, with_test_plugins())
    try:
        yield worker
    finally:
        worker.stop()


@pytest.fixture
def client(watched_worker: ConveyorProcess) -> Iterator[httpx.Client]:
    with watched_worker.client() as rest:
        yield rest


def _task_metrics(client: httpx.Client, name: str) -> dict[str, Any]:
    metrics: dict[str, Any] = client.get(f"/connectors/{name}/tasks/0/status").json().get("metrics", {})
    return metrics


def _polled(client: httpx.Client, name: str) -> float:
    return float(_task_metrics(client, name).get("source-record-poll-total") or 0)


def test_a_task_over_the_memory_limit_fails_with_a_memory_error_naming_it_while_others_run_on(
    client: httpx.Client,
) -> None:
    create_connector(client, "steady", generator_config("steady", rate="20", records="-1"))
    wait_for_states(client, "steady", "RUNNING", ["RUNNING"], WAIT_S)
    create_connector(client, "hog", {"connector.class": MEMORY_HOG, "tasks.max": "1"})
    failed = wait_until(
        lambda: ((task := status(client, "hog")["tasks"][0])["state"] == "FAILED" and task) or None,
        "the memory hog to fail",
        WAIT_S,
    )
    assert "MemoryError" in failed["trace"]
    assert f"over its limit of {LIMIT_MB} MB (task.memory.limit" in failed["trace"]
    assert "raise task.memory.limit" in failed["trace"]
    client.delete("/connectors/hog")
    polled = _polled(client, "steady")
    wait_until(lambda: _polled(client, "steady") > polled, "the steady connector to poll on", WAIT_S)
    assert status(client, "steady")["tasks"][0]["state"] == "RUNNING"


def test_a_tasks_status_and_metrics_show_its_memory_limit_beside_its_memory(client: httpx.Client) -> None:
    create_connector(client, "shown", generator_config("shown", rate="10", records="-1"))
    wait_for_states(client, "shown", "RUNNING", ["RUNNING"], WAIT_S)
    shown = wait_until(
        lambda: (metrics := _task_metrics(client, "shown")).get("memory-limit-bytes") and metrics,
        "the task's memory limit in its status",
        WAIT_S,
    )
    assert shown["memory-limit-bytes"] == LIMIT_MB * 1024**2
    assert 10_000_000 < shown["memory-rss-bytes"] < LIMIT_MB * 1024**2
    samples = scrape(client)
    assert (
        value(samples, "conveyor_task_memory_limit_bytes", connector="shown", task="0") == LIMIT_MB * 1024**2
    )


def test_a_task_that_does_not_stop_after_its_memory_error_has_its_host_ended_and_fails(
    watched_worker: ConveyorProcess, client: httpx.Client
) -> None:
    create_connector(client, "stuck", {"connector.class": STUCK_MEMORY_HOG, "tasks.max": "1"})
    failed = wait_until(
        lambda: ((task := status(client, "stuck")["tasks"][0])["state"] == "FAILED" and task) or None,
        "the stuck memory hog to fail",
        WAIT_S,
    )
    assert "Python worker exited unexpectedly" in failed["trace"]
    lines = list(watched_worker.output)
    assert any("did not stop within" in line and "ending the host process" in line for line in lines)
    client.delete("/connectors/stuck")

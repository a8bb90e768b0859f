"""A task runs under Spark's memory limit (`spark.executor.pyspark.memory`) where it is set: one that
allocates without bound ends FAILED with a `MemoryError` in its trace, and its worker goes on serving and
running other tasks; through it all, the worker's log holds only lines in its own format. Conveyor's own
default limit (`task.memory.limit`, not set here) applies beside it and shows in each task's status.

The limit is a setting of the worker's SparkSession, so the test runs a `conveyor standalone` process of
its own with a small limit."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest
from tests.conveyor_process import ConveyorProcess, start_standalone, with_test_plugins

from scraping import scrape, value

from .connectors import MEMORY_HOG
from .support import create_connector, generator_config, status, wait_for_states, wait_until

STARTUP_S = 240.0
LIMIT = "1g"
DEFAULT_TASK_MEMORY_LIMIT_BYTES = 2 * 1024**3
"""`task.memory.limit`, which this worker leaves unset: Conveyor's own limit applies beside Spark's."""
WORKER_LINE = re.compile(r"\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}\] (DEBUG|INFO|WARNING|ERROR|CRITICAL) ")
NOT_LOGGING = (
    "REST API at http://",  # what the command prints for scripts once it serves
    "WARNING: Using incubator modules: jdk.incubator.vector",  # the JVM's own, before any logging
)


@pytest.fixture(scope="module")
def limited_worker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ConveyorProcess]:
    directory = tmp_path_factory.mktemp("memory-limit")
    props = {
        "data.dir": str(directory / "data"),
        "listeners": "http://127.0.0.1:0",
        "spark.master": "local[2,1]",
        "spark.executor.pyspark.memory": LIMIT,
        "task.restart.backoff.initial.ms": "60000",
    }
    worker = start_standalone(directory, props, STARTUP_S, with_test_plugins())
    try:
        yield worker
    finally:
        worker.stop()


@pytest.fixture
def client(limited_worker: ConveyorProcess) -> Iterator[httpx.Client]:
    with limited_worker.client() as rest:
        yield rest


def test_a_task_that_allocates_without_bound_fails_with_a_memory_error_and_the_worker_serves_on(
    client: httpx.Client,
) -> None:
    create_connector(client, "hog", {"connector.class": MEMORY_HOG, "tasks.max": "1"})
    failed = wait_until(
        lambda: ((task := status(client, "hog")["tasks"][0])["state"] == "FAILED" and task) or None,
        "the memory hog to fail",
    )
    assert "MemoryError" in failed["trace"]
    create_connector(client, "numbers", generator_config("numbers", rate="10", records="-1"))
    wait_for_states(client, "numbers", "RUNNING", ["RUNNING"])


def test_a_tasks_status_and_metrics_show_the_memory_of_its_process_and_the_default_limit(
    client: httpx.Client,
) -> None:
    create_connector(client, "counted", generator_config("counted", rate="10", records="-1"))
    wait_for_states(client, "counted", "RUNNING", ["RUNNING"])
    shown = wait_until(
        lambda: (
            (metrics := client.get("/connectors/counted/tasks/0/status").json().get("metrics", {})).get(
                "memory-rss-bytes"
            )
            and metrics
        ),
        "the task's memory in its status",
    )
    assert 10_000_000 < shown["memory-rss-bytes"] < 1024**3
    assert shown["memory-limit-bytes"] == DEFAULT_TASK_MEMORY_LIMIT_BYTES
    samples = scrape(client)
    published = value(samples, "conveyor_task_memory_rss_bytes", connector="counted", task="0")
    assert published is not None and 10_000_000 < published < 1024**3
    limit = value(samples, "conveyor_task_memory_limit_bytes", connector="counted", task="0")
    assert limit == DEFAULT_TASK_MEMORY_LIMIT_BYTES


def test_the_workers_log_holds_only_lines_in_its_format_through_start_and_a_failing_task(
    limited_worker: ConveyorProcess, client: httpx.Client
) -> None:
    create_connector(client, "hog-logged", {"connector.class": MEMORY_HOG, "tasks.max": "1"})
    wait_until(
        lambda: status(client, "hog-logged")["tasks"][0]["state"] == "FAILED", "the memory hog to fail"
    )
    lines = [line.rstrip("\n") for line in list(limited_worker.output)]
    foreign = [line for line in lines if not WORKER_LINE.match(line) and not line.startswith(NOT_LOGGING)]
    assert foreign == [], limited_worker.tail()
    failures = [line for line in lines if "Task hog-logged-0 failed" in line]
    assert failures and failures[0].startswith(failures[0][:26] + "ERROR [hog-logged|task-0] ")

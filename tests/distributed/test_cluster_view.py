"""One cluster, one view: three real worker processes on the session's Kafka broker, each asked for the
status of a connector whose tasks run one on each worker, reports every task's counters; a peer killed
with SIGKILL costs a bounded wait, and its tasks' metrics show as unknown rather than as 0."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from tests.distributed.worker_group import WorkerGroup, generator, worker_group
from tests.waiting import wait_until

TASKS = 3
RECORDS = 300
WAIT_S = 180.0
WRITTEN = "source-record-write-total"
REQUEST_S = 45.0
"""Bounds each status request: a worker waits a few seconds at most for a peer that does not answer (an
internal request of another kind waits 90 s)."""

pytestmark = pytest.mark.timeout(900)
"""Starting three worker processes, each with its SparkSession, takes long on a busy machine."""


@pytest.fixture(scope="module")
def group(tmp_path_factory: pytest.TempPathFactory, kafka_bootstrap: str) -> Iterator[WorkerGroup]:
    suffix = uuid.uuid4().hex[:8]
    on_kafka = {
        "bootstrap.servers": kafka_bootstrap,
        "group.id": f"cluster-view-{suffix}",
        "config.storage.topic": f"cluster-view-configs-{suffix}",
        "offset.storage.topic": f"cluster-view-offsets-{suffix}",
        "status.storage.topic": f"cluster-view-status-{suffix}",
        "config.storage.replication.factor": "1",
        "offset.storage.replication.factor": "1",
        "status.storage.replication.factor": "1",
        "spark.master": "local[2]",
        "scheduled.rebalance.max.delay.ms": "60000",
    }
    with worker_group(tmp_path_factory.mktemp("cluster-view"), 3, **on_kafka) as g:
        yield g


def status(group: WorkerGroup, connector: str, worker_url: str) -> dict[str, Any]:
    response = httpx.get(f"{worker_url}/connectors/{connector}/status?expand=metrics", timeout=REQUEST_S)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def start_spread_generator(group: WorkerGroup, name: str) -> dict[str, Any]:
    """A generator whose three tasks run one on each worker, once every task has written its records."""
    config = generator(name, TASKS, RECORDS, 100)
    response = group.request(group.workers[0], "POST", "/connectors", {"name": name, "config": config})
    assert response.status_code == 201, response.text
    ids = {worker.worker_id for worker in group.workers}

    def spread() -> dict[str, Any] | None:
        tasks = group.status(name).get("tasks", [])
        placed = {task["worker_id"] for task in tasks if task["state"] == "RUNNING"}
        return group.status(name) if len(tasks) == TASKS and placed == ids else None

    return wait_until(spread, f"{name}'s tasks running one on each worker", WAIT_S, every_s=1.0)


def counters(body: dict[str, Any]) -> dict[int, Any]:
    return {task["id"]: task.get("metrics", {}).get(WRITTEN) for task in body["tasks"]}


def test_every_worker_reports_the_counters_of_every_task_of_the_group(group: WorkerGroup) -> None:
    start_spread_generator(group, "spread")
    every_task_done = dict.fromkeys(range(TASKS), RECORDS)
    for worker in group.workers:
        wait_until(
            lambda: counters(status(group, "spread", worker.url)) == every_task_done,  # noqa: B023
            f"{worker.worker_id} to report {RECORDS} records written by each task",
            WAIT_S,
            every_s=1.0,
        )


def workers_listed(url: str, ids: set[str]) -> list[dict[str, Any]] | None:
    """`GET /conveyor/workers` at `url`, once it lists exactly the workers `ids`."""
    body: list[dict[str, Any]] = httpx.get(f"{url}/conveyor/workers", timeout=60).json()
    return body if {usage["worker_id"] for usage in body} == ids else None


def test_every_worker_lists_every_worker_of_the_group_with_its_usage(group: WorkerGroup) -> None:
    ids = {worker.worker_id for worker in group.workers}
    for worker in group.workers:
        listed = wait_until(
            lambda: workers_listed(worker.url, ids),  # noqa: B023
            f"{worker.worker_id} to list the three workers",
            WAIT_S,
            every_s=1.0,
        )
        assert listed[0]["worker_id"] == worker.worker_id
        for usage in listed:
            assert usage["error"] is None
            assert usage["memory_bytes"] > 0
            assert usage["slots"]["total"] == 2
            assert usage["spark_ui_url"].startswith("http://")


def peak_rate(url: str, connector: str) -> float:
    """The highest records/s of `connector` in the console's history served at `url`."""
    samples = httpx.get(f"{url}/conveyor/history", timeout=REQUEST_S).json()["samples"]
    return max(
        (s["connectors"][connector]["rate"] for s in samples if connector in s["connectors"]), default=0
    )


def test_every_workers_console_history_counts_the_records_of_every_task(group: WorkerGroup) -> None:
    """Each task writes at most `rate` records/s, so only a worker counting its peers' tasks too sees
    more than twice that."""
    rate = 20
    config = generator("steady", TASKS, 1_000_000, rate)
    response = group.request(group.workers[0], "POST", "/connectors", {"name": "steady", "config": config})
    assert response.status_code == 201, response.text
    for worker in group.workers:
        wait_until(
            lambda: peak_rate(worker.url, "steady") > 2 * rate,  # noqa: B023
            f"{worker.worker_id}'s history to count more than {2 * rate} records/s",
            WAIT_S,
            every_s=2.0,
        )
    assert group.request(group.workers[0], "DELETE", "/connectors/steady").status_code == 204


def test_a_killed_peer_costs_a_bounded_wait_and_its_tasks_metrics_show_as_unknown(group: WorkerGroup) -> None:
    body = start_spread_generator(group, "peer-killed")
    asked, killed = group.workers[0], group.workers[1]
    killed_tasks = {task["id"] for task in body["tasks"] if task["worker_id"] == killed.worker_id}
    killed.kill()
    group.remove(killed)

    def unknown_metrics() -> dict[str, Any] | None:
        seen = httpx.get(f"{asked.url}/connectors/peer-killed/status", timeout=REQUEST_S)
        tasks = seen.json()["tasks"]
        on_killed = [task for task in tasks if task["worker_id"] == killed.worker_id]
        return seen.json() if on_killed and all("metrics_unavailable" in t for t in on_killed) else None

    seen = wait_until(unknown_metrics, "the killed worker's tasks with unknown metrics", 60.0, every_s=0.5)
    for task in seen["tasks"]:
        if task["id"] in killed_tasks:
            assert "metrics" not in task
            assert killed.worker_id in task["metrics_unavailable"]
        else:
            assert WRITTEN in task["metrics"]


def test_a_frozen_peer_costs_a_bounded_wait_and_its_tasks_metrics_show_as_unknown(group: WorkerGroup) -> None:
    """A peer stopped with SIGSTOP accepts the connection and never answers: the worker asked stops
    waiting for it after a few seconds, well within each request's bound, and answers without it."""
    asked, frozen = group.workers[0], group.workers[-1]
    body = status(group, "peer-killed", asked.url)
    frozen_tasks = {task["id"] for task in body["tasks"] if task["worker_id"] == frozen.worker_id}
    assert frozen_tasks, body
    frozen.freeze()
    try:

        def unknown_metrics() -> dict[str, Any] | None:
            seen = status(group, "peer-killed", asked.url)
            on_frozen = [task for task in seen["tasks"] if task["id"] in frozen_tasks]
            return seen if all("metrics_unavailable" in task for task in on_frozen) else None

        seen = wait_until(
            unknown_metrics, "the frozen worker's tasks with unknown metrics", 60.0, every_s=0.5
        )
    finally:
        frozen.thaw()
    assert all(
        frozen.worker_id in task["metrics_unavailable"]
        for task in seen["tasks"]
        if task["id"] in frozen_tasks
    )

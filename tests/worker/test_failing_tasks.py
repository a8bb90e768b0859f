"""A task that raises in `poll`: FAILED with its trace, restarted automatically or only when asked.

Automatic restarts (`task.restart.enable`, with exponential backoff) are a Conveyor worker setting;
with it off the worker behaves as Kafka Connect, which waits for `POST .../tasks/{t}/restart`.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from conveyor.cli.worker_process import StandaloneWorker

from .connectors import FAIL_AFTER_MS_CONFIG, FAIL_ONCE_MARKER_CONFIG, FAILING_SOURCE, FAILURE_MESSAGE
from .support import (
    create_connector,
    delete_all_connectors,
    end_offset,
    generator_config,
    rest_client,
    running_worker,
    states,
    status,
    unique,
    wait_for_states,
    wait_until,
)

STAYS_FAILED_S = 3.0


@pytest.fixture(scope="module")
def restarting_worker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StandaloneWorker]:
    with running_worker(tmp_path_factory.mktemp("restarting"), **{"task.restart.enable": "true"}) as w:
        yield w


@pytest.fixture(scope="module")
def waiting_worker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StandaloneWorker]:
    with running_worker(tmp_path_factory.mktemp("waiting"), **{"task.restart.enable": "false"}) as w:
        yield w


@pytest.fixture
def restarting(restarting_worker: StandaloneWorker) -> Iterator[httpx.Client]:
    with rest_client(restarting_worker) as client:
        yield client
        delete_all_connectors(client)


@pytest.fixture
def waiting(waiting_worker: StandaloneWorker) -> Iterator[httpx.Client]:
    with rest_client(waiting_worker) as client:
        yield client
        delete_all_connectors(client)


def create_failing_source(client: httpx.Client, fail_after_ms: int = 1000, fail_once_marker: str = "") -> str:
    name = unique("failing")
    config = {"connector.class": FAILING_SOURCE, "topic": unique("nothing"), "tasks.max": "1"}
    settings = {FAIL_AFTER_MS_CONFIG: str(fail_after_ms), FAIL_ONCE_MARKER_CONFIG: fail_once_marker}
    create_connector(client, name, config | settings)
    return name


def test_a_task_raising_in_poll_is_failed_with_the_error_trace(waiting: httpx.Client) -> None:
    name = create_failing_source(waiting)
    wait_for_states(waiting, name, "RUNNING", ["FAILED"])
    task = status(waiting, name)["tasks"][0]
    assert FAILURE_MESSAGE in task["trace"]
    assert "Traceback" in task["trace"] and "in poll" in task["trace"]


def test_a_failed_task_is_restarted_automatically_when_restarts_are_enabled(restarting: httpx.Client) -> None:
    name = create_failing_source(restarting)
    seen: list[str] = []

    def failed_again_after_a_restart() -> bool:
        state = states(restarting, name)[1][0]
        if not seen or seen[-1] != state:
            seen.append(state)
        return "FAILED" in seen and "RESTARTING" in seen[seen.index("FAILED") :] and seen[-1] == "FAILED"

    wait_until(failed_again_after_a_restart, "a restart and a second failure", every_s=0.05)
    first_failure = seen.index("FAILED")
    assert "RESTARTING" in seen[first_failure:], seen
    assert seen[-1] == "FAILED", seen


def test_a_task_failing_over_and_over_logs_its_error_once_then_each_restart_and_when(
    restarting: httpx.Client, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="conveyor.runtime.worker")
    name = create_failing_source(restarting, fail_after_ms=200)

    def failures() -> list[logging.LogRecord]:
        return [
            record
            for record in caplog.records
            if getattr(record, "connector", None) == name and " failed" in record.getMessage()
        ]

    wait_until(lambda: len(failures()) >= 3, "three failures of the task")
    first, second, third = failures()[:3]
    assert (first.levelname, second.levelname, third.levelname) == ("ERROR", "INFO", "INFO")
    assert FAILURE_MESSAGE in first.getMessage()
    assert re.search(r"; restart 1 in \d+ ms, at 20\d\d-\d\d-\d\dT", first.getMessage())
    assert FAILURE_MESSAGE not in second.getMessage() and "; restart 2 in " in second.getMessage()
    assert "; restart 3 in " in third.getMessage()
    assert getattr(first, "task", None) == "0"


def test_a_failed_task_stays_failed_when_restarts_are_disabled(waiting: httpx.Client) -> None:
    name = create_failing_source(waiting)
    wait_for_states(waiting, name, "RUNNING", ["FAILED"])
    with pytest.raises(AssertionError):
        wait_until(
            lambda: states(waiting, name)[1] != ["FAILED"], "a state other than FAILED", STAYS_FAILED_S
        )


def test_a_failed_task_runs_again_after_a_restart_request(waiting: httpx.Client, tmp_path: Path) -> None:
    name = create_failing_source(waiting, fail_once_marker=str(tmp_path / "failed-once"))
    wait_for_states(waiting, name, "RUNNING", ["FAILED"])
    assert waiting.post(f"/connectors/{name}/tasks/0/restart").status_code == 204
    wait_for_states(waiting, name, "RUNNING", ["RUNNING"])
    assert "trace" not in status(waiting, name)["tasks"][0]


def test_the_worker_keeps_serving_other_connectors_while_a_task_fails_over_and_over(
    restarting: httpx.Client, restarting_worker: StandaloneWorker
) -> None:
    failing = create_failing_source(restarting, fail_after_ms=200)
    healthy, topic = unique("healthy"), unique("healthy-topic")
    create_connector(restarting, healthy, generator_config(topic, rate="100"))
    wait_for_states(restarting, healthy, "RUNNING", ["RUNNING"])
    wait_for_states(restarting, failing, "RUNNING", ["FAILED"])
    before = end_offset(restarting_worker.log, topic)
    wait_until(lambda: end_offset(restarting_worker.log, topic) > before + 100, f"{topic} to keep growing")
    assert states(restarting, healthy) == ("RUNNING", ["RUNNING"])


def test_restarting_only_failed_instances_restarts_the_failed_task_and_leaves_the_connector(
    waiting: httpx.Client, tmp_path: Path
) -> None:
    name = create_failing_source(waiting, fail_once_marker=str(tmp_path / "failed-once"))
    wait_for_states(waiting, name, "RUNNING", ["FAILED"])
    response = waiting.post(f"/connectors/{name}/restart?includeTasks=true&onlyFailed=true")
    assert response.status_code == 202
    body = response.json()
    assert body["connector"]["state"] == "RUNNING"
    assert [task["state"] for task in body["tasks"]] == ["RESTARTING"]
    wait_for_states(waiting, name, "RUNNING", ["RUNNING"])

"""A `conveyor standalone` process whose connectors block in their own code (plugins from plugin.path)
keeps serving: REST and /metrics answer, another connector keeps RUNNING and producing, a stuck
connector's status says which call blocks and since when, it can be deleted, and SIGTERM ends the worker
while the calls still block."""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from tests.blocking import (
    ANSWER_S,
    PLUGIN_DIR,
    SINK,
    Blocker,
    assert_serving,
    delete,
    failed_in,
    healthy_generator,
    task_blocked_in,
)
from tests.conveyor_process import EXIT_S, ConveyorProcess, start_standalone
from tests.waiting import wait_until

STARTUP_S = 180.0
HEALTHY = "healthy"
TOPIC = "healthy-records"


def start_worker(directory: Path) -> ConveyorProcess:
    directory.mkdir(parents=True, exist_ok=True)
    props = {
        "listeners": "http://127.0.0.1:0",
        "data.dir": str(directory / "data"),
        "plugin.path": str(PLUGIN_DIR),
        "connector.call.timeout.ms": "10000",
        "task.shutdown.graceful.timeout.ms": "2000",
        "offset.flush.interval.ms": "500",
        "spark.master": "local[2]",
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.storage.StringConverter",
    }
    return start_standalone(directory, props, STARTUP_S)


@pytest.fixture(scope="module")
def worker_directory(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("stuck-standalone")


@pytest.fixture(scope="module")
def worker(worker_directory: Path) -> Iterator[ConveyorProcess]:
    process = start_worker(worker_directory)
    try:
        response = httpx.put(
            f"{process.url}/connectors/{HEALTHY}/config", json=healthy_generator(TOPIC), timeout=120.0
        )
        assert response.status_code == 201, response.text
        yield process
    finally:
        process.stop()


@pytest.fixture
def log_url(worker_directory: Path) -> str:
    return f"embedded:{worker_directory / 'data' / 'log'}"


def create(worker: ConveyorProcess, name: str, config: dict[str, str]) -> None:
    response = httpx.put(f"{worker.url}/connectors/{name}/config", json=config, timeout=120.0)
    assert response.status_code == 201, response.text


def test_a_connector_stuck_in_start_holds_up_nothing_else_and_is_failed_then_deleted(
    worker: ConveyorProcess, log_url: str, blockers: Callable[[str], Blocker]
) -> None:
    blocker = blockers("start")
    creating = threading.Thread(target=create, args=(worker, "stuck-start", blocker.config()), daemon=True)
    creating.start()
    wait_until(blocker.blocked, "start() to block", 60.0)
    assert_serving(worker.url, HEALTHY, log_url, TOPIC)
    wait_until(
        lambda: failed_in(worker.url, "stuck-start", "start"), "the stuck connector to be FAILED", 60.0
    )
    creating.join(ANSWER_S)
    delete(worker.url, "stuck-start")
    assert_serving(worker.url, HEALTHY, log_url, TOPIC)


def test_a_connector_stuck_in_task_configs_is_failed_saying_so_and_deleted(
    worker: ConveyorProcess, log_url: str, blockers: Callable[[str], Blocker]
) -> None:
    create(worker, "stuck-task-configs", blockers("task_configs").config())
    wait_until(lambda: failed_in(worker.url, "stuck-task-configs", "task_configs"), "a FAILED status", 60.0)
    assert_serving(worker.url, HEALTHY, log_url, TOPIC)
    delete(worker.url, "stuck-task-configs")


def test_a_connector_whose_stop_blocks_is_deleted(
    worker: ConveyorProcess, log_url: str, blockers: Callable[[str], Blocker]
) -> None:
    blocker = blockers("stop")
    create(worker, "stuck-stop", blocker.config())
    delete(worker.url, "stuck-stop")
    assert blocker.blocked()
    assert_serving(worker.url, HEALTHY, log_url, TOPIC)


def test_validating_a_config_whose_validate_blocks_answers_an_error_naming_the_class_and_the_call(
    worker: ConveyorProcess, blockers: Callable[[str], Blocker]
) -> None:
    response = httpx.put(
        f"{worker.url}/connector-plugins/BlockingSourceConnector/config/validate",
        json=blockers("validate").config(),
        timeout=120.0,
    )
    assert response.status_code == 500
    message = response.json()["message"]
    assert "BlockingSourceConnector" in message and ".validate()" in message


def test_a_task_blocked_in_poll_runs_and_is_deleted(
    worker: ConveyorProcess, log_url: str, blockers: Callable[[str], Blocker]
) -> None:
    blocker = blockers("poll")
    create(worker, "stuck-poll", blocker.config())
    wait_until(blocker.blocked, "poll() to block", 120.0)
    wait_until(lambda: task_blocked_in(worker.url, "stuck-poll", "poll"), "a status saying so", 60.0)
    assert_serving(worker.url, HEALTHY, log_url, TOPIC)
    delete(worker.url, "stuck-poll")
    assert_serving(worker.url, HEALTHY, log_url, TOPIC)


def test_a_sink_task_blocked_in_put_is_deleted(
    worker: ConveyorProcess, log_url: str, blockers: Callable[[str], Blocker]
) -> None:
    blocker = blockers("put")
    create(worker, "stuck-put", blocker.config(SINK, topics=TOPIC))
    wait_until(blocker.blocked, "put() to block", 120.0)
    wait_until(lambda: task_blocked_in(worker.url, "stuck-put", "put"), "a status saying so", 60.0)
    assert_serving(worker.url, HEALTHY, log_url, TOPIC)
    delete(worker.url, "stuck-put")
    assert_serving(worker.url, HEALTHY, log_url, TOPIC)


def test_sigterm_ends_a_worker_whose_connector_code_blocks(
    tmp_path: Path, blockers: Callable[[str], Blocker]
) -> None:
    process = start_worker(tmp_path / "worker")
    try:
        stop, poll = blockers("stop"), blockers("poll")
        create(process, "stuck-stop", stop.config())
        create(process, "stuck-poll", poll.config())
        wait_until(poll.blocked, "poll() to block", 120.0)
        process.process.send_signal(signal.SIGTERM)
        assert process.process.wait(EXIT_S) == 0
        assert stop.blocked()
    finally:
        process.stop()

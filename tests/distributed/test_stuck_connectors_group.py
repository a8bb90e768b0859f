"""A group of `conveyor distributed` processes whose connectors block in their own code (plugins from
plugin.path): every worker keeps answering REST and /metrics, another connector keeps every task RUNNING
and producing, a stuck connector's status says which call blocks and since when on every worker, it can
be deleted through any worker, and SIGTERM ends every worker while the calls still block."""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator

import httpx
import pytest
from tests.blocking import (
    SINK,
    Blocker,
    assert_serving,
    delete,
    failed_in,
    healthy_generator,
    task_blocked_in,
)
from tests.conveyor_process import EXIT_S
from tests.waiting import wait_until

from .stuck_group import OVERRIDES, create
from .worker_group import WorkerGroup, worker_group

HEALTHY = "healthy"
TOPIC = "healthy-records"
HEALTHY_TASKS = 2


@pytest.fixture(scope="module")
def group(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WorkerGroup]:
    with worker_group(tmp_path_factory.mktemp("stuck-group"), 2, **OVERRIDES) as started:
        create(started, HEALTHY, healthy_generator(TOPIC, HEALTHY_TASKS))
        yield started


def assert_group_serving(group: WorkerGroup) -> None:
    for worker in group.workers:
        assert_serving(worker.url, HEALTHY, group.log_url, TOPIC, HEALTHY_TASKS)


def failed_everywhere(group: WorkerGroup, name: str, call: str) -> bool:
    return all(failed_in(worker.url, name, call) for worker in group.workers)


def blocked_everywhere(group: WorkerGroup, name: str, call: str) -> bool:
    return all(task_blocked_in(worker.url, name, call) for worker in group.workers)


def test_a_connector_stuck_in_start_holds_up_no_worker_is_failed_and_deleted(
    group: WorkerGroup, blockers: Callable[[str], Blocker]
) -> None:
    blocker = blockers("start")
    create(group, "stuck-start", blocker.config())
    wait_until(blocker.blocked, "start() to block", 120.0)
    assert_group_serving(group)
    wait_until(
        lambda: failed_everywhere(group, "stuck-start", "start"), "a FAILED status on every worker", 120.0
    )
    delete(group.workers[0].url, "stuck-start")
    assert_group_serving(group)


def test_a_connector_stuck_in_task_configs_is_failed_saying_so_and_deleted(
    group: WorkerGroup, blockers: Callable[[str], Blocker]
) -> None:
    create(group, "stuck-task-configs", blockers("task_configs").config())
    wait_until(
        lambda: failed_everywhere(group, "stuck-task-configs", "task_configs"),
        "a FAILED status on every worker",
        120.0,
    )
    assert_group_serving(group)
    delete(group.workers[0].url, "stuck-task-configs")


def test_a_connector_whose_stop_blocks_is_deleted(
    group: WorkerGroup, blockers: Callable[[str], Blocker]
) -> None:
    blocker = blockers("stop")
    create(group, "stuck-stop", blocker.config())
    wait_until(lambda: group.tasks_running_on("stuck-stop", 1, group.workers), "its task to run", 120.0)
    delete(group.workers[0].url, "stuck-stop")
    wait_until(blocker.blocked, "stop() to be called", 60.0)
    assert_group_serving(group)


def test_validating_a_config_whose_validate_blocks_answers_an_error_naming_the_class_and_the_call(
    group: WorkerGroup, blockers: Callable[[str], Blocker]
) -> None:
    for worker in group.workers:
        response = httpx.put(
            f"{worker.url}/connector-plugins/BlockingSourceConnector/config/validate",
            json=blockers("validate").config(),
            timeout=120.0,
        )
        assert response.status_code == 500
        message = response.json()["message"]
        assert "BlockingSourceConnector" in message and ".validate()" in message


def test_a_task_blocked_in_poll_runs_and_is_deleted(
    group: WorkerGroup, blockers: Callable[[str], Blocker]
) -> None:
    blocker = blockers("poll")
    create(group, "stuck-poll", blocker.config())
    wait_until(blocker.blocked, "poll() to block", 120.0)
    wait_until(lambda: blocked_everywhere(group, "stuck-poll", "poll"), "a status saying so", 60.0)
    assert_group_serving(group)
    delete(group.workers[0].url, "stuck-poll")
    assert_group_serving(group)


def test_a_sink_task_blocked_in_put_is_deleted(
    group: WorkerGroup, blockers: Callable[[str], Blocker]
) -> None:
    blocker = blockers("put")
    create(group, "stuck-put", blocker.config(SINK, topics=TOPIC))
    wait_until(blocker.blocked, "put() to block", 120.0)
    wait_until(lambda: blocked_everywhere(group, "stuck-put", "put"), "a status saying so", 60.0)
    assert_group_serving(group)
    delete(group.workers[0].url, "stuck-put")
    assert_group_serving(group)


def test_sigterm_ends_every_worker_while_connector_code_blocks(
    group: WorkerGroup, blockers: Callable[[str], Blocker]
) -> None:
    """Last in this module: it ends the module's group (one group start fewer on a busy machine)."""
    stop, poll = blockers("stop"), blockers("poll")
    create(group, "stuck-stop-at-exit", stop.config())
    create(group, "stuck-poll-at-exit", poll.config())
    wait_until(poll.blocked, "poll() to block", 120.0)
    for worker in group.workers:
        worker.process.send_signal(signal.SIGTERM)
    for worker in group.workers:
        assert worker.process.wait(EXIT_S) == 0, worker.tail()
    assert stop.blocked()

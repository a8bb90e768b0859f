"""A connector whose code blocks holds up nothing of its worker: calls into it run on its own thread with
deadlines, never under the worker's lock, and a stop or a newer start does not wait for them."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from tests.blocking import PLUGIN_DIR, SINK, Blocker

from conveyor.log import Log
from conveyor.plugins import load_plugin_path
from conveyor.runtime.connector_calls import StuckCallError
from conveyor.runtime.control import TargetState
from conveyor.runtime.worker import Worker
from conveyor.settings.worker_config import WorkerConfig
from conveyor.storage import Status, StatusStore

from .support import STRING_CONVERTER, wait_until
from .threads import ThreadTaskRunner

NAME = "stuck"
CALL_TIMEOUT_MS = "5000"
"""Long enough for calls that return to do so on a loaded machine; a blocked call outlasts it."""
BOUND_S = 60.0
"""How long a test waits for a call that must return; far beyond any deadline it sets."""


@dataclass
class Placement:
    worker: Worker
    statuses: StatusStore

    def connector_status(self) -> Status | None:
        self.statuses.read_to_end()
        return self.statuses.connector(NAME)


@pytest.fixture(scope="module", autouse=True)
def blocking_plugins() -> None:
    load_plugin_path([PLUGIN_DIR])


@pytest.fixture
def make_placement(log: Log, tmp_path: Path) -> Iterator[Callable[..., Placement]]:
    made: list[Placement] = []

    def make(**props: str) -> Placement:
        config = WorkerConfig.from_props(
            {
                "data.dir": str(tmp_path / "data"),
                "log.url": log.url,
                "offset.storage.partitions": "1",
                "status.storage.partitions": "1",
                "key.converter": STRING_CONVERTER,
                "value.converter": STRING_CONVERTER,
                "task.shutdown.graceful.timeout.ms": "1000",
                **props,
            }
        )
        statuses = StatusStore(log, config.status_topic, config.status_partitions)
        statuses.start()
        placement = Placement(Worker(config, ThreadTaskRunner(), statuses, "worker-1"), statuses)
        made.append(placement)
        return placement

    yield make
    for placement in made:
        placement.worker.close()
        placement.statuses.stop()


def in_background(action: Callable[[], object]) -> tuple[threading.Thread, list[object]]:
    results: list[object] = []
    thread = threading.Thread(target=lambda: results.append(action()), daemon=True)
    thread.start()
    return thread, results


def test_a_connector_stuck_in_start_is_failed_naming_the_call_and_since_when(
    make_placement: Callable[..., Placement], blockers: Callable[[str], Blocker]
) -> None:
    placement = make_placement(**{"connector.call.timeout.ms": CALL_TIMEOUT_MS})
    assert not placement.worker.start_connector(NAME, blockers("start").config(), TargetState.STARTED)
    status = placement.connector_status()
    assert status is not None and status.state == "FAILED"
    assert status.trace is not None
    assert f"Connector stuck did not return from start() within {CALL_TIMEOUT_MS} ms" in status.trace
    assert "it has been blocked in start() since 20" in status.trace
    assert "blocking_connectors.py" in status.trace
    assert not placement.worker.is_running(NAME)


def test_the_workers_metrics_answer_while_a_connector_start_blocks(
    make_placement: Callable[..., Placement], blockers: Callable[[str], Blocker]
) -> None:
    placement = make_placement(**{"connector.call.timeout.ms": "120000"})
    blocker = blockers("start")
    in_background(lambda: placement.worker.start_connector(NAME, blocker.config(), TargetState.STARTED))
    wait_until(blocker.blocked, "the connector's start() to block")
    metrics, done = in_background(placement.worker.connect_metrics)
    metrics.join(BOUND_S)
    assert done, "connect_metrics() waited on the blocked start()"
    placement.worker.stop_connector(NAME)


def test_a_stop_ends_the_wait_for_a_blocked_start_at_once(
    make_placement: Callable[..., Placement], blockers: Callable[[str], Blocker]
) -> None:
    placement = make_placement(**{"connector.call.timeout.ms": "120000"})
    blocker = blockers("start")
    starting, started = in_background(
        lambda: placement.worker.start_connector(NAME, blocker.config(), TargetState.STARTED)
    )
    wait_until(blocker.blocked, "the connector's start() to block")
    stopping, _ = in_background(lambda: placement.worker.stop_connector(NAME))
    stopping.join(BOUND_S)
    starting.join(BOUND_S)
    assert not stopping.is_alive() and started == [False]
    assert not placement.worker.is_running(NAME)


def test_an_abandoned_start_returning_late_stops_its_own_instance_and_leaves_the_newer_one_running(
    make_placement: Callable[..., Placement], blockers: Callable[[str], Blocker]
) -> None:
    placement = make_placement(**{"connector.call.timeout.ms": CALL_TIMEOUT_MS})
    old, new = blockers("start"), blockers("nothing")
    assert not placement.worker.start_connector(NAME, old.config(), TargetState.STARTED)
    assert placement.worker.start_connector(NAME, new.config(), TargetState.STARTED)
    old.release()
    wait_until(old.stopped, "the abandoned instance to be stopped once its start() returned")
    assert placement.worker.is_running(NAME) and not new.stopped()
    status = placement.connector_status()
    assert status is not None and status.state == "RUNNING"


def test_a_connector_stuck_in_task_configs_is_failed_and_no_longer_runs(
    make_placement: Callable[..., Placement], blockers: Callable[[str], Blocker]
) -> None:
    placement = make_placement(**{"connector.call.timeout.ms": CALL_TIMEOUT_MS})
    config = blockers("task_configs").config()
    assert placement.worker.start_connector(NAME, config, TargetState.STARTED)
    with pytest.raises(
        StuckCallError, match=rf"did not return from task_configs\(\) within {CALL_TIMEOUT_MS} ms"
    ):
        placement.worker.connector_task_configs(NAME, config)
    status = placement.connector_status()
    assert status is not None and status.state == "FAILED"
    assert status.trace is not None and "blocked in task_configs() since" in status.trace
    assert not placement.worker.is_running(NAME)


def test_a_stop_that_blocks_is_given_up_after_the_graceful_timeout(
    make_placement: Callable[..., Placement], blockers: Callable[[str], Blocker]
) -> None:
    placement = make_placement(**{"task.shutdown.graceful.timeout.ms": "500"})
    blocker = blockers("stop")
    assert placement.worker.start_connector(NAME, blocker.config(SINK, topics="t"), TargetState.STARTED)
    stopping, _ = in_background(lambda: placement.worker.stop_connector(NAME))
    stopping.join(BOUND_S)
    assert not stopping.is_alive()
    assert blocker.blocked() and not placement.worker.is_running(NAME)

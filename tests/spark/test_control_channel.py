"""The control channel between a worker and its tasks: target states, superseded incarnations, leases."""

from __future__ import annotations

import time
from collections.abc import Callable

from conveyor.runtime.control import TargetState
from conveyor.spark.control_channel import ControlServer, RemoteTaskControl

HEARTBEAT_S = 0.02


def eventually(condition: Callable[[], bool], timeout_s: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.01)
    return False


def test_a_task_learns_the_target_state_its_worker_sets() -> None:
    server = ControlServer()
    server.start()
    server.register("c-0", "attempt-1")
    task = RemoteTaskControl(server.address, "c-0", "attempt-1", heartbeat_s=HEARTBEAT_S)
    try:
        assert eventually(lambda: task.target_state() is TargetState.STARTED)
        server.set_target("c-0", TargetState.PAUSED)
        assert eventually(lambda: task.target_state() is TargetState.PAUSED)
        server.set_target("c-0", TargetState.STOPPED)
        assert eventually(task.should_stop)
    finally:
        task.close()
        server.close()


def test_the_worker_sees_the_metrics_its_task_reports() -> None:
    server = ControlServer()
    server.start()
    server.register("c-0", "attempt-1")
    task = RemoteTaskControl(server.address, "c-0", "attempt-1", heartbeat_s=HEARTBEAT_S)
    try:
        task.report({"records-written": 42})
        assert eventually(
            lambda: (state := server.state("c-0")) is not None and state.metrics == {"records-written": 42}
        )
    finally:
        task.close()
        server.close()


def test_a_superseded_incarnation_is_told_to_stop() -> None:
    server = ControlServer()
    server.start()
    server.register("c-0", "old")
    zombie = RemoteTaskControl(server.address, "c-0", "old", heartbeat_s=HEARTBEAT_S)
    try:
        assert eventually(lambda: zombie.target_state() is TargetState.STARTED)
        server.register("c-0", "new")
        assert eventually(zombie.should_stop)
    finally:
        zombie.close()
        server.close()


def test_a_task_that_loses_its_worker_for_longer_than_the_lease_stops_by_itself() -> None:
    server = ControlServer()
    server.start()
    server.register("c-0", "attempt-1")
    task = RemoteTaskControl(server.address, "c-0", "attempt-1", heartbeat_s=HEARTBEAT_S, lease_s=0.5)
    try:
        assert eventually(lambda: task.target_state() is TargetState.STARTED)
        server.close()
        assert not task.should_stop()
        assert eventually(task.should_stop, timeout_s=3.0)
        assert task.worker_lost()
    finally:
        task.close()

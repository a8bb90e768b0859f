"""The control channel between a worker and its tasks: target states, superseded incarnations, leases."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from conveyor.runtime.control import StateReporter, TargetState
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


NO_HEARTBEAT_S = 3600.0
"""So long that only a push can carry anything after the first exchange."""


def connected(server: ControlServer, task: str) -> Callable[[], bool]:
    return lambda: (state := server.state(task)) is not None and state.last_seen is not None


def test_a_new_target_state_reaches_the_task_without_waiting_for_a_heartbeat() -> None:
    server = ControlServer()
    server.start()
    server.register("c-0", "attempt-1")
    task = RemoteTaskControl(server.address, "c-0", "attempt-1", heartbeat_s=NO_HEARTBEAT_S)
    try:
        assert eventually(connected(server, "c-0"))
        server.set_target("c-0", TargetState.PAUSED)
        assert eventually(lambda: task.target_state() is TargetState.PAUSED)
        server.set_target("c-0", TargetState.STARTED)
        assert eventually(lambda: task.target_state() is TargetState.STARTED)
    finally:
        server.set_target("c-0", TargetState.STOPPED)
        task.close()
        server.close()


def test_a_task_waiting_wakes_when_its_target_state_changes() -> None:
    server = ControlServer()
    server.start()
    server.register("c-0", "attempt-1")
    task = RemoteTaskControl(server.address, "c-0", "attempt-1", heartbeat_s=NO_HEARTBEAT_S)
    woke = threading.Event()

    def pause_and_wait() -> None:
        task.wait(NO_HEARTBEAT_S)
        woke.set()

    try:
        assert eventually(connected(server, "c-0"))
        waiter = threading.Thread(target=pause_and_wait, daemon=True)
        waiter.start()
        server.set_target("c-0", TargetState.PAUSED)
        assert woke.wait(10.0)
    finally:
        task.close()
        server.close()


def test_a_new_state_the_task_reports_reaches_the_worker_without_waiting_for_a_heartbeat() -> None:
    reports: list[tuple[str, str, str]] = []
    server = ControlServer(on_state_report=lambda *report: reports.append(report))
    server.start()
    server.register("c-0", "attempt-1")
    task = RemoteTaskControl(server.address, "c-0", "attempt-1", heartbeat_s=NO_HEARTBEAT_S)
    try:
        assert eventually(connected(server, "c-0"))
        task.report({"state": "PAUSED"})
        assert eventually(lambda: reports == [("c-0", "attempt-1", "PAUSED")])
        assert (state := server.state("c-0")) is not None and state.metrics == {"state": "PAUSED"}
    finally:
        task.close()
        server.close()


def test_a_superseded_incarnation_is_told_to_stop_without_waiting_for_a_heartbeat() -> None:
    server = ControlServer()
    server.start()
    server.register("c-0", "old")
    zombie = RemoteTaskControl(server.address, "c-0", "old", heartbeat_s=NO_HEARTBEAT_S)
    try:
        assert eventually(connected(server, "c-0"))
        server.register("c-0", "new")
        assert eventually(zombie.should_stop)
    finally:
        zombie.close()
        server.close()


def test_a_task_reports_its_hosts_memory_limit_beside_its_memory_and_none_without_one() -> None:
    server = ControlServer()
    server.start()
    server.register("limited-0", "a")
    server.register("unlimited-0", "a")
    limited = RemoteTaskControl(server.address, "limited-0", "a", HEARTBEAT_S, memory_limit_bytes=2**31)
    unlimited = RemoteTaskControl(server.address, "unlimited-0", "a", HEARTBEAT_S, memory_limit_bytes=None)
    try:
        for task in (limited, unlimited):
            StateReporter(task)(TargetState.STARTED, dict, force=True)
        names = ("limited-0", "unlimited-0")
        assert eventually(
            lambda: all((state := server.state(t)) and "memory-rss-bytes" in state.metrics for t in names)
        )
        reported = {t: server.state(t).metrics for t in names}  # type: ignore[union-attr]
        assert reported["limited-0"]["memory-limit-bytes"] == 2**31
        assert reported["limited-0"]["memory-rss-bytes"] > 0
        assert "memory-limit-bytes" not in reported["unlimited-0"]
        assert reported["unlimited-0"]["memory-rss-bytes"] > 0
    finally:
        limited.close()
        unlimited.close()
        server.close()


def test_the_tasks_of_a_process_share_one_thread_for_their_control_connections() -> None:
    server = ControlServer()
    server.start()
    before = threading.active_count()
    tasks = []
    try:
        for n in range(20):
            server.register(f"c-{n}", "attempt-1")
            tasks.append(RemoteTaskControl(server.address, f"c-{n}", "attempt-1", heartbeat_s=HEARTBEAT_S))
        assert all(eventually(connected(server, f"c-{n}")) for n in range(20))
        assert threading.active_count() - before <= 1 + 20  # the loop, and the server's thread per task
        assert len([t for t in threading.enumerate() if t.name == "conveyor-control-loop"]) == 1
    finally:
        for task in tasks:
            task.close()
        server.close()


def test_the_outcome_a_closing_task_sends_reaches_its_worker() -> None:
    ends: list[tuple[str, str, object]] = []
    server = ControlServer(on_task_end=lambda task, attempt, outcome: ends.append((task, attempt, outcome)))
    server.start()
    server.register("c-0", "attempt-1")
    task = RemoteTaskControl(server.address, "c-0", "attempt-1", heartbeat_s=NO_HEARTBEAT_S)
    try:
        assert eventually(connected(server, "c-0"))
        task.close({"failed": True, "error": "boom"})
        assert ends == [("c-0", "attempt-1", {"failed": True, "error": "boom"})]
    finally:
        server.close()

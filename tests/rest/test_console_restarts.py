"""The restarts `/conveyor/history` reports: failures seen per task, and when the worker's backoff retries."""

from __future__ import annotations

from conveyor.rest.console.history import TaskFailures
from conveyor.rest.routes.conveyor import task_restarts
from conveyor.settings.worker_config import WorkerConfig

BACKOFF = {"task.restart.backoff.initial.ms": "1000", "task.restart.backoff.max.ms": "3000"}


def config(enabled: bool) -> WorkerConfig:
    return WorkerConfig.from_props({"task.restart.enable": str(enabled).lower(), **BACKOFF})


def test_the_next_restart_doubles_the_initial_backoff_per_failure_up_to_the_maximum() -> None:
    failures = {
        ("c", 0): TaskFailures(count=2, last_seen_ms=10_000, failed=True),
        ("c", 1): TaskFailures(count=5, last_seen_ms=10_000, failed=True),
    }
    assert task_restarts(failures, config(True)) == {
        "c": [
            {"task": 0, "failures": 2, "next_restart_ms": 12_000},
            {"task": 1, "failures": 5, "next_restart_ms": 13_000},
        ]
    }


def test_no_next_restart_when_the_worker_does_not_restart_tasks() -> None:
    failures = {("c", 0): TaskFailures(count=1, last_seen_ms=10_000, failed=True)}
    assert task_restarts(failures, config(False)) == {
        "c": [{"task": 0, "failures": 1, "next_restart_ms": None}]
    }


def test_a_task_running_again_keeps_its_failures_and_has_no_next_restart() -> None:
    failures = {("c", 0): TaskFailures(count=1, last_seen_ms=10_000, failed=False)}
    assert task_restarts(failures, config(True)) == {
        "c": [{"task": 0, "failures": 1, "next_restart_ms": None}]
    }


def test_a_task_never_seen_failing_is_left_out() -> None:
    assert task_restarts({("c", 0): TaskFailures()}, config(True)) == {}

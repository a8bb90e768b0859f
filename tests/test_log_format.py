"""The worker's log lines carry Kafka Connect's MDC context: `[connector|task-N] ` on a task's lines,
`[connector|worker] ` on a connector's, and nothing on the worker's own."""

from __future__ import annotations

import json
import logging
import threading

from conveyor.log_format import worker_log_handler


def _line(thread_name: str, json_lines: bool = False, **extra: str) -> str:
    record = logging.LogRecord(
        "conveyor.runtime.worker", logging.WARNING, __file__, 1, "a %s", ("line",), None
    )
    record.threadName = thread_name
    record.__dict__.update(extra)
    handler = worker_log_handler(json_lines)
    assert handler.filter(record)
    return handler.format(record)


def test_a_worker_line_has_no_context() -> None:
    line = _line("MainThread")
    assert line.endswith("] WARNING a line (conveyor.runtime.worker)")
    assert "|" not in line


def test_a_task_line_names_its_connector_and_task() -> None:
    assert "] WARNING [orders-db|task-3] a line (" in _line("spark-job-orders-db-3")


def test_a_task_line_on_an_executor_names_its_connector_and_task() -> None:
    assert "[orders|task-0] a line" in _line("conveyor-task-orders-0")


def test_a_connector_line_names_its_connector_and_the_worker() -> None:
    assert "] WARNING [orders|worker] a line (" in _line("reconfigure-orders")


def test_a_context_given_with_the_record_wins_over_the_thread() -> None:
    assert "[billing|task-1] a line" in _line(threading.current_thread().name, connector="billing", task="1")


def test_json_lines_leave_connector_and_task_null_on_worker_lines() -> None:
    body = json.loads(_line("MainThread", json_lines=True))
    assert (body["connector"], body["task"], body["message"]) == (None, None, "a line")
    task = json.loads(_line("spark-job-orders-2", json_lines=True))
    assert (task["connector"], task["task"]) == ("orders", "2")

"""Status tables for the terminal, built from Kafka Connect's status bodies (`GET /connectors/{c}/status`).

The same table serves `conveyor status` (over any worker's REST API) and the live view of
`conveyor standalone` (over its own herder).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from rich.table import Table
from rich.text import Text

STATE_STYLES = {
    "RUNNING": "green",
    "PAUSED": "yellow",
    "FAILED": "bold red",
    "STOPPED": "dim",
    "UNASSIGNED": "cyan",
    "RESTARTING": "magenta",
}


def state_text(state: str) -> Text:
    return Text(state, style=STATE_STYLES.get(state, ""))


def first_line(trace: str | None) -> str:
    """The line of a trace that says what went wrong (Python puts it last)."""
    lines = [line for line in (trace or "").strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else ""


UNKNOWN = "unknown"
"""A counter of a task whose worker did not answer the worker asked: not 0, not known."""


def _count(metrics: Mapping[str, Any], *names: str) -> str:
    for name in names:
        value = metrics.get(name)
        if isinstance(value, int | float):
            return f"{int(value):,}"
    return ""


def status_table(statuses: Iterable[Mapping[str, Any]], title: str = "Conveyor") -> Table:
    """One row per connector and per task: state, worker, records moved, commits, errors, and why a
    failed one failed."""
    table = Table(title=title, expand=False)
    for column in ("connector", "task", "state", "worker", "records", "commits", "errors", "failure"):
        numeric = column in ("records", "commits", "errors")
        table.add_column(column, justify="right" if numeric else "left", overflow="fold")
    for status in statuses:
        connector = status["connector"]
        table.add_row(
            status["name"],
            "",
            state_text(connector["state"]),
            connector.get("worker_id", ""),
            "",
            "",
            "",
            first_line(connector.get("trace")),
        )
        for task in status.get("tasks", []):
            metrics = task.get("metrics", {})
            counts = [
                _count(metrics, "source-record-write-total", "sink-record-send-total"),
                _count(metrics, "offset-commits", "offset-commit-completion-total"),
                _count(metrics, "total-record-errors"),
            ]
            if task.get("metrics_unavailable"):
                counts = [UNKNOWN] * len(counts)
            table.add_row(
                "",
                str(task["id"]),
                state_text(task["state"]),
                task.get("worker_id", ""),
                *counts,
                first_line(task.get("trace")),
            )
    return table


def failed(statuses: Iterable[Mapping[str, Any]]) -> list[str]:
    """The connectors and tasks that are FAILED, as `name` and `name-task`."""
    found: list[str] = []
    for status in statuses:
        if status["connector"]["state"] == "FAILED":
            found.append(status["name"])
        found.extend(f"{status['name']}-{t['id']}" for t in status.get("tasks", []) if t["state"] == "FAILED")
    return found

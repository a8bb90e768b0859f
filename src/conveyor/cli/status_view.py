"""The live status table shown in the terminal while a worker runs."""

from __future__ import annotations

from rich.table import Table

from conveyor.errors import NotFoundError
from conveyor.herder.api import Herder

_STYLE = {
    "RUNNING": "green",
    "PAUSED": "yellow",
    "FAILED": "bold red",
    "STOPPED": "dim",
    "UNASSIGNED": "cyan",
}


def status_table(herder: Herder) -> Table:
    """One row per connector and task: state, records moved and commits made so far."""
    table = Table(title="Conveyor", expand=False)
    for column in ("connector", "task", "state", "records", "commits", "errors"):
        table.add_column(column, justify="right" if column in ("records", "commits", "errors") else "left")
    for name in herder.connectors():
        try:
            status = herder.connector_status(name)
        except NotFoundError:
            continue
        state = status.connector.state
        table.add_row(name, "", f"[{_STYLE.get(state, '')}]{state}", "", "", "")
        for task in status.tasks:
            metrics = task.metrics
            records = metrics.get("source-record-write-total", metrics.get("sink-record-send-total", 0))
            commits = metrics.get("transactions-committed") or metrics.get(
                "offset-commit-completion-total", 0
            )
            errors = metrics.get("total-record-errors", 0)
            task_state = task.state
            table.add_row(
                "",
                str(task.id),
                f"[{_STYLE.get(task_state, '')}]{task_state}",
                f"{records:,}",
                f"{commits:,}",
                f"{errors:,}",
            )
    return table

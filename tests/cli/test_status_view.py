"""`conveyor connectors status`'s table, rendered from REST status bodies."""

from __future__ import annotations

from rich.console import Console

from conveyor.cli.status_view import status_table


def rendered(status: dict[str, object]) -> list[str]:
    console = Console(width=200, record=True)
    console.print(status_table([status]))
    return console.export_text().splitlines()


def test_a_task_whose_worker_did_not_answer_shows_unknown_counters_not_zero() -> None:
    status = {
        "name": "spread",
        "connector": {"state": "RUNNING", "worker_id": "a:8083"},
        "tasks": [
            {"id": 0, "state": "RUNNING", "worker_id": "a:8083", "metrics": {"source-record-write-total": 7}},
            {
                "id": 1,
                "state": "RUNNING",
                "worker_id": "b:8083",
                "metrics_unavailable": "b:8083 did not answer",
            },
        ],
    }
    rows = rendered(status)
    known = next(row for row in rows if "a:8083" in row and " 0 " in row)
    unknown = next(row for row in rows if "b:8083" in row)
    assert " 7 " in known
    assert unknown.count("unknown") == 3

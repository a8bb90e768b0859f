"""Status topic records as Kafka's KafkaStatusBackingStore writes them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from conveyor.storage.json_values import to_json_bytes

CONNECTOR_STATUS_PREFIX: Final = "status-connector-"
TASK_STATUS_PREFIX: Final = "status-task-"


@dataclass(frozen=True, slots=True)
class Status:
    """A connector's or task's state (RUNNING, PAUSED, FAILED, ...) as last reported by a worker."""

    state: str
    worker_id: str
    trace: str | None = None
    generation: int = 0


def connector_status_key(connector: str) -> bytes:
    return (CONNECTOR_STATUS_PREFIX + connector).encode()


def task_status_key(connector: str, task: int) -> bytes:
    return f"{TASK_STATUS_PREFIX}{connector}-{task}".encode()


def status_value(status: Status) -> bytes:
    """``{"state":..,"trace":..,"worker_id":..,"generation":n}``, fields in Kafka's schema order."""
    return to_json_bytes(
        {
            "state": status.state,
            "trace": status.trace,
            "worker_id": status.worker_id,
            "generation": status.generation,
        }
    )


def parse_status(value: Any) -> Status | None:
    """A status from parsed JSON, or None if a required field is missing or of the wrong type."""
    if not isinstance(value, dict):
        return None
    state, worker_id = value.get("state"), value.get("worker_id")
    trace, generation = value.get("trace"), value.get("generation", 0)
    if not isinstance(state, str) or not isinstance(worker_id, str):
        return None
    if trace is not None and not isinstance(trace, str):
        return None
    if not isinstance(generation, int) or isinstance(generation, bool):
        return None
    return Status(state, worker_id, trace, generation)


def parse_task_status_key(rest: str) -> tuple[str, int] | None:
    """``<connector>-<n>`` (what follows ``status-task-``) as (connector, n), or None."""
    connector, dash, number = rest.rpartition("-")
    if not dash or not connector or not number.isdigit():
        return None
    return connector, int(number)

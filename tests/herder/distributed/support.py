"""Building blocks for the assignor tests: a config snapshot from task counts, and worker metadata."""

from __future__ import annotations

from collections.abc import Iterable

from conveyor.herder.distributed.protocol import ConnectAssignment, WorkerMetadata
from conveyor.runtime.task_spec import TaskId
from conveyor.storage.cluster_config_state import ClusterConfigState


def config_of(task_counts: dict[str, int], offset: int = 10) -> ClusterConfigState:
    """A config snapshot at `offset` with these connectors, each with its number of committed tasks."""
    return ClusterConfigState(
        offset=offset,
        connector_configs={name: {"name": name} for name in task_counts},
        task_counts=dict(task_counts),
    )


def tasks(connector: str, numbers: Iterable[int]) -> list[TaskId]:
    return [TaskId(connector, n) for n in numbers]


def url(member: str) -> str:
    return f"http://{member}:8083"


def member(
    name: str, offset: int = 10, connectors: list[str] | None = None, running: list[TaskId] | None = None
) -> WorkerMetadata:
    """A member's metadata; with `connectors` or `running`, it reports that it runs them."""
    if connectors is None and running is None:
        return WorkerMetadata(url(name), offset)
    current = ConnectAssignment("leader", url("leader"), offset, list(connectors or []), list(running or []))
    return WorkerMetadata(url(name), offset, current)

"""What a worker publishes about itself and the connectors and tasks it runs, as Kafka Connect's metric
groups hold them: `connect-worker-metrics`, `connect-worker-rebalance-metrics`, `connector-metrics`, and
per task the values its loop reported (`connector-task-metrics`, `source-task-metrics`,
`sink-task-metrics`, `task-error-metrics`).

A worker publishes only what runs on it, as each Kafka Connect worker's JMX does; a cluster's view is
the sum of its workers' scrapes.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from conveyor.metrics.plugin_labels import ChainPluginLabels
from conveyor.metrics.status import State

TASK_STATES = (
    State.RUNNING,
    State.PAUSED,
    State.FAILED,
    State.UNASSIGNED,
    State.RESTARTING,
    State.DESTROYED,
)


@dataclass(frozen=True)
class ConnectorMetrics:
    """`connector-metrics` of one connector on this worker."""

    name: str
    status: str
    connector_class: str = ""
    connector_type: str = "unknown"
    connector_version: str = ""
    plugin_metrics: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class TaskMetricValues:
    """One task on this worker: its status and the values its loop last reported (Kafka's metric names)."""

    connector: str
    task: int
    status: str
    values: dict[str, Any] = field(default_factory=dict)
    chain: tuple[ChainPluginLabels, ...] = ()


@dataclass(frozen=True)
class RebalanceMetrics:
    """`connect-worker-rebalance-metrics`; a standalone worker never rebalances."""

    connect_protocol: str = "standalone"
    leader_name: str = ""
    epoch: int = 0
    completed_rebalances_total: int = 0
    rebalancing: bool = False
    rebalance_max_time_ms: float | None = None
    rebalance_avg_time_ms: float | None = None
    time_since_last_rebalance_ms: float | None = None


@dataclass(frozen=True)
class WorkerMetrics:
    """A snapshot of every group a worker publishes, taken at one scrape."""

    worker: dict[str, float]
    connector_task_counts: dict[str, dict[str, int]]
    connectors: list[ConnectorMetrics]
    tasks: list[TaskMetricValues]
    rebalance: RebalanceMetrics = field(default_factory=RebalanceMetrics)

    @classmethod
    def empty(cls) -> WorkerMetrics:
        return cls({}, {}, [], [])


class StartupCounts:
    """Connector and task startups this worker attempted, and how they went (Kafka's startup metrics).

    A task startup succeeds when its first incarnation reports RUNNING or PAUSED from its executor, and
    fails when its config cannot be resolved or it fails before that.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts = {kind: {"attempts": 0, "success": 0, "failure": 0} for kind in ("connector", "task")}

    def attempted(self, kind: str) -> None:
        with self._lock:
            self._counts[kind]["attempts"] += 1

    def succeeded(self, kind: str) -> None:
        with self._lock:
            self._counts[kind]["success"] += 1

    def failed(self, kind: str) -> None:
        with self._lock:
            self._counts[kind]["failure"] += 1

    def metrics(self) -> dict[str, float]:
        values: dict[str, float] = {}
        with self._lock:
            for kind, counts in self._counts.items():
                attempts = counts["attempts"]
                values[f"{kind}-startup-attempts-total"] = attempts
                for outcome in ("success", "failure"):
                    values[f"{kind}-startup-{outcome}-total"] = counts[outcome]
                    values[f"{kind}-startup-{outcome}-percentage"] = (
                        counts[outcome] / attempts if attempts else 0.0
                    )
        return values


def connector_task_counts(states: list[State]) -> dict[str, int]:
    """The per-connector task counts of `connect-worker-metrics`, from the states of its tasks here."""
    counts = {f"connector-{state.value.lower()}-task-count": 0 for state in TASK_STATES}
    for state in states:
        key = f"connector-{state.value.lower()}-task-count"
        if key in counts:
            counts[key] += 1
    counts["connector-total-task-count"] = len(states)
    return counts

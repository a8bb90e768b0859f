"""The REST API's JSON shapes, as Kafka Connect's `rest.entities` define them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class TaskRef:
    connector: str
    task: int

    def to_json(self) -> dict[str, Any]:
        return {"connector": self.connector, "task": self.task}


@dataclass(frozen=True)
class ConnectorInfo:
    """`GET /connectors/{c}`: name, config, tasks and type (source, sink or unknown)."""

    name: str
    config: dict[str, str]
    tasks: list[TaskRef]
    type: str

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "config": dict(self.config),
            "tasks": [task.to_json() for task in self.tasks],
            "type": self.type,
        }


@dataclass(frozen=True)
class TaskInfo:
    """`GET /connectors/{c}/tasks`: a task id and its config."""

    id: TaskRef
    config: dict[str, str]

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id.to_json(), "config": dict(self.config)}


#: The version Kafka gives a plugin that does not say, which its status leaves out.
UNDEFINED_VERSION = "undefined"


@dataclass(frozen=True)
class AbstractState:
    """A connector's or task's state; `version` (the plugin's, Kafka 4.1+) is shown as Kafka shows it:
    null when unknown, left out when undefined."""

    state: str
    worker_id: str
    trace: str | None = None
    version: str | None = None

    def _base_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"state": self.state, "worker_id": self.worker_id}
        if self.version != UNDEFINED_VERSION:
            body["version"] = self.version
        if self.trace:
            body["trace"] = self.trace
        return body


@dataclass(frozen=True)
class ConnectorState(AbstractState):
    def to_json(self) -> dict[str, Any]:
        return self._base_json()


@dataclass(frozen=True)
class TaskState(AbstractState):
    id: int = 0
    metrics: dict[str, Any] = field(default_factory=dict)
    metrics_unavailable: str | None = None
    """Why the task's metrics are unknown (its worker did not answer), rather than shown as none."""

    def to_json(self) -> dict[str, Any]:
        body = {"id": self.id, **self._base_json()}
        if self.metrics:
            body["metrics"] = dict(self.metrics)
        if self.metrics_unavailable:
            body["metrics_unavailable"] = self.metrics_unavailable
        return body


@dataclass(frozen=True)
class ConnectorStateInfo:
    """`GET /connectors/{c}/status`: the connector's state and its tasks', sorted by task id."""

    name: str
    connector: ConnectorState
    tasks: list[TaskState]
    type: str

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "connector": self.connector.to_json(),
            "tasks": [task.to_json() for task in sorted(self.tasks, key=lambda t: t.id)],
            "type": self.type,
        }


@dataclass(frozen=True)
class ConnectorOffset:
    """One entry of `GET /connectors/{c}/offsets`: a source partition and its offset."""

    partition: dict[str, Any]
    offset: dict[str, Any] | None

    def to_json(self) -> dict[str, Any]:
        return {
            "partition": dict(self.partition),
            "offset": None if self.offset is None else dict(self.offset),
        }


@dataclass(frozen=True)
class PluginInfo:
    """One entry of `GET /connector-plugins`."""

    class_name: str
    type: str
    version: str | None = None

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"class": self.class_name, "type": self.type}
        if self.version is not None:
            body["version"] = self.version
        return body

"""The herder: the control plane a REST API (or a CLI) drives, as Kafka Connect's `Herder`."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from conveyor.herder.entities import (
    ConnectorInfo,
    ConnectorOffset,
    ConnectorStateInfo,
    PluginInfo,
    TaskInfo,
    TaskState,
)
from conveyor.metrics.worker_metrics import WorkerMetrics
from conveyor.metrics.worker_usage import WorkerUsage


@dataclass(frozen=True)
class ConfigWrite:
    """A checked request to create or replace a connector's config, as `put_connector_config` takes it."""

    name: str
    config: dict[str, str]
    """The config to write, its `name` key set."""
    allow_replace: bool
    initial_state: str | None
    initial_offsets: list[ConnectorOffset] | None
    resume_offsets: bool


@dataclass(frozen=True)
class HerderHealth:
    """What `GET /health` reports (KIP-1017): started or not, stuck or not, and what the herder is doing."""

    ready: bool
    stuck: bool = False
    details: str | None = None
    failure: str | None = None
    """Why the herder stopped for good (the worker is exiting), if it did."""


class Herder(ABC):
    """Every operation of Kafka Connect's REST API, raising `conveyor.errors`' kinds as Kafka's herders do.

    Operations raise `NotFoundError` for an unknown connector or task, `BadRequestError` for an
    invalid request and `AlreadyExistsError` for a connector that exists already.
    """

    @property
    @abstractmethod
    def worker_id(self) -> str:
        """The `host:port` this worker's REST API is reached at."""

    @property
    @abstractmethod
    def kafka_cluster_id(self) -> str:
        """The id of the log this worker uses (Kafka's cluster id for the Kafka backend)."""

    @abstractmethod
    def ready(self) -> bool:
        """True once the herder has started and can serve requests (`GET /health`)."""

    def health(self) -> HerderHealth:
        """Whether the herder has started and is not stuck on an operation, and what it is doing."""
        return HerderHealth(self.ready())

    @abstractmethod
    def connectors(self) -> list[str]: ...

    @abstractmethod
    def connector_info(self, name: str) -> ConnectorInfo: ...

    @abstractmethod
    def connector_config(self, name: str) -> dict[str, str]: ...

    @abstractmethod
    def put_connector_config(
        self,
        name: str,
        config: Mapping[str, str],
        allow_replace: bool,
        initial_state: str | None = None,
        initial_offsets: list[ConnectorOffset] | None = None,
        resume_offsets: bool = False,
    ) -> tuple[bool, ConnectorInfo]:
        """Create or update a connector; returns (created, info). `initial_state` as KIP-980;
        `initial_offsets` (KIP-995) are written, as an alter would, before a new connector exists. A new
        connector named as a deleted one starts afresh: the offsets left under its name are reset first,
        unless `resume_offsets` asks to continue from them (as Kafka Connect always does)."""

    @abstractmethod
    def patch_connector_config(self, name: str, patch: Mapping[str, str | None]) -> ConnectorInfo:
        """Merge `patch` into the connector's config; a None value removes the key."""

    @abstractmethod
    def delete_connector(self, name: str) -> None: ...

    @abstractmethod
    def connector_status(self, name: str) -> ConnectorStateInfo: ...

    @abstractmethod
    def task_status(self, name: str, task: int) -> TaskState: ...

    @abstractmethod
    def task_configs(self, name: str) -> list[TaskInfo]: ...

    @abstractmethod
    def restart_task(self, name: str, task: int) -> None: ...

    @abstractmethod
    def restart_connector(self, name: str, include_tasks: bool, only_failed: bool) -> ConnectorStateInfo:
        """Restart the connector (and, per KIP-745, its tasks); returns the status to be restarted."""

    @abstractmethod
    def pause_connector(self, name: str) -> None: ...

    @abstractmethod
    def resume_connector(self, name: str) -> None: ...

    @abstractmethod
    def stop_connector(self, name: str) -> None: ...

    @abstractmethod
    def connector_offsets(self, name: str) -> list[ConnectorOffset]: ...

    @abstractmethod
    def alter_connector_offsets(self, name: str, offsets: list[ConnectorOffset]) -> str:
        """Write new offsets for a STOPPED connector; returns Kafka Connect's success message."""

    @abstractmethod
    def reset_connector_offsets(self, name: str) -> str: ...

    @abstractmethod
    def connector_active_topics(self, name: str) -> list[str]: ...

    @abstractmethod
    def reset_connector_active_topics(self, name: str) -> None: ...

    @abstractmethod
    def validate_connector_config(self, config: Mapping[str, str]) -> dict[str, Any]:
        """The ConfigInfos body of `PUT /connector-plugins/{p}/config/validate`."""

    @abstractmethod
    def plugins(self, connectors_only: bool) -> list[PluginInfo]: ...

    @abstractmethod
    def plugin_config(self, plugin: str, version: str | None = None) -> list[dict[str, Any]]:
        """`GET /connector-plugins/{p}/config?version=`: the plugin's config keys (ConfigKeyInfo), of the
        highest installed version ``version`` accepts."""

    def cluster_status(self, name: str) -> ConnectorStateInfo:
        """`connector_status` with every task's metrics, whichever worker of the group runs it."""
        return self.connector_status(name)

    def cluster_task_status(self, name: str, task: int) -> TaskState:
        """`task_status` with the task's metrics, whichever worker of the group runs it."""
        return self.task_status(name, task)

    def workers_usage(self) -> list[WorkerUsage]:
        """Every worker of the group (this one first): its memory, CPU, Spark slots and Spark UI."""
        return []

    def connect_metrics(self) -> WorkerMetrics:
        """Kafka Connect's metric groups for what runs on this worker (`GET /metrics`).

        A herder without a worker of its own publishes nothing.
        """
        return WorkerMetrics.empty()

"""A herder whose every operation raises one given exception: only for testing how errors are mapped."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NoReturn

from conveyor.herder.api import Herder
from conveyor.herder.entities import (
    ConnectorInfo,
    ConnectorOffset,
    ConnectorStateInfo,
    PluginInfo,
    TaskInfo,
    TaskState,
)


class ErrorRaisingHerder(Herder):
    def __init__(self, error: Exception) -> None:
        self.error = error

    def _fail(self) -> NoReturn:
        raise self.error

    @property
    def worker_id(self) -> str:
        self._fail()

    @property
    def kafka_cluster_id(self) -> str:
        self._fail()

    def ready(self) -> bool:
        self._fail()

    def connectors(self) -> list[str]:
        self._fail()

    def connector_info(self, name: str) -> ConnectorInfo:
        self._fail()

    def connector_config(self, name: str) -> dict[str, str]:
        self._fail()

    def put_connector_config(
        self,
        name: str,
        config: Mapping[str, str],
        allow_replace: bool,
        initial_state: str | None = None,
        initial_offsets: list[ConnectorOffset] | None = None,
        resume_offsets: bool = False,
    ) -> tuple[bool, ConnectorInfo]:
        self._fail()

    def patch_connector_config(self, name: str, patch: Mapping[str, str | None]) -> ConnectorInfo:
        self._fail()

    def delete_connector(self, name: str) -> None:
        self._fail()

    def connector_status(self, name: str) -> ConnectorStateInfo:
        self._fail()

    def task_status(self, name: str, task: int) -> TaskState:
        self._fail()

    def task_configs(self, name: str) -> list[TaskInfo]:
        self._fail()

    def restart_task(self, name: str, task: int) -> None:
        self._fail()

    def restart_connector(self, name: str, include_tasks: bool, only_failed: bool) -> ConnectorStateInfo:
        self._fail()

    def pause_connector(self, name: str) -> None:
        self._fail()

    def resume_connector(self, name: str) -> None:
        self._fail()

    def stop_connector(self, name: str) -> None:
        self._fail()

    def connector_offsets(self, name: str) -> list[ConnectorOffset]:
        self._fail()

    def alter_connector_offsets(self, name: str, offsets: list[ConnectorOffset]) -> str:
        self._fail()

    def reset_connector_offsets(self, name: str) -> str:
        self._fail()

    def connector_active_topics(self, name: str) -> list[str]:
        self._fail()

    def reset_connector_active_topics(self, name: str) -> None:
        self._fail()

    def validate_connector_config(self, config: Mapping[str, str]) -> dict[str, Any]:
        self._fail()

    def plugins(self, connectors_only: bool) -> list[PluginInfo]:
        self._fail()

    def plugin_config(self, plugin: str, version: str | None = None) -> list[dict[str, Any]]:
        self._fail()

"""A connector for the console's restart button: its first start fails, every later one succeeds."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from conveyor.api import ConfigDef, ConfigType, Importance, SourceConnector, SourceTask, Task

FAILS_TO_START_ONCE = "tests.console.connectors:FailsToStartOnceConnector"
START_MARKER_CONFIG = "start.marker"
START_FAILURE_MESSAGE = "the connector failed its first start on purpose"


class FailsToStartOnceConnector(SourceConnector):
    """Fails in `start` unless `start.marker` exists, creating it; plans no task."""

    CONFIG = ConfigDef().define(
        START_MARKER_CONFIG, ConfigType.STRING, importance=Importance.HIGH,
        documentation="A file whose existence means the connector has failed to start already.",
    )  # fmt: skip

    def version(self) -> str:
        return "1.0"

    def config(self) -> ConfigDef:
        return self.CONFIG

    def start(self, props: Mapping[str, str]) -> None:
        marker = Path(props[START_MARKER_CONFIG])
        if not marker.exists():
            marker.touch()
            raise RuntimeError(START_FAILURE_MESSAGE)

    def task_class(self) -> type[Task]:
        return SourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return []

    def stop(self) -> None:
        """Nothing to release."""

"""A connector whose `stop()` takes `stop.ms`, as a connector whose tasks are slow to stop; the REST load
bench loads this directory as its worker's plugin.path."""

from __future__ import annotations

import time
from collections.abc import Mapping

from conveyor.api import ConfigDef, SourceConnector, SourceTask, Task
from conveyor.data import SourceRecord

STOP_MS_CONFIG = "stop.ms"


class SlowStopConnector(SourceConnector):
    """No tasks; `stop()` sleeps `stop.ms`, as long as a connector's tasks take to stop."""

    def __init__(self) -> None:
        self._stop_s = 0.0

    def version(self) -> str:
        return "1.0"

    def start(self, props: Mapping[str, str]) -> None:
        self._stop_s = int(props.get(STOP_MS_CONFIG, "0")) / 1000

    def task_class(self) -> type[Task]:
        return NoTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return []

    def stop(self) -> None:
        time.sleep(self._stop_s)

    def config(self) -> ConfigDef:
        return ConfigDef()


class NoTask(SourceTask):
    def version(self) -> str:
        return "1.0"

    def start(self, props: Mapping[str, str]) -> None:
        """Never started."""

    def poll(self) -> list[SourceRecord] | None:
        return None

    def stop(self) -> None:
        """Nothing to release."""

"""A source connector with no tasks whose `stop()` blocks until the test releases it.

The herder runs in the test process, so a gate here is the one the connector waits on.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping

from conveyor.api import ConfigDef, SourceConnector, SourceTask, Task
from conveyor.data import SourceRecord

BLOCKING_STOP_CONNECTOR = "tests.rest.blocking_connector:BlockingStopConnector"
RELEASE_TIMEOUT_S = 120.0


class StopGate:
    """Counts the connectors waiting in `stop()` and lets them all go at once."""

    def __init__(self) -> None:
        self._released = threading.Event()
        self._waiting = 0
        self._lock = threading.Lock()

    def wait(self) -> None:
        with self._lock:
            self._waiting += 1
        try:
            self._released.wait(RELEASE_TIMEOUT_S)
        finally:
            with self._lock:
                self._waiting -= 1

    @property
    def waiting(self) -> int:
        with self._lock:
            return self._waiting

    def release(self) -> None:
        self._released.set()

    def reset(self) -> None:
        self._released.clear()


GATE = StopGate()


class BlockingStopConnector(SourceConnector):
    def version(self) -> str:
        return "1.0"

    def start(self, props: Mapping[str, str]) -> None:
        """Nothing to set up."""

    def task_class(self) -> type[Task]:
        return IdleSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return []

    def stop(self) -> None:
        GATE.wait()

    def config(self) -> ConfigDef:
        return ConfigDef()


class IdleSourceTask(SourceTask):
    def version(self) -> str:
        return "1.0"

    def start(self, props: Mapping[str, str]) -> None:
        """Never started: the connector plans no tasks."""

    def poll(self) -> list[SourceRecord] | None:
        return None

    def stop(self) -> None:
        """Nothing to release."""

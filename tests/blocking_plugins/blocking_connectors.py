"""Connectors whose code blocks in one chosen call, loaded from plugin.path as a user's plugin would be.

`block.in` names the call (start, stop, task_configs, validate, poll, put). The call writes
`<release.file>.<call>` when it begins blocking, then waits until the test creates `release.file`, or at
most `block.max.ms`, so that nothing outlives its test. A connector's `stop()` writes
`<release.file>.stopped` once it has run, so a test sees when an abandoned instance was stopped.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence

from conveyor.api import ConfigDef, ConfigValue, SinkConnector, SinkTask, SourceConnector, SourceTask, Task
from conveyor.data import SinkRecord, SourceRecord

BLOCK_IN = "block.in"
RELEASE_FILE = "release.file"
BLOCK_MAX_MS = "block.max.ms"
DEFAULT_BLOCK_MAX_MS = 300_000


def block(props: Mapping[str, str], call: str) -> None:
    """Block here if `call` is the one `props` name."""
    if props.get(BLOCK_IN) != call:
        return
    release = props[RELEASE_FILE]
    with open(f"{release}.{call}", "w"):
        pass
    limit = time.monotonic() + int(props.get(BLOCK_MAX_MS, DEFAULT_BLOCK_MAX_MS)) / 1000
    while not os.path.exists(release) and time.monotonic() < limit:
        time.sleep(0.05)


class BlockingSourceTask(SourceTask):
    def __init__(self) -> None:
        self._props: dict[str, str] = {}

    def version(self) -> str:
        return "1.0"

    def start(self, props: Mapping[str, str]) -> None:
        self._props = dict(props)

    def poll(self) -> list[SourceRecord] | None:
        block(self._props, "poll")
        time.sleep(0.1)
        return None

    def stop(self) -> None:
        """Nothing to release."""


class BlockingSinkTask(SinkTask):
    def __init__(self) -> None:
        self._props: dict[str, str] = {}

    def version(self) -> str:
        return "1.0"

    def start(self, props: Mapping[str, str]) -> None:
        self._props = dict(props)

    def put(self, records: Sequence[SinkRecord]) -> None:
        if records:
            block(self._props, "put")

    def stop(self) -> None:
        """Nothing to release."""


class _Blocking:
    """What both connectors share: each call blocks if it is the one named."""

    def __init__(self) -> None:
        self._props: dict[str, str] = {}

    def version(self) -> str:
        return "1.0"

    def start(self, props: Mapping[str, str]) -> None:
        self._props = dict(props)
        block(props, "start")

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        block(self._props, "task_configs")
        return [dict(self._props)]

    def stop(self) -> None:
        block(self._props, "stop")
        if RELEASE_FILE in self._props:
            with open(f"{self._props[RELEASE_FILE]}.stopped", "w"):
                pass

    def config(self) -> ConfigDef:
        return ConfigDef()

    def validate(self, connector_configs: Mapping[str, str]) -> list[ConfigValue]:
        block(connector_configs, "validate")
        return self.config().validate(connector_configs)


class BlockingSourceConnector(_Blocking, SourceConnector):
    def task_class(self) -> type[Task]:
        return BlockingSourceTask


class BlockingSinkConnector(_Blocking, SinkConnector):
    def task_class(self) -> type[Task]:
        return BlockingSinkTask

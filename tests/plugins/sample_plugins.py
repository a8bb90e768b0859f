"""Small plugin classes the resolution specifications load by dotted path and entry point."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conveyor.api import ConfigDef, SourceConnector, SourceTask, Task, Transformation
from conveyor.data import ConnectRecord, SourceRecord


class EchoTask(SourceTask):
    def version(self) -> str:
        return "2.5"

    def start(self, props: Mapping[str, str]) -> None: ...

    def poll(self) -> list[SourceRecord] | None:
        return None

    def stop(self) -> None: ...


class EchoSourceConnector(SourceConnector):
    def version(self) -> str:
        return "2.5"

    def start(self, props: Mapping[str, str]) -> None: ...

    def task_class(self) -> type[Task]:
        return EchoTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [{}]

    def stop(self) -> None: ...

    def config(self) -> ConfigDef:
        return ConfigDef()


class RenameTopic(Transformation[ConnectRecord]):
    def configure(self, configs: Mapping[str, Any]) -> None:
        self.topic = configs["topic"]

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        return record.new_record(topic=self.topic)


class NotAPlugin:
    pass

"""A source connector that is installed nowhere: the Spark cluster test puts it on plugin.path only.

Each task counts up from its last committed number, a few hundred records a second, with values in the
generator's ``tttt:sssssssssssssss:`` form so that Conveyor's verifier can tally them, and the id of the
process that wrote each record in its ``pid`` header, so that a test can tell where the task runs.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Mapping

from conveyor.api import ConfigDef, ExactlyOnceSupport, SourceConnector, SourceTask, Task
from conveyor.api.config import ConfigType, Importance
from conveyor.connectors.generator.payload import generated_value
from conveyor.data import STRING_SCHEMA, Header, SourceRecord

RECORD_SIZE = 64
BATCH = 50


class TicketCounterTask(SourceTask):
    def __init__(self) -> None:
        self._stopping = threading.Event()
        self._props: Mapping[str, str] = {}
        self._next = 0

    def version(self) -> str:
        return "1.0"

    def start(self, props: Mapping[str, str]) -> None:
        self._props = props
        committed = self.context.offset_storage_reader().offset(self._partition)
        self._next = int(committed["count"]) + 1 if committed else 0
        self._stopping.clear()

    @property
    def _partition(self) -> dict[str, int]:
        return {"counter": int(self._props["task.id"])}

    def poll(self) -> list[SourceRecord] | None:
        end = min(self._next + BATCH, int(self._props["records"]))
        pause = BATCH / float(self._props["rate"])
        if self._stopping.wait(pause) or end <= self._next:
            return None
        task = int(self._props["task.id"])
        records = [
            SourceRecord(
                self._props["topic"],
                source_partition=self._partition,
                source_offset={"count": n},
                value_schema=STRING_SCHEMA,
                value=generated_value(0, task, n, RECORD_SIZE),
                timestamp=int(time.time() * 1000),
                headers=[Header("pid", str(os.getpid()), STRING_SCHEMA)],
            )
            for n in range(self._next, end)
        ]
        self._next = end
        return records

    def stop(self) -> None:
        self._stopping.set()


class TicketCounterConnector(SourceConnector):
    def __init__(self) -> None:
        self._props: Mapping[str, str] = {}

    def version(self) -> str:
        return "1.0"

    def start(self, props: Mapping[str, str]) -> None:
        self._props = dict(props)

    def task_class(self) -> type[Task]:
        return TicketCounterTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        keys = ("topic", "records", "rate")
        return [{**{key: self._props[key] for key in keys}, "task.id": str(i)} for i in range(max_tasks)]

    def stop(self) -> None:
        pass

    def config(self) -> ConfigDef:
        return (
            ConfigDef()
            .define("topic", ConfigType.STRING, importance=Importance.HIGH, documentation="Where to write.")
            .define(
                "records", ConfigType.INT, importance=Importance.HIGH, documentation="How many, per task."
            )
            .define("rate", ConfigType.INT, importance=Importance.HIGH, documentation="Records a second.")
        )

    def exactly_once_support(self, connector_config: Mapping[str, str]) -> ExactlyOnceSupport:
        return ExactlyOnceSupport.SUPPORTED

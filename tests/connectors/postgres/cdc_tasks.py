"""Running the change data capture task as the runtime does: poll, keep the last offset, commit."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from tests.connectors.connector_contexts import DictOffsetStorageReader, DictSourceTaskContext
from tests.waiting import wait_until

from conveyor.connectors.postgres.cdc_source import PostgresCdcSourceTask
from conveyor.connectors.postgres.connection import PostgresAddress
from conveyor.data import SourceRecord

WAIT_S = 60.0
HEARTBEAT_TOPIC_PREFIX = "__debezium-heartbeat."


def cdc_config(target: PostgresAddress, prefix: str = "server1", **settings: str) -> dict[str, str]:
    """Debezium's PostgreSQL connector config for ``target``, with these settings."""
    return {
        "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
        "database.hostname": target.host,
        "database.port": str(target.port),
        "database.user": str(target.user),
        "database.password": str(target.password),
        "database.dbname": target.dbname,
        "topic.prefix": prefix,
        "plugin.name": "pgoutput",
        "poll.interval.ms": "200",
        **settings,
    }


class TaskRun:
    """A started task, the change records it returned (its heartbeat-topic records apart) and the offsets
    committed so far."""

    def __init__(
        self, config: Mapping[str, str], offsets: DictOffsetStorageReader, json_unchanged: bool = False
    ) -> None:
        self.config = dict(config)
        self.offsets = offsets
        self.task = PostgresCdcSourceTask()
        self.task.initialize(DictSourceTaskContext(config, offsets, json_unchanged=json_unchanged))
        self.records: list[SourceRecord] = []
        self.heartbeats: list[SourceRecord] = []
        self._uncommitted: list[SourceRecord] = []
        self.task.start(config)

    def poll(self) -> list[SourceRecord]:
        polled = self.task.poll() or []
        self._uncommitted.extend(polled)
        batch = [record for record in polled if not record.topic.startswith(HEARTBEAT_TOPIC_PREFIX)]
        self.heartbeats.extend(record for record in polled if record.topic.startswith(HEARTBEAT_TOPIC_PREFIX))
        self.records.extend(batch)
        return batch

    def commit(self) -> None:
        """What the runtime does once the records are durable: store each partition's last offset, then
        ``commit``."""
        for record in self._uncommitted:
            assert record.source_partition is not None and record.source_offset is not None
            self.offsets.commit(record.source_partition, record.source_offset)
        self._uncommitted.clear()
        self.task.commit()

    def poll_until(self, condition: Callable[[list[SourceRecord]], bool], what: str) -> list[SourceRecord]:
        def reached() -> bool:
            self.poll()
            return condition(self.records)

        wait_until(reached, what, WAIT_S, every_s=0.0)
        return self.records

    def poll_count(self, count: int) -> list[SourceRecord]:
        return self.poll_until(lambda records: len(records) >= count, f"{count} records")


@contextmanager
def task_run(
    config: Mapping[str, str], offsets: DictOffsetStorageReader | None = None, json_unchanged: bool = False
) -> Iterator[TaskRun]:
    """A started task; with ``json_unchanged`` its context says its records reach default JsonConverters
    unchanged (the snapshot then writes ``EncodedJson`` where it can)."""
    run = TaskRun(config, offsets or DictOffsetStorageReader(), json_unchanged)
    try:
        yield run
    finally:
        run.task.stop()


def after(record: SourceRecord) -> dict[str, Any] | None:
    value = record.value.get("after")
    return None if value is None else value.to_dict()


def before(record: SourceRecord) -> dict[str, Any] | None:
    value = record.value.get("before")
    return None if value is None else value.to_dict()


def ops(records: list[SourceRecord]) -> list[str | None]:
    """Each record's op, None for a tombstone."""
    return [None if record.value is None else record.value.get("op") for record in records]

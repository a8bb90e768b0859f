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
    """A started task, the records it returned and the offsets committed so far."""

    def __init__(self, config: Mapping[str, str], offsets: DictOffsetStorageReader) -> None:
        self.config = dict(config)
        self.offsets = offsets
        self.task = PostgresCdcSourceTask()
        self.task.initialize(DictSourceTaskContext(config, offsets))
        self.records: list[SourceRecord] = []
        self.task.start(config)

    def poll(self) -> list[SourceRecord]:
        batch = self.task.poll() or []
        self.records.extend(batch)
        return batch

    def commit(self) -> None:
        """What the runtime does once the records are durable: store the last offset, then ``commit``."""
        if self.records:
            last = self.records[-1]
            assert last.source_partition is not None and last.source_offset is not None
            self.offsets.commit(last.source_partition, last.source_offset)
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
def task_run(config: Mapping[str, str], offsets: DictOffsetStorageReader | None = None) -> Iterator[TaskRun]:
    run = TaskRun(config, offsets or DictOffsetStorageReader())
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

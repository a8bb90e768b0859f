"""Running the JDBC source task against a real database in a test: its config, and polling it dry."""

from __future__ import annotations

from typing import Any

from tests.connectors.connector_contexts import DictOffsetStorageReader, DictSourceTaskContext

from conveyor.connectors.postgres.connection import PostgresAddress
from conveyor.connectors.postgres.jdbc_source import JdbcSourceConnector, JdbcSourceTask
from conveyor.data import SourceRecord

MAX_POLLS = 1000


def jdbc_config(target: PostgresAddress, **settings: str) -> dict[str, str]:
    """A JDBC source config for ``target`` that polls each table as often as asked (no interval)."""
    return {
        "connection.url": f"jdbc:postgresql://{target.host}:{target.port}/{target.dbname}",
        "connection.user": str(target.user),
        "connection.password": str(target.password),
        "poll.interval.ms": "0",
        **settings,
    }


def task_configs(config: dict[str, str], max_tasks: int = 1) -> list[dict[str, str]]:
    """The task configs a started connector gives for ``config``."""
    connector = JdbcSourceConnector()
    connector.start(config)
    try:
        return connector.task_configs(max_tasks)
    finally:
        connector.stop()


def started_task(config: dict[str, str], offsets: DictOffsetStorageReader | None = None) -> JdbcSourceTask:
    """The connector's first task, started with ``offsets`` as the committed ones."""
    task = JdbcSourceTask()
    task.idle_wait_seconds = 0.01
    props = task_configs(config)[0]
    task.initialize(DictSourceTaskContext(props, offsets))
    task.start(props)
    return task


def drain(task: JdbcSourceTask) -> list[SourceRecord]:
    """Every record the task returns until a poll returns none."""
    records: list[SourceRecord] = []
    for _ in range(MAX_POLLS):
        batch = task.poll()
        if not batch:
            return records
        records.extend(batch)
    raise AssertionError(f"the task still returned records after {MAX_POLLS} polls")


def values(records: list[SourceRecord], field: str = "id") -> list[Any]:
    return [record.value.get(field) for record in records]


def commit_last(offsets: DictOffsetStorageReader, records: list[SourceRecord]) -> None:
    """Commit each partition's last offset, as the runtime does."""
    for record in records:
        assert record.source_partition is not None and record.source_offset is not None
        offsets.commit(record.source_partition, record.source_offset)

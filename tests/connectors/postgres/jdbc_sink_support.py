"""JDBC sink tasks on a real PostgreSQL database of the test module's own, and records to give them."""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import Future
from contextlib import contextmanager
from typing import Any

import psycopg2
import psycopg2.extensions
from tests.connectors.connector_contexts import DictSinkTaskContext

from conveyor.api import ErrantRecordReporter, TopicPartition
from conveyor.connectors.postgres.jdbc_sink import JdbcSinkTask
from conveyor.data import (
    INT64_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    Schema,
    SchemaBuilder,
    SinkRecord,
    Struct,
)
from conveyor.postgres_server import PostgresServer

ROW_SCHEMA = SchemaBuilder.struct().field("id", INT64_SCHEMA).field("name", OPTIONAL_STRING_SCHEMA).build()


class RecordingReporter(ErrantRecordReporter):
    """Keeps the records reported as errant, with their errors."""

    def __init__(self) -> None:
        self.reported: list[tuple[SinkRecord, BaseException]] = []

    def report(self, record: SinkRecord, error: BaseException) -> Future[None]:
        self.reported.append((record, error))
        future: Future[None] = Future()
        future.set_result(None)
        return future


class RecordingSinkTaskContext(DictSinkTaskContext):
    """A sink task context that remembers the offsets the task rewinds to, with an errant record reporter."""

    def __init__(self, configs: Mapping[str, str]) -> None:
        super().__init__(configs)
        self.offsets: dict[TopicPartition, int] = {}
        self.reporter = RecordingReporter()
        self.timeouts: list[int] = []

    def offset(self, offsets: Mapping[TopicPartition, int]) -> None:
        self.offsets.update(offsets)

    def timeout(self, timeout_ms: int) -> None:
        self.timeouts.append(timeout_ms)

    def errant_record_reporter(self) -> ErrantRecordReporter | None:
        return self.reporter


def create_database(server: PostgresServer) -> str:
    """A new database on ``server``; its name."""
    name = f"sink_{uuid.uuid4().hex[:10]}"
    connection = psycopg2.connect(server.dsn())
    connection.autocommit = True
    with connection.cursor() as cursor:
        cursor.execute(f"CREATE DATABASE {name}")
    connection.close()
    return name


def sink_config(server: PostgresServer, database: str, **settings: str) -> dict[str, str]:
    """A JDBC sink config for ``database`` (dotted keys given with underscores: ``pk_mode="kafka"``)."""
    return {
        "name": f"jdbc-{uuid.uuid4().hex[:6]}",
        "connector.class": "io.confluent.connect.jdbc.JdbcSinkConnector",
        "connection.url": server.jdbc_url(database),
        "connection.user": server.user,
        "connection.password": server.password,
        "retry.backoff.ms": "100",
        **{key.replace("_", "."): value for key, value in settings.items()},
    }


@contextmanager
def started_task(
    config: Mapping[str, str], partitions: Sequence[TopicPartition] = ()
) -> Iterator[tuple[JdbcSinkTask, RecordingSinkTaskContext]]:
    """A started task that has opened ``partitions``, stopped on the way out."""
    task = JdbcSinkTask()
    context = RecordingSinkTaskContext(config)
    task.initialize(context)
    task.start(config)
    try:
        if partitions:
            task.open(list(partitions))
        yield task, context
    finally:
        task.stop()


def row(id_: int, name: str | None = "x", schema: Schema = ROW_SCHEMA) -> Struct:
    struct = Struct(schema).put("id", id_)
    return struct.put("name", name) if schema.field("name") is not None else struct


def record(
    topic: str,
    offset: int,
    value: Any,
    key: Any = None,
    key_schema: Schema | None = None,
    partition: int = 0,
) -> SinkRecord:
    value_schema = value.schema if isinstance(value, Struct) else None
    return SinkRecord(
        topic,
        kafka_partition=partition,
        key_schema=key_schema if key is not None or key_schema is not None else None,
        key=key,
        value_schema=value_schema,
        value=value,
        kafka_offset=offset,
    )


def rows_of(topic: str, count: int, start: int = 0, partition: int = 0) -> list[SinkRecord]:
    """Records at offsets ``start..start+count-1`` whose ids are their offsets."""
    return [
        record(
            topic, offset, row(offset, f"n{offset}"), key=offset, key_schema=INT64_SCHEMA, partition=partition
        )
        for offset in range(start, start + count)
    ]


def query(server: PostgresServer, database: str, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    connection: psycopg2.extensions.connection = psycopg2.connect(server.dsn(database))
    try:
        with connection.cursor() as cursor:
            cursor.execute(sql, args)
            return list(cursor.fetchall())
    finally:
        connection.close()


def execute(server: PostgresServer, database: str, sql: str) -> None:
    connection = psycopg2.connect(server.dsn(database))
    try:
        with connection.cursor() as cursor:
            cursor.execute(sql)
        connection.commit()
    finally:
        connection.close()


def ids(server: PostgresServer, database: str, table: str) -> list[int]:
    return [int(r[0]) for r in query(server, database, f'SELECT id FROM "{table}" ORDER BY id')]


def unique_table(prefix: str) -> str:
    """A topic (and so a table) name of a test's own."""
    return f"{prefix}_{uuid.uuid4().hex[:10]}"

"""``JdbcSinkConnector``: topics into PostgreSQL tables, with Confluent's keys, exactly once by default.

Each ``put`` is one database transaction: the rows of its records and, with ``exactly.once``, the offsets
they cover in the offsets table (see ``sink_offsets``), fenced by the generation the task took when it
opened the partition. ``open`` rewinds the consumer to the database's offsets and ``pre_commit`` reports
them, so the consumer group's commit is advisory only. A lost connection is retried ``max.retries`` times,
``retry.backoff.ms`` apart; a record that does not fit its column fails the task, naming table, column and
offset, or goes to the dead letter queue with ``errors.tolerance=all``.
"""

from __future__ import annotations

import bisect
import contextlib
import logging
import threading
import time
from collections.abc import Collection, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import psycopg2
import psycopg2.extensions

from conveyor import __version__
from conveyor.api import (
    ColumnSinkTask,
    ConfigValue,
    ConnectError,
    RetriableError,
    SinkConnector,
    Task,
    TopicPartition,
)
from conveyor.connectors.configured_connector import ConfiguredConnector
from conveyor.connectors.postgres.connection import PostgresConnectionError, connect, first_line
from conveyor.connectors.postgres.sink_config import CONFIG_DEF, JdbcSinkSettings, cross_check
from conveyor.connectors.postgres.sink_fields import Layouts, RecordLayout, RecordShapeError, where
from conveyor.connectors.postgres.sink_offsets import FencedError, OffsetsTable
from conveyor.connectors.postgres.sink_tables import TableInfo, TableName, Tables
from conveyor.connectors.postgres.sink_writer import ROW_ERRORS, BadRecordError, Writer
from conveyor.data import SinkColumns, SinkRecord, Struct, StructColumn

logger = logging.getLogger(__name__)

CONNECTION_ERRORS: tuple[type[BaseException], ...] = (
    psycopg2.OperationalError,
    psycopg2.InterfaceError,
    PostgresConnectionError,
)
"""A lost or refused connection, a server shutting down, a deadlock: worth a retry on a new connection."""

SEND_WAIT_S = 1.0
"""How long ``put`` waits at most for the writer thread to have sent its batch's rows (see ``_send``)."""


class JdbcSinkConnector(ConfiguredConnector, SinkConnector):
    """Writes its topics' records into PostgreSQL tables (Confluent's and Debezium's JDBC sink names)."""

    CONFIG_DEF = CONFIG_DEF

    def _check(self, props: Mapping[str, str]) -> None:
        JdbcSinkSettings.parse(props)

    def validate(self, connector_configs: Mapping[str, str]) -> list[ConfigValue]:
        """Each key's own checks, then those spanning keys, reported on the key to change."""
        values = self.CONFIG_DEF.validate(connector_configs)
        by_name = {value.name: value for value in values}
        parsed = {value.name: value.value for value in values}
        for key, message in cross_check(connector_configs, parsed):
            by_name[key].add_error(message)
        return values

    def task_class(self) -> type[Task]:
        return JdbcSinkTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        """``max_tasks`` identical tasks: the consumer group shares the partitions out among them."""
        return [dict(self._props) for _ in range(max_tasks)]

    def alter_offsets(
        self, connector_config: Mapping[str, str], offsets: Mapping[TopicPartition, int | None]
    ) -> bool:
        """With ``exactly.once`` the database's offsets are the ones a task resumes from: move them too."""
        settings = JdbcSinkSettings.parse(connector_config)
        if not settings.exactly_once:
            return True
        table = OffsetsTable(settings.offsets_table, connector_config.get("name", "jdbc-sink"))
        connection = connect(settings.address, application_name="conveyor-jdbc-sink-offsets")
        try:
            table.create(connection)
            table.move(connection, offsets)
        finally:
            connection.close()
        return True


class JdbcSinkTask(ColumnSinkTask):
    """Writes each ``put`` in one transaction; see the module's docstring."""

    def __init__(self) -> None:
        self._connection: psycopg2.extensions.connection | None = None
        self._generations: dict[TopicPartition, int] = {}
        self._next: dict[TopicPartition, int] = {}
        self._retry_at = 0.0
        self._table_names: dict[str, TableName] = {}
        self._in_flight: _InFlight | None = None
        self._unsettled: SinkColumns | None = None
        self._failure: Exception | None = None
        self._writer_thread = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="conveyor-jdbc-sink-writer"
        )

    def version(self) -> str:
        return __version__

    def start(self, props: Mapping[str, str]) -> None:
        self._settings = settings = JdbcSinkSettings.parse(props)
        self._name = props.get("name", "jdbc-sink")
        self._layouts = Layouts(settings)
        self._tables = Tables(settings)
        self._writer = Writer(settings)
        self._offsets = OffsetsTable(settings.offsets_table, self._name) if settings.exactly_once else None
        self._retries_left = settings.max_retries
        self._connect()

    def max_poll_records(self, props: Mapping[str, str]) -> int | None:
        """``batch.size``: a poll's records are written in one transaction, whose fixed cost on the server
        larger batches spread over more rows."""
        return JdbcSinkSettings.parse(props).batch_size

    def open(self, partitions: Collection[TopicPartition]) -> None:
        """Take each partition's next generation and rewind to the offset the database holds for it."""
        self._settle()
        if self._offsets is None or not partitions:
            return
        offsets = self._offsets
        claims = self._patiently(lambda connection: offsets.claim(connection, partitions), "open partitions")
        rewinds: dict[TopicPartition, int] = {}
        for partition, claim in claims.items():
            self._generations[partition] = claim.generation
            if claim.next_offset is not None:
                self._next[partition] = rewinds[partition] = claim.next_offset
        if rewinds:
            logger.info("%s: resuming from the offsets in the database: %s", self._name, rewinds)
            self.context.offset(rewinds)

    def put(self, records: Sequence[SinkRecord]) -> None:
        if records:
            self._put(lambda connection: self._write_records(connection, records))

    def put_columns(self, batch: SinkColumns) -> None:
        """As ``put`` with ``batch.records()``. A batch of struct values of one schema whose columns all come
        from the value becomes COPY text column by column, and the writer thread commits it while the loop
        converts the next batch (see ``_settle``)."""
        if not len(batch):
            return
        partition = TopicPartition(batch.topic, batch.partition)
        start = bisect.bisect_left(batch.offsets, self._next.get(partition, -1))
        staged = self._columns_text(batch, start) if start < len(batch) else None
        self._put(lambda connection: self._send(connection, batch, partition, staged))

    def _put(self, write: Any) -> None:
        """The last batch settled, one left unwritten by it written, then ``write(connection)``; after the
        retry back-off, and a lost connection is retried."""
        if time.monotonic() < self._retry_at:
            time.sleep(min(0.2, self._retry_at - time.monotonic()))
            raise RetriableError(f"Waiting retry.backoff.ms={self._settings.retry_backoff_ms} before a retry")
        try:
            self._settle()
            if self._failure is not None:
                raise self._failure
            connection = self._connection or self._reconnect()
            if self._unsettled is not None:
                self._write_records(connection, self._unsettled.records())
                self._unsettled = None
            write(connection)
        except CONNECTION_ERRORS as error:
            self._retry(error)
        self._retries_left = self._settings.max_retries

    def _write_records(
        self, connection: psycopg2.extensions.connection, records: Sequence[SinkRecord]
    ) -> None:
        fresh = self._unwritten(records)
        if fresh:
            self._write(connection, fresh)

    def _send(
        self,
        connection: psycopg2.extensions.connection,
        batch: SinkColumns,
        partition: TopicPartition,
        staged: tuple[RecordLayout, SinkRecord, str] | None,
    ) -> None:
        """The staged batch to the writer thread, or its records written here when it was not staged. Once the
        writer thread has sent the rows (or after ``SEND_WAIT_S``: a lock may hold the transaction), the loop
        goes on to the next batch: until then the writer thread needs the interpreter lock at every step of
        the round trip while the server waits for the rows, and a loop busy converting holds it."""
        if staged is None:
            self._write_records(connection, batch.records())
            return
        layout, first, text = staged
        table = self._tables.ready(connection, self._table_name(batch.topic), layout, where(first))
        generation = self._generation(partition) if self._offsets is not None else 0
        end = batch.offsets[-1] + 1
        sent = threading.Event()
        future = self._writer_thread.submit(
            self._commit_text, connection, partition, end, generation, table, layout, text, sent
        )
        self._in_flight = _InFlight(future, batch, partition, end, str(table.name))
        sent.wait(SEND_WAIT_S)

    def _commit_text(
        self,
        connection: psycopg2.extensions.connection,
        partition: TopicPartition,
        end: int,
        generation: int,
        table: TableInfo,
        layout: RecordLayout,
        text: str,
        sent: threading.Event,
    ) -> None:
        """On the writer thread: the rows, and the partition's next offset if fenced by generation, in one
        transaction sent as one query string (``Writer.commit_text``); ``sent`` is set once the rows are
        sent, or the transaction is over. On failure a commit is requested, so that ``pre_commit`` soon
        writes the batch again even if no more records come."""
        try:
            with connection.cursor() as cursor:
                offsets = self._offsets
                fence = None if offsets is None else offsets.fence(cursor, partition, end, generation)
                connection.autocommit = True
                try:
                    self._writer.commit_text(cursor, table, layout, text, fence, sent.set)
                finally:
                    sent.set()
                    _end_transaction(connection, cursor)
        except BaseException as error:
            sent.set()
            self.context.request_commit()
            if isinstance(error, psycopg2.Error) and self._offsets is not None:
                fenced = self._offsets.fenced(error, [partition])
                if fenced is not None:
                    raise fenced from error
            raise

    def _settle(self) -> None:
        """Wait for the batch the writer thread holds. Committed, its partition advances; refused for a row,
        or cut off with the connection, it is left to be written record by record (which finds the bad
        record, or retries) by the next ``put`` or ``pre_commit``; any other error fails the next ``put``
        and ``pre_commit``."""
        in_flight, self._in_flight = self._in_flight, None
        if in_flight is None:
            return
        try:
            in_flight.future.result()
        except ROW_ERRORS:
            self._unsettled = in_flight.batch
        except CONNECTION_ERRORS as error:
            logger.warning(
                "%s: writing a batch failed: %s; it is written again", self._name, first_line(error)
            )
            self._disconnect()
            self._unsettled = in_flight.batch
        except Exception as error:
            self._failure = _failed(in_flight, error)
            self._unsettled = in_flight.batch
        else:
            self._next[in_flight.partition] = in_flight.end

    def _columns_text(self, batch: SinkColumns, start: int) -> tuple[RecordLayout, SinkRecord, str] | None:
        """The layout, the first record and the COPY text of the batch's rows from ``start``; None when the
        batch is not all struct values of one schema taken from the value alone, or a value does not fit."""
        values = batch.values[start:]
        value_schema, key_schema = batch.value_schemas[start], batch.key_schemas[start]
        if (
            (not isinstance(values, StructColumn) and set(map(type, values)) != {Struct})
            or batch.value_schemas.count(value_schema) != len(batch)
            or batch.key_schemas.count(key_schema) != len(batch)
        ):
            return None
        first = SinkRecord.from_columns(
            batch.topic,
            batch.partition,
            batch.offsets[start : start + 1],
            [key_schema],
            batch.keys[start : start + 1],
            [value_schema],
            values[:1],
            batch.timestamps[start : start + 1],
            batch.timestamp_type,
        )[0]
        try:
            layout = self._layouts.of(first)
        except RecordShapeError:
            return None
        positions = layout.value_positions
        if positions is None:
            return None
        try:
            fields = values.field_columns() if isinstance(values, StructColumn) else Struct.columns(values)
            columns = [
                fields[index] if default is None else [default if v is None else v for v in fields[index]]
                for index, default in positions
            ]
            text = self._writer.columns_text(layout, columns)
        except Exception:
            return None
        return layout, first, text

    def _unwritten(self, records: Sequence[SinkRecord]) -> Sequence[SinkRecord]:
        """The records not written yet: those at or after their partition's next offset."""
        first = records[0]
        topic, partition = first.original_topic, first.original_kafka_partition
        if first.original_kafka_offset >= self._next.get(_partition(first), -1) and all(
            r.original_kafka_partition == partition and r.original_topic == topic for r in records
        ):
            return records
        return [r for r in records if r.original_kafka_offset >= self._next.get(_partition(r), -1)]

    def pre_commit(self, current_offsets: Mapping[TopicPartition, int]) -> dict[TopicPartition, int]:
        """What ``put`` was given is committed in the database once the writer thread's batch settles and a
        batch it left is written (see ``_write_unsettled``); a batch that failed otherwise fails this call.
        With ``exactly.once`` the offsets are the database's; without, those of a batch still unwritten are
        held back."""
        self._settle()
        if self._failure is not None:
            raise self._failure
        self._write_unsettled()
        if self._offsets is None:
            held = dict(current_offsets)
            unsettled = self._unsettled
            partition = None if unsettled is None else TopicPartition(unsettled.topic, unsettled.partition)
            if unsettled is not None and partition in held:
                held[partition] = min(held[partition], unsettled.offsets[0])
            return held
        return {p: self._next[p] for p in current_offsets if p in self._next}

    def _write_unsettled(self) -> None:
        """The batch the writer thread left, written record by record now rather than at the next ``put``,
        which may be long in coming: a bad record goes to the dead letter queue, or fails this call and
        the next ``put``; a lost connection leaves it for the next ``put``, which retries."""
        unsettled = self._unsettled
        if unsettled is None or self._failure is not None:
            return
        try:
            self._write_records(self._connection or self._reconnect(), unsettled.records())
        except CONNECTION_ERRORS as error:
            logger.warning("%s: %s; the batch is written at the next put", self._name, first_line(error))
            self._disconnect()
            return
        except Exception as error:
            self._failure = error
            raise
        self._unsettled = None

    def close(self, partitions: Collection[TopicPartition]) -> None:
        self._settle()
        unsettled = self._unsettled
        if unsettled is not None and TopicPartition(unsettled.topic, unsettled.partition) in partitions:
            self._unsettled = None
        for partition in partitions:
            self._generations.pop(partition, None)
            self._next.pop(partition, None)

    def stop(self) -> None:
        self._settle()
        self._writer_thread.shutdown()
        self._disconnect()

    def _write(self, connection: psycopg2.extensions.connection, records: Sequence[SinkRecord]) -> None:
        advances = _next_offsets(records)
        groups, rejected = self._groups(connection, records)
        careful = False
        while True:
            bad: list[BadRecordError] = list(rejected)

            def on_bad(error: BadRecordError, collected: list[BadRecordError] = bad) -> None:
                self._bad(error, collected)

            try:
                with connection.cursor() as cursor:
                    if self._offsets is not None:
                        self._offsets.advance(
                            cursor, {p: (offset, self._generation(p)) for p, offset in advances.items()}
                        )
                    for table, layout, group in groups:
                        self._writer.write(cursor, table, layout, group, careful, on_bad)
                connection.commit()
            except ROW_ERRORS:
                connection.rollback()
                if careful:
                    raise
                careful = True
                continue
            except BaseException:
                with contextlib.suppress(psycopg2.Error):
                    connection.rollback()
                raise
            break
        self._next.update(advances)
        for error in bad:
            self._report(error)

    def _groups(
        self, connection: psycopg2.extensions.connection, records: Sequence[SinkRecord]
    ) -> tuple[list[tuple[TableInfo, RecordLayout, list[SinkRecord]]], list[BadRecordError]]:
        """Consecutive records of one table and layout, with their tables ready; and records of no shape
        the settings can write (reported as bad once the batch commits)."""
        groups: list[tuple[TableInfo, RecordLayout, list[SinkRecord]]] = []
        rejected: list[BadRecordError] = []
        for record in records:
            if record.value is None and not self._settings.delete_enabled:
                continue
            name = self._table_name(record.topic)
            try:
                layout = self._layouts.of(record)
            except RecordShapeError as error:
                self._bad(BadRecordError(record, str(name), None, error), rejected)
                continue
            if groups and groups[-1][0].name == name and groups[-1][1] is layout:
                groups[-1][2].append(record)
                continue
            table = self._tables.ready(connection, name, layout, where(record))
            groups.append((table, layout, [record]))
        return groups, rejected

    def _table_name(self, topic: str) -> TableName:
        name = self._table_names.get(topic)
        if name is None:
            name = self._table_names[topic] = TableName.parse(self._settings.table_for(topic))
        return name

    def _bad(self, error: BadRecordError, collected: list[BadRecordError]) -> None:
        """A record that does not fit: fail (rolling the batch back) unless errors are tolerated."""
        if not self._settings.tolerate_errors:
            raise ConnectError(
                f"{error}. Fix the record or the table, or set errors.tolerance=all "
                "(with errors.deadletterqueue.topic.name) to skip such records"
            ) from error.cause
        collected.append(error)

    def _report(self, error: BadRecordError) -> None:
        reporter = self.context.errant_record_reporter()
        if reporter is None:
            logger.warning("%s: skipped (errors.tolerance=all): %s", self._name, error)
            return
        reporter.report(error.record, error).result()

    def _generation(self, partition: TopicPartition) -> int:
        generation = self._generations.get(partition)
        if generation is None:
            raise FencedError(self._name, [partition])
        return generation

    def _retry(self, error: BaseException) -> None:
        """Drop the connection and have the batch redelivered after ``retry.backoff.ms``, or fail once
        ``max.retries`` are spent."""
        self._disconnect()
        if self._retries_left <= 0:
            raise ConnectError(
                f"Writing to PostgreSQL at {self._settings.address.describe()} failed after "
                f"{self._settings.max_retries} retries: {first_line(error)}. Check that the server is up and "
                "reachable; raise max.retries or retry.backoff.ms to ride out longer outages"
            ) from error
        self._retries_left -= 1
        logger.warning(
            "%s: %s; retrying in %d ms (%d retries left)",
            self._name,
            first_line(error),
            self._settings.retry_backoff_ms,
            self._retries_left,
        )
        self._retry_at = time.monotonic() + self._settings.retry_backoff_ms / 1000
        self.context.timeout(self._settings.retry_backoff_ms)
        raise RetriableError(first_line(error)) from error

    def _patiently(self, action: Any, what: str) -> Any:
        """``action(connection)``, retried on a new connection up to ``max.retries`` times."""
        for attempt in range(self._settings.max_retries + 1):
            try:
                connection = self._connection or self._reconnect()
                return action(connection)
            except CONNECTION_ERRORS as error:
                self._disconnect()
                if attempt == self._settings.max_retries:
                    raise ConnectError(f"Could not {what} in PostgreSQL: {first_line(error)}") from error
                time.sleep(self._settings.retry_backoff_ms / 1000)
        raise AssertionError("unreachable")

    def _connect(self) -> psycopg2.extensions.connection:
        self._connection = connect(self._settings.address, application_name=f"conveyor-{self._name}")
        if self._offsets is not None:
            self._offsets.create(self._connection)
        return self._connection

    def _reconnect(self) -> psycopg2.extensions.connection:
        """A new connection, and the offsets held re-read: a batch whose commit was in flight when the
        old one broke may have committed, and its records must not be written twice."""
        connection = self._connect()
        self._tables.forget()
        if self._offsets is not None and self._generations:
            rows = self._offsets.read(connection, list(self._generations))
            lost = [p for p, g in self._generations.items() if p not in rows or rows[p].generation != g]
            if lost:
                raise FencedError(self._name, lost)
            for partition, claim in rows.items():
                if claim.next_offset is not None:
                    self._next[partition] = claim.next_offset
        return connection

    def _disconnect(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None and not connection.closed:
            try:
                connection.close()
            except psycopg2.Error:
                logger.debug("%s: closing a broken connection failed", self._name, exc_info=True)


@dataclass(frozen=True)
class _InFlight:
    """The batch the writer thread is committing, and the partition's next offset once it has."""

    future: Future[None]
    batch: SinkColumns
    partition: TopicPartition
    end: int
    table: str


def _failed(in_flight: _InFlight, error: Exception) -> Exception:
    """The error that fails the task for a batch the database refused other than for a row's value: the
    database's own message, with the table and the offsets (a fenced batch's error as it is)."""
    if not isinstance(error, psycopg2.Error):
        return error
    batch = in_flight.batch
    return ConnectError(
        f"Writing records {batch.topic}-{batch.partition}@{batch.offsets[0]} to @{batch.offsets[-1]} into "
        f"table {in_flight.table} failed: {first_line(error)}"
    )


def _end_transaction(connection: psycopg2.extensions.connection, cursor: psycopg2.extensions.cursor) -> None:
    """Roll back what a failed query string left open, and leave autocommit mode; on a broken connection,
    which is dropped, nothing."""
    with contextlib.suppress(psycopg2.Error):
        if connection.get_transaction_status() != psycopg2.extensions.TRANSACTION_STATUS_IDLE:
            cursor.execute("ROLLBACK")
        connection.autocommit = False


def _next_offsets(records: Sequence[SinkRecord]) -> dict[TopicPartition, int]:
    """Each partition's offset after its last record (records of a partition come in offset order)."""
    ends: dict[tuple[str, int | None], int] = {}
    for record in records:
        ends[(record.original_topic, record.original_kafka_partition)] = record.original_kafka_offset
    return {TopicPartition(topic, partition or 0): end + 1 for (topic, partition), end in ends.items()}


def _partition(record: SinkRecord) -> TopicPartition:
    return TopicPartition(record.original_topic, record.original_kafka_partition or 0)

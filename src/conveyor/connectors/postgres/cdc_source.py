"""``PostgresCdcSourceConnector``: PostgreSQL's row changes, streamed from a logical replication slot with
``pgoutput``, as Debezium's change events; runs Debezium's PostgreSQL connector configs unchanged.

The slot's confirmed position advances only in ``commit``, once the runtime has made every record returned
so far durable: PostgreSQL keeps the WAL of anything Conveyor has not written. After a restart the server
resends the transactions after that position, and the task skips the changes its committed offset covers.
"""

from __future__ import annotations

import contextlib
import logging
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import psycopg2
from psycopg2 import sql

from conveyor import __version__
from conveyor.api import (
    ConfigDef,
    ConfigValue,
    ConnectError,
    ConnectorTransactionBoundaries,
    ExactlyOnceSupport,
    RetriableError,
    SourceConnector,
    SourceTask,
    Task,
)
from conveyor.connectors.postgres import catalog
from conveyor.connectors.postgres.catalog import CaptureError, TableId, TableInfo
from conveyor.connectors.postgres.cdc_config import (
    CONFIG_DEF,
    HOSTNAME_CONFIG,
    PUBLICATION_NAME_CONFIG,
    TABLE_INCLUDE_CONFIG,
    TASK_COUNT_CONFIG,
    TASK_INDEX_CONFIG,
    CdcSettings,
    PublicationAutocreateMode,
    SnapshotMode,
)
from conveyor.connectors.postgres.connection import PostgresConnectionError, connect, first_line
from conveyor.connectors.postgres.events import (
    HEARTBEAT_KEY_SCHEMA,
    HEARTBEAT_VALUE_SCHEMA,
    Column,
    Position,
    TableEvents,
    source_offset,
)
from conveyor.connectors.postgres.pgoutput import (
    Begin,
    Commit,
    Delete,
    Insert,
    Message,
    Relation,
    Truncate,
    TypeMessage,
    Update,
    format_lsn,
)
from conveyor.connectors.postgres.replication import ReplicationStream
from conveyor.connectors.postgres.snapshot import SnapshotReader
from conveyor.connectors.postgres.snapshot_json import json_expression, key_texts
from conveyor.connectors.postgres.snapshot_plan import (
    Chunk,
    ChunkProgress,
    SnapshotPlan,
    chunk_offset,
    chunk_offsets,
    chunk_partition,
    plan_partition,
)
from conveyor.connectors.postgres.snapshot_prefetch import Prefetched
from conveyor.connectors.postgres.snapshot_resume import ReadLater
from conveyor.connectors.postgres.types import (
    PgType,
    UnsupportedTypeError,
    builtin_type,
    column_mapping,
    load_types,
)
from conveyor.connectors.staged_validation import validate_in_stages
from conveyor.data import SourceRecord, Struct

PLAN_CHECK_INTERVAL_S = 1.0
"""How often a task waiting on a snapshot plan or on other tasks' chunks reads the committed offsets."""

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ResumePoint:
    """The last change already written: changes at or before it are skipped when the server resends them.

    Conveyor's offsets give the transaction's commit LSN and the change's index in it; Debezium's (after a
    takeover) give the last fully written commit LSN and the last change's LSN.
    """

    commit_lsn: int
    event: int | None
    lsn: int

    @classmethod
    def from_offset(cls, offset: Mapping[str, Any] | None) -> ResumePoint | None:
        if not offset or offset.get("snapshot"):
            return None
        lsn = int(offset.get("lsn") or 0)
        commit_lsn = int(offset.get("lsn_commit") or 0)
        event = offset.get("event")
        return cls(commit_lsn, int(event) if event is not None else None, lsn)

    def covers(self, commit_lsn: int, event: int, lsn: int) -> bool:
        if self.event is None:
            return commit_lsn <= self.commit_lsn or lsn <= self.lsn
        return commit_lsn < self.commit_lsn or (commit_lsn == self.commit_lsn and event <= self.event)


@dataclass
class _Transaction:
    xid: int
    commit_lsn: int
    commit_time_us: int
    previous_commit_end: int | None
    """Where the transaction committed before this one ended, as far as this stream has seen."""
    events: int = 0


_JsonSelects = tuple[sql.Composed, sql.Composed]
"""What to select for PostgreSQL to write the JSON of a row's key and of its ``after`` payload."""


class PostgresCdcSourceTask(SourceTask):
    """Snapshots the captured tables if needed, then streams their changes from the slot.

    Task 0 creates the slot, exports its snapshot and plans the chunks (a plan record commits the plan);
    every task reads its share of the chunks in that snapshot; task 0 streams once every chunk is
    committed. The other tasks only read chunks. A task 0 that finds its plan unfinished and the slot
    unmoved resumes it in a newer snapshot (:mod:`snapshot_resume`)."""

    def __init__(self) -> None:
        self._settings: CdcSettings | None = None
        self._catalog: Any = None
        self._stream: ReplicationStream | None = None
        self._snapshot: Prefetched[list[SourceRecord]] | Iterator[list[SourceRecord]] | None = None
        self._reader: SnapshotReader | None = None
        self._plan: SnapshotPlan | None = None
        self._reading_slot: ReplicationStream | None = None
        """A resumed snapshot's temporary slot, whose connection keeps its exported snapshot alive."""
        self._read_later: ReadLater | None = None
        self._relation_columns: dict[int, tuple[str, ...]] = {}
        self._pending: list[SourceRecord] = []
        self._index = 0
        self._task_count = 1
        self._finished_plans: set[str] = set()
        self._next_check = 0.0
        self._types: dict[int, PgType] = {}
        self._tables: dict[int, TableEvents | None] = {}
        self._resume: ResumePoint | None = None
        self._transaction: _Transaction | None = None
        self._start_lsn = 0
        self._complete_through = 0
        """End LSN of the last transaction whose records have all been returned by ``poll``."""
        self._last_complete: tuple[_Transaction, int] | None = None
        self._streaming_done = False
        self._last_emit = time.monotonic()
        self._json_unchanged = False

    def version(self) -> str:
        return __version__

    @property
    def settings(self) -> CdcSettings:
        assert self._settings is not None
        return self._settings

    def start(self, props: Mapping[str, str]) -> None:
        self._settings = settings = CdcSettings.from_props(props)
        self._json_unchanged = self.context.writes_json_unchanged()
        self._index = int(props.get(TASK_INDEX_CONFIG) or 0)
        self._task_count = max(1, int(props.get(TASK_COUNT_CONFIG) or 1))
        self._catalog = connect(settings.address, application_name="conveyor-cdc", autocommit=True)
        cursor = self._catalog.cursor()
        catalog.check_wal_level(cursor)
        self._types = load_types(cursor)
        if self._index > 0:
            return
        tables = catalog.captured_tables(cursor, settings.filters)
        catalog.ensure_publication(cursor, settings.publication_name, settings.publication_autocreate, tables)
        offset = self.context.offset_storage_reader().offset(settings.source_partition)
        slot = self._usable_slot(cursor)
        if self._needs_snapshot(offset, slot is not None):
            plan = self._unfinished_plan(offset, slot)
            if plan is not None:
                self._resume_snapshot(plan, tables)
                return
            if slot is not None:
                catalog.drop_slot(cursor, settings.slot_name)
            self._begin_snapshot(tables)
            return
        self._resume = ResumePoint.from_offset(offset)
        plan = self._committed_plan()
        if (
            slot is not None
            and plan is not None
            and plan.reading_lsn is not None
            and (self._resume is None or self._resume.commit_lsn < plan.reading_lsn)
        ):
            self._read_later = self._load_read_later(plan, tables)
        if slot is None:
            if offset:
                logger.warning(
                    "Replication slot %s does not exist: creating it; changes made since offset %s are not "
                    "streamed (snapshot.mode=when_needed would snapshot instead)",
                    settings.slot_name,
                    offset,
                )
            stream = self._open_stream()
            stream.create_slot(export_snapshot=False)
        if settings.snapshot_mode is SnapshotMode.INITIAL_ONLY:
            self._streaming_done = True

    def _usable_slot(self, cursor: Any) -> catalog.SlotInfo | None:
        """The slot, once no other connection holds it, trying ``slot.max.retries`` more times."""
        settings = self.settings
        for attempt in range(settings.slot_max_retries + 1):
            try:
                return catalog.check_slot_usable(cursor, settings.slot_name, settings.address.dbname)
            except catalog.SlotInUseError:
                if attempt == settings.slot_max_retries:
                    raise
                logger.info("Replication slot %s is in use; trying again shortly", settings.slot_name)
                time.sleep(settings.slot_retry_delay_ms / 1000)
        return None

    def _needs_snapshot(self, offset: Mapping[str, Any] | None, slot_exists: bool) -> bool:
        mode = self.settings.snapshot_mode
        completed = _snapshot_completed(offset)
        if mode is SnapshotMode.ALWAYS:
            return True
        if mode is SnapshotMode.NO_DATA:
            return False
        if mode is SnapshotMode.WHEN_NEEDED:
            return not completed or not slot_exists
        return not completed

    def _unfinished_plan(
        self, offset: Mapping[str, Any] | None, slot: catalog.SlotInfo | None
    ) -> SnapshotPlan | None:
        """The committed plan of a snapshot that never completed, if the slot it began is still at its
        consistent point (so the slot streams every change since); ``snapshot.mode=always`` snapshots anew
        at every start."""
        if slot is None or _snapshot_completed(offset) or self.settings.snapshot_mode is SnapshotMode.ALWAYS:
            return None
        plan = self._committed_plan()
        if plan is None or slot.confirmed_flush_lsn != plan.lsn:
            return None
        return plan

    def _committed_plan(self) -> SnapshotPlan | None:
        """The snapshot plan as last committed in the offsets."""
        reader = self.context.offset_storage_reader()
        return SnapshotPlan.from_offset(reader.offset(plan_partition(self.settings.topic_prefix)))

    def _resume_snapshot(self, plan: SnapshotPlan, tables: list[TableInfo]) -> None:
        """Go on with an interrupted snapshot: its chunks not yet written are read in the snapshot a new
        temporary slot exports, then the slot streams from the plan's consistent point."""
        settings = self.settings
        self._plan = plan
        self._start_lsn = plan.lsn
        committed = self._chunk_progress(plan, plan.chunks)
        if all(progress.done for _, progress in committed):
            logger.info("Every chunk of snapshot %s is written; completing it", plan.id)
            self._snapshot = iter(())
            return
        name = f"{settings.slot_name[:40]}_resume_{uuid.uuid4().hex[:8]}"
        self._reading_slot = ReplicationStream(
            settings.address, name, settings.publication_name, settings.status_update_interval_ms / 1000
        )
        created = self._reading_slot.create_slot(export_snapshot=True, temporary=True)
        assert created.snapshot is not None
        plan = plan.read_in(created.snapshot, created.consistent_point)
        self._plan = plan
        self._reader = SnapshotReader(settings.address, created.snapshot, settings.snapshot_fetch_size)
        logger.info(
            "Resuming snapshot %s: its chunks not yet written are read in a snapshot consistent at %s; "
            "the stream from %s skips the changes that snapshot already shows",
            plan.id,
            format_lsn(created.consistent_point),
            format_lsn(plan.lsn),
        )
        self._pending = [self._bookkeeping_record(plan_partition(settings.topic_prefix), plan.to_offset())]
        self._snapshot = self._chunk_records(plan, self._reader, {table.id: table for table in tables})

    def _chunk_progress(
        self, plan: SnapshotPlan, chunks: Sequence[Chunk]
    ) -> list[tuple[Chunk, ChunkProgress]]:
        prefix = self.settings.topic_prefix
        committed = self.context.offset_storage_reader().offsets(
            [chunk_partition(prefix, chunk.index) for chunk in chunks]
        )
        return [
            (chunk, ChunkProgress.from_offset(plan, offset))
            for chunk, (_, offset) in zip(chunks, committed, strict=True)
        ]

    def _load_read_later(self, plan: SnapshotPlan, tables: Sequence[TableInfo]) -> ReadLater | None:
        keys = {table.id: table.primary_key for table in tables}
        return ReadLater.of(plan, self._chunk_progress(plan, plan.chunks), keys)

    def _open_stream(self) -> ReplicationStream:
        settings = self.settings
        self._stream = ReplicationStream(
            settings.address,
            settings.slot_name,
            settings.publication_name,
            settings.status_update_interval_ms / 1000,
        )
        return self._stream

    def _begin_snapshot(self, tables: list[TableInfo]) -> None:
        """Create the slot exporting its snapshot, split the tables into chunks in it, and queue the plan
        record; the replication connection keeps the snapshot importable until streaming starts."""
        settings = self.settings
        created = self._open_stream().create_slot(export_snapshot=True)
        assert created.snapshot is not None
        reader = SnapshotReader(settings.address, created.snapshot, settings.snapshot_fetch_size)
        self._reader = reader
        chunks = reader.chunks(tables, settings.snapshot_chunk_size)
        plan = SnapshotPlan(
            created.consistent_point, created.snapshot, reader.xid, reader.started_us, tuple(chunks)
        )
        self._plan = plan
        self._start_lsn = plan.lsn
        logger.info(
            "Snapshot of %d tables in %d chunks over %d tasks at %s, then streaming from slot %s",
            len(tables),
            len(chunks),
            self._task_count,
            format_lsn(plan.lsn),
            settings.slot_name,
        )
        self._pending = [self._bookkeeping_record(plan_partition(settings.topic_prefix), plan.to_offset())]
        self._snapshot = self._chunk_records(plan, reader, {table.id: table for table in tables})

    def _chunk_records(
        self, plan: SnapshotPlan, reader: SnapshotReader, tables: Mapping[TableId, TableInfo]
    ) -> Prefetched[list[SourceRecord]]:
        """:meth:`_read_chunks`, each batch read and built while the runtime writes the one before."""
        return Prefetched(self._read_chunks(plan, reader, tables), f"snapshot-reader-{self._index}")

    def _read_chunks(
        self, plan: SnapshotPlan, reader: SnapshotReader, tables: Mapping[TableId, TableInfo]
    ) -> Iterator[list[SourceRecord]]:
        """This task's chunks not yet written, as batches of ``op`` r records; a chunk's last record
        marks it done. The chunks of a table share one set of schemas, so converters see them as one."""
        settings = self.settings
        described: dict[TableId, tuple[TableEvents, _JsonSelects | None] | None] = {}
        for chunk, progress in self._chunk_progress(plan, plan.chunks_of(self._index, self._task_count)):
            partition = chunk_partition(settings.topic_prefix, chunk.index)
            table = tables.get(chunk.table)
            if progress.done or table is None:
                continue
            if table.id not in described:
                described[table.id] = self._described(table, reader)
            found = described[table.id]
            if found is None:
                continue
            events, selects = found
            yield from self._chunk_batches(plan, reader, chunk, table, events, selects, partition, progress)

    def _described(
        self, table: TableInfo, reader: SnapshotReader
    ) -> tuple[TableEvents, _JsonSelects | None] | None:
        """A captured table's events, and what to select for PostgreSQL to write its rows' JSON if it can."""
        columns = [(c.name, c.type_oid, c.type_modifier) for c in table.columns]
        events = self._table_events(table, columns)
        if events is None:
            return None
        selects, reason = self._json_selects(table, events, reader)
        logger.info(
            "Snapshot of %s: %s",
            table.id,
            "rows read as the JSON PostgreSQL writes"
            if selects is not None
            else f"rows read with a cursor and converted ({reason})",
        )
        return events, selects

    def _chunk_batches(
        self,
        plan: SnapshotPlan,
        reader: SnapshotReader,
        chunk: Chunk,
        table: TableInfo,
        events: TableEvents,
        selects: _JsonSelects | None,
        partition: Mapping[str, Any],
        progress: ChunkProgress,
    ) -> Iterator[list[SourceRecord]]:
        position = Position(plan.read_lsn, plan.read_lsn, 0, plan.xid, plan.started_us, "true")
        rows: Iterator[Sequence[Any]]
        key_of: Callable[[Sequence[Any]], list[Any] | None]
        records: Callable[[list[Sequence[Any]], list[str], list[dict[str, Any]]], list[SourceRecord]]
        if selects is None:
            names = [column.name for column in table.columns]
            key_positions = [names.index(name) for name in table.primary_key]
            rows = reader.chunk_rows(table, names, chunk, progress.after)

            def key_of(row: Sequence[Any]) -> list[Any] | None:
                return [row[p] for p in key_positions] if key_positions else None

            def records(
                batch: list[Sequence[Any]], markers: list[str], offsets: list[dict[str, Any]]
            ) -> list[SourceRecord]:
                converted = [events.row(row) for row in batch]
                return events.read_records(converted, markers, position, offsets, partition)

        else:
            rows = reader.chunk_json(table, *selects, chunk, progress.after)
            key_count = len(table.primary_key)

            def key_of(row: Sequence[Any]) -> list[Any] | None:
                return key_texts(row, key_count)

            def records(
                batch: list[Sequence[Any]], markers: list[str], offsets: list[dict[str, Any]]
            ) -> list[SourceRecord]:
                return events.encoded_read_records(batch, markers, position, offsets, partition)

        size = self.settings.max_batch_size
        switches = progress.reading_in(plan)
        batches = _batched(rows, size)
        batch = next(batches, None)
        if batch is None:
            yield [self._bookkeeping_record(partition, chunk_offset(plan, progress.after, True, switches))]
            return
        first = progress.after is None
        while batch is not None:
            following = next(batches, None)
            markers = ["true"] * len(batch)
            if first and chunk.first:
                markers[0] = "first" if chunk.index == 0 else "first_in_data_collection"
            if following is None and chunk.last:
                markers[-1] = "last" if chunk.index == len(plan.chunks) - 1 else "last_in_data_collection"
            offsets = chunk_offsets(plan, map(key_of, batch), switches)
            if following is None:
                offsets[-1] = {**offsets[-1], "done": True}
            yield records(batch, markers, offsets)
            first = False
            batch = following

    def _json_selects(
        self, table: TableInfo, events: TableEvents, reader: SnapshotReader
    ) -> tuple[_JsonSelects | None, str]:
        """What to select (as ``conveyor_row``) for PostgreSQL to write the JSON of a row's key and of its
        ``after`` payload, when the runtime writes ``EncodedJson`` unchanged, the server sends UTF-8, the
        table has a key, and PostgreSQL writes every captured column as the converter does
        (:mod:`snapshot_json`); else None and why not."""
        if not self._json_unchanged:
            return None, "the converters or transformations are not the JsonConverter's defaults alone"
        if not reader.reads_utf8:
            return None, "the server does not send UTF-8"
        if not table.primary_key or events.key_schema is None:
            return None, "no primary key"
        by_name = {column.name: column for column in table.columns}
        key: list[sql.Composable] = []
        value: list[sql.Composable] = []
        for column in events.columns:
            info = by_name.get(column.name)
            if info is None:
                return None, f"column {column.name} is not in the table's description"
            pg_type = self._pg_type(info.type_oid)
            expression = json_expression(
                pg_type,
                info.type_modifier,
                self.settings.type_options,
                sql.SQL("conveyor_row.{}").format(sql.Identifier(column.name)),
                reader.server_version,
                reader.money_scale,
            )
            if expression is None:
                return None, f"column {column.name} of type {pg_type.name} keeps the Connect value path"
            selected = sql.SQL("{} AS {}").format(expression, sql.Identifier(column.name))
            value.append(selected)
            if column.primary_key:
                key.append(selected)
        return (sql.SQL(", ").join(key), sql.SQL(", ").join(value)), ""

    def _bookkeeping_record(self, partition: Mapping[str, Any], offset: Mapping[str, Any]) -> SourceRecord:
        """A heartbeat record carrying an offset of the snapshot's own (its plan, its completion)."""
        settings = self.settings
        return SourceRecord(
            settings.heartbeat_topic,
            source_partition=partition,
            source_offset=offset,
            key_schema=HEARTBEAT_KEY_SCHEMA,
            key=Struct.unchecked(HEARTBEAT_KEY_SCHEMA, [settings.topic_prefix]),
            value_schema=HEARTBEAT_VALUE_SCHEMA,
            value=Struct.unchecked(HEARTBEAT_VALUE_SCHEMA, [time.time_ns() // 1_000_000]),
        )

    def _table_events(self, table: TableInfo, columns: Sequence[tuple[str, int, int]]) -> TableEvents | None:
        """The events of a captured table with these (name, type oid, modifier) columns, else None."""
        settings = self.settings
        if not settings.filters.captures_table(table.id.schema, table.id.table):
            return None
        described = {column.name: column for column in table.columns}
        kept: list[Column] = []
        positions: list[int] = []
        for position, (name, type_oid, modifier) in enumerate(columns):
            if not settings.filters.captures_column(table.id.schema, table.id.table, name):
                continue
            info = described.get(name)
            pg_type = self._pg_type(type_oid)
            try:
                mapping = column_mapping(
                    pg_type, modifier, not (info is not None and info.not_null), settings.type_options
                )
            except UnsupportedTypeError as error:
                raise UnsupportedTypeError(f"Column {table.id}.{name}: {error}") from None
            kept.append(Column(name, mapping, info is not None and info.primary_key))
            positions.append(position)
        return TableEvents(settings.topic_prefix, settings.address.dbname, table.id, kept, positions)

    def _pg_type(self, oid: int) -> PgType:
        known = self._types.get(oid) or builtin_type(oid)
        if known is None:
            self._types = load_types(self._catalog.cursor())
            known = self._types.get(oid)
        if known is None:
            raise UnsupportedTypeError(f"PostgreSQL type oid {oid} is unknown to the database's catalog")
        return known

    def poll(self) -> list[SourceRecord] | None:
        if self._index > 0:
            return self._poll_helper()
        if self._snapshot is not None:
            return self._poll_snapshot()
        if self._streaming_done:
            time.sleep(self.settings.poll_interval_ms / 1000)
            return None
        returned = (self._resume, self._complete_through, self._last_complete)
        try:
            return self._poll_stream()
        except (psycopg2.OperationalError, psycopg2.InterfaceError, PostgresConnectionError) as error:
            self._resume, self._complete_through, self._last_complete = returned
            self._lost_connection(error)
            raise RetriableError(
                f"Lost the connection to PostgreSQL ({first_line(error)}); reconnecting and resuming after "
                "the last change returned"
            ) from error

    def _poll_snapshot(self) -> list[SourceRecord] | None:
        """The next batch of this task's chunks; once they are all returned, task 0 waits for the other
        tasks' chunks to be committed, then records the snapshot as complete and streams."""
        assert self._snapshot is not None and self._plan is not None
        pending, self._pending = self._pending, []
        if self._reader is not None:
            batch = next(self._snapshot, None)
            if batch is not None:
                return pending + batch
            self._reader.close()
            self._reader = None
        plan = self._plan
        if self._index > 0:
            self._finish_reading(plan)
            return pending or None
        if not self._others_done(plan):
            if not pending:
                time.sleep(min(PLAN_CHECK_INTERVAL_S, self.settings.poll_interval_ms / 1000))
            return pending or None
        self._finish_reading(plan)
        if plan.reading_lsn is not None:
            tables = catalog.captured_tables(self._catalog.cursor(), self.settings.filters)
            self._read_later = self._load_read_later(plan, tables)
        logger.info("Snapshot done; streaming from %s", format_lsn(self._start_lsn))
        if self.settings.snapshot_mode is SnapshotMode.INITIAL_ONLY:
            self._streaming_done = True
        position = Position(plan.lsn, plan.lsn, 0, plan.xid, plan.started_us, "last")
        offset = source_offset(position, snapshot=True, last_snapshot_record=True)
        return [*pending, self._bookkeeping_record(self.settings.source_partition, offset)]

    def _finish_reading(self, plan: SnapshotPlan) -> None:
        self._snapshot = None
        self._finished_plans.add(plan.reading_id)
        self._close_reading()

    def _close_reading(self) -> None:
        """Close the snapshot's reader and the slot it reads at, where they are open."""
        if isinstance(self._snapshot, Prefetched):
            self._snapshot.close()
        if self._reader is not None:
            self._reader.close()
            self._reader = None
        if self._reading_slot is not None:
            self._reading_slot.close()
            self._reading_slot = None

    def _others_done(self, plan: SnapshotPlan) -> bool:
        """Whether the other tasks' chunks are all committed (read at most every second)."""
        others = [chunk for chunk in plan.chunks if chunk.index % self._task_count != self._index]
        if not others:
            return True
        if time.monotonic() < self._next_check:
            return False
        self._next_check = time.monotonic() + PLAN_CHECK_INTERVAL_S
        prefix = self.settings.topic_prefix
        committed = self.context.offset_storage_reader().offsets(
            [chunk_partition(prefix, chunk.index) for chunk in others]
        )
        return all(ChunkProgress.from_offset(plan, offset).done for _, offset in committed)

    def _poll_helper(self) -> list[SourceRecord] | None:
        """A task other than 0: read the chunks of task 0's latest plan given to this task, then idle."""
        if self._snapshot is not None:
            return self._poll_snapshot()
        if time.monotonic() < self._next_check:
            time.sleep(min(PLAN_CHECK_INTERVAL_S, self.settings.poll_interval_ms / 1000))
            return None
        self._next_check = time.monotonic() + PLAN_CHECK_INTERVAL_S
        settings = self.settings
        plan = self._committed_plan()
        if plan is None or plan.reading_id in self._finished_plans:
            return None
        mine = plan.chunks_of(self._index, self._task_count)
        if all(progress.done for _, progress in self._chunk_progress(plan, mine)):
            self._finished_plans.add(plan.reading_id)
            return None
        try:
            self._reader = SnapshotReader(settings.address, plan.read_snapshot, settings.snapshot_fetch_size)
        except CaptureError as error:
            logger.warning(
                "Task %d cannot join snapshot %s (%s): its exporter is gone; task 0 resumes the snapshot "
                "in a newer one",
                self._index,
                plan.read_snapshot,
                error,
            )
            self._finished_plans.add(plan.reading_id)
            return None
        self._plan = plan
        tables = catalog.captured_tables(self._catalog.cursor(), settings.filters)
        self._snapshot = self._chunk_records(plan, self._reader, {table.id: table for table in tables})
        logger.info("Task %d reads %d chunks of snapshot %s", self._index, len(mine), plan.read_snapshot)
        return self._poll_snapshot()

    def _lost_connection(self, error: BaseException) -> None:
        logger.warning("Replication from slot %s interrupted: %s", self.settings.slot_name, first_line(error))
        self._transaction = None
        self._tables.clear()
        if self._stream is not None:
            self._stream.close()
            self._stream = None
        if self._catalog is not None:
            with contextlib.suppress(psycopg2.Error):
                self._catalog.close()
        self._catalog = None

    def _ensure_streaming(self) -> ReplicationStream:
        stream = self._stream
        if stream is not None and stream.started:
            return stream
        settings = self.settings
        if self._catalog is None:
            self._catalog = connect(settings.address, application_name="conveyor-cdc", autocommit=True)
            slot = catalog.check_slot_usable(
                self._catalog.cursor(), settings.slot_name, settings.address.dbname
            )
            if slot is None:
                raise CaptureError(
                    f"Replication slot {settings.slot_name} was dropped while the connector ran: the changes "
                    "since the last committed offset are gone from the server. Restart the connector with "
                    "snapshot.mode=when_needed to snapshot the tables again"
                )
        if stream is None:
            stream = self._open_stream()
        stream.start(self._start_lsn)
        return stream

    def _poll_stream(self) -> list[SourceRecord] | None:
        stream = self._ensure_streaming()
        settings = self.settings
        records: list[SourceRecord] = []
        deadline = time.monotonic() + settings.poll_interval_ms / 1000
        while len(records) < settings.max_batch_size:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            item = stream.read(min(remaining, 0.5))
            if item is None:
                continue
            lsn, message = item
            self._handle(lsn, message, records)
        if records:
            self._last_emit = time.monotonic()
            return records
        return self._heartbeat()

    def _handle(self, lsn: int, message: Message, records: list[SourceRecord]) -> None:
        if isinstance(message, Begin):
            previous = self._last_complete[1] if self._last_complete is not None else None
            self._transaction = _Transaction(message.xid, message.final_lsn, message.commit_time_us, previous)
        elif isinstance(message, Commit):
            if self._transaction is not None:
                self._last_complete = (self._transaction, message.end_lsn)
            self._complete_through = message.end_lsn
            self._transaction = None
        elif isinstance(message, Relation):
            self._tables[message.oid] = self._relation_events(message)
            self._relation_columns[message.oid] = tuple(column.name for column in message.columns)
        elif isinstance(message, TypeMessage):
            self._types = load_types(self._catalog.cursor())
        elif isinstance(message, Insert | Update | Delete):
            self._change(lsn, message, records)
        elif isinstance(message, Truncate):
            for oid in message.relation_oids:
                self._truncate(lsn, oid, records)

    def _relation_events(self, relation: Relation) -> TableEvents | None:
        table = catalog.describe(self._catalog.cursor(), relation.oid)
        if table is None:
            table = TableInfo(
                relation.oid, TableId(relation.namespace, relation.name), (), relation.replica_identity
            )
        columns = [(column.name, column.type_oid, column.type_modifier) for column in relation.columns]
        return self._table_events(table, columns)

    def _next_position(self, lsn: int) -> Position | None:
        """The position of the transaction's next change; None if the committed offsets already cover it."""
        transaction = self._transaction
        if transaction is None:
            raise ConnectError(f"A change at {format_lsn(lsn)} arrived outside a transaction")
        transaction.events += 1
        if self._resume is not None and self._resume.covers(transaction.commit_lsn, transaction.events, lsn):
            return None
        return Position(
            lsn,
            transaction.commit_lsn,
            transaction.events,
            transaction.xid,
            transaction.commit_time_us,
            previous_commit_end=transaction.previous_commit_end,
        )

    def _read_later_covers(self, oid: int, position: Position, values: Sequence[Any] | None) -> bool:
        """Whether a resumed snapshot read this tuple's key after the change committed (so its read
        already shows the change)."""
        events = self._tables.get(oid)
        if self._read_later is None or events is None or values is None:
            return False
        names = self._relation_columns.get(oid, ())
        texts = {
            name: value
            for name, value in zip(names, values, strict=False)
            if value is None or isinstance(value, str)
        }
        return self._read_later.covers(self._catalog.cursor(), events.table, position.commit_lsn, texts)

    def _change(self, lsn: int, message: Insert | Update | Delete, records: list[SourceRecord]) -> None:
        position = self._next_position(lsn)
        events = self._tables.get(message.relation_oid)
        if position is None or events is None:
            return
        self._resume = ResumePoint(position.commit_lsn, position.event, lsn)
        if self._read_later is not None and position.commit_lsn < self._read_later.horizon:
            self._change_read_later(message, position, events, records)
            return
        self._emit_change(message, position, events, records)

    def _change_read_later(
        self,
        message: Insert | Update | Delete,
        position: Position,
        events: TableEvents,
        records: list[SourceRecord],
    ) -> None:
        """A change committed before a resumed snapshot's consistent point: passed for the keys that
        snapshot did not read. A key-changing update is a delete and an insert, each placed by its key."""
        oid = message.relation_oid
        if isinstance(message, Delete):
            if not self._read_later_covers(oid, position, message.old):
                self._emit_change(message, position, events, records)
            return
        new_covered = self._read_later_covers(oid, position, message.new)
        key_changed = (
            isinstance(message, Update)
            and message.old is not None
            and message.old_is_key
            and events.key(events.row(message.old)) != events.key(events.row(message.new))
        )
        if not key_changed:
            if not new_covered:
                self._emit_change(message, position, events, records)
            return
        assert isinstance(message, Update) and message.old is not None
        if not self._read_later_covers(oid, position, message.old):
            self._emit_change(Delete(oid, message.old, True), position, events, records)
        if not new_covered:
            self._emit_change(Insert(oid, message.new), position, events, records)

    def _emit_change(
        self,
        message: Insert | Update | Delete,
        position: Position,
        events: TableEvents,
        records: list[SourceRecord],
    ) -> None:
        skipped = self.settings.skipped_operations
        offset = source_offset(position)
        partition = self.settings.source_partition
        if isinstance(message, Insert):
            if "c" not in skipped:
                records.append(events.record("c", None, events.row(message.new), position, offset, partition))
            return
        if isinstance(message, Delete):
            if "d" not in skipped:
                self._delete(events, events.row(message.old), position, offset, records)
            return
        before = events.row(message.old) if message.old is not None else None
        after = events.row(message.new)
        if before is not None and message.old_is_key and events.key(before) != events.key(after):
            if "d" not in skipped:
                self._delete(events, before, position, offset, records)
            if "c" not in skipped:
                records.append(events.record("c", None, after, position, offset, partition))
            return
        if "u" not in skipped:
            records.append(events.record("u", before, after, position, offset, partition))

    def _delete(
        self,
        events: TableEvents,
        before: list[Any],
        position: Position,
        offset: Mapping[str, Any],
        records: list[SourceRecord],
    ) -> None:
        delete = events.record("d", before, None, position, offset, self.settings.source_partition)
        records.append(delete)
        if self.settings.tombstones_on_delete:
            records.append(events.tombstone(delete))

    def _truncate(self, lsn: int, oid: int, records: list[SourceRecord]) -> None:
        position = self._next_position(lsn)
        events = self._tables.get(oid)
        if position is None or events is None:
            return
        self._resume = ResumePoint(position.commit_lsn, position.event, lsn)
        if self._read_later is not None:
            self._read_later.forget(events.table)
        if "t" not in self.settings.skipped_operations:
            offset = source_offset(position)
            records.append(events.truncate(position, offset, self.settings.source_partition))

    def _heartbeat(self) -> list[SourceRecord] | None:
        """A heartbeat record after ``heartbeat.interval.ms`` without records: it commits the position of
        transactions that had nothing to capture, so the slot can release their WAL."""
        settings = self.settings
        interval = settings.heartbeat_interval_ms
        if interval <= 0 or self._last_complete is None:
            return None
        if (time.monotonic() - self._last_emit) * 1000 < interval:
            return None
        self._last_emit = time.monotonic()
        transaction, end_lsn = self._last_complete
        position = Position(
            end_lsn, transaction.commit_lsn, transaction.events, transaction.xid, transaction.commit_time_us
        )
        return [
            SourceRecord(
                settings.heartbeat_topic,
                source_partition=settings.source_partition,
                source_offset=source_offset(position),
                key_schema=HEARTBEAT_KEY_SCHEMA,
                key=Struct.unchecked(HEARTBEAT_KEY_SCHEMA, [settings.topic_prefix]),
                value_schema=HEARTBEAT_VALUE_SCHEMA,
                value=Struct.unchecked(HEARTBEAT_VALUE_SCHEMA, [time.time_ns() // 1_000_000]),
            )
        ]

    def commit(self) -> None:
        """Every record returned so far is durable: let the server discard the WAL of the transactions
        they complete."""
        if self._stream is not None and self._complete_through:
            try:
                self._stream.confirm(self._complete_through)
            except psycopg2.Error as error:
                logger.warning(
                    "Could not confirm %s to the server: %s", format_lsn(self._complete_through), error
                )

    def stop(self) -> None:
        self._close_reading()
        if self._stream is not None:
            self._stream.close()
            self._stream = None
        settings = self._settings
        drops = settings is not None and settings.slot_drop_on_stop and self._index == 0
        if settings is not None and drops and self._catalog is not None:
            try:
                catalog.drop_slot(self._catalog.cursor(), settings.slot_name)
            except psycopg2.Error as error:
                logger.warning(
                    "Could not drop replication slot %s: %s", settings.slot_name, first_line(error)
                )
        if self._catalog is not None:
            self._catalog.close()
            self._catalog = None


class PostgresCdcSourceConnector(SourceConnector):
    """``tasks.max`` tasks: all read the snapshot's chunks side by side; task 0 alone streams, as the slot
    is one ordered stream (the others idle once the snapshot is done)."""

    def __init__(self) -> None:
        self._props: dict[str, str] = {}

    def version(self) -> str:
        return __version__

    def config(self) -> ConfigDef:
        return CONFIG_DEF

    def start(self, props: Mapping[str, str]) -> None:
        CdcSettings.from_props(props)
        self._props = dict(props)

    def stop(self) -> None:
        """Nothing to release: the task holds the connections."""

    def task_class(self) -> type[Task]:
        return PostgresCdcSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        count = 1 if CdcSettings.from_props(self._props).snapshot_mode is SnapshotMode.NO_DATA else max_tasks
        return [
            {**self._props, TASK_INDEX_CONFIG: str(index), TASK_COUNT_CONFIG: str(count)}
            for index in range(count)
        ]

    def exactly_once_support(self, connector_config: Mapping[str, str]) -> ExactlyOnceSupport:
        """Supported: the offset of each change is its place in the WAL, which the server resends from."""
        return ExactlyOnceSupport.SUPPORTED

    def can_define_transaction_boundaries(
        self, connector_config: Mapping[str, str]
    ) -> ConnectorTransactionBoundaries:
        return ConnectorTransactionBoundaries.UNSUPPORTED

    def validate(self, connector_configs: Mapping[str, str]) -> list[ConfigValue]:
        """Debezium's checks: the keys, then the database itself (login, wal_level, publication, tables)."""
        return validate_in_stages(CONFIG_DEF, connector_configs, _settings_errors)

    def alter_offsets(
        self,
        connector_config: Mapping[str, str],
        offsets: Sequence[tuple[Mapping[str, Any], Mapping[str, Any] | None]],
    ) -> bool:
        """Accept ``{"server": <prefix>}`` partitions with an offset holding an integer ``lsn``, or null."""
        for partition, offset in offsets:
            if set(partition) != {"server"}:
                raise ConnectError('Partition objects should be {"server": <topic.prefix>}')
            if offset is not None and not isinstance(offset.get("lsn"), int):
                raise ConnectError("Offset objects should either be null or hold an integer 'lsn'")
        return False


class _KeyedError(ConnectError):
    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key = key


def _settings_errors(connector_configs: Mapping[str, str]) -> dict[str, list[str]]:
    """The errors of keys valid on their own: of the keys together, then of the database they name."""
    try:
        settings = CdcSettings.from_props(connector_configs)
    except ConnectError as error:
        return {HOSTNAME_CONFIG: [str(error)]}
    try:
        _check_database(settings)
    except PostgresConnectionError as error:
        return {HOSTNAME_CONFIG: [str(error)]}
    except _KeyedError as error:
        return {error.key: [str(error)]}
    return {}


def _check_database(settings: CdcSettings) -> None:
    connection = connect(settings.address, application_name="conveyor-validate", autocommit=True)
    try:
        cursor = connection.cursor()
        try:
            catalog.check_wal_level(cursor)
        except CaptureError as error:
            raise _KeyedError(HOSTNAME_CONFIG, str(error)) from None
        if (
            settings.publication_autocreate is PublicationAutocreateMode.DISABLED
            and not catalog.publication_exists(cursor, settings.publication_name)
        ):
            try:
                catalog.ensure_publication(
                    cursor, settings.publication_name, settings.publication_autocreate, []
                )
            except CaptureError as error:
                raise _KeyedError(PUBLICATION_NAME_CONFIG, str(error)) from None
        try:
            catalog.check_replica_identities(catalog.captured_tables(cursor, settings.filters))
        except CaptureError as error:
            raise _KeyedError(TABLE_INCLUDE_CONFIG, str(error)) from None
    finally:
        connection.close()


def _snapshot_completed(offset: Mapping[str, Any] | None) -> bool:
    """Whether the stored offset is past a completed snapshot (a change streamed, or the snapshot's end)."""
    return bool(offset) and not (
        offset is not None and offset.get("snapshot") and not offset.get("last_snapshot_record")
    )


def _batched(rows: Iterable[Sequence[Any]], size: int) -> Iterator[list[Sequence[Any]]]:
    batch: list[Sequence[Any]] = []
    for row in rows:
        batch.append(row)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch

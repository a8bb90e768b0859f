"""Writing records into a table inside the caller's transaction, one round trip per batch.

``insert``: ``COPY`` into the table. ``upsert``: ``COPY`` into the table's staging table, then one
``INSERT ... SELECT ... ON CONFLICT (key) DO UPDATE``. ``update``: the same, merged by ``UPDATE ... FROM``.
Tombstones (``delete.enabled``): one ``DELETE ... WHERE (key) IN (VALUES ...)``. A batch is split into runs
of writes and deletes so that their order holds; within a run the last record of a key wins.

``careful=True`` writes each record alone inside a savepoint instead, so that a record that does not fit
its column is found and handed to ``on_bad`` while the rest of the batch goes on.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

import psycopg2
import psycopg2.extensions
import psycopg2.extras
from psycopg2 import sql

from conveyor.connectors.postgres.connection import first_line
from conveyor.connectors.postgres.sink_config import InsertMode, JdbcSinkSettings
from conveyor.connectors.postgres.sink_copy_columns import ColumnEncoder, column_encoder, copy_text
from conveyor.connectors.postgres.sink_fields import RecordLayout, where
from conveyor.connectors.postgres.sink_schema import NULL, Encoder, encoder
from conveyor.connectors.postgres.sink_tables import TableInfo
from conveyor.data import DataError, SinkRecord
from conveyor.errors import ConnectError

Cursor: TypeAlias = psycopg2.extensions.cursor

ROW_ERRORS: tuple[type[BaseException], ...] = (psycopg2.DataError, psycopg2.IntegrityError)
"""Errors of one row's values (SQLSTATE classes 22 and 23): the record, not the database, is at fault."""

_COPY_CONTEXT_COLUMN = re.compile(r"column (\S+?):")
_COPY_BUFFER = 1 << 20


class BadRecordError(ConnectError):
    """A record that does not fit its table; names the table, the column and where the record was read."""

    def __init__(self, record: SinkRecord, table: str, column: str | None, cause: BaseException) -> None:
        self.record = record
        self.table = table
        self.column = column
        self.cause = cause
        column_text = f"column {column}" if column else "a column"
        reason = first_line(cause)
        super().__init__(f"Record {where(record)} does not fit table {table}, {column_text}: {reason}")


class RowEncodingError(DataError):
    """A value that cannot be written into its column's type, caught before it reaches the database."""

    def __init__(self, column: str, cause: BaseException) -> None:
        self.column = column
        super().__init__(f"{column}: {cause}")


OnBad = Callable[[BadRecordError], None]


@dataclass
class _Encoded:
    """Rows of one layout as COPY text, with the records they came from (same order)."""

    records: list[SinkRecord]
    lines: list[str]


class Writer:
    """Writes batches of one task; keeps each layout's encoders."""

    def __init__(self, settings: JdbcSinkSettings) -> None:
        self._settings = settings
        self._encoders: dict[RecordLayout, list[Encoder]] = {}
        self._column_encoders: dict[RecordLayout, list[ColumnEncoder]] = {}
        self._statements: dict[tuple[str, RecordLayout], str] = {}

    def write(
        self,
        cursor: Cursor,
        table: TableInfo,
        layout: RecordLayout,
        records: Sequence[SinkRecord],
        careful: bool,
        on_bad: OnBad,
    ) -> None:
        """Write records of one layout (tombstones among them are deletes) into ``table``."""
        upsert = self._copy_in if self._settings.insert_mode is InsertMode.INSERT else self._merge

        def delete(run: list[SinkRecord]) -> None:
            self._delete(cursor, table, layout, run)

        def write(run: list[SinkRecord]) -> None:
            upsert(cursor, table, layout, run, on_bad)

        for deletes, run in _runs(records):
            self._guarded(cursor, table, run, careful, on_bad, delete if deletes else write)

    def columns_text(self, layout: RecordLayout, columns: Sequence[Sequence[Any]]) -> str:
        """Rows given column by column (in the layout's order) as COPY text, only the last row of each key
        when merging. Raises on a value that does not fit its column."""
        if self._settings.insert_mode is not InsertMode.INSERT:
            columns = _last_row_per_key(len(layout.key_names), columns)
        encoders = self._column_encoders.get(layout)
        if encoders is None:
            timezone = self._settings.db_timezone
            encoders = self._column_encoders[layout] = [
                column_encoder(c.schema, timezone) for c in layout.columns
            ]
        encoded = [encode(column) for encode, column in zip(encoders, columns, strict=True)]
        return copy_text(encoded)

    def commit_text(
        self,
        cursor: Cursor,
        table: TableInfo,
        layout: RecordLayout,
        text: str,
        fence: str | None,
        on_sent: Callable[[], None],
    ) -> None:
        """Rows already as COPY text (``columns_text``) into ``table`` in a transaction of their own, sent
        as one query string (one round trip): ``BEGIN``, ``fence`` (a statement that fails to stop the
        batch), ``COPY``, the merge when merging, ``COMMIT``; ``on_sent`` is called once the rows are all
        handed to the connection. The connection must be in autocommit mode; on an error the caller rolls
        back the transaction left open."""
        statements = ["BEGIN"]
        if fence is not None:
            statements.append(fence)
        if self._settings.insert_mode is InsertMode.INSERT:
            statements.append(self._copy_statement(cursor, table.name.identifier(), layout))
        else:
            assert table.stage is not None
            statements.append(self._copy_statement(cursor, sql.Identifier(table.stage), layout))
            statements.append(self._merge_statement(cursor, table, layout))
        statements.append("COMMIT")
        cursor.copy_expert("; ".join(statements), _Rows(text, on_sent), size=_COPY_BUFFER)

    def _guarded(
        self,
        cursor: Cursor,
        table: TableInfo,
        records: list[SinkRecord],
        careful: bool,
        on_bad: OnBad,
        write: Callable[[list[SinkRecord]], None],
    ) -> None:
        if not careful:
            write(records)
            return
        for record in records:
            cursor.execute("SAVEPOINT conveyor_row")
            try:
                write([record])
            except ROW_ERRORS as error:
                cursor.execute("ROLLBACK TO SAVEPOINT conveyor_row")
                on_bad(BadRecordError(record, str(table.name), _column_of(error), error))
            else:
                cursor.execute("RELEASE SAVEPOINT conveyor_row")

    def _encode(
        self, table: TableInfo, layout: RecordLayout, records: Sequence[SinkRecord], on_bad: OnBad
    ) -> _Encoded:
        encoders = self._encoders.get(layout)
        if encoders is None:
            timezone = self._settings.db_timezone
            encoders = self._encoders[layout] = [encoder(c.schema, timezone) for c in layout.columns]
        pairs = list(zip(encoders, layout.names, strict=True))
        kept: list[SinkRecord] = []
        lines: list[str] = []
        for record in records:
            row = layout.row(record)
            try:
                line = "\t".join(
                    [NULL if v is None else encode(v) for (encode, _), v in zip(pairs, row, strict=True)]
                )
            except Exception:
                on_bad(BadRecordError(record, str(table.name), *_failing_column(pairs, row)))
                continue
            kept.append(record)
            lines.append(line)
        return _Encoded(kept, lines)

    def _copy(self, cursor: Cursor, target: sql.Composable, layout: RecordLayout, text: str) -> None:
        cursor.copy_expert(self._copy_statement(cursor, target, layout), io.StringIO(text), size=_COPY_BUFFER)

    def _copy_statement(self, cursor: Cursor, target: sql.Composable, layout: RecordLayout) -> str:
        """``COPY target (columns) FROM STDIN``, composed once per target and layout."""
        key = (repr(target), layout)
        statement = self._statements.get(key)
        if statement is None:
            columns = sql.SQL(", ").join(map(sql.Identifier, layout.names))
            statement = self._statements[key] = (
                sql.SQL("COPY {} ({}) FROM STDIN").format(target, columns).as_string(cursor)
            )
        return statement

    def _copy_in(
        self, cursor: Cursor, table: TableInfo, layout: RecordLayout, records: list[SinkRecord], on_bad: OnBad
    ) -> None:
        encoded = self._encode(table, layout, records, on_bad)
        if encoded.lines:
            self._copy(cursor, table.name.identifier(), layout, _text(encoded.lines))

    def _merge(
        self, cursor: Cursor, table: TableInfo, layout: RecordLayout, records: list[SinkRecord], on_bad: OnBad
    ) -> None:
        """Upsert or update through the staging table: one COPY, one merging statement."""
        assert table.stage is not None
        encoded = self._encode(table, layout, _last_per_key(layout, records), on_bad)
        if not encoded.lines:
            return
        self._copy(cursor, sql.Identifier(table.stage), layout, _text(encoded.lines))
        self._merge_staged(cursor, table, layout)

    def _merge_staged(self, cursor: Cursor, table: TableInfo, layout: RecordLayout) -> None:
        cursor.execute(self._merge_statement(cursor, table, layout))

    def _merge_statement(self, cursor: Cursor, table: TableInfo, layout: RecordLayout) -> str:
        """The staging table's rows into ``table``, then the staging table emptied; composed once per
        staging table and layout."""
        assert table.stage is not None
        key = (f"merge {table.stage}", layout)
        composed = self._statements.get(key)
        if composed is not None:
            return composed
        stage = sql.Identifier(table.stage)
        keys = [sql.Identifier(name) for name in layout.key_names]
        others = [sql.Identifier(c.name) for c in layout.columns if not c.is_key]
        columns = sql.SQL(", ").join(map(sql.Identifier, layout.names))
        if self._settings.insert_mode is InsertMode.UPSERT:
            action = (
                sql.SQL("DO UPDATE SET {}").format(
                    sql.SQL(", ").join(sql.SQL("{} = EXCLUDED.{}").format(c, c) for c in others)
                )
                if others
                else sql.SQL("DO NOTHING")
            )
            merge = sql.SQL("INSERT INTO {} ({}) SELECT {} FROM {} ON CONFLICT ({}) {}").format(
                table.name.identifier(), columns, columns, stage, sql.SQL(", ").join(keys), action
            )
        elif others:
            merge = sql.SQL("UPDATE {} AS t SET {} FROM {} AS s WHERE {}").format(
                table.name.identifier(),
                sql.SQL(", ").join(sql.SQL("{} = s.{}").format(c, c) for c in others),
                stage,
                sql.SQL(" AND ").join(sql.SQL("t.{} = s.{}").format(k, k) for k in keys),
            )
        else:
            merge = sql.SQL("SELECT 1")
        composed = sql.SQL("{}; TRUNCATE {}").format(merge, stage).as_string(cursor)
        self._statements[key] = composed
        return str(composed)

    def _delete(
        self, cursor: Cursor, table: TableInfo, layout: RecordLayout, records: list[SinkRecord]
    ) -> None:
        keys = list({tuple(layout.key_values(record)): None for record in records})
        if not keys:
            return
        names = sql.SQL(", ").join(map(sql.Identifier, layout.key_names))
        statement = sql.SQL("DELETE FROM {} WHERE ({}) IN (VALUES %s)").format(table.name.identifier(), names)
        psycopg2.extras.execute_values(cursor, statement.as_string(cursor), keys, page_size=len(keys))


class _Rows(io.StringIO):
    """COPY text that tells when it has been read to its end, that is when ``COPY`` has been sent it all."""

    def __init__(self, text: str, on_end: Callable[[], None]) -> None:
        super().__init__(text)
        self._on_end = on_end

    def read(self, size: int | None = -1) -> str:
        chunk = super().read(size)
        if not chunk:
            self._on_end()
        return chunk


def _text(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"


def _last_row_per_key(key_count: int, columns: Sequence[Sequence[Any]]) -> Sequence[Sequence[Any]]:
    """The columns with only the last row of each key, in the order of their last appearance (as
    ``_last_per_key`` keeps records)."""
    keys = list(zip(*columns[:key_count], strict=True))
    if len(set(keys)) == len(keys):
        return columns
    last: dict[tuple[Any, ...], int] = {}
    for index, key in enumerate(keys):
        last.pop(key, None)
        last[key] = index
    kept = list(last.values())
    return [[column[index] for index in kept] for column in columns]


def _runs(records: Sequence[SinkRecord]) -> list[tuple[bool, list[SinkRecord]]]:
    """Consecutive writes and consecutive deletes (tombstones), in order."""
    runs: list[tuple[bool, list[SinkRecord]]] = []
    for record in records:
        deleting = record.value is None
        if runs and runs[-1][0] == deleting:
            runs[-1][1].append(record)
        else:
            runs.append((deleting, [record]))
    return runs


def _last_per_key(layout: RecordLayout, records: list[SinkRecord]) -> list[SinkRecord]:
    """One record per key, the last one, in the order of their last appearance."""
    if len(records) < 2:
        return records
    last: dict[tuple[Any, ...], SinkRecord] = {}
    for record in records:
        key = tuple(layout.key_values(record))
        last.pop(key, None)
        last[key] = record
    return list(last.values())


def _failing_column(pairs: list[tuple[Encoder, str]], row: list[Any]) -> tuple[str | None, BaseException]:
    for (encode, name), value in zip(pairs, row, strict=True):
        if value is None:
            continue
        try:
            encode(value)
        except Exception as error:
            return name, error
    return None, DataError("the row could not be encoded")


def _column_of(error: BaseException) -> str | None:
    """The column a database error names: a constraint's column, or the one COPY was reading."""
    diag = getattr(error, "diag", None)
    if diag is None:
        return None
    if diag.column_name:
        return str(diag.column_name)
    match = _COPY_CONTEXT_COLUMN.search(diag.context or "")
    return match.group(1) if match else None

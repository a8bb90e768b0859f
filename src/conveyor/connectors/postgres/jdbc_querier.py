"""One table's (or the custom query's) repeated query in each mode, with Confluent's offset criteria.

Each execution opens a server-side cursor and hands its rows out ``batch.max.rows`` at a time, so a large
table never sits in memory; the offset after each row is what Confluent's connector would write. The
criteria are those of Confluent's ``TimestampIncrementingCriteria``:

- incrementing: ``WHERE inc > ? ORDER BY inc``
- timestamp: ``WHERE ts > ? AND ts < ? ORDER BY ts`` (``ts`` is ``COALESCE`` of the timestamp columns)
- timestamp+incrementing: ``WHERE ts < ? AND ((ts = ? AND inc > ?) OR ts > ?) ORDER BY ts, inc``

where the upper bound is the database's current time less ``timestamp.delay.interval.ms``.
"""

from __future__ import annotations

import datetime as dt
import decimal
import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import psycopg2.extensions
from psycopg2 import sql

from conveyor.connectors.postgres.jdbc_offsets import INCREMENTING_FIELD, JdbcOffset
from conveyor.connectors.postgres.jdbc_source_config import (
    INCREMENTING_COLUMN_NAME_CONFIG,
    JdbcSourceSettings,
    Mode,
)
from conveyor.connectors.postgres.jdbc_tables import TableId
from conveyor.connectors.postgres.jdbc_types import (
    ColumnDescription,
    RowMapping,
    resolve_type,
    row_mapping,
    time_zone,
)
from conveyor.connectors.postgres.types import PgType
from conveyor.data import SourceRecord
from conveyor.errors import ConfigError, ConnectError

_EPOCH: Final = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_cursor_names = itertools.count()


class OffsetColumnError(ConnectError):
    """A column the mode needs is missing or nullable; ``key`` is the setting that names it."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key = key


@dataclass(frozen=True)
class TableColumn:
    """A column of a table as ``pg_attribute`` describes it."""

    name: str
    not_null: bool
    generated_key: bool
    """A serial or identity column: what an empty ``incrementing.column.name`` picks."""


def table_columns(connection: psycopg2.extensions.connection, table: TableId) -> list[TableColumn]:
    """The columns of ``table`` in order; empty if the table does not exist."""
    query = (
        "SELECT a.attname, a.attnotnull, "
        "(a.attidentity <> '' OR coalesce(pg_catalog.pg_get_expr(d.adbin, d.adrelid), '') LIKE 'nextval(%%') "
        "FROM pg_catalog.pg_attribute a "
        "LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum "
        "WHERE a.attrelid = pg_catalog.to_regclass(%s) AND a.attnum > 0 AND NOT a.attisdropped "
        "ORDER BY a.attnum"
    )
    with connection.cursor() as cursor:
        cursor.execute(query, (table.quoted,))
        return [TableColumn(name, not_null, generated) for name, not_null, generated in cursor.fetchall()]


def _find(columns: Sequence[TableColumn], wanted: str) -> TableColumn | None:
    """The column called ``wanted``: exactly, else its only case-insensitive match (as Confluent does)."""
    exact = [column for column in columns if column.name == wanted]
    if exact:
        return exact[0]
    folded = [column for column in columns if column.name.lower() == wanted.lower()]
    return folded[0] if len(folded) == 1 else None


@dataclass(frozen=True)
class OffsetColumns:
    """The columns a table's mode reads its offsets from, as the table spells them."""

    incrementing: str | None
    timestamps: tuple[str, ...]


def offset_columns(
    table: TableId, columns: Sequence[TableColumn], settings: JdbcSourceSettings
) -> OffsetColumns:
    """Resolve the mode's columns on ``table``; raises :class:`OffsetColumnError` naming the key to fix."""
    mode = settings.effective_mode
    names = ", ".join(column.name for column in columns)
    incrementing = None
    if mode.uses_incrementing:
        key, wanted_name = _wanted(settings.wanted_incrementing, table)
        if wanted_name:
            found = _find(columns, wanted_name)
            if found is None:
                raise OffsetColumnError(
                    key,
                    f"Incrementing column: {wanted_name} does not exist in table "
                    f"'{table.unquoted}' (its columns: {names}): name one of its columns",
                )
        else:
            generated = [column for column in columns if column.generated_key]
            if not generated:
                raise OffsetColumnError(
                    key,
                    f"Table '{table.unquoted}' has no serial or identity column to use as the incrementing "
                    f"column: set {INCREMENTING_COLUMN_NAME_CONFIG} to one of {names}",
                )
            found = generated[0]
        if settings.validate_non_null and not found.not_null:
            raise OffsetColumnError(
                key,
                f"Cannot make incremental queries using incrementing column {found.name} on "
                f"{table.unquoted} because this column is nullable: make it NOT NULL or set "
                "validate.non.null=false",
            )
        incrementing = found.name
    timestamps: list[TableColumn] = []
    if mode.uses_timestamp:
        timestamp_key, wanted_names = _wanted(settings.wanted_timestamps, table)
        missing = []
        for wanted in wanted_names:
            found = _find(columns, wanted)
            if found is None:
                missing.append(wanted)
            else:
                timestamps.append(found)
        if missing:
            raise OffsetColumnError(
                timestamp_key,
                f"Timestamp columns: {', '.join(missing)} do not exist in table '{table.unquoted}' "
                f"(its columns: {names})",
            )
        if settings.validate_non_null and not any(column.not_null for column in timestamps):
            raise OffsetColumnError(
                timestamp_key,
                f"Cannot make incremental queries using timestamp columns "
                f"{','.join(column.name for column in timestamps)} on {table.unquoted} because all of "
                "these columns are nullable: make one NOT NULL or set validate.non.null=false",
            )
    return OffsetColumns(incrementing, tuple(column.name for column in timestamps))


def _wanted(lookup: Callable[[str], tuple[str, Any]], table: TableId) -> tuple[str, Any]:
    try:
        return lookup(table.unquoted)
    except ConfigError as error:
        raise OffsetColumnError(error.name or "", str(error)) from None


@dataclass(frozen=True)
class QuerySpec:
    """What one querier reads and where its records go."""

    mode: Mode
    topic: str
    partition: Mapping[str, str]
    columns: OffsetColumns
    table: TableId | None = None
    query: str | None = None
    suffix: str = ""

    @property
    def describe(self) -> str:
        return f"table {self.table.unquoted}" if self.table is not None else "the query"


class TableQuerier:
    """Runs one spec's query again and again, and turns its rows into records with their offsets."""

    def __init__(self, spec: QuerySpec, settings: JdbcSourceSettings, offset: JdbcOffset) -> None:
        self.spec = spec
        self.offset = offset
        self._committed_offset = offset
        self._settings = settings
        self._zone = time_zone(settings.db_timezone)
        self.last_update = 0.0
        self._cursor: Any = None
        self._connection: psycopg2.extensions.connection | None = None
        self._mapping: RowMapping | None = None
        self._signature: tuple[Any, ...] | None = None
        self._catalog: dict[int, PgType] = {}
        self._incrementing_index: int | None = None
        self._timestamp_indexes: tuple[int, ...] = ()

    @property
    def querying(self) -> bool:
        return self._cursor is not None

    def statement(self) -> tuple[sql.Composable, tuple[Any, ...] | None]:
        """The SQL and the names of its parameters' values, for the mode."""
        spec = self.spec
        if spec.table is not None:
            base: sql.Composable = sql.SQL("SELECT * FROM {}").format(spec.table.identifier())
        else:
            assert spec.query is not None
            escaped = spec.query if spec.mode is Mode.BULK else spec.query.replace("%", "%%")
            base = sql.SQL(escaped)
        criteria, names = self._criteria()
        suffix = sql.SQL(" " + spec.suffix.replace("%", "%%")) if spec.suffix else sql.SQL("")
        return sql.Composed([base, criteria, suffix]), names

    def _criteria(self) -> tuple[sql.Composable, tuple[str, ...] | None]:
        columns = self.spec.columns
        mode = self.spec.mode
        if mode is Mode.BULK:
            return sql.SQL(""), None
        incrementing = sql.Identifier(columns.incrementing) if columns.incrementing else None
        if len(columns.timestamps) == 1:
            timestamp: sql.Composable = sql.Identifier(columns.timestamps[0])
        else:
            listed = sql.SQL(",").join(map(sql.Identifier, columns.timestamps))
            timestamp = sql.SQL("COALESCE({})").format(listed)
        if mode is Mode.INCREMENTING:
            assert incrementing is not None
            return sql.SQL(" WHERE {inc} > %s ORDER BY {inc} ASC").format(inc=incrementing), ("incrementing",)
        if mode is Mode.TIMESTAMP:
            clause = " WHERE {ts} > %s AND {ts} < %s ORDER BY {ts} ASC"
            return sql.SQL(clause).format(ts=timestamp), ("begin", "end")
        assert incrementing is not None
        clause = " WHERE {ts} < %s AND (({ts} = %s AND {inc} > %s) OR {ts} > %s) ORDER BY {ts},{inc} ASC"
        names = ("end", "begin", "incrementing", "begin")
        return sql.SQL(clause).format(ts=timestamp, inc=incrementing), names

    def start(self, connection: psycopg2.extensions.connection, catalog: dict[int, PgType]) -> None:
        """Execute the query on a server-side cursor (in a read transaction that ``reset`` ends)."""
        statement, names = self.statement()
        params = self._parameters(connection, names) if names else None
        self._committed_offset = self.offset
        self._connection = connection
        cursor = connection.cursor(name=f"conveyor_jdbc_{next(_cursor_names)}")
        cursor.itersize = self._settings.batch_max_rows
        cursor.execute(statement, params)
        self._cursor = cursor
        self._catalog = catalog

    def _parameters(
        self, connection: psycopg2.extensions.connection, names: Sequence[str]
    ) -> tuple[Any, ...]:
        values: dict[str, Any] = {
            "incrementing": self.offset.incrementing if self.offset.incrementing is not None else -1,
            "begin": self.offset.timestamp or _EPOCH,
        }
        if "end" in names:
            with connection.cursor() as cursor:
                cursor.execute("SELECT now()")
                (now,) = cursor.fetchone()
            values["end"] = now - dt.timedelta(milliseconds=self._settings.timestamp_delay_ms)
        return tuple(values[name] for name in names)

    def fetch(self, max_rows: int) -> tuple[list[SourceRecord], bool]:
        """Up to ``max_rows`` records, and whether the result is exhausted."""
        assert self._cursor is not None
        rows = self._cursor.fetchmany(max_rows)
        if not rows:
            return [], True
        mapping = self._row_mapping()
        structs = mapping.structs(rows)
        offsets = self._offsets(rows)
        records = SourceRecord.for_values(
            self.spec.topic,
            structs,
            offsets,
            source_partition=self.spec.partition,
            value_schema=mapping.schema,
        )
        return records, len(rows) < max_rows

    def _offsets(self, rows: Sequence[Sequence[Any]]) -> Sequence[Mapping[str, Any] | None]:
        """Each row's offset map, and the querier's offset moved to the last row's."""
        if self.spec.mode is Mode.BULK:
            return [None] * len(rows)
        index = self._incrementing_index
        incrementing: list[int | None] = [None] * len(rows)
        if index is not None:
            column = [row[index] for row in rows]
            incrementing = (
                column if all(type(v) is int for v in column) else [_incrementing(v) for v in column]
            )
        if not self._timestamp_indexes:
            self.offset = JdbcOffset(incrementing[-1], None)
            return [{INCREMENTING_FIELD: value} for value in incrementing]
        offsets: list[Mapping[str, Any] | None] = []
        offset = self.offset
        for row, value in zip(rows, incrementing, strict=True):
            timestamp = None
            for position in self._timestamp_indexes:
                if row[position] is not None:
                    timestamp = self._instant(row[position])
                    break
            offset = JdbcOffset(value, timestamp)
            offsets.append(offset.to_map())
        self.offset = offset
        return offsets

    def _instant(self, value: Any) -> dt.datetime:
        if isinstance(value, dt.datetime):
            moment = value if value.tzinfo is not None else value.replace(tzinfo=self._zone)
        elif isinstance(value, dt.date):
            moment = dt.datetime.combine(value, dt.time(), tzinfo=self._zone)
        else:
            raise ConnectError(
                f"Timestamp column of {self.spec.describe} holds {type(value).__name__} values: "
                "name a timestamp or date column"
            )
        return moment.astimezone(dt.UTC)

    def _row_mapping(self) -> RowMapping:
        cursor = self._cursor
        description = cursor.description
        signature = tuple(
            (c.name, c.type_code, c.internal_size, c.precision, c.scale, c.table_oid, c.table_column)
            for c in description
        )
        if self._mapping is not None and signature == self._signature:
            return self._mapping
        assert self._connection is not None
        columns = _describe(self._connection, description, self._catalog)
        name = self.spec.table.table if self.spec.table is not None else None
        self._mapping = row_mapping(
            name, columns, self._settings.numeric_mapping, self._settings.db_timezone, self.spec.describe
        )
        self._signature = signature
        names = [column.name for column in description]
        offset_columns = self.spec.columns
        self._incrementing_index = (
            _index_of(names, offset_columns.incrementing, self.spec) if offset_columns.incrementing else None
        )
        self._timestamp_indexes = tuple(
            _index_of(names, column, self.spec) for column in offset_columns.timestamps
        )
        return self._mapping

    def reset(self, now: float, reset_offset: bool) -> None:
        """Close the cursor and end the read transaction; on a failure go back to the last start's offset."""
        if reset_offset:
            self.offset = self._committed_offset
        cursor, connection = self._cursor, self._connection
        self._cursor = None
        self._connection = None
        self.last_update = now
        if cursor is not None and connection is not None and not connection.closed:
            try:
                cursor.close()
                connection.commit()
            except psycopg2.Error:
                pass


def _incrementing(value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, decimal.Decimal):
        if value != value.to_integral_value():
            raise ConnectError("Scale of Decimal value for incrementing column must be 0")
        if value > 2**63 - 1:
            raise ConnectError("Decimal value for incrementing column exceeded Long.MAX_VALUE")
        return int(value)
    if value is None:
        raise ConnectError("Null value for incrementing column: make the column NOT NULL")
    raise ConnectError(f"Invalid type for incrementing column: {type(value).__name__}; use an integer column")


def _index_of(names: Sequence[str], wanted: str, spec: QuerySpec) -> int:
    if wanted in names:
        return names.index(wanted)
    folded = [index for index, name in enumerate(names) if name.lower() == wanted.lower()]
    if len(folded) == 1:
        return folded[0]
    raise ConnectError(f"Column {wanted} is not among the columns of {spec.describe}: {', '.join(names)}")


def _describe(
    connection: psycopg2.extensions.connection, description: Sequence[Any], catalog: dict[int, PgType]
) -> list[ColumnDescription]:
    """The result's columns with their types, modifiers and nullability (from ``pg_attribute`` where a
    column comes straight from a table; a computed one is nullable and its modifier comes from the
    driver's precision and scale)."""
    sources = [(c.table_oid, c.table_column) for c in description if c.table_oid]
    attributes: dict[tuple[int, int], tuple[int, bool]] = {}
    if sources:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT attrelid::int8, attnum::int8, atttypmod, attnotnull FROM pg_catalog.pg_attribute "
                "WHERE (attrelid::int8, attnum::int8) IN %s",
                (tuple(sources),),
            )
            for relid, attnum, modifier, not_null in cursor.fetchall():
                attributes[(relid, attnum)] = (modifier, not_null)
    columns = []
    for column in description:
        pg_type = resolve_type(column.type_code, catalog)
        known = attributes.get((column.table_oid, column.table_column)) if column.table_oid else None
        if known is not None:
            modifier, not_null = known
        else:
            modifier = ((column.precision << 16) | (column.scale or 0)) + 4 if column.precision else -1
            not_null = False
        columns.append(ColumnDescription(column.name, pg_type, modifier, not not_null))
    return columns

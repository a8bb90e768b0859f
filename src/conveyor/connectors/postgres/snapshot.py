"""The initial snapshot: every captured table read inside the snapshot a new slot exported, so the rows
read and the changes streamed after the slot's consistent point meet without a gap or an overlap.

Tables are read in primary-key chunks (:mod:`snapshot_plan`), in key order, so several tasks can share
a table and a task can resume a chunk after the last key it wrote."""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Iterator, Sequence

import psycopg2
from psycopg2 import sql

from conveyor.connectors.postgres.catalog import CaptureError, TableInfo
from conveyor.connectors.postgres.connection import PostgresAddress, connect, first_line
from conveyor.connectors.postgres.snapshot_json import key_texts
from conveyor.connectors.postgres.snapshot_json_types import refused_reason
from conveyor.connectors.postgres.snapshot_plan import Chunk
from conveyor.connectors.postgres.types import read_as_text
from conveyor.errors import ConnectError


class SnapshotReader:
    """A repeatable-read transaction on the exported snapshot, reading tables one after another; floats
    come in their shortest exact text (``extra_float_digits`` 1, PostgreSQL 12's default) whatever the
    server's setting, and no query is compiled to machine code (``jit`` off): each page's query is
    planned anew, and the JSON expressions' estimated costs would have it compiled every time."""

    def __init__(self, address: PostgresAddress, snapshot_name: str, fetch_size: int) -> None:
        self._connection = connect(address, application_name="conveyor-snapshot")
        self._fetch_size = fetch_size
        self._names = (f"conveyor_snapshot_{n}" for n in itertools.count())
        try:
            self._connection.set_session(isolation_level="REPEATABLE READ")
            with self._connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION SNAPSHOT %s", (snapshot_name,))
                cursor.execute("SET LOCAL extra_float_digits = 1")
                cursor.execute("SET LOCAL jit = off")
                cursor.execute(
                    "SELECT txid_snapshot_xmax(txid_current_snapshot()), "
                    "(extract(epoch FROM now()) * 1000000)::bigint, scale('0'::money::numeric)"
                )
                row = cursor.fetchone()
        except psycopg2.Error as error:
            self.close()
            raise CaptureError(f"Could not start the snapshot: {first_line(error)}") from error
        assert row is not None
        self.xid: int = row[0]
        """The snapshot's first unassigned transaction id: the reader takes none of its own, as a
        transaction holding one would hold up the creation of a slot (a resumed snapshot's)."""
        self.started_us: int = row[1]
        self.money_scale: int = row[2]
        """The decimals of a ``money`` value in the session's ``lc_monetary``."""

    @property
    def server_version(self) -> int:
        """The server's version number (``150004`` for 15.4)."""
        return int(self._connection.server_version)

    @property
    def reads_utf8(self) -> bool:
        """Whether the server sends text in UTF-8, as the JSON converter writes it."""
        return bool(self._connection.encoding == "UTF8")

    def chunks(self, tables: Sequence[TableInfo], chunk_size: int) -> list[Chunk]:
        """Every table split into primary-key ranges of ``chunk_size`` rows (as this snapshot sees them);
        an empty table has none, a table without a primary key is one chunk."""
        chunks: list[Chunk] = []
        for table in tables:
            starts = self._chunk_starts(table, chunk_size)
            if starts is None:
                continue
            bounds: list[tuple[str, ...] | None] = [None, *starts, None]
            for n in range(len(bounds) - 1):
                chunks.append(
                    Chunk(len(chunks), table.id, bounds[n], bounds[n + 1], n == 0, n == len(bounds) - 2)
                )
        return chunks

    def _chunk_starts(self, table: TableInfo, chunk_size: int) -> list[tuple[str, ...]] | None:
        """The first key of every chunk but the first, or None if the table has no row."""
        read_as_text(self._connection, {column.type_oid for column in table.columns})
        key = table.primary_key
        with self._connection.cursor() as cursor:
            try:
                cursor.execute(sql.SQL("SELECT EXISTS (SELECT 1 FROM {})").format(table.id.quoted()))
                row = cursor.fetchone()
                if row is None or not row[0]:
                    return None
                if not key:
                    return []
                columns = sql.SQL(", ").join(sql.Identifier(name) for name in key)
                cursor.execute(
                    sql.SQL(
                        "SELECT {columns} FROM (SELECT {columns}, row_number() OVER (ORDER BY {columns}) "
                        "AS conveyor_row FROM {table}) AS numbered WHERE conveyor_row % {size} = 1 "
                        "AND conveyor_row > 1 ORDER BY conveyor_row"
                    ).format(columns=columns, table=table.id.quoted(), size=sql.Literal(chunk_size))
                )
                return [tuple(found) for found in cursor.fetchall()]
            except psycopg2.Error as error:
                raise _unreadable(table, error) from error

    def chunk_rows(
        self, table: TableInfo, columns: Sequence[str], chunk: Chunk, after: tuple[str, ...] | None
    ) -> Iterator[tuple[str | None, ...]]:
        """The rows of ``chunk`` (these columns, in their text form) in key order, those after the key
        ``after`` only, fetched ``fetch_size`` at a time."""
        read_as_text(self._connection, {column.type_oid for column in table.columns})
        key = table.primary_key
        conditions: list[sql.Composable] = []
        params: list[str] = []
        for bound, operator in ((chunk.lower, ">="), (chunk.upper, "<"), (after, ">")):
            if bound is not None and key:
                conditions.append(_key_comparison(key, operator))
                params.extend(bound)
        statement = sql.SQL("SELECT {} FROM {}").format(
            sql.SQL(", ").join(sql.Identifier(name) for name in columns), table.id.quoted()
        )
        if conditions:
            statement += sql.SQL(" WHERE ") + sql.SQL(" AND ").join(conditions)
        if key:
            statement += sql.SQL(" ORDER BY {}").format(sql.SQL(", ").join(sql.Identifier(n) for n in key))
        with self._connection.cursor(name=next(self._names)) as cursor:
            cursor.itersize = self._fetch_size
            try:
                cursor.execute(statement, params)
                while batch := cursor.fetchmany(self._fetch_size):
                    yield from batch
            except psycopg2.Error as error:
                raise _unreadable(table, error) from error

    def chunk_json(
        self,
        table: TableInfo,
        key_select: sql.Composable,
        value_select: sql.Composable,
        chunk: Chunk,
        after: tuple[str, ...] | None,
    ) -> Iterator[tuple[bytes, ...]]:
        """The rows of ``chunk`` of a table with a primary key, in key order, those after the key ``after``
        only: per row the key's columns in text form, then the JSON PostgreSQL writes of ``key_select``
        and of ``value_select`` (select lists over the table as ``conveyor_row``), all as the server's
        bytes. Read ``fetch_size`` rows a query, each page after the last key of the one before, the page
        fetched whole: a ``COPY`` would call back into Python, and take the GIL again, for every row."""
        key = table.primary_key
        assert key, "a table without a primary key is read with chunk_rows"
        qualified = [sql.SQL("conveyor_row.{}").format(sql.Identifier(name)) for name in key]
        select = sql.SQL(
            "SELECT {key}, row_to_json(conveyor_key)::text, row_to_json(conveyor_value)::text "
            "FROM {table} AS conveyor_row, LATERAL (SELECT {key_select}) AS conveyor_key, "
            "LATERAL (SELECT {value_select}) AS conveyor_value"
        ).format(
            key=sql.SQL(", ").join(sql.SQL("{}::text").format(column) for column in qualified),
            table=table.id.quoted(),
            key_select=key_select,
            value_select=value_select,
        )
        order = sql.SQL(" ORDER BY {} LIMIT {}").format(
            sql.SQL(", ").join(qualified), sql.Literal(self._fetch_size)
        )
        page_after = after
        while True:
            conditions: list[sql.Composable] = []
            params: list[str] = []
            for bound, operator in ((chunk.lower, ">="), (chunk.upper, "<"), (page_after, ">")):
                if bound is not None:
                    conditions.append(_key_comparison(qualified, operator))
                    params.extend(bound)
            statement = select
            if conditions:
                statement += sql.SQL(" WHERE ") + sql.SQL(" AND ").join(conditions)
            with self._connection.cursor() as cursor:
                psycopg2.extensions.register_type(psycopg2.extensions.BYTES, cursor)
                try:
                    cursor.execute(statement + order, params)
                    rows: list[tuple[bytes, ...]] = cursor.fetchall()
                except psycopg2.Error as error:
                    reason = refused_reason(first_line(error))
                    if reason is not None:
                        raise ConnectError(f"Table {table.id}: {reason}") from error
                    raise _unreadable(table, error) from error
            yield from rows
            if len(rows) < self._fetch_size:
                return
            page_after = tuple(key_texts(rows[-1], len(key)))

    def close(self) -> None:
        with contextlib.suppress(psycopg2.Error):
            self._connection.rollback()
            self._connection.close()


def _key_comparison(key: Sequence[str] | Sequence[sql.Composable], operator: str) -> sql.Composed:
    columns = sql.SQL(", ").join(sql.Identifier(name) if isinstance(name, str) else name for name in key)
    placeholders = sql.SQL(", ").join(sql.Placeholder() for _ in key)
    return sql.SQL("ROW({}) {} ROW({})").format(columns, sql.SQL(operator), placeholders)


def _unreadable(table: TableInfo, error: psycopg2.Error) -> CaptureError:
    return CaptureError(
        f"Could not read table {table.id} for the snapshot: {first_line(error)}. The user needs SELECT on "
        "it, or leave it out with table.exclude.list"
    )

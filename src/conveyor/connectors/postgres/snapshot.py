"""The initial snapshot: every captured table read inside the snapshot a new slot exported, so the rows
read and the changes streamed after the slot's consistent point meet without a gap or an overlap."""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Iterator, Sequence

import psycopg2
from psycopg2 import sql

from conveyor.connectors.postgres.catalog import CaptureError, TableInfo
from conveyor.connectors.postgres.connection import PostgresAddress, connect, first_line
from conveyor.connectors.postgres.types import read_as_text


class SnapshotReader:
    """A repeatable-read transaction on the exported snapshot, reading tables one after another."""

    def __init__(self, address: PostgresAddress, snapshot_name: str, fetch_size: int) -> None:
        self._connection = connect(address, application_name="conveyor-snapshot")
        self._fetch_size = fetch_size
        self._names = (f"conveyor_snapshot_{n}" for n in itertools.count())
        try:
            self._connection.set_session(isolation_level="REPEATABLE READ")
            with self._connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION SNAPSHOT %s", (snapshot_name,))
                cursor.execute("SELECT txid_current(), (extract(epoch FROM now()) * 1000000)::bigint")
                row = cursor.fetchone()
        except psycopg2.Error as error:
            self.close()
            raise CaptureError(f"Could not start the snapshot: {first_line(error)}") from error
        assert row is not None
        self.xid: int = row[0]
        self.started_us: int = row[1]

    def rows(self, table: TableInfo, columns: Sequence[str]) -> Iterator[tuple[str | None, ...]]:
        """Every row of ``table`` (these columns, in their text form), fetched ``fetch_size`` at a time."""
        read_as_text(self._connection, {column.type_oid for column in table.columns})
        statement = sql.SQL("SELECT {} FROM {}").format(
            sql.SQL(", ").join(sql.Identifier(name) for name in columns), table.id.quoted()
        )
        with self._connection.cursor(name=next(self._names)) as cursor:
            cursor.itersize = self._fetch_size
            try:
                cursor.execute(statement)
                yield from cursor
            except psycopg2.Error as error:
                raise CaptureError(
                    f"Could not read table {table.id} for the snapshot: {first_line(error)}. The user needs "
                    f"SELECT on it, or leave it out with table.exclude.list"
                ) from error

    def close(self) -> None:
        with contextlib.suppress(psycopg2.Error):
            self._connection.rollback()
            self._connection.close()

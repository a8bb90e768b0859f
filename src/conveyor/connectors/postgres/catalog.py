"""What the change data capture source asks PostgreSQL's catalog: the captured tables and their columns,
the server's replication settings, the publication and the slot; each check fails saying what to do."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import psycopg2
from psycopg2 import sql
from psycopg2.extensions import cursor as Cursor

from conveyor.connectors.postgres.cdc_config import (
    PUBLICATION_AUTOCREATE_CONFIG,
    PUBLICATION_NAME_CONFIG,
    CaptureFilters,
    PublicationAutocreateMode,
)
from conveyor.connectors.postgres.connection import first_line
from conveyor.errors import ConnectError


class CaptureError(ConnectError):
    """The database is not set up for change data capture as configured; the message says what to do."""


class SlotInUseError(CaptureError):
    """Another connection holds the replication slot."""


@dataclass(frozen=True)
class TableId:
    schema: str
    table: str

    def __str__(self) -> str:
        return f"{self.schema}.{self.table}"

    def quoted(self) -> sql.Composed:
        return sql.SQL("{}.{}").format(sql.Identifier(self.schema), sql.Identifier(self.table))


@dataclass(frozen=True)
class ColumnInfo:
    name: str
    type_oid: int
    type_modifier: int
    not_null: bool
    primary_key: bool


@dataclass(frozen=True)
class TableInfo:
    oid: int
    id: TableId
    columns: tuple[ColumnInfo, ...]
    replica_identity: str

    @property
    def primary_key(self) -> tuple[str, ...]:
        return tuple(column.name for column in self.columns if column.primary_key)


_TABLES_QUERY: Final = """
SELECT c.oid, n.nspname, c.relname, c.relreplident
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition
  AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%%'
ORDER BY n.nspname, c.relname
"""

_COLUMNS_QUERY: Final = """
SELECT a.attname, a.atttypid, a.atttypmod, a.attnotnull,
       COALESCE(a.attnum = ANY(i.indkey), false)
FROM pg_attribute a
LEFT JOIN pg_index i ON i.indrelid = a.attrelid AND i.indisprimary
WHERE a.attrelid = %s AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY a.attnum
"""


def describe(cursor: Cursor, oid: int) -> TableInfo | None:
    """The table with this oid as the catalog describes it now, or None if it is gone."""
    cursor.execute(
        "SELECT n.nspname, c.relname, c.relreplident FROM pg_class c "
        "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = %s",
        (oid,),
    )
    row = cursor.fetchone()
    if row is None:
        return None
    cursor.execute(_COLUMNS_QUERY, (oid,))
    columns = tuple(ColumnInfo(*column) for column in cursor.fetchall())
    return TableInfo(oid, TableId(row[0], row[1]), columns, row[2])


def captured_tables(cursor: Cursor, filters: CaptureFilters) -> list[TableInfo]:
    """The tables the filters select, in the order Debezium snapshots them: that of the first
    ``table.include.list`` entry each matches, then schema and name."""
    cursor.execute(_TABLES_QUERY)
    tables = []
    for oid, schema, name, _identity in cursor.fetchall():
        if filters.captures_table(schema, name):
            info = describe(cursor, oid)
            if info is not None:
                tables.append(info)
    return sorted(tables, key=lambda table: filters.include_rank(table.id.schema, table.id.table))


def check_wal_level(cursor: Cursor) -> None:
    cursor.execute("SHOW wal_level")
    (level,) = cursor.fetchone() or ("unknown",)
    if level != "logical":
        raise CaptureError(
            f"PostgreSQL runs with wal_level={level}; change data capture needs wal_level=logical: set it "
            "in postgresql.conf (ALTER SYSTEM SET wal_level = logical) and restart the server"
        )


def check_replica_identities(tables: list[TableInfo]) -> None:
    """Updates and deletes of a table without a primary key or replica identity cannot be captured."""
    for table in tables:
        if table.replica_identity == "n" or (table.replica_identity == "d" and not table.primary_key):
            raise CaptureError(
                f"Table {table.id} has no primary key and no replica identity, so its updates and deletes "
                f"cannot be captured: add a primary key, run ALTER TABLE {table.id} REPLICA IDENTITY FULL, "
                "or leave the table out with table.exclude.list"
            )


def publication_exists(cursor: Cursor, name: str) -> bool:
    cursor.execute("SELECT 1 FROM pg_publication WHERE pubname = %s", (name,))
    return cursor.fetchone() is not None


def ensure_publication(
    cursor: Cursor, name: str, mode: PublicationAutocreateMode, tables: list[TableInfo]
) -> None:
    """Make the publication exist (and, for ``filtered``, publish exactly ``tables``) as ``mode`` says."""
    exists = publication_exists(cursor, name)
    identifier = sql.Identifier(name)
    table_list = sql.SQL(", ").join(table.id.quoted() for table in tables)
    try:
        if mode is PublicationAutocreateMode.DISABLED:
            if not exists:
                raise CaptureError(
                    f"Publication {name} does not exist and {PUBLICATION_AUTOCREATE_CONFIG}=disabled: create "
                    f"it (CREATE PUBLICATION {name} FOR TABLE ...), name an existing one in "
                    f"{PUBLICATION_NAME_CONFIG}, or set {PUBLICATION_AUTOCREATE_CONFIG} to all_tables or "
                    "filtered"
                )
        elif mode is PublicationAutocreateMode.ALL_TABLES:
            if not exists:
                cursor.execute(sql.SQL("CREATE PUBLICATION {} FOR ALL TABLES").format(identifier))
        elif mode is PublicationAutocreateMode.NO_TABLES:
            if not exists:
                cursor.execute(sql.SQL("CREATE PUBLICATION {}").format(identifier))
        elif not tables:
            raise CaptureError(
                f"{PUBLICATION_AUTOCREATE_CONFIG}=filtered but no table matches the include/exclude lists: "
                "check table.include.list and schema.include.list"
            )
        elif exists:
            cursor.execute(sql.SQL("ALTER PUBLICATION {} SET TABLE {}").format(identifier, table_list))
        else:
            cursor.execute(sql.SQL("CREATE PUBLICATION {} FOR TABLE {}").format(identifier, table_list))
    except psycopg2.Error as error:
        raise CaptureError(
            f"Could not create or update publication {name}: {first_line(error)}. Create it as a user "
            f"who may (a superuser for FOR ALL TABLES, the tables' owner otherwise), or set "
            f"{PUBLICATION_AUTOCREATE_CONFIG}=disabled and create it yourself"
        ) from error


@dataclass(frozen=True)
class SlotInfo:
    name: str
    plugin: str | None
    database: str | None
    active_pid: int | None
    confirmed_flush_lsn: int | None


def slot_info(cursor: Cursor, name: str) -> SlotInfo | None:
    cursor.execute(
        "SELECT slot_name, plugin, database, active_pid, confirmed_flush_lsn - '0/0'::pg_lsn "
        "FROM pg_replication_slots WHERE slot_name = %s",
        (name,),
    )
    row: Any = cursor.fetchone()
    if row is None:
        return None
    flush = int(row[4]) if row[4] is not None else None
    return SlotInfo(row[0], row[1], row[2], row[3], flush)


def check_slot_usable(cursor: Cursor, name: str, dbname: str) -> SlotInfo | None:
    """The slot if it exists; fails if another connection holds it or it belongs elsewhere."""
    info = slot_info(cursor, name)
    if info is None:
        return None
    if info.plugin != "pgoutput" or info.database != dbname:
        raise CaptureError(
            f"Replication slot {name} exists for plugin {info.plugin} on database {info.database}, not for "
            f"pgoutput on {dbname}: choose another slot.name or drop the slot "
            f"(SELECT pg_drop_replication_slot('{name}'))"
        )
    if info.active_pid is not None:
        raise SlotInUseError(
            f"Replication slot {name} is in use by another connection (process {info.active_pid}), perhaps "
            "another connector: give this connector its own slot.name, or stop the other one"
        )
    return info


def drop_slot(cursor: Cursor, name: str) -> None:
    cursor.execute(
        "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = %s", (name,)
    )

"""The sink's destination tables: what columns and key they have, ``auto.create``, ``auto.evolve``, and the
temporary staging table an upsert or update copies a batch into before merging it.

Schema changes run in transactions of their own, before the batch that needs them, under an advisory lock
on the table's name so that tasks racing to create or evolve the same table do it once.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeAlias

import psycopg2.extensions
from psycopg2 import sql

from conveyor.connectors.postgres.sink_config import InsertMode, JdbcSinkSettings
from conveyor.connectors.postgres.sink_fields import Column, RecordLayout
from conveyor.connectors.postgres.sink_schema import sql_type
from conveyor.errors import ConnectError

Connection: TypeAlias = psycopg2.extensions.connection


class TableSchemaError(ConnectError):
    """A destination table is missing, or lacks columns, and the settings forbid changing it."""


@dataclass(frozen=True)
class TableName:
    """A table, optionally in a schema (``table.name.format`` may give ``schema.table``)."""

    schema: str | None
    table: str

    @classmethod
    def parse(cls, text: str) -> TableName:
        schema, dot, table = text.partition(".")
        return cls(schema, table) if dot else cls(None, text)

    def identifier(self) -> sql.Composable:
        return sql.Identifier(self.table) if self.schema is None else sql.Identifier(self.schema, self.table)

    def __str__(self) -> str:
        return self.table if self.schema is None else f"{self.schema}.{self.table}"


@dataclass(frozen=True)
class TableInfo:
    """A destination table as the database has it, and the staging table of upserts and updates."""

    name: TableName
    columns: dict[str, bool]
    """Each column's name, and whether it is nullable."""
    unique_keys: frozenset[frozenset[str]]
    """The column sets of the table's primary key and unique indexes (what ``ON CONFLICT`` can name)."""
    stage: str | None = None


_COLUMNS = """
SELECT a.attname, NOT a.attnotnull FROM pg_attribute a
WHERE a.attrelid = to_regclass(%s) AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum
"""
_UNIQUE_KEYS = """
SELECT i.indexrelid, a.attname FROM pg_index i
JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
WHERE i.indrelid = to_regclass(%s) AND i.indisunique AND i.indpred IS NULL
"""
_stage_numbers = itertools.count(1)


class Tables:
    """The tables one task writes, looked up once and changed only when a record needs it."""

    def __init__(self, settings: JdbcSinkSettings) -> None:
        self._settings = settings
        self._known: dict[TableName, TableInfo] = {}

    def forget(self) -> None:
        """Look every table up again (after a reconnect: the staging tables went with the session)."""
        self._known.clear()

    def ready(self, connection: Connection, name: TableName, layout: RecordLayout, where: str) -> TableInfo:
        """The table, created or evolved (and committed) first if ``layout`` needs it and settings allow."""
        known = self._known.get(name)
        if known is not None and all(column in known.columns for column in layout.names):
            return known
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (f"conveyor-sink:{name}",))
            info = _describe(cursor, connection, name)
            if info is None:
                self._create(cursor, name, layout, where)
            else:
                missing = [column for column in layout.columns if column.name not in info.columns]
                if missing:
                    self._evolve(cursor, info, missing, where)
            info = _describe(cursor, connection, name)
            assert info is not None
            upsert = self._settings.insert_mode is InsertMode.UPSERT
            if upsert and frozenset(layout.key_names) not in info.unique_keys:
                raise TableSchemaError(
                    f"Table {name} has no primary key or unique index on ({', '.join(layout.key_names)}), "
                    f"which insert.mode=upsert needs to find a record's row (record at {where}): add one, or "
                    "let auto.create create the table"
                )
            if self._settings.insert_mode is not InsertMode.INSERT:
                info = self._with_stage(cursor, info, known)
        connection.commit()
        self._known[name] = info
        return info

    def _create(
        self, cursor: psycopg2.extensions.cursor, name: TableName, layout: RecordLayout, where: str
    ) -> None:
        if not self._settings.auto_create:
            raise TableSchemaError(
                f"Table {name} is missing and auto.create is disabled (record at {where}): create the table, "
                "or set auto.create=true to have the connector create it from the record schema"
            )
        definitions = [_column_definition(column) for column in layout.columns]
        if layout.key_names:
            definitions.append(
                sql.SQL("PRIMARY KEY ({})").format(sql.SQL(", ").join(map(sql.Identifier, layout.key_names)))
            )
        cursor.execute(
            sql.SQL("CREATE TABLE IF NOT EXISTS {} ({})").format(
                name.identifier(), sql.SQL(", ").join(definitions)
            )
        )

    def _evolve(
        self, cursor: psycopg2.extensions.cursor, info: TableInfo, missing: Sequence[Column], where: str
    ) -> None:
        names = ", ".join(column.name for column in missing)
        if not self._settings.auto_evolve:
            raise TableSchemaError(
                f"Table {info.name} is missing column(s) {names} of the record at {where} and auto.evolve is "
                "disabled: add the column(s), or set auto.evolve=true"
            )
        for column in missing:
            if not column.schema.optional and column.schema.default is None:
                raise TableSchemaError(
                    f"Cannot ALTER TABLE {info.name} to add missing field {column.name} (record at {where}), "
                    "as the field is not optional and does not have a default value"
                )
        additions = [
            sql.SQL("ADD COLUMN IF NOT EXISTS {} {}").format(
                sql.Identifier(c.name), sql.SQL(sql_type(c.schema))
            )
            for c in missing
        ]
        cursor.execute(
            sql.SQL("ALTER TABLE {} {}").format(info.name.identifier(), sql.SQL(", ").join(additions))
        )

    def _with_stage(
        self, cursor: psycopg2.extensions.cursor, info: TableInfo, known: TableInfo | None
    ) -> TableInfo:
        """The table with a temporary copy of its columns (no keys, dropped at the session's end) that
        batches are copied into before ``INSERT ... ON CONFLICT`` or ``UPDATE ... FROM`` merges them."""
        if known is not None and known.stage is not None:
            cursor.execute(sql.SQL("DROP TABLE IF EXISTS {}").format(sql.Identifier(known.stage)))
        stage = f"conveyor_stage_{next(_stage_numbers)}"
        cursor.execute(
            sql.SQL("CREATE TEMPORARY TABLE {} (LIKE {} INCLUDING DEFAULTS) ON COMMIT DELETE ROWS").format(
                sql.Identifier(stage), info.name.identifier()
            )
        )
        return TableInfo(info.name, info.columns, info.unique_keys, stage)


def _column_definition(column: Column) -> sql.Composable:
    nullable = column.schema.optional and not column.is_key
    return sql.SQL("{} {}{}").format(
        sql.Identifier(column.name),
        sql.SQL(sql_type(column.schema)),
        sql.SQL("" if nullable else " NOT NULL"),
    )


def _describe(
    cursor: psycopg2.extensions.cursor, connection: Connection, name: TableName
) -> TableInfo | None:
    regclass = name.identifier().as_string(connection)
    cursor.execute(_COLUMNS, (regclass,))
    columns = {str(row[0]): bool(row[1]) for row in cursor.fetchall()}
    if not columns:
        return None
    cursor.execute(_UNIQUE_KEYS, (regclass,))
    keys: dict[int, set[str]] = {}
    for index, column in cursor.fetchall():
        keys.setdefault(int(index), set()).add(str(column))
    return TableInfo(name, columns, frozenset(frozenset(key) for key in keys.values()))

"""Which tables the JDBC source copies: listing them, filtering them as Confluent's connector does, and
naming them in task configs and offsets."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

import psycopg2.extensions
from psycopg2 import sql

from conveyor.connectors.postgres.jdbc_source_config import JdbcSourceSettings
from conveyor.errors import ConfigError

RELATION_KINDS: Final = {
    "TABLE": "r",
    "PARTITIONED TABLE": "p",
    "VIEW": "v",
    "MATERIALIZED VIEW": "m",
    "FOREIGN TABLE": "f",
}
"""``table.types`` names (as PostgreSQL's JDBC driver reports them) and the ``pg_class.relkind`` of each."""


@dataclass(frozen=True, order=True)
class TableId:
    """A table of the connection's database: its schema and name."""

    schema: str
    table: str

    @property
    def unquoted(self) -> str:
        """``schema.table``: what include/exclude patterns match and what offsets name (Confluent's
        fully-qualified name on PostgreSQL, whose catalog, the database, is left out)."""
        return f"{self.schema}.{self.table}"

    @property
    def quoted(self) -> str:
        """``"schema"."table"``, as task configs list it."""
        return f"{_quote(self.schema)}.{_quote(self.table)}"

    def identifier(self) -> sql.Composed:
        """The table as an SQL identifier to put in a query."""
        return sql.SQL(".").join([sql.Identifier(self.schema), sql.Identifier(self.table)])


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


_QUOTED_LIST_ITEM = re.compile(r'\s*"((?:[^"]|"")*)"\s*\.\s*"((?:[^"]|"")*)"\s*(?:,|$)')


def format_tables(tables: Iterable[TableId]) -> str:
    """The ``tables`` task key's value: quoted names separated by commas."""
    return ",".join(table.quoted for table in tables)


def parse_tables(value: str) -> list[TableId]:
    """The tables a ``tables`` task key lists (the inverse of :func:`format_tables`)."""
    tables: list[TableId] = []
    position = 0
    while position < len(value):
        match = _QUOTED_LIST_ITEM.match(value, position)
        if match is None:
            raise ConfigError("tables", value, 'Expected a comma-separated list of "schema"."table" names')
        tables.append(TableId(match.group(1).replace('""', '"'), match.group(2).replace('""', '"')))
        position = match.end()
    return tables


def unknown_table_types(types: Sequence[str]) -> list[str]:
    return [kind for kind in types if kind not in RELATION_KINDS]


def list_tables(connection: psycopg2.extensions.connection, settings: JdbcSourceSettings) -> list[TableId]:
    """The tables of the kinds ``table.types`` names, in schemas ``schema.pattern`` matches (SQL LIKE),
    outside PostgreSQL's own schemas, sorted by schema and name."""
    kinds = [RELATION_KINDS[kind] for kind in settings.table_types if kind in RELATION_KINDS]
    query = (
        "SELECT n.nspname, c.relname FROM pg_catalog.pg_class c "
        "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
        "WHERE c.relkind = ANY(%s) AND n.nspname !~ '^pg_' AND n.nspname <> 'information_schema' "
        "AND (%s::text IS NULL OR n.nspname LIKE %s) "
        "AND pg_catalog.has_table_privilege(c.oid, 'SELECT') ORDER BY 1, 2"
    )
    with connection.cursor() as cursor:
        cursor.execute(query, (kinds, settings.schema_pattern, settings.schema_pattern))
        return [TableId(schema, table) for schema, table in cursor.fetchall()]


def filter_tables(tables: Sequence[TableId], settings: JdbcSourceSettings) -> list[TableId]:
    """The tables to copy: those the include list matches and the exclude list does not (regular
    expressions over ``schema.table``), or those the whitelist names or the blacklist does not (by
    ``schema.table``, ``"schema"."table"`` or the bare table name), else all of them."""
    if settings.include_list or settings.exclude_list:
        included = [re.compile(pattern) for pattern in settings.include_list]
        excluded = [re.compile(pattern) for pattern in settings.exclude_list]
        return [
            table
            for table in tables
            if any(p.fullmatch(table.unquoted) for p in included)
            and not any(p.fullmatch(table.unquoted) for p in excluded)
        ]
    if settings.whitelist:
        return [table for table in tables if _named(table, settings.whitelist)]
    if settings.blacklist:
        return [table for table in tables if not _named(table, settings.blacklist)]
    return list(tables)


def _named(table: TableId, names: Sequence[str]) -> bool:
    return table.unquoted in names or table.quoted in names or table.table in names


def unmatched_entries(tables: Sequence[TableId], settings: JdbcSourceSettings) -> dict[str, list[str]]:
    """By key, the include-list patterns and whitelisted names that match no table at all: a typo or a
    table that does not exist (yet)."""
    unmatched: dict[str, list[str]] = {}
    for pattern in settings.include_list:
        compiled = re.compile(pattern)
        if not any(compiled.fullmatch(table.unquoted) for table in tables):
            unmatched.setdefault("table.include.list", []).append(pattern)
    for name in settings.whitelist:
        if not any(_named(table, [name]) for table in tables):
            unmatched.setdefault("table.whitelist", []).append(name)
    return unmatched


def duplicate_names(tables: Sequence[TableId]) -> dict[str, list[TableId]]:
    """Tables sharing a bare name, which would share a topic: Confluent's connector refuses them."""
    by_name: dict[str, list[TableId]] = {}
    for table in tables:
        by_name.setdefault(table.table, []).append(table)
    return {name: same for name, same in by_name.items() if len(same) > 1}


def group_tables(tables: Sequence[TableId], groups: int) -> list[list[TableId]]:
    """``tables`` split into ``groups`` contiguous runs whose sizes differ by at most one, the first ones
    larger (Kafka's ``ConnectorUtils.groupPartitions``)."""
    per_group, leftover = divmod(len(tables), groups)
    grouped: list[list[TableId]] = []
    start = 0
    for index in range(groups):
        size = per_group + 1 if index < leftover else per_group
        grouped.append(list(tables[start : start + size]))
        start += size
    return grouped

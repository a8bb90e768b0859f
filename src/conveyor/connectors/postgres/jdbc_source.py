"""``JdbcSourceConnector``: Confluent's polling JDBC source on PostgreSQL.

The connector lists the tables to copy (again every ``table.poll.interval.ms``, reconfiguring its tasks
when they change) and spreads them over its tasks; each task queries its tables in turn, every
``poll.interval.ms``, and returns their rows as records with Confluent's source partitions and offsets.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any

import psycopg2
import psycopg2.extensions

from conveyor import __version__
from conveyor.api import (
    ConfigDef,
    ConfigValue,
    ConnectError,
    ExactlyOnceSupport,
    RetriableError,
    SourceConnector,
    SourceTask,
    Task,
)
from conveyor.connectors.postgres.connection import (
    PostgresConnectionError,
    connect,
    first_line,
)
from conveyor.connectors.postgres.jdbc_offsets import (
    QUERY_PARTITION,
    JdbcOffset,
    check_offset,
    check_partition,
    partitions_to_read,
    table_partition,
)
from conveyor.connectors.postgres.jdbc_querier import (
    OffsetColumnError,
    OffsetColumns,
    QuerySpec,
    TableQuerier,
    offset_columns,
    table_columns,
)
from conveyor.connectors.postgres.jdbc_source_config import (
    CONNECTION_URL_CONFIG,
    JDBC_SOURCE_CONFIG,
    MODE_CONFIG,
    QUERY_CONFIG,
    TABLE_BLACKLIST_CONFIG,
    TABLE_INCLUDE_LIST_CONFIG,
    TABLE_TYPES_CONFIG,
    TABLE_WHITELIST_CONFIG,
    TABLES_CONFIG,
    TIMESTAMP_INITIAL_CURRENT,
    JdbcSourceSettings,
    Mode,
    offline_errors,
)
from conveyor.connectors.postgres.jdbc_tables import (
    TableId,
    duplicate_names,
    filter_tables,
    format_tables,
    group_tables,
    list_tables,
    parse_tables,
    unknown_table_types,
    unmatched_entries,
)
from conveyor.connectors.postgres.jdbc_types import TEXT_OIDS
from conveyor.connectors.postgres.types import PgType, load_types, read_as_text
from conveyor.connectors.staged_validation import validate_in_stages
from conveyor.data import SourceRecord
from conveyor.errors import ConfigError

logger = logging.getLogger(__name__)

APPLICATION_NAME = "conveyor-jdbc-source"


def open_connection(
    settings: JdbcSourceSettings, stopping: threading.Event | None = None
) -> psycopg2.extensions.connection:
    """A connection for reading, after up to ``connection.attempts`` tries ``connection.backoff.ms``
    apart; a login refused is not tried again (another try would be refused the same way)."""
    attempt = 1
    while True:
        try:
            connection = connect(settings.address, application_name=APPLICATION_NAME)
            break
        except PostgresConnectionError as error:
            refused = "authentication failed" in str(error) or "does not exist" in str(error)
            if refused or attempt >= settings.connection_attempts:
                raise
            logger.warning("%s; trying again (%d of %d)", error, attempt + 1, settings.connection_attempts)
            attempt += 1
            waiter = stopping or threading.Event()
            if waiter.wait(settings.connection_backoff_ms / 1000):
                raise
    if settings.isolation_level is not None:
        connection.set_session(isolation_level=settings.isolation_level)
    with connection.cursor() as cursor:
        cursor.execute("SET TIME ZONE %s", (settings.db_timezone,))
    connection.commit()
    read_as_text(connection, TEXT_OIDS)
    return connection


_CONFIG_ERROR = "Couldn't start JdbcSourceConnector due to configuration error"


def _parse(props: Mapping[str, str]) -> JdbcSourceSettings:
    try:
        settings = JdbcSourceSettings.parse(props)
    except ConfigError as error:
        raise ConnectError(f"{_CONFIG_ERROR}: {error}") from error
    errors = offline_errors(settings)
    if errors:
        key, messages = next(iter(errors.items()))
        raise ConnectError(f"{_CONFIG_ERROR}: {key}: {messages[0]}")
    return settings


def tables_to_copy(connection: psycopg2.extensions.connection, settings: JdbcSourceSettings) -> list[TableId]:
    """The tables the settings choose, refusing two that share a name (they would share a topic)."""
    tables = filter_tables(list_tables(connection, settings), settings)
    duplicates = duplicate_names(tables)
    if duplicates:
        listed = "; ".join(", ".join(t.unquoted for t in same) for same in duplicates.values())
        raise ConnectError(
            "The connector uses the unqualified table name as the topic name and has detected duplicate "
            "unqualified table names, whose records would mix in one topic. Choose exactly one table of "
            f"each name with table.include.list or table.whitelist: {listed}"
        )
    return tables


class JdbcSourceConnector(SourceConnector):
    """Copies PostgreSQL tables, or the result of one query, into topics by polling (Confluent's keys)."""

    def __init__(self) -> None:
        self._props: dict[str, str] = {}
        self._settings: JdbcSourceSettings | None = None
        self._tables: list[TableId] = []
        self._stopping = threading.Event()
        self._monitor: threading.Thread | None = None
        self._lock = threading.Lock()

    def version(self) -> str:
        return __version__

    def config(self) -> ConfigDef:
        return JDBC_SOURCE_CONFIG

    def task_class(self) -> type[Task]:
        return JdbcSourceTask

    def start(self, props: Mapping[str, str]) -> None:
        settings = _parse(props)
        self._props = dict(props)
        self._settings = settings
        if settings.query_mode:
            return
        connection = open_connection(settings)
        try:
            self._tables = tables_to_copy(connection, settings)
        finally:
            connection.close()
        logger.info("JDBC source copies %d table(s): %s", len(self._tables), format_tables(self._tables))
        self._stopping.clear()
        self._monitor = threading.Thread(target=self._watch_tables, name="jdbc-table-monitor", daemon=True)
        self._monitor.start()

    def _watch_tables(self) -> None:
        """Look for added or dropped tables every ``table.poll.interval.ms``; reconfigure on a change."""
        settings = self._settings
        assert settings is not None
        while not self._stopping.wait(settings.table_poll_interval_ms / 1000):
            try:
                connection = open_connection(settings, self._stopping)
                try:
                    tables = tables_to_copy(connection, settings)
                finally:
                    connection.close()
            except ConnectError as error:
                logger.warning("Could not list the tables to copy, trying again later: %s", error)
                continue
            with self._lock:
                changed = tables != self._tables
                self._tables = tables
            if changed:
                logger.info("The tables to copy changed to %s: reconfiguring tasks", format_tables(tables))
                self.context.request_task_reconfiguration()

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        """The query to one task; the tables in contiguous groups, one per task, as Confluent's connector
        spreads them; no table gives one task with none, which fails saying so."""
        settings = self._settings
        assert settings is not None
        if settings.query_mode:
            return [{**self._props, TABLES_CONFIG: ""}]
        with self._lock:
            tables = list(self._tables)
        if not tables:
            return [{**self._props, TABLES_CONFIG: ""}]
        groups = group_tables(tables, min(len(tables), max_tasks))
        return [{**self._props, TABLES_CONFIG: format_tables(group)} for group in groups]

    def stop(self) -> None:
        self._stopping.set()
        if self._monitor is not None:
            self._monitor.join(10)
            self._monitor = None

    def exactly_once_support(self, connector_config: Mapping[str, str]) -> ExactlyOnceSupport:
        """Supported in the incremental modes (each row's offset is written with it); bulk re-reads whole
        tables and keeps no offset."""
        mode = connector_config.get(MODE_CONFIG, "").strip()
        return (
            ExactlyOnceSupport.UNSUPPORTED if mode in ("", Mode.BULK.value) else ExactlyOnceSupport.SUPPORTED
        )

    def alter_offsets(
        self,
        connector_config: Mapping[str, str],
        offsets: Sequence[tuple[Mapping[str, Any], Mapping[str, Any] | None]],
    ) -> bool:
        """Accept partitions and offsets in Confluent's shape; the tasks read them at their next start."""
        for partition, offset in offsets:
            check_partition(partition)
            check_offset(offset)
        return True

    def validate(self, connector_configs: Mapping[str, str]) -> list[ConfigValue]:
        """Confluent's checks: each key, the keys together, and, where the database answers, the tables,
        columns and query the config names (a database that cannot be reached is the running
        connector's failure to report, not a reason to refuse the config)."""
        return validate_in_stages(JDBC_SOURCE_CONFIG, connector_configs, _settings_errors)


def _settings_errors(connector_configs: Mapping[str, str]) -> dict[str, list[str]]:
    """The errors of keys valid on their own: of the keys together, then, unless those fail, of the
    tables, columns and query in the database."""
    try:
        settings = JdbcSourceSettings.parse(connector_configs)
    except ConfigError as error:
        return {error.name or CONNECTION_URL_CONFIG: [str(error)]}
    errors = offline_errors(settings)
    unknown = unknown_table_types(settings.table_types)
    if unknown:
        errors.setdefault(TABLE_TYPES_CONFIG, []).append(
            f"Unknown table type(s) {', '.join(unknown)}: use TABLE, PARTITIONED TABLE, VIEW, "
            "MATERIALIZED VIEW or FOREIGN TABLE"
        )
    if not errors and not _has_placeholders(connector_configs):
        errors = _database_errors(settings)
    return errors


def _has_placeholders(config: Mapping[str, str]) -> bool:
    """Whether the connection keys still hold config provider references, resolved only at start."""
    keys = ("connection.url", "connection.user", "connection.password")
    return any("${" in config.get(key, "") for key in keys)


def _database_errors(settings: JdbcSourceSettings) -> dict[str, list[str]]:
    try:
        connection = connect(settings.address, application_name=APPLICATION_NAME)
    except PostgresConnectionError as error:
        logger.info("Validation could not reach the database, checking the config alone: %s", error)
        return {}
    try:
        if settings.query_mode:
            return _query_errors(connection, settings)
        return _table_errors(connection, settings)
    except psycopg2.Error as error:
        logger.info("Validation could not finish its database checks: %s", first_line(error))
        return {}
    finally:
        connection.close()


def _table_errors(
    connection: psycopg2.extensions.connection, settings: JdbcSourceSettings
) -> dict[str, list[str]]:
    errors: dict[str, list[str]] = {}
    listed = list_tables(connection, settings)
    for key, entries in unmatched_entries(listed, settings).items():
        kinds = ", ".join(settings.table_types)
        errors.setdefault(key, []).append(
            f"{', '.join(entries)} match(es) no table ({kinds}) that user {settings.address.user} "
            "can read in "
            f"database {settings.address.dbname}: check the name (patterns match schema.table in full, "
            "e.g. public.orders) or create the table first"
        )
    tables = filter_tables(listed, settings)
    duplicates = duplicate_names(tables)
    if duplicates:
        key = TABLE_INCLUDE_LIST_CONFIG if settings.include_list else TABLE_WHITELIST_CONFIG
        if settings.blacklist:
            key = TABLE_BLACKLIST_CONFIG
        listed_names = "; ".join(", ".join(t.unquoted for t in same) for same in duplicates.values())
        errors.setdefault(key, []).append(
            f"Tables of the same name would share a topic: choose one of each ({listed_names})"
        )
    if settings.mode is not None and settings.mode is not Mode.BULK:
        for table in tables:
            try:
                offset_columns(table, table_columns(connection, table), settings)
            except OffsetColumnError as error:
                errors.setdefault(error.key, []).append(str(error))
    return errors


def _query_errors(
    connection: psycopg2.extensions.connection, settings: JdbcSourceSettings
) -> dict[str, list[str]]:
    try:
        with connection.cursor() as cursor:
            escaped = settings.query.replace("%", "%%")
            cursor.execute("SELECT * FROM (" + escaped + ") AS conveyor_query LIMIT 0", ())
            names = [column.name for column in cursor.description]
    except psycopg2.Error as error:
        return {
            QUERY_CONFIG: [
                f"The configured query is not valid and has database/connection errors: {first_line(error)} "
                f"(SQLState: {error.pgcode}). Check its syntax and the tables and columns it names"
            ]
        }
    errors: dict[str, list[str]] = {}
    wanted = {}
    mode = settings.effective_mode
    if mode.uses_incrementing:
        wanted["incrementing.column.name"] = [settings.incrementing_column]
    if mode.uses_timestamp:
        wanted["timestamp.column.name"] = list(settings.timestamp_columns)
    lowered = {name.lower() for name in names}
    for key, columns in wanted.items():
        missing = [column for column in columns if column not in names and column.lower() not in lowered]
        if missing:
            errors[key] = [f"{', '.join(missing)} not among the query's columns ({', '.join(names)})"]
    return errors


class JdbcSourceTask(SourceTask):
    """Queries its tables (or the query) in turn and returns their rows, ``batch.max.rows`` at a time."""

    idle_wait_seconds = 1.0

    def __init__(self) -> None:
        self._settings: JdbcSourceSettings | None = None
        self._queriers: list[TableQuerier] = []
        self._connection: psycopg2.extensions.connection | None = None
        self._catalog: dict[int, PgType] = {}
        self._stopping = threading.Event()
        self._lock = threading.Lock()

    def version(self) -> str:
        return __version__

    def start(self, props: Mapping[str, str]) -> None:
        settings = _parse(props)
        self._settings = settings
        self._stopping.clear()
        tables = parse_tables(props.get(TABLES_CONFIG, ""))
        if not tables and not settings.query_mode:
            raise ConnectError(
                "Task is being killed because it was not assigned a table nor a query to execute: no table "
                "matches the connector's table filters. Check that the tables exist, that the user may "
                "SELECT from them, and the filters (table.include.list patterns match schema.table in full)"
            )
        self._connection = open_connection(settings, self._stopping)
        with self._connection.cursor() as cursor:
            self._catalog = load_types(cursor)
        self._connection.commit()
        specs = [self._query_spec(settings)] if settings.query_mode else [self._table_spec(t) for t in tables]
        self._queriers = [TableQuerier(spec, settings, self._initial_offset(spec)) for spec in specs]
        self._connection.commit()

    def _table_spec(self, table: TableId) -> QuerySpec:
        settings = self._settings
        assert settings is not None and self._connection is not None
        columns = OffsetColumns(None, ())
        if settings.effective_mode is not Mode.BULK:
            found = table_columns(self._connection, table)
            if not found:
                raise ConnectError(f"Table {table.unquoted} does not exist (any more) or cannot be read")
            try:
                columns = offset_columns(table, found, settings)
            except OffsetColumnError as error:
                raise ConnectError(f"{error.key}: {error}") from error
        return QuerySpec(
            mode=settings.effective_mode,
            topic=settings.topic_prefix + table.table,
            partition=table_partition(table),
            columns=columns,
            table=table,
            suffix=settings.query_suffix,
        )

    @staticmethod
    def _query_spec(settings: JdbcSourceSettings) -> QuerySpec:
        mode = settings.effective_mode
        return QuerySpec(
            mode=mode,
            topic=settings.topic_prefix,
            partition=dict(QUERY_PARTITION),
            columns=OffsetColumns(
                settings.incrementing_column if mode.uses_incrementing else None,
                settings.timestamp_columns if mode.uses_timestamp else (),
            ),
            query=settings.query,
            suffix=settings.query_suffix,
        )

    def _initial_offset(self, spec: QuerySpec) -> JdbcOffset:
        """The committed offset (under any partition Confluent may have used), else ``timestamp.initial``."""
        settings = self._settings
        assert settings is not None and self._connection is not None
        if spec.mode is Mode.BULK:
            return JdbcOffset()
        if spec.table is None:
            candidates = [dict(QUERY_PARTITION)]
        else:
            candidates = partitions_to_read(spec.table, settings.address.dbname)
        reader = self.context.offset_storage_reader()
        for _partition, offset in reader.offsets(candidates):
            if offset is not None:
                logger.info("Resuming %s from offset %s", spec.describe, dict(offset))
                return JdbcOffset.from_map(offset)
        initial = settings.timestamp_initial_ms
        if initial is None or not spec.mode.uses_timestamp:
            return JdbcOffset()
        if initial == TIMESTAMP_INITIAL_CURRENT:
            with self._connection.cursor() as cursor:
                cursor.execute("SELECT (extract(epoch FROM now()) * 1000)::int8")
                (initial,) = cursor.fetchone()
        return JdbcOffset.at_millis(initial)

    def poll(self) -> list[SourceRecord] | None:
        settings = self._settings
        assert settings is not None
        with self._lock:
            if self._stopping.is_set():
                return None
            wait_s = self._poll_due(settings)
            if isinstance(wait_s, list):
                return wait_s
        self._stopping.wait(wait_s)
        return None

    def _poll_due(self, settings: JdbcSourceSettings) -> list[SourceRecord] | float:
        """Records from the querier whose turn it is, or how long to wait for the next turn."""
        interval_s = settings.poll_interval_ms / 1000
        for _ in range(len(self._queriers)):
            querier = min(self._queriers, key=lambda q: (not q.querying, q.last_update))
            if not querier.querying:
                wait_s = querier.last_update + interval_s - time.monotonic()
                if wait_s > 0:
                    return min(wait_s, self.idle_wait_seconds)
            records = self._fetch(querier, settings)
            if records:
                return records
        return 0.0

    def _fetch(self, querier: TableQuerier, settings: JdbcSourceSettings) -> list[SourceRecord]:
        try:
            connection = self._live_connection(settings)
            if not querier.querying:
                querier.start(connection, self._catalog)
            records, exhausted = querier.fetch(settings.batch_max_rows)
        except (psycopg2.OperationalError, psycopg2.InterfaceError) as error:
            # The rows returned so far are the runtime's: the next query starts after the last of them.
            querier.reset(time.monotonic(), reset_offset=False)
            self._drop_connection()
            raise RetriableError(
                f"Lost the connection to PostgreSQL while reading {querier.spec.describe}: "
                + first_line(error)
            ) from error
        except psycopg2.Error as error:
            querier.reset(time.monotonic(), reset_offset=True)
            raise ConnectError(
                f"Reading {querier.spec.describe} failed: {first_line(error)} (SQLState {error.pgcode})"
            ) from error
        if exhausted:
            querier.reset(time.monotonic(), reset_offset=False)
        return records

    def _live_connection(self, settings: JdbcSourceSettings) -> psycopg2.extensions.connection:
        if self._connection is None or self._connection.closed:
            self._connection = open_connection(settings, self._stopping)
        return self._connection

    def _drop_connection(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None and not connection.closed:
            with contextlib.suppress(psycopg2.Error):
                connection.close()

    def stop(self) -> None:
        self._stopping.set()
        if self._lock.acquire(timeout=5.0):
            try:
                for querier in self._queriers:
                    querier.reset(time.monotonic(), reset_offset=True)
                self._drop_connection()
            finally:
                self._lock.release()

"""The JDBC sink's settings: Confluent's keys and defaults, plus ``exactly.once``, parsed and cross-checked.

Every check that spans keys (deletes need ``pk.mode=record_key``, upserts need a key...) lives in
:func:`cross_check`, so that ``PUT /connector-plugins/.../config/validate``, connector creation (a 400 naming
the key) and a task starting all refuse the same configs with the same words.
"""

from __future__ import annotations

import enum
import zoneinfo
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from conveyor.api import ConfigDef, ConfigType, Importance, Password, Range, ValidString
from conveyor.connectors.postgres.connection import PostgresAddress, parse_jdbc_url
from conveyor.errors import ConfigError

CONNECTION_URL = "connection.url"
CONNECTION_USER = "connection.user"
CONNECTION_PASSWORD = "connection.password"
INSERT_MODE = "insert.mode"
PK_MODE = "pk.mode"
PK_FIELDS = "pk.fields"
DELETE_ENABLED = "delete.enabled"
AUTO_CREATE = "auto.create"
AUTO_EVOLVE = "auto.evolve"
TABLE_NAME_FORMAT = "table.name.format"
FIELDS_WHITELIST = "fields.whitelist"
BATCH_SIZE = "batch.size"
MAX_RETRIES = "max.retries"
RETRY_BACKOFF_MS = "retry.backoff.ms"
DB_TIMEZONE = "db.timezone"
EXACTLY_ONCE = "exactly.once"
OFFSETS_TABLE = "exactly.once.offsets.table"
ERRORS_TOLERANCE = "errors.tolerance"

DEFAULT_OFFSETS_TABLE = "conveyor_sink_offsets"
KAFKA_PK_DEFAULTS = ("__connect_topic", "__connect_partition", "__connect_offset")


class InsertMode(enum.StrEnum):
    INSERT = "insert"
    UPSERT = "upsert"
    UPDATE = "update"


class PkMode(enum.StrEnum):
    NONE = "none"
    KAFKA = "kafka"
    RECORD_KEY = "record_key"
    RECORD_VALUE = "record_value"


def _lower_choice(*choices: str) -> ValidString:
    return ValidString.in_(*choices)


CONFIG_DEF = (
    ConfigDef()
    .define(CONNECTION_URL, ConfigType.STRING, importance=Importance.HIGH,
        documentation="JDBC connection URL, e.g. jdbc:postgresql://host:5432/dbname.")
    .define(CONNECTION_USER, ConfigType.STRING, default=None, importance=Importance.HIGH,
        documentation="JDBC connection user.")
    .define(CONNECTION_PASSWORD, ConfigType.PASSWORD, default=None, importance=Importance.HIGH,
        documentation="JDBC connection password.")
    .define(INSERT_MODE, ConfigType.STRING, default=InsertMode.INSERT.value,
        validator=_lower_choice(*InsertMode), importance=Importance.HIGH,
        documentation="insert: COPY the rows; upsert: INSERT ... ON CONFLICT (key) DO UPDATE; "
        "update: UPDATE the rows with the record's key.")
    .define(BATCH_SIZE, ConfigType.INT, default=3000, validator=Range.at_least(0),
        importance=Importance.MEDIUM,
        documentation="How many records to send to the database in one statement, when possible.")
    .define(DELETE_ENABLED, ConfigType.BOOLEAN, default=False, importance=Importance.MEDIUM,
        documentation="Whether to treat null record values as deletes. Requires pk.mode to be record_key.")
    .define(TABLE_NAME_FORMAT, ConfigType.STRING, default="${topic}", importance=Importance.MEDIUM,
        documentation="A format string for the destination table name, which may contain '${topic}' as a "
        "placeholder for the originating topic name (its dots turned into underscores); a dot in the "
        "format names a schema, as in 'staging.${topic}'.")
    .define(PK_MODE, ConfigType.STRING, default=PkMode.NONE.value, validator=_lower_choice(*PkMode),
        importance=Importance.HIGH,
        documentation="The primary key mode: none, kafka (topic, partition, offset), record_key or "
        "record_value; see pk.fields.")
    .define(PK_FIELDS, ConfigType.LIST, default="", importance=Importance.MEDIUM,
        documentation="The primary key fields: for kafka three column names (default __connect_topic, "
        "__connect_partition, __connect_offset); for record_key the key's fields (all when empty) or the "
        "one column name of a primitive key; for record_value the value's fields (all when empty).")
    .define(FIELDS_WHITELIST, ConfigType.LIST, default="", importance=Importance.MEDIUM,
        documentation="The value fields to write (all when empty); key columns are added as pk.mode says.")
    .define(DB_TIMEZONE, ConfigType.STRING, default="UTC", importance=Importance.MEDIUM,
        documentation="The time zone of the database's TIMESTAMP (without time zone) columns; "
        "Connect timestamps are written as the wall time in this zone.")
    .define(AUTO_CREATE, ConfigType.BOOLEAN, default=False, importance=Importance.MEDIUM,
        documentation="Whether to create a missing destination table (CREATE TABLE) from the record schema.")
    .define(AUTO_EVOLVE, ConfigType.BOOLEAN, default=False, importance=Importance.MEDIUM,
        documentation="Whether to add columns (ALTER TABLE ADD COLUMN, nullable) for record fields the "
        "table lacks.")
    .define(MAX_RETRIES, ConfigType.INT, default=10, validator=Range.at_least(0),
        importance=Importance.MEDIUM,
        documentation="How many times to retry on a database error (a lost connection, a restarted "
        "server) before failing the task.")
    .define(RETRY_BACKOFF_MS, ConfigType.INT, default=3000, validator=Range.at_least(0),
        importance=Importance.MEDIUM,
        documentation="The time in milliseconds to wait following an error before a retry attempt.")
    .define(EXACTLY_ONCE, ConfigType.BOOLEAN, default=None, importance=Importance.HIGH,
        documentation="Write each batch's rows and the offsets they cover in one database transaction, "
        "fencing older task incarnations; defaults to true for insert.mode=insert (where a replay would "
        "duplicate rows) and false for upsert and update (whose writes are idempotent).")
    .define(OFFSETS_TABLE, ConfigType.STRING, default=DEFAULT_OFFSETS_TABLE, importance=Importance.LOW,
        documentation="The table, created by the connector, that holds the offsets and generations of "
        "exactly-once sinks (one row per connector, topic and partition).")
)  # fmt: skip


@dataclass(frozen=True)
class JdbcSinkSettings:
    """One connector's parsed, cross-checked settings."""

    address: PostgresAddress
    insert_mode: InsertMode
    pk_mode: PkMode
    pk_fields: tuple[str, ...]
    delete_enabled: bool
    auto_create: bool
    auto_evolve: bool
    table_name_format: str
    fields_whitelist: frozenset[str]
    batch_size: int
    max_retries: int
    retry_backoff_ms: int
    db_timezone: zoneinfo.ZoneInfo
    exactly_once: bool
    offsets_table: str
    tolerate_errors: bool

    @classmethod
    def parse(cls, props: Mapping[str, Any]) -> JdbcSinkSettings:
        """The settings of ``props``; raises :class:`ConfigError` naming the first bad key."""
        values = CONFIG_DEF.parse(props)
        problems = cross_check(props, values)
        if problems:
            key, message = problems[0]
            error = ConfigError(message)
            error.name = key
            raise error
        insert_mode = InsertMode(values[INSERT_MODE])
        password = values[CONNECTION_PASSWORD]
        address = parse_jdbc_url(values[CONNECTION_URL]).with_credentials(
            values[CONNECTION_USER], password.value if isinstance(password, Password) else password
        )
        exactly_once = values[EXACTLY_ONCE]
        return cls(
            address=address,
            insert_mode=insert_mode,
            pk_mode=PkMode(values[PK_MODE]),
            pk_fields=tuple(values[PK_FIELDS]),
            delete_enabled=values[DELETE_ENABLED],
            auto_create=values[AUTO_CREATE],
            auto_evolve=values[AUTO_EVOLVE],
            table_name_format=values[TABLE_NAME_FORMAT],
            fields_whitelist=frozenset(values[FIELDS_WHITELIST]),
            batch_size=values[BATCH_SIZE] or 3000,
            max_retries=values[MAX_RETRIES],
            retry_backoff_ms=values[RETRY_BACKOFF_MS],
            db_timezone=zoneinfo.ZoneInfo(values[DB_TIMEZONE]),
            exactly_once=insert_mode is InsertMode.INSERT if exactly_once is None else exactly_once,
            offsets_table=values[OFFSETS_TABLE],
            tolerate_errors=str(props.get(ERRORS_TOLERANCE, "none")).strip().lower() == "all",
        )

    def table_for(self, topic: str) -> str:
        """The destination table of ``topic``: dots in the topic's name become underscores (as Debezium's
        JDBC sink does), so that only a dot of ``table.name.format`` names a schema."""
        return self.table_name_format.replace("${topic}", topic.replace(".", "_"))


def cross_check(props: Mapping[str, Any], values: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Problems spanning keys, or of values the types cannot catch, as (key to blame, message)."""
    problems: list[tuple[str, str]] = []
    url = values.get(CONNECTION_URL)
    if url:
        try:
            parse_jdbc_url(url)
        except ConfigError as error:
            problems.append((CONNECTION_URL, str(error)))
    pk_mode, insert_mode = values.get(PK_MODE), values.get(INSERT_MODE)
    pk_fields = list(values.get(PK_FIELDS) or [])
    if values.get(DELETE_ENABLED) and pk_mode != PkMode.RECORD_KEY:
        problems.append(
            (DELETE_ENABLED, "Primary key mode must be 'record_key' when delete support is enabled")
        )
    if insert_mode in (InsertMode.UPSERT, InsertMode.UPDATE) and pk_mode == PkMode.NONE:
        problems.append(
            (
                PK_MODE,
                f"insert.mode={insert_mode} needs a primary key: set pk.mode to record_key, "
                "record_value or kafka",
            )
        )
    if pk_mode == PkMode.KAFKA and pk_fields and len(pk_fields) != 3:
        problems.append(
            (
                PK_FIELDS,
                "PK mode for table is kafka, but pk.fields does not name exactly three columns "
                f"(topic, partition and offset): {','.join(pk_fields)}",
            )
        )
    if pk_mode == PkMode.NONE and pk_fields:
        problems.append(
            (PK_FIELDS, "pk.fields is given but pk.mode is none: set pk.mode or remove pk.fields")
        )
    timezone = values.get(DB_TIMEZONE)
    if timezone:
        try:
            zoneinfo.ZoneInfo(timezone)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            problems.append(
                (
                    DB_TIMEZONE,
                    f"Invalid time zone identifier {timezone!r}: use an IANA name "
                    "such as UTC or Europe/Paris",
                )
            )
    if "${topic}" not in str(values.get(TABLE_NAME_FORMAT) or "") and not values.get(TABLE_NAME_FORMAT):
        problems.append((TABLE_NAME_FORMAT, "table.name.format must not be empty"))
    return problems

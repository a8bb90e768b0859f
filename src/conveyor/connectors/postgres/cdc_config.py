"""The settings of the change data capture source: Debezium's PostgreSQL connector keys and defaults."""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from conveyor.api import (
    CaseInsensitiveValidString,
    ConfigDef,
    ConfigType,
    Importance,
    LambdaValidator,
    NonEmptyString,
    Range,
)
from conveyor.connectors.postgres.connection import SSL_MODES, PostgresAddress
from conveyor.connectors.postgres.types import (
    DecimalHandlingMode,
    TimePrecisionMode,
    TypeOptions,
    parse_mode,
)
from conveyor.errors import ConfigError

HOSTNAME_CONFIG: Final = "database.hostname"
PORT_CONFIG: Final = "database.port"
USER_CONFIG: Final = "database.user"
PASSWORD_CONFIG: Final = "database.password"
DBNAME_CONFIG: Final = "database.dbname"
SSLMODE_CONFIG: Final = "database.sslmode"
TOPIC_PREFIX_CONFIG: Final = "topic.prefix"
PLUGIN_NAME_CONFIG: Final = "plugin.name"
SLOT_NAME_CONFIG: Final = "slot.name"
SLOT_DROP_ON_STOP_CONFIG: Final = "slot.drop.on.stop"
PUBLICATION_NAME_CONFIG: Final = "publication.name"
PUBLICATION_AUTOCREATE_CONFIG: Final = "publication.autocreate.mode"
SCHEMA_INCLUDE_CONFIG: Final = "schema.include.list"
SCHEMA_EXCLUDE_CONFIG: Final = "schema.exclude.list"
TABLE_INCLUDE_CONFIG: Final = "table.include.list"
TABLE_EXCLUDE_CONFIG: Final = "table.exclude.list"
COLUMN_INCLUDE_CONFIG: Final = "column.include.list"
COLUMN_EXCLUDE_CONFIG: Final = "column.exclude.list"
SNAPSHOT_MODE_CONFIG: Final = "snapshot.mode"
HEARTBEAT_INTERVAL_CONFIG: Final = "heartbeat.interval.ms"
HEARTBEAT_TOPICS_PREFIX_CONFIG: Final = "topic.heartbeat.prefix"
DECIMAL_HANDLING_CONFIG: Final = "decimal.handling.mode"
TIME_PRECISION_CONFIG: Final = "time.precision.mode"
MONEY_FRACTION_DIGITS_CONFIG: Final = "money.fraction.digits"
SKIPPED_OPERATIONS_CONFIG: Final = "skipped.operations"
TOMBSTONES_ON_DELETE_CONFIG: Final = "tombstones.on.delete"
MAX_BATCH_SIZE_CONFIG: Final = "max.batch.size"
POLL_INTERVAL_CONFIG: Final = "poll.interval.ms"
SNAPSHOT_FETCH_SIZE_CONFIG: Final = "snapshot.fetch.size"
SNAPSHOT_CHUNK_SIZE_CONFIG: Final = "snapshot.chunk.size"
TASK_INDEX_CONFIG: Final = "conveyor.task.index"
"""Set by the connector in each task config: which of the ``tasks.max`` tasks this is (0 streams)."""
TASK_COUNT_CONFIG: Final = "conveyor.task.count"
STATUS_UPDATE_INTERVAL_CONFIG: Final = "status.update.interval.ms"
SLOT_MAX_RETRIES_CONFIG: Final = "slot.max.retries"
SLOT_RETRY_DELAY_CONFIG: Final = "slot.retry.delay.ms"

_TOPIC_PREFIX: Final = re.compile(r"^[a-zA-Z0-9._-]+$")
_OPERATIONS: Final = ("c", "u", "d", "t", "none")


class PublicationAutocreateMode(enum.Enum):
    """Debezium's ``publication.autocreate.mode``."""

    ALL_TABLES = "all_tables"
    FILTERED = "filtered"
    DISABLED = "disabled"
    NO_TABLES = "no_tables"


class SnapshotMode(enum.Enum):
    """Debezium's ``snapshot.mode`` values that Conveyor runs."""

    INITIAL = "initial"
    INITIAL_ONLY = "initial_only"
    NO_DATA = "no_data"
    ALWAYS = "always"
    WHEN_NEEDED = "when_needed"


_SNAPSHOT_ALIASES: Final = {"never": SnapshotMode.NO_DATA}
"""Older Debezium names still accepted for a mode."""


def _check_plugin_name(name: str, value: Any) -> None:
    if str(value).strip().lower() == "decoderbufs":
        raise ConfigError(
            f"{name}=decoderbufs needs Debezium's server extension, which Conveyor does not use: set "
            f"{name}=pgoutput (built into PostgreSQL 10 and later; no extension to install)"
        )
    if str(value).strip().lower() != "pgoutput":
        raise ConfigError(f"Invalid value {value} for configuration {name}: set {name}=pgoutput")


def _check_topic_prefix(name: str, value: Any) -> None:
    if value is None or not _TOPIC_PREFIX.match(str(value)):
        raise ConfigError(
            f"Invalid value {value} for configuration {name}: the prefix of every topic name, "
            "made of ASCII letters, digits, '.', '_' and '-' (e.g. dbserver1)"
        )


def _check_regexes(name: str, value: Any) -> None:
    for pattern in split_list(value):
        try:
            re.compile(pattern)
        except re.error as error:
            raise ConfigError(
                f"Invalid value {pattern} for configuration {name}: not a regular expression ({error})"
            ) from None


def _check_operations(name: str, value: Any) -> None:
    for operation in split_list(value):
        if operation not in _OPERATIONS:
            raise ConfigError(
                f"Invalid value {operation} for configuration {name}: list operations among "
                "c (create), u (update), d (delete), t (truncate), or none"
            )


_VALID_PLUGIN_NAME: Final = LambdaValidator(_check_plugin_name, "[pgoutput]")
_VALID_TOPIC_PREFIX: Final = LambdaValidator(_check_topic_prefix, "a topic name prefix: [a-zA-Z0-9._-]+")
_VALID_REGEXES: Final = LambdaValidator(_check_regexes, "comma-separated regular expressions")
_VALID_OPERATIONS: Final = LambdaValidator(_check_operations, "[c, u, d, t, none]")


def snapshot_mode(value: str) -> SnapshotMode:
    """The mode named ``value`` (or one of its older Debezium names)."""
    normalized = value.strip().lower()
    alias = _SNAPSHOT_ALIASES.get(normalized)
    if alias is not None:
        return alias
    parsed: SnapshotMode = parse_mode(SNAPSHOT_MODE_CONFIG, normalized, SnapshotMode)
    return parsed


def _check_snapshot_mode(name: str, value: Any) -> None:
    snapshot_mode(str(value))


_VALID_SNAPSHOT_MODE: Final = LambdaValidator(
    _check_snapshot_mode, "[" + ", ".join(mode.value for mode in SnapshotMode) + "]"
)


def split_list(value: Any) -> list[str]:
    """The items of a comma-separated list setting, stripped, without empty ones."""
    if value is None:
        return []
    items = value if isinstance(value, list) else str(value).split(",")
    return [str(item).strip() for item in items if str(item).strip()]


CONFIG_DEF: Final = (
    ConfigDef()
    .define(HOSTNAME_CONFIG, ConfigType.STRING, validator=NonEmptyString(), importance=Importance.HIGH,
        documentation="Resolvable hostname or IP address of the PostgreSQL server.")
    .define(PORT_CONFIG, ConfigType.INT, default=5432, validator=Range.between(1, 65535),
        importance=Importance.HIGH, documentation="Port of the PostgreSQL server.")
    .define(USER_CONFIG, ConfigType.STRING, validator=NonEmptyString(), importance=Importance.HIGH,
        documentation="The PostgreSQL user: it needs the REPLICATION attribute and SELECT on the tables.")
    .define(PASSWORD_CONFIG, ConfigType.PASSWORD, default=None, importance=Importance.HIGH,
        documentation="Password of the user; a config provider reference such as ${file:...} works.")
    .define(DBNAME_CONFIG, ConfigType.STRING, validator=NonEmptyString(), importance=Importance.HIGH,
        documentation="The database to stream changes from.")
    .define(SSLMODE_CONFIG, ConfigType.STRING, default="prefer",
        validator=CaseInsensitiveValidString.in_(*SSL_MODES), importance=Importance.MEDIUM,
        documentation="libpq's sslmode for the connections to PostgreSQL.")
    .define(TOPIC_PREFIX_CONFIG, ConfigType.STRING, validator=_VALID_TOPIC_PREFIX, importance=Importance.HIGH,
        documentation="Names the server: the prefix of every topic (<prefix>.<schema>.<table>) and the "
        'source partition of the offsets ({"server": <prefix>}).')
    .define(PLUGIN_NAME_CONFIG, ConfigType.STRING, default="pgoutput", validator=_VALID_PLUGIN_NAME,
        importance=Importance.MEDIUM,
        documentation="The logical decoding plugin; only pgoutput, built into PostgreSQL 10 and later.")
    .define(SLOT_NAME_CONFIG, ConfigType.STRING, default="debezium", validator=NonEmptyString(),
        importance=Importance.MEDIUM,
        documentation="The logical replication slot the connector streams from (created when missing).")
    .define(SLOT_MAX_RETRIES_CONFIG, ConfigType.INT, default=6, validator=Range.at_least(0),
        importance=Importance.LOW,
        documentation="How often to try again to take a slot another connection holds (a previous "
        "incarnation of the task may still be exiting) before the task fails.")
    .define(SLOT_RETRY_DELAY_CONFIG, ConfigType.LONG, default=10000, validator=Range.at_least(0),
        importance=Importance.LOW, documentation="Milliseconds between two tries to take the slot.")
    .define(SLOT_DROP_ON_STOP_CONFIG, ConfigType.BOOLEAN, default=False, importance=Importance.LOW,
        documentation="Drop the slot when the task stops gracefully (PostgreSQL then keeps no WAL for "
        "it; the next start snapshots or loses the changes made meanwhile). For tests and demos.")
    .define(PUBLICATION_NAME_CONFIG, ConfigType.STRING, default="dbz_publication", validator=NonEmptyString(),
        importance=Importance.MEDIUM,
        documentation="The publication that selects the tables whose changes are streamed.")
    .define(PUBLICATION_AUTOCREATE_CONFIG, ConfigType.STRING,
        default=PublicationAutocreateMode.ALL_TABLES.value,
        validator=CaseInsensitiveValidString.in_(*(mode.value for mode in PublicationAutocreateMode)),
        importance=Importance.LOW,
        documentation="all_tables: create the publication FOR ALL TABLES when missing; filtered: create "
        "or update it for the captured tables; no_tables: create it without tables; disabled: never "
        "create it (it must exist).")
    .define(SCHEMA_INCLUDE_CONFIG, ConfigType.STRING, default="", validator=_VALID_REGEXES,
        importance=Importance.MEDIUM,
        documentation="Regular expressions of the schemas to capture (all but system schemas by default).")
    .define(SCHEMA_EXCLUDE_CONFIG, ConfigType.STRING, default="", validator=_VALID_REGEXES,
        importance=Importance.MEDIUM, documentation="Regular expressions of schemas not to capture.")
    .define(TABLE_INCLUDE_CONFIG, ConfigType.STRING, default="", validator=_VALID_REGEXES,
        importance=Importance.HIGH,
        documentation="Regular expressions matched against <schema>.<table> of the tables to capture.")
    .define(TABLE_EXCLUDE_CONFIG, ConfigType.STRING, default="", validator=_VALID_REGEXES,
        importance=Importance.MEDIUM,
        documentation="Regular expressions matched against <schema>.<table> of tables not to capture.")
    .define(COLUMN_INCLUDE_CONFIG, ConfigType.STRING, default="", validator=_VALID_REGEXES,
        importance=Importance.MEDIUM,
        documentation="Regular expressions matched against <schema>.<table>.<column> of the columns to keep.")
    .define(COLUMN_EXCLUDE_CONFIG, ConfigType.STRING, default="", validator=_VALID_REGEXES,
        importance=Importance.MEDIUM,
        documentation="Regular expressions matched against <schema>.<table>.<column> of columns to omit.")
    .define(SNAPSHOT_MODE_CONFIG, ConfigType.STRING, default=SnapshotMode.INITIAL.value,
        validator=_VALID_SNAPSHOT_MODE, importance=Importance.MEDIUM,
        documentation="initial: snapshot the tables when there are no offsets, then stream; initial_only: "
        "snapshot, then stop streaming; no_data: stream only; always: snapshot at every start; "
        "when_needed: snapshot when there are no offsets or the slot cannot resume from them.")
    .define(HEARTBEAT_INTERVAL_CONFIG, ConfigType.INT, default=0, validator=Range.at_least(0),
        importance=Importance.MEDIUM,
        documentation="Every this many milliseconds without a change, send a heartbeat record that "
        "carries the position reached, so the slot's WAL is released; 0 disables heartbeats.")
    .define(HEARTBEAT_TOPICS_PREFIX_CONFIG, ConfigType.STRING, default="__debezium-heartbeat",
        importance=Importance.LOW, documentation="Heartbeats go to the topic <this prefix>.<topic.prefix>.")
    .define(DECIMAL_HANDLING_CONFIG, ConfigType.STRING, default=DecimalHandlingMode.PRECISE.value,
        validator=CaseInsensitiveValidString.in_(*(mode.value for mode in DecimalHandlingMode)),
        importance=Importance.MEDIUM,
        documentation="precise: numeric as Connect Decimal (VariableScaleDecimal without a scale); "
        "double: as float64; string: as its plain string.")
    .define(TIME_PRECISION_CONFIG, ConfigType.STRING, default=TimePrecisionMode.ADAPTIVE.value,
        validator=CaseInsensitiveValidString.in_(*(mode.value for mode in TimePrecisionMode)),
        importance=Importance.MEDIUM,
        documentation="adaptive: Debezium's time types by column precision; adaptive_time_microseconds: "
        "the same, times always in microseconds; connect: Connect's Date, Time and Timestamp (millis).")
    .define(MONEY_FRACTION_DIGITS_CONFIG, ConfigType.INT, default=2, validator=Range.at_least(0),
        importance=Importance.LOW, documentation="The scale of money values written as decimals.")
    .define(SKIPPED_OPERATIONS_CONFIG, ConfigType.STRING, default="t", validator=_VALID_OPERATIONS,
        importance=Importance.LOW, documentation="Operations not to emit: c, u, d, t (truncate), or none.")
    .define(TOMBSTONES_ON_DELETE_CONFIG, ConfigType.BOOLEAN, default=True, importance=Importance.MEDIUM,
        documentation="Follow each delete event with a tombstone (the key, a null value) for compaction.")
    .define(MAX_BATCH_SIZE_CONFIG, ConfigType.INT, default=2048, validator=Range.at_least(1),
        importance=Importance.MEDIUM, documentation="The most records one poll returns.")
    .define(POLL_INTERVAL_CONFIG, ConfigType.LONG, default=500, validator=Range.at_least(1),
        importance=Importance.LOW,
        documentation="How long a poll waits for changes before returning what it has.")
    .define(SNAPSHOT_FETCH_SIZE_CONFIG, ConfigType.INT, default=10240, validator=Range.at_least(1),
        importance=Importance.LOW, documentation="Rows the snapshot fetches from the server at a time.")
    .define(SNAPSHOT_CHUNK_SIZE_CONFIG, ConfigType.INT, default=20000, validator=Range.at_least(1),
        importance=Importance.MEDIUM,
        documentation="Rows per chunk of the initial snapshot: each table is split into primary-key "
        "ranges of about this many rows, read by the connector's tasks (tasks.max) side by side.")
    .define(STATUS_UPDATE_INTERVAL_CONFIG, ConfigType.INT, default=10000, validator=Range.at_least(0),
        importance=Importance.LOW,
        documentation="Milliseconds between two status updates sent to the server on the replication "
        "connection (they keep it alive and report the position Conveyor has durably written).")
)  # fmt: skip


@dataclass(frozen=True)
class CdcSettings:
    """The parsed settings of the connector and its task."""

    address: PostgresAddress
    topic_prefix: str
    slot_name: str
    slot_drop_on_stop: bool
    publication_name: str
    publication_autocreate: PublicationAutocreateMode
    filters: CaptureFilters
    snapshot_mode: SnapshotMode
    heartbeat_interval_ms: int
    heartbeat_topic: str
    type_options: TypeOptions
    skipped_operations: frozenset[str]
    tombstones_on_delete: bool
    max_batch_size: int
    poll_interval_ms: int
    snapshot_fetch_size: int
    snapshot_chunk_size: int
    status_update_interval_ms: int
    slot_max_retries: int
    slot_retry_delay_ms: int

    @classmethod
    def from_props(cls, props: Mapping[str, str]) -> CdcSettings:
        config = CONFIG_DEF.parse(props)
        password = config[PASSWORD_CONFIG]
        address = PostgresAddress(
            host=config[HOSTNAME_CONFIG],
            port=config[PORT_CONFIG],
            dbname=config[DBNAME_CONFIG],
            user=config[USER_CONFIG],
            password=password.value if password is not None else None,
            sslmode=config[SSLMODE_CONFIG].lower(),
        )
        return cls(
            address=address,
            topic_prefix=config[TOPIC_PREFIX_CONFIG],
            slot_name=config[SLOT_NAME_CONFIG],
            slot_drop_on_stop=config[SLOT_DROP_ON_STOP_CONFIG],
            publication_name=config[PUBLICATION_NAME_CONFIG],
            publication_autocreate=PublicationAutocreateMode(config[PUBLICATION_AUTOCREATE_CONFIG].lower()),
            filters=CaptureFilters.from_config(config),
            snapshot_mode=snapshot_mode(config[SNAPSHOT_MODE_CONFIG]),
            heartbeat_interval_ms=config[HEARTBEAT_INTERVAL_CONFIG],
            heartbeat_topic=f"{config[HEARTBEAT_TOPICS_PREFIX_CONFIG]}.{config[TOPIC_PREFIX_CONFIG]}",
            type_options=TypeOptions(
                decimal_handling_mode=DecimalHandlingMode(config[DECIMAL_HANDLING_CONFIG].lower()),
                time_precision_mode=TimePrecisionMode(config[TIME_PRECISION_CONFIG].lower()),
                money_fraction_digits=config[MONEY_FRACTION_DIGITS_CONFIG],
            ),
            skipped_operations=frozenset(split_list(config[SKIPPED_OPERATIONS_CONFIG])) - {"none"},
            tombstones_on_delete=config[TOMBSTONES_ON_DELETE_CONFIG],
            max_batch_size=config[MAX_BATCH_SIZE_CONFIG],
            poll_interval_ms=config[POLL_INTERVAL_CONFIG],
            snapshot_fetch_size=config[SNAPSHOT_FETCH_SIZE_CONFIG],
            snapshot_chunk_size=config[SNAPSHOT_CHUNK_SIZE_CONFIG],
            status_update_interval_ms=config[STATUS_UPDATE_INTERVAL_CONFIG],
            slot_max_retries=config[SLOT_MAX_RETRIES_CONFIG],
            slot_retry_delay_ms=config[SLOT_RETRY_DELAY_CONFIG],
        )

    @property
    def source_partition(self) -> dict[str, str]:
        """Debezium's source partition: one per server."""
        return {"server": self.topic_prefix}


SYSTEM_SCHEMAS: Final = frozenset({"pg_catalog", "information_schema", "pg_toast"})


@dataclass(frozen=True)
class CaptureFilters:
    """Which schemas, tables and columns are captured: Debezium's include/exclude lists, each a list of
    regular expressions matched against the whole identifier."""

    schema_include: tuple[re.Pattern[str], ...] = ()
    schema_exclude: tuple[re.Pattern[str], ...] = ()
    table_include: tuple[re.Pattern[str], ...] = ()
    table_exclude: tuple[re.Pattern[str], ...] = ()
    column_include: tuple[re.Pattern[str], ...] = ()
    column_exclude: tuple[re.Pattern[str], ...] = ()

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> CaptureFilters:
        def patterns(key: str) -> tuple[re.Pattern[str], ...]:
            return tuple(re.compile(pattern, re.IGNORECASE) for pattern in split_list(config.get(key)))

        return cls(
            patterns(SCHEMA_INCLUDE_CONFIG),
            patterns(SCHEMA_EXCLUDE_CONFIG),
            patterns(TABLE_INCLUDE_CONFIG),
            patterns(TABLE_EXCLUDE_CONFIG),
            patterns(COLUMN_INCLUDE_CONFIG),
            patterns(COLUMN_EXCLUDE_CONFIG),
        )

    def captures_table(self, schema: str, table: str) -> bool:
        if schema in SYSTEM_SCHEMAS:
            return False
        if not _selected(schema, self.schema_include, self.schema_exclude):
            return False
        return _selected(f"{schema}.{table}", self.table_include, self.table_exclude)

    def include_rank(self, schema: str, table: str) -> int:
        """The index of the first ``table.include.list`` entry the table matches (0 without a list)."""
        name = f"{schema}.{table}"
        return next((n for n, pattern in enumerate(self.table_include) if pattern.fullmatch(name)), 0)

    def captures_column(self, schema: str, table: str, column: str) -> bool:
        return _selected(f"{schema}.{table}.{column}", self.column_include, self.column_exclude)


def _selected(name: str, include: tuple[re.Pattern[str], ...], exclude: tuple[re.Pattern[str], ...]) -> bool:
    if include:
        return any(pattern.fullmatch(name) for pattern in include)
    return not any(pattern.fullmatch(name) for pattern in exclude)

"""The settings of the polling JDBC source, with the names and defaults of Confluent's JDBC source connector.

``JDBC_SOURCE_CONFIG`` defines the keys; :class:`JdbcSourceSettings` is their typed view, shared by the
connector (which checks them and lists the tables) and its tasks (which query them).
"""

from __future__ import annotations

import enum
import re
import zoneinfo
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from conveyor.api import (
    ConfigDef,
    ConfigType,
    Importance,
    LambdaValidator,
    Password,
    Range,
    ValidString,
)
from conveyor.connectors.postgres.connection import PostgresAddress, parse_jdbc_url
from conveyor.errors import ConfigError

CONNECTION_URL_CONFIG: Final = "connection.url"
CONNECTION_USER_CONFIG: Final = "connection.user"
CONNECTION_PASSWORD_CONFIG: Final = "connection.password"
CONNECTION_ATTEMPTS_CONFIG: Final = "connection.attempts"
CONNECTION_BACKOFF_CONFIG: Final = "connection.backoff.ms"
TABLE_WHITELIST_CONFIG: Final = "table.whitelist"
TABLE_BLACKLIST_CONFIG: Final = "table.blacklist"
TABLE_INCLUDE_LIST_CONFIG: Final = "table.include.list"
TABLE_EXCLUDE_LIST_CONFIG: Final = "table.exclude.list"
CATALOG_PATTERN_CONFIG: Final = "catalog.pattern"
SCHEMA_PATTERN_CONFIG: Final = "schema.pattern"
TABLE_TYPES_CONFIG: Final = "table.types"
NUMERIC_PRECISION_MAPPING_CONFIG: Final = "numeric.precision.mapping"
NUMERIC_MAPPING_CONFIG: Final = "numeric.mapping"
DIALECT_NAME_CONFIG: Final = "dialect.name"
MODE_CONFIG: Final = "mode"
INCREMENTING_COLUMN_NAME_CONFIG: Final = "incrementing.column.name"
TIMESTAMP_COLUMN_NAME_CONFIG: Final = "timestamp.column.name"
INCREMENTING_COLUMN_MAPPING_CONFIG: Final = "incrementing.column.mapping"
TIMESTAMP_COLUMN_MAPPING_CONFIG: Final = "timestamp.columns.mapping"
TIMESTAMP_INITIAL_CONFIG: Final = "timestamp.initial"
TIMESTAMP_DELAY_INTERVAL_MS_CONFIG: Final = "timestamp.delay.interval.ms"
VALIDATE_NON_NULL_CONFIG: Final = "validate.non.null"
QUERY_CONFIG: Final = "query"
QUERY_SUFFIX_CONFIG: Final = "query.suffix"
TOPIC_PREFIX_CONFIG: Final = "topic.prefix"
POLL_INTERVAL_MS_CONFIG: Final = "poll.interval.ms"
BATCH_MAX_ROWS_CONFIG: Final = "batch.max.rows"
TABLE_POLL_INTERVAL_MS_CONFIG: Final = "table.poll.interval.ms"
DB_TIMEZONE_CONFIG: Final = "db.timezone"
TRANSACTION_ISOLATION_MODE_CONFIG: Final = "transaction.isolation.mode"

TABLES_CONFIG: Final = "tables"
"""Task key: the tables a task copies, as quoted ``"schema"."table"`` names separated by commas."""

TIMESTAMP_INITIAL_CURRENT: Final = -1
POSTGRES_DIALECT: Final = "PostgreSqlDatabaseDialect"
_TOPIC_PREFIX_CHARS = re.compile(r"[^a-zA-Z0-9._-]")


class Mode(enum.StrEnum):
    """How each poll finds the rows to copy (Confluent's ``mode``)."""

    BULK = "bulk"
    INCREMENTING = "incrementing"
    TIMESTAMP = "timestamp"
    TIMESTAMP_INCREMENTING = "timestamp+incrementing"

    @property
    def uses_incrementing(self) -> bool:
        return self in (Mode.INCREMENTING, Mode.TIMESTAMP_INCREMENTING)

    @property
    def uses_timestamp(self) -> bool:
        return self in (Mode.TIMESTAMP, Mode.TIMESTAMP_INCREMENTING)


class NumericMapping(enum.StrEnum):
    """How NUMERIC columns map onto Connect types (Confluent's ``numeric.mapping``)."""

    NONE = "none"
    PRECISION_ONLY = "precision_only"
    BEST_FIT = "best_fit"
    BEST_FIT_EAGER_DOUBLE = "best_fit_eager_double"


ISOLATION_LEVELS: Final = {
    "DEFAULT": None,
    "READ_UNCOMMITTED": "READ UNCOMMITTED",
    "READ_COMMITTED": "READ COMMITTED",
    "REPEATABLE_READ": "REPEATABLE READ",
    "SERIALIZABLE": "SERIALIZABLE",
}


def _regex_list(name: str, value: Any) -> None:
    for pattern in value or ():
        try:
            re.compile(pattern.strip())
        except re.error as error:
            raise ConfigError(
                name, value, f"Must be a valid comma-separated list of regular expression patterns: {error}"
            ) from None


_VALID_REGEX_LIST: Final = LambdaValidator(_regex_list, "a valid comma-separated list of regular expressions")


def _numeric_mapping(name: str, value: Any) -> None:
    if value is not None:
        ValidString([m.value for m in NumericMapping]).ensure_valid(name, str(value).lower())


def _column_mapping(name: str, value: Any) -> None:
    for mapping in value or ():
        _parse_mapping(name, mapping, multiple=False)


def _columns_mapping(name: str, value: Any) -> None:
    for mapping in value or ():
        _parse_mapping(name, mapping, multiple=True)


def _parse_mapping(name: str, mapping: str, multiple: bool) -> tuple[str, tuple[str, ...]]:
    """``regex:column`` (or ``regex:[col1|col2]`` when ``multiple``) as the regex and its columns."""
    expected = "regex:[col1|col2|...]" if multiple else "regex:columnName"
    parts = mapping.strip().split(":")
    if len(parts) != 2:
        raise ConfigError(name, mapping, f"Invalid format. Expected '{expected}'")
    regex, columns = parts[0].strip(), parts[1].strip()
    try:
        re.compile(regex)
    except re.error as error:
        raise ConfigError(name, regex, f"Invalid regular expression: {error}") from None
    if multiple:
        if not (columns.startswith("[") and columns.endswith("]")):
            raise ConfigError(name, columns, "Columns list must be enclosed in square brackets")
        names = tuple(column.strip() for column in columns[1:-1].split("|"))
    else:
        names = (columns,)
    if not all(names):
        raise ConfigError(name, columns, "Every column name should be non-empty string")
    return regex, names


def _topic_prefix(name: str, value: Any) -> None:
    if value is None:
        raise ConfigError(name, value, "Topic prefix must not be null.")
    trimmed = str(value).strip()
    if len(trimmed) > 249:
        raise ConfigError(name, value, "Topic prefix length must not exceed max topic name length, 249 chars")
    if _TOPIC_PREFIX_CHARS.search(trimmed):
        raise ConfigError(
            name,
            value,
            "Topic prefix must not contain any character other than ASCII alphanumerics, '.', '_' and '-'.",
        )


def _time_zone(name: str, value: Any) -> None:
    try:
        zoneinfo.ZoneInfo(str(value))
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise ConfigError(name, value, "Invalid time zone identifier") from None


def _connection_url(name: str, value: Any) -> None:
    if value:
        parse_jdbc_url(str(value))


def _dialect(name: str, value: Any) -> None:
    if value and value != POSTGRES_DIALECT:
        raise ConfigError(
            name,
            value,
            "Conveyor's JDBC source speaks to PostgreSQL only: leave it empty or write " + POSTGRES_DIALECT,
        )


_DATABASE = "Database"
_MODE = "Mode"
_CONNECTOR = "Connector"

JDBC_SOURCE_CONFIG: Final = (
    ConfigDef()
    .define(CONNECTION_URL_CONFIG, ConfigType.STRING, default="",
        validator=LambdaValidator(_connection_url, "jdbc:postgresql://host:port/dbname"),
        importance=Importance.HIGH,
        documentation="JDBC connection URL, e.g. jdbc:postgresql://localhost:5432/shop.", group=_DATABASE,
        order_in_group=1, display_name="JDBC URL")
    .define(CONNECTION_USER_CONFIG, ConfigType.STRING, default=None, importance=Importance.HIGH,
        documentation="JDBC connection user.", group=_DATABASE, order_in_group=2, display_name="JDBC User")
    .define(CONNECTION_PASSWORD_CONFIG, ConfigType.PASSWORD, default=None, importance=Importance.HIGH,
        documentation="JDBC connection password.", group=_DATABASE, order_in_group=3,
        display_name="JDBC Password")
    .define(CONNECTION_ATTEMPTS_CONFIG, ConfigType.INT, default=3, validator=Range.at_least(1),
        importance=Importance.LOW,
        documentation="Maximum number of attempts to open a connection. Must be a positive integer.",
        group=_DATABASE, order_in_group=4)
    .define(CONNECTION_BACKOFF_CONFIG, ConfigType.LONG, default=10000, validator=Range.at_least(0),
        importance=Importance.LOW, documentation="Backoff time in milliseconds between connection attempts.",
        group=_DATABASE, order_in_group=5)
    .define(TABLE_WHITELIST_CONFIG, ConfigType.LIST, default="", importance=Importance.MEDIUM,
        documentation="List of tables to include in copying. If specified, table.blacklist may not be set.",
        group=_DATABASE, order_in_group=6)
    .define(TABLE_BLACKLIST_CONFIG, ConfigType.LIST, default="", importance=Importance.MEDIUM,
        documentation="List of tables to exclude from copying. If specified, table.whitelist may not be set.",
        group=_DATABASE, order_in_group=7)
    .define(TABLE_INCLUDE_LIST_CONFIG, ConfigType.LIST, default="",
        validator=_VALID_REGEX_LIST,
        importance=Importance.MEDIUM,
        documentation="Regular expressions matching the fully-qualified names (schema.table) of the tables "
        "to copy. If specified, table.whitelist and table.blacklist cannot be set.", group=_DATABASE,
        order_in_group=8)
    .define(TABLE_EXCLUDE_LIST_CONFIG, ConfigType.LIST, default="",
        validator=_VALID_REGEX_LIST,
        importance=Importance.MEDIUM,
        documentation="Regular expressions matching the fully-qualified names of tables not to copy; "
        "applies to the tables table.include.list matches and requires it.", group=_DATABASE,
        order_in_group=9)
    .define(CATALOG_PATTERN_CONFIG, ConfigType.STRING, default=None, importance=Importance.MEDIUM,
        documentation="Catalog pattern: on PostgreSQL the connection's database, the only catalog it sees.",
        group=_DATABASE, order_in_group=10)
    .define(SCHEMA_PATTERN_CONFIG, ConfigType.STRING, default=None, importance=Importance.HIGH,
        documentation="Schema pattern (SQL LIKE) to list tables from; null (default) lists every schema.",
        group=_DATABASE, order_in_group=11)
    .define(NUMERIC_PRECISION_MAPPING_CONFIG, ConfigType.BOOLEAN, default=False, importance=Importance.LOW,
        documentation="Deprecated: numeric.mapping=precision_only.", group=_DATABASE, order_in_group=12)
    .define(NUMERIC_MAPPING_CONFIG, ConfigType.STRING, default=None,
        validator=LambdaValidator(_numeric_mapping, str([m.value for m in NumericMapping])),
        importance=Importance.LOW,
        documentation="Map NUMERIC values by precision and scale: none (Connect Decimal), precision_only "
        "(integers by precision when the scale is 0), best_fit (integers, or FLOAT64 when the scale "
        "is positive and the precision fits), best_fit_eager_double (FLOAT64 whenever scale > 0).",
        group=_DATABASE, order_in_group=13)
    .define(DIALECT_NAME_CONFIG, ConfigType.STRING, default="",
        validator=LambdaValidator(_dialect, f"empty or {POSTGRES_DIALECT}"), importance=Importance.LOW,
        documentation="The database dialect; Conveyor's JDBC source speaks PostgreSQL.", group=_DATABASE,
        order_in_group=14)
    .define(MODE_CONFIG, ConfigType.STRING, default="", validator=ValidString(["", *(m.value for m in Mode)]),
        importance=Importance.HIGH,
        documentation="How each poll finds rows: bulk (the whole table every poll), incrementing (rows "
        "whose strictly increasing column is above the last seen), timestamp (rows whose timestamp "
        "is after the last seen), timestamp+incrementing (both, so rows sharing a timestamp are "
        "neither lost nor repeated).", group=_MODE, order_in_group=1)
    .define(INCREMENTING_COLUMN_NAME_CONFIG, ConfigType.STRING, default="", importance=Importance.MEDIUM,
        documentation="The strictly incrementing column; empty finds the table's serial or identity column.",
        group=_MODE, order_in_group=2)
    .define(TIMESTAMP_COLUMN_NAME_CONFIG, ConfigType.LIST, default="", importance=Importance.MEDIUM,
        documentation="One or more timestamp columns, compared through COALESCE in the given order.",
        group=_MODE, order_in_group=3)
    .define(INCREMENTING_COLUMN_MAPPING_CONFIG, ConfigType.LIST, default="",
        validator=LambdaValidator(_column_mapping, "a list of 'regex:columnName' mappings"),
        importance=Importance.MEDIUM,
        documentation="Per table, the incrementing column: 'regex:column' entries whose regex matches "
        "schema.table in full, e.g. public\\.orders.*:id. Each copied table must match exactly one.",
        group=_MODE, order_in_group=3)
    .define(TIMESTAMP_COLUMN_MAPPING_CONFIG, ConfigType.LIST, default="",
        validator=LambdaValidator(_columns_mapping, "a list of 'regex:[col1|col2|...]' mappings"),
        importance=Importance.MEDIUM,
        documentation="Per table, the timestamp columns: 'regex:[col1|col2]' entries whose regex matches "
        "schema.table in full. Each copied table must match exactly one.", group=_MODE, order_in_group=3)
    .define(TIMESTAMP_INITIAL_CONFIG, ConfigType.LONG, default=None, importance=Importance.LOW,
        documentation="The epoch milliseconds timestamp queries start from when there is no offset; "
        "-1 for the database's current time. Unset reads every row.", group=_MODE, order_in_group=4)
    .define(VALIDATE_NON_NULL_CONFIG, ConfigType.BOOLEAN, default=True, importance=Importance.LOW,
        documentation="Refuse tables whose incrementing column is nullable, or whose timestamp columns "
        "all are.", group=_MODE, order_in_group=5)
    .define(QUERY_CONFIG, ConfigType.STRING, default="", importance=Importance.MEDIUM,
        documentation="A SELECT to run instead of copying tables; the incremental modes append their WHERE "
        "clause to it. topic.prefix is then the whole topic name.", group=_MODE, order_in_group=6)
    .define(QUERY_SUFFIX_CONFIG, ConfigType.STRING, default="", importance=Importance.LOW,
        documentation="Suffix to append at the end of the generated query.", group=_MODE, order_in_group=7)
    .define(TRANSACTION_ISOLATION_MODE_CONFIG, ConfigType.STRING, default="DEFAULT",
        validator=ValidString(list(ISOLATION_LEVELS)), importance=Importance.LOW,
        documentation="The isolation level the queries run at; DEFAULT keeps the server's.", group=_MODE,
        order_in_group=8)
    .define(TABLE_TYPES_CONFIG, ConfigType.LIST, default="TABLE", importance=Importance.LOW,
        documentation="The kinds of relations to copy: TABLE, VIEW, MATERIALIZED VIEW, FOREIGN TABLE, "
        "PARTITIONED TABLE.", group=_CONNECTOR, order_in_group=1)
    .define(POLL_INTERVAL_MS_CONFIG, ConfigType.INT, default=5000, validator=Range.at_least(0),
        importance=Importance.HIGH, documentation="Frequency in ms to poll for new data in each table.",
        group=_CONNECTOR, order_in_group=2)
    .define(BATCH_MAX_ROWS_CONFIG, ConfigType.INT, default=1000, validator=Range.at_least(1),
        importance=Importance.LOW,
        documentation="Maximum number of rows one poll returns; rows are fetched from a server-side "
        "cursor this many at a time.", group=_CONNECTOR, order_in_group=3)
    .define(TABLE_POLL_INTERVAL_MS_CONFIG, ConfigType.LONG, default=60000, validator=Range.at_least(1),
        importance=Importance.LOW,
        documentation="Frequency in ms to look for new or removed tables, which reconfigures the tasks.",
        group=_CONNECTOR, order_in_group=4)
    .define(TOPIC_PREFIX_CONFIG, ConfigType.STRING, default="",
        validator=LambdaValidator(_topic_prefix, "ASCII alphanumerics, '.', '_' and '-'"),
        importance=Importance.HIGH,
        documentation="Prefix prepended to table names to name their topics, or with query the whole topic.",
        group=_CONNECTOR, order_in_group=5)
    .define(TIMESTAMP_DELAY_INTERVAL_MS_CONFIG, ConfigType.LONG, default=0, validator=Range.at_least(0),
        importance=Importance.HIGH,
        documentation="How long after a timestamp a row is included, leaving transactions with earlier "
        "timestamps time to commit.", group=_CONNECTOR, order_in_group=6)
    .define(DB_TIMEZONE_CONFIG, ConfigType.STRING, default="UTC",
        validator=LambdaValidator(_time_zone, "a time zone identifier such as UTC or Europe/Paris"),
        importance=Importance.MEDIUM,
        documentation="The time zone of timestamp columns without time zone, and of the queries' criteria.",
        group=_CONNECTOR, order_in_group=7)
)  # fmt: skip


@dataclass(frozen=True)
class JdbcSourceSettings:
    """The typed settings of one connector or task."""

    address: PostgresAddress
    connection_attempts: int
    connection_backoff_ms: int
    whitelist: tuple[str, ...]
    blacklist: tuple[str, ...]
    include_list: tuple[str, ...]
    exclude_list: tuple[str, ...]
    schema_pattern: str | None
    table_types: tuple[str, ...]
    numeric_mapping: NumericMapping
    mode: Mode | None
    incrementing_column: str
    timestamp_columns: tuple[str, ...]
    incrementing_mapping: tuple[tuple[str, tuple[str, ...]], ...]
    timestamp_mapping: tuple[tuple[str, tuple[str, ...]], ...]
    timestamp_initial_ms: int | None
    timestamp_delay_ms: int
    validate_non_null: bool
    query: str
    query_suffix: str
    isolation_level: str | None
    topic_prefix: str
    poll_interval_ms: int
    batch_max_rows: int
    table_poll_interval_ms: int
    db_timezone: str

    @property
    def query_mode(self) -> bool:
        """Whether the connector runs ``query`` rather than copying tables."""
        return bool(self.query)

    def wanted_incrementing(self, table: str) -> tuple[str, str]:
        """The setting naming ``table``'s incrementing column and the name it gives (empty: the table's
        serial column): ``incrementing.column.mapping`` when set, else ``incrementing.column.name``."""
        if not self.incrementing_mapping:
            return INCREMENTING_COLUMN_NAME_CONFIG, self.incrementing_column
        return INCREMENTING_COLUMN_MAPPING_CONFIG, _mapped(
            INCREMENTING_COLUMN_MAPPING_CONFIG, self.incrementing_mapping, table
        )[0]

    def wanted_timestamps(self, table: str) -> tuple[str, tuple[str, ...]]:
        """The setting naming ``table``'s timestamp columns and the names it gives."""
        if not self.timestamp_mapping:
            return TIMESTAMP_COLUMN_NAME_CONFIG, self.timestamp_columns
        return TIMESTAMP_COLUMN_MAPPING_CONFIG, _mapped(
            TIMESTAMP_COLUMN_MAPPING_CONFIG, self.timestamp_mapping, table
        )

    @property
    def effective_mode(self) -> Mode:
        """The mode; only a connector whose settings were checked asks, and there it is set."""
        if self.mode is None:
            raise ConfigError(MODE_CONFIG, "", _MODE_MISSING)
        return self.mode

    @classmethod
    def parse(cls, props: Mapping[str, str]) -> JdbcSourceSettings:
        """Parse ``props``; raises :class:`ConfigError` naming the first bad key."""
        values = JDBC_SOURCE_CONFIG.parse(props)
        url = values[CONNECTION_URL_CONFIG]
        if not url:
            raise ConfigError(CONNECTION_URL_CONFIG, url, _URL_MISSING)
        password = values[CONNECTION_PASSWORD_CONFIG]
        address = parse_jdbc_url(url).with_credentials(
            values[CONNECTION_USER_CONFIG], password.value if isinstance(password, Password) else password
        )
        mode = values[MODE_CONFIG]
        numeric = values[NUMERIC_MAPPING_CONFIG]
        if numeric is None:
            numeric_mapping = (
                NumericMapping.PRECISION_ONLY
                if values[NUMERIC_PRECISION_MAPPING_CONFIG]
                else NumericMapping.NONE
            )
        else:
            numeric_mapping = NumericMapping(str(numeric).lower())
        return cls(
            address=address,
            connection_attempts=values[CONNECTION_ATTEMPTS_CONFIG],
            connection_backoff_ms=values[CONNECTION_BACKOFF_CONFIG],
            whitelist=_names(values[TABLE_WHITELIST_CONFIG]),
            blacklist=_names(values[TABLE_BLACKLIST_CONFIG]),
            include_list=_names(values[TABLE_INCLUDE_LIST_CONFIG]),
            exclude_list=_names(values[TABLE_EXCLUDE_LIST_CONFIG]),
            schema_pattern=values[SCHEMA_PATTERN_CONFIG],
            table_types=tuple(t.strip().upper() for t in values[TABLE_TYPES_CONFIG] if t.strip()),
            numeric_mapping=numeric_mapping,
            mode=Mode(mode) if mode else None,
            incrementing_column=values[INCREMENTING_COLUMN_NAME_CONFIG].strip(),
            timestamp_columns=_names(values[TIMESTAMP_COLUMN_NAME_CONFIG]),
            incrementing_mapping=tuple(
                _parse_mapping(INCREMENTING_COLUMN_MAPPING_CONFIG, m, multiple=False)
                for m in _names(values[INCREMENTING_COLUMN_MAPPING_CONFIG])
            ),
            timestamp_mapping=tuple(
                _parse_mapping(TIMESTAMP_COLUMN_MAPPING_CONFIG, m, multiple=True)
                for m in _names(values[TIMESTAMP_COLUMN_MAPPING_CONFIG])
            ),
            timestamp_initial_ms=values[TIMESTAMP_INITIAL_CONFIG],
            timestamp_delay_ms=values[TIMESTAMP_DELAY_INTERVAL_MS_CONFIG],
            validate_non_null=values[VALIDATE_NON_NULL_CONFIG],
            query=values[QUERY_CONFIG].strip(),
            query_suffix=values[QUERY_SUFFIX_CONFIG].strip(),
            isolation_level=ISOLATION_LEVELS[values[TRANSACTION_ISOLATION_MODE_CONFIG]],
            topic_prefix=values[TOPIC_PREFIX_CONFIG].strip(),
            poll_interval_ms=values[POLL_INTERVAL_MS_CONFIG],
            batch_max_rows=values[BATCH_MAX_ROWS_CONFIG],
            table_poll_interval_ms=values[TABLE_POLL_INTERVAL_MS_CONFIG],
            db_timezone=values[DB_TIMEZONE_CONFIG],
        )


_URL_MISSING: Final = "Set it to the database to copy from, e.g. jdbc:postgresql://localhost:5432/shop"
_MODE_MISSING: Final = "Query mode must be specified: one of " + ", ".join(m.value for m in Mode)


def _mapped(key: str, mappings: tuple[tuple[str, tuple[str, ...]], ...], table: str) -> tuple[str, ...]:
    """The columns of the one mapping whose regex matches ``table`` in full (Confluent's rule)."""
    matches = [columns for regex, columns in mappings if re.fullmatch(regex, table)]
    if len(matches) != 1:
        found = "no" if not matches else str(len(matches))
        raise ConfigError(
            key,
            ",".join(f"{regex}:{'|'.join(columns)}" for regex, columns in mappings),
            f"Table {table} matches {found} mappings; each copied table must match exactly one",
        )
    return matches[0]


def _names(values: list[str]) -> tuple[str, ...]:
    return tuple(value.strip() for value in values if value.strip())


def offline_errors(settings: JdbcSourceSettings) -> dict[str, list[str]]:
    """The errors, by key, of settings that parse but do not go together (no database needed).

    These are Confluent's ``JdbcSourceConnectorValidation`` checks that need no connection: a mode, one
    way to choose tables, a query that is a SELECT and not mixed with table filters, and the columns
    the mode needs.
    """
    errors: dict[str, list[str]] = {}

    def add(key: str, message: str) -> None:
        errors.setdefault(key, []).append(message)

    if settings.mode is None:
        add(MODE_CONFIG, _MODE_MISSING)
    filters = {
        TABLE_WHITELIST_CONFIG: settings.whitelist,
        TABLE_BLACKLIST_CONFIG: settings.blacklist,
        TABLE_INCLUDE_LIST_CONFIG: settings.include_list,
        TABLE_EXCLUDE_LIST_CONFIG: settings.exclude_list,
    }
    used = [key for key, value in filters.items() if value]
    if settings.query_mode:
        if not re.match(r"(?is)^SELECT\b", settings.query):
            add(
                QUERY_CONFIG,
                "Only SELECT statements are supported for 'query'. Please provide a statement "
                "that starts with SELECT.",
            )
        if used:
            message = (
                "Do not specify table filtering configs with 'query'. Remove "
                + ", ".join(used)
                + " when using query mode or 'query' when using table filtering mode."
            )
            for key in [QUERY_CONFIG, *used]:
                add(key, message)
        if settings.mode is not None and settings.mode.uses_incrementing and not settings.incrementing_column:
            add(
                INCREMENTING_COLUMN_NAME_CONFIG,
                f"'{INCREMENTING_COLUMN_NAME_CONFIG}' must be provided when "
                f"using mode '{settings.mode.value}' with a custom query: there is no table to find the "
                "incrementing column in.",
            )
    else:
        legacy = [key for key in (TABLE_WHITELIST_CONFIG, TABLE_BLACKLIST_CONFIG) if filters[key]]
        new = [key for key in (TABLE_INCLUDE_LIST_CONFIG, TABLE_EXCLUDE_LIST_CONFIG) if filters[key]]
        if legacy and new:
            for key in legacy + new:
                add(
                    key,
                    "Cannot mix table.whitelist/table.blacklist with table.include.list/"
                    "table.exclude.list: choose one approach.",
                )
        if settings.whitelist and settings.blacklist:
            for key in (TABLE_WHITELIST_CONFIG, TABLE_BLACKLIST_CONFIG):
                add(key, "table.whitelist and table.blacklist cannot both be set.")
        if settings.exclude_list and not settings.include_list:
            add(
                TABLE_EXCLUDE_LIST_CONFIG,
                f"{TABLE_EXCLUDE_LIST_CONFIG} cannot be used without "
                f"{TABLE_INCLUDE_LIST_CONFIG}. Exclude list only applies to tables that match the "
                "include list.",
            )
    if settings.mode is not None and not settings.mode.uses_incrementing and settings.incrementing_mapping:
        add(
            MODE_CONFIG,
            f"Remove '{INCREMENTING_COLUMN_MAPPING_CONFIG}': mode '{settings.mode.value}' uses no "
            "incrementing column.",
        )
    if settings.mode is not None and not settings.mode.uses_timestamp and settings.timestamp_mapping:
        add(
            MODE_CONFIG,
            f"Remove '{TIMESTAMP_COLUMN_MAPPING_CONFIG}': mode '{settings.mode.value}' uses no "
            "timestamp column.",
        )
    mapped = bool(settings.timestamp_mapping) and not settings.query_mode
    if (
        settings.mode is not None
        and settings.mode.uses_timestamp
        and not settings.timestamp_columns
        and not mapped
    ):
        add(
            TIMESTAMP_COLUMN_NAME_CONFIG,
            f"Mode '{settings.mode.value}' needs {TIMESTAMP_COLUMN_NAME_CONFIG} (or, per table, "
            f"{TIMESTAMP_COLUMN_MAPPING_CONFIG}): name the column (or columns, compared through COALESCE) "
            "that each write updates.",
        )
    return errors

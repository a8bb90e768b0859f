"""The settings of the Spark file sink connector, parsed once into plain data the Spark side can use.

Nothing here imports Spark: the connector's class (and so ``GET /connector-plugins`` and config
validation) must load without starting a SparkSession.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from conveyor.api import ConfigDef, ConfigError, ConfigType, Importance, Range, ValidString
from conveyor.settings.connector_config import SinkTopics, TaskCount

FORMAT_CONFIG: Final = "format"
PATH_CONFIG: Final = "path"
TABLE_CONFIG: Final = "table"
CHECKPOINT_LOCATION_CONFIG: Final = "checkpoint.location"
SQL_CONFIG: Final = "sql"
TRIGGER_INTERVAL_MS_CONFIG: Final = "trigger.interval.ms"
MAX_RECORDS_PER_TRIGGER_CONFIG: Final = "max.records.per.trigger"
PARTITION_BY_CONFIG: Final = "partition.by"

FILE_FORMATS: Final = ("parquet", "json", "csv", "orc")
TABLE_FORMATS: Final = ("delta", "iceberg")
"""Table formats: the worker's SparkSession must load them (its ``table.formats``)."""
FORMATS: Final = FILE_FORMATS + TABLE_FORMATS
DEFAULT_TRIGGER_INTERVAL_MS: Final = 500
RECORDS_VIEW: Final = "records"
"""The name the ``sql`` projection reads the records under."""

CHECKPOINT_DIR: Final = "_checkpoint"
"""The default checkpoint's directory inside ``path``: the output and its checkpoint stay together (the
file sink's ``_spark_metadata`` log and the checkpoint only make sense as a pair), and Spark and
Hadoop-style readers skip names starting with ``_``."""

SPARK_FILE_SINK_CONFIG_DEF = (
    ConfigDef()
    .define(FORMAT_CONFIG, ConfigType.STRING, default="parquet", validator=ValidString(FORMATS),
        importance=Importance.HIGH,
        documentation="What Spark writes: files (parquet, json, csv, orc) or a table (delta, iceberg)")
    .define(PATH_CONFIG, ConfigType.STRING, default="", importance=Importance.HIGH,
        documentation="The directory Spark's file sink writes to (with its _spark_metadata log), or the "
        "Delta table's directory")
    .define(TABLE_CONFIG, ConfigType.STRING, default="", importance=Importance.HIGH,
        documentation="The table a delta or iceberg sink writes to, by name (created when missing): "
        "an Iceberg table of the worker's catalog (db.name), or a Delta table of Spark's catalog")
    .define(CHECKPOINT_LOCATION_CONFIG, ConfigType.STRING, default="", importance=Importance.MEDIUM,
        documentation="The streaming query's checkpoint; by default "
        f"<path>/{CHECKPOINT_DIR}, so a restarted connector resumes (required with table)")
    .define(SQL_CONFIG, ConfigType.STRING, default="", importance=Importance.MEDIUM,
        documentation=f"An optional projection over the view {RECORDS_VIEW!r}, e.g. "
        f"SELECT id, upper(name) AS name FROM {RECORDS_VIEW}")
    .define(TRIGGER_INTERVAL_MS_CONFIG, ConfigType.LONG, default=DEFAULT_TRIGGER_INTERVAL_MS,
        validator=Range.at_least(0), importance=Importance.LOW,
        documentation="How often a micro-batch starts (0: as soon as the previous one ends)")
    .define(MAX_RECORDS_PER_TRIGGER_CONFIG, ConfigType.LONG, default=None, importance=Importance.LOW,
        documentation="At most this many offsets per micro-batch (none: all available)")
    .define(PARTITION_BY_CONFIG, ConfigType.LIST, default="", importance=Importance.LOW,
        documentation="Output columns to partition the files by (directories column=value)")
)  # fmt: skip


@dataclass(frozen=True)
class SparkFileSinkSettings:
    """What the streaming query of one Spark file sink connector is built from."""

    connector: str
    topics: tuple[str, ...]
    topics_regex: str | None
    format: str
    path: str
    """The output directory; empty when the sink writes to ``table``."""
    table: str | None
    checkpoint_location: str
    sql: str | None
    trigger_interval_ms: int
    max_records_per_trigger: int | None
    partition_by: tuple[str, ...]
    tasks_max: int
    """Kafka Connect's parallelism: at least this many Spark tasks read each micro-batch."""

    @classmethod
    def parse(cls, connector: str, config: Mapping[str, str]) -> SparkFileSinkSettings:
        """The settings of ``config``."""
        values = SPARK_FILE_SINK_CONFIG_DEF.parse(config)
        subscription = SinkTopics.parse(config).require_exactly_one()
        max_records = values[MAX_RECORDS_PER_TRIGGER_CONFIG]
        if max_records is not None and max_records <= 0:
            raise ConfigError(MAX_RECORDS_PER_TRIGGER_CONFIG, max_records, "Must be positive")
        file_format, path, table = (
            values[FORMAT_CONFIG],
            values[PATH_CONFIG].strip(),
            values[TABLE_CONFIG].strip(),
        )
        _check_target(file_format, path, table)
        checkpoint = values[CHECKPOINT_LOCATION_CONFIG] or (
            f"{path.rstrip('/')}/{CHECKPOINT_DIR}" if path else ""
        )
        if not checkpoint:
            raise ConfigError(
                CHECKPOINT_LOCATION_CONFIG,
                "",
                f"Required with {TABLE_CONFIG}: where the query keeps its progress",
            )
        return cls(
            connector=connector,
            topics=subscription.topics,
            topics_regex=subscription.regex,
            format=file_format,
            path=path,
            table=table or None,
            checkpoint_location=checkpoint,
            sql=(values[SQL_CONFIG] or "").strip() or None,
            trigger_interval_ms=values[TRIGGER_INTERVAL_MS_CONFIG],
            max_records_per_trigger=max_records,
            partition_by=tuple(c.strip() for c in values[PARTITION_BY_CONFIG] if c.strip()),
            tasks_max=TaskCount.parse(config).tasks_max,
        )


def _check_target(file_format: str, path: str, table: str) -> None:
    """Files go to a ``path``, an Iceberg table to a ``table``, a Delta table to either."""
    if file_format in FILE_FORMATS and not path:
        raise ConfigError(PATH_CONFIG, path, f"Required with format={file_format}: the output directory")
    if file_format in FILE_FORMATS and table:
        raise ConfigError(TABLE_CONFIG, table, f"Only delta and iceberg write to a table, not {file_format}")
    if file_format == "iceberg" and not table:
        raise ConfigError(
            TABLE_CONFIG, table, "Required with format=iceberg: the table's name, e.g. db.people"
        )
    if file_format == "iceberg" and path:
        raise ConfigError(
            PATH_CONFIG, path, "Not with format=iceberg: its tables live in the worker's catalog"
        )
    if file_format == "delta" and bool(path) == bool(table):
        raise ConfigError(TABLE_CONFIG, table, "format=delta writes to exactly one of path or table")

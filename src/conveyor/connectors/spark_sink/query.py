"""The streaming query of a ``SparkFileSinkConnector``: log -> converter -> transforms -> sql -> files.

The records are read with the ``conveyor`` data source (Arrow batches, committed records only), whose
value converter types the ``value`` column (JsonConverter envelopes are parsed a batch at a time by
Arrow's JSON parser where that is exact, see ``conveyor.spark.datasource.envelopes``); the builder learns
the keys' and values' types from the stored records once, on the driver, and gives the reader that
schema, so that Spark's planning worker does not sample them again. The transform
chain is compiled to Spark expressions when every stage has an equivalent, else it runs in Python over
Arrow batches (``mapInArrow``). The result is the view ``records`` (the value's fields, or ``value``,
plus ``kafka_topic``, ``kafka_partition``, ``kafka_offset``, ``kafka_timestamp``, ``kafka_key`` and
``kafka_headers``), which the optional ``sql`` projects; without ``sql`` the value's fields are
written. Spark's file sink writes them exactly once, through its ``_spark_metadata`` log and the
query's checkpoint; Delta and Iceberg tables through their own commits, which record the query's id
and batch id so that a replayed batch is skipped.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Final

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.streaming.query import StreamingQuery
from pyspark.sql.streaming.readwriter import DataStreamReader
from pyspark.sql.types import DataType, StructType

from conveyor.connectors.spark_sink.config import RECORDS_VIEW, TABLE_FORMATS, SparkFileSinkSettings
from conveyor.data import ConnectError, DataError
from conveyor.log import Admin, Log, TopicPartition, open_log
from conveyor.plugins import load_chain_plugin
from conveyor.runtime.task_spec import TaskSpec
from conveyor.settings.converters import plugin_settings
from conveyor.settings.names import consumer_group
from conveyor.settings.worker_config import WorkerConfig
from conveyor.spark.datasource import register
from conveyor.spark.datasource.columns import record_schema
from conveyor.spark.datasource.connect_types import UnsupportedSchemaError
from conveyor.spark.datasource.decoding import sample_type
from conveyor.spark.datasource.offsets import subscribed_partitions, to_json_dict
from conveyor.spark.datasource.options import ConverterSpec
from conveyor.spark.streaming.python_chain import PythonChainMapper, sample_output_schema
from conveyor.spark.streaming.query_tasks import subscription_of
from conveyor.spark.streaming.smt_compiler import compile_chain
from conveyor.spark.table_formats import ICEBERG_CATALOG, missing_from_session
from conveyor.transforms import TransformationChain

RECORD_COLUMNS: Final = ("key", "value", "topic", "partition", "offset", "timestamp", "headers")
KAFKA_COLUMNS: Final = {
    "kafka_topic": "topic",
    "kafka_partition": "partition",
    "kafka_offset": "offset",
    "kafka_timestamp": "timestamp",
    "kafka_key": "key",
    "kafka_headers": "headers",
}


def start_file_sink_query(spark: SparkSession, spec: TaskSpec) -> StreamingQuery | None:
    """Start the connector's query on ``spark`` (a session of its own, so its ``records`` view is its
    own); None while its topics hold no record to learn the schema from."""
    config = spec.connector_config
    settings = SparkFileSinkSettings.parse(spec.id.connector, config)
    _require_table_format(spark, settings.format)
    log_url = spec.worker_config.log_url
    subscription = subscription_of(config)
    key_converter = converter_spec(config, spec.worker_config, "key.converter")
    value_converter = converter_spec(config, spec.worker_config, "value.converter")
    chain = TransformationChain.from_connector_config(config, load_chain_plugin)
    try:
        with open_log(log_url) as log:
            admin = log.admin()
            partitions = subscribed_partitions(admin, subscription)
            if not holds_records(admin, partitions):
                return None
            starting = starting_offsets(admin, consumer_group(spec.id.connector), partitions)
            register(spark)
            key_type = stored_key_type(log, partitions, key_converter)
            value_type = sample_type(log, partitions, value_converter, False, "value")
            typed_reader = _with_converter(
                _reader(spark, settings, log_url, starting), value_converter, "value.converter"
            )
            if key_type is not None:
                typed_reader = _with_converter(typed_reader, key_converter, "key.converter")
            typed = _with_error_handling(
                typed_reader.schema(record_schema(True, key_type, value_type)), spec.id.connector, config
            ).load()
            # Spark analyses each projection as it is made: without transforms, the output is the only one
            records = compile_chain(typed.select(*RECORD_COLUMNS), chain, config) if chain.stages else typed
            known_value_type = value_type if not chain.stages else None
            if records is None:
                output = sample_output_schema(log, partitions, config, spec.worker_config)
                if output is None:
                    return None
                mapper = PythonChainMapper(spec.id.connector, dict(config), spec.worker_config, output)
                raw = _reader(spark, settings, log_url, starting).load().select(*RECORD_COLUMNS)
                records = raw.mapInArrow(mapper, output)
                known_value_type = None
    finally:
        chain.close()
    if settings.sql:
        records_view(records, known_value_type).createOrReplaceTempView(RECORDS_VIEW)
        projected = spark.sql(settings.sql)
    else:
        projected = value_columns(records, known_value_type)
    writer = (
        projected.writeStream.format(settings.format)
        .option("checkpointLocation", settings.checkpoint_location)
        .queryName(f"conveyor-{spec.id.connector}")
    )
    if settings.format == "iceberg":
        writer = writer.option("fanout-enabled", "true")  # micro-batches are not sorted by partition
    if settings.partition_by:
        writer = writer.partitionBy(*settings.partition_by)
    if settings.trigger_interval_ms > 0:
        writer = writer.trigger(processingTime=f"{settings.trigger_interval_ms} milliseconds")
    if settings.table:
        return writer.toTable(table_name(settings))
    return writer.option("path", settings.path).start()


def table_name(settings: SparkFileSinkSettings) -> str:
    """The table's name in the session: Iceberg tables are in the worker's Iceberg catalog."""
    assert settings.table is not None
    if settings.format == "iceberg" and not settings.table.startswith(f"{ICEBERG_CATALOG}."):
        return f"{ICEBERG_CATALOG}.{settings.table}"
    return settings.table


def _require_table_format(spark: SparkSession, file_format: str) -> None:
    """Fails, saying what to do, when the session did not load the table format at its start."""
    if file_format in TABLE_FORMATS:
        reason = missing_from_session(dict(spark.sparkContext.getConf().getAll()), file_format)
        if reason is not None:
            raise ConnectError(reason)


def converter_spec(config: Mapping[str, str], worker_config: WorkerConfig, name: str) -> ConverterSpec:
    """The connector's key or value converter and its settings, else the worker's."""
    return ConverterSpec(*plugin_settings(config, worker_config, name))


def holds_records(admin: Admin, partitions: list[TopicPartition]) -> bool:
    """Whether any committed record is stored in ``partitions`` (the query learns its types from one)."""
    return any(b.last_stable > b.earliest for b in admin.list_offsets(partitions).values())


def starting_offsets(admin: Admin, group: str, partitions: list[TopicPartition]) -> str:
    """Where a query without a checkpoint starts: the group's committed offsets (as altered through
    REST, or committed by an earlier query), partitions without one from the earliest offset."""
    committed = admin.list_consumer_group_offsets(group)
    known = {tp: committed[tp].offset for tp in partitions if tp in committed}
    return json.dumps(to_json_dict(known)) if known else "earliest"


def _reader(
    session: SparkSession, settings: SparkFileSinkSettings, log_url: str, starting: str
) -> DataStreamReader:
    reader = (
        session.readStream.format("conveyor")
        .option("log.url", log_url)
        .option("startingOffsets", starting)
        .option("includeHeaders", "true")
    )
    if settings.topics_regex:
        reader = reader.option("subscribePattern", settings.topics_regex)
    else:
        reader = reader.option("subscribe", ",".join(settings.topics))
    if settings.max_records_per_trigger is not None:
        reader = reader.option("maxRecordsPerTrigger", str(settings.max_records_per_trigger))
    if settings.tasks_max > 1:
        reader = reader.option("minPartitions", str(settings.tasks_max))
    return reader


def _with_error_handling(
    reader: DataStreamReader, connector: str, config: Mapping[str, str]
) -> DataStreamReader:
    """``reader`` applying the connector's ``errors.*`` settings to records its converter rejects."""
    handled = reader.option("name", connector)
    for key, value in config.items():
        if key.startswith("errors."):
            handled = handled.option(key, value)
    return handled


def _with_converter(reader: DataStreamReader, spec: ConverterSpec, name: str) -> DataStreamReader:
    """``reader`` decoding keys or values (``name``: ``key.converter`` or ``value.converter``) with
    ``spec`` (Spark's readers change in place and return themselves)."""
    typed = reader.option(name, spec.class_name)
    for key, value in spec.settings.items():
        typed = typed.option(f"{name}.{key}", value)
    return typed


def stored_key_type(log: Log, partitions: list[TopicPartition], spec: ConverterSpec) -> DataType | None:
    """The type the stored keys give ``spec`` through their Connect schema to type the key column by; None
    where keys stay bytes (all null so far, or schemaless)."""
    try:
        return sample_type(log, partitions, spec, True, "key")
    except (UnsupportedSchemaError, DataError):
        return None


def _value_fields(value_type: DataType) -> list[Column]:
    """The value's fields as columns of their own (one star expression: a column per field would be a
    few calls into the JVM each), or the value itself when it is not a struct."""
    if isinstance(value_type, StructType):
        return [F.col("value.*")]
    return [F.col("value")]


def _value_type(records: DataFrame, known: DataType | None) -> DataType:
    """The ``value`` column's type: ``known`` where the builder sampled it, else Spark's analysis of it."""
    return known if known is not None else records.schema["value"].dataType


def value_columns(records: DataFrame, known_value_type: DataType | None = None) -> DataFrame:
    """What is written without ``sql``: the value's fields (or the value itself)."""
    return records.select(*_value_fields(_value_type(records, known_value_type)))


def records_view(records: DataFrame, known_value_type: DataType | None = None) -> DataFrame:
    """The value's fields, then the record's coordinates as ``kafka_*`` columns (unless a field has
    that name): what ``sql`` reads as ``records``."""
    value_type = _value_type(records, known_value_type)
    taken = set(value_type.fieldNames()) if isinstance(value_type, StructType) else {"value"}
    coordinates = [F.col(source).alias(name) for name, source in KAFKA_COLUMNS.items() if name not in taken]
    return records.select(*_value_fields(value_type), *coordinates)

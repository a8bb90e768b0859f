"""Decoding JsonConverter envelopes in Spark's JVM (``from_json``) instead of in Python, where it is exact.

The JsonConverter (``schemas.enable=true``) stores ``{"schema": ..., "payload": ...}``. When the Connect
schema of the stored values is one Spark's JSON parser reads the same way (structs, arrays, maps with
string keys, and primitive types other than bytes, with no logical types and no default values), parsing
the payload with ``from_json`` gives exactly what the converter would, without a Python call per record:
the bytes move from the log to Spark as Arrow and are parsed in the JVM. Malformed values fail the query
(``FAILFAST``), as the converter would. Values of another schema than the sampled one are parsed against
the sampled schema (fields it lacks are dropped, missing ones are null); keep one schema per topic.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql.types import DataType, StructField, StructType

from conveyor.convert.json_converter import JsonConverter
from conveyor.data import Schema, Type
from conveyor.log import Log, TopicPartition
from conveyor.plugins import PluginKind, load_plugin_class
from conveyor.spark.datasource.connect_types import spark_type
from conveyor.spark.datasource.decoding import make_converter
from conveyor.spark.datasource.options import ConverterSpec

_SAMPLE_RECORDS: Final = 100


def decodes_envelopes(spec: ConverterSpec) -> bool:
    """Whether ``spec`` is the JsonConverter with schemas enabled (Kafka's default)."""
    klass = load_plugin_class(spec.class_name, PluginKind.CONVERTER)
    enabled = str(spec.settings.get("schemas.enable", "true")).strip().lower() == "true"
    return isinstance(klass, type) and issubclass(klass, JsonConverter) and enabled


def parses_alike(schema: Schema) -> bool:
    """Whether Spark's JSON parser reads payloads of ``schema`` as the JsonConverter decodes them."""
    if schema.name is not None and schema.name.startswith("org.apache.kafka.connect.data."):
        return False  # Decimal, Date, Time and Timestamp are encoded in ways Spark reads otherwise
    if schema.default is not None or schema.type is Type.BYTES:
        return False
    if schema.type is Type.STRUCT:
        return all(parses_alike(field.schema) for field in schema.fields)
    if schema.type is Type.ARRAY:
        return schema.value_schema is not None and parses_alike(schema.value_schema)
    if schema.type is Type.MAP:
        key, value = schema.key_schema, schema.value_schema
        return key is not None and key.type is Type.STRING and value is not None and parses_alike(value)
    return True


def sample_value_schema(log: Log, partitions: Sequence[TopicPartition], spec: ConverterSpec) -> Schema | None:
    """The Connect schema of the first stored non-null value in ``partitions``, if it has one."""
    converter = make_converter(spec, is_key=False)
    with log.consumer(isolation_level="read_committed", auto_offset_reset="earliest") as consumer:
        for partition in partitions:
            consumer.assign([partition])
            consumer.seek_to_beginning([partition])
            for batch in consumer.poll_batch(max_records=_SAMPLE_RECORDS):
                for stored in batch.values:
                    if stored is not None:
                        return converter.to_connect_data(batch.topic, stored).schema
    return None


def jvm_value_type(log: Log, partitions: Sequence[TopicPartition], spec: ConverterSpec) -> DataType | None:
    """The Spark type to parse values into in the JVM, or None when the Python converter must decode."""
    if not decodes_envelopes(spec):
        return None
    schema = sample_value_schema(log, partitions, spec)
    return spark_type(schema) if schema is not None and parses_alike(schema) else None


def decoded_payload(raw: Column, value_type: DataType) -> Column:
    """The ``payload`` of envelope bytes ``raw``, parsed as ``value_type`` (null for null values)."""
    envelope = StructType([StructField("payload", value_type, True)])
    return F.from_json(raw.cast("string"), envelope, {"mode": "FAILFAST"}).getField("payload")

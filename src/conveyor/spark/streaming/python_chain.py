"""The fallback for transform chains with no Spark SQL equivalent: the Python chain, batch by batch.

The records are read as bytes; on the executors ``mapInArrow`` hands each Arrow batch to
:class:`PythonChainMapper`, which decodes keys, values and headers with the connector's converters into
``SinkRecord``s, runs ``TransformationChain.apply_batch`` and builds the typed output batch. The output
types are learned on the driver by running the chain on a stored record (:func:`sample_output_schema`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
from pyspark.sql.types import (
    DataType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

from conveyor.api import Converter, HeaderConverter
from conveyor.data import Headers, SinkRecord
from conveyor.data import TimestampType as RecordTimestampType
from conveyor.log import Log, TopicPartition
from conveyor.plugins import PluginKind, load_chain_plugin, load_plugin_class
from conveyor.spark.datasource.columns import HEADERS_TYPE, arrow_schema, headers_column
from conveyor.spark.datasource.connect_types import UnsupportedSchemaError, spark_type, to_arrow_column
from conveyor.spark.datasource.decoding import make_converter
from conveyor.spark.datasource.options import ConverterSpec
from conveyor.transforms import TransformationChain

_SAMPLE_RECORDS = 100


def output_schema(key_type: DataType, value_type: DataType) -> StructType:
    """The records after the chain: typed key and value, where each record came from, and its headers."""
    return StructType(
        [
            StructField("key", key_type, True),
            StructField("value", value_type, True),
            StructField("topic", StringType(), True),
            StructField("partition", IntegerType(), True),
            StructField("offset", LongType(), True),
            StructField("timestamp", TimestampType(), True),
            StructField("headers", HEADERS_TYPE, True),
        ]
    )


def make_header_converter(spec: ConverterSpec) -> HeaderConverter:
    """A configured header converter (``header.converter``, SimpleHeaderConverter by default)."""
    converter = load_plugin_class(spec.class_name, PluginKind.HEADER_CONVERTER)()
    if not isinstance(converter, HeaderConverter):
        raise TypeError(f"{spec.class_name} given for header.converter is not a HeaderConverter")
    converter.configure(dict(spec.settings))
    return converter


@dataclass(frozen=True)
class PythonChainMapper:
    """Runs a connector's transform chain over Arrow batches of raw records; picklable for Spark."""

    config: Mapping[str, str]
    key_converter: ConverterSpec
    value_converter: ConverterSpec
    header_converter: ConverterSpec
    output: StructType

    def __call__(self, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        chain = TransformationChain.from_connector_config(self.config, load_chain_plugin)
        keys = make_converter(self.key_converter, is_key=True)
        values = make_converter(self.value_converter, is_key=False)
        headers = make_header_converter(self.header_converter)
        target = arrow_schema(self.output)
        try:
            for batch in batches:
                if batch.num_rows:
                    records = chain.apply_batch(to_records(batch, keys, values, headers))
                    yield self._transformed(records, headers, target)
        finally:
            chain.close()

    def _transformed(
        self, records: Sequence[Any], headers: HeaderConverter, target: pa.Schema
    ) -> pa.RecordBatch:
        key_type = self.output["key"].dataType
        value_type = self.output["value"].dataType
        keys = (
            pa.nulls(len(records), pa.string())
            if isinstance(key_type, StringType) and not any(r.key_schema for r in records)
            else to_arrow_column([r.key for r in records], key_type)
        )
        columns = [
            keys,
            to_arrow_column([r.value for r in records], value_type),
            pa.array([r.topic for r in records], pa.string()),
            pa.array([r.kafka_partition for r in records], pa.int32()),
            pa.array([r.kafka_offset for r in records], pa.int64()),
            pa.array([None if r.timestamp is None else r.timestamp * 1000 for r in records], pa.int64()).cast(
                target.field("timestamp").type
            ),
            headers_column([_stored_headers(r, headers) for r in records], target),
        ]
        return pa.RecordBatch.from_arrays(columns, schema=target)


def _stored_headers(record: SinkRecord, converter: HeaderConverter) -> list[tuple[str, bytes | None]]:
    """A record's headers as they would be stored: names and the header converter's bytes."""
    topic = record.topic
    return [(h.key, converter.from_connect_header(topic, h.key, h.schema, h.value)) for h in record.headers]


def _connect_headers(stored: list[dict[str, Any]] | None, topic: str, converter: HeaderConverter) -> Headers:
    """The ``headers`` column's entries of one record as Connect headers, decoded by ``converter``."""
    headers = Headers()
    for entry in stored or ():
        decoded = converter.to_connect_header(topic, entry["key"], entry["value"])
        headers.add(entry["key"], decoded.value, decoded.schema)
    return headers


def to_records(
    batch: pa.RecordBatch, keys: Converter, values: Converter, headers: HeaderConverter
) -> list[SinkRecord]:
    """The raw records of an Arrow batch (the conveyor source's columns) as decoded ``SinkRecord``s."""
    columns = batch.to_pydict()
    records: list[SinkRecord] = []
    start = 0
    topics: list[str] = columns["topic"]
    while start < len(topics):
        end = start
        while end < len(topics) and topics[end] == topics[start]:
            end += 1
        decoded_keys = keys.to_connect_batch(topics[start], columns["key"][start:end])
        decoded_values = values.to_connect_batch(topics[start], columns["value"][start:end])
        for i, key, value in zip(range(start, end), decoded_keys, decoded_values, strict=True):
            stamp = columns["timestamp"][i]
            records.append(
                SinkRecord(
                    topics[i],
                    columns["partition"][i],
                    key.schema,
                    key.value,
                    value.schema,
                    value.value,
                    columns["offset"][i],
                    None if stamp is None else int(stamp.timestamp() * 1000),
                    RecordTimestampType.CREATE_TIME,
                    _connect_headers(columns["headers"][i], topics[i], headers),
                )
            )
        start = end
    return records


def sample_output_schema(
    log: Log,
    partitions: Sequence[TopicPartition],
    config: Mapping[str, str],
    key_converter: ConverterSpec,
    value_converter: ConverterSpec,
) -> StructType | None:
    """The output schema, from the first stored record the chain keeps; None while there is none yet."""
    chain = TransformationChain.from_connector_config(config, load_chain_plugin)
    keys = make_converter(key_converter, is_key=True)
    values = make_converter(value_converter, is_key=False)
    try:
        with log.consumer(isolation_level="read_committed", auto_offset_reset="earliest") as consumer:
            for partition in partitions:
                consumer.assign([partition])
                consumer.seek_to_beginning([partition])
                for batch in consumer.poll_batch(max_records=_SAMPLE_RECORDS):
                    for offset, key, value in zip(batch.offsets, batch.keys, batch.values, strict=True):
                        k = keys.to_connect_data(batch.topic, key)
                        v = values.to_connect_data(batch.topic, value)
                        record = SinkRecord(
                            batch.topic, batch.partition, k.schema, k.value, v.schema, v.value, offset
                        )
                        kept = chain.apply(record)
                        if kept is None or kept.value_schema is None:
                            continue
                        key_type = StringType() if kept.key_schema is None else spark_type(kept.key_schema)
                        return output_schema(key_type, spark_type(kept.value_schema))
    finally:
        chain.close()
    return None


__all__ = [
    "PythonChainMapper",
    "UnsupportedSchemaError",
    "output_schema",
    "sample_output_schema",
    "to_records",
]

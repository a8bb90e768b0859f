"""The fallback for transform chains with no Spark SQL equivalent: the Python chain, batch by batch.

The records are read as bytes; on the executors ``mapInArrow`` hands each Arrow batch to
:class:`PythonChainMapper`, which turns it back into log batches and runs them through the connector's
``RecordPipeline`` (the same one a sink task uses): its converters, header converter and transform
chain, with its ``errors.*`` settings (tolerance, error log, dead letter queue). The output types are
learned on the driver by running the chain on a stored record (:func:`sample_output_schema`).
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

from conveyor.api import HeaderConverter
from conveyor.data import SinkRecord
from conveyor.log import Log, RecordBatch, TopicPartition, open_log
from conveyor.plugins import load_chain_plugin
from conveyor.runtime.errors import ErrorHandler, ErrorPolicy
from conveyor.runtime.pipeline import RecordPipeline
from conveyor.runtime.topics import TopicCreator
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


@dataclass(frozen=True)
class PythonChainMapper:
    """Runs a connector's transform chain over Arrow batches of raw records; picklable for Spark."""

    connector: str
    config: Mapping[str, str]
    worker_config: Mapping[str, str]
    output: StructType

    def __call__(self, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        target = arrow_schema(self.output)
        policy = ErrorPolicy.from_connector_config(self.config)
        with open_log(self.worker_config["log.url"]) as log, log.producer() as dead_letters:
            errors = ErrorHandler(policy, self.connector, 0, dead_letters, TopicCreator(log, self.config))
            pipeline = RecordPipeline.for_connector(self.config, self.worker_config, errors)
            try:
                for batch in batches:
                    if batch.num_rows:
                        records = [record for run in log_batches(batch) for record in pipeline.from_log(run)]
                        yield self._transformed(records, pipeline.header_converter, target)
            finally:
                pipeline.close()

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


def log_batches(batch: pa.RecordBatch) -> list[RecordBatch]:
    """An Arrow batch of the conveyor source's columns as log batches, one per run of one partition."""
    columns = batch.to_pydict()
    topics: list[str] = columns["topic"]
    partitions: list[int] = columns["partition"]
    runs: list[RecordBatch] = []
    start = 0
    while start < len(topics):
        end = start
        while end < len(topics) and (topics[end], partitions[end]) == (topics[start], partitions[start]):
            end += 1
        offsets: list[int] = columns["offset"][start:end]
        runs.append(
            RecordBatch(
                topic=topics[start],
                partition=partitions[start],
                offsets=offsets,
                keys=columns["key"][start:end],
                values=columns["value"][start:end],
                headers=[
                    [(entry["key"], entry["value"]) for entry in stored or ()]
                    for stored in columns["headers"][start:end]
                ],
                timestamps=[int(stamp.timestamp() * 1000) for stamp in columns["timestamp"][start:end]],
                next_offset=offsets[-1] + 1,
            )
        )
        start = end
    return runs


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
]

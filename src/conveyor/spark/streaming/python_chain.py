"""The fallback for transform chains with no Spark SQL equivalent: the Python chain, batch by batch.

The records are read as bytes; on the executors ``mapInArrow`` hands each Arrow batch to
:class:`PythonChainMapper`, which turns it back into log batches and runs them through the connector's
``RecordPipeline`` (the same one a sink task uses): its converters, header converter and transform
chain, with its ``errors.*`` settings (tolerance, error log, dead letter queue). The output types are
learned on the driver by running the same pipeline on stored records (:func:`sample_output_schema`).
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
from conveyor.pipeline.error_handling import ErrorHandler, ErrorPolicy, connector_error_handler
from conveyor.pipeline.record_pipeline import RecordPipeline
from conveyor.settings.worker_config import WorkerConfig
from conveyor.spark.datasource.columns import HEADERS_TYPE, arrow_schema, headers_column
from conveyor.spark.datasource.connect_types import UnsupportedSchemaError, spark_type, to_arrow_column
from conveyor.spark.datasource.decoding import first_batches


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
    worker_config: WorkerConfig
    output: StructType

    def __call__(self, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        target = arrow_schema(self.output)
        with (
            open_log(self.worker_config.log_url) as log,
            connector_error_handler(log, self.config, self.connector, 0) as errors,
        ):
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
    worker_config: WorkerConfig,
) -> StructType | None:
    """The output schema, from the first stored record the connector's pipeline keeps; None while there
    is none yet. A record it cannot convert is skipped as the connector's ``errors.tolerance`` says, but
    neither logged nor sent to the dead letter queue here: the query does that when it reads the record."""
    tolerance_all = ErrorPolicy.from_connector_config(config).tolerance_all
    errors = ErrorHandler(ErrorPolicy(tolerance_all=tolerance_all, log_enable=False), "sample", 0)
    pipeline = RecordPipeline.for_connector(config, worker_config, errors)
    try:
        for batch in first_batches(log, partitions):
            for kept in pipeline.from_log(batch):
                if kept.value_schema is not None:
                    key_type = StringType() if kept.key_schema is None else spark_type(kept.key_schema)
                    return output_schema(key_type, spark_type(kept.value_schema))
    finally:
        pipeline.close()
    return None


__all__ = [
    "PythonChainMapper",
    "UnsupportedSchemaError",
    "output_schema",
    "sample_output_schema",
]

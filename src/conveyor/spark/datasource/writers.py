"""``df.write.format("conveyor")`` and ``writeStream.format("conveyor")``: rows to topics, exactly once.

Both writers receive Arrow batches (``DataSourceArrowWriter``/``DataSourceStreamArrowWriter``) and hand
each task's rows to ``exactly_once.write_partition``. A streaming write is identified by the query's id
(stable across restarts from a checkpoint) and each micro-batch's id, both of which Spark gives every
task as local properties; a batch write by an id drawn when the write is planned.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Final

import pyarrow as pa
from pyspark import TaskContext
from pyspark.sql.datasource import DataSourceArrowWriter, DataSourceStreamArrowWriter, WriterCommitMessage
from pyspark.sql.types import StructType

from conveyor.errors import ConnectError
from conveyor.spark.datasource.exactly_once import WriteIdentity, write_partition
from conveyor.spark.datasource.options import WriteOptions
from conveyor.spark.datasource.outgoing import check_write_schema

QUERY_ID_PROPERTY: Final = "sql.streaming.queryId"
BATCH_ID_PROPERTY: Final = "streaming.sql.batchId"


class StreamingContextMissingError(ConnectError):
    """A streaming write task ran without the query and batch ids Spark normally gives it."""


@dataclass(frozen=True)
class WriteReport(WriterCommitMessage):
    """One task's outcome, sent back to the driver."""

    spark_partition: int
    rows: int
    already_written: bool


def _task() -> TaskContext:
    context = TaskContext.get()
    if context is None:
        raise StreamingContextMissingError("Conveyor writers run only inside Spark tasks")
    return context


def _write(options: WriteOptions, identity: WriteIdentity, batches: Iterator[pa.RecordBatch]) -> WriteReport:
    written = write_partition(
        options.log_url, identity, batches, options.topic, options.transaction_timeout_ms
    )
    return WriteReport(identity.spark_partition, written.rows, written.already_written)


class ConveyorBatchWriter(DataSourceArrowWriter):
    """Writes each Spark partition in one transaction; a retried task does not write its rows twice."""

    def __init__(self, options: WriteOptions, schema: StructType) -> None:
        check_write_schema(schema, options.topic)
        self._options = options
        self._write_id = f"batch-{uuid.uuid4()}"

    def write(self, iterator: Iterator[pa.RecordBatch]) -> WriteReport:
        identity = WriteIdentity(self._write_id, 0, _task().partitionId())
        return _write(self._options, identity, iterator)

    def commit(self, messages: Sequence[WriterCommitMessage | None]) -> None:
        """Nothing left to do: every task committed its own transaction."""

    def abort(self, messages: Sequence[WriterCommitMessage | None]) -> None:
        """Tasks that failed aborted their transactions (or are fenced by their retries); partitions that
        succeeded stay written, as with Spark's Kafka sink."""


class ConveyorStreamWriter(DataSourceStreamArrowWriter):
    """Writes every micro-batch exactly once, across task retries and query restarts."""

    def __init__(self, options: WriteOptions, schema: StructType) -> None:
        check_write_schema(schema, options.topic)
        self._options = options

    def write(self, iterator: Iterator[pa.RecordBatch]) -> WriteReport:
        context = _task()
        query_id = context.getLocalProperty(QUERY_ID_PROPERTY)
        batch_id = context.getLocalProperty(BATCH_ID_PROPERTY)
        if not query_id or batch_id is None:
            raise StreamingContextMissingError(
                f"Spark gave this task no {QUERY_ID_PROPERTY} or {BATCH_ID_PROPERTY}; "
                "it cannot write exactly once"
            )
        identity = WriteIdentity(query_id, int(batch_id), context.partitionId())
        return _write(self._options, identity, iterator)

    def commit(self, messages: Sequence[WriterCommitMessage | None], batchId: int) -> None:
        """Nothing left to do: each task committed its rows with the batch's marker."""

    def abort(self, messages: Sequence[WriterCommitMessage | None], batchId: int) -> None:
        """Failed tasks' transactions are aborted, or fenced when the batch is retried."""

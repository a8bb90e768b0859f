"""Reading one offset range from the log as Arrow batches: what every Spark read task runs.

The task opens the log itself from ``log.url``. It polls column batches for its one partition and
turns several of them at once into one Arrow batch, so Spark receives columns, not a tuple per row.
Under read_committed, records of aborted transactions are skipped, and a range never passes the last
stable offset it was planned with, so reading a range again returns exactly the same records. Records
the converters cannot decode fail the read, or are skipped under ``errors.tolerance=all``
(``bad_records``).
"""

from __future__ import annotations

import time
from bisect import bisect_left
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Final

import pyarrow as pa
from pyspark.sql.types import BinaryType, StructType

from conveyor.data import DataError
from conveyor.errors import ConnectError
from conveyor.log import Consumer, RecordBatch, open_log
from conveyor.log.columns import BinaryColumn
from conveyor.pipeline.error_handling import connector_error_handler
from conveyor.spark.datasource.bad_records import decodable
from conveyor.spark.datasource.columns import arrow_schema, binary_values, to_arrow
from conveyor.spark.datasource.connect_types import UnsupportedSchemaError
from conveyor.spark.datasource.decoding import ColumnDecoder, make_converter
from conveyor.spark.datasource.options import ReadOptions
from conveyor.spark.datasource.ranges import OffsetRange

ROWS_PER_ARROW_BATCH: Final = 8192
_POLL_WAIT_S: Final = 0.2


class RangeUnavailableError(ConnectError):
    """A planned range could not be read to its end in time (records removed, or the log unreachable)."""


@dataclass(frozen=True)
class RangeReader:
    """Reads ranges with the options and Spark schema of one query; picklable, sent to every task."""

    options: ReadOptions
    schema: StructType

    def read(self, offsets: OffsetRange) -> Iterator[pa.RecordBatch]:
        """The records of ``offsets`` as Arrow batches of the query's schema."""
        if offsets.end <= offsets.start:
            return
        target = arrow_schema(self.schema)
        key_decoder = self._decoder("key")
        value_decoder = self._decoder("value")
        isolation = self.options.isolation_level
        with (
            open_log(self.options.log_url) as log,
            log.consumer(isolation_level=isolation, auto_offset_reset="earliest") as consumer,
            connector_error_handler(log, self.options.errors, self.options.name, 0) as errors,
        ):
            for batches in self._polled(consumer, offsets):
                merged = _merge(batches)
                try:
                    keys = self._column(key_decoder, merged, "key", target)
                    values = self._column(value_decoder, merged, "value", target)
                except (DataError, UnsupportedSchemaError):
                    if not errors.policy.tolerance_all:
                        raise
                    merged = decodable(merged, key_decoder, value_decoder, errors)
                    keys = self._column(key_decoder, merged, "key", target)
                    values = self._column(value_decoder, merged, "value", target)
                yield to_arrow(merged, target, keys, values)

    def _decoder(self, column: str) -> ColumnDecoder | None:
        spec = self.options.key_converter if column == "key" else self.options.value_converter
        if spec is None:
            return None
        return ColumnDecoder(make_converter(spec, column == "key"), self.schema[column].dataType)

    def _column(
        self, decoder: ColumnDecoder | None, batch: RecordBatch, name: str, target: pa.Schema
    ) -> pa.Array:
        data = batch.keys if name == "key" else batch.values
        if decoder is not None:
            return decoder.decode(batch.topic, data)
        column = binary_values(data)
        if isinstance(self.schema[name].dataType, BinaryType):
            return column
        return column.cast(target.field(name).type)

    def _polled(self, consumer: Consumer, offsets: OffsetRange) -> Iterator[list[RecordBatch]]:
        """Groups of polled batches, each about ``ROWS_PER_ARROW_BATCH`` records, covering the range."""
        partition = offsets.topic_partition
        consumer.assign([partition])
        consumer.seek(partition, offsets.start)
        pending: list[RecordBatch] = []
        rows = 0
        position = offsets.start
        patience = self.options.poll_timeout_ms / 1000
        deadline = time.monotonic() + patience
        while position < offsets.end:
            wanted = min(offsets.end - position, ROWS_PER_ARROW_BATCH)
            batches = consumer.poll_batch(timeout=_POLL_WAIT_S, max_records=wanted)
            moved = consumer.position(partition)
            if moved > position:
                deadline = time.monotonic() + patience
            elif time.monotonic() > deadline:
                raise RangeUnavailableError(
                    f"Reading {partition} [{offsets.start}, {offsets.end}) stalled at offset {position} "
                    f"for {patience:.0f}s (pollTimeoutMs)"
                )
            position = moved
            for batch in batches:
                within = _before(batch, offsets.end)
                pending.append(within)
                rows += len(within)
            if rows >= ROWS_PER_ARROW_BATCH or (position >= offsets.end and pending):
                yield pending
                pending, rows = [], 0
        if pending:
            yield pending


def _before(batch: RecordBatch, end: int) -> RecordBatch:
    """The records of ``batch`` below offset ``end``: a poll may pass the end of a range, since records
    of aborted transactions it skips do not count against its limit."""
    if not batch.offsets or batch.offsets[-1] < end:
        return batch
    keep = bisect_left(batch.offsets, end)
    return RecordBatch(
        topic=batch.topic,
        partition=batch.partition,
        offsets=batch.offsets[:keep],
        keys=batch.keys[:keep],
        values=batch.values[:keep],
        headers=batch.headers[:keep],
        timestamps=batch.timestamps[:keep],
        next_offset=end,
    )


def _merge(batches: list[RecordBatch]) -> RecordBatch:
    """Consecutive batches of one partition as one."""
    if len(batches) == 1:
        return batches[0]
    first = batches[0]
    return RecordBatch(
        topic=first.topic,
        partition=first.partition,
        offsets=list(chain.from_iterable(b.offsets for b in batches)),
        keys=_joined([b.keys for b in batches]),
        values=_joined([b.values for b in batches]),
        headers=list(chain.from_iterable(b.headers for b in batches)),
        timestamps=list(chain.from_iterable(b.timestamps for b in batches)),
        next_offset=batches[-1].next_offset,
    )


def _joined(columns: list[Sequence[bytes | None]]) -> Sequence[bytes | None]:
    """Keys or values of consecutive batches as one column, kept as one buffer where they were."""
    if all(isinstance(column, BinaryColumn) for column in columns):
        return BinaryColumn.joined(column for column in columns if isinstance(column, BinaryColumn))
    return list(chain.from_iterable(columns))

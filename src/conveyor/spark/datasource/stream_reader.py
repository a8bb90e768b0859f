"""``spark.readStream.format("conveyor")``: micro-batches of offset ranges, offsets kept by Spark.

Spark checkpoints each micro-batch's end offsets (the next offset of every partition) before it runs,
and a restarted query replays a batch from the same start and end, so it reads the same ranges. The
driver side keeps the log open for the life of the query, since Spark asks for the latest offsets
every few milliseconds while the query waits for data.

Spark plans the micro-batches in a Python process it starts for each query, before the query's first
record: that process imports this module and the log's offsets alone. What reads a range (converters,
error handling, Arrow kernels) is imported by the read tasks, in ``read``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import pyarrow as pa
from pyspark.sql.datasource import DataSourceStreamReader, InputPartition
from pyspark.sql.streaming.datasource import (
    ReadAllAvailable,
    ReadLimit,
    ReadMaxRows,
    SupportsTriggerAvailableNow,
)
from pyspark.sql.types import StructType

from conveyor.log import Admin, Log, open_log
from conveyor.spark.datasource.offsets import Offsets, capped, from_json_dict, to_json_dict
from conveyor.spark.datasource.options import ReadOptions
from conveyor.spark.datasource.planning import current_ends, starting_offsets
from conveyor.spark.datasource.ranges import OffsetRange, plan_ranges


class ConveyorStreamReader(DataSourceStreamReader, SupportsTriggerAvailableNow):
    """Streams the subscribed partitions from ``startingOffsets``; partitions of topics that appear later
    (under ``subscribePattern``) are read from their earliest offset. Under ``Trigger.AvailableNow`` it
    reads up to the ends the partitions had when the query started, and stops there."""

    def __init__(self, options: ReadOptions, schema: StructType) -> None:
        self._options = options
        self._schema = schema
        self._log: Log | None = None
        self._available_now: Offsets | None = None

    def __getstate__(self) -> dict[str, Any]:
        """What executors get: the reader without the driver's open log."""
        return self.__dict__ | {"_log": None}

    def initialOffset(self) -> dict[str, dict[str, int]]:
        return to_json_dict(starting_offsets(self._admin(), self._options))

    def getDefaultReadLimit(self) -> ReadLimit:
        limit = self._options.max_records_per_trigger
        return ReadAllAvailable() if limit is None else ReadMaxRows(limit)

    def prepareForTriggerAvailableNow(self) -> None:
        self._available_now = current_ends(self._admin(), self._options)[1]

    def latestOffset(self, start: dict[str, dict[str, int]], limit: ReadLimit) -> dict[str, dict[str, int]]:
        begun = from_json_dict(start)
        earliest, ends = current_ends(self._admin(), self._options)
        end = dict(begun)
        for tp, offset in ends.items():
            from_ = begun.get(tp, earliest[tp])
            if self._available_now is not None:
                offset = min(offset, self._available_now.get(tp, from_))
            end[tp] = max(offset, from_)
        if isinstance(limit, ReadMaxRows):
            end = capped({tp: begun.get(tp, earliest[tp]) for tp in end}, end, limit.max_rows)
        return to_json_dict(end)

    def reportLatestOffset(self) -> dict[str, dict[str, int]]:
        return to_json_dict(current_ends(self._admin(), self._options)[1])

    def partitions(
        self, start: dict[str, dict[str, int]], end: dict[str, dict[str, int]]
    ) -> Sequence[InputPartition]:
        return plan_ranges(from_json_dict(start), from_json_dict(end), self._options.min_partitions)

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        from conveyor.spark.datasource.range_reader import RangeReader

        assert isinstance(partition, OffsetRange)
        return RangeReader(self._options, self._schema).read(partition)

    def commit(self, end: dict[str, dict[str, int]]) -> None:
        """Nothing to release: the log keeps records by its own retention, not by readers' progress."""

    def stop(self) -> None:
        log, self._log = self._log, None
        if log is not None:
            log.close()

    def _admin(self) -> Admin:
        if self._log is None:
            self._log = open_log(self._options.log_url)
        return self._log.admin()

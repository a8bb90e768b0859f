"""``spark.readStream.format("conveyor")``: micro-batches of offset ranges, offsets kept by Spark.

Spark checkpoints each micro-batch's end offsets (the next offset of every partition) before it runs,
and a restarted query replays a batch from the same start and end, so it reads the same ranges.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import pyarrow as pa
from pyspark.sql.datasource import DataSourceStreamReader, InputPartition
from pyspark.sql.streaming.datasource import ReadAllAvailable, ReadLimit, ReadMaxRows
from pyspark.sql.types import StructType

from conveyor.spark.datasource.offsets import capped, from_json_dict, to_json_dict
from conveyor.spark.datasource.options import ReadOptions
from conveyor.spark.datasource.planning import current_ends, starting_offsets
from conveyor.spark.datasource.range_reader import RangeReader
from conveyor.spark.datasource.ranges import OffsetRange, plan_ranges


class ConveyorStreamReader(DataSourceStreamReader):
    """Streams the subscribed partitions from ``startingOffsets``; partitions of topics that appear later
    (under ``subscribePattern``) are read from their earliest offset."""

    def __init__(self, options: ReadOptions, schema: StructType) -> None:
        self._ranges = RangeReader(options, schema)
        self._options = options

    def initialOffset(self) -> dict[str, dict[str, int]]:
        return to_json_dict(starting_offsets(self._options))

    def getDefaultReadLimit(self) -> ReadLimit:
        limit = self._options.max_records_per_trigger
        return ReadAllAvailable() if limit is None else ReadMaxRows(limit)

    def latestOffset(self, start: dict[str, dict[str, int]], limit: ReadLimit) -> dict[str, dict[str, int]]:
        begun = from_json_dict(start)
        earliest, ends = current_ends(self._options)
        end = dict(begun)
        for tp, offset in ends.items():
            end[tp] = max(offset, begun.get(tp, earliest[tp]))
        from_ = {tp: begun.get(tp, earliest[tp]) for tp in end}
        if isinstance(limit, ReadMaxRows):
            end = capped(from_, end, limit.max_rows)
        return to_json_dict(end)

    def reportLatestOffset(self) -> dict[str, dict[str, int]]:
        return to_json_dict(current_ends(self._options)[1])

    def partitions(
        self, start: dict[str, dict[str, int]], end: dict[str, dict[str, int]]
    ) -> Sequence[InputPartition]:
        return plan_ranges(from_json_dict(start), from_json_dict(end))

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        assert isinstance(partition, OffsetRange)
        return self._ranges.read(partition)

    def commit(self, end: dict[str, dict[str, int]]) -> None:
        """Nothing to release: the log keeps records by its own retention, not by readers' progress."""

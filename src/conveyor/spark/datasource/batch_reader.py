"""``spark.read.format("conveyor")``: a bounded read of offset ranges fixed when the query is planned."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import pyarrow as pa
from pyspark.sql.datasource import DataSourceReader, InputPartition
from pyspark.sql.types import StructType

from conveyor.spark.datasource.options import ReadOptions
from conveyor.spark.datasource.planning import batch_bounds
from conveyor.spark.datasource.range_reader import RangeReader
from conveyor.spark.datasource.ranges import OffsetRange, plan_ranges


class ConveyorBatchReader(DataSourceReader):
    """Reads ``startingOffsets`` to ``endingOffsets`` (earliest to latest by default), one task per
    topic-partition (or more under ``minPartitions``)."""

    def __init__(self, options: ReadOptions, schema: StructType) -> None:
        self._ranges = RangeReader(options, schema)
        self._options = options

    def partitions(self) -> Sequence[InputPartition]:
        start, end = batch_bounds(self._options)
        return plan_ranges(start, end, self._options.min_partitions)

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        assert isinstance(partition, OffsetRange)
        return self._ranges.read(partition)

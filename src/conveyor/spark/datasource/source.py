"""The ``conveyor`` data source: Spark reads and writes topics of a Conveyor log.

Each method imports what it builds when called: Spark starts a process of its own to plan every
streaming query's micro-batches, which needs the stream reader alone, and the query's first record waits
for that process (see ``stream_reader``).
"""

from __future__ import annotations

from pyspark.sql.datasource import (
    DataSource,
    DataSourceReader,
    DataSourceStreamReader,
    DataSourceStreamWriter,
    DataSourceWriter,
)
from pyspark.sql.types import StructType

from conveyor.spark.datasource.options import parse_read_options, parse_write_options


class ConveyorDataSource(DataSource):
    """``format("conveyor")`` with options modelled on Spark's Kafka source; see docs/spark.md."""

    @classmethod
    def name(cls) -> str:
        return "conveyor"

    def schema(self) -> StructType:
        from conveyor.spark.datasource.planning import read_schema

        return read_schema(parse_read_options(self.options, streaming=False))

    def reader(self, schema: StructType) -> DataSourceReader:
        from conveyor.spark.datasource.batch_reader import ConveyorBatchReader

        return ConveyorBatchReader(parse_read_options(self.options, streaming=False), schema)

    def streamReader(self, schema: StructType) -> DataSourceStreamReader:
        from conveyor.spark.datasource.stream_reader import ConveyorStreamReader

        return ConveyorStreamReader(parse_read_options(self.options, streaming=True), schema)

    def writer(self, schema: StructType, overwrite: bool) -> DataSourceWriter:
        from conveyor.spark.datasource.writers import ConveyorBatchWriter

        return ConveyorBatchWriter(parse_write_options(self.options), schema)

    def streamWriter(self, schema: StructType, overwrite: bool) -> DataSourceStreamWriter:
        from conveyor.spark.datasource.writers import ConveyorStreamWriter

        return ConveyorStreamWriter(parse_write_options(self.options), schema)

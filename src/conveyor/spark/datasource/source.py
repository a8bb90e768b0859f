"""The ``conveyor`` data source: Spark reads and writes topics of a Conveyor log."""

from __future__ import annotations

from pyspark.sql.datasource import (
    DataSource,
    DataSourceReader,
    DataSourceStreamReader,
    DataSourceStreamWriter,
    DataSourceWriter,
)
from pyspark.sql.types import StructType

from conveyor.spark.datasource.batch_reader import ConveyorBatchReader
from conveyor.spark.datasource.options import parse_read_options, parse_write_options
from conveyor.spark.datasource.planning import read_schema
from conveyor.spark.datasource.stream_reader import ConveyorStreamReader
from conveyor.spark.datasource.writers import ConveyorBatchWriter, ConveyorStreamWriter


class ConveyorDataSource(DataSource):
    """``format("conveyor")`` with options modelled on Spark's Kafka source; see docs/spark.md."""

    @classmethod
    def name(cls) -> str:
        return "conveyor"

    def schema(self) -> StructType:
        return read_schema(parse_read_options(self.options, streaming=False))

    def reader(self, schema: StructType) -> DataSourceReader:
        return ConveyorBatchReader(parse_read_options(self.options, streaming=False), schema)

    def streamReader(self, schema: StructType) -> DataSourceStreamReader:
        return ConveyorStreamReader(parse_read_options(self.options, streaming=True), schema)

    def writer(self, schema: StructType, overwrite: bool) -> DataSourceWriter:
        return ConveyorBatchWriter(parse_write_options(self.options), schema)

    def streamWriter(self, schema: StructType, overwrite: bool) -> DataSourceStreamWriter:
        return ConveyorStreamWriter(parse_write_options(self.options), schema)

"""``SparkFileSinkConnector``: topics of the log into Parquet, JSON, CSV or ORC files, or Delta Lake and
Apache Iceberg tables, by Spark.

Its one task is a Spark Structured Streaming query (see ``conveyor.spark.streaming``) run by the worker
through its task runner, managed through REST like any other connector.
"""

from __future__ import annotations

from collections.abc import Mapping

from conveyor.api import SinkConnector, Task, TopicPartition
from conveyor.connectors.configured_connector import ConfiguredConnector
from conveyor.connectors.spark_sink.checkpoint import local_directory, move_checkpoint
from conveyor.connectors.spark_sink.config import (
    SPARK_FILE_SINK_CONFIG_DEF,
    TABLE_FORMATS,
    SparkFileSinkSettings,
)
from conveyor.connectors.spark_sink.task import SparkStreamingSinkTask


class SparkFileSinkConnector(ConfiguredConnector, SinkConnector):
    """Writes the records of its topics as files with Spark's file sink, exactly once.

    One streaming query reads every partition, so ``tasks.max`` above 1 still yields one task.
    """

    CONFIG_DEF = SPARK_FILE_SINK_CONFIG_DEF

    def _check(self, props: Mapping[str, str]) -> None:
        SparkFileSinkSettings.parse(props.get("name", "connector"), props)

    def task_class(self) -> type[Task]:
        return SparkStreamingSinkTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        """One task: the query; Spark spreads its micro-batches over partitions itself."""
        return [dict(self._props)] if max_tasks >= 1 else []

    def alter_offsets(
        self, connector_config: Mapping[str, str], offsets: Mapping[TopicPartition, int | None]
    ) -> bool:
        """Move the query's checkpoint to the new offsets, since the query resumes from its checkpoint;
        False when it has none yet (it then starts from the consumer group's offsets)."""
        settings = SparkFileSinkSettings.parse(connector_config.get("name", "connector"), connector_config)
        checkpoint = local_directory(settings.checkpoint_location)
        sink_log = (
            None if settings.format in TABLE_FORMATS else local_directory(settings.path) / "_spark_metadata"
        )
        return move_checkpoint(checkpoint, sink_log, offsets)

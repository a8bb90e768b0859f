"""The task class of Spark sink connectors: a marker the Spark task runner runs as a streaming query."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, ClassVar

from conveyor import __version__
from conveyor.api import ConnectError, SinkTask

if TYPE_CHECKING:
    from conveyor.data import SinkRecord


class SparkStreamingSinkTask(SinkTask):
    """Stands for a Spark Structured Streaming query; it never receives records itself.

    ``conveyor.spark.task_runner.SparkTaskRunner`` recognises this class in a task's ``task.class`` and
    starts the connector's streaming query on the driver instead of a record-by-record task loop, so
    ``put`` being called means the task was run by something that does not know it.
    """

    STREAMING_QUERY: ClassVar[str] = "conveyor.connectors.spark_sink.query:start_file_sink_query"
    """The function that starts the query (``conveyor.spark.streaming.QueryBuilder``)."""

    def version(self) -> str:
        return __version__

    def start(self, props: Mapping[str, str]) -> None:
        """Nothing to open: the streaming query reads and writes on its own."""

    def put(self, records: Sequence[SinkRecord]) -> None:
        raise ConnectError(
            "SparkStreamingSinkTask runs as a Spark Structured Streaming query and takes no records; "
            "run it through conveyor.spark.task_runner.SparkTaskRunner"
        )

    def stop(self) -> None:
        """Nothing to close."""

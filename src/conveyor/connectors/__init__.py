"""The connectors that ship with Conveyor: Kafka's file stream source and sink, a data generator, and the
Spark file sink (whose task is a Spark Structured Streaming query)."""

from conveyor.connectors.file import (
    FileStreamSinkConnector,
    FileStreamSinkTask,
    FileStreamSourceConnector,
    FileStreamSourceTask,
)
from conveyor.connectors.generator import (
    GeneratorSourceConnector,
    GeneratorSourceTask,
    TaskTally,
    Verification,
    verify,
)
from conveyor.connectors.registry import BUILTIN_CONNECTOR_ALIASES, BUILTIN_CONNECTORS
from conveyor.connectors.spark_sink import SparkFileSinkConnector, SparkStreamingSinkTask

__all__ = [
    "BUILTIN_CONNECTORS",
    "BUILTIN_CONNECTOR_ALIASES",
    "FileStreamSinkConnector",
    "FileStreamSinkTask",
    "FileStreamSourceConnector",
    "FileStreamSourceTask",
    "GeneratorSourceConnector",
    "GeneratorSourceTask",
    "SparkFileSinkConnector",
    "SparkStreamingSinkTask",
    "TaskTally",
    "Verification",
    "verify",
]

"""The connectors that ship with Conveyor: Kafka's file stream source and sink, and a data generator."""

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

__all__ = [
    "BUILTIN_CONNECTORS",
    "BUILTIN_CONNECTOR_ALIASES",
    "FileStreamSinkConnector",
    "FileStreamSinkTask",
    "FileStreamSourceConnector",
    "FileStreamSourceTask",
    "GeneratorSourceConnector",
    "GeneratorSourceTask",
    "TaskTally",
    "Verification",
    "verify",
]

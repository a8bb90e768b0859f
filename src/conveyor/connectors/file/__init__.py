"""Kafka's file stream connectors: a file or stdin into a topic, and topics into a file or stdout."""

from conveyor.connectors.file.sink import FileStreamSinkConnector, FileStreamSinkTask
from conveyor.connectors.file.source import FileStreamSourceConnector, FileStreamSourceTask

__all__ = [
    "FileStreamSinkConnector",
    "FileStreamSinkTask",
    "FileStreamSourceConnector",
    "FileStreamSourceTask",
]

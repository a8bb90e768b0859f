"""``FileStreamSinkConnector``: appends each record's value as one line to a file (or the standard output)."""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Mapping, Sequence
from typing import Any, TextIO

from conveyor import __version__
from conveyor.api import ColumnSinkTask, ConnectError, SinkConnector, Task, TopicPartition
from conveyor.connectors.configured_connector import ConfiguredConnector
from conveyor.connectors.file.config import FILE_CONFIG, SINK_CONFIG_DEF
from conveyor.data import SinkColumns, SinkRecord

logger = logging.getLogger(__name__)


class FileStreamSinkConnector(ConfiguredConnector, SinkConnector):
    """Writes the records of its topics to one file or the standard output (Kafka's connector)."""

    CONFIG_DEF = SINK_CONFIG_DEF

    def task_class(self) -> type[Task]:
        return FileStreamSinkTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        """``max_tasks`` identical tasks; they all append to the same file."""
        return [dict(self._props) for _ in range(max_tasks)]

    def alter_offsets(
        self, connector_config: Mapping[str, str], offsets: Mapping[TopicPartition, int | None]
    ) -> bool:
        """Any offsets are fine: the runtime keeps them and the file holds none of its own."""
        return True


class FileStreamSinkTask(ColumnSinkTask):
    """Appends ``str(value)`` of each record as a line (``null`` for a missing value, as Java prints it).

    Each ``put`` hands its lines to the operating system at once, so readers of the file see them as
    Kafka's task's are seen; ``flush`` fsyncs a file, so committed offsets never run ahead of what is on
    disk.
    """

    def __init__(self) -> None:
        self._filename: str | None = None
        self._output: TextIO | None = None

    def version(self) -> str:
        return __version__

    def start(self, props: Mapping[str, str]) -> None:
        self._filename = SINK_CONFIG_DEF.parse(props)[FILE_CONFIG] or None
        if self._filename is None:
            self._output = sys.stdout
            return
        try:
            self._output = open(self._filename, "a", encoding="utf-8")  # noqa: SIM115 - closed in stop()
        except OSError as error:
            message = f"Couldn't find or create file '{self._filename}' for FileStreamSinkTask"
            raise ConnectError(message) from error

    def put(self, records: Sequence[SinkRecord]) -> None:
        if records:
            self._write(_lines([record.value for record in records]))

    def put_columns(self, batch: SinkColumns) -> None:
        if batch.values:
            self._write(_lines(batch.values))

    def _write(self, lines: str) -> None:
        output = self._require_output()
        output.write(lines)
        output.flush()

    def flush(self, current_offsets: Mapping[TopicPartition, int]) -> None:
        output = self._require_output()
        logger.debug("Flushing output stream for %s", self._filename or "stdout")
        output.flush()
        if self._filename is not None:
            os.fsync(output.fileno())

    def stop(self) -> None:
        if self._output is not None and self._filename is not None:
            self._output.close()
        self._output = None

    def _require_output(self) -> TextIO:
        if self._output is None:
            raise ConnectError("FileStreamSinkTask is not started")
        return self._output


def _lines(values: Sequence[Any]) -> str:
    """Each value as a line of text, all in one string to be written at once; strings are joined as
    they are, and only a batch holding something else has each value turned into its text."""
    try:
        text = "\n".join(values)
    except TypeError:
        text = "\n".join(["null" if value is None else str(value) for value in values])
    return text + "\n"

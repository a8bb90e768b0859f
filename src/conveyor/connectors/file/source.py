"""``FileStreamSourceConnector``: each line of a file (or the standard input) becomes one record."""

from __future__ import annotations

import logging
import os
import select
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any, BinaryIO

from conveyor import __version__
from conveyor.api import (
    ConnectError,
    ExactlyOnceSupport,
    SourceConnector,
    SourceTask,
    Task,
)
from conveyor.connectors.configured_connector import ConfiguredConnector
from conveyor.connectors.file.config import (
    FILE_CONFIG,
    FILENAME_FIELD,
    POSITION_FIELD,
    SOURCE_CONFIG_DEF,
    TASK_BATCH_SIZE_CONFIG,
    reads_a_file,
)
from conveyor.connectors.file.lines import LineBuffer
from conveyor.connectors.source_keys import TOPIC_CONFIG
from conveyor.data import STRING_SCHEMA, SourceRecordBatch

logger = logging.getLogger(__name__)

READ_CHUNK_BYTES = 64 * 1024


class FileStreamSourceConnector(ConfiguredConnector, SourceConnector):
    """Reads one file, or the standard input, into one topic with a single task (Kafka's connector)."""

    CONFIG_DEF = SOURCE_CONFIG_DEF

    def task_class(self) -> type[Task]:
        return FileStreamSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        """Always one task: only one reader of a stream makes sense."""
        return [dict(self._props)]

    def exactly_once_support(self, connector_config: Mapping[str, str]) -> ExactlyOnceSupport:
        """Supported when reading a file (an append-only one); stdin has no offsets to resume from."""
        filename = SOURCE_CONFIG_DEF.parse(connector_config)[FILE_CONFIG]
        return ExactlyOnceSupport.SUPPORTED if reads_a_file(filename) else ExactlyOnceSupport.UNSUPPORTED

    def alter_offsets(
        self,
        connector_config: Mapping[str, str],
        offsets: Sequence[tuple[Mapping[str, Any], Mapping[str, Any] | None]],
    ) -> bool:
        """Accept offsets whose position is a non-negative integer; the task checks it against the file."""
        filename = SOURCE_CONFIG_DEF.parse(connector_config)[FILE_CONFIG]
        if not reads_a_file(filename):
            raise ConnectError(
                f"Offsets cannot be modified if the '{FILE_CONFIG}' configuration is unspecified. "
                "This is because stdin is used for input and offsets are not tracked."
            )
        for partition, offset in offsets:
            if offset is None:
                continue
            _check_offset(offset)
            if partition is None:
                raise ConnectError("Partition objects cannot be null")
            if FILENAME_FIELD not in partition:
                raise ConnectError(f"Partition objects should contain the key '{FILENAME_FIELD}'")
        return True


def _check_offset(offset: Mapping[str, Any]) -> None:
    if POSITION_FIELD not in offset:
        raise ConnectError(f"Offset objects should either be null or contain the key '{POSITION_FIELD}'")
    position = offset[POSITION_FIELD]
    about_position = f"The value for the '{POSITION_FIELD}' key in the offset"
    if not _is_integer(position):
        raise ConnectError(f"{about_position} is expected to be a Long value")
    if position < 0:
        raise ConnectError(f"{about_position} should be a non-negative value")


def _is_integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class FileStreamSourceTask(SourceTask):
    """Tails a file from its last committed byte position, or reads the standard input.

    Each line becomes a record with a STRING value, source partition ``{"filename": file}`` and source
    offset ``{"position": <byte position after the line>}``; a poll returns its lines as a
    ``SourceRecordBatch``. At the end of the input ``poll`` waits
    ``idle_wait_seconds`` (Kafka waits one second) and returns ``None``; ``stop`` cuts that wait short.
    """

    idle_wait_seconds = 0.25

    def __init__(self) -> None:
        self._filename: str | None = None
        self._topic = ""
        self._batch_size = 0
        self._stream: BinaryIO | None = None
        self._lines: LineBuffer | None = None
        self._tracks_position = False
        self._lock = threading.Lock()
        self._stopping = threading.Event()

    def version(self) -> str:
        return __version__

    def start(self, props: Mapping[str, str]) -> None:
        config = SOURCE_CONFIG_DEF.parse(props)
        self._filename = config[FILE_CONFIG] or None
        self._topic = config[TOPIC_CONFIG]
        self._batch_size = config[TASK_BATCH_SIZE_CONFIG]
        self._stopping.clear()
        if self._filename is None:
            self._stream = sys.stdin.buffer
            self._lines = LineBuffer()
            self._tracks_position = False

    def poll(self) -> SourceRecordBatch | None:
        if self._stream is None and not self._open_file():
            self._stopping.wait(self.idle_wait_seconds)
            return None
        try:
            with self._lock:
                records = self._read_records()
        except (OSError, ValueError):
            logger.debug("The input of %s was closed while reading", self._display_name())
            return None
        if not records:
            self._stopping.wait(self.idle_wait_seconds)
            return None
        return records

    def stop(self) -> None:
        self._stopping.set()
        with self._lock:
            if self._stream is not None and self._filename is not None:
                self._stream.close()
            self._stream = None

    def _open_file(self) -> bool:
        """Open the file at the committed position; ``False`` if it does not exist yet."""
        assert self._filename is not None
        try:
            stream = open(self._filename, "rb", buffering=0)  # noqa: SIM115 - held open until stop()
        except FileNotFoundError:
            logger.warning("Couldn't find file %s, waiting for it to be created", self._filename)
            return False
        position = self._committed_position()
        stream.seek(position)
        with self._lock:
            self._stream = stream
            self._lines = LineBuffer(position)
            self._tracks_position = True
        logger.debug("Opened %s for reading at position %d", self._filename, position)
        return True

    def _committed_position(self) -> int:
        offset = self.context.offset_storage_reader().offset(self._source_partition())
        if offset is None:
            return 0
        position = offset.get(POSITION_FIELD)
        if position is None:
            return 0
        if not _is_integer(position):
            raise ConnectError("Offset position is the incorrect type")
        if position < 0:
            raise ConnectError(f"Offset position {position} is negative")
        return int(position)

    def _read_records(self) -> SourceRecordBatch:
        assert self._lines is not None
        texts, ends = self._lines.take_columns(self._batch_size)
        while len(texts) < self._batch_size:
            chunk = self._read_available()
            if not chunk:
                break
            self._lines.feed(chunk)
            more_texts, more_ends = self._lines.take_columns(self._batch_size - len(texts))
            texts += more_texts
            ends += more_ends
        offsets: list[dict[str, Any]] = (
            [{POSITION_FIELD: end} for end in ends]
            if self._tracks_position
            else [{POSITION_FIELD: None} for _ in ends]
        )
        return SourceRecordBatch(
            self._topic,
            texts,
            offsets,
            source_partition=self._source_partition(),
            value_schema=STRING_SCHEMA,
            timestamp=int(time.time() * 1000),
        )

    def _read_available(self) -> bytes:
        """The bytes readable now without blocking; empty at the end of the input."""
        if self._stream is None:
            return b""
        descriptor = self._stream.fileno()
        readable, _, _ = select.select([descriptor], [], [], 0)
        if not readable:
            return b""
        return os.read(descriptor, READ_CHUNK_BYTES)

    def _source_partition(self) -> dict[str, Any]:
        return {FILENAME_FIELD: self._filename}

    def _display_name(self) -> str:
        return self._filename or "stdin"

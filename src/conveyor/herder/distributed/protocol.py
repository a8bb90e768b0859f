"""Kafka Connect's group protocol: the workers' join metadata and the leader's assignments, byte for byte.

The layouts are those of Kafka's `ConnectProtocol` (version 0, eager) and
`IncrementalCooperativeConnectProtocol` (versions 1 "compatible" and 2 "sessioned"), so that a Conveyor
worker can share a group with Kafka Connect workers. Every message starts with an int16 version; strings
are an int16 length and UTF-8 bytes, arrays an int32 count (-1 for null), nullable bytes an int32 length
(-1 for null), integers big-endian. A reader accepts any version at or above 0 and reads what it knows:
fields missing at the end of a version 1+ message take their defaults, as Kafka's tolerant schemas do.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum

from conveyor.errors import ConfigError, ConnectError
from conveyor.runtime.task_spec import TaskId

CONNECTOR_TASK = -1
"""The task number that stands for the connector instance itself in an assignment."""

NO_ERROR = 0
CONFIG_MISMATCH = 1
"""The leader could not catch up with a member's config offset; members read the config log and rejoin."""


class ProtocolError(ConnectError):
    """Bytes that are not a Connect protocol message."""


class ConnectProtocolCompatibility(Enum):
    """The `connect.protocol` worker setting, with the subprotocol name and version each one joins with."""

    EAGER = ("eager", "default", 0)
    COMPATIBLE = ("compatible", "compatible", 1)
    SESSIONED = ("sessioned", "sessioned", 2)

    def __init__(self, config_name: str, subprotocol: str, version: int) -> None:
        self.config_name = config_name
        self.subprotocol = subprotocol
        self.version = version

    @classmethod
    def from_config(cls, name: str) -> ConnectProtocolCompatibility:
        """The mode named by `connect.protocol` (case-insensitive)."""
        return cls._find(
            lambda mode: mode.config_name == name.lower(),
            ConfigError(f"Unknown Connect protocol compatibility mode: {name}"),
        )

    @classmethod
    def from_subprotocol(cls, name: str) -> ConnectProtocolCompatibility:
        """The mode of the subprotocol the group settled on (case-insensitive)."""
        return cls._find(
            lambda mode: mode.subprotocol == name.lower(),
            ProtocolError(f"Not found Connect protocol compatibility mode for protocol: {name}"),
        )

    @classmethod
    def from_version(cls, version: int) -> ConnectProtocolCompatibility:
        return cls._find(
            lambda mode: mode.version == version,
            ProtocolError(f"Unknown Connect protocol version: {version}"),
        )

    @classmethod
    def _find(
        cls, matches: Callable[[ConnectProtocolCompatibility], bool], unknown: ConnectError
    ) -> ConnectProtocolCompatibility:
        """The first mode that ``matches``; raises ``unknown`` when none does."""
        for mode in cls:
            if matches(mode):
                return mode
        raise unknown

    def supported(self) -> list[ConnectProtocolCompatibility]:
        """The modes a worker in this mode offers when it joins, most preferred first."""
        return [mode for mode in reversed(ConnectProtocolCompatibility) if mode.version <= self.version]


@dataclass
class ConnectAssignment:
    """What the leader gives one member: its connectors and tasks, and from version 1 what it must stop."""

    leader: str
    leader_url: str
    config_offset: int
    connectors: list[str] = field(default_factory=list)
    tasks: list[TaskId] = field(default_factory=list)
    revoked_connectors: list[str] = field(default_factory=list)
    revoked_tasks: list[TaskId] = field(default_factory=list)
    delay_ms: int = 0
    error: int = NO_ERROR

    @property
    def failed(self) -> bool:
        return self.error != NO_ERROR


@dataclass
class WorkerMetadata:
    """What a worker says when it joins: its REST URL, its config offset and (version 1+) what it runs.

    `assignment` is None for a worker that has had no assignment yet, and in version 0 metadata.
    """

    url: str
    config_offset: int
    assignment: ConnectAssignment | None = None


class ConnectProtocol:
    """Version 0 ("default", eager): metadata is url and config offset; assignments have no revocations."""

    VERSION = 0

    @staticmethod
    def encode_metadata(metadata: WorkerMetadata) -> bytes:
        writer = _Writer()
        writer.int16(ConnectProtocol.VERSION)
        writer.string(metadata.url)
        writer.int64(metadata.config_offset)
        return writer.getvalue()

    @staticmethod
    def encode_assignment(assignment: ConnectAssignment) -> bytes:
        """Version 0 bytes; an eager assignment carries no revocations and no delay, so none may be set."""
        if assignment.revoked_connectors or assignment.revoked_tasks or assignment.delay_ms:
            raise ProtocolError("an eager (version 0) assignment has no revocations and no delay")
        writer = _Writer()
        writer.int16(ConnectProtocol.VERSION)
        _write_assignment_fields(writer, assignment)
        return writer.getvalue()


class IncrementalConnectProtocol:
    """Versions 1 ("compatible") and 2 ("sessioned", KIP-507): the same layout under two version numbers.

    Metadata adds the member's current assignment as nullable bytes (itself a versioned assignment);
    assignments add the revoked connectors and tasks and the delay before the next rebalance.
    """

    @staticmethod
    def version(sessioned: bool) -> int:
        return (
            ConnectProtocolCompatibility.SESSIONED.version
            if sessioned
            else (ConnectProtocolCompatibility.COMPATIBLE.version)
        )

    @staticmethod
    def encode_metadata(metadata: WorkerMetadata, sessioned: bool) -> bytes:
        writer = _Writer()
        writer.int16(IncrementalConnectProtocol.version(sessioned))
        writer.string(metadata.url)
        writer.int64(metadata.config_offset)
        allocation = (
            None
            if metadata.assignment is None
            else IncrementalConnectProtocol.encode_assignment(metadata.assignment, sessioned)
        )
        writer.nullable_bytes(allocation)
        return writer.getvalue()

    @staticmethod
    def encode_assignment(assignment: ConnectAssignment, sessioned: bool) -> bytes:
        writer = _Writer()
        writer.int16(IncrementalConnectProtocol.version(sessioned))
        _write_assignment_fields(writer, assignment)
        writer.int32(len(_by_connector(assignment.revoked_connectors, assignment.revoked_tasks)))
        _write_connector_tasks(writer, assignment.revoked_connectors, assignment.revoked_tasks)
        writer.int32(assignment.delay_ms)
        return writer.getvalue()


def encode_metadata(metadata: WorkerMetadata, protocol: ConnectProtocolCompatibility) -> bytes:
    """The metadata a worker sends for one subprotocol."""
    if protocol is ConnectProtocolCompatibility.EAGER:
        return ConnectProtocol.encode_metadata(metadata)
    return IncrementalConnectProtocol.encode_metadata(
        metadata, sessioned=protocol is ConnectProtocolCompatibility.SESSIONED
    )


def encode_assignment(assignment: ConnectAssignment, protocol: ConnectProtocolCompatibility) -> bytes:
    """The assignment the leader sends to a member under the group's subprotocol."""
    if protocol is ConnectProtocolCompatibility.EAGER:
        return ConnectProtocol.encode_assignment(assignment)
    return IncrementalConnectProtocol.encode_assignment(
        assignment, sessioned=protocol is ConnectProtocolCompatibility.SESSIONED
    )


def join_protocols(metadata: WorkerMetadata, mode: ConnectProtocolCompatibility) -> list[tuple[str, bytes]]:
    """The (subprotocol, metadata) pairs a worker in `mode` joins with, most preferred first (Kafka's
    `metadataRequest`): a sessioned worker offers sessioned, compatible and default."""
    return [(offered.subprotocol, encode_metadata(metadata, offered)) for offered in mode.supported()]


def decode_metadata(data: bytes) -> WorkerMetadata:
    """A member's metadata of any version (version 0 has no assignment)."""
    reader = _Reader(data)
    _read_version(reader)
    url = reader.string()
    config_offset = reader.int64()
    allocation = reader.nullable_bytes() if reader.remaining() else None
    return WorkerMetadata(url, config_offset, None if allocation is None else decode_assignment(allocation))


def decode_assignment(data: bytes) -> ConnectAssignment:
    """An assignment of any version; a version 0 one reads as having no revocations and no delay."""
    reader = _Reader(data)
    _read_version(reader)
    error = reader.int16()
    leader = reader.string()
    leader_url = reader.string()
    config_offset = reader.int64()
    connectors, tasks = _read_connector_tasks(reader)
    revoked_connectors: list[str] = []
    revoked_tasks: list[TaskId] = []
    if reader.remaining():
        revoked_connectors, revoked_tasks = _read_connector_tasks(reader)
    delay_ms = reader.int32() if reader.remaining() else 0
    return ConnectAssignment(
        leader,
        leader_url,
        config_offset,
        connectors,
        tasks,
        revoked_connectors,
        revoked_tasks,
        delay_ms,
        error,
    )


def decode_version(data: bytes) -> int:
    """The version header of a metadata or assignment message."""
    return _read_version(_Reader(data))


def _write_assignment_fields(writer: _Writer, assignment: ConnectAssignment) -> None:
    writer.int16(assignment.error)
    writer.string(assignment.leader)
    writer.string(assignment.leader_url)
    writer.int64(assignment.config_offset)
    writer.int32(len(_by_connector(assignment.connectors, assignment.tasks)))
    _write_connector_tasks(writer, assignment.connectors, assignment.tasks)


def _by_connector(connectors: Iterable[str], tasks: Iterable[TaskId]) -> dict[str, list[int]]:
    """Kafka's `asMap`: one entry per connector, its own instance (-1) first, then its tasks, in order."""
    numbers: dict[str, list[int]] = {}
    for connector in dict.fromkeys(connectors):
        numbers.setdefault(connector, []).append(CONNECTOR_TASK)
    for task in tasks:
        numbers.setdefault(task.connector, []).append(task.task)
    return numbers


def _write_connector_tasks(writer: _Writer, connectors: Sequence[str], tasks: Sequence[TaskId]) -> None:
    for connector, numbers in _by_connector(connectors, tasks).items():
        writer.string(connector)
        writer.int32(len(numbers))
        for number in numbers:
            writer.int32(number)


def _read_connector_tasks(reader: _Reader) -> tuple[list[str], list[TaskId]]:
    connectors: list[str] = []
    tasks: list[TaskId] = []
    for _ in range(max(reader.int32(), 0)):
        connector = reader.string()
        count = reader.int32()
        if count < 0:
            raise ProtocolError(f"connector {connector!r} has a null task array")
        for _ in range(count):
            number = reader.int32()
            if number == CONNECTOR_TASK:
                connectors.append(connector)
            else:
                tasks.append(TaskId(connector, number))
    return connectors, tasks


def _read_version(reader: _Reader) -> int:
    version = reader.int16()
    if version < 0:
        raise ProtocolError(f"Unsupported subscription version: {version}")
    return version


class _Writer:
    """Kafka's primitive types, appended to one buffer."""

    def __init__(self) -> None:
        self._parts: list[bytes] = []

    def int16(self, value: int) -> None:
        self._parts.append(struct.pack(">h", value))

    def int32(self, value: int) -> None:
        self._parts.append(struct.pack(">i", value))

    def int64(self, value: int) -> None:
        self._parts.append(struct.pack(">q", value))

    def string(self, value: str) -> None:
        encoded = value.encode("utf-8")
        if len(encoded) > 0x7FFF:
            raise ProtocolError(f"a string of {len(encoded)} bytes exceeds a Kafka STRING (32767)")
        self.int16(len(encoded))
        self._parts.append(encoded)

    def nullable_bytes(self, value: bytes | None) -> None:
        if value is None:
            self.int32(-1)
            return
        self.int32(len(value))
        self._parts.append(value)

    def getvalue(self) -> bytes:
        return b"".join(self._parts)


class _Reader:
    """Kafka's primitive types, read from the front of a buffer."""

    def __init__(self, data: bytes) -> None:
        self._data = memoryview(data)
        self._position = 0

    def remaining(self) -> int:
        return len(self._data) - self._position

    def _take(self, size: int) -> memoryview:
        if size > self.remaining():
            raise ProtocolError(f"needs {size} bytes at position {self._position}, {self.remaining()} left")
        chunk = self._data[self._position : self._position + size]
        self._position += size
        return chunk

    def int16(self) -> int:
        value: int = struct.unpack(">h", self._take(2))[0]
        return value

    def int32(self) -> int:
        value: int = struct.unpack(">i", self._take(4))[0]
        return value

    def int64(self) -> int:
        value: int = struct.unpack(">q", self._take(8))[0]
        return value

    def string(self) -> str:
        size = self.int16()
        if size < 0:
            raise ProtocolError("a non-nullable string is null")
        try:
            return str(self._take(size), "utf-8")
        except UnicodeDecodeError as error:
            raise ProtocolError(f"a string is not UTF-8: {error}") from error

    def nullable_bytes(self) -> bytes | None:
        size = self.int32()
        return None if size < 0 else bytes(self._take(size))

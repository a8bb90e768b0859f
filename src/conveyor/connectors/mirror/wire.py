"""Kafka MirrorMaker 2's record formats for heartbeats and checkpoints (Kafka's ``Struct`` serialization:
big-endian integers, strings as an int16 length and UTF-8), so Kafka's tools can read them."""

from __future__ import annotations

import struct
from dataclasses import dataclass

from conveyor.log import TopicPartition

_INT16 = struct.Struct(">h")
_INT32 = struct.Struct(">i")
_INT64 = struct.Struct(">q")
VERSION = 0


def _string(text: str) -> bytes:
    raw = text.encode()
    return _INT16.pack(len(raw)) + raw


def _read_string(data: bytes, at: int) -> tuple[str, int]:
    (length,) = _INT16.unpack_from(data, at)
    start = at + _INT16.size
    return data[start : start + length].decode(), start + length


@dataclass(frozen=True)
class Heartbeat:
    """A flow is alive: emitted on the target every ``emit.heartbeats.interval.seconds``."""

    source_alias: str
    target_alias: str
    timestamp: int

    def key(self) -> bytes:
        return _string(self.source_alias) + _string(self.target_alias)

    def value(self) -> bytes:
        return _INT16.pack(VERSION) + _INT64.pack(self.timestamp)

    @classmethod
    def decode(cls, key: bytes, value: bytes) -> Heartbeat:
        source, at = _read_string(key, 0)
        target, _ = _read_string(key, at)
        (timestamp,) = _INT64.unpack_from(value, _INT16.size)
        return cls(source, target, timestamp)


@dataclass(frozen=True)
class Checkpoint:
    """A consumer group's committed offset upstream and where it translates to downstream."""

    group: str
    partition: TopicPartition
    upstream_offset: int
    downstream_offset: int
    metadata: str = ""

    def key(self) -> bytes:
        return _string(self.group) + _string(self.partition.topic) + _INT32.pack(self.partition.partition)

    def value(self) -> bytes:
        return (
            _INT16.pack(VERSION)
            + _INT64.pack(self.upstream_offset)
            + _INT64.pack(self.downstream_offset)
            + _string(self.metadata)
        )

    @classmethod
    def decode(cls, key: bytes, value: bytes) -> Checkpoint:
        group, at = _read_string(key, 0)
        topic, at = _read_string(key, at)
        (partition,) = _INT32.unpack_from(key, at)
        at = _INT16.size
        (upstream,) = _INT64.unpack_from(value, at)
        (downstream,) = _INT64.unpack_from(value, at + _INT64.size)
        metadata, _ = _read_string(value, at + 2 * _INT64.size)
        return cls(group, TopicPartition(topic, partition), upstream, downstream, metadata)

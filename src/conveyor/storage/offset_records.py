"""Source offset records as Kafka Connect writes them: key ``["<connector>",{partition}]``, value ``{..}``.

Source partitions are dicts and so cannot key a Python dict. Conveyor's canonical, hashable form of a
partition is ``partition_key(partition)``: its JSON with sorted keys. Two records whose key bytes differ
only in the order of the partition's fields therefore name the same partition.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from conveyor.log.murmur2 import partition_for_key
from conveyor.storage.json_values import from_json_bytes, to_json_bytes

logger = logging.getLogger(__name__)

SourcePartition = Mapping[str, Any]
SourceOffsetValue = Mapping[str, Any]
PartitionKey = str


@dataclass(frozen=True, slots=True)
class SourceOffset:
    """One source partition of a connector and the last offset committed for it."""

    partition: dict[str, Any]
    offset: dict[str, Any]


def partition_key(partition: SourcePartition) -> PartitionKey:
    """The canonical, hashable form of a source partition: compact JSON with sorted keys."""
    return json.dumps(partition, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def serialize(
    connector: str, partition: SourcePartition, offset: SourceOffsetValue | None
) -> tuple[bytes, bytes | None]:
    """The key and value bytes of an offset record; a None offset is a tombstone (the partition is reset)."""
    key = to_json_bytes([connector, dict(partition)])
    return key, None if offset is None else to_json_bytes(dict(offset))


def log_partition(key: bytes, partitions: int) -> int:
    """The offsets-topic partition of a record key: Kafka's murmur2 default partitioner."""
    return partition_for_key(key, partitions)


def parse_key(key: bytes) -> tuple[str, dict[str, Any]] | None:
    """(connector, source partition) from a key, or None if it is not a Connect offset key."""
    try:
        parsed = from_json_bytes(key)
    except ValueError:
        return None
    if (
        not isinstance(parsed, list)
        or len(parsed) != 2
        or not isinstance(parsed[0], str)
        or not isinstance(parsed[1], dict)
    ):
        return None
    return parsed[0], parsed[1]


def parse_value(value: bytes) -> dict[str, Any] | None:
    """The source offset in a value, or None if it is not a JSON object."""
    try:
        parsed = from_json_bytes(value)
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict) else None

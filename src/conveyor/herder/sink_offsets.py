"""A sink connector's offsets as the REST API gives them, checked and parsed as Kafka's ``SinkUtils`` does.

A partition is ``{"kafka_topic": str, "kafka_partition": int}`` and an offset ``{"kafka_offset": int}`` or
null; numbers may come as JSON numbers or as strings of digits, as Java's ``Long.parseLong`` reads them.
Anything else is a ``BadRequestError`` naming the value.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from conveyor.errors import BadRequestError
from conveyor.herder.entities import ConnectorOffset
from conveyor.positions import TopicPartition

KAFKA_TOPIC_KEY = "kafka_topic"
KAFKA_PARTITION_KEY = "kafka_partition"
KAFKA_OFFSET_KEY = "kafka_offset"

_JAVA_INTEGER = re.compile(r"[+-]?\d+")


def parse_sink_connector_offsets(offsets: Iterable[ConnectorOffset]) -> dict[TopicPartition, int | None]:
    """Each entry's topic partition and its new offset (None: reset the partition)."""
    parsed: dict[TopicPartition, int | None] = {}
    for entry in offsets:
        partition = _topic_partition(entry.partition)
        parsed[partition] = None if entry.offset is None else _offset(partition, entry.offset)
    return parsed


def _topic_partition(partition: Mapping[str, Any] | None) -> TopicPartition:
    if partition is None:
        raise BadRequestError("The partition for a sink connector offset cannot be null or missing")
    if KAFKA_TOPIC_KEY not in partition or KAFKA_PARTITION_KEY not in partition:
        raise BadRequestError(
            "The partition for a sink connector offset must contain the keys "
            f"'{KAFKA_TOPIC_KEY}' and '{KAFKA_PARTITION_KEY}'"
        )
    number = _integer_value(partition, KAFKA_PARTITION_KEY, "partition")
    return TopicPartition(str(partition[KAFKA_TOPIC_KEY]), number)


def _offset(partition: TopicPartition, offset: Mapping[str, Any]) -> int:
    if KAFKA_OFFSET_KEY not in offset:
        raise BadRequestError(
            f"The offset for a sink connector should either be null or contain the key '{KAFKA_OFFSET_KEY}'"
        )
    number = _integer_value(offset, KAFKA_OFFSET_KEY, "offset")
    if number < 0:
        raise BadRequestError(
            f"Invalid negative offset {number} for partition {partition}: "
            "offset values for sink connectors need to be non-negative."
        )
    return number


def _integer_value(entry: Mapping[str, Any], key: str, what: str) -> int:
    """The integer at ``key``, refused as Kafka refuses it when it is not one; ``what`` names it."""
    raw = entry[key]
    number = _java_integer(raw)
    if number is None:
        raise BadRequestError(
            f"Failed to parse the following Kafka {what} value in the provided offsets: '{raw}'. "
            f"{what.capitalize()} values for sink connectors need to be integers."
        )
    return number


def _java_integer(value: Any) -> int | None:
    """``value`` as Java's ``Long.parseLong(String.valueOf(value))`` reads it, or None if it would fail."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and _JAVA_INTEGER.fullmatch(value):
        return int(value)
    return None

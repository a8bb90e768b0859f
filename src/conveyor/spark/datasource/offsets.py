"""Offsets as Spark's Kafka source writes them, resolved against the log.

An offsets JSON maps topics to partitions to offsets, ``{"orders":{"0":23,"1":-2}}``, where -2 means
the earliest kept offset and -1 the end of the partition (its last stable offset under read_committed,
its high watermark otherwise). Streaming offsets are the next offset to read of every partition.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Final

from conveyor.log import Admin, IsolationLevel, PartitionOffsets, TopicPartition
from conveyor.spark.datasource.options import ConveyorOptionError, Subscription

EARLIEST: Final = -2
LATEST: Final = -1

Offsets = dict[TopicPartition, int]


def subscribed_partitions(admin: Admin, subscription: Subscription) -> list[TopicPartition]:
    """The topic-partitions a subscription covers now, sorted; ``assign`` names partitions that must exist."""
    if subscription.assigned:
        described = admin.describe_topics(subscription.assigned)
        chosen: list[TopicPartition] = []
        for topic, partitions in subscription.assigned.items():
            count = described[topic].partitions
            missing = [p for p in partitions if p >= count]
            if missing:
                raise ConveyorOptionError(f"Topic {topic!r} has {count} partitions; cannot assign {missing}")
            chosen.extend(TopicPartition(topic, p) for p in partitions)
        return sorted(chosen)
    topics = [topic for topic in admin.list_topics() if subscription.matches(topic)]
    described = admin.describe_topics(topics)
    return sorted(tp for topic in topics for tp in described[topic].topic_partitions())


def end_of(bounds: PartitionOffsets, isolation_level: IsolationLevel) -> int:
    """Where a reader with this isolation level stops: the last stable offset, or the high watermark."""
    return bounds.last_stable if isolation_level == "read_committed" else bounds.latest


def parse_offsets_json(raw: str, option: str) -> dict[TopicPartition, int]:
    """``{"topic":{"0":23}}`` as offsets per partition (still holding -2 and -1)."""
    try:
        parsed = json.loads(raw)
    except json.JSONDecodeError as error:
        raise ConveyorOptionError(
            f'Option {option!r} must be earliest, latest or JSON like {{"topic":{{"0":23}}}}: {error}'
        ) from None
    if not isinstance(parsed, dict):
        raise ConveyorOptionError(f"Option {option!r} must be a JSON object of topics, not {raw!r}")
    return from_json_dict(parsed, option)


def from_json_dict(parsed: Mapping[str, object], option: str = "offsets") -> dict[TopicPartition, int]:
    """Offsets from their JSON form (also Spark's checkpointed streaming offsets)."""
    offsets: dict[TopicPartition, int] = {}
    for topic, partitions in parsed.items():
        if not isinstance(partitions, dict):
            raise ConveyorOptionError(f"Option {option!r}: topic {topic!r} must map partitions to offsets")
        for partition, offset in partitions.items():
            if not str(partition).isdigit() or not isinstance(offset, int) or offset < EARLIEST:
                raise ConveyorOptionError(
                    f"Option {option!r}: {topic}/{partition} -> {offset!r} is not a partition and offset"
                )
            offsets[TopicPartition(str(topic), int(partition))] = offset
    return offsets


def to_json_dict(offsets: Mapping[TopicPartition, int]) -> dict[str, dict[str, int]]:
    """Offsets in their JSON form, topics and partitions in order."""
    result: dict[str, dict[str, int]] = {}
    for tp in sorted(offsets):
        result.setdefault(tp.topic, {})[str(tp.partition)] = offsets[tp]
    return result


def resolve(
    spec: str,
    option: str,
    partitions: Iterable[TopicPartition],
    bounds: Mapping[TopicPartition, PartitionOffsets],
    isolation_level: IsolationLevel,
    default: int,
) -> Offsets:
    """Concrete offsets for ``earliest``, ``latest`` or a JSON spec; partitions a JSON leaves out take
    ``default`` (EARLIEST or LATEST)."""
    keyword = spec.strip().lower()
    if keyword in ("earliest", "latest"):
        wanted = {tp: EARLIEST if keyword == "earliest" else LATEST for tp in partitions}
    else:
        given = parse_offsets_json(spec, option)
        wanted = {tp: given.get(tp, default) for tp in partitions}
    resolved: Offsets = {}
    for tp, offset in wanted.items():
        if offset == EARLIEST:
            resolved[tp] = bounds[tp].earliest
        elif offset == LATEST:
            resolved[tp] = end_of(bounds[tp], isolation_level)
        else:
            resolved[tp] = offset
    return resolved


def capped(start: Mapping[TopicPartition, int], end: Mapping[TopicPartition, int], limit: int) -> Offsets:
    """``end``, moved back so that at most ``limit`` offsets lie between it and ``start`` in all, shared
    among partitions in proportion to what each has available (as Spark's Kafka source does)."""
    available = {tp: max(0, end[tp] - start.get(tp, 0)) for tp in end}
    total = sum(available.values())
    if total <= limit:
        return dict(end)
    shares = {tp: available[tp] * limit // total for tp in available}
    leftover = limit - sum(shares.values())
    for tp in sorted(available, key=lambda tp: (shares[tp] - available[tp], tp)):
        if leftover <= 0:
            break
        if shares[tp] < available[tp]:
            shares[tp] += 1
            leftover -= 1
    return {tp: start.get(tp, 0) + shares[tp] for tp in end}

"""Kafka's RangeAssignor, for consumer groups of the embedded backend.

Each member's subscription travels as its protocol metadata (a JSON list of topics); the leader hands
each topic's partitions out in contiguous ranges to the members subscribed to it, sorted by member id,
the first ``partitions % members`` of them getting one extra, exactly as Kafka's ``RangeAssignor`` does.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping

from conveyor.log.api import JoinResult
from conveyor.positions import TopicPartition

PROTOCOL_TYPE = "consumer"
PROTOCOL_NAME = "range"


def encode_subscription(topics: Iterable[str]) -> bytes:
    return json.dumps(sorted(set(topics))).encode()


def decode_subscription(metadata: bytes) -> list[str]:
    return list(json.loads(metadata))


def encode_assignment(partitions: Iterable[TopicPartition]) -> bytes:
    return json.dumps([[tp.topic, tp.partition] for tp in sorted(partitions)]).encode()


def decode_assignment(data: bytes) -> list[TopicPartition]:
    return [TopicPartition(topic, partition) for topic, partition in json.loads(data or b"[]")]


def assign_ranges(
    subscriptions: Mapping[str, list[str]], partition_count: Callable[[str], int]
) -> dict[str, list[TopicPartition]]:
    """Range-assign every subscribed topic's partitions over the members subscribed to it."""
    assignment: dict[str, list[TopicPartition]] = {member: [] for member in subscriptions}
    topics = sorted({topic for topics in subscriptions.values() for topic in topics})
    for topic in topics:
        members = sorted(member for member, subscribed in subscriptions.items() if topic in subscribed)
        count = partition_count(topic)
        per_member, extra = divmod(count, len(members))
        start = 0
        for index, member in enumerate(members):
            size = per_member + (1 if index < extra else 0)
            assignment[member].extend(TopicPartition(topic, p) for p in range(start, start + size))
            start += size
    return assignment


def range_assignor(partition_count: Callable[[str], int]) -> Callable[[JoinResult], dict[str, bytes]]:
    """A ``GroupMember`` assignor that range-assigns from the members' subscriptions."""

    def assign(joined: JoinResult) -> dict[str, bytes]:
        subscriptions = {member: decode_subscription(metadata) for member, metadata in joined.members.items()}
        ranges = assign_ranges(subscriptions, partition_count)
        return {member: encode_assignment(partitions) for member, partitions in ranges.items()}

    return assign

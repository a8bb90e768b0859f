"""Kafka's RangeAssignor: each topic's partitions in contiguous ranges over the members subscribed to it.

Members are sorted by id, and the first ``partitions % members`` of them get one extra, exactly as
Kafka's ``RangeAssignor`` does. It ignores what members own, so it serves eager rebalancing only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from conveyor.positions import TopicPartition

PROTOCOL_NAME = "range"


def assign_ranges(
    subscriptions: Mapping[str, Sequence[str]], partition_count: Callable[[str], int]
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

"""Kafka's RoundRobinAssignor: every subscribed partition, in order, dealt out to the members in turn.

Partitions are sorted by topic then number and members by id; each partition goes to the next member
(round the circle) subscribed to its topic, exactly as Kafka's ``RoundRobinAssignor`` does. It ignores
what members own, so it serves eager rebalancing only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from itertools import cycle

from conveyor.positions import TopicPartition

PROTOCOL_NAME = "roundrobin"


def assign_round_robin(
    subscriptions: Mapping[str, Sequence[str]], partition_count: Callable[[str], int]
) -> dict[str, list[TopicPartition]]:
    """Deal every subscribed topic's partitions over the members subscribed to it, one at a time."""
    assignment: dict[str, list[TopicPartition]] = {member: [] for member in subscriptions}
    members = cycle(sorted(subscriptions))
    for topic in sorted({topic for topics in subscriptions.values() for topic in topics}):
        for partition in range(partition_count(topic)):
            member = next(members)
            while topic not in subscriptions[member]:
                member = next(members)
            assignment[member].append(TopicPartition(topic, partition))
    return assignment

"""Kafka's CooperativeStickyAssignor: a balanced assignment that moves as few partitions as it can.

Members keep the partitions they own (as long as the claim is valid: the topic still subscribed and
existing, claimed at the group's newest generation and by no one else), unowned partitions go to the
least loaded members, then partitions move one at a time from a member holding at least two more than
another member that could take one, until none can. With every member subscribed to the same topics
this keeps the most partitions in place that any balanced assignment can.

For cooperative rebalancing (KIP-429), ``withhold_transfers`` then leaves out of this round every
partition that another member still owns: the owner revokes it, rejoins, and the partition is
handed out in the follow-up rebalance, so no partition is ever owned by two members at once.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping

from conveyor.log.consumer_protocol import Subscription
from conveyor.positions import TopicPartition

PROTOCOL_NAME = "cooperative-sticky"


def assign_sticky(
    subscriptions: Mapping[str, Subscription], partition_count: Callable[[str], int]
) -> dict[str, list[TopicPartition]]:
    """A balanced assignment of the subscribed topics' partitions that keeps valid ownership."""
    members = sorted(subscriptions)
    topics_of = {member: set(subscriptions[member].topics) for member in members}
    partitions = sorted(
        TopicPartition(topic, p)
        for topic in set().union(*topics_of.values())
        for p in range(partition_count(topic))
    )
    owned = valid_ownership(subscriptions, set(partitions))
    assignment = {member: set(owned[member]) for member in members}
    taken = set().union(*assignment.values())
    for partition in partitions:
        if partition in taken:
            continue
        candidates = [member for member in members if partition.topic in topics_of[member]]
        least_loaded = min(candidates, key=lambda member: (len(assignment[member]), member))
        assignment[least_loaded].add(partition)
    while _move_one(assignment, members, topics_of, owned):
        pass
    return {member: sorted(assignment[member]) for member in members}


def valid_ownership(
    subscriptions: Mapping[str, Subscription], partitions: set[TopicPartition]
) -> dict[str, set[TopicPartition]]:
    """The claims that count: only members at the newest generation claimed, only partitions that
    exist in topics the member still subscribes to, and no partition claimed twice."""
    newest = max((subscription.generation for subscription in subscriptions.values()), default=-1)
    claims = {
        member: {
            partition
            for partition in subscription.owned_partitions
            if partition in partitions and partition.topic in subscription.topics
        }
        if subscription.generation == newest
        else set()
        for member, subscription in subscriptions.items()
    }
    claimed_twice = {
        partition
        for partition, count in Counter(p for claimed in claims.values() for p in claimed).items()
        if count > 1
    }
    return {member: claimed - claimed_twice for member, claimed in claims.items()}


def withhold_transfers(
    assignment: Mapping[str, list[TopicPartition]], subscriptions: Mapping[str, Subscription]
) -> dict[str, list[TopicPartition]]:
    """Leave out every partition assigned to one member while another still claims to own it."""
    claimed_by: dict[TopicPartition, set[str]] = {}
    for member, subscription in subscriptions.items():
        for partition in subscription.owned_partitions:
            claimed_by.setdefault(partition, set()).add(member)
    return {
        member: [p for p in partitions if not claimed_by.get(p, set()) - {member}]
        for member, partitions in assignment.items()
    }


def _move_one(
    assignment: dict[str, set[TopicPartition]],
    members: list[str],
    topics_of: Mapping[str, set[str]],
    owned: Mapping[str, set[TopicPartition]],
) -> bool:
    """Move one partition from the most loaded member that can give one to a member holding at least
    two fewer (preferring a partition the giver did not own before); False when none can move."""
    for giver in sorted(members, key=lambda member: (-len(assignment[member]), member)):
        for partition in sorted(assignment[giver], key=lambda p: (p in owned[giver], p)):
            receivers = [m for m in members if m != giver and partition.topic in topics_of[m]]
            if not receivers:
                continue
            receiver = min(receivers, key=lambda member: (len(assignment[member]), member))
            if len(assignment[giver]) - len(assignment[receiver]) >= 2:
                assignment[giver].remove(partition)
                assignment[receiver].add(partition)
                return True
    return False

"""Kafka's CooperativeStickyAssignor: a balanced assignment that moves as few partitions as it can.

Members keep the partitions they own (as long as the claim is valid: the topic still subscribed and
existing, claimed at the group's newest generation and by no one else), unowned partitions go to the
least loaded members, then partitions move one at a time from a member holding at least two more than
another member that could take one, until none can. With every member subscribed to the same topics
this keeps the most partitions in place that any balanced assignment can.

For cooperative rebalancing (KIP-429), ``withhold_transfers`` then leaves out of this round every
partition that another member still owns: the owner revokes it, rejoins, and the partition is
handed out in the follow-up rebalance, so no partition is ever owned by two members at once. With
equal subscriptions (a sink connector's tasks) one follow-up settles the group; with different ones
a moved partition can shift the balance and take a further round.
"""

from __future__ import annotations

from bisect import insort
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
        for topic in set[str]().union(*topics_of.values())
        for p in range(partition_count(topic))
    )
    owned = valid_ownership(subscriptions, set(partitions))
    assignment = {member: set(owned[member]) for member in members}
    taken = set[TopicPartition]().union(*assignment.values())
    for partition in partitions:
        if partition in taken:
            continue
        candidates = [member for member in members if partition.topic in topics_of[member]]
        least_loaded = min(candidates, key=lambda member: (len(assignment[member]), member))
        assignment[least_loaded].add(partition)
    _balance(assignment, members, topics_of, owned)
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


def _balance(
    assignment: dict[str, set[TopicPartition]],
    members: list[str],
    topics_of: Mapping[str, set[str]],
    owned: Mapping[str, set[TopicPartition]],
) -> None:
    """Move partitions one at a time from the most loaded member that can give one to the least
    loaded member subscribed to its topic, while they differ by two or more; a giver gives the
    partitions it did not own before first."""
    subscribers = {
        topic: [member for member in members if topic in topics_of[member]]
        for topic in set[str]().union(*topics_of.values())
    }
    movable: dict[str, dict[str, list[TopicPartition]]] = {member: {} for member in members}

    def preference(member: str) -> Callable[[TopicPartition], tuple[bool, TopicPartition]]:
        return lambda partition: (partition in owned[member], partition)

    for member in members:
        for partition in sorted(assignment[member], key=preference(member)):
            movable[member].setdefault(partition.topic, []).append(partition)
    counts = {member: len(assignment[member]) for member in members}
    while True:
        least = min(counts.values(), default=0)
        move = None
        for giver in sorted(members, key=lambda member: (-counts[member], member)):
            if counts[giver] - least < 2:
                break
            options = []
            for topic, held in movable[giver].items():
                receiver = min(
                    (m for m in subscribers[topic] if m != giver), key=lambda m: (counts[m], m), default=None
                )
                if held and receiver is not None and counts[giver] - counts[receiver] >= 2:
                    options.append((preference(giver)(held[0]), receiver))
            if options:
                (_, partition), receiver = min(options)
                movable[giver][partition.topic].pop(0)
                move = giver, receiver, partition
                break
        if move is None:
            return
        giver, receiver, partition = move
        assignment[giver].remove(partition)
        assignment[receiver].add(partition)
        counts[giver] -= 1
        counts[receiver] += 1
        insort(movable[receiver].setdefault(partition.topic, []), partition, key=preference(receiver))

"""``partition.assignment.strategy``: which assignors a consumer offers its group, and how it rebalances.

As Kafka's consumer: the setting lists assignor class names in order of preference, the default is
``RangeAssignor`` then ``CooperativeStickyAssignor`` (and Kafka Connect leaves its sink consumers at
that default); the group uses the first one every member offers. A consumer rebalances cooperatively
(KIP-429) only when every assignor it lists supports it, so the default stays eager and a second
rolling change to ``CooperativeStickyAssignor`` alone turns cooperative rebalancing on. Offered:
``RangeAssignor``, ``RoundRobinAssignor`` and ``CooperativeStickyAssignor``; not the eager
``StickyAssignor``, which librdkafka (the Kafka backend's client) does not have either.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum

from conveyor.log import range_assignor, round_robin_assignor, sticky_assignor
from conveyor.log.api import JoinResult
from conveyor.log.consumer_protocol import Subscription, decode_subscription, encode_assignment
from conveyor.log.errors import InvalidConfigError
from conveyor.positions import TopicPartition

RANGE_ASSIGNOR = "org.apache.kafka.clients.consumer.RangeAssignor"
ROUND_ROBIN_ASSIGNOR = "org.apache.kafka.clients.consumer.RoundRobinAssignor"
COOPERATIVE_STICKY_ASSIGNOR = "org.apache.kafka.clients.consumer.CooperativeStickyAssignor"
#: Kafka's eager sticky assignor, which neither backend offers (librdkafka has no such assignor).
STICKY_ASSIGNOR = "org.apache.kafka.clients.consumer.StickyAssignor"
DEFAULT_STRATEGY = f"{RANGE_ASSIGNOR},{COOPERATIVE_STICKY_ASSIGNOR}"
STRATEGY_SETTING = "partition.assignment.strategy"


class RebalanceProtocol(Enum):
    """Eager: give up every partition before each rebalance. Cooperative: keep them, give up only
    those the new assignment moves, then rejoin so that they can be handed out."""

    EAGER = "eager"
    COOPERATIVE = "cooperative"


PartitionCount = Callable[[str], int]


@dataclass(frozen=True, slots=True)
class PartitionAssignor:
    """One assignor: its group protocol name, whether it supports cooperative rebalancing, and how it
    computes each member's partitions from the members' subscriptions."""

    name: str
    cooperative: bool
    assign: Callable[[Mapping[str, Subscription], PartitionCount], dict[str, list[TopicPartition]]]


def _range(
    subscriptions: Mapping[str, Subscription], partition_count: PartitionCount
) -> dict[str, list[TopicPartition]]:
    topics = {member: subscription.topics for member, subscription in subscriptions.items()}
    return range_assignor.assign_ranges(topics, partition_count)


def _round_robin(
    subscriptions: Mapping[str, Subscription], partition_count: PartitionCount
) -> dict[str, list[TopicPartition]]:
    topics = {member: subscription.topics for member, subscription in subscriptions.items()}
    return round_robin_assignor.assign_round_robin(topics, partition_count)


def _cooperative_sticky(
    subscriptions: Mapping[str, Subscription], partition_count: PartitionCount
) -> dict[str, list[TopicPartition]]:
    assignment = sticky_assignor.assign_sticky(subscriptions, partition_count)
    return sticky_assignor.withhold_transfers(assignment, subscriptions)


ASSIGNORS = {
    RANGE_ASSIGNOR: PartitionAssignor(range_assignor.PROTOCOL_NAME, False, _range),
    ROUND_ROBIN_ASSIGNOR: PartitionAssignor(round_robin_assignor.PROTOCOL_NAME, False, _round_robin),
    COOPERATIVE_STICKY_ASSIGNOR: PartitionAssignor(sticky_assignor.PROTOCOL_NAME, True, _cooperative_sticky),
}


def assignors_from_config(config: Mapping[str, object]) -> list[PartitionAssignor]:
    """The assignors ``partition.assignment.strategy`` names (a list or a comma-separated string)."""
    raw = config.get(STRATEGY_SETTING, DEFAULT_STRATEGY)
    names = raw if isinstance(raw, list | tuple) else str(raw).split(",")
    chosen: list[PartitionAssignor] = []
    for name in (str(n).strip().removeprefix("class ").strip() for n in names):
        if not name:
            continue
        if name == STICKY_ASSIGNOR:
            raise InvalidConfigError(
                f"Setting {STRATEGY_SETTING}: the eager {name} is not supported (librdkafka has no such "
                f"assignor); {COOPERATIVE_STICKY_ASSIGNOR} assigns the same way and rebalances cooperatively"
            )
        if name not in ASSIGNORS:
            raise InvalidConfigError(
                f"Setting {STRATEGY_SETTING}: unknown assignor {name!r}; known: {', '.join(ASSIGNORS)}"
            )
        chosen.append(ASSIGNORS[name])
    if not chosen:
        raise InvalidConfigError(f"Setting {STRATEGY_SETTING} names no assignor")
    return chosen


def rebalance_protocol(assignors: Sequence[PartitionAssignor]) -> RebalanceProtocol:
    """Cooperative only when every configured assignor supports it, as Kafka's ConsumerCoordinator."""
    if all(assignor.cooperative for assignor in assignors):
        return RebalanceProtocol.COOPERATIVE
    return RebalanceProtocol.EAGER


def group_assignor(
    assignors: Sequence[PartitionAssignor], partition_count: PartitionCount
) -> Callable[[JoinResult], dict[str, bytes]]:
    """A ``GroupMember`` assignor: run the protocol the group chose over the members' subscriptions."""
    by_name = {assignor.name: assignor for assignor in assignors}

    def assign(joined: JoinResult) -> dict[str, bytes]:
        subscriptions = {member: decode_subscription(data) for member, data in joined.members.items()}
        partitions = by_name[joined.protocol].assign(subscriptions, partition_count)
        return {member: encode_assignment(partitions.get(member, [])) for member in subscriptions}

    return assign

"""What consumers of a group tell each other through the coordinator (Kafka's ``ConsumerProtocol``).

Each member's protocol metadata is its subscription: the topics, the partitions it owns now and the
generation it owned them in (Kafka's ``Subscription`` v2, the fields cooperative rebalancing needs);
the leader sends each member back the partitions it may hold. Both travel as JSON.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

from conveyor.positions import TopicPartition

PROTOCOL_TYPE = "consumer"
NO_GENERATION = -1


@dataclass(frozen=True, slots=True)
class Subscription:
    """One member's view at join time: what it wants, and what it holds from which generation."""

    topics: tuple[str, ...]
    owned_partitions: tuple[TopicPartition, ...] = ()
    generation: int = NO_GENERATION


def encode_subscription(subscription: Subscription) -> bytes:
    return json.dumps(
        {
            "topics": sorted(set(subscription.topics)),
            "owned": [[tp.topic, tp.partition] for tp in sorted(subscription.owned_partitions)],
            "generation": subscription.generation,
        }
    ).encode()


def decode_subscription(metadata: bytes) -> Subscription:
    """Read a subscription; a bare JSON list of topics (the first format) owns nothing."""
    data = json.loads(metadata)
    if isinstance(data, list):
        return Subscription(tuple(data))
    return Subscription(
        tuple(data["topics"]),
        tuple(TopicPartition(topic, partition) for topic, partition in data.get("owned", [])),
        int(data.get("generation", NO_GENERATION)),
    )


def encode_assignment(partitions: Iterable[TopicPartition]) -> bytes:
    return json.dumps([[tp.topic, tp.partition] for tp in sorted(partitions)]).encode()


def decode_assignment(data: bytes) -> list[TopicPartition]:
    return [TopicPartition(topic, partition) for topic, partition in json.loads(data or b"[]")]

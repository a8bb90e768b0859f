"""Topic, group and transactional id names under a log's namespace (``kafka://...?namespace=``)."""

from __future__ import annotations

from dataclasses import dataclass

from conveyor.positions import TopicPartition

#: Kafka's own topics, never listed as the log's.
INTERNAL_TOPICS = frozenset({"__consumer_offsets", "__transaction_state", "__share_group_state"})


@dataclass(frozen=True, slots=True)
class Namespace:
    """Adds the prefix on the way to Kafka and strips it on the way back."""

    prefix: str = ""

    def outer(self, name: str) -> str:
        return self.prefix + name

    def inner(self, name: str) -> str:
        return name[len(self.prefix) :]

    def owns(self, name: str) -> bool:
        return name.startswith(self.prefix) and name not in INTERNAL_TOPICS

    def outer_partition(self, partition: TopicPartition) -> tuple[str, int]:
        return self.prefix + partition.topic, partition.partition

"""A partition of a topic, as sink tasks see their assignment."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class TopicPartition:
    """One partition of one topic (Kafka's ``TopicPartition``); prints as ``topic-partition``."""

    topic: str
    partition: int

    def __str__(self) -> str:
        return f"{self.topic}-{self.partition}"

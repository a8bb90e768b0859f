"""Where records live in the log: one partition of a topic, and where a written record landed.

The log and the connector API both speak of them, so they sit here, importing nothing;
``conveyor.log`` and ``conveyor.api`` re-export them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True, slots=True)
class TopicPartition:
    """One partition of one topic (Kafka's ``TopicPartition``); prints as ``topic-partition``."""

    topic: str
    partition: int

    def __str__(self) -> str:
        return f"{self.topic}-{self.partition}"


@dataclass(frozen=True, slots=True)
class RecordMetadata:
    """Where the log appended a record (``send``'s ``on_delivery``, a source task's ``commit_record``).

    ``timestamp`` is ``None`` where the runtime does not learn it.
    """

    topic: str
    partition: int
    offset: int
    timestamp: int | None = None

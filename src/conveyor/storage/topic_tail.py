"""Reading an internal topic from the beginning and then up to its current end, as Kafka's KafkaBasedLog."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping

from conveyor.log.api import ConsumerRecord, IsolationLevel, Log
from conveyor.log.errors import LogError
from conveyor.positions import TopicPartition
from conveyor.storage.errors import StorageError, StorageTimeoutError

RecordHandler = Callable[[ConsumerRecord], None]

_POLL_INTERVAL_S = 0.01


CREATION_CONFIG = "internal.topics.automatic.creation.enable"


def ensure_topic(
    log: Log,
    topic: str,
    partitions: int,
    config: Mapping[str, str],
    replication_factor: int = -1,
    create_missing: bool = True,
) -> int:
    """Create ``topic`` if it is missing (unless ``create_missing`` is off: then a missing topic is an error
    that says to create it); return its partition count (an existing topic keeps its own)."""
    admin = log.admin()
    if not create_missing:
        if topic not in admin.list_topics():
            raise StorageError(
                f"Internal topic {topic} does not exist and {CREATION_CONFIG} is false: create it "
                f"(with cleanup.policy={config.get('cleanup.policy', 'compact')}) before starting the "
                f"worker, or set {CREATION_CONFIG}=true"
            )
        return admin.describe_topics([topic])[topic].partitions
    try:
        admin.create_topic(
            topic, partitions, dict(config), exist_ok=True, replication_factor=replication_factor
        )
        return admin.describe_topics([topic])[topic].partitions
    except LogError as error:
        raise StorageError(f"Could not create or describe internal topic {topic}: {error}") from error


class TopicTail:
    """A consumer of every partition of one topic that hands each record to a handler, in log order.

    Not safe for concurrent use: the stores serialize calls to ``read_to_end``.
    """

    def __init__(
        self,
        log: Log,
        topic: str,
        isolation_level: IsolationLevel = "read_committed",
        consumer_config: Mapping[str, str] | None = None,
    ) -> None:
        """``consumer_config``: settings of the tail's consumer, e.g. a short ``fetch.wait.max.ms`` (how long
        the Kafka backend lets the broker hold a fetch that finds nothing new), which reads a record written
        just before ``read_to_end`` sooner at the cost of more fetches while the topic is idle."""
        self._topic = topic
        self._partitions: list[TopicPartition] = []
        self._consumer = log.consumer(isolation_level=isolation_level, **dict(consumer_config or {}))

    @property
    def topic(self) -> str:
        return self._topic

    def start(self, partitions: int) -> None:
        """Assign all ``partitions`` of the topic and position at their beginning."""
        self._partitions = [TopicPartition(self._topic, p) for p in range(partitions)]
        try:
            self._consumer.assign(self._partitions)
            self._consumer.seek_to_beginning(self._partitions)
        except LogError as error:
            raise StorageError(f"Could not start reading internal topic {self._topic}: {error}") from error

    def read_to_end(self, handle: RecordHandler, timeout_s: float) -> None:
        """Hand every record up to the end seen at the call to ``handle``; ``StorageTimeoutError`` if slow.

        The end is the high watermark, also for a read_committed reader: its last stable offset stops at
        the first transaction still open, and a record another producer committed after it (a source
        task's latest offset, beside another task's open transaction on the same partition) would be
        missed. The read therefore waits until the transactions open at the call have ended, as Kafka's
        KafkaBasedLog does."""
        deadline = time.monotonic() + timeout_s
        try:
            ends = self._consumer.high_watermarks(self._partitions)
            while self._behind(ends):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise StorageTimeoutError(
                        f"Timed out after {timeout_s}s reading internal topic {self._topic} to its end"
                    )
                for batch in self._consumer.poll_batch(timeout=min(remaining, _POLL_INTERVAL_S)):
                    for record in batch.records():
                        handle(record)
        except LogError as error:
            raise StorageError(f"Could not read internal topic {self._topic}: {error}") from error

    def close(self) -> None:
        self._consumer.close()

    def _behind(self, ends: Mapping[TopicPartition, int]) -> bool:
        return any(self._consumer.position(tp) < end for tp, end in ends.items())

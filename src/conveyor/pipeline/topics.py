"""Creates the topics a task writes to, the first time it writes to each (Kafka's topic creation).

Kafka Connect creates a source connector's topics from its `topic.creation.*` settings, and brokers
create others on first use; Conveyor does both here: `topic.creation.default.partitions` (when set and
positive) or one partition.
"""

from __future__ import annotations

from collections.abc import Mapping

from conveyor.log import Log


class TopicCreator:
    """Remembers which topics exist so that the check costs one set lookup per batch."""

    def __init__(self, log: Log, connector_config: Mapping[str, str]) -> None:
        self._log = log
        partitions = int(connector_config.get("topic.creation.default.partitions", "-1"))
        self._partitions = partitions if partitions > 0 else 1
        self._known: set[str] = set()

    @property
    def known(self) -> list[str]:
        """The topics the task has written to (each made sure of before its first batch), sorted."""
        return sorted(self._known)

    def ensure(self, topic: str) -> None:
        if topic in self._known:
            return
        admin = self._log.admin()
        if topic not in admin.list_topics():
            admin.create_topic(topic, partitions=self._partitions, exist_ok=True)
        self._known.add(topic)

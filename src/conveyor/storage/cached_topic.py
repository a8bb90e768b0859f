"""An internal topic read into a cache: created when missing, tailed, every record applied in order."""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import ClassVar

from conveyor.log.api import ConsumerRecord, IsolationLevel, Log, Producer
from conveyor.storage.errors import StorageError
from conveyor.storage.topic_tail import TopicTail, ensure_topic

READ_TIMEOUT_S = 30.0


class CachedTopic(ABC):
    """What the config, offset and status stores share: the topic's lifecycle, reading to its end, a
    producer."""

    store_name = "Store"
    reentrant_reads: ClassVar[bool] = False
    """Whether ``_apply`` may read to the end again on the reading thread (a listener that writes)."""

    def __init__(
        self,
        log: Log,
        topic: str,
        partitions: int,
        settings: Mapping[str, str],
        replication_factor: int = -1,
        isolation_level: IsolationLevel = "read_committed",
        consumer_config: Mapping[str, str] | None = None,
        create_missing: bool = True,
    ) -> None:
        """`isolation_level` and `consumer_config` are the settings of the consumer the topic is read with;
        without `create_missing` a missing topic fails `start` instead of being created."""
        self._log = log
        self._isolation_level: IsolationLevel = isolation_level
        self._consumer_config = dict(consumer_config or {})
        self._replication_factor = replication_factor
        self._create_missing = create_missing
        self._topic = topic
        self._requested_partitions = partitions
        self._partitions = partitions
        self._settings = dict(settings)
        self._read_lock: threading.Lock | threading.RLock = (
            threading.RLock() if self.reentrant_reads else threading.Lock()
        )
        self._write_lock = threading.Lock()
        self._tail: TopicTail | None = None
        self._producer: Producer | None = None

    @property
    def topic(self) -> str:
        return self._topic

    @property
    def log(self) -> Log:
        """The log the topic is on."""
        return self._log

    def start(self, timeout_s: float = READ_TIMEOUT_S) -> None:
        """Create the topic if missing (an existing one keeps its partition count) and read it to its end."""
        self._partitions = ensure_topic(
            self._log,
            self._topic,
            self._requested_partitions,
            self._settings,
            self._replication_factor,
            self._create_missing,
        )
        self._check_partitions(self._partitions)
        tail = TopicTail(self._log, self._topic, self._isolation_level, self._consumer_config)
        tail.start(self._partitions)
        self._tail = tail
        self.read_to_end(timeout_s)

    def _check_partitions(self, partitions: int) -> None:  # noqa: B027 - a hook most stores leave as is
        """Refuse a topic with ``partitions`` before reading it; any count is fine by default."""

    def stop(self) -> None:
        with self._write_lock:
            if self._producer is not None:
                self._producer.close()
                self._producer = None
        if self._tail is not None:
            self._tail.close()
            self._tail = None

    def read_to_end(self, timeout_s: float = READ_TIMEOUT_S) -> None:
        """Apply every record written so far, by any process."""
        with self._read_lock:
            if self._tail is None:
                raise StorageError(f"{self.store_name} on {self._topic} is not started")
            self._tail.read_to_end(self._apply, timeout_s)

    def _own_producer(self) -> Producer:
        """The store's plain producer, created on first use; call with the write lock held."""
        if self._tail is None:
            raise StorageError(f"{self.store_name} on {self._topic} is not started")
        if self._producer is None:
            self._producer = self._log.producer()
        return self._producer

    @abstractmethod
    def _apply(self, record: ConsumerRecord) -> None:
        """Fold one record of the topic into the cache."""

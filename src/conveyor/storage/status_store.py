"""The status store: the latest state of every connector and task, kept in the compacted status topic."""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from typing import TypeVar

from conveyor.log.api import ConsumerRecord, Log
from conveyor.log.errors import LogError
from conveyor.storage import status_records
from conveyor.storage.cached_topic import READ_TIMEOUT_S, CachedTopic
from conveyor.storage.errors import StorageError
from conveyor.storage.json_values import from_json_bytes
from conveyor.storage.status_records import Status, TopicStatus

logger = logging.getLogger(__name__)

K = TypeVar("K", str, int)

DEFAULT_STATUS_TOPIC = "connect-status"
DEFAULT_STATUS_PARTITIONS = 5
STATUS_TOPIC_SETTINGS = {"cleanup.policy": "compact"}


class StatusStore(CachedTopic):
    """Statuses written by any worker, read back into a cache; safe to call from several threads.

    A write is one keyed record, flushed at once, and is visible in this store's cache immediately; the
    statuses other workers write appear after ``read_to_end()``.
    """

    store_name = "Status store"

    def __init__(
        self,
        log: Log,
        topic: str = DEFAULT_STATUS_TOPIC,
        partitions: int = DEFAULT_STATUS_PARTITIONS,
        replication_factor: int = -1,
        create_missing: bool = True,
    ) -> None:
        super().__init__(
            log, topic, partitions, STATUS_TOPIC_SETTINGS, replication_factor, create_missing=create_missing
        )
        self._connectors: dict[str, Status] = {}
        self._tasks: dict[str, dict[int, Status]] = {}
        self._topics: dict[str, dict[str, TopicStatus]] = {}
        self._cache_lock = threading.Lock()

    def start(self, timeout_s: float = READ_TIMEOUT_S, *, writable: bool = True) -> None:
        """Read the topic to its end, and (if `writable`) make the producer now: a new Kafka producer takes
        most of a second to get its producer id and the topic's metadata, which the first status of a
        connector would otherwise wait for."""
        super().start(timeout_s)
        if not writable:
            return
        with self._write_lock:
            self._own_producer().partitions_for(self._topic)

    def put_connector(self, connector: str, status: Status, *, safe: bool = False) -> None:
        """Write a connector's status; with ``safe``, never over a newer generation's from another worker
        (read first, so that a worker waking from a pause sees what others wrote meanwhile)."""
        self._put(connector, None, status, safe)

    def put_task(self, connector: str, task: int, status: Status, *, safe: bool = False) -> None:
        """Write a task's status; with ``safe``, never over a newer generation's from another worker
        (read first, as for a connector's)."""
        self._put(connector, task, status, safe)

    def _put(self, connector: str, task: int | None, status: Status, safe: bool) -> None:
        with self._write_lock:
            if safe:
                self.read_to_end()
                if not _can_overwrite(self._cached(connector, task), status):
                    unit = connector if task is None else f"{connector}-{task}"
                    logger.debug("Not overwriting newer status of %s with %s", unit, status)
                    return
            self._write(connector, task, status)

    def _cached(self, connector: str, task: int | None) -> Status | None:
        return self.connector(connector) if task is None else self.task(connector, task)

    def put_all_safe(self, statuses: Sequence[tuple[str, int | None, Status]]) -> None:
        """Write several statuses of (connector, task or None for the connector's own) as `put_connector`
        and `put_task` with ``safe`` do, reading the topic to its end once and flushing once: the
        UNASSIGNED statuses of everything a rebalance stopped, which one at a time took a read each."""
        if not statuses:
            return
        with self._write_lock:
            self.read_to_end()
            for connector, task, status in statuses:
                if not _can_overwrite(self._cached(connector, task), status):
                    continue
                self._write(connector, task, status, flush=False)
            try:
                self._own_producer().flush()
            except LogError as error:
                raise StorageError(f"Failed to write statuses to {self._topic}: {error}") from error

    def delete_connector(self, connector: str) -> None:
        """Tombstone the statuses of a connector, of every task of it and of every topic it used that
        this store knows (KIP-558: a deleted connector's active topics go with it)."""
        with self._write_lock:
            with self._cache_lock:
                tasks = sorted(self._tasks.get(connector, {}))
                topics = sorted(self._topics.get(connector, {}))
            for topic in topics:
                self._send(status_records.topic_status_key(connector, topic), None, flush=False)
            for task in tasks:
                self._send(status_records.task_status_key(connector, task), None, flush=False)
            self._send(status_records.connector_status_key(connector), None)
            with self._cache_lock:
                self._connectors.pop(connector, None)
                self._tasks.pop(connector, None)
                self._topics.pop(connector, None)

    def put_topic(self, status: TopicStatus) -> None:
        """Record that a connector uses a topic, unless this store knows it does already."""
        with self._write_lock:
            if self.topic_status(status.connector, status.topic) is not None:
                return
            key = status_records.topic_status_key(status.connector, status.topic)
            self._send(key, status_records.topic_status_value(status))
            with self._cache_lock:
                self._topics.setdefault(status.connector, {})[status.topic] = status

    def delete_topics(self, connector: str) -> None:
        """Forget every topic the connector used (``PUT /connectors/{c}/topics/reset``)."""
        with self._write_lock:
            with self._cache_lock:
                topics = sorted(self._topics.pop(connector, {}))
            for topic in topics:
                self._send(status_records.topic_status_key(connector, topic), None, flush=False)
            if topics:
                self._own_producer().flush()

    def topic_status(self, connector: str, topic: str) -> TopicStatus | None:
        with self._cache_lock:
            return self._topics.get(connector, {}).get(topic)

    def topic_statuses(self, connector: str) -> list[TopicStatus]:
        """The topics the connector used, by name."""
        with self._cache_lock:
            return [status for _, status in sorted(self._topics.get(connector, {}).items())]

    def connector(self, connector: str) -> Status | None:
        with self._cache_lock:
            return self._connectors.get(connector)

    def task(self, connector: str, task: int) -> Status | None:
        with self._cache_lock:
            return self._tasks.get(connector, {}).get(task)

    def tasks(self, connector: str) -> dict[int, Status]:
        """The statuses of the connector's tasks, by task number."""
        with self._cache_lock:
            return dict(sorted(self._tasks.get(connector, {}).items()))

    def connectors(self) -> list[str]:
        """Connectors with a status, sorted."""
        with self._cache_lock:
            return sorted(self._connectors)

    def _write(self, connector: str, task: int | None, status: Status, flush: bool = True) -> None:
        """Write the status of ``connector``'s own (``task`` None) or of one of its tasks, cache first."""
        value = status_records.status_value(status)
        if task is None:
            self._send_cached(
                status_records.connector_status_key(connector),
                value,
                self._connectors,
                connector,
                status,
                flush,
            )
            return
        with self._cache_lock:
            tasks = self._tasks.setdefault(connector, {})
        self._send_cached(status_records.task_status_key(connector, task), value, tasks, task, status, flush)

    def _send_cached(
        self, key: bytes, value: bytes, cache: dict[K, Status], entry: K, status: Status, flush: bool = True
    ) -> None:
        """Cache ``status`` and then write it: the reader, which may apply this record and newer ones
        before the write returns, then leaves the cache as the topic orders them. A failed write puts
        back what was cached before."""
        with self._cache_lock:
            previous = cache.get(entry)
            cache[entry] = status
        try:
            self._send(key, value, flush)
        except StorageError:
            with self._cache_lock:
                if cache.get(entry) is status:
                    if previous is None:
                        cache.pop(entry, None)
                    else:
                        cache[entry] = previous
            raise

    def _send(self, key: bytes, value: bytes | None, flush: bool = True) -> None:
        producer = self._own_producer()
        try:
            producer.send(self._topic, value, key=key)
            if flush:
                producer.flush()
        except LogError as error:
            raise StorageError(f"Failed to write {key.decode()} to {self._topic}: {error}") from error

    def _apply(self, record: ConsumerRecord) -> None:
        key = record.key.decode(errors="replace") if record.key is not None else ""
        if key.startswith(status_records.CONNECTOR_STATUS_PREFIX):
            self._apply_connector(key[len(status_records.CONNECTOR_STATUS_PREFIX) :], record.value)
        elif key.startswith(status_records.TASK_STATUS_PREFIX):
            task_id = status_records.parse_task_status_key(key[len(status_records.TASK_STATUS_PREFIX) :])
            if task_id is None:
                logger.warning("Ignoring status record with malformed task key %s", key)
                return
            self._apply_task(*task_id, record.value)
        elif key.startswith(status_records.TOPIC_STATUS_PREFIX):
            self._apply_topic(key[len(status_records.TOPIC_STATUS_PREFIX) :], record.value)
        else:
            logger.debug("Ignoring status record with a key Conveyor does not use: %s", key)

    def _apply_connector(self, connector: str, value: bytes | None) -> None:
        if value is None:
            with self._cache_lock:
                self._connectors.pop(connector, None)
            return
        status = _parse(value)
        if status is None:
            logger.warning("Ignoring malformed status of connector %s: %r", connector, value)
            return
        with self._cache_lock:
            self._connectors[connector] = status

    def _apply_topic(self, rest: str, value: bytes | None) -> None:
        names = status_records.parse_topic_status_key(rest)
        if names is None:
            logger.warning("Ignoring topic status record with malformed key %s", rest)
            return
        topic, connector = names
        if value is None:
            with self._cache_lock:
                self._topics.get(connector, {}).pop(topic, None)
            return
        try:
            status = status_records.parse_topic_status(from_json_bytes(value))
        except ValueError:
            status = None
        if status is None:
            logger.warning(
                "Ignoring malformed status of topic %s of connector %s: %r", topic, connector, value
            )
            return
        with self._cache_lock:
            self._topics.setdefault(connector, {})[topic] = status

    def _apply_task(self, connector: str, task: int, value: bytes | None) -> None:
        if value is None:
            with self._cache_lock:
                self._tasks.get(connector, {}).pop(task, None)
            return
        status = _parse(value)
        if status is None:
            logger.warning("Ignoring malformed status of task %s-%d: %r", connector, task, value)
            return
        with self._cache_lock:
            self._tasks.setdefault(connector, {})[task] = status


def _parse(value: bytes) -> Status | None:
    try:
        return status_records.parse_status(from_json_bytes(value))
    except ValueError:
        return None


def _can_overwrite(current: Status | None, new: Status) -> bool:
    """Kafka's safe-write rule: no status yet, the same worker, or a generation at least as new."""
    return current is None or current.worker_id == new.worker_id or current.generation <= new.generation

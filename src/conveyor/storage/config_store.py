"""The config store: connector and task configs, target states, task counts, restarts and session keys."""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping, Sequence

from conveyor.log.api import ConsumerRecord, Log
from conveyor.storage import config_records as records
from conveyor.storage.cached_topic import READ_TIMEOUT_S, CachedTopic
from conveyor.storage.cluster_config_state import ClusterConfigState
from conveyor.storage.config_listener import ConfigUpdateListener, Notification
from conveyor.storage.config_log_state import ConfigLogState
from conveyor.storage.config_records import SessionKey, TargetState
from conveyor.storage.config_writer import ConfigWriter, KeyValue, ProducerFactory
from conveyor.storage.errors import StorageError
from conveyor.storage.json_values import from_json_bytes

logger = logging.getLogger(__name__)

DEFAULT_CONFIG_TOPIC = "connect-configs"
CONFIG_TOPIC_SETTINGS = {"cleanup.policy": "compact"}
CONFIG_FETCH_WAIT_MS = 10
"""A leader reads each config write back before it acts on it; on Kafka a fetch held for librdkafka's
default 100 ms made each write and read take 110-130 ms, this one 15-30 ms."""


class ConfigStore(CachedTopic):
    """Kafka Connect's config topic: one partition, compacted, read from the start into a snapshot.

    Every write waits until it has been read back, so ``snapshot()`` shows it. Listeners fire on the
    reading thread for records read after ``start()`` returned. Reading is read_committed, so a fenced
    leader's aborted writes are never seen. With ``transactional_id`` (``connect-cluster-<group.id>``),
    privileged writes need ``claim_write_privileges()`` and each is one transaction; target states are
    always written plainly because any worker may write them, as in Kafka.
    """

    store_name = "Config store"
    reentrant_reads = True

    def __init__(
        self,
        log: Log,
        topic: str = DEFAULT_CONFIG_TOPIC,
        *,
        transactional_id: str | None = None,
        producer_factory: ProducerFactory | None = None,
        replication_factor: int = -1,
        create_missing: bool = True,
    ) -> None:
        super().__init__(
            log,
            topic,
            1,
            CONFIG_TOPIC_SETTINGS,
            replication_factor,
            consumer_config={"fetch.wait.max.ms": str(CONFIG_FETCH_WAIT_MS)},
            create_missing=create_missing,
        )
        self._writer = ConfigWriter(log, topic, transactional_id, producer_factory)
        self._state = ConfigLogState()
        self._state_lock = threading.Lock()
        self._listeners: list[ConfigUpdateListener] = []
        self._started = False

    def add_listener(self, listener: ConfigUpdateListener) -> None:
        self._listeners.append(listener)

    def start(self, timeout_s: float = READ_TIMEOUT_S) -> None:
        """Create the topic if missing (it must have one partition) and read it to its end."""
        super().start(timeout_s)
        self._started = True

    def _check_partitions(self, partitions: int) -> None:
        if partitions != 1:
            raise StorageError(
                f"Config topic {self._topic} must have a single partition to keep connector configs "
                f"consistent, but has {partitions}"
            )

    def stop(self) -> None:
        self._writer.close()
        super().stop()

    def snapshot(self) -> ClusterConfigState:
        with self._state_lock:
            return self._state.snapshot()

    def claim_write_privileges(self) -> None:
        """As the KIP-618 leader, take over the transactional id, fencing any previous leader's writer."""
        self._writer.claim_write_privileges()

    def relinquish_write_privileges(self) -> None:
        """Close the transactional writer (a worker that is no longer leader); plain writes go on."""
        self._writer.relinquish_write_privileges()

    @property
    def has_write_privileges(self) -> bool:
        """Whether privileged writes may be made now: always without a transactional id."""
        return self._writer.has_write_privileges

    def put_connector_config(
        self, connector: str, config: Mapping[str, str], target_state: TargetState | None = None
    ) -> None:
        """Create or update a connector, writing its initial target state first when given (KIP-980)."""
        batch: list[KeyValue] = []
        if target_state is not None:
            batch.append((records.target_state_key(connector), records.target_state_value(target_state)))
        batch.append((records.connector_key(connector), records.properties_value(config)))
        self._write(batch)

    def remove_connector_config(self, connector: str) -> None:
        """Delete a connector: tombstones for its config and its target state."""
        self._write([(records.connector_key(connector), None), (records.target_state_key(connector), None)])

    def put_task_configs(self, connector: str, configs: Sequence[Mapping[str, str]]) -> None:
        """Write the task configs and then the commit record that makes them visible, together."""
        self.read_to_end()
        batch: list[KeyValue] = [
            (records.task_key(connector, task), records.properties_value(config))
            for task, config in enumerate(configs)
        ]
        batch.append((records.commit_key(connector), records.commit_value(len(configs))))
        self._write(batch)

    def put_target_state(self, connector: str, state: TargetState) -> None:
        """Pause, stop or resume a connector; a plain write any worker may make."""
        self._writer.send_plain([(records.target_state_key(connector), records.target_state_value(state))])
        self.read_to_end()

    def put_task_count_record(self, connector: str, task_count: int) -> None:
        """Record how many task producers may be live for the connector, after fencing (KIP-618)."""
        self._write([(records.task_count_record_key(connector), records.task_count_record_value(task_count))])

    def put_restart_request(self, connector: str, include_tasks: bool, only_failed: bool) -> None:
        self._write([(records.restart_key(connector), records.restart_value(include_tasks, only_failed))])

    def put_session_key(self, session_key: SessionKey) -> None:
        """As the leader, distribute a new session key (KIP-507); a privileged write, as in Kafka."""
        self._write([(records.SESSION_KEY_KEY.encode(), records.session_key_value(session_key))])

    def _write(self, batch: Sequence[KeyValue]) -> None:
        self._writer.send_privileged(batch)
        self.read_to_end()

    def _apply(self, record: ConsumerRecord) -> None:
        if record.key is None:
            logger.error("Ignoring config record at offset %d without a key", record.offset)
            return
        try:
            key = record.key.decode()
            value = None if record.value is None else from_json_bytes(record.value)
        except ValueError:
            logger.error("Ignoring unreadable config record at offset %d", record.offset)
            return
        with self._state_lock:
            notification = self._state.apply(record.offset, key, value)
        if notification is not None and self._started:
            self._notify(notification)

    def _notify(self, notification: Notification) -> None:
        for listener in list(self._listeners):
            try:
                notification(listener)
            except Exception:
                logger.exception("Config update listener %r failed", listener)

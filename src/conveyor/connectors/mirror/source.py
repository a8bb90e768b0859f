"""``MirrorSourceConnector``: replicates topics of the source cluster into the worker's log (the target).

Its tasks are source tasks: on a worker with ``exactly.once.source.support=enabled`` each poll's records
and their upstream offsets go into one transaction (KIP-618), which is how Kafka's MirrorMaker 2 gets
exactly-once today.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from typing import Any

from conveyor import __version__
from conveyor.api import ExactlyOnceSupport, SourceConnector, SourceTask, Task
from conveyor.connectors.configured_connector import ConfiguredConnector
from conveyor.connectors.mirror.bytes_only import require_byte_array_converters
from conveyor.connectors.mirror.config import (
    CONSUMER_ISOLATION_CONFIG,
    HEARTBEATS_REPLICATION_CONFIG,
    REFRESH_TOPICS_ENABLED_CONFIG,
    REFRESH_TOPICS_INTERVAL_CONFIG,
    SOURCE_CONFIG_DEF,
    TASK_PARTITIONS_CONFIG,
    MirrorSettings,
    topic_filter,
)
from conveyor.connectors.mirror.downstream_syncs import DownstreamOffsetSyncs
from conveyor.connectors.mirror.remote_topics import (
    create_remote_topics,
    format_partitions,
    is_cycle,
    is_heartbeats_topic,
    parse_partitions,
    replicable_partitions,
)
from conveyor.connectors.mirror.replication_metrics import ReplicationMetrics, batch_bytes
from conveyor.data import OPTIONAL_BYTES_SCHEMA, Header, SourceRecord
from conveyor.log import Consumer, Log, TopicPartition, open_log

logger = logging.getLogger(__name__)

POLL_TIMEOUT_S = 0.5
MAX_POLL_RECORDS = 1000


class MirrorSourceConnector(ConfiguredConnector, SourceConnector):
    """Selects the source topics (``topics`` minus ``topics.exclude``), creates their remote topics and
    spreads their partitions over the tasks; watches for new topics every
    ``refresh.topics.interval.seconds``."""

    CONFIG_DEF = SOURCE_CONFIG_DEF

    def __init__(self) -> None:
        super().__init__()
        self._settings: MirrorSettings | None = None
        self._source: Log | None = None
        self._partitions: list[TopicPartition] = []
        self._stopping = threading.Event()
        self._refresher: threading.Thread | None = None

    def _check(self, props: Mapping[str, str]) -> None:
        super()._check(props)
        require_byte_array_converters(props)
        MirrorSettings.parse(props, SOURCE_CONFIG_DEF)

    def start(self, props: Mapping[str, str]) -> None:
        super().start(props)
        self._settings = MirrorSettings.parse(props, SOURCE_CONFIG_DEF)
        self._source = open_log(self._settings.source_url)
        self._partitions = self._refresh_partitions()
        parsed = SOURCE_CONFIG_DEF.parse(props)
        if parsed[REFRESH_TOPICS_ENABLED_CONFIG]:
            interval = float(parsed[REFRESH_TOPICS_INTERVAL_CONFIG])
            self._refresher = threading.Thread(
                target=self._refresh_every, args=(interval,), name="mirror-topic-refresh", daemon=True
            )
            self._refresher.start()

    def _refresh_partitions(self) -> list[TopicPartition]:
        """The partitions to replicate now; their remote topics exist once this returns."""
        assert self._settings is not None and self._source is not None
        settings, admin = self._settings, self._source.admin()
        selected = topic_filter(self._props)
        replicate_heartbeats = SOURCE_CONFIG_DEF.parse(self._props)[HEARTBEATS_REPLICATION_CONFIG]
        chosen = [
            topic
            for topic in admin.list_topics()
            if (
                selected.should_replicate(topic)
                or (replicate_heartbeats and is_heartbeats_topic(topic, settings))
            )
            and not settings.policy.is_internal_topic(topic)
            and not is_cycle(topic, settings)
        ]
        with open_log(settings.target_url) as target:
            create_remote_topics(admin, target.admin(), chosen, settings)
        return replicable_partitions(admin, settings, chosen)

    def _refresh_every(self, interval_s: float) -> None:
        while not self._stopping.wait(interval_s):
            try:
                partitions = self._refresh_partitions()
            except Exception as error:
                logger.warning("Could not look for new topics to replicate: %s", error)
                continue
            if partitions != self._partitions:
                logger.info("Topics to replicate changed; reconfiguring the tasks")
                self._partitions = partitions
                self.context.request_task_reconfiguration()

    def task_class(self) -> type[Task]:
        return MirrorSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        """Round-robin of the partitions over at most ``max_tasks`` tasks; none without partitions."""
        count = min(max_tasks, len(self._partitions))
        return [
            {**self._props, TASK_PARTITIONS_CONFIG: format_partitions(self._partitions[task::count])}
            for task in range(count)
        ]

    def stop(self) -> None:
        self._stopping.set()
        if self._refresher is not None:
            self._refresher.join(timeout=5)
        if self._source is not None:
            self._source.close()

    def exactly_once_support(self, connector_config: Mapping[str, str]) -> ExactlyOnceSupport:
        """Supported while the tasks read committed records only, as Kafka's MirrorSourceConnector says."""
        isolation = connector_config.get(CONSUMER_ISOLATION_CONFIG, "read_committed").strip().lower()
        return (
            ExactlyOnceSupport.SUPPORTED if isolation == "read_committed" else ExactlyOnceSupport.UNSUPPORTED
        )


def source_partition(alias: str, partition: TopicPartition) -> dict[str, Any]:
    """The source partition of a replicated topic partition, with Kafka MirrorMaker's keys."""
    return {"cluster": alias, "partition": partition.partition, "topic": partition.topic}


class MirrorSourceTask(SourceTask):
    """Reads its partitions of the source cluster from the offsets it last replicated and returns their
    records for the remote topics: same partition, key, value, headers and timestamp."""

    def __init__(self) -> None:
        self._log: Log | None = None
        self._consumer: Consumer | None = None
        self._keys: dict[TopicPartition, dict[str, Any]] = {}
        self._remote: dict[str, str] = {}
        self._target: Log | None = None
        self._syncs: DownstreamOffsetSyncs | None = None
        self._replication: ReplicationMetrics | None = None

    def version(self) -> str:
        return __version__

    def start(self, props: Mapping[str, str]) -> None:
        settings = MirrorSettings.parse(props, SOURCE_CONFIG_DEF)
        isolation = SOURCE_CONFIG_DEF.parse(props)[CONSUMER_ISOLATION_CONFIG].strip().lower()
        partitions = parse_partitions(props.get(TASK_PARTITIONS_CONFIG, ""))
        self._log = open_log(settings.source_url)
        self._consumer = self._log.consumer(
            None,
            "read_uncommitted" if isolation == "read_uncommitted" else "read_committed",
            **{"max.poll.records": MAX_POLL_RECORDS},
        )
        self._consumer.assign(partitions)
        if settings.emit_offset_syncs:
            self._target = open_log(settings.target_url)
            self._syncs = DownstreamOffsetSyncs(self._target, settings)
        self._replication = ReplicationMetrics(
            self.context.plugin_metrics(), settings.source_alias, settings.target_alias
        )
        self._keys = {p: source_partition(settings.source_alias, p) for p in partitions}
        self._remote = {p.topic: settings.remote_topic(p.topic) for p in partitions}
        stored = self.context.offset_storage_reader().offsets(list(self._keys.values()))
        for partition, (_, offset) in zip(partitions, stored, strict=True):
            if offset is None:
                self._consumer.seek_to_beginning([partition])
            else:
                self._consumer.seek(partition, int(offset["offset"]) + 1)

    def poll(self) -> list[SourceRecord] | None:
        assert self._consumer is not None
        records: list[SourceRecord] = []
        for batch in self._consumer.poll_batch(POLL_TIMEOUT_S):
            source = TopicPartition(batch.topic, batch.partition)
            key = self._keys[source]
            remote, partition = self._remote[batch.topic], batch.partition
            if self._syncs is not None and batch.offsets:
                self._syncs.returned(source, batch.offsets[-1])
            if self._replication is not None:
                self._replication.read(
                    remote, partition, batch_bytes(batch.keys, batch.values), batch.timestamps
                )
            for offset, record_key, value, headers, timestamp in zip(
                batch.offsets, batch.keys, batch.values, batch.headers, batch.timestamps, strict=True
            ):
                records.append(
                    SourceRecord(
                        remote,
                        source_partition=key,
                        source_offset={"offset": offset},
                        kafka_partition=partition,
                        key_schema=OPTIONAL_BYTES_SCHEMA,
                        key=record_key,
                        value_schema=OPTIONAL_BYTES_SCHEMA,
                        value=value,
                        timestamp=timestamp,
                        headers=[Header(name, raw, OPTIONAL_BYTES_SCHEMA) for name, raw in headers]
                        if headers
                        else None,
                    )
                )
        return records

    def commit(self) -> None:
        """The records returned so far are in the target: write the offset syncs that are due."""
        if self._syncs is not None:
            self._syncs.committed()
        if self._replication is not None:
            self._replication.committed()

    def stop(self) -> None:
        for closeable in (self._syncs, self._consumer, self._log, self._target):
            if closeable is not None:
                closeable.close()

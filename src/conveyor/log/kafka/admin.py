"""The admin client of the Kafka backend: topics, offsets, consumer groups and fencing."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from typing import TypeVar

from confluent_kafka import ConsumerGroupTopicPartitions, IsolationLevel, KafkaException, Producer
from confluent_kafka import TopicPartition as KafkaTopicPartition
from confluent_kafka.admin import (
    AdminClient,
    ConfigResource,
    OffsetSpec,
    ResourceType,
)
from confluent_kafka.admin import NewTopic as KafkaNewTopic

from conveyor.log.api import (
    Admin,
    CleanerResult,
    OffsetAndMetadata,
    OffsetsToCommit,
    PartitionOffsets,
    TopicDescription,
)
from conveyor.log.errors import (
    InvalidTopicError,
    LogError,
    NonEmptyGroupError,
    TopicExistsError,
    UnknownMemberIdError,
    UnknownTopicOrPartitionError,
)
from conveyor.log.kafka.client_logs import with_client_logger
from conveyor.log.kafka.errors import coordinator_moving, leader_moving, log_error
from conveyor.log.kafka.names import Namespace
from conveyor.log.kafka.settings import KafkaSettings
from conveyor.log.new_topic import NewTopic
from conveyor.positions import TopicPartition

#: How long an admin call may take before it fails (seconds).
REQUEST_TIMEOUT_S = 30.0
_METADATA_WAIT_S = 30.0

T = TypeVar("T")


def _result(future: Future[T], what: str) -> T:
    """The admin call's answer, or the log's error about ``what`` (e.g. ``Topic t1``) if it failed."""
    try:
        return future.result()
    except KafkaException as error:
        raise log_error(error, what) from error


class KafkaAdmin(Admin):
    """Admin calls through one confluent-kafka ``AdminClient``, waiting until metadata shows their effect."""

    def __init__(self, settings: KafkaSettings, client: AdminClient) -> None:
        self._settings = settings
        self._names = Namespace(settings.namespace)
        self._client = client

    def _create_topic(self, topic: NewTopic, exist_ok: bool) -> None:
        name, partitions = topic.name, topic.partitions
        settings = {key: str(value) for key, value in topic.config.items()}
        outer = self._names.outer(name)
        new_topic = KafkaNewTopic(outer, partitions, topic.replication_factor, config=settings)
        try:
            self._client.create_topics([new_topic], request_timeout=REQUEST_TIMEOUT_S)[outer].result()
        except KafkaException as error:
            translated = log_error(error, f"Topic {name}")
            if not (isinstance(translated, TopicExistsError) and exist_ok):
                raise translated from error
            # Created by another client a moment ago: its metadata may not have reached this broker yet.
            self._wait_for(lambda: self._partition_count(outer) is not None, f"topic {name} to appear")
            return
        except ValueError as error:
            raise InvalidTopicError(f"Topic {name}: {error}") from error
        self._wait_for(lambda: self._leaders_known(outer, partitions), f"topic {name} to appear")

    def delete_topic(self, name: str) -> None:
        outer = self._names.outer(name)
        futures = self._client.delete_topics([outer], request_timeout=REQUEST_TIMEOUT_S)
        _result(futures[outer], f"Topic {name}")
        self._wait_for(lambda: self._partition_count(outer) is None, f"topic {name} to be deleted")

    def cluster_id(self) -> str:
        cluster_id: str | None = self._client.list_topics(timeout=REQUEST_TIMEOUT_S).cluster_id
        if not cluster_id:
            raise LogError(f"The Kafka cluster at {self._settings.bootstrap_servers} named no cluster id")
        return cluster_id

    def list_topics(self) -> list[str]:
        topics = self._client.list_topics(timeout=REQUEST_TIMEOUT_S).topics
        return sorted(self._names.inner(name) for name in topics if self._names.owns(name))

    def partition_counts(self, names: Iterable[str] | None = None) -> dict[str, int]:
        """From one metadata request: ``describe_topics`` would also ask for each topic's settings."""
        topics = self._client.list_topics(timeout=REQUEST_TIMEOUT_S).topics
        counts = {
            self._names.inner(name): len(metadata.partitions)
            for name, metadata in topics.items()
            if self._names.owns(name) and metadata.error is None
        }
        return counts if names is None else {name: counts[name] for name in names if name in counts}

    def describe_topics(self, names: Iterable[str]) -> dict[str, TopicDescription]:
        names = list(names)
        counts = {name: self._partition_count(self._names.outer(name)) for name in names}
        for name, count in counts.items():
            if count is None:
                raise UnknownTopicOrPartitionError(f"Topic {name} does not exist")
        resources = [ConfigResource(ResourceType.TOPIC, self._names.outer(name)) for name in names]
        configs: dict[str, dict[str, str]] = {}
        try:
            for resource, future in self._client.describe_configs(
                resources, request_timeout=REQUEST_TIMEOUT_S
            ).items():
                entries = future.result()
                configs[self._names.inner(resource.name)] = {
                    key: entry.value for key, entry in entries.items() if entry.value is not None
                }
        except KafkaException as error:
            raise log_error(error, f"Topics {names}") from error
        return {name: TopicDescription(name, counts[name] or 0, configs.get(name, {})) for name in names}

    def list_offsets(self, partitions: Iterable[TopicPartition]) -> dict[TopicPartition, PartitionOffsets]:
        partitions = list(partitions)
        self.check_partitions(partitions)
        earliest = self._offsets(partitions, OffsetSpec.earliest(), IsolationLevel.READ_UNCOMMITTED)
        latest = self._offsets(partitions, OffsetSpec.latest(), IsolationLevel.READ_UNCOMMITTED)
        stable = self._offsets(partitions, OffsetSpec.latest(), IsolationLevel.READ_COMMITTED)
        return {tp: PartitionOffsets(earliest[tp], latest[tp], stable[tp]) for tp in partitions}

    def beginning_offsets(self, partitions: Iterable[TopicPartition]) -> dict[TopicPartition, int]:
        """The earliest kept offset of each partition, in one request."""
        return self._offsets(list(partitions), OffsetSpec.earliest(), IsolationLevel.READ_UNCOMMITTED)

    def end_offsets(
        self, partitions: Iterable[TopicPartition], read_committed: bool
    ) -> dict[TopicPartition, int]:
        """The last stable offset (read_committed) or high watermark of each partition, in one request."""
        isolation = IsolationLevel.READ_COMMITTED if read_committed else IsolationLevel.READ_UNCOMMITTED
        return self._offsets(list(partitions), OffsetSpec.latest(), isolation)

    def fence_producers(self, transactional_ids: Iterable[str]) -> None:
        """As Java's ``Admin.fenceProducers``: an ``InitProducerId`` for each id bumps its epoch, and the
        coordinator aborts the transaction the fenced producer left open."""
        for transactional_id in transactional_ids:
            producer = Producer(
                with_client_logger(
                    self._settings.client_config(
                        "admin", **{"transactional.id": self._names.outer(transactional_id)}
                    )
                )
            )
            try:
                producer.init_transactions(REQUEST_TIMEOUT_S)
            except KafkaException as error:
                raise log_error(error, f"Fencing transactional id {transactional_id}") from error
            finally:
                producer.flush(0)

    def list_consumer_groups(self) -> list[str]:
        listing = _result(
            self._client.list_consumer_groups(request_timeout=REQUEST_TIMEOUT_S), "Listing consumer groups"
        )
        return sorted(
            self._names.inner(group.group_id) for group in listing.valid if self._names.owns(group.group_id)
        )

    def list_consumer_group_offsets(self, group_id: str) -> dict[TopicPartition, OffsetAndMetadata]:
        request = ConsumerGroupTopicPartitions(self._names.outer(group_id))
        deadline = time.monotonic() + REQUEST_TIMEOUT_S
        while True:
            try:
                futures = self._client.list_consumer_group_offsets(
                    [request], request_timeout=REQUEST_TIMEOUT_S
                )
                result = futures[request.group_id].result()
                break
            except KafkaException as error:
                if not coordinator_moving(error) or time.monotonic() > deadline:
                    raise log_error(error, f"Group {group_id}") from error
                time.sleep(0.05)
        return {
            TopicPartition(self._names.inner(tp.topic), tp.partition): OffsetAndMetadata(
                tp.offset, tp.metadata or ""
            )
            for tp in result.topic_partitions
            if tp.offset >= 0 and self._names.owns(tp.topic)
        }

    def alter_consumer_group_offsets(self, group_id: str, offsets: OffsetsToCommit) -> None:
        outer = self._names.outer(group_id)
        request = ConsumerGroupTopicPartitions(outer, kafka_offsets(self._names, offsets))
        try:
            futures = self._client.alter_consumer_group_offsets([request], request_timeout=REQUEST_TIMEOUT_S)
            futures[request.group_id].result()
        except KafkaException as error:
            translated = log_error(error, f"Group {group_id}")
            if isinstance(translated, UnknownMemberIdError):
                raise NonEmptyGroupError(f"Group {group_id} has active members: {translated}") from error
            raise translated from error

    def delete_consumer_group(self, group_id: str) -> None:
        outer = self._names.outer(group_id)
        futures = self._client.delete_consumer_groups([outer], request_timeout=REQUEST_TIMEOUT_S)
        _result(futures[outer], f"Group {group_id}")

    def run_cleaner(self, topics: Iterable[str] | None = None) -> CleanerResult:
        """Kafka's brokers compact and apply retention in the background, on their own schedule: this call
        removes nothing itself and says so."""
        return CleanerResult(records_removed=0, batches_removed=0)

    def _partition_count(self, outer_topic: str) -> int | None:
        topics = self._client.list_topics(topic=outer_topic, timeout=REQUEST_TIMEOUT_S).topics
        metadata = topics.get(outer_topic)
        if metadata is None or metadata.error is not None:
            return None
        return len(metadata.partitions)

    def _leaders_known(self, outer_topic: str, partitions: int) -> bool:
        """Whether the topic has ``partitions`` partitions, each with a leader."""
        topics = self._client.list_topics(topic=outer_topic, timeout=REQUEST_TIMEOUT_S).topics
        metadata = topics.get(outer_topic)
        if metadata is None or metadata.error is not None or len(metadata.partitions) != partitions:
            return False
        return all(p.leader >= 0 and p.error is None for p in metadata.partitions.values())

    def partition_count(self, topic: str) -> int:
        """The topic's partition count in the cluster's metadata; 0 when it does not exist."""
        return self._partition_count(self._names.outer(topic)) or 0

    def check_partitions(self, partitions: Iterable[TopicPartition]) -> None:
        """Raise ``UnknownTopicOrPartitionError`` for the first of ``partitions`` that does not exist."""
        counts: dict[str, int | None] = {}
        for tp in partitions:
            if tp.topic not in counts:
                counts[tp.topic] = self._partition_count(self._names.outer(tp.topic))
            count = counts[tp.topic]
            if count is None or not 0 <= tp.partition < count:
                raise UnknownTopicOrPartitionError(f"Partition {tp} does not exist")

    def _offsets(
        self, partitions: list[TopicPartition], spec: OffsetSpec, isolation: IsolationLevel
    ) -> dict[TopicPartition, int]:
        request = {KafkaTopicPartition(*self._names.outer_partition(tp)): spec for tp in partitions}
        deadline = time.monotonic() + REQUEST_TIMEOUT_S
        while True:
            try:
                futures = self._client.list_offsets(
                    request, isolation_level=isolation, request_timeout=REQUEST_TIMEOUT_S
                )
                return {
                    TopicPartition(self._names.inner(ktp.topic), ktp.partition): future.result().offset
                    for ktp, future in futures.items()
                }
            except KafkaException as error:
                if not leader_moving(error) or time.monotonic() > deadline:
                    raise log_error(error, f"Offsets of {partitions}") from error
                time.sleep(0.05)

    @staticmethod
    def _wait_for(condition: Callable[[], bool], what: str) -> None:
        deadline = time.monotonic() + _METADATA_WAIT_S
        while not condition():
            if time.monotonic() > deadline:
                raise LogError(f"Timed out waiting for {what}")
            time.sleep(0.02)


def kafka_offsets(names: Namespace, offsets: OffsetsToCommit) -> list[KafkaTopicPartition]:
    """Offsets to commit, as confluent-kafka's topic partitions (with metadata)."""
    result = []
    for tp, value in offsets.items():
        committed = value if isinstance(value, OffsetAndMetadata) else OffsetAndMetadata(value)
        topic, partition = names.outer_partition(tp)
        if committed.metadata:
            result.append(KafkaTopicPartition(topic, partition, committed.offset, committed.metadata))
        else:
            result.append(KafkaTopicPartition(topic, partition, committed.offset))
    return result

"""The consumer of the Kafka backend: confluent-kafka's, with positions kept as the log's interface says.

librdkafka fetches in the background, so "what is in the log now" is not what a zero-timeout poll
returns. ``poll`` therefore keeps waiting, past its timeout, while a partition's position is still
behind the end that a ``ListOffsets`` (under the consumer's isolation level) reports: a poll returns
nothing only when there is nothing to read. Positions move past control records and aborted
transactions through librdkafka's end-of-partition events.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterable
from typing import Any

from confluent_kafka import OFFSET_INVALID, KafkaError, KafkaException, Message
from confluent_kafka import Consumer as KafkaConsumer
from confluent_kafka import TopicPartition as KafkaTopicPartition

from conveyor.log.api import (
    Consumer,
    ConsumerRecord,
    IsolationLevel,
    OffsetAndMetadata,
    OffsetsToCommit,
    RebalanceListener,
    RecordBatch,
)
from conveyor.log.client_config import choice_setting, int_setting, normalize_config
from conveyor.log.errors import (
    IllegalStateError,
    InvalidConfigError,
    InvalidGroupIdError,
    NoOffsetForPartitionError,
    UnknownTopicOrPartitionError,
)
from conveyor.log.kafka.admin import REQUEST_TIMEOUT_S, kafka_offsets
from conveyor.log.kafka.errors import log_error
from conveyor.log.kafka.names import Namespace
from conveyor.log.kafka.settings import KafkaSettings
from conveyor.positions import TopicPartition

#: How long a poll keeps waiting for records it knows are there (fetches of a busy broker).
_CATCH_UP_S = 30.0
_WAIT_STEP_S = 0.05
#: Errors of a partition whose leader is not known everywhere yet (just created, or moving).
_LEADER_MOVING = (KafkaError.NOT_LEADER_FOR_PARTITION, KafkaError.LEADER_NOT_AVAILABLE)
#: Settings of the log's interface that are not librdkafka's, or that this consumer sets itself.
_OWN_SETTINGS = ("auto.offset.reset", "max.poll.records", "enable.auto.commit")


class KafkaLogConsumer(Consumer):
    """A confluent-kafka ``Consumer`` whose positions this class tracks for ``position`` and ``poll``."""

    def __init__(
        self,
        settings: KafkaSettings,
        group_id: str | None,
        isolation_level: IsolationLevel,
        config: dict[str, object],
    ) -> None:
        if isolation_level not in ("read_committed", "read_uncommitted"):
            raise InvalidConfigError(f"isolation_level={isolation_level!r} is not a Kafka isolation level")
        if group_id == "":
            raise InvalidGroupIdError("A consumer group id must not be empty")
        own = normalize_config(config)
        self._names = Namespace(settings.namespace)
        self._group_id = group_id
        self._reset = choice_setting(own, "auto.offset.reset", "latest", ("earliest", "latest", "none"))
        self._max_poll_records = int_setting(own, "max.poll.records", 500, minimum=1)
        passed = {key: value for key, value in own.items() if key not in _OWN_SETTINGS}
        # librdkafka needs a group id even for a consumer that only assigns; such a consumer never commits.
        outer_group = self._names.outer(group_id) if group_id else f"conveyor-unused-{uuid.uuid4().hex}"
        try:
            self._consumer = KafkaConsumer(
                settings.client_config(
                    "consumer",
                    **{
                        "group.id": outer_group,
                        "isolation.level": isolation_level,
                        "enable.auto.commit": False,
                        "enable.auto.offset.store": False,
                        "enable.partition.eof": True,
                        "auto.offset.reset": "error",
                        "partition.assignment.strategy": "range",
                        "fetch.wait.max.ms": 100,
                        **passed,
                    },
                )
            )
        except KafkaException as error:
            raise InvalidConfigError(f"Consumer settings: {error}") from error
        self._positions: dict[TopicPartition, int | None] = {}
        self._paused: set[TopicPartition] = set()
        self._subscribed: list[str] | None = None
        self._joined = False
        self._listener: RebalanceListener | None = None
        self._closed = False

    @property
    def group_id(self) -> str | None:
        return self._group_id

    def assign(self, partitions: Iterable[TopicPartition]) -> None:
        self._ensure_open()
        if self._subscribed is not None:
            raise IllegalStateError(f"Consumer of group {self._group_id} subscribes: it cannot assign too")
        wanted = list(dict.fromkeys(partitions))
        self._check_exist(wanted)
        self._positions = {tp: None for tp in wanted}
        self._paused &= set(wanted)
        self._resolve_positions(strict=False)
        self._reassign()

    def subscribe(self, topics: Iterable[str], listener: RebalanceListener | None = None) -> None:
        self._ensure_open()
        if self._group_id is None:
            raise InvalidGroupIdError("subscribe needs a consumer group id")
        self._subscribed = list(topics)
        self._listener = listener
        self._positions = {}
        self._joined = False
        self._consumer.subscribe(
            [self._names.outer(topic) for topic in self._subscribed],
            on_assign=self._on_assign,
            on_revoke=self._on_revoke,
            on_lost=self._on_lost,
        )

    def unsubscribe(self) -> None:
        self._ensure_open()
        self._consumer.unsubscribe()
        self._subscribed = None
        self._positions = {}
        self._paused = set()

    def enforce_rebalance(self) -> None:
        """librdkafka has no ``enforceRebalance``: the consumer subscribes anew, which makes it rejoin with
        fresh metadata (a topic that appeared meanwhile is seen at once)."""
        self._ensure_open()
        if self._subscribed is not None:
            self.subscribe(self._subscribed, self._listener)

    def assignment(self) -> set[TopicPartition]:
        return set(self._positions)

    def pause(self, partitions: Iterable[TopicPartition]) -> None:
        wanted = set(partitions) & set(self._positions)
        self._paused |= wanted
        if wanted:
            self._consumer.pause([self._kafka(tp) for tp in wanted])

    def resume(self, partitions: Iterable[TopicPartition]) -> None:
        wanted = set(partitions) & self._paused
        self._paused -= wanted
        if wanted:
            self._consumer.resume([self._kafka(tp) for tp in wanted])
            for tp in wanted:
                self._seek_kafka(tp)

    def paused(self) -> set[TopicPartition]:
        return set(self._paused)

    def seek(self, partition: TopicPartition, offset: int) -> None:
        self._ensure_open()
        if partition not in self._positions:
            raise IllegalStateError(f"Partition {partition} is not assigned to this consumer")
        self._positions[partition] = offset
        self._seek_kafka(partition)

    def seek_to_beginning(self, partitions: Iterable[TopicPartition] | None = None) -> None:
        wanted = self._assigned_of(partitions)
        for tp, offset in self.beginning_offsets(wanted).items():
            self.seek(tp, offset)

    def seek_to_end(self, partitions: Iterable[TopicPartition] | None = None) -> None:
        wanted = self._assigned_of(partitions)
        for tp, offset in self.end_offsets(wanted).items():
            self.seek(tp, offset)

    def position(self, partition: TopicPartition) -> int:
        self._ensure_open()
        if partition not in self._positions:
            raise IllegalStateError(f"Partition {partition} is not assigned to this consumer")
        self._resolve_positions(strict=True)
        position = self._positions[partition]
        assert position is not None
        return position

    def poll(self, timeout: float = 0.0, max_records: int | None = None) -> list[ConsumerRecord]:
        records: list[ConsumerRecord] = []
        for batch in self.poll_batch(timeout, max_records):
            records.extend(batch.records())
        return records

    def poll_batch(self, timeout: float = 0.0, max_records: int | None = None) -> list[RecordBatch]:
        self._ensure_open()
        if not self._positions and self._subscribed is None:
            raise IllegalStateError("Consumer is not assigned any partitions")
        self._resolve_positions(strict=True)
        limit = self._max_poll_records if max_records is None else max_records
        deadline = time.monotonic() + timeout
        catch_up_deadline = time.monotonic() + max(timeout, _CATCH_UP_S)
        wait_s = min(timeout, _WAIT_STEP_S)
        while True:
            messages = self._consume(limit, wait_s)
            wait_s = _WAIT_STEP_S
            batches = self._batches(messages)
            if batches:
                return batches
            if time.monotonic() >= deadline and (
                time.monotonic() >= catch_up_deadline or not self._waiting_for_more()
            ):
                return []

    def _waiting_for_more(self) -> bool:
        """Whether the log holds something this consumer has not seen: a group join under way, or
        records past a position."""
        if self._subscribed is not None and not self._joined:
            return True
        return self._behind()

    def commit(self, offsets: OffsetsToCommit | None = None) -> None:
        self._ensure_open()
        self._require_group()
        if offsets is None:
            self._resolve_positions(strict=True)
            offsets = {tp: position for tp, position in self._positions.items() if position is not None}
        if not offsets:
            return
        try:
            self._consumer.commit(offsets=kafka_offsets(self._names, offsets), asynchronous=False)
        except KafkaException as error:
            raise log_error(error, f"Committing offsets of group {self._group_id}") from error

    def committed(
        self, partitions: Iterable[TopicPartition]
    ) -> dict[TopicPartition, OffsetAndMetadata | None]:
        self._ensure_open()
        self._require_group()
        wanted = list(partitions)
        try:
            found = self._consumer.committed([self._kafka(tp) for tp in wanted], timeout=REQUEST_TIMEOUT_S)
        except KafkaException as error:
            raise log_error(error, f"Committed offsets of group {self._group_id}") from error
        return {
            tp: OffsetAndMetadata(ktp.offset, ktp.metadata or "") if ktp.offset >= 0 else None
            for tp, ktp in zip(wanted, found, strict=True)
        }

    def beginning_offsets(self, partitions: Iterable[TopicPartition]) -> dict[TopicPartition, int]:
        return {tp: self._watermarks(tp)[0] for tp in partitions}

    def end_offsets(self, partitions: Iterable[TopicPartition]) -> dict[TopicPartition, int]:
        return {tp: self._watermarks(tp)[1] for tp in partitions}

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._consumer.close()

    def _consume(self, limit: int, wait_s: float) -> list[Message]:
        """Up to ``limit`` messages: whatever is buffered now, else the first to arrive within ``wait_s``."""
        try:
            messages: list[Message] = self._consumer.consume(limit, 0)
            if not messages and wait_s > 0:
                messages = self._consumer.consume(1, wait_s)
                if messages and limit > 1:
                    messages += self._consumer.consume(limit - 1, 0)
        except KafkaException as error:
            raise log_error(error, "Polling") from error
        return messages

    def _batches(self, messages: list[Message]) -> list[RecordBatch]:
        """Column batches of consecutive messages of one partition; error events move positions only."""
        batches: list[RecordBatch] = []
        start = 0
        for index in range(len(messages) + 1):
            if index < len(messages):
                message = messages[index]
                error = message.error()
                same = (
                    index > start
                    and error is None
                    and message.partition() == messages[start].partition()
                    and message.topic() == messages[start].topic()
                )
                if same:
                    continue
            if index > start:
                batch = self._batch(messages[start:index])
                if batch is not None:
                    batches.append(batch)
            start = index
            if index < len(messages) and messages[index].error() is not None:
                self._on_event(messages[index])
                start = index + 1
        return batches

    def _batch(self, messages: list[Message]) -> RecordBatch | None:
        first = messages[0]
        tp = TopicPartition(self._names.inner(first.topic()), first.partition())
        if tp not in self._positions or tp in self._paused:
            return None
        offsets = [message.offset() for message in messages]
        if offsets[-1] < (self._positions[tp] or 0):
            return None
        self._positions[tp] = offsets[-1] + 1
        return RecordBatch(
            topic=tp.topic,
            partition=tp.partition,
            offsets=offsets,
            keys=[message.key() for message in messages],
            values=[message.value() for message in messages],
            headers=[message.headers() or [] for message in messages],
            timestamps=[message.timestamp()[1] for message in messages],
            next_offset=offsets[-1] + 1,
        )

    def _on_event(self, message: Message) -> None:
        error = message.error()
        if error.code() == KafkaError._PARTITION_EOF:
            tp = TopicPartition(self._names.inner(message.topic()), message.partition())
            if tp in self._positions and tp not in self._paused:
                self._positions[tp] = message.offset()
            return
        missing = error.code() in (KafkaError.UNKNOWN_TOPIC_OR_PART, KafkaError._UNKNOWN_PARTITION)
        if error.fatal() or (missing and self._subscribed is None):
            raise log_error(error, "Polling")

    def _behind(self) -> bool:
        """Whether some readable partition has records (or markers) past this consumer's position."""
        for tp, position in self._positions.items():
            if tp not in self._paused and position is not None and position < self._watermarks(tp)[1]:
                return True
        return False

    def _resolve_positions(self, strict: bool) -> None:
        """Start positions of newly assigned partitions: committed offsets, else ``auto.offset.reset``."""
        unknown = [tp for tp, position in self._positions.items() if position is None]
        if not unknown:
            return
        committed = self.committed(unknown) if self._group_id else {}
        for tp in unknown:
            found = committed.get(tp)
            if found is not None:
                self._positions[tp] = found.offset
            elif self._reset == "earliest":
                self._positions[tp] = self._watermarks(tp)[0]
            elif self._reset == "latest":
                self._positions[tp] = self._watermarks(tp)[1]
            elif strict:
                raise NoOffsetForPartitionError(
                    f"No committed offset for {tp} in group {self._group_id} and auto.offset.reset=none"
                )
        if not strict:
            return
        for tp in unknown:
            self._seek_kafka(tp)

    def _reassign(self) -> None:
        self._consumer.assign(
            [self._kafka(tp, position) for tp, position in self._positions.items() if position is not None]
        )
        paused = [self._kafka(tp) for tp in self._paused]
        if paused:
            self._consumer.pause(paused)

    def _seek_kafka(self, tp: TopicPartition) -> None:
        position = self._positions.get(tp)
        if position is None:
            return
        try:
            self._consumer.seek(self._kafka(tp, position))
        except KafkaException:
            # Not fetching yet (or never assigned with an offset): assign everything at its position.
            self._reassign()

    def _watermarks(self, tp: TopicPartition) -> tuple[int, int]:
        """Earliest and end offset (last stable under read_committed), retrying while leaders move."""
        deadline = time.monotonic() + REQUEST_TIMEOUT_S
        while True:
            try:
                low, high = self._consumer.get_watermark_offsets(self._kafka(tp), REQUEST_TIMEOUT_S, False)
                return int(low), int(high)
            except KafkaException as error:
                transient = error.args[0].retriable() or error.args[0].code() in _LEADER_MOVING
                if not transient or time.monotonic() > deadline:
                    raise log_error(error, f"Offsets of {tp}") from error
                time.sleep(_WAIT_STEP_S)

    def _check_exist(self, partitions: list[TopicPartition]) -> None:
        counts: dict[str, int] = {}
        for tp in partitions:
            if tp.topic not in counts:
                outer = self._names.outer(tp.topic)
                topic = self._consumer.list_topics(topic=outer, timeout=REQUEST_TIMEOUT_S).topics.get(outer)
                ok = topic is not None and topic.error is None
                counts[tp.topic] = len(topic.partitions) if ok and topic is not None else 0
            if not 0 <= tp.partition < counts[tp.topic]:
                raise UnknownTopicOrPartitionError(f"Partition {tp} does not exist")

    def _assigned_of(self, partitions: Iterable[TopicPartition] | None) -> list[TopicPartition]:
        return list(self._positions) if partitions is None else list(partitions)

    def _kafka(self, tp: TopicPartition, offset: int = OFFSET_INVALID) -> KafkaTopicPartition:
        return KafkaTopicPartition(self._names.outer(tp.topic), tp.partition, offset)

    def _require_group(self) -> None:
        if not self._group_id:
            raise InvalidGroupIdError("Committed offsets need a consumer group id")

    def _ensure_open(self) -> None:
        if self._closed:
            raise IllegalStateError("Consumer is closed")

    def _on_assign(self, consumer: Any, partitions: list[KafkaTopicPartition]) -> None:
        assigned = [TopicPartition(self._names.inner(p.topic), p.partition) for p in partitions]
        self._positions = {tp: None for tp in assigned}
        self._resolve_positions(strict=False)
        self._consumer.assign(
            [self._kafka(tp, position) for tp, position in self._positions.items() if position is not None]
        )
        self._joined = True
        if self._listener is not None:
            self._listener.on_partitions_assigned(set(assigned))

    def _on_revoke(self, consumer: Any, partitions: list[KafkaTopicPartition]) -> None:
        revoked = set(self._positions)
        if self._listener is not None:
            self._listener.on_partitions_revoked(revoked)
        self._consumer.unassign()
        self._positions = {}
        self._paused = set()

    def _on_lost(self, consumer: Any, partitions: list[KafkaTopicPartition]) -> None:
        lost = set(self._positions)
        if self._listener is not None:
            self._listener.on_partitions_lost(lost)
        self._consumer.unassign()
        self._positions = {}
        self._paused = set()

"""The consumer of the Kafka backend: confluent-kafka's, with positions kept as the log's interface says.

librdkafka fetches in the background, so "what is in the log now" is not what a zero-timeout poll
returns. ``poll`` therefore keeps waiting, past its timeout, while a partition's position is still
behind the end that a ``ListOffsets`` (under the consumer's isolation level) reports: a poll returns
nothing only when there is nothing to read. Offsets and partition counts are asked through the log's
admin client: on the consumer's own connection they would queue behind its long-polling fetches (and a
new consumer would first wait for a connection of its own). Positions move past
control records and aborted transactions through librdkafka's end-of-partition events.
"""

from __future__ import annotations

import time
import uuid
from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import pairwise
from typing import Any, TypeVar

from confluent_kafka import OFFSET_INVALID, KafkaError, KafkaException, Message
from confluent_kafka import Consumer as KafkaConsumer
from confluent_kafka import TopicPartition as KafkaTopicPartition

from conveyor.log.api import (
    Consumer,
    Headers,
    IsolationLevel,
    OffsetAndMetadata,
    OffsetsToCommit,
    RebalanceListener,
    RecordBatch,
)
from conveyor.log.arguments import ConsumerSettings, check_isolation_level
from conveyor.log.assignment_strategy import STRATEGY_SETTING, RebalanceProtocol
from conveyor.log.client_config import normalize_config
from conveyor.log.errors import (
    IllegalStateError,
    InvalidConfigError,
    InvalidGroupIdError,
    NoOffsetForPartitionError,
    OffsetOutOfRangeError,
)
from conveyor.log.kafka.admin import REQUEST_TIMEOUT_S, KafkaAdmin, kafka_offsets
from conveyor.log.kafka.assignors import librdkafka_strategy
from conveyor.log.kafka.client_logs import with_client_logger
from conveyor.log.kafka.errors import log_error
from conveyor.log.kafka.names import Namespace
from conveyor.log.kafka.settings import RECONNECT_BACKOFF_MS, KafkaSettings
from conveyor.positions import TopicPartition

#: How long a poll keeps waiting for records it knows are there (fetches of a busy broker).
_CATCH_UP_S = 30.0
_WAIT_STEP_S = 0.05
_T = TypeVar("_T")


def _run_end(column: list[Any], start: int, stop: int) -> int:
    """Where the run of values equal to ``column[start]`` ends (at ``stop`` at the latest).

    Counted in C over slices: one pass when the run reaches ``stop`` (one partition in the hand-over,
    the common case), else spans of doubling length from ``start`` until one holds another value, then
    halving ones inside it: about two passes over the run, and no Python frame per message.
    """
    value = column[start]
    if column[start:stop].count(value) == stop - start:
        return stop
    whole, step = start + 1, 1  # column[start:whole] holds only value
    while True:
        probe = min(whole + step, stop)
        if column[whole:probe].count(value) != probe - whole:
            break
        whole, step = probe, step * 2
    while probe - whole > 1:
        middle = (whole + probe) // 2
        if column[whole:middle].count(value) == middle - whole:
            whole = middle
        else:
            probe = middle
    return whole


def _run_bounds(partitions: list[int], topics: list[str] | None) -> list[int]:
    """Where each run of consecutive messages of one partition starts, then the end (``topics`` is None
    when every message is of one topic)."""
    bounds, start = [0], 0
    while start < len(partitions):
        stop = _run_end(partitions, start, len(partitions))
        if topics is not None:
            stop = _run_end(topics, start, stop)
        bounds.append(stop)
        start = stop
    return bounds


def _span(column: list[_T], start: int, stop: int) -> list[_T]:
    """``column[start:stop]``, or the column itself when that is all of it (a hand-over of one run)."""
    return column if start == 0 and stop == len(column) else column[start:stop]


@dataclass(frozen=True, slots=True)
class _Columns:
    """The fields of a hand-over of messages, each read once for all of them with ``map``."""

    topics: list[str] | None
    partitions: list[int]
    offsets: list[int]
    keys: list[bytes | None]
    values: list[bytes | None]
    headers: list[Headers] | None
    timestamps: list[int]

    @classmethod
    def read(cls, messages: list[Message], timestamps: list[int], one_topic: bool) -> _Columns:
        """``timestamps``: those of ``messages``, read already (``_timestamps``); ``one_topic``: the
        consumer reads one topic only, so each message's topic is not read."""
        headers = list(map(Message.headers, messages))
        return cls(
            topics=None if one_topic else list(map(Message.topic, messages)),
            partitions=list(map(Message.partition, messages)),
            offsets=list(map(Message.offset, messages)),
            keys=list(map(Message.key, messages)),
            values=list(map(Message.value, messages)),
            headers=[found or [] for found in headers] if any(headers) else None,
            timestamps=timestamps,
        )


def _timestamps(messages: list[Message]) -> list[int]:
    """Each message's timestamp (confluent-kafka hands over a tuple of its type and value)."""
    return [stamp for _, stamp in map(Message.timestamp, messages)]


#: The headers of every record without any, shared as the embedded log shares them.
_NO_HEADERS: Headers = []


#: Settings of the log's interface that are not librdkafka's, or that this consumer sets itself.
_OWN_SETTINGS = ("auto.offset.reset", "max.poll.records", "enable.auto.commit", STRATEGY_SETTING)


class KafkaLogConsumer(Consumer):
    """A confluent-kafka ``Consumer`` whose positions this class tracks for ``position`` and ``poll``."""

    def __init__(
        self,
        settings: KafkaSettings,
        admin: KafkaAdmin,
        group_id: str | None,
        isolation_level: IsolationLevel,
        config: dict[str, object],
    ) -> None:
        check_isolation_level(isolation_level)
        if group_id == "":
            raise InvalidGroupIdError("A consumer group id must not be empty")
        own = normalize_config(config)
        self._names = Namespace(settings.namespace)
        self._admin = admin
        self._read_committed = isolation_level == "read_committed"
        self._group_id = group_id
        own_settings = ConsumerSettings.read(own)
        self._reset = own_settings.auto_offset_reset
        self._max_poll_records = own_settings.max_poll_records
        strategy = librdkafka_strategy(own)
        self._cooperative = strategy.protocol is RebalanceProtocol.COOPERATIVE
        passed = {key: value for key, value in own.items() if key not in _OWN_SETTINGS}
        # librdkafka needs a group id even for a consumer that only assigns; such a consumer never commits.
        outer_group = self._names.outer(group_id) if group_id else f"conveyor-unused-{uuid.uuid4().hex}"
        try:
            self._consumer = KafkaConsumer(
                with_client_logger(
                    settings.client_config(
                        "consumer",
                        **{
                            "group.id": outer_group,
                            "isolation.level": isolation_level,
                            "enable.auto.commit": False,
                            "enable.auto.offset.store": False,
                            "enable.partition.eof": True,
                            "auto.offset.reset": "error",
                            "partition.assignment.strategy": strategy.setting,
                            "fetch.wait.max.ms": 100,
                            # librdkafka's default (1000) idles a fast reader for up to a second each time
                            # its prefetch queue passes queued.min.messages, a third of its time or more.
                            "fetch.queue.backoff.ms": 10,
                            "reconnect.backoff.ms": RECONNECT_BACKOFF_MS,
                            **passed,
                        },
                    )
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
        from_zero = self._group_id is None and self._reset == "earliest"
        if from_zero:
            self._fetch_from_zero(wanted)
        try:
            self._admin.check_partitions(wanted)
        except BaseException:
            if from_zero:
                self._reassign()  # librdkafka reads what it read before
            raise
        self._positions = {tp: None for tp in wanted}
        self._paused &= set(wanted)
        self._resolve_positions(strict=False)
        if not from_zero:
            self._reassign()
            return
        for tp, position in self._positions.items():
            if position != 0:
                self._seek_kafka(tp)

    def _fetch_from_zero(self, partitions: list[TopicPartition]) -> None:
        """Have librdkafka fetch ``partitions`` from offset 0, where a partition begins unless retention
        removed records (then the admin client's answer moves it, or the fetch is out of range and
        resets it), before the admin calls of ``assign``: a consumer assigned once its bootstrap
        connection has closed waits for librdkafka's next connection (11 ms or more) for its first fetch."""
        self._consumer.assign([self._kafka(tp, 0) for tp in partitions])
        paused = [self._kafka(tp) for tp in self._paused.intersection(partitions)]
        if paused:
            self._consumer.pause(paused)

    def subscribe(self, topics: Iterable[str], listener: RebalanceListener | None = None) -> None:
        self._ensure_open()
        if self._group_id is None:
            raise InvalidGroupIdError("subscribe needs a consumer group id")
        wanted = list(topics)
        if self._subscribed is None:
            self._positions = {}
        elif self._cooperative:
            self._revoke_unsubscribed(set(wanted))
        # Subscribed already, eager: the rebalance this causes revokes everything through librdkafka.
        self._subscribed = wanted
        self._listener = listener
        self._joined = False
        self._consumer.subscribe(
            [self._names.outer(topic) for topic in self._subscribed],
            on_assign=self._on_assign,
            on_revoke=self._on_revoke,
            on_lost=self._on_lost,
        )

    def _revoke_unsubscribed(self, topics: set[str]) -> None:
        """Give up the partitions of topics a new subscription leaves, telling the listener they are
        revoked, as Kafka's consumer does (librdkafka would report them lost, so too late to commit)."""
        leaving = {tp for tp in self._positions if tp.topic not in topics}
        if not leaving:
            return
        if self._listener is not None:
            self._listener.on_partitions_revoked(leaving)
        for tp in leaving:
            del self._positions[tp]
        self._paused -= leaving

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
            # librdkafka joins once a subscribed topic exists; until then there is nothing to wait for.
            return any(self._admin.partition_count(topic) for topic in self._subscribed)
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
        return self._admin.beginning_offsets(partitions)

    def end_offsets(self, partitions: Iterable[TopicPartition]) -> dict[TopicPartition, int]:
        return self._admin.end_offsets(partitions, self._read_committed)

    def high_watermarks(self, partitions: Iterable[TopicPartition]) -> dict[TopicPartition, int]:
        return self._admin.end_offsets(partitions, read_committed=False)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._consumer.close()

    def _consume(self, limit: int, wait_s: float) -> list[Message]:
        """Up to ``limit`` messages, gathered for up to ``wait_s`` (librdkafka returns early when it has
        ``limit``): fewer, larger hand-overs than returning the first message to arrive."""
        try:
            messages: list[Message] = self._consumer.consume(limit, wait_s)
        except KafkaException as error:
            raise log_error(error, "Polling") from error
        return messages

    def _batches(self, messages: list[Message]) -> list[RecordBatch]:
        """Column batches of consecutive messages of one partition; error events move positions only.

        Each field is read once for the whole hand-over and each batch takes a slice of it.
        """
        timestamps = _timestamps(messages)
        events: list[Message] = []
        # librdkafka gives an event no timestamp (-1): only a hand-over with one is searched for them.
        if -1 in timestamps and any(map(Message.error, messages)):
            events = [message for message in messages if message.error() is not None]
            messages = [message for message in messages if message.error() is None]
            timestamps = _timestamps(messages)
        batches: list[RecordBatch] = []
        if messages:
            topics = {tp.topic for tp in self._positions}
            only = next(iter(topics)) if len(topics) == 1 else None
            columns = _Columns.read(messages, timestamps, one_topic=only is not None)
            for start, stop in pairwise(_run_bounds(columns.partitions, columns.topics)):
                batch = self._batch(columns, start, stop, only)
                if batch is not None:
                    batches.append(batch)
        if batches and self._subscribed is None:
            self._past_control_records({(batch.topic, batch.partition) for batch in batches})
        for event in events:
            self._on_event(event)
        return batches

    def _past_control_records(self, read: set[tuple[str, int]]) -> None:
        """Move the positions of the partitions just ``read`` past the control records (transaction
        markers) and aborted records that librdkafka consumed after their last record, as Kafka's consumer
        does: a reader of a transactional topic, its last record's position one short of the marker's end,
        would otherwise see itself behind until an empty fetch the broker holds for ``fetch.wait.max.ms``
        reports the end. Only for partitions assigned by hand (the stores' readers): in a group, a revoke
        inside the hand-over could leave librdkafka a stale position that a later assignment keeps."""
        wanted = [TopicPartition(topic, partition) for topic, partition in read]
        try:
            found = self._consumer.position([self._kafka(tp) for tp in wanted])
        except KafkaException:
            return
        for tp, ktp in zip(wanted, found, strict=True):
            position = self._positions.get(tp)
            if position is not None and ktp.offset > position and tp not in self._paused:
                self._positions[tp] = ktp.offset

    def _batch(self, columns: _Columns, start: int, stop: int, topic: str | None) -> RecordBatch | None:
        """The batch of messages ``start`` to ``stop`` (one partition's) past this consumer's position;
        ``topic`` is that of every message, when the consumer reads only one."""
        if topic is None:
            assert columns.topics is not None
            topic = self._names.inner(columns.topics[start])
        tp = TopicPartition(topic, columns.partitions[start])
        position = self._positions.get(tp)
        if position is None or tp in self._paused:
            return None
        offsets = columns.offsets
        if offsets[start] < position:
            start = bisect_left(offsets, position, start, stop)
            if start == stop:
                return None
        self._positions[tp] = offsets[stop - 1] + 1
        return RecordBatch(
            topic=tp.topic,
            partition=tp.partition,
            offsets=_span(offsets, start, stop),
            keys=_span(columns.keys, start, stop),
            values=_span(columns.values, start, stop),
            headers=(
                [_NO_HEADERS] * (stop - start)
                if columns.headers is None
                else _span(columns.headers, start, stop)
            ),
            timestamps=_span(columns.timestamps, start, stop),
            next_offset=offsets[stop - 1] + 1,
        )

    def _on_event(self, message: Message) -> None:
        error = message.error()
        if error.code() == KafkaError._PARTITION_EOF:
            tp = TopicPartition(self._names.inner(message.topic()), message.partition())
            position = self._positions.get(tp)
            if position is not None and tp not in self._paused:
                self._positions[tp] = max(position, message.offset())
            return
        if error.code() in (KafkaError._AUTO_OFFSET_RESET, KafkaError.OFFSET_OUT_OF_RANGE):
            self._reset_out_of_range(TopicPartition(self._names.inner(message.topic()), message.partition()))
            return
        missing = error.code() in (KafkaError.UNKNOWN_TOPIC_OR_PART, KafkaError._UNKNOWN_PARTITION)
        if missing and self._subscribed is None and self._unassigned(message):
            return  # of a partition an assign refused, which librdkafka was told of first
        if error.fatal() or (missing and self._subscribed is None):
            raise log_error(error, "Polling")

    def _reset_out_of_range(self, tp: TopicPartition) -> None:
        """A position outside the partition's offsets (retention removed them): reset it as
        ``auto.offset.reset`` says, or fail with ``none``."""
        if tp not in self._positions:
            return
        if self._reset == "none":
            raise OffsetOutOfRangeError(
                f"Position {self._positions[tp]} of {tp} is out of range and auto.offset.reset=none"
            )
        found = self.beginning_offsets([tp]) if self._reset == "earliest" else self.end_offsets([tp])
        self._positions[tp] = found[tp]
        self._seek_kafka(tp)

    def _behind(self) -> bool:
        """Whether some readable partition has records (or markers) past this consumer's position."""
        readable = {
            tp: position
            for tp, position in self._positions.items()
            if tp not in self._paused and position is not None
        }
        if not readable:
            return False
        ends = self.end_offsets(readable)
        return any(position < ends[tp] for tp, position in readable.items())

    def _resolve_positions(self, strict: bool) -> None:
        """Start positions of newly assigned partitions: committed offsets, else ``auto.offset.reset``."""
        unknown = [tp for tp, position in self._positions.items() if position is None]
        if not unknown:
            return
        committed = self.committed(unknown) if self._group_id else {}
        resets = [tp for tp in unknown if committed.get(tp) is None]
        starts: dict[TopicPartition, int] = {}
        if resets and self._reset == "earliest":
            starts = self.beginning_offsets(resets)
        elif resets and self._reset == "latest":
            starts = self.end_offsets(resets)
        for tp in unknown:
            found = committed.get(tp)
            if found is not None:
                self._positions[tp] = found.offset
            elif tp in starts:
                self._positions[tp] = starts[tp]
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
        """Make librdkafka fetch ``tp`` from this consumer's position."""
        position = self._positions.get(tp)
        if position is None:
            return
        try:
            self._consumer.seek(self._kafka(tp, position))
        except KafkaException:
            if self._subscribed is not None:
                raise
            # Assigned without an offset so far (auto.offset.reset=none): assign everything at its position.
            self._reassign()

    def _unassigned(self, event: Message) -> bool:
        """Whether an event names a partition (or topic) this consumer is not assigned."""
        topic, partition = event.topic(), event.partition()
        if topic is None:
            return False
        inner = self._names.inner(topic)
        if partition is None or partition < 0:
            return all(tp.topic != inner for tp in self._positions)
        return TopicPartition(inner, partition) not in self._positions

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
        """Eager: ``partitions`` is the whole new assignment. Cooperative: only those added to it."""
        assigned = [TopicPartition(self._names.inner(p.topic), p.partition) for p in partitions]
        if not self._cooperative:
            self._positions = {}
        self._positions.update((tp, None) for tp in assigned)
        self._resolve_positions(strict=False)
        starts = [
            self._kafka(tp, position) for tp in assigned if (position := self._positions[tp]) is not None
        ]
        if self._cooperative:
            self._consumer.incremental_assign(starts)
        else:
            self._consumer.assign(starts)
        self._joined = True
        if self._listener is not None:
            self._listener.on_partitions_assigned(set(assigned))

    def _on_revoke(self, consumer: Any, partitions: list[KafkaTopicPartition]) -> None:
        """Eager: every partition held goes. Cooperative: only ``partitions``, and the listener hears
        of them only if there are any."""
        revoked = self._give_up(partitions)
        if self._listener is not None and (revoked or not self._cooperative):
            self._listener.on_partitions_revoked(revoked)
        self._forget(revoked, partitions)

    def _on_lost(self, consumer: Any, partitions: list[KafkaTopicPartition]) -> None:
        lost = self._give_up(partitions)
        if self._listener is not None and (lost or not self._cooperative):
            self._listener.on_partitions_lost(lost)
        self._forget(lost, partitions)

    def _give_up(self, partitions: list[KafkaTopicPartition]) -> set[TopicPartition]:
        """The partitions a revocation or loss takes from this consumer."""
        if not self._cooperative:
            return set(self._positions)
        return {TopicPartition(self._names.inner(p.topic), p.partition) for p in partitions} & set(
            self._positions
        )

    def _forget(self, gone: set[TopicPartition], partitions: list[KafkaTopicPartition]) -> None:
        if self._cooperative:
            # Partitions never given a start position (auto.offset.reset=none) were not assigned.
            held = {(p.topic, p.partition) for p in self._consumer.assignment()}
            self._consumer.incremental_unassign([p for p in partitions if (p.topic, p.partition) in held])
        else:
            self._consumer.unassign()
        for tp in gone:
            del self._positions[tp]
        self._paused -= gone

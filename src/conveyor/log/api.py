"""The log interface every backend implements, and the plain data it speaks in.

Keys, values and header values are ``bytes | None``; headers are ``list[tuple[str, bytes | None]]``;
timestamps are milliseconds since the epoch; timeouts of calls are seconds, timeouts of settings are
milliseconds (as Kafka names them). Client settings are passed as keyword arguments under Kafka's names,
either dotted (``**{"transaction.timeout.ms": 5000}``) or with underscores (``transaction_timeout_ms=5000``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from types import TracebackType
from typing import Literal, Self

from conveyor.log.new_topic import NewTopic
from conveyor.positions import RecordMetadata, TopicPartition

Header = tuple[str, bytes | None]
Headers = list[Header]
IsolationLevel = Literal["read_committed", "read_uncommitted"]


@dataclass(slots=True)
class ConsumerRecord:
    """A record as a consumer sees it."""

    topic: str
    partition: int
    offset: int
    key: bytes | None
    value: bytes | None
    headers: Headers
    timestamp: int


@dataclass(slots=True)
class RecordBatch:
    """Consecutive records of one partition in columns: the fast way to consume.

    ``next_offset`` is the consumer's position after this batch (past any records it skipped).
    """

    topic: str
    partition: int
    offsets: Sequence[int]
    keys: Sequence[bytes | None]
    values: Sequence[bytes | None]
    headers: Sequence[Headers]
    timestamps: Sequence[int]
    next_offset: int

    def __len__(self) -> int:
        return len(self.values)

    def records(self) -> list[ConsumerRecord]:
        """The batch as records, one object each."""
        count = len(self.values)
        return list(
            map(
                ConsumerRecord,
                repeat(self.topic, count),
                repeat(self.partition, count),
                self.offsets,
                self.keys,
                self.values,
                self.headers,
                self.timestamps,
            )
        )


@dataclass(frozen=True, slots=True)
class OffsetAndMetadata:
    """A committed consumer offset: the next offset to read, with free-form metadata."""

    offset: int
    metadata: str = ""


@dataclass(frozen=True, slots=True)
class TopicDescription:
    """A topic's partition count and settings (``cleanup.policy``, ``retention.ms``, ...)."""

    name: str
    partitions: int
    config: Mapping[str, str] = field(default_factory=dict)

    def topic_partitions(self) -> list[TopicPartition]:
        return [TopicPartition(self.name, p) for p in range(self.partitions)]


@dataclass(frozen=True, slots=True)
class PartitionOffsets:
    """Where a partition starts and ends: earliest kept offset, high watermark, last stable offset."""

    earliest: int
    latest: int
    last_stable: int


@dataclass(frozen=True, slots=True)
class GroupMembership:
    """A member's place in one generation of a group: its id, the leader's, and the protocol chosen."""

    generation: int
    member_id: str
    leader_id: str
    protocol: str

    @property
    def is_leader(self) -> bool:
        return self.member_id == self.leader_id


@dataclass(frozen=True, slots=True)
class JoinResult(GroupMembership):
    """What a member learns from a completed join round; ``members`` is filled for the leader only."""

    members: Mapping[str, bytes]


@dataclass(frozen=True, slots=True)
class CleanerResult:
    """What one cleaner pass removed."""

    records_removed: int
    batches_removed: int


OffsetsToCommit = Mapping[TopicPartition, "OffsetAndMetadata | int"]


class Admin(ABC):
    """Topics, offsets, consumer groups and producer fencing."""

    @abstractmethod
    def cluster_id(self) -> str:
        """The id of the cluster the log lives on: the Kafka cluster's, or the one an embedded log made
        when it was first opened. It never changes for one log."""

    def create_topic(
        self,
        name: str,
        partitions: int = 1,
        config: Mapping[str, str | int] | None = None,
        exist_ok: bool = False,
        replication_factor: int = -1,
    ) -> None:
        """Create a topic. ``config`` takes ``cleanup.policy`` (``delete``/``compact``), ``retention.ms``,
        ``delete.retention.ms``. Raises ``TopicExistsError`` unless ``exist_ok``. ``replication_factor``
        is the copies a cluster keeps (-1: its default); a one-machine log keeps one whatever it says."""
        self._create_topic(NewTopic.checked(name, partitions, config, replication_factor), exist_ok)

    @abstractmethod
    def _create_topic(self, topic: NewTopic, exist_ok: bool) -> None:
        """Create a topic whose name, partition count and cleanup policy Kafka's rules allow."""

    @abstractmethod
    def delete_topic(self, name: str) -> None:
        """Delete a topic and its records; ``UnknownTopicOrPartitionError`` if it does not exist."""

    @abstractmethod
    def list_topics(self) -> list[str]:
        """Names of all topics, sorted."""

    @abstractmethod
    def describe_topics(self, names: Iterable[str]) -> dict[str, TopicDescription]:
        """Descriptions of the named topics."""

    def partition_counts(self, names: Iterable[str] | None = None) -> dict[str, int]:
        """The partition count of each of ``names`` that exists (of every topic when None), without
        their settings: what a reader needs to follow its topics."""
        existing = self.list_topics()
        wanted = existing if names is None else sorted(set(names).intersection(existing))
        return {name: description.partitions for name, description in self.describe_topics(wanted).items()}

    @abstractmethod
    def list_offsets(self, partitions: Iterable[TopicPartition]) -> dict[TopicPartition, PartitionOffsets]:
        """Earliest, latest (high watermark) and last stable offset of each partition."""

    @abstractmethod
    def fence_producers(self, transactional_ids: Iterable[str]) -> None:
        """Bump the epoch of each transactional id and abort its open transaction (Kafka's fenceProducers)."""

    @abstractmethod
    def list_consumer_groups(self) -> list[str]:
        """Ids of groups that have committed offsets or members, sorted."""

    @abstractmethod
    def list_consumer_group_offsets(self, group_id: str) -> dict[TopicPartition, OffsetAndMetadata]:
        """The offsets a group has committed."""

    @abstractmethod
    def alter_consumer_group_offsets(self, group_id: str, offsets: OffsetsToCommit) -> None:
        """Overwrite committed offsets of a group; ``NonEmptyGroupError`` while it has members."""

    @abstractmethod
    def delete_consumer_group(self, group_id: str) -> None:
        """Delete a group's offsets; ``GroupIdNotFoundError`` or ``NonEmptyGroupError`` as Kafka does."""

    @abstractmethod
    def run_cleaner(self, topics: Iterable[str] | None = None) -> CleanerResult:
        """Apply retention to ``delete`` topics and compaction to ``compact`` topics (all if None)."""


class Closeable(ABC):
    """A client holding resources: ``close()`` releases them, and ``with`` closes it on the way out."""

    @abstractmethod
    def close(self) -> None:
        """Release the client's resources."""

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


class Producer(Closeable):
    """Writes records; with a transactional id, writes them atomically across partitions."""

    @property
    @abstractmethod
    def transactional_id(self) -> str | None:
        """The transactional id this producer was created with."""

    @abstractmethod
    def send(
        self,
        topic: str,
        value: bytes | None,
        key: bytes | None = None,
        partition: int | None = None,
        headers: Headers | None = None,
        timestamp: int | None = None,
        on_delivery: Callable[[RecordMetadata], None] | None = None,
    ) -> None:
        """Buffer one record; it is appended when its batch fills, on ``flush()`` or at commit.

        ``on_delivery`` is called with the record's offset once it is appended (inside a transaction that
        is before the commit, as Kafka's send callback), in the thread that caused the append.
        """

    @abstractmethod
    def send_batch(
        self,
        topic: str,
        values: Sequence[bytes | None],
        keys: Sequence[bytes | None] | None = None,
        partition: int | None = None,
        headers: Sequence[Headers | None] | None = None,
        timestamps: Sequence[int] | None = None,
    ) -> None:
        """Buffer many records in one call: the same as ``send`` for each, at a fraction of the cost."""

    @abstractmethod
    def flush(self, timeout_s: float | None = None) -> None:
        """Append everything buffered (inside a transaction: appended, still invisible to read_committed).

        With `timeout_s`, raise `FlushTimeoutError` if that is not done in time; what was not appended
        stays buffered and goes with the next flush.
        """

    @abstractmethod
    def partitions_for(self, topic: str) -> int:
        """The partition count of a topic."""

    @abstractmethod
    def init_transactions(self) -> None:
        """Claim the transactional id: bump its epoch, fencing older producers and aborting their work."""

    @abstractmethod
    def begin_transaction(self) -> None:
        """Start a transaction."""

    @abstractmethod
    def send_offsets_to_transaction(self, offsets: OffsetsToCommit, group_id: str) -> None:
        """Commit these consumer offsets for ``group_id`` if, and when, the transaction commits."""

    @abstractmethod
    def commit_transaction(self) -> None:
        """Make the transaction's records and offsets visible, atomically."""

    def commit_transaction_nowait(self) -> None:
        """Commit as ``commit_transaction`` does, as durably, but return once the log has decided the
        commit rather than once it is visible: Kafka writes the markers that show it to read_committed
        readers a moment later, and Java's producer does not wait for them either. A log whose commits
        are visible at once simply commits."""
        self.commit_transaction()

    @abstractmethod
    def abort_transaction(self) -> None:
        """Discard the transaction's records and offsets."""

    @abstractmethod
    def close(self) -> None:
        """Append what plain sends buffered, abort an open transaction (as Kafka's close does), release."""


class RebalanceListener:
    """Told when a subscribed consumer's group takes partitions away and hands new ones out (no-ops here)."""

    def on_partitions_revoked(self, partitions: set[TopicPartition]) -> None:
        """The time to commit offsets. Eager: before a rebalance, with every partition held so far.
        Cooperative: after one, with only the partitions it moved away (never called with none)."""

    def on_partitions_assigned(self, partitions: set[TopicPartition]) -> None:
        """After a rebalance. Eager: with the partitions now held. Cooperative: with only the partitions
        added (possibly none), those kept staying as they were."""

    def on_partitions_lost(self, partitions: set[TopicPartition]) -> None:
        """Called instead of ``on_partitions_revoked`` when the member was evicted from its group (its
        session timed out): the partitions may be owned by others already, so committing is too late.
        As Kafka's ``ConsumerRebalanceListener``, it defaults to ``on_partitions_revoked``."""
        self.on_partitions_revoked(partitions)


class Consumer(Closeable):
    """Reads assigned partitions from a position; commits offsets for its group.

    Partitions come either from ``assign`` or, for a consumer with a group id, from ``subscribe``: the
    group then shares the topics' partitions among its members (``partition.assignment.strategy``:
    range assignment with eager rebalancing by default, or cooperative sticky assignment, KIP-429) and
    every ``poll`` keeps this consumer's membership up to date.
    """

    @property
    @abstractmethod
    def group_id(self) -> str | None:
        """The consumer group this consumer commits for, if any."""

    @abstractmethod
    def assign(self, partitions: Iterable[TopicPartition]) -> None:
        """Read exactly these partitions from now on (replaces the previous assignment)."""

    @abstractmethod
    def subscribe(self, topics: Iterable[str], listener: RebalanceListener | None = None) -> None:
        """Join the consumer group and read the partitions of ``topics`` it assigns to this consumer."""

    @abstractmethod
    def unsubscribe(self) -> None:
        """Leave the consumer group, giving up its partitions."""

    @abstractmethod
    def enforce_rebalance(self) -> None:
        """Make the group rebalance at the next ``poll`` (Kafka's ``enforceRebalance``), e.g. because
        a subscribed topic appeared or gained partitions."""

    @abstractmethod
    def assignment(self) -> set[TopicPartition]:
        """The partitions currently assigned."""

    @abstractmethod
    def pause(self, partitions: Iterable[TopicPartition]) -> None:
        """Stop returning records of these assigned partitions until they are resumed (positions stay)."""

    @abstractmethod
    def resume(self, partitions: Iterable[TopicPartition]) -> None:
        """Return records of these partitions again."""

    @abstractmethod
    def paused(self) -> set[TopicPartition]:
        """The assigned partitions currently paused."""

    @abstractmethod
    def seek(self, partition: TopicPartition, offset: int) -> None:
        """Read ``partition`` from ``offset`` on."""

    @abstractmethod
    def seek_to_beginning(self, partitions: Iterable[TopicPartition] | None = None) -> None:
        """Read from the earliest kept offset (all assigned partitions if None)."""

    @abstractmethod
    def seek_to_end(self, partitions: Iterable[TopicPartition] | None = None) -> None:
        """Read from the end (last stable offset under read_committed)."""

    @abstractmethod
    def position(self, partition: TopicPartition) -> int:
        """The offset of the next record this consumer will read from ``partition``."""

    def poll(self, timeout: float = 0.0, max_records: int | None = None) -> list[ConsumerRecord]:
        """Records from the assigned partitions, waiting up to ``timeout`` seconds for the first one: the
        records of ``poll_batch``, one by one."""
        records: list[ConsumerRecord] = []
        for batch in self.poll_batch(timeout, max_records):
            records.extend(batch.records())
        return records

    @abstractmethod
    def poll_batch(self, timeout: float = 0.0, max_records: int | None = None) -> list[RecordBatch]:
        """Like ``poll``, in columns per partition."""

    @abstractmethod
    def commit(self, offsets: OffsetsToCommit | None = None) -> None:
        """Commit offsets for the group (the current positions if None)."""

    @abstractmethod
    def committed(
        self, partitions: Iterable[TopicPartition]
    ) -> dict[TopicPartition, OffsetAndMetadata | None]:
        """The group's committed offsets."""

    @abstractmethod
    def beginning_offsets(self, partitions: Iterable[TopicPartition]) -> dict[TopicPartition, int]:
        """The earliest kept offset of each partition."""

    @abstractmethod
    def end_offsets(self, partitions: Iterable[TopicPartition]) -> dict[TopicPartition, int]:
        """The end of each partition: last stable offset under read_committed, else the high watermark."""

    @abstractmethod
    def high_watermarks(self, partitions: Iterable[TopicPartition]) -> dict[TopicPartition, int]:
        """The high watermark of each partition whatever the isolation level: past every record written so
        far, open transactions' included. A read_committed reader reaches it once every transaction open at
        the call has ended (Kafka's KafkaBasedLog reads its topics to it)."""

    @abstractmethod
    def close(self) -> None:
        """Release resources; the consumer cannot be used afterwards."""


class GroupCoordinator(ABC):
    """The broker side of Kafka's group membership protocol (JoinGroup, SyncGroup, Heartbeat, LeaveGroup)."""

    @abstractmethod
    def join_group(
        self,
        group_id: str,
        member_id: str | None,
        protocol_type: str,
        protocols: Sequence[tuple[str, bytes]],
        session_timeout_ms: int,
        rebalance_timeout_ms: int,
    ) -> JoinResult:
        """Join (or rejoin) and block until the join round completes; ``member_id=None`` for a new member."""

    @abstractmethod
    def sync_group(
        self, group_id: str, generation: int, member_id: str, assignments: Mapping[str, bytes] | None
    ) -> bytes:
        """Hand over the leader's assignments (followers pass None); block until this member's is known."""

    @abstractmethod
    def heartbeat(self, group_id: str, generation: int, member_id: str) -> None:
        """Keep the member alive; ``RebalanceInProgressError`` tells it to rejoin."""

    @abstractmethod
    def leave_group(self, group_id: str, member_id: str) -> None:
        """Leave at once, triggering a rebalance for the others."""


class Log(Closeable):
    """A set of topics with Kafka's semantics, and the clients that use them.

    A log pickles as its URL, so it can travel to other processes (Spark executors), which reopen it.
    """

    @property
    @abstractmethod
    def url(self) -> str:
        """The URL that ``open_log`` opens this log with."""

    @abstractmethod
    def admin(self) -> Admin:
        """An admin client."""

    @abstractmethod
    def producer(self, transactional_id: str | None = None, **config: object) -> Producer:
        """A producer; settings: ``batch.size`` (bytes, 1 MiB), ``linger.ms`` (5), ``transaction.timeout.ms``
        (60000)."""

    @abstractmethod
    def consumer(
        self,
        group_id: str | None = None,
        isolation_level: IsolationLevel = "read_committed",
        **config: object,
    ) -> Consumer:
        """A consumer; settings: ``auto.offset.reset`` (``latest``), ``max.poll.records`` (500), and for
        ``subscribe``: ``session.timeout.ms`` (45000), ``heartbeat.interval.ms`` (3000),
        ``max.poll.interval.ms`` (300000, the rebalance timeout), ``partition.assignment.strategy``
        (Kafka's class names; default ``RangeAssignor,CooperativeStickyAssignor``). Offsets are never
        committed automatically (``enable.auto.commit`` is not supported): call ``commit``."""

    @abstractmethod
    def group_coordinator(self) -> GroupCoordinator:
        """The coordinator of group membership."""

    @abstractmethod
    def close(self) -> None:
        """Release the log's resources in this process."""

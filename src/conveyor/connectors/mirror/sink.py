"""``MirrorSinkConnector`` and ``MirrorSinkTask``: KIP-656's exactly-once replication with a sink task.

The runtime's consumer reads the source cluster (``consumer.override.log.url``); the task writes to the
target with a producer of its own. In transactional mode (the default) each ``put_batch`` (or ``put``)
is one transaction on the target holding the batch, its offset syncs and the source consumer group's
offsets (the next offset to read, one past the last record), so records and progress commit together;
``pre_commit`` returns nothing, and the task resumes from the offsets on the target. The task claims its
transactional id once, in ``start``: fenced by a newer incarnation it fails, as Kafka's tasks do, since
claiming the id back would fence the live incarnation and write from offsets it has moved since. The task
takes the consumed batches as the log's columns (``BatchSinkTask``), so no record object is made per record.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial

from conveyor import __version__
from conveyor.api import BatchSinkTask, ConnectError, ConsumedBatch, SinkConnector, Task
from conveyor.connectors.configured_connector import ConfiguredConnector
from conveyor.connectors.mirror.bytes_only import require_byte_array_converters
from conveyor.connectors.mirror.config import (
    SINK_CONFIG_DEF,
    TRANSACTIONAL_PRODUCER_CONFIG,
    MirrorSettings,
    SinkTransactionBoundary,
)
from conveyor.connectors.mirror.offset_syncs import OFFSET_SYNCS_TOPIC_CONFIG, OffsetSync, OffsetSyncEmitter
from conveyor.connectors.mirror.remote_topics import create_remote_topics
from conveyor.data import SinkRecord
from conveyor.errors import ConfigError
from conveyor.log import Log, Producer, ProducerFencedError, RecordMetadata, TopicPartition, open_log
from conveyor.settings.names import CONSUMER_LOG_URL_CONFIG, consumer_group

logger = logging.getLogger(__name__)

TASK_INDEX_CONFIG = "mirror.task.index"
NAME_CONFIG = "name"
SEND_ATTEMPTS = 3
"""How often a batch is sent (each time in a fresh transaction) before the task fails."""


def transactional_id(connector: str, task: int) -> str:
    """KIP-656's per-task transactional id: a restarted task fences its previous incarnation."""
    return f"mirror-sink-{connector}-{task}"


class MirrorSinkConnector(ConfiguredConnector, SinkConnector):
    """Runs ``tasks.max`` MirrorSinkTasks; the consumer group shares the source partitions among them."""

    CONFIG_DEF = SINK_CONFIG_DEF

    def _check(self, props: Mapping[str, str]) -> None:
        super()._check(props)
        require_byte_array_converters(props)
        MirrorSettings.parse(props, SINK_CONFIG_DEF)
        if not props.get(NAME_CONFIG):
            raise ConfigError("A MirrorSinkConnector needs its name for its transactional ids")

    def task_class(self) -> type[Task]:
        return MirrorSinkTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [{**self._props, TASK_INDEX_CONFIG: str(task)} for task in range(max_tasks)]


class MirrorSinkTask(BatchSinkTask):
    """Copies each batch to the remote topic's same partition, keys, values, headers and timestamps."""

    def __init__(self) -> None:
        self._settings: MirrorSettings | None = None
        self._transactional = True
        self._group = ""
        self._transactional_id: str | None = None
        self._target: Log | None = None
        self._source: Log | None = None
        self._producer: Producer | None = None
        self._syncs: OffsetSyncEmitter | None = None
        self._ready_topics: set[str] = set()
        self._boundary = SinkTransactionBoundary(False, 0, 1)
        self._open: OpenTransaction | None = None
        self._unflushed = Unflushed()
        self.transactions_committed = 0
        self.transactions_aborted = 0

    def version(self) -> str:
        return __version__

    def start(self, props: Mapping[str, str]) -> None:
        """Open both clusters; in transactional mode take the producer (fencing earlier incarnations) and
        hand the offsets the target keeps for the source group to ``context.offset``, so the consumer
        starts where the last commit ended."""
        settings = self._settings = MirrorSettings.parse(props, SINK_CONFIG_DEF)
        self._transactional = SINK_CONFIG_DEF.parse(props)[TRANSACTIONAL_PRODUCER_CONFIG]
        self._boundary = SinkTransactionBoundary.parse(props)
        connector = props[NAME_CONFIG]
        self._group = consumer_group(connector)
        if self._transactional:
            self._transactional_id = transactional_id(connector, int(props.get(TASK_INDEX_CONFIG, "0")))
        self._target = open_log(settings.target_url)
        self._source = open_log(settings.source_url)
        if settings.emit_offset_syncs:
            topic = settings.policy.offset_syncs_topic(settings.target_alias)
            self._target.admin().create_topic(topic, 1, OFFSET_SYNCS_TOPIC_CONFIG, exist_ok=True)
            self._syncs = OffsetSyncEmitter(topic, settings.offset_lag_max)
        if self._transactional:
            # Claiming the transactional id first aborts what a killed incarnation left open: on Kafka
            # its pending offsets would hold up every read of the group's committed offsets.
            self._producer = self._new_producer()
            self.context.offset(self._offsets_on_target(None))
        if props.get(CONSUMER_LOG_URL_CONFIG, "").strip() == "":
            logger.info(
                "MirrorSinkTask reads the worker's own log as the source cluster %s", settings.source_alias
            )

    def _new_producer(self) -> Producer:
        """A producer for the target; a transactional one claims the task's id, fencing older incarnations."""
        assert self._target is not None
        if self._producer is not None:
            self._producer.close()
            self._producer = None
        if self._syncs is not None:
            self._syncs.forget()
        if not self._transactional:
            return self._target.producer(acks="all")
        producer = self._target.producer(
            transactional_id=self._transactional_id, acks="all", **{"enable.idempotence": "true"}
        )
        producer.init_transactions()
        return producer

    def _offsets_on_target(self, partitions: Collection[TopicPartition] | None) -> dict[TopicPartition, int]:
        """The source group's offsets committed on the target (of ``partitions``, or all of them)."""
        assert self._target is not None
        committed = self._target.admin().list_consumer_group_offsets(self._group)
        return {
            partition: offset.offset
            for partition, offset in committed.items()
            if partitions is None or partition in partitions
        }

    def open(self, partitions: Collection[TopicPartition]) -> None:
        """After a rebalance: remote topics that exist before the first send, and in transactional mode
        the partitions resume from the target's offsets (another task may have moved them since
        ``start``). The producer stays the one ``start`` claimed: another would fence a newer incarnation."""
        self._ensure_remote_topics({p.topic for p in partitions})
        if self._transactional:
            self.context.offset(self._offsets_on_target(partitions))

    def close(self, partitions: Collection[TopicPartition]) -> None:
        """Partitions taken away: a plain producer goes with them (the next ``put`` takes a new one); the
        transactional one stays, as only ``start`` claims the id. A transaction still open here (the
        partitions were lost to another task, with no ``pre_commit`` before, or its commit failed) is
        aborted, and the partitions kept are consumed again from its first records: committing it
        could write records the new owner of the lost partitions writes too."""
        if self._transactional and self._open is not None:
            self._abort_and_rewind()
        if not self._transactional and self._producer is not None:
            self._producer.close()
            self._producer = None
            self._unflushed.flushed()

    def _ensure_remote_topics(self, topics: set[str]) -> None:
        assert self._settings is not None and self._source is not None and self._target is not None
        missing = topics - self._ready_topics
        if missing:
            create_remote_topics(self._source.admin(), self._target.admin(), missing, self._settings)
            self._ready_topics |= missing

    def put(self, records: Sequence[SinkRecord]) -> None:
        """Send the records (when converters or transforms are in the way, or on redelivery)."""
        if records:
            self._replicate(_runs(records))

    def put_batch(self, batch: ConsumedBatch) -> None:
        """Send a consumed batch as it is: its columns go to the producer without a record object each."""
        if len(batch):
            self._replicate([batch])

    def _replicate(self, runs: Sequence[Run], commit: bool = False) -> None:
        """Transactional: send the runs in the open transaction (beginning one if none is), and commit it
        when the boundary is reached or ``commit`` asks. A failure aborts the transaction and sends
        everything it held again in a fresh one. A fenced task fails: a newer incarnation owns the
        transactional id and the offsets, and claiming the id back would fence it, then send from offsets
        it has moved since. Plain: ``_copy``."""
        if not self._transactional:
            self._copy(runs)
            return
        for attempt in range(1, SEND_ATTEMPTS + 1):
            try:
                if runs:
                    self._send_runs(runs)
                if self._open is not None and (commit or self._boundary_reached(self._open)):
                    self._commit_open()
                return
            except ProducerFencedError as fenced:
                self._open = None
                raise ConnectError(
                    f"{self._transactional_id} was fenced by a newer incarnation of this task"
                ) from fenced
            except Exception as error:
                runs = self._abort()
                if attempt == SEND_ATTEMPTS:
                    raise ConnectError(f"Could not replicate a batch after {attempt} attempts") from error
                logger.warning("Sending a batch failed (attempt %d); sending it again: %s", attempt, error)

    def _boundary_reached(self, transaction: OpenTransaction) -> bool:
        boundary = self._boundary
        if not boundary.spans_batches:
            return True
        return (
            transaction.records >= boundary.max_records
            or time.monotonic() - transaction.started >= boundary.interval_ms / 1000
        )

    def _send_runs(self, runs: Sequence[Run]) -> None:
        """Send the runs in the open transaction, beginning one if none is."""
        if self._producer is None:
            raise ConnectError(f"{self._transactional_id}: the task has no producer (it was stopped)")
        if self._open is None:
            self._producer.begin_transaction()
            self._open = OpenTransaction(time.monotonic())
            if self._boundary.spans_batches:
                self.context.request_commit_within(self._boundary.interval_ms)
        transaction = self._open
        for run in runs:
            transaction.runs.append(run)
            transaction.records += len(run)
            source = TopicPartition(run.topic, run.partition)
            self._send_run(self._producer, run, transaction.delivered)
            transaction.next_offsets[source] = max(transaction.next_offsets.get(source, 0), run.next_offset)

    def _send_run(self, producer: Producer, run: Run, delivered: list[Delivered]) -> None:
        """The run to the remote topic's same partition; where its last record lands goes to
        ``delivered`` once the target acknowledges it."""
        assert self._settings is not None
        self._ensure_remote_topics({run.topic})
        remote, last = self._settings.remote_topic(run.topic), len(run) - 1
        if last:
            producer.send_batch(
                remote,
                run.values[:last],
                run.keys[:last],
                run.partition,
                run.headers[:last],
                run.timestamps[:last],
            )
        source = TopicPartition(run.topic, run.partition)
        producer.send(
            remote,
            run.values[last],
            key=run.keys[last],
            partition=run.partition,
            headers=run.headers[last] or None,
            timestamp=run.timestamps[last],
            on_delivery=partial(_delivered, delivered, source, run.offsets[last]),
        )

    def _copy(self, runs: Sequence[Run]) -> None:
        """The plain copy: send the runs without waiting for them (``pre_commit`` flushes), then the
        offset syncs of the runs acknowledged so far. A failure, of these records or of earlier ones the
        producer reports now, rewinds each partition to its first record sent since the last flush: they
        are consumed and sent again, and no commit goes past them meanwhile."""
        unflushed = self._unflushed
        unflushed.sending(runs)
        try:
            if self._producer is None:
                self._producer = self._new_producer()
            for run in runs:
                self._send_run(self._producer, run, unflushed.acknowledged)
            self._send_acknowledged_syncs()
        except Exception as error:
            if self._syncs is not None:
                self._syncs.forget()
            assigned = self.context.assignment()
            self.context.offset({p: o for p, o in unflushed.rewind().items() if p in assigned})
            if unflushed.failures >= SEND_ATTEMPTS:
                raise ConnectError(f"Could not replicate a batch after {SEND_ATTEMPTS} attempts") from error
            logger.warning(
                "Sending a batch failed; consuming what was sent since the last flush again: %s", error
            )

    def _send_acknowledged_syncs(self) -> None:
        """The offset syncs due for the plain copy's runs acknowledged since the last call."""
        acknowledged = self._unflushed.acknowledged
        if self._syncs is not None and acknowledged and self._producer is not None:
            for source, upstream, metadata in acknowledged:
                self._syncs.send(self._producer, OffsetSync(source, upstream, metadata.offset))
        acknowledged.clear()

    def _commit_open(self) -> None:
        """The open transaction's offset syncs, then the source offsets, then the commit (records first:
        the syncs need the offsets the records got on the target)."""
        transaction, producer = self._open, self._producer
        assert transaction is not None and producer is not None
        if self._syncs is not None:
            producer.flush()
            for source, upstream, metadata in transaction.delivered:
                self._syncs.send(producer, OffsetSync(source, upstream, metadata.offset))
        # One past the last record: the committed offset is the next one to read (KIP-656's code
        # commits the record's own offset, which would replicate that record again).
        producer.send_offsets_to_transaction(transaction.next_offsets, self._group)
        producer.commit_transaction()
        self.transactions_committed += 1
        self._open = None

    def _abort(self) -> list[Run]:
        """Abort the open transaction; what it held, to be sent again."""
        transaction, self._open = self._open, None
        if self._syncs is not None:
            self._syncs.forget()
        if self._producer is None or transaction is None:
            return transaction.runs if transaction is not None else []
        try:
            self._producer.abort_transaction()
        except Exception as error:
            raise ConnectError(f"{self._transactional_id}: aborting a transaction failed") from error
        self.transactions_aborted += 1
        return transaction.runs

    def _abort_and_rewind(self) -> None:
        """Abort the open transaction and consume its records again: each partition it held restarts at
        its first record in it, which is where the last committed transaction ended."""
        runs = self._abort()
        rewinds: dict[TopicPartition, int] = {}
        for run in runs:
            partition = TopicPartition(run.topic, run.partition)
            rewinds[partition] = min(rewinds.get(partition, run.offsets[0]), run.offsets[0])
        assigned = self.context.assignment()
        self.context.offset({p: o for p, o in rewinds.items() if p in assigned})

    def pre_commit(self, current_offsets: Mapping[TopicPartition, int]) -> dict[TopicPartition, int]:
        """Transactional: commit the open transaction, if any, and return nothing, the offsets being
        committed with the records on the target; should the commit keep failing, the transaction is
        aborted and its records consumed again. Otherwise the records sent are flushed and their offsets
        committed on the source, as any sink does, none past a partition's rewind."""
        if not self._transactional:
            return self._flush_plain(current_offsets)
        if self._open is not None:
            try:
                self._replicate([], commit=True)
            except ConnectError as error:
                if isinstance(error.__cause__, ProducerFencedError):
                    raise
                logger.error("%s: committing a transaction failed; consuming its records again: %s",
                             self._transactional_id, error)  # fmt: skip
                self._abort_and_rewind()
        return {}

    def _flush_plain(self, current_offsets: Mapping[TopicPartition, int]) -> dict[TopicPartition, int]:
        """Flush the plain copy, send the offset syncs now due, and return the offsets below which every
        record is on the target: the consumed ones, but none past a rewind still to happen."""
        if self._producer is not None:
            self._producer.flush()
            self._send_acknowledged_syncs()
        self._unflushed.flushed()
        rewound = self._unflushed.rewound
        return {p: min(offset, rewound.get(p, offset)) for p, offset in current_offsets.items()}

    def stop(self) -> None:
        if self._open is not None and self._producer is not None:
            try:
                self._abort()
            except ConnectError as error:
                logger.warning("%s", error)
        for closeable in (self._producer, self._target, self._source):
            if closeable is not None:
                closeable.close()
        self._producer = None


@dataclass
class OpenTransaction:
    """What the transaction open on the target holds: its runs (to send again should it abort), the
    next source offset of each partition, and where the last record of each run landed."""

    started: float
    records: int = 0
    runs: list[Run] = field(default_factory=list)
    next_offsets: dict[TopicPartition, int] = field(default_factory=dict)
    delivered: list[Delivered] = field(default_factory=list)


@dataclass
class Unflushed:
    """The plain copy since its last flush: each partition's first record sent (where a failure rewinds
    to), the runs whose last record the target acknowledged, and the failures since; and the rewinds
    handed to the sink loop that no batch has started from yet, past which no commit may go."""

    first_offsets: dict[TopicPartition, int] = field(default_factory=dict)
    acknowledged: list[Delivered] = field(default_factory=list)
    failures: int = 0
    rewound: dict[TopicPartition, int] = field(default_factory=dict)

    def sending(self, runs: Sequence[Run]) -> None:
        for run in runs:
            partition, first = TopicPartition(run.topic, run.partition), run.offsets[0]
            if first <= self.rewound.get(partition, -1):
                del self.rewound[partition]
            self.first_offsets.setdefault(partition, first)

    def rewind(self) -> dict[TopicPartition, int]:
        """A failure: where each partition is consumed again from; nothing sent is pending any more."""
        rewinds, self.first_offsets = self.first_offsets, {}
        self.acknowledged.clear()
        self.failures += 1
        for partition, offset in rewinds.items():
            self.rewound[partition] = min(offset, self.rewound.get(partition, offset))
        return rewinds

    def flushed(self) -> None:
        """Everything sent is on the target."""
        self.first_offsets.clear()
        self.acknowledged.clear()
        self.failures = 0


Delivered = tuple[TopicPartition, int, RecordMetadata]
"""A source partition, the upstream offset of a run's last record, and where it landed on the target."""


def _delivered(
    into: list[Delivered], source: TopicPartition, upstream: int, metadata: RecordMetadata
) -> None:
    into.append((source, upstream, metadata))


Run = ConsumedBatch
"""Consecutive records of one source topic partition, in columns."""


@dataclass(frozen=True)
class RecordRun:
    """Records of one topic partition taken back into columns (the ``put`` path)."""

    topic: str
    partition: int
    offsets: list[int]
    keys: list[bytes | None]
    values: list[bytes | None]
    headers: list[list[tuple[str, bytes | None]]]
    timestamps: list[int]
    next_offset: int

    def __len__(self) -> int:
        return len(self.values)

    @classmethod
    def of(cls, records: Sequence[SinkRecord]) -> RecordRun:
        first = records[0]
        return cls(
            first.topic,
            first.kafka_partition or 0,
            [r.kafka_offset for r in records],
            [r.key for r in records],
            [r.value for r in records],
            [_raw_headers(r) for r in records],
            [r.timestamp or 0 for r in records],
            records[-1].kafka_offset + 1,
        )


def _runs(records: Sequence[SinkRecord]) -> list[Run]:
    """Consecutive records of one topic partition (a put usually holds a single run)."""
    runs: list[Run] = []
    start = 0
    for index in range(1, len(records) + 1):
        if index == len(records) or (
            records[index].topic != records[start].topic
            or records[index].kafka_partition != records[start].kafka_partition
        ):
            runs.append(RecordRun.of(records[start:index]))
            start = index
    return runs


def _raw_headers(record: SinkRecord) -> list[tuple[str, bytes | None]]:
    if not record.has_headers:
        return []
    return [(header.key, header.value) for header in record.headers]

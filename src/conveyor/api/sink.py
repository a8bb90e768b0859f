"""Sink tasks and what the runtime offers them: seeking, pausing, commit requests, error reporting."""

from __future__ import annotations

import abc
from collections.abc import Collection, Mapping, Sequence
from concurrent.futures import Future
from typing import TYPE_CHECKING, Protocol

from conveyor.api.context import HasContext
from conveyor.api.plugin_metrics import PluginMetricsHolder
from conveyor.api.task import Task
from conveyor.positions import TopicPartition

if TYPE_CHECKING:
    from conveyor.data import SinkColumns, SinkRecord

TOPICS_CONFIG = "topics"
TOPICS_REGEX_CONFIG = "topics.regex"


class ErrantRecordReporter(abc.ABC):
    """Sends a record the task could not write to the dead letter queue and/or the log (KIP-610)."""

    @abc.abstractmethod
    def report(self, record: SinkRecord, error: BaseException) -> Future[None]:
        """Report ``record``; the future completes once it is safely recorded.

        Call it from ``put`` (the task's thread). Conveyor's reporter logs the record (with
        ``errors.log.enable``) and writes it to the dead letter queue (when one is configured) before
        it returns, so the future is already done. With
        ``errors.tolerance=none`` the task fails once the ``put`` that reported it returns.
        """


class SinkTaskContext(PluginMetricsHolder, abc.ABC):
    """What the runtime offers a running sink task; use it from the task's own thread only.

    Requests through it (``offset``, ``pause``, ``request_commit``...) take effect at the loop's
    next turn, after the current call returns.
    """

    @abc.abstractmethod
    def configs(self) -> Mapping[str, str]:
        """The task's config."""

    @abc.abstractmethod
    def offset(self, offsets: Mapping[TopicPartition, int]) -> None:
        """Rewind or skip: consumption of each partition restarts at the given offset.

        Applied before the next fetch to partitions the task holds; offsets given in ``start`` or
        ``open`` wait for their partitions and apply right after ``open``, before their first
        ``put``. Offsets for partitions the next assignment leaves out are dropped. A batch waiting
        to be delivered again after a ``RetriableError`` is dropped.
        """

    @abc.abstractmethod
    def timeout(self, timeout_ms: int) -> None:
        """After a retriable failure, wait at most this long before the next ``put``.

        Conveyor caps its fetch waits with it until a ``put`` succeeds; a batch to redeliver is
        handed back at the loop's next turn without waiting for it.
        """

    @abc.abstractmethod
    def assignment(self) -> set[TopicPartition]:
        """The partitions currently assigned to the task."""

    @abc.abstractmethod
    def pause(self, *partitions: TopicPartition) -> None:
        """Stop fetching from these partitions until ``resume``; an unassigned one raises ``ConnectError``."""

    @abc.abstractmethod
    def resume(self, *partitions: TopicPartition) -> None:
        """Resume fetching from paused partitions."""

    @abc.abstractmethod
    def request_commit(self) -> None:
        """Ask for an offset commit soon: it runs, ``pre_commit`` first, at the loop's next turn."""

    def request_commit_within(self, timeout_ms: int) -> None:
        """Ask for an offset commit, ``pre_commit`` first, within ``timeout_ms`` (Conveyor's own).

        The earliest request wins, and a commit for any reason fulfils it; the loop waits no longer
        than that for records, so a task that holds something open (a transaction spanning several
        ``put`` calls) gets its ``pre_commit`` in time even when no record comes.
        By default the commit is asked for at the loop's next turn, sooner than needed.
        """
        self.request_commit()

    def errant_record_reporter(self) -> ErrantRecordReporter | None:
        """Present when the connector has a dead letter queue or error logging configured."""
        return None

    @abc.abstractmethod
    def is_closing(self) -> bool:
        """True exactly while ``pre_commit`` runs because partitions are about to be closed.

        That is for the partitions revoked in a rebalance, and for all of them when the task stops
        or fails (KAFKA-6725); a pause, a periodic or a requested commit is not closing, and neither
        is any other call. A task that buffers records can then write them out and return their
        offsets, instead of losing the progress.
        """


class SinkTask(Task, HasContext[SinkTaskContext]):
    """Receives records from the log and writes them to an external system.

    The runtime calls ``open`` with newly assigned partitions, ``put`` with batches, ``pre_commit`` (by
    default ``flush``) before committing offsets, and ``close`` with partitions being taken away.
    All on the task's thread: ``open`` and ``close`` of a rebalance run inside the loop's fetch,
    between two ``put`` calls. The tasks of a connector share its topics' partitions as the
    members of the consumer group ``connect-<connector>``, reading committed records only (unless
    ``consumer.override.isolation.level=read_uncommitted``).

    Example::

        class PrintTask(SinkTask):
            def version(self): return "1.0"
            def start(self, props): pass
            def put(self, records):
                for record in records:
                    print(record.topic, record.kafka_offset, record.value)
            def stop(self): pass
    """

    TOPICS_CONFIG = TOPICS_CONFIG
    TOPICS_REGEX_CONFIG = TOPICS_REGEX_CONFIG

    @abc.abstractmethod
    def put(self, records: Sequence[SinkRecord]) -> None:
        """Write (or buffer) these records; raise :class:`RetriableError` to have them redelivered.

        Each call holds records of one topic partition, in offset order, after the converters and
        transforms (possibly none, when the transforms dropped them all). It may block, but no
        commit, rebalance or stop is handled meanwhile, so keep it well under the graceful stop's
        5 s. ``RetriableError``: the same records come back at the loop's next turn. Any other
        exception fails the task; records put since the last commit are delivered again to the
        next incarnation.
        """

    def flush(self, current_offsets: Mapping[TopicPartition, int]) -> None:
        """Make everything ``put`` so far durable; offsets are the next ones to consume.

        Called only by the default ``pre_commit``.
        """

    def pre_commit(self, current_offsets: Mapping[TopicPartition, int]) -> dict[TopicPartition, int]:
        """The offsets safe to commit; by default flushes and returns ``current_offsets``.

        Called every ``offset.flush.interval.ms`` (60 s by default), soon after ``request_commit``,
        when the connector is paused, and before partitions are closed (a rebalance, or the task's
        stop or failure), when
        ``context.is_closing()`` is true. ``current_offsets`` maps each partition to the offset after
        the last record ``put``. Conveyor commits the returned offsets to the consumer group, ignoring
        partitions it did not ask about and offsets beyond the ones given; return an empty mapping to
        skip this commit. A restarted or newly assigned task resumes from the committed offsets. If
        this raises, nothing is committed, and outside a close the loop rewinds to the last commit.
        """
        self.flush(current_offsets)
        return dict(current_offsets)

    def max_poll_records(self, props: Mapping[str, str]) -> int | None:
        """How many records, at most, the task wants from each poll of its consumer, for the task's
        ``props``; ``None`` (the default) keeps the consumer's own default of 500.

        Called before ``start``. A task that writes a poll's records in one unit (a transaction, a file)
        uses it to make those units as large as its own batch setting. The connector's
        ``consumer.override.max.poll.records`` still wins.
        """
        return None

    def open(self, partitions: Collection[TopicPartition]) -> None:
        """These partitions were assigned; set up writers for them before their first ``put``."""

    def close(self, partitions: Collection[TopicPartition]) -> None:
        """These partitions were taken away; drop their writers.

        Called right after the closing ``pre_commit`` (even if it raised), on a rebalance or the
        task's stop or failure, before ``stop``; called alone for partitions lost (the task was
        evicted from its group, and they may belong to another task already). No ``put`` follows
        for these partitions unless they are opened again.
        """


class ConsumedBatch(Protocol):
    """Consecutive records of one topic partition as the log stores them, in columns (offset order).

    Keys, values and header values are the stored bytes; ``next_offset`` is the position after the batch.
    """

    @property
    def topic(self) -> str: ...
    @property
    def partition(self) -> int: ...
    @property
    def offsets(self) -> Sequence[int]: ...
    @property
    def keys(self) -> Sequence[bytes | None]: ...
    @property
    def values(self) -> Sequence[bytes | None]: ...
    @property
    def headers(self) -> Sequence[list[tuple[str, bytes | None]]]: ...
    @property
    def timestamps(self) -> Sequence[int]: ...
    @property
    def next_offset(self) -> int: ...
    def __len__(self) -> int: ...


class BatchSinkTask(SinkTask):
    """A sink task that can also take consumed batches as columns, without a ``SinkRecord`` per record.

    When the connector has no transforms and its key, value and header converters are all
    ``ByteArrayConverter`` (so every ``SinkRecord`` would carry the stored bytes unchanged), the runtime
    calls ``put_batch`` instead of ``put``; otherwise ``put``, as for any sink task. ``put_batch`` follows
    ``put``'s contract, except that records a ``RetriableError`` sends back are redelivered to ``put``.
    """

    @abc.abstractmethod
    def put_batch(self, batch: ConsumedBatch) -> None:
        """Write (or buffer) the records of ``batch``; the same as ``put`` with them as ``SinkRecord``s."""


class ColumnSinkTask(SinkTask):
    """A sink task that can also take converted batches as columns, without a ``SinkRecord`` per record.

    When the connector has no transforms, the runtime converts each consumed batch a column at a time
    and calls ``put_columns`` instead of ``put`` (``put`` still gets a batch in which some record fails
    to convert, so that the error handling deals with that record alone, and records waiting for
    redelivery). ``put_columns`` follows ``put``'s contract, except that records a ``RetriableError``
    sends back are redelivered to ``put``; ``batch.records()`` gives the records to report as errant.
    """

    @abc.abstractmethod
    def put_columns(self, batch: SinkColumns) -> None:
        """Write (or buffer) the records of ``batch``; the same as ``put`` with ``batch.records()``."""

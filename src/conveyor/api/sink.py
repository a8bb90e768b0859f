"""Sink tasks and what the runtime offers them: seeking, pausing, commit requests, error reporting."""

from __future__ import annotations

import abc
from collections.abc import Collection, Mapping, Sequence
from concurrent.futures import Future
from typing import TYPE_CHECKING

from conveyor.api.errors import ConnectError
from conveyor.api.task import Task
from conveyor.positions import TopicPartition

if TYPE_CHECKING:
    from conveyor.data import SinkRecord

TOPICS_CONFIG = "topics"
TOPICS_REGEX_CONFIG = "topics.regex"


class ErrantRecordReporter(abc.ABC):
    """Sends a record the task could not write to the dead letter queue and/or the log (KIP-610)."""

    @abc.abstractmethod
    def report(self, record: SinkRecord, error: BaseException) -> Future[None]:
        """Report ``record``; the future completes once it is safely recorded."""


class SinkTaskContext(abc.ABC):
    """What the runtime offers a running sink task."""

    @abc.abstractmethod
    def configs(self) -> Mapping[str, str]:
        """The task's config."""

    @abc.abstractmethod
    def offset(self, offsets: Mapping[TopicPartition, int]) -> None:
        """Rewind or skip: consumption of each partition restarts at the given offset."""

    @abc.abstractmethod
    def timeout(self, timeout_ms: int) -> None:
        """After a retriable failure, wait at most this long before the next ``put``."""

    @abc.abstractmethod
    def assignment(self) -> set[TopicPartition]:
        """The partitions currently assigned to the task."""

    @abc.abstractmethod
    def pause(self, *partitions: TopicPartition) -> None:
        """Stop fetching from these partitions until ``resume``."""

    @abc.abstractmethod
    def resume(self, *partitions: TopicPartition) -> None:
        """Resume fetching from paused partitions."""

    @abc.abstractmethod
    def request_commit(self) -> None:
        """Ask for an offset commit soon (a hint, not a guarantee)."""

    def errant_record_reporter(self) -> ErrantRecordReporter | None:
        """Present when the connector has a dead letter queue or error logging configured."""
        return None

    @abc.abstractmethod
    def is_closing(self) -> bool:
        """True only while ``pre_commit`` runs because partitions are about to be closed.

        That happens on a rebalance or a shutdown (KAFKA-6725); a task that buffers records can then
        write them out and return their offsets, instead of losing the progress.
        """


class SinkTask(Task):
    """Receives records from the log and writes them to an external system.

    The runtime calls ``open`` with newly assigned partitions, ``put`` with batches, ``pre_commit`` (by
    default ``flush``) before committing offsets, and ``close`` with partitions being taken away.

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

    _context: SinkTaskContext | None = None

    def initialize(self, context: SinkTaskContext) -> None:
        self._context = context

    @property
    def context(self) -> SinkTaskContext:
        """The context given to ``initialize``."""
        if self._context is None:
            raise ConnectError(f"{type(self).__name__} has not been initialized with a context")
        return self._context

    @abc.abstractmethod
    def put(self, records: Sequence[SinkRecord]) -> None:
        """Write (or buffer) these records; raise :class:`RetriableError` to have them redelivered."""

    def flush(self, current_offsets: Mapping[TopicPartition, int]) -> None:
        """Make everything ``put`` so far durable; offsets are the next ones to consume."""

    def pre_commit(self, current_offsets: Mapping[TopicPartition, int]) -> dict[TopicPartition, int]:
        """The offsets safe to commit; by default flushes and returns ``current_offsets``.

        Return an empty mapping to skip this commit. ``context.is_closing()`` tells whether the
        partitions are about to be closed.
        """
        self.flush(current_offsets)
        return dict(current_offsets)

    def open(self, partitions: Collection[TopicPartition]) -> None:
        """These partitions were assigned; set up writers for them."""

    def close(self, partitions: Collection[TopicPartition]) -> None:
        """These partitions were taken away; drop their writers (after ``pre_commit``)."""

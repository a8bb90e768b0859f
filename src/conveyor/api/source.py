"""Source tasks and what the runtime offers them: offsets already committed and transaction control."""

from __future__ import annotations

import abc
import enum
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from conveyor.api.context import HasContext
from conveyor.api.plugin_metrics import PluginMetricsHolder
from conveyor.api.task import Task
from conveyor.positions import RecordMetadata

if TYPE_CHECKING:
    from conveyor.data import SourceRecord

TRANSACTION_BOUNDARY_CONFIG = "transaction.boundary"


class TransactionBoundary(enum.Enum):
    """When an exactly-once source task's transactions end (the ``transaction.boundary`` setting)."""

    POLL = "poll"
    INTERVAL = "interval"
    CONNECTOR = "connector"

    @classmethod
    def from_property(cls, value: str) -> TransactionBoundary:
        """Parse the setting, ignoring case and surrounding spaces."""
        return cls(value.strip().lower())


DEFAULT_TRANSACTION_BOUNDARY = TransactionBoundary.POLL


class OffsetStorageReader(abc.ABC):
    """Reads the source offsets committed for this connector, e.g. to resume where a task stopped.

    Each call first reads the offsets topic to its end (blocking until it has, up to 30 s), so it
    sees every commit made before the call, this task's own included. Offsets not committed yet
    (records polled since the last commit) are not seen: call it from ``start``, not per record.
    """

    @abc.abstractmethod
    def offset(self, partition: Mapping[str, Any]) -> Mapping[str, Any] | None:
        """The last committed offset of ``partition``, or ``None`` if there is none."""

    def offsets(
        self, partitions: Sequence[Mapping[str, Any]]
    ) -> list[tuple[Mapping[str, Any], Mapping[str, Any] | None]]:
        """Each partition paired with its last committed offset (or ``None``), in the given order."""
        return [(partition, self.offset(partition)) for partition in partitions]


class TransactionContext(abc.ABC):
    """Lets a task with ``transaction.boundary=connector`` end transactions itself (KIP-618).

    Call it from ``poll`` (the task's thread). Without a record, the request applies once the batch
    that ``poll`` returns has been sent; with one (the very object ``poll`` returns), right after
    that record. An aborted transaction's records are discarded but their offsets are still
    committed. Asking both to commit and to abort the same record or batch fails the task. On a
    stop or pause, an open transaction is committed only if the task asked for it, else aborted.
    """

    @abc.abstractmethod
    def commit_transaction(self, record: SourceRecord | None = None) -> None: ...

    @abc.abstractmethod
    def abort_transaction(self, record: SourceRecord | None = None) -> None: ...


class SourceTaskContext(PluginMetricsHolder, abc.ABC):
    """What the runtime offers a running source task; use it from the task's own thread."""

    @abc.abstractmethod
    def configs(self) -> Mapping[str, str]:
        """The task's config."""

    @abc.abstractmethod
    def offset_storage_reader(self) -> OffsetStorageReader:
        """The connector's committed source offsets (the store is read to its end before ``start``)."""

    def transaction_context(self) -> TransactionContext | None:
        """Present only when the worker runs exactly-once (``exactly.once.source.support=enabled``)
        and the connector has ``transaction.boundary=connector``; ``None`` otherwise."""
        return None

    def writes_json_unchanged(self) -> bool:
        """Conveyor's own, not Kafka Connect's: whether the task's keys and values reach the log through
        JsonConverters with their defaults and no transformation, so that a record may carry an
        ``EncodedJson`` (``conveyor.convert.encoded_json``) instead of its Connect key or value."""
        return False


class SourceTask(Task, HasContext[SourceTaskContext]):
    """Polls an external system and returns records with their source partitions and offsets.

    The loop, on the task's thread: ``poll``, convert and send what it returned, and at each commit
    (every ``offset.flush.interval.ms``, 60 s by default; under exactly-once at each transaction
    boundary) make the records and their offsets durable, then call ``commit_record`` and
    ``commit``. While the connector is paused, ``poll`` is not called; the pause commits first.

    Example::

        class CounterTask(SourceTask):
            def version(self): return "1.0"
            def start(self, props):
                stored = self.context.offset_storage_reader().offset({"counter": "c"})
                self.next = stored["n"] + 1 if stored else 0
            def poll(self):
                record = SourceRecord("counts", source_partition={"counter": "c"},
                                      source_offset={"n": self.next},
                                      value_schema=INT64_SCHEMA, value=self.next)
                self.next += 1
                return [record]
            def stop(self): pass
    """

    TRANSACTION_BOUNDARY_CONFIG = TRANSACTION_BOUNDARY_CONFIG

    @abc.abstractmethod
    def poll(self) -> Sequence[SourceRecord] | None:
        """New records, or ``None``/empty when there are none yet.

        A list, or a ``SourceRecordBatch`` (``conveyor.data``) for records alike in all but their value,
        key and offset: with no transformation configured, the runtime sends its columns without
        building a record each.

        It may block while it waits for data, but briefly (a second or so): a stop or a pause is
        noticed only between two calls, and the graceful stop gives the whole task 5 s by default.
        A ``RetriableError`` means "nothing now": the runtime logs it and polls again shortly, as Kafka
        Connect does. Any other exception fails the task; what was not committed is polled again by the
        next incarnation, from the last committed offsets.
        """

    def commit(self) -> None:
        """The records sent so far and their offsets are durable; acknowledge upstream if needed.

        Called after each commit that had something to commit: at-least-once, once the records are
        in the log and their offsets written; exactly-once, once their transaction committed.
        Not called after a failure.
        """

    def commit_record(self, record: SourceRecord, metadata: RecordMetadata | None) -> None:
        """``record`` is in the log and its offset committed; called just before ``commit``.

        Conveyor calls it only when the task overrides it, with each record as it was written
        (after the transforms), and ``metadata`` with the record's topic, its partition (0 when the
        log's partitioner chose) and ``offset`` -1. Unlike Kafka, it is not called for records a
        transform dropped, nor for records of an aborted transaction.
        """

"""Source tasks and what the runtime offers them: offsets already committed and transaction control."""

from __future__ import annotations

import abc
import enum
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from conveyor.api.errors import ConnectError
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
    """Reads the source offsets committed for this connector, e.g. to resume where a task stopped."""

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

    Without a record, the request applies after the next batch from ``poll``; with one, right after
    that record. An aborted transaction's records are discarded but their offsets are still committed.
    """

    @abc.abstractmethod
    def commit_transaction(self, record: SourceRecord | None = None) -> None: ...

    @abc.abstractmethod
    def abort_transaction(self, record: SourceRecord | None = None) -> None: ...


class SourceTaskContext(abc.ABC):
    """What the runtime offers a running source task."""

    @abc.abstractmethod
    def configs(self) -> Mapping[str, str]:
        """The task's config."""

    @abc.abstractmethod
    def offset_storage_reader(self) -> OffsetStorageReader: ...

    def transaction_context(self) -> TransactionContext | None:
        """Present only when the connector runs with ``transaction.boundary=connector``."""
        return None


class SourceTask(Task):
    """Polls an external system and returns records with their source partitions and offsets.

    Example::

        class CounterTask(SourceTask):
            def version(self): return "1.0"
            def start(self, props):
                stored = self.context.offset_storage_reader().offset({"counter": "c"})
                self.next = stored["n"] + 1 if stored else 0
            def poll(self):
                record = SourceRecord({"counter": "c"}, {"n": self.next}, "counts", None,
                                      None, None, INT64_SCHEMA, self.next)
                self.next += 1
                return [record]
            def stop(self): pass
    """

    TRANSACTION_BOUNDARY_CONFIG = TRANSACTION_BOUNDARY_CONFIG

    _context: SourceTaskContext | None = None

    def initialize(self, context: SourceTaskContext) -> None:
        self._context = context

    @property
    def context(self) -> SourceTaskContext:
        """The context given to ``initialize``."""
        if self._context is None:
            raise ConnectError(f"{type(self).__name__} has not been initialized with a context")
        return self._context

    @abc.abstractmethod
    def poll(self) -> list[SourceRecord] | None:
        """New records, or ``None``/empty when there are none yet; may block briefly."""

    def commit(self) -> None:
        """The runtime committed offsets up to the records returned so far; acknowledge upstream if needed."""

    def commit_record(self, record: SourceRecord, metadata: RecordMetadata | None) -> None:
        """``record`` was written (``metadata`` is ``None`` if a transform dropped it)."""

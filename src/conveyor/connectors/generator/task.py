"""``GeneratorSourceTask``: produces deterministic records numbered by a per-task sequence number."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any, overload

from conveyor import __version__
from conveyor.api import ConnectError, SourceTask, TransactionContext
from conveyor.connectors.generator.config import GeneratorSettings
from conveyor.connectors.generator.pacing import RatePacer
from conveyor.connectors.generator.payload import KEY_TEMPLATE, ValueColumn
from conveyor.data import STRING_SCHEMA, SourceRecordBatch

TASK_FIELD = "task"
SEQNO_FIELD = "seqno"


def source_partition(task_id: int) -> dict[str, int]:
    """The source partition task ``task_id`` owns alone."""
    return {TASK_FIELD: task_id}


def resume_seqno(committed: Mapping[str, Any] | None) -> int:
    """The sequence number to produce next, given the last committed offset (``None``: start at 0)."""
    if committed is None or committed.get(SEQNO_FIELD) is None:
        return 0
    seqno = committed[SEQNO_FIELD]
    if not isinstance(seqno, int) or isinstance(seqno, bool) or seqno < 0:
        raise ConnectError(f"Offset {SEQNO_FIELD} must be a non-negative integer, not {seqno!r}")
    return seqno + 1


def commit_points(start: int, stop: int, every: int) -> range:
    """The sequence numbers in ``[start, stop)`` that close a transaction of ``every`` records."""
    first = start + (every - 1 - start) % every
    return range(first, stop, every)


class SeqnoOffsets(Sequence[dict[str, int]]):
    """The source offsets ``{"seqno": n}`` of a run of sequence numbers, each made when asked: a batch on
    the runtime's fast path reads only its last."""

    __slots__ = ("_numbers",)

    def __init__(self, numbers: range) -> None:
        self._numbers = numbers

    def __len__(self) -> int:
        return len(self._numbers)

    @overload
    def __getitem__(self, index: int) -> dict[str, int]: ...

    @overload
    def __getitem__(self, index: slice) -> list[dict[str, int]]: ...

    def __getitem__(self, index: int | slice) -> dict[str, int] | list[dict[str, int]]:
        if isinstance(index, slice):
            return [{SEQNO_FIELD: n} for n in self._numbers[index]]
        return {SEQNO_FIELD: self._numbers[index]}


class GeneratorSourceTask(SourceTask):
    """Produces values ``tttt:sssssssssssssss:<padding>`` of exactly ``record.size`` bytes.

    Each record's source offset is ``{"seqno": n}``, the sequence number it carries, so a restart
    resumes at ``n + 1``: with exactly-once delivery nothing is skipped or repeated. A poll returns a
    ``SourceRecordBatch`` whose values cost one concatenation each (``ValueColumn``), and no record.
    """

    idle_wait_seconds = 0.25

    def __init__(self) -> None:
        self._settings: GeneratorSettings | None = None
        self._partition: dict[str, int] = {}
        self._values: ValueColumn | None = None
        self._next_seqno = 0
        self._pacer: RatePacer | None = None
        self._transactions: TransactionContext | None = None
        self._stopping = threading.Event()

    def version(self) -> str:
        return __version__

    def start(self, props: Mapping[str, str]) -> None:
        settings = GeneratorSettings.from_props(props)
        self._settings = settings
        self._partition = source_partition(settings.task_id)
        self._values = ValueColumn(settings.seed, settings.task_id, settings.record_size)
        self._next_seqno = resume_seqno(self.context.offset_storage_reader().offset(self._partition))
        self._pacer = RatePacer(settings.rate) if settings.rate > 0 else None
        self._transactions = self.context.transaction_context() if settings.transaction_records else None
        self._stopping.clear()

    def poll(self) -> SourceRecordBatch | None:
        count = self._records_to_produce()
        if count == 0:
            return None
        start = self._next_seqno
        records = self._build(start, start + count)
        self._next_seqno += count
        self._request_commits(start, records)
        return records

    def stop(self) -> None:
        self._stopping.set()

    def _records_to_produce(self) -> int:
        """How many records this poll returns, after waiting at most ``idle_wait_seconds`` for any."""
        settings = self._require_settings()
        wanted = settings.batch_size
        if not settings.is_endless:
            wanted = min(wanted, settings.records - self._next_seqno)
        if wanted <= 0:
            self._stopping.wait(self.idle_wait_seconds)
            return 0
        if self._pacer is None:
            return wanted
        delay = self._pacer.seconds_until_due()
        if delay > 0 and self._stopping.wait(min(delay, self.idle_wait_seconds)):
            return 0
        return self._pacer.grant(wanted)

    def _build(self, start: int, stop: int) -> SourceRecordBatch:
        settings = self._require_settings()
        cardinality = settings.key_cardinality
        numbers = range(start, stop)
        return SourceRecordBatch(
            settings.topic,
            self._require_values().between(start, stop),
            SeqnoOffsets(numbers),
            source_partition=self._partition,
            value_schema=STRING_SCHEMA,
            key_schema=STRING_SCHEMA if cardinality else None,
            keys=[KEY_TEMPLATE % (n % cardinality) for n in numbers] if cardinality else None,
        )

    def _request_commits(self, start: int, records: SourceRecordBatch) -> None:
        """Ask for a commit after every ``transaction.records`` records and after the very last one."""
        if self._transactions is None:
            return
        settings = self._require_settings()
        stop = start + len(records)
        for seqno in commit_points(start, stop, settings.transaction_records):
            self._transactions.commit_transaction(records[seqno - start])
        finished = not settings.is_endless and stop == settings.records
        if finished and settings.records % settings.transaction_records:
            self._transactions.commit_transaction(records[-1])

    def _require_values(self) -> ValueColumn:
        if self._values is None:
            raise ConnectError("GeneratorSourceTask is not started")
        return self._values

    def _require_settings(self) -> GeneratorSettings:
        if self._settings is None:
            raise ConnectError("GeneratorSourceTask is not started")
        return self._settings

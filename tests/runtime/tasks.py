"""Source and sink tasks whose behaviour each test scripts, and which record what the runtime does."""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from conveyor.api import RetriableError, SinkTask, SourceTask, TopicPartition
from conveyor.data import SinkRecord, SourceRecord, SourceRecordBatch
from conveyor.positions import RecordMetadata

IDLE_POLL_S = 0.01


class ScriptedSourceTask(SourceTask):
    """Polls `batches` one per call (a `SourceRecordBatch` as it is, others as lists), then nothing (or
    raises `fail_with`).

    `on_poll(task, index, batch)` runs before batch `index` is returned; `on_commit(task)` runs in
    `commit()`, which the runtime calls once offsets are committed.
    """

    def __init__(
        self,
        batches: Sequence[Sequence[SourceRecord]],
        *,
        fail_with: BaseException | None = None,
        on_poll: Callable[[ScriptedSourceTask, int, Sequence[SourceRecord]], None] | None = None,
        on_commit: Callable[[ScriptedSourceTask], None] | None = None,
    ) -> None:
        self._batches: list[Sequence[SourceRecord]] = [
            batch if isinstance(batch, SourceRecordBatch) else list(batch) for batch in batches
        ]
        self._fail_with = fail_with
        self._on_poll = on_poll
        self._on_commit = on_commit
        self._lock = threading.Lock()
        self.polls = 0
        self.batches_returned = 0
        self.commits = 0
        self.committed_records: list[SourceRecord] = []
        self.stopped = False

    def version(self) -> str:
        return "1.0"

    def start(self, props: Mapping[str, str]) -> None:
        """Nothing to set up."""

    def poll(self) -> Sequence[SourceRecord] | None:
        with self._lock:
            self.polls += 1
            index = self.batches_returned
        if index < len(self._batches):
            batch = self._batches[index]
            if self._on_poll is not None:
                self._on_poll(self, index, batch)
            with self._lock:
                self.batches_returned += 1
            return batch
        if self._fail_with is not None:
            raise self._fail_with
        threading.Event().wait(IDLE_POLL_S)
        return None

    def commit(self) -> None:
        self.commits += 1
        if self._on_commit is not None:
            self._on_commit(self)

    def commit_record(self, record: SourceRecord, metadata: RecordMetadata | None) -> None:
        self.committed_records.append(record)

    def stop(self) -> None:
        self.stopped = True


@dataclass
class SinkEvent:
    """One call the runtime made on a `RecordingSinkTask`."""

    name: str
    values: list[Any] = field(default_factory=list)
    offsets: dict[TopicPartition, int] = field(default_factory=dict)
    closing: bool = False
    """What `context.is_closing()` said during the call."""
    observed: Any = None


class RecordingSinkTask(SinkTask):
    """Keeps every call the runtime makes, in order.

    `retriable_puts` first puts raise `RetriableError`; `fail_put` makes every put raise it;
    `commit_at(offsets)` chooses what `pre_commit` returns; `observe()` runs in `pre_commit` and its
    result is kept with the event (to see what the log held at that moment).
    """

    def __init__(
        self,
        *,
        retriable_puts: int = 0,
        fail_put: BaseException | None = None,
        commit_at: Callable[[dict[TopicPartition, int]], dict[TopicPartition, int]] | None = None,
        observe: Callable[[], Any] | None = None,
        on_put: Callable[[RecordingSinkTask, Sequence[SinkRecord]], None] | None = None,
        on_start: Callable[[RecordingSinkTask], None] | None = None,
        on_open: Callable[[RecordingSinkTask, Collection[TopicPartition]], None] | None = None,
    ) -> None:
        self._retriable_puts = retriable_puts
        self._fail_put = fail_put
        self._commit_at = commit_at
        self._observe = observe
        self._on_put = on_put
        self._on_start = on_start
        self._on_open = on_open
        self._lock = threading.Lock()
        self.events: list[SinkEvent] = []

    def version(self) -> str:
        return "1.0"

    def start(self, props: Mapping[str, str]) -> None:
        self._add(SinkEvent("start"))
        if self._on_start is not None:
            self._on_start(self)

    def _add(self, event: SinkEvent) -> None:
        event.closing = self.context.is_closing()
        with self._lock:
            self.events.append(event)

    def of(self, name: str) -> list[SinkEvent]:
        with self._lock:
            return [event for event in self.events if event.name == name]

    def put_values(self) -> list[Any]:
        """The values of every put that was accepted, in order."""
        return [value for event in self.of("put") for value in event.values]

    def put(self, records: Sequence[SinkRecord]) -> None:
        values = [record.value for record in records]
        if self._fail_put is not None:
            self._add(SinkEvent("failed-put", values))
            raise self._fail_put
        if self._retriable_puts > 0:
            self._retriable_puts -= 1
            self._add(SinkEvent("retriable-put", values))
            raise RetriableError("the sink is not ready yet")
        if self._on_put is not None:
            self._on_put(self, records)
        self._add(SinkEvent("put", values))

    def pre_commit(self, current_offsets: Mapping[TopicPartition, int]) -> dict[TopicPartition, int]:
        offsets = dict(current_offsets)
        observed = None if self._observe is None else self._observe()
        self._add(SinkEvent("pre_commit", offsets=offsets, observed=observed))
        return offsets if self._commit_at is None else self._commit_at(offsets)

    def open(self, partitions: Collection[TopicPartition]) -> None:
        self._add(SinkEvent("open", offsets={p: -1 for p in partitions}))
        if self._on_open is not None:
            self._on_open(self, partitions)

    def close(self, partitions: Collection[TopicPartition]) -> None:
        self._add(SinkEvent("close", offsets={p: -1 for p in partitions}))

    def stop(self) -> None:
        self._add(SinkEvent("stop"))


@dataclass
class FileStore:
    """What buffering sinks share: the files they wrote, every record they accepted, failures to inject."""

    files: list[list[tuple[TopicPartition, int]]] = field(default_factory=list)
    consumed: list[tuple[TopicPartition, int]] = field(default_factory=list)
    fail_on_value: str | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    def duplicates(self) -> int:
        """How many accepted records had been accepted before (by this task or another)."""
        return len(self.consumed) - len(set(self.consumed))

    def written(self) -> list[tuple[TopicPartition, int]]:
        return sorted(record for file in self.files for record in file)


class BufferingFileSink(SinkTask):
    """Writes `records_per_file` records per file, in `pre_commit` once a file is full, and returns the
    offsets written so far (as archiving sinks such as an S3 sink do).

    With `respect_closing` a closing `pre_commit` also writes the partial file, so a rebalance or
    shutdown keeps the progress; without it the buffer is dropped on `close` and read again. A put of
    the store's `fail_on_value` fails the task, once.
    """

    def __init__(self, store: FileStore, records_per_file: int, *, respect_closing: bool) -> None:
        self._store = store
        self._records_per_file = records_per_file
        self._respect_closing = respect_closing
        self._buffers: dict[TopicPartition, list[int]] = {}
        self._written: dict[TopicPartition, int] = {}

    def version(self) -> str:
        return "1.0"

    def start(self, props: Mapping[str, str]) -> None:
        """Nothing to set up."""

    def open(self, partitions: Collection[TopicPartition]) -> None:
        for partition in partitions:
            self._buffers[partition] = []

    def put(self, records: Sequence[SinkRecord]) -> None:
        with self._store.lock:
            if self._store.fail_on_value in [record.value for record in records]:
                self._store.fail_on_value = None
                raise ConnectionError("the object store timed out")
            for record in records:
                partition = TopicPartition(record.topic, record.kafka_partition)
                self._buffers[partition].append(record.kafka_offset)
                self._store.consumed.append((partition, record.kafka_offset))

    def pre_commit(self, current_offsets: Mapping[TopicPartition, int]) -> dict[TopicPartition, int]:
        closing = self._respect_closing and self.context.is_closing()
        for partition in current_offsets:
            buffer = self._buffers.get(partition, [])
            while len(buffer) >= self._records_per_file or (closing and buffer):
                self._write(partition, buffer[: self._records_per_file])
                del buffer[: self._records_per_file]
        return {p: o for p, o in self._written.items() if p in current_offsets}

    def _write(self, partition: TopicPartition, offsets: list[int]) -> None:
        with self._store.lock:
            self._store.files.append([(partition, offset) for offset in offsets])
        self._written[partition] = offsets[-1] + 1

    def close(self, partitions: Collection[TopicPartition]) -> None:
        for partition in partitions:
            self._buffers.pop(partition, None)
            self._written.pop(partition, None)

    def stop(self) -> None:
        """Nothing to release."""

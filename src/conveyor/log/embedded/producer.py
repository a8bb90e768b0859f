"""The embedded backend's producer: buffers records per partition and appends them as whole batches.

Records are appended when a partition's buffer reaches ``batch.size`` bytes, on ``flush()``, ``linger.ms``
after a plain (non-transactional) send, as Kafka's producer does from its sender thread (an error there
is raised by the next call), and at ``commit_transaction()``, which appends what remains, writes the
transaction's consumer offsets and marks it committed in one database transaction. Like Kafka's, the
producer may be shared by threads. A transaction that never had to append before its commit
leaves no trace in the database until that single atomic write.
"""

from __future__ import annotations

import functools
import random
import sqlite3
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Concatenate, ParamSpec, TypeVar

from conveyor.log.api import Headers, OffsetAndMetadata, OffsetsToCommit, Producer
from conveyor.log.arguments import check_batch_columns, require_transactional
from conveyor.log.client_config import int_setting
from conveyor.log.embedded import group_offsets, transactions
from conveyor.log.embedded.database import Database, now_ms
from conveyor.log.embedded.partition_log import append_batch
from conveyor.log.embedded.record_buffer import EncodedBatch, RecordBuffer
from conveyor.log.embedded.topics import TopicInfo, require_topic
from conveyor.log.errors import (
    IllegalStateError,
    InvalidRecordError,
    InvalidTxnStateError,
    LogError,
    ProducerFencedError,
    TransactionAbortedError,
    UnknownTopicOrPartitionError,
)
from conveyor.log.murmur2 import partition_for_key
from conveyor.positions import RecordMetadata, TopicPartition

DEFAULT_BATCH_SIZE = 1_048_576
DEFAULT_TRANSACTION_TIMEOUT_MS = 60_000
DEFAULT_LINGER_MS = 5

P = ParamSpec("P")
R = TypeVar("R")


@dataclass(slots=True)
class _Transaction:
    """The producer's side of its open transaction."""

    started_ms: int | None = None
    txn_id: int | None = None
    aborted_by_log: bool = False
    offsets: dict[str, dict[TopicPartition, OffsetAndMetadata]] = field(default_factory=dict)


def _synchronized(
    method: Callable[Concatenate[EmbeddedProducer, P], R],
) -> Callable[Concatenate[EmbeddedProducer, P], R]:
    """Run the method holding the producer's lock (the linger thread appends concurrently)."""

    def locked(producer: EmbeddedProducer, /, *args: P.args, **kwargs: P.kwargs) -> R:
        with producer._lock:
            return method(producer, *args, **kwargs)

    functools.update_wrapper(locked, method)
    return locked


class EmbeddedProducer(Producer):
    """A producer writing into an embedded log's database."""

    def __init__(
        self, database: Database, transactional_id: str | None, config: Mapping[str, object]
    ) -> None:
        self._database = database
        self._transactional_id = transactional_id
        self._batch_size = int_setting(config, "batch.size", DEFAULT_BATCH_SIZE, minimum=1)
        self._transaction_timeout_ms = int_setting(
            config, "transaction.timeout.ms", DEFAULT_TRANSACTION_TIMEOUT_MS, minimum=1
        )
        self._topics: dict[str, TopicInfo] = {}
        self._buffers: dict[tuple[str, int], RecordBuffer] = {}
        self._full: list[tuple[tuple[str, int], RecordBuffer]] = []
        """A transaction's full buffers, in the order they filled, waiting for the linger thread."""
        self._sticky_partitions: dict[str, int] = {}
        self._identity: transactions.ProducerIdentity | None = None
        self._transaction: _Transaction | None = None
        self._fatal_error: LogError | None = None
        self._closed = False
        self._linger_s = int_setting(config, "linger.ms", DEFAULT_LINGER_MS) / 1000
        self._lock = threading.RLock()
        self._linger_thread: threading.Thread | None = None
        self._background_error: LogError | None = None
        self._appending = False
        """Whether the linger thread is appending a transaction's full buffers, outside the lock."""
        self._appended = threading.Condition(self._lock)

    @property
    def transactional_id(self) -> str | None:
        return self._transactional_id

    def partitions_for(self, topic: str) -> int:
        return self._topic(topic).partitions

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
        with self._lock:
            self._ensure_can_send()
            info = self._topics.get(topic) or self._topic(topic)
            if key is None:
                if info.compacted:
                    raise InvalidRecordError(f"Topic {topic} is compacted: every record needs a key")
                if partition is None:
                    partition = self._sticky_partitions.get(topic)
                    if partition is None:
                        partition = self._stick(topic, info)
            elif partition is None:
                partition = partition_for_key(key, info.partitions)
            buffer = self._buffers.get((topic, partition))
            if buffer is None:
                buffer = self._new_buffer(info, partition)
            buffer.add(value, key, headers, time.time_ns() // 1_000_000 if timestamp is None else timestamp)
            if on_delivery is not None:
                buffer.on_delivery(on_delivery)
            if buffer.size >= self._batch_size:
                self._append_full(topic, partition)
            if self._transactional_id is None and self._linger_thread is None:
                self._start_lingering()

    def send_batch(
        self,
        topic: str,
        values: Sequence[bytes | None],
        keys: Sequence[bytes | None] | None = None,
        partition: int | None = None,
        headers: Sequence[Headers | None] | None = None,
        timestamps: Sequence[int] | None = None,
    ) -> None:
        with self._lock:
            self._ensure_can_send()
            info = self._topics.get(topic) or self._topic(topic)
            count = check_batch_columns(topic, values, keys, headers, timestamps)
            if info.compacted and (keys is None or None in keys):
                raise InvalidRecordError(f"Topic {topic} is compacted: every record needs a key")
            stamps = timestamps if timestamps is not None else [time.time_ns() // 1_000_000] * count
            if partition is not None or keys is None:
                target = partition
                if target is None:
                    target = self._sticky_partitions.get(topic)
                    if target is None:
                        target = self._stick(topic, info)
                self._extend(info, target, values, keys, headers, stamps)
            else:
                for target, rows in _rows_by_key_partition(keys, info.partitions).items():
                    self._extend(
                        info,
                        target,
                        [values[i] for i in rows],
                        [keys[i] for i in rows],
                        None if headers is None else [headers[i] for i in rows],
                        [stamps[i] for i in rows],
                    )
            if self._transactional_id is None and self._linger_thread is None:
                self._start_lingering()

    def flush(self, timeout_s: float | None = None) -> None:
        """Appends at once: the embedded log has no queue to wait on, so `timeout_s` is always met."""
        with self._lock:
            self._await_appending()
            self._ensure_usable()
            if self._transaction is not None and self._transaction.aborted_by_log:
                raise self._aborted_error()
            self._append(self._take_buffers())

    @_synchronized
    def init_transactions(self) -> None:
        transactional_id = self._require_transactional()
        if self._identity is not None:
            raise InvalidTxnStateError(
                f"Transactional id {transactional_id}: init_transactions() already called"
            )
        with self._database.write() as conn:
            self._identity = transactions.claim_transactional_id(conn, transactional_id)

    @_synchronized
    def begin_transaction(self) -> None:
        transactional_id = self._require_transactional()
        self._ensure_usable()
        if self._identity is None:
            raise InvalidTxnStateError(f"Transactional id {transactional_id}: call init_transactions() first")
        if self._transaction is not None:
            raise InvalidTxnStateError(
                f"Transactional id {transactional_id}: a transaction is already in progress"
            )
        self._transaction = _Transaction()

    @_synchronized
    def send_offsets_to_transaction(self, offsets: OffsetsToCommit, group_id: str) -> None:
        transaction = self._require_transaction("send_offsets_to_transaction")
        if transaction.aborted_by_log:
            raise self._aborted_error()
        group_id = group_offsets.require_group_id(group_id)
        self._start_clock(transaction)
        transaction.offsets.setdefault(group_id, {}).update(group_offsets.normalize_offsets(offsets))

    @_synchronized
    def commit_transaction(self) -> None:
        self._await_appending()
        transaction = self._require_transaction("commit_transaction")
        if transaction.aborted_by_log:
            raise self._aborted_error()
        encoded = self._encode_all()
        delivered: list[tuple[EncodedBatch, int]] = []
        with self._database.write() as conn:
            problem = self._check_transaction(conn, transaction)
            if problem is None:
                delivered = self._write_encoded(conn, encoded, transaction.txn_id)
                for group_id, offsets in transaction.offsets.items():
                    group_offsets.write_offsets(conn, group_id, offsets)
                if transaction.txn_id is not None:
                    transactions.commit_transaction(conn, transaction.txn_id)
        if problem is not None:
            raise self._fail(problem)
        self._transaction = None
        _notify(delivered)

    @_synchronized
    def abort_transaction(self) -> None:
        self._await_appending()
        transaction = self._require_transaction("abort_transaction")
        self._buffers.clear()
        self._full.clear()
        assert self._identity is not None
        try:
            with self._database.write() as conn:
                transactions.ensure_current_epoch(conn, self._identity)
                if transaction.txn_id is not None and transactions.transaction_state(
                    conn, transaction.txn_id
                ):
                    transactions.abort_transaction(conn, transaction.txn_id)
        except ProducerFencedError as fenced:
            raise self._fail(fenced) from None
        self._transaction = None

    def close(self) -> None:
        """Release the producer, deciding for what it still holds:

         1. A plain producer appends what it buffered, as Kafka's ``close()`` waits for its sends: a
            send the caller did not flush is still expected to land.
         2. An open transaction is aborted, never committed: only ``commit_transaction()`` says the
            caller's records and offsets belong together, and closing is not that decision.
         3. A fenced producer writes nothing and raises nothing: a newer incarnation owns the
            transactional id, and ``close`` runs on the way out of failures it must not mask.
        The buffers are dropped whatever happened, and ``_closed`` stops the linger thread.
        """
        with self._lock:
            self._close()

    def _close(self) -> None:
        if self._closed:
            return
        try:
            if self._fatal_error is None and self._transaction is not None:
                self.abort_transaction()
            elif self._fatal_error is None and self._transactional_id is None:
                self.flush()
        except ProducerFencedError:
            pass
        finally:
            self._buffers.clear()
            self._full.clear()
            self._closed = True

    def _topic(self, topic: str) -> TopicInfo:
        info = self._topics.get(topic)
        if info is None:
            with self._database.read() as conn:
                info = require_topic(conn, topic)
            self._topics[topic] = info
        return info

    def _stick(self, topic: str, info: TopicInfo) -> int:
        partition = random.randrange(info.partitions)
        self._sticky_partitions[topic] = partition
        return partition

    def _new_buffer(self, info: TopicInfo, partition: int) -> RecordBuffer:
        if not 0 <= partition < info.partitions:
            raise UnknownTopicOrPartitionError(
                f"Partition {info.name}-{partition} does not exist: topic {info.name} has {info.partitions}"
            )
        buffer = RecordBuffer()
        self._buffers[(info.name, partition)] = buffer
        return buffer

    def _extend(
        self,
        info: TopicInfo,
        partition: int,
        values: Sequence[bytes | None],
        keys: Sequence[bytes | None] | None,
        headers: Sequence[Headers | None] | None,
        timestamps: Sequence[int],
    ) -> None:
        buffer = self._buffers.get((info.name, partition))
        if buffer is None:
            buffer = self._new_buffer(info, partition)
        buffer.extend(values, keys, headers, timestamps)
        if buffer.size >= self._batch_size:
            self._append_full(info.name, partition)

    def _append_full(self, topic: str, partition: int) -> None:
        """Append a full buffer: at once for a plain producer; for a transactional one, on the linger
        thread, so that the sender goes on (its records stay invisible until the commit either way)."""
        if self._sticky_partitions.get(topic) == partition:
            del self._sticky_partitions[topic]
        if self._transactional_id is None:
            self._append([((topic, partition), self._buffers.pop((topic, partition)))])
            return
        self._full.append(((topic, partition), self._buffers.pop((topic, partition))))
        if self._linger_thread is None:
            self._start_lingering()

    def _take_buffers(self) -> list[tuple[tuple[str, int], RecordBuffer]]:
        """Every buffered record, full buffers first: a partition's records are appended in send order."""
        buffers = [*self._full, *self._buffers.items()]
        self._full.clear()
        self._buffers.clear()
        return buffers

    def _append(self, buffers: list[tuple[tuple[str, int], RecordBuffer]]) -> None:
        encoded = self._encode(buffers)
        if not encoded:
            return
        transaction = self._transaction
        if transaction is None:
            with self._database.write() as conn:
                delivered = self._write_encoded(conn, encoded, None)
            _notify(delivered)
            return
        delivered, problem = self._append_to_transaction(transaction, encoded)
        if problem is not None:
            raise self._fail(problem)
        _notify(delivered)

    def _append_to_transaction(
        self, transaction: _Transaction, encoded: list[EncodedBatch]
    ) -> tuple[list[tuple[EncodedBatch, int]], LogError | None]:
        """Append into the open transaction, opening its row on its first append; or say why it may not."""
        delivered: list[tuple[EncodedBatch, int]] = []
        with self._database.write() as conn:
            problem = self._check_transaction(conn, transaction)
            if problem is None:
                if transaction.txn_id is None:
                    assert self._identity is not None and transaction.started_ms is not None
                    deadline = transaction.started_ms + self._transaction_timeout_ms
                    transaction.txn_id = transactions.open_transaction(conn, self._identity, deadline)
                delivered = self._write_encoded(conn, encoded, transaction.txn_id)
        return delivered, problem

    def _await_appending(self) -> None:
        """Let the linger thread's append in flight end: what it holds was sent before anything after."""
        while self._appending:
            self._appended.wait()

    def _check_transaction(self, conn: sqlite3.Connection, transaction: _Transaction) -> LogError | None:
        """Inside a write: abort expired transactions, then say why this one may not write, if it may not."""
        assert self._identity is not None
        now = now_ms()
        transactions.abort_expired_transactions(conn, now)
        try:
            transactions.ensure_current_epoch(conn, self._identity)
        except ProducerFencedError as fenced:
            return fenced
        if transaction.txn_id is not None:
            if transactions.transaction_state(conn, transaction.txn_id) != transactions.OPEN:
                return self._aborted_error()
        elif (
            transaction.started_ms is not None and now > transaction.started_ms + self._transaction_timeout_ms
        ):
            return self._aborted_error()
        return None

    def _fail(self, problem: LogError) -> LogError:
        self._buffers.clear()
        self._full.clear()
        if isinstance(problem, ProducerFencedError):
            self._fatal_error = problem
        elif self._transaction is not None:
            self._transaction.aborted_by_log = True
        return problem

    def _aborted_error(self) -> TransactionAbortedError:
        return TransactionAbortedError(
            f"Transaction of transactional id {self._transactional_id} was aborted by the log after "
            f"transaction.timeout.ms={self._transaction_timeout_ms}; call abort_transaction() and begin again"
        )

    def _encode_all(self) -> list[EncodedBatch]:
        return self._encode(self._take_buffers())

    @staticmethod
    def _encode(buffers: list[tuple[tuple[str, int], RecordBuffer]]) -> list[EncodedBatch]:
        return [buffer.encode(topic, partition) for (topic, partition), buffer in buffers if len(buffer)]

    @staticmethod
    def _write_encoded(
        conn: sqlite3.Connection, encoded: list[EncodedBatch], txn_id: int | None
    ) -> list[tuple[EncodedBatch, int]]:
        """Append the batches; return each with its base offset."""
        return [
            (
                batch,
                append_batch(
                    conn,
                    batch.topic,
                    batch.partition,
                    batch.payload,
                    batch.record_count,
                    batch.max_timestamp,
                    txn_id,
                ),
            )
            for batch in encoded
        ]

    def _ensure_usable(self) -> None:
        if self._closed:
            raise IllegalStateError(f"Producer (transactional id {self._transactional_id}) is closed")
        if self._fatal_error is not None:
            raise self._fatal_error
        if self._background_error is not None:
            error, self._background_error = self._background_error, None
            raise error

    def _start_lingering(self) -> None:
        """Start the thread that appends plain sends ``linger.ms`` after them.

        Without it, records sent by a caller that never flushes would wait in memory, unseen by
        consumers, until a batch filled up. Transactional producers linger only with full buffers:
        their other records wait for a flush or the commit, so a transaction that fits in memory is
        appended in the one database write that marks it committed, and leaves no trace before. The
        thread is a daemon and ends once nothing waits, so an idle or forgotten producer keeps no
        thread alive.
        """
        self._linger_thread = threading.Thread(
            target=self._linger, name="conveyor-producer-linger", daemon=True
        )
        self._linger_thread.start()

    def _linger(self) -> None:
        """Every ``linger.ms``, append what plain sends buffered, or a transaction's full buffers, until
        nothing is left waiting.

        A failure has no caller here to raise to: it is kept and raised by the producer's next call,
        as Kafka's sender thread reports through the next send, flush or commit. The failed records are
        dropped rather than retried, so a log that refuses them does not spin this thread.
        """
        while True:
            time.sleep(self._linger_s)
            with self._lock:
                transactional = self._transactional_id is not None
                if self._closed or not (self._full if transactional else self._buffers):
                    self._linger_thread = None
                    return
                if not transactional:
                    try:
                        self._append(self._take_buffers())
                    except LogError as error:
                        self._stop_lingering(error)
                        return
                    continue
                full, self._full = self._full, []
                transaction = self._transaction
                assert transaction is not None
                self._appending = True
            if not self._append_full_buffers(transaction, full):
                return

    def _append_full_buffers(
        self, transaction: _Transaction, full: list[tuple[tuple[str, int], RecordBuffer]]
    ) -> bool:
        """Encode and append a transaction's full buffers without the producer's lock, so that its
        sender goes on sending meanwhile; a commit, abort or flush waits for this append to end.
        Return whether the thread goes on lingering."""
        delivered: list[tuple[EncodedBatch, int]] = []
        problem: LogError | None = None
        failure: LogError | None = None
        try:
            delivered, problem = self._append_to_transaction(transaction, self._encode(full))
        except LogError as error:
            failure = error
        finally:
            with self._lock:
                if problem is not None:
                    failure = self._fail(problem)
                if failure is not None:
                    self._stop_lingering(failure)
                self._appending = False
                self._appended.notify_all()
        _notify(delivered)
        return failure is None

    def _stop_lingering(self, error: LogError) -> None:
        """Keep a failure for the producer's next call, drop what waited, and end the linger thread."""
        self._buffers.clear()
        self._full.clear()
        self._background_error = error
        self._linger_thread = None

    def _ensure_can_send(self) -> None:
        self._ensure_usable()
        if self._transactional_id is None:
            return
        transaction = self._require_transaction("send")
        if transaction.aborted_by_log:
            raise self._aborted_error()
        self._start_clock(transaction)

    @staticmethod
    def _start_clock(transaction: _Transaction) -> None:
        if transaction.started_ms is None:
            transaction.started_ms = now_ms()

    def _require_transactional(self) -> str:
        return require_transactional(self._transactional_id)

    def _require_transaction(self, method: str) -> _Transaction:
        transactional_id = self._require_transactional()
        self._ensure_usable()
        if self._transaction is None:
            raise InvalidTxnStateError(
                f"Transactional id {transactional_id}: {method}() needs a transaction; "
                "call begin_transaction()"
            )
        return self._transaction


def _notify(delivered: list[tuple[EncodedBatch, int]]) -> None:
    for batch, base_offset in delivered:
        batch.notify(base_offset)


def _rows_by_key_partition(keys: Sequence[bytes | None], partitions: int) -> dict[int, list[int]]:
    """Row numbers grouped by the partition each key hashes to (null keys share one random partition)."""
    groups: dict[int, list[int]] = {}
    null_partition = random.randrange(partitions)
    for row, key in enumerate(keys):
        target = null_partition if key is None else partition_for_key(key, partitions)
        groups.setdefault(target, []).append(row)
    return groups

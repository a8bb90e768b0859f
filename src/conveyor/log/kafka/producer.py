"""The producer of the Kafka backend: confluent-kafka's, with batches handed to librdkafka in one call."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence
from typing import Any

from confluent_kafka import Consumer as KafkaConsumer
from confluent_kafka import KafkaError, KafkaException, Message
from confluent_kafka import Producer as KafkaProducer

from conveyor.log.api import Headers, OffsetsToCommit, Producer
from conveyor.log.arguments import check_batch_columns, require_transactional
from conveyor.log.client_config import int_setting, normalize_config
from conveyor.log.errors import (
    FlushTimeoutError,
    IllegalStateError,
    InvalidConfigError,
    InvalidTxnStateError,
    LogError,
    UnknownTopicOrPartitionError,
)
from conveyor.log.kafka.admin import REQUEST_TIMEOUT_S, kafka_offsets
from conveyor.log.kafka.client_logs import with_client_logger
from conveyor.log.kafka.coordinators import Coordinators
from conveyor.log.kafka.errors import log_error
from conveyor.log.kafka.names import Namespace
from conveyor.log.kafka.settings import RECONNECT_BACKOFF_MS, KafkaSettings
from conveyor.log.kafka.transaction_states import wait_until_completed
from conveyor.positions import RecordMetadata

DeliveryCallback = Callable[[RecordMetadata], None]
METADATA_FIRST_S = 5.0
"""How long ``init_transactions`` waits for the cluster's metadata before it claims the id regardless."""

#: The log's producer defaults (``Log.producer``), with what Kafka's Java producer does by default and
#: librdkafka does not: idempotence (no reordering or duplicates on retries), and murmur2 partitioning of
#: keyed records (a key lands where Java clients and the embedded log put it). Compression stays Kafka's
#: default, none: `compression.type` (or a connector's `producer.override.compression.type`) sets it.
PRODUCER_DEFAULTS: dict[str, object] = {
    "enable.idempotence": True,
    "linger.ms": 5,
    "batch.size": 1 << 20,
    "transaction.timeout.ms": 60_000,
    "partitioner": "murmur2_random",
    "reconnect.backoff.ms": RECONNECT_BACKOFF_MS,
}


class KafkaLogProducer(Producer):
    """A confluent-kafka ``Producer``; delivery callbacks run in the thread that polls or flushes it."""

    def __init__(
        self,
        settings: KafkaSettings,
        transactional_id: str | None,
        config: dict[str, object],
        coordinators: Coordinators | None = None,
    ) -> None:
        self._coordinators = coordinators
        self._names = Namespace(settings.namespace)
        self._settings = settings
        self._transactional_id = transactional_id
        own = {**PRODUCER_DEFAULTS, **normalize_config(config)}
        int_setting(own, "linger.ms", 5)
        int_setting(own, "transaction.timeout.ms", 60_000, minimum=1)
        if transactional_id is not None:
            own["transactional.id"] = self._names.outer(transactional_id)
        try:
            self._producer = KafkaProducer(with_client_logger(settings.client_config("producer", **own)))
        except KafkaException as error:
            raise InvalidConfigError(f"Producer settings: {error}") from error
        self._partition_counts: dict[str, int] = {}
        self._in_transaction = False
        self._markers_pending_since: float | None = None
        self._closed = False
        self._error: KafkaError | None = None
        self._group_metadata: dict[str, Any] = {}
        # A transaction's commit fails if any of its records failed, so a transactional producer needs no
        # Python call per delivered record; a plain one learns its failures from the delivery reports.
        self._quiet_report: Callable[[KafkaError | None, Message], None] | None = (
            None if transactional_id is not None else self._on_failure
        )

    @property
    def transactional_id(self) -> str | None:
        return self._transactional_id

    def send(
        self,
        topic: str,
        value: bytes | None,
        key: bytes | None = None,
        partition: int | None = None,
        headers: Headers | None = None,
        timestamp: int | None = None,
        on_delivery: DeliveryCallback | None = None,
    ) -> None:
        self._check_target(topic, partition)
        report = self._quiet_report if on_delivery is None else self._delivery_report(topic, on_delivery)
        self._produce_each(
            topic, [value], [key], partition, [headers] if headers else None, [timestamp or 0], report
        )

    def send_batch(
        self,
        topic: str,
        values: Sequence[bytes | None],
        keys: Sequence[bytes | None] | None = None,
        partition: int | None = None,
        headers: Sequence[Headers | None] | None = None,
        timestamps: Sequence[int] | None = None,
    ) -> None:
        self._check_target(topic, partition)
        check_batch_columns(topic, values, keys, headers, timestamps)
        if timestamps is not None or (headers is not None and any(headers)):
            # librdkafka's batch call takes neither headers nor timestamps: one produce call per record.
            self._produce_each(topic, values, keys, partition, headers, timestamps, self._quiet_report)
            return
        messages: list[dict[str, Any]]
        if keys is None:
            messages = [{"value": value} for value in values]
        else:
            messages = [{"value": value, "key": key} for value, key in zip(values, keys, strict=True)]
        outer = self._names.outer(topic)
        reports: dict[str, Any] = {}
        if self._quiet_report is not None:
            reports["on_delivery"] = self._quiet_report
        if partition is not None:
            reports["partition"] = partition
        while messages:
            queued = self._producer.produce_batch(outer, messages, **reports)
            failed = [message for message in messages if "_error" in message]
            if queued == len(messages) or not failed:
                break
            if any(message["_error"].code() != KafkaError._QUEUE_FULL for message in failed):
                raise log_error(failed[0]["_error"], f"Sending to {topic}")
            self._producer.poll(0.05)
            messages = [{k: v for k, v in message.items() if k != "_error"} for message in failed]
        self._producer.poll(0)
        self._raise_pending()

    def _produce_each(
        self,
        topic: str,
        values: Sequence[bytes | None],
        keys: Sequence[bytes | None] | None,
        partition: int | None,
        headers: Sequence[Headers | None] | None,
        timestamps: Sequence[int] | None,
        report: Callable[[KafkaError | None, Message], None] | None,
    ) -> None:
        """One ``produce`` call per record, in a loop with no other per-record work, then one ``poll``.

        A timestamp of 0 and a partition of -1 are librdkafka's "none": the broker's clock and the
        partitioner then decide, as when the argument is left out.
        """
        outer = self._names.outer(topic)
        produce = self._producer.produce
        target = -1 if partition is None else partition
        count = len(values)
        keyed: Sequence[bytes | None] = keys if keys is not None else [None] * count
        stamps: Sequence[int] = timestamps if timestamps is not None else [0] * count
        try:
            # Positional arguments, as confluent-kafka orders them: (topic, value, key, partition,
            # on_delivery, callback, timestamp, headers); parsing keywords cost a fifth of each call.
            if headers is None:
                for value, key, stamp in zip(values, keyed, stamps, strict=True):
                    try:
                        produce(outer, value, key, target, report, None, stamp)
                    except BufferError:
                        self._when_room(produce, (outer, value, key, target, report, None, stamp))
            else:
                for value, key, stamp, header in zip(values, keyed, stamps, headers, strict=True):
                    arguments = (outer, value, key, target, report, None, stamp, header or None)
                    try:
                        produce(*arguments)
                    except BufferError:
                        self._when_room(produce, arguments)
        except KafkaException as error:
            raise log_error(error, f"Sending to {topic}") from error
        self._producer.poll(0)
        self._raise_pending()

    def _when_room(self, produce: Callable[..., None], arguments: tuple[Any, ...]) -> None:
        """Produce a record that found librdkafka's queue full, once deliveries have made room for it."""
        while True:
            self._producer.poll(0.05)
            try:
                produce(*arguments)
                return
            except BufferError:
                continue

    def flush(self, timeout_s: float | None = None) -> None:
        self._ensure_open()
        try:
            remaining = self._producer.flush() if timeout_s is None else self._producer.flush(timeout_s)
        except (KafkaException, SystemError) as error:
            # A fatal error (fencing) surfaces from librdkafka inside the delivery reports it serves.
            cause = error.__cause__ if isinstance(error, SystemError) else error
            raise log_error(cause or error, f"Producer {self._transactional_id or ''}") from error
        self._raise_pending()
        if remaining:
            raise FlushTimeoutError(
                f"Timed out after {timeout_s} s while waiting for the producer to flush {remaining} "
                "outstanding records"
            )

    def partitions_for(self, topic: str) -> int:
        self._ensure_open()
        count = self._partition_counts.get(topic)
        if count is None:
            outer = self._names.outer(topic)
            metadata = self._producer.list_topics(topic=outer, timeout=REQUEST_TIMEOUT_S).topics.get(outer)
            if metadata is None or metadata.error is not None or not metadata.partitions:
                raise UnknownTopicOrPartitionError(f"Topic {topic} does not exist")
            count = len(metadata.partitions)
            self._partition_counts[topic] = count
        return count

    def init_transactions(self) -> None:
        """Claim the transactional id, fencing its earlier holders.

        The cluster's metadata is read first: librdkafka looks for the transaction coordinator through a
        broker it has learned from the metadata, not through the bootstrap connection, and when none is up
        yet it looks again only after 500 ms. Asked right after it was made, a producer waited those
        500 ms in 3 of 20 tries and 54-57 ms in the others; with the metadata read first, 16-23 ms in 28
        of 28.
        A cluster out of reach fails ``init_transactions`` itself, as before, after a short first wait."""
        self._require_transactional()
        with contextlib.suppress(KafkaException):
            self._producer.list_topics(timeout=METADATA_FIRST_S)
        self._call(lambda: self._producer.init_transactions(REQUEST_TIMEOUT_S), "init_transactions")

    def begin_transaction(self) -> None:
        self._require_transactional()
        self._call(self._producer.begin_transaction, "begin_transaction")
        self._in_transaction = True

    def send_offsets_to_transaction(self, offsets: OffsetsToCommit, group_id: str) -> None:
        self._require_transactional()
        self._await_pending_markers()
        metadata = self._metadata_of(group_id)
        self._call(
            lambda: self._producer.send_offsets_to_transaction(
                kafka_offsets(self._names, offsets), metadata, REQUEST_TIMEOUT_S
            ),
            "send_offsets_to_transaction",
        )

    def commit_transaction(self) -> None:
        self._commit()
        self._await_markers()

    def commit_transaction_nowait(self) -> None:
        """Commit; the wait for the markers comes before the next transaction's first record."""
        self._commit()
        self._markers_pending_since = time.monotonic()

    def _commit(self) -> None:
        self._require_transactional()
        self._call(lambda: self._producer.commit_transaction(REQUEST_TIMEOUT_S), "commit_transaction")
        self._in_transaction = False

    def abort_transaction(self) -> None:
        self._require_transactional()
        self._call(lambda: self._producer.abort_transaction(REQUEST_TIMEOUT_S), "abort_transaction")
        self._in_transaction = False
        self._error = None
        self._await_markers()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        settled = False
        try:
            if self._in_transaction:
                with contextlib.suppress(KafkaException, LogError):
                    self._producer.abort_transaction(REQUEST_TIMEOUT_S)
                    # As after abort_transaction: once closed, the abort is visible to readers.
                    self._await_markers()
                    settled = True
            else:
                undelivered = self._producer.flush(REQUEST_TIMEOUT_S)
                self._raise_pending()
                if undelivered:
                    raise LogError(f"Producer closed with {undelivered} records not appended")
                settled = True
        finally:
            self._release(settled)

    def _release(self, settled: bool) -> None:
        """Release librdkafka's threads and connections now, not when the object is collected.

        librdkafka's close waits without a bound for what the producer still owes the cluster (records,
        a transaction's end), so a producer that could not settle (the cluster out of reach) is purged
        and destroyed without it: otherwise a task closing it in an outage would hang until the cluster
        is back, never reporting its failure."""
        with contextlib.suppress(KafkaException, RuntimeError):
            if settled:
                self._producer.close()
                return
            self._producer.purge()
            self._producer.flush(0)
        # The last reference: dropping it destroys the client at once, without waiting on the cluster.
        del self._producer

    def _ensure_open(self) -> None:
        if self._closed:
            raise IllegalStateError(f"Producer {self._transactional_id or ''} is closed")

    def _check_target(self, topic: str, partition: int | None) -> None:
        self._ensure_open()
        if self._transactional_id is not None and not self._in_transaction:
            raise InvalidTxnStateError(
                f"Producer {self._transactional_id}: send outside a transaction (call begin_transaction)"
            )
        self._await_pending_markers()
        count = self.partitions_for(topic)
        if partition is not None and not 0 <= partition < count:
            raise UnknownTopicOrPartitionError(f"Partition {topic}-{partition} does not exist")

    def _delivery_report(
        self, topic: str, on_delivery: DeliveryCallback | None
    ) -> Callable[[KafkaError | None, Message], None]:
        def report(error: KafkaError | None, message: Message) -> None:
            if error is not None:
                self._remember(error)
            elif on_delivery is not None:
                offset = message.offset()
                on_delivery(RecordMetadata(topic, message.partition(), offset, message.timestamp()[1]))

        return report

    def _on_failure(self, error: KafkaError | None, message: Message) -> None:
        """The delivery report of a record nobody asked to hear about: only its failure matters."""
        if error is not None:
            self._remember(error)

    def _remember(self, error: KafkaError) -> None:
        purged = error.code() in (KafkaError._PURGE_QUEUE, KafkaError._PURGE_INFLIGHT)
        if self._error is None and not purged:
            self._error = error

    def _raise_pending(self) -> None:
        error, self._error = self._error, None
        if error is not None:
            raise log_error(error, f"Producer {self._transactional_id or ''}")

    def _await_pending_markers(self) -> None:
        """Before a transaction's first record or offsets: wait for the markers of a commit that did not
        wait for them. Until they are written the coordinator refuses to add the new transaction's
        partitions (``CONCURRENT_TRANSACTIONS``) and librdkafka asks again 20 ms later, which cost more
        than the rest of a small transaction; waiting here rather than in ``begin_transaction`` lets the
        caller's work in between (a source task's poll and conversion) overlap the markers."""
        if self._markers_pending_since is not None:
            self._await_markers(self._markers_pending_since)

    def _await_markers(self, decided_at: float | None = None) -> None:
        """Return once the outcome is visible, as the log's interface promises (Kafka writes the markers
        just after it acknowledges the commit or abort, at ``decided_at``)."""
        self._markers_pending_since = None
        if self._coordinators is not None and self._transactional_id is not None:
            wait_until_completed(self._coordinators, self._names.outer(self._transactional_id), decided_at)

    def _require_transactional(self) -> None:
        self._ensure_open()
        require_transactional(self._transactional_id)

    def _call(self, call: Callable[[], object], what: str) -> None:
        try:
            call()
        except KafkaException as error:
            raise log_error(error, f"Producer {self._transactional_id}: {what}") from error

    def _metadata_of(self, group_id: str) -> Any:
        """The group's metadata as Java's ``new ConsumerGroupMetadata(groupId)``: no member or generation."""
        metadata = self._group_metadata.get(group_id)
        if metadata is None:
            consumer = KafkaConsumer(
                with_client_logger(
                    self._settings.client_config("consumer", **{"group.id": self._names.outer(group_id)})
                )
            )
            metadata = consumer.consumer_group_metadata()
            consumer.close()
            self._group_metadata[group_id] = metadata
        return metadata

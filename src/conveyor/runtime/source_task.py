"""The source task loop: poll, transforms, converters, the log; offsets at-least-once or exactly-once.

At-least-once (Kafka's `WorkerSourceTask`): records go to the log as they are polled, and every
`offset.flush.interval.ms` the producer is flushed *before* the offsets are written, so an offset is
never committed for a record that is not in the log.

Exactly-once (KIP-618's `ExactlyOnceWorkerSourceTask`): a transactional producer whose
`transactional.id` is `<group.id>-<connector>-<task>`; records and their source offsets go into one
transaction that ends at the configured boundary (`poll`, `interval` or `connector`). Starting the
producer fences any earlier incarnation of the same task.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from operator import attrgetter
from typing import Any

from conveyor.api import (
    OffsetStorageReader,
    RetriableError,
    SourceTask,
    SourceTaskContext,
    TransactionContext,
)
from conveyor.api.source import TransactionBoundary
from conveyor.data import ConnectError, SourceRecord, SourceRecordBatch
from conveyor.log import FlushTimeoutError, Log, Producer
from conveyor.log.api import Closeable
from conveyor.metrics.task_metrics import ACTIVE_TOPICS_METRIC, SourceTaskMetrics, with_plugin_metrics
from conveyor.pipeline.error_handling import ErrorHandler, ErrorPolicy
from conveyor.pipeline.record_pipeline import RecordPipeline
from conveyor.pipeline.topics import TopicCreator
from conveyor.positions import RecordMetadata
from conveyor.runtime.collector import collect_less_often
from conveyor.runtime.control import StateReporter, TargetState, TaskControl
from conveyor.runtime.lifecycle import TaskLoop
from conveyor.runtime.task_generation import (
    RevokedTaskError,
    config_reader,
    status_reader,
    verify_task_generation,
    verify_task_ownership,
)
from conveyor.runtime.task_spec import TaskSpec
from conveyor.runtime.transactions import TransactionRequests
from conveyor.runtime.worker_stores import worker_offset_store
from conveyor.settings.client_overrides import (
    ClientType,
    allowed_overrides,
    built_with_overrides,
    source_offsets_consumer,
)
from conveyor.settings.connector_config import SourceTransactionSettings
from conveyor.settings.names import task_transactional_id
from conveyor.storage import ConfigStore, ConnectorOffsetStore, OffsetStore, StoreOffsetStorageReader
from conveyor.storage.status_store import StatusStore

logger = logging.getLogger(__name__)

PAUSED_WAIT_S = 0.1
RETRY_POLL_WAIT_S = 0.1
EXACTLY_ONCE_PRODUCER_SETTINGS = ("transactional.id", "enable.idempotence")
"""Producer settings exactly-once support sets itself, whatever a connector's overrides say (as Kafka)."""
"""The pause after a poll that raised a `RetriableError`, so that a source that is down is not spun on."""


class RuntimeSourceTaskContext(SourceTaskContext):
    def __init__(
        self,
        config: Mapping[str, str],
        reader: OffsetStorageReader,
        transactions: TransactionContext | None,
        json_unchanged: bool = False,
    ) -> None:
        self._config = dict(config)
        self._reader = reader
        self._transactions = transactions
        self._json_unchanged = json_unchanged

    def configs(self) -> Mapping[str, str]:
        return self._config

    def offset_storage_reader(self) -> OffsetStorageReader:
        return self._reader

    def transaction_context(self) -> TransactionContext | None:
        return self._transactions

    def writes_json_unchanged(self) -> bool:
        return self._json_unchanged


_SOURCE_PARTITION = attrgetter("source_partition")


def _partition_key(partition: Mapping[str, Any]) -> str:
    return json.dumps(partition, sort_keys=True, separators=(",", ":"))


def _stop_readers(statuses: StatusStore | None, configs: ConfigStore | None) -> None:
    if statuses is not None:
        statuses.stop()
    if configs is not None:
        configs.stop()


class SourceTaskLoop(TaskLoop[SourceTask]):
    """Runs one source task until its control says stop; raises when the task fails."""

    def __init__(
        self,
        spec: TaskSpec,
        control: TaskControl,
        log: Log,
        task: SourceTask,
        worker_log: Log | None = None,
    ) -> None:
        """``log`` is the cluster the task produces to; ``worker_log`` the worker's, when that is another
        one (the group's config and status topics, and its offsets topic, are read there)."""
        collect_less_often()
        self.spec = spec
        self.control = control
        self.context: RuntimeSourceTaskContext | None = None
        self.log = log
        self.worker_log = log if worker_log is None else worker_log
        self.task = task
        config, worker = spec.connector_config, spec.worker_config
        self.connector = spec.id.connector
        self.exactly_once = worker.exactly_once_source_enabled
        transactions = SourceTransactionSettings.parse(config)
        self.boundary = transactions.boundary
        self.flush_interval_s = worker.offset_flush_interval_ms / 1000
        self.flush_timeout_s = worker.offset_flush_timeout_ms / 1000
        interval_ms = transactions.boundary_interval_ms
        self.transaction_interval_s = (
            interval_ms if interval_ms is not None else worker.offset_flush_interval_ms
        ) / 1000
        self.offsets_topic = transactions.offsets_topic or worker.offsets_topic
        self.offsets_consumer = source_offsets_consumer(
            worker.client_override_policy, config, self.exactly_once
        )

        def offsets_of(on: Log, topic: str, consumer_overrides: Mapping[str, str]) -> OffsetStore:
            return worker_offset_store(
                on,
                worker,
                topic,
                isolation_level=self.offsets_consumer.isolation_level,
                consumer_config=consumer_overrides,
            )

        # KIP-618 (Kafka's `offsetStoreFor*SourceTask`): the connector's own store, on the cluster it
        # produces to, when it is exactly-once or names an offsets topic; the worker's offsets topic is
        # then read for the source partitions that store has not stored yet, unless it is the same topic.
        own_store = self.exactly_once or transactions.offsets_topic is not None
        on_worker_log = self.log is self.worker_log
        self.worker_offsets: OffsetStore | None = None
        if own_store:
            self.offsets = offsets_of(self.log, self.offsets_topic, self.offsets_consumer.overrides)
            if self.offsets_topic != worker.offsets_topic or not on_worker_log:
                self.worker_offsets = offsets_of(self.worker_log, worker.offsets_topic, {})
        else:
            self.offsets = offsets_of(self.worker_log, self.offsets_topic, self.offsets_consumer.overrides)
        self.offsets_through_producer = own_store or on_worker_log
        """Whether offsets are sent by the task's producer; else by the store's own, on the worker's log."""
        self.offsets_read: Future[None] | None = None
        """The offset stores' start, when it runs beside the exactly-once producer's."""
        self.producer: Producer = self._create_producer()
        try:
            self.topics = TopicCreator(log, config)
            self.errors = ErrorHandler(
                ErrorPolicy.from_connector_config(config),
                self.connector,
                spec.id.task,
                self.producer,
                self.topics,
            )
            self.pipeline = RecordPipeline.for_connector(config, worker, self.errors)
        except BaseException:
            self._close_started_clients()
            raise
        self.requests = (
            TransactionRequests()
            if self.exactly_once and self.boundary is TransactionBoundary.CONNECTOR
            else None
        )
        self.calls_commit_record = type(task).commit_record is not SourceTask.commit_record
        self.commits_beside_poll = (
            self.exactly_once
            and self.boundary in (TransactionBoundary.POLL, TransactionBoundary.INTERVAL)
            and type(task).commit is SourceTask.commit
            and not self.calls_commit_record
        )
        """Whether a transaction commits on a thread of its own while the task polls its next batch: only
        for a task that is told nothing of commits, since its next poll runs before the commit ends."""
        self.offsets_lead_records = self.exactly_once and self.boundary is TransactionBoundary.POLL
        """Whether each transaction's offsets are sent before its records: a poll's transaction ends with its
        batch, so its offsets are known before its records go, and a Kafka producer that has both
        partitions in hand at once registers them with the coordinator in one round trip, not two."""
        self.committer: ThreadPoolExecutor | None = None
        self.committing: tuple[Future[None], float, int] | None = None
        """The transaction committing beside the task's poll, when its commit began, and how many of the
        records polled so far it holds (those polled beside it stay active until their own commit)."""
        self.pending_offsets: dict[str, tuple[Mapping[str, Any], Mapping[str, Any] | None]] = {}
        self.uncommitted_records: list[SourceRecord] = []
        self.transaction_open = False
        self.metrics = SourceTaskMetrics()
        self.counters = {"offset-commits": 0, "transactions-committed": 0, "transactions-aborted": 0}
        """Conveyor's own counts, shown in the task's status beside Kafka's metrics."""
        self.last_commit = time.monotonic()
        self.reporter = StateReporter(control)
        self.state = TargetState.STARTED

    def _create_producer(self) -> Producer:
        worker = self.spec.worker_config
        overrides = allowed_overrides(
            worker.client_override_policy, self.spec.connector_config, ClientType.PRODUCER
        )
        if not self.exactly_once:
            return built_with_overrides(
                ClientType.PRODUCER, overrides, lambda: self.log.producer(**overrides)
            )
        transactional_id = task_transactional_id(worker.group_id, self.connector, self.spec.id.task)
        for forced in EXACTLY_ONCE_PRODUCER_SETTINGS:
            if forced in overrides:
                logger.warning(
                    "Ignoring %s%s=%s of connector %s: exactly-once source support sets it",
                    ClientType.PRODUCER.prefix,
                    forced,
                    overrides.pop(forced),
                    self.connector,
                )
        settings = {"transaction.timeout.ms": worker.producer_transaction_timeout_ms, **overrides}
        spec = self.spec
        with ThreadPoolExecutor(2, thread_name_prefix=f"task-start-{spec.id}") as pool:
            readers = pool.submit(self._check_readers)
            built = pool.submit(
                built_with_overrides,
                ClientType.PRODUCER,
                overrides,
                lambda: self.log.producer(transactional_id=transactional_id, **settings),
            )
        if (error := readers.exception() or built.exception()) is not None:
            if built.exception() is None:
                built.result().close()
            elif built.exception() is not error:
                logger.error("Making task %s's producer failed as well", spec.id, exc_info=built.exception())
            if readers.exception() is None:
                _stop_readers(*readers.result())
            raise error
        statuses, configs = readers.result()
        producer = built.result()
        try:
            if statuses is not None and spec.owner is not None:
                verify_task_ownership(statuses, spec.id, spec.owner)
            self._read_offsets_beside()
            producer.init_transactions()
            self._verify_still_current(statuses, configs)
        except BaseException:
            try:
                producer.close()
            finally:
                self._stop_offsets()
            raise
        finally:
            _stop_readers(statuses, configs)
        return producer

    def _check_readers(self) -> tuple[StatusStore | None, ConfigStore | None]:
        """The status and config topics read to their ends for KIP-618's checks around the producer, as
        the task's spec asks for them; read one after the other (each a consumer of its own), while the
        producer is made beside them."""
        spec, worker = self.spec, self.spec.worker_config
        statuses = None if spec.owner is None else status_reader(self.worker_log, worker)
        try:
            configs = (
                None
                if spec.task_config_generation is None
                else config_reader(self.worker_log, worker.configs_topic)
            )
        except BaseException:
            _stop_readers(statuses, None)
            raise
        return statuses, configs

    def _verify_still_current(self, statuses: StatusStore | None, configs: ConfigStore | None) -> None:
        """Once the producer exists: the task's configs are still current and it is still this worker's
        (KIP-618's check after the producer is created)."""
        spec = self.spec
        if spec.task_config_generation is not None and configs is not None:
            verify_task_generation(configs, spec.id, spec.task_config_generation)
        if spec.owner is None or statuses is None:
            return
        if self.control.should_stop():
            raise RevokedTaskError(
                f"Cannot start task {spec.id} since it has already been revoked from this worker"
            )
        verify_task_ownership(statuses, spec.id, spec.owner)

    def _read_offsets(self) -> None:
        """Start the offset stores, each reading its topic to the end."""
        built_with_overrides(ClientType.CONSUMER, self.offsets_consumer.overrides, self.offsets.start)
        if self.worker_offsets is not None:
            built_with_overrides(
                ClientType.CONSUMER, self.offsets_consumer.overrides, self.worker_offsets.start
            )

    def _read_offsets_beside(self) -> None:
        """Once the task is known to be this worker's, read its offsets on a thread of their own while the
        producer claims its transactional id and the checks after it run: each waits for the cluster,
        and the task needs all of them before it starts (Kafka reads the offsets first, then claims)."""
        pool = ThreadPoolExecutor(1, thread_name_prefix=f"task-offsets-{self.spec.id}")
        self.offsets_read = pool.submit(self._read_offsets)
        pool.shutdown(wait=False)

    def _stop_offsets(self) -> None:
        """Stop the offset stores, once a read begun beside the producer's start has ended."""
        if self.offsets_read is not None:
            wait([self.offsets_read])
        self.offsets.stop()
        if self.worker_offsets is not None:
            self.worker_offsets.stop()

    def _close_started_clients(self) -> None:
        """What the constructor started, closed when a later part of it fails: ``run`` will not be called
        to close them."""
        try:
            self.producer.close()
        finally:
            self._stop_offsets()

    def _initialize_task(self) -> None:
        if self.offsets_read is None:
            self._read_offsets()
        else:
            self.offsets_read.result()
        reader = StoreOffsetStorageReader(
            ConnectorOffsetStore(self.offsets, self.worker_offsets), self.connector
        )
        self.context = RuntimeSourceTaskContext(
            self.spec.task_config, reader, self.requests, self.pipeline.writes_json_unchanged()
        )
        self.task.initialize(self.context)

    def _log_client(self) -> Closeable:
        return self.producer

    def _close_client(self) -> None:
        """Let a commit in flight end, then close the producer, then the offset store's reader and writer."""
        try:
            self._settle_commit()
            super()._close_client()
        finally:
            self.offsets.stop()
            if self.worker_offsets is not None:
                self.worker_offsets.stop()

    def _loop(self) -> None:
        while True:
            target = self.control.target_state()
            if target is TargetState.STOPPED:
                return
            if target is TargetState.PAUSED:
                if self.state is not TargetState.PAUSED:
                    self._commit_final()
                    self.state = TargetState.PAUSED
                self._report()
                self.control.wait(PAUSED_WAIT_S)
                continue
            self.state = TargetState.STARTED
            records = self._poll()
            if records:
                self._process(records)
            self._batch_end()
            self._report()

    def _poll(self) -> Sequence[SourceRecord] | None:
        """The task's next records; a `RetriableError` means none for now, as in Kafka Connect."""
        started = self.metrics.now()
        self.control.calling("poll()")
        try:
            records = self.task.poll()
        except RetriableError as error:
            logger.warning("Task %s failed to poll records; it will poll again: %s", self.spec.id, error)
            self.control.wait(RETRY_POLL_WAIT_S)
            return None
        finally:
            self.control.calling(None)
        if records is not None:
            self.metrics.record_poll(len(records), self.metrics.since(started))
        return records

    def _process(self, records: Sequence[SourceRecord]) -> None:
        if self.requests is not None and self.requests.has_record_requests:
            start = 0
            for index, record in enumerate(records):
                if self.requests.should_abort_on(record):
                    self._send(records[start : index + 1])
                    self._abort()
                    start = index + 1
                elif self.requests.should_commit_on(record):
                    self._send(records[start : index + 1])
                    self._commit()
                    start = index + 1
            if start < len(records):
                self._send(records[start:])
        else:
            self._send(records)

    def _send(self, records: Sequence[SourceRecord]) -> None:
        if not records:
            return
        self._await_commit()
        if self.exactly_once and not self.transaction_open:
            self.producer.begin_transaction()
            self.transaction_open = True
        batches = self.pipeline.to_log(records)
        if self.offsets_lead_records:
            self._track_offsets(records)
            self._write_offsets()
        for batch in batches:
            self.topics.ensure(batch.topic)
            if self.exactly_once and batch.topic == self.offsets_topic:
                raise ConnectError(
                    "Source tasks may not produce to their own offsets topics "
                    "when exactly-once support is enabled"
                )
            self.producer.send_batch(
                batch.topic, batch.values, batch.keys, batch.partition, batch.headers, batch.timestamps
            )
            self.metrics.record_write(len(batch.values))
            if self.calls_commit_record:
                self.uncommitted_records.extend(batch.records)
        if not self.offsets_lead_records:
            self._track_offsets(records)

    def _track_offsets(self, records: Sequence[SourceRecord]) -> None:
        """Keep the latest offset of each source partition; keys are computed once per partition object.

        A batch whose records all share one partition (a file, a table) keeps its last record's offset
        without a look at the others; a `SourceRecordBatch`, without a record built."""
        pending = self.pending_offsets
        if isinstance(records, SourceRecordBatch):
            shared = records.source_partition
            if shared is not None:
                pending[_partition_key(shared)] = (shared, records.source_offset)
            return
        partitions = list(map(_SOURCE_PARTITION, records))
        first = partitions[0] if partitions else None
        if first is not None and partitions.count(first) == len(partitions):
            pending[_partition_key(first)] = (first, records[-1].source_offset)
            return
        last_partition: Mapping[str, Any] | None = None
        last_key = ""
        for partition, record in zip(partitions, records, strict=True):
            if partition is None:
                continue
            if partition is not last_partition:
                last_partition, last_key = partition, _partition_key(partition)
            pending[last_key] = (partition, record.source_offset)

    def _batch_end(self) -> None:
        now = time.monotonic()
        if not self.exactly_once:
            if now - self.last_commit >= self.flush_interval_s:
                self._commit()
            return
        if self.boundary is TransactionBoundary.POLL:
            self._commit()
        elif self.boundary is TransactionBoundary.INTERVAL:
            if now - self.last_commit >= self.transaction_interval_s:
                self._commit()
        elif self.requests is not None:
            request = self.requests.take_batch_request()
            if request == "abort":
                self._abort()
            elif request == "commit":
                self._commit()

    def _commit(self, visible: bool = False) -> None:
        """Make what was sent durable together with its offsets, in an order that never loses a record.

        At-least-once:
         1. Flush the producer: every record sent so far is in the log.
         2. Only then write the source offsets (the offset store flushes a plain producer). A crash
            between 1 and 2 leaves records in the log whose offsets were not written: the next
            incarnation polls them again (duplicates, never a loss). The other order could commit an
            offset for a record that never reached the log.
        Exactly-once:
         1. Begin a transaction if none is open: offsets can advance without a record to send (a
            transform dropped them all), and they still belong in a transaction.
         2. Write the offsets into the same transaction as the records, and commit it: records and
            offsets become visible together or not at all, so a crash re-polls exactly what was lost.
        Both:
         3. Tell the task (`commit_record`, then `commit`) only after the offsets are durable: a task
            may acknowledge its source then, and that must never run ahead of what Conveyor keeps.
        A transaction is durable once the log has decided its commit; only the last one before a pause
        or stop (``visible``) also waits until read_committed readers see it, as Kafka Connect's tasks
        do not wait at all. The next incarnation of the task claims its transactional id before it
        reads its offsets, and that claim waits for the commit to complete.
        """
        self._await_commit()
        self.last_commit = time.monotonic()
        if not self.transaction_open and not self.pending_offsets and not self.uncommitted_records:
            return
        started = self.metrics.now()
        if self.commits_beside_poll and not visible:
            self._commit_beside_poll(started)
            return
        try:
            self._make_durable(visible)
        except FlushTimeoutError as timed_out:
            # As WorkerSourceTask: the offsets wait for a later commit, the records stay in flight.
            self.metrics.record_commit(self.metrics.since(started), succeeded=False)
            logger.error("%s Failed to flush, %s; the offsets are committed later", self.spec.id, timed_out)
            return
        except Exception:
            self.metrics.record_commit(self.metrics.since(started), succeeded=False)
            raise
        self._committed(started)

    def _committed(self, started: float, durable: int | None = None) -> None:
        """What follows a durable commit of everything polled (or of the first ``durable`` records not
        yet durable): its metrics and counts, then telling the task."""
        self.metrics.record_commit(self.metrics.since(started), succeeded=True)
        self.metrics.record_durable(durable)
        self.counters["offset-commits"] += 1
        for record in self.uncommitted_records:
            self.task.commit_record(record, RecordMetadata(record.topic, record.kafka_partition or 0, -1))
        self.uncommitted_records.clear()
        self.task.commit()

    def _commit_beside_poll(self, started: float) -> None:
        """Put the offsets into the transaction here, then commit it on the committer's thread: the
        log's write (a database commit, or a coordinator's round trips) overlaps the task's next poll.
        `_await_commit` ends it before anything else is sent, committed or aborted."""
        if not self.transaction_open:
            self.producer.begin_transaction()
        self._write_offsets()
        if self.committer is None:
            self.committer = ThreadPoolExecutor(1, thread_name_prefix=f"conveyor-commit-{self.spec.id}")
        commit = self.committer.submit(self.producer.commit_transaction_nowait)
        self.committing = (commit, started, self.metrics.active)
        self.transaction_open = False

    def _await_commit(self) -> None:
        """Wait for the transaction committing beside the poll; raise its failure, or record its commit."""
        if self.committing is None:
            return
        (commit, started, durable), self.committing = self.committing, None
        try:
            commit.result()
        except Exception:
            self.metrics.record_commit(self.metrics.since(started), succeeded=False)
            raise
        self._count_transaction_committed()
        self._committed(started, durable)

    def _settle_commit(self) -> None:
        """On the way out: let a commit in flight end (its failure is the loop's to report, not this
        step's), and stop the committer's thread."""
        if self.committing is not None:
            commit, self.committing = self.committing[0], None
            try:
                commit.result()
            except Exception as error:
                logger.error("%s The last transaction failed to commit: %s", self.spec.id, error)
        if self.committer is not None:
            self.committer.shutdown()
            self.committer = None

    def _count_transaction_committed(self) -> None:
        self.counters["transactions-committed"] += 1
        self.metrics.record_transaction_committed()

    def _make_durable(self, visible: bool) -> None:
        if self.exactly_once:
            if not self.transaction_open:
                self.producer.begin_transaction()
            self._write_offsets()
            if visible:
                self.producer.commit_transaction()
            else:
                self.producer.commit_transaction_nowait()
            self.transaction_open = False
            self._count_transaction_committed()
        else:
            self.producer.flush(self.flush_timeout_s)
            self._write_offsets()

    def _abort(self) -> None:
        """Discard the open transaction's records, but still commit the offsets they advanced (KIP-618):
        the task asked for those records to be dropped, and without the offsets it would poll them again."""
        self._await_commit()
        if not self.transaction_open:
            logger.warning(
                "Ignoring request by task to abort transaction as the current transaction is empty"
            )
            return
        self.producer.abort_transaction()
        self.transaction_open = False
        self.uncommitted_records.clear()
        self.counters["transactions-aborted"] += 1
        self.metrics.record_transaction_aborted()
        if self.pending_offsets:
            self.producer.begin_transaction()
            self._write_offsets()
            self.producer.commit_transaction()
        self.metrics.record_durable()

    def _write_offsets(self) -> None:
        if self.pending_offsets:
            offsets = list(self.pending_offsets.values())
            if self.offsets_through_producer:
                self.offsets.write(self.producer, self.connector, offsets)
            else:
                self.offsets.put(self.connector, offsets)
            self.pending_offsets.clear()

    def _commit_final(self) -> None:
        """On pause or stop: the connector boundary commits only if the task asked for it (KIP-618)."""
        if self.exactly_once and self.boundary is TransactionBoundary.CONNECTOR and self.requests is not None:
            request = self.requests.take_batch_request()
            if request == "commit":
                self._commit(visible=True)
            elif self.transaction_open:
                self._abort()
            return
        self._commit(visible=True)

    def _report(self, force: bool = False) -> None:
        self.metrics.track_state(self.state is TargetState.PAUSED)
        self.reporter(self.state, self._metric_values, force)

    def _metric_values(self) -> dict[str, Any]:
        values = {**self.metrics.snapshot(), **self.counters, **self.errors.metrics()}
        values[ACTIVE_TOPICS_METRIC] = self.topics.known
        return with_plugin_metrics(values, self.context, self.pipeline.plugin_metric_samples())

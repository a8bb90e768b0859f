"""The sink task loop: the log, converters, transforms, `put`; offsets committed after `pre_commit`.

Follows Kafka Connect's `WorkerSinkTask`: the consumer group is `connect-<connector>`, offsets are
committed every `offset.flush.interval.ms` (or when the task asks) for what `pre_commit` returns,
capped at what was consumed; `SinkTaskContext.offset()` rewinds before the next poll, or right
after `open` for partitions not assigned yet; a `RetriableError` from `put` pauses consumption and
redelivers the same batch. `is_closing()` is true exactly while `pre_commit` runs for partitions about
to be closed: revoked in a rebalance, or all of them when the task stops or fails. A pause commits
without closing; partitions lost (the member was evicted from the group) are closed without a commit.

The tasks of a connector are the members of that consumer group: partitions are shared out by the
group and move on a rebalance, when the task gets `pre_commit` (with `is_closing()` true) and `close`
for the partitions it loses, then `open` for the ones it gains (and `close` alone for partitions
it lost). With Kafka's default assignors a rebalance takes every partition away first; with
`consumer.override.partition.assignment.strategy` set to `CooperativeStickyAssignor` only those that
move are closed, the others staying open with what is buffered or waiting for redelivery.
`topics.regex` is matched against the log's topics periodically and the subscription follows.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from concurrent.futures import Future
from typing import Any

from conveyor.api import (
    BatchSinkTask,
    ColumnSinkTask,
    ErrantRecordReporter,
    RetriableError,
    SinkTask,
    SinkTaskContext,
)
from conveyor.data import ConnectError, SinkColumns, SinkRecord
from conveyor.log import Consumer, Log, Producer, RebalanceListener, RecordBatch, TopicPartition
from conveyor.log.api import Closeable
from conveyor.metrics.task_metrics import ACTIVE_TOPICS_METRIC, SinkTaskMetrics, with_plugin_metrics
from conveyor.pipeline.error_handling import ErrorHandler, ErrorPolicy, FailedRecord, Stage
from conveyor.pipeline.record_pipeline import RecordPipeline
from conveyor.pipeline.topics import TopicCreator
from conveyor.runtime.collector import collect_less_often
from conveyor.runtime.control import StateReporter, TargetState, TaskControl
from conveyor.runtime.lifecycle import TaskLoop
from conveyor.runtime.task_spec import TaskSpec
from conveyor.settings.client_overrides import (
    ClientType,
    OverridePolicy,
    allowed_overrides,
    built_with_overrides,
)
from conveyor.settings.connector_config import SinkTopics
from conveyor.settings.names import CONSUMER_LOG_URL_CONFIG, consumer_group

logger = logging.getLogger(__name__)

MAX_POLL_WAIT_S = 0.2
TOPIC_REFRESH_S = 2.0
LAG_REFRESH_S = 1.0


CONSUMER_OVERRIDE_PREFIX = "consumer.override."


def consumer_overrides(config: Mapping[str, str], policy: OverridePolicy) -> dict[str, str]:
    """The connector's `consumer.override.*` settings for its sink consumer (as the worker's client config
    override `policy` allows), e.g. the group's `session.timeout.ms`; the log it reads is chosen before
    the loop starts (`task_logs`), so `log.url` is not a consumer setting."""
    overrides = allowed_overrides(policy, config, ClientType.CONSUMER)
    overrides.pop(CONSUMER_LOG_URL_CONFIG.removeprefix(CONSUMER_OVERRIDE_PREFIX), None)
    return overrides


class RuntimeErrantRecordReporter(ErrantRecordReporter):
    def __init__(self, errors: ErrorHandler, pipeline: RecordPipeline) -> None:
        self._errors = errors
        self._pipeline = pipeline
        self.failure: BaseException | None = None

    def report(self, record: SinkRecord, error: BaseException) -> Future[None]:
        raw = self._pipeline.value_converter.from_connect_data(
            record.topic, record.value_schema, record.value
        )
        failed = FailedRecord(
            None, raw, record.topic, record.kafka_partition, record.kafka_offset, "reported record"
        )
        self._errors.report_errant(Stage.TASK_PUT, error, failed)
        if not self._errors.policy.tolerance_all and self.failure is None:
            self.failure = error
        future: Future[None] = Future()
        future.set_result(None)
        return future


class RuntimeSinkTaskContext(SinkTaskContext):
    def __init__(self, config: Mapping[str, str], reporter: ErrantRecordReporter | None) -> None:
        self._config = dict(config)
        self._reporter = reporter
        self.assigned: set[TopicPartition] = set()
        self.paused: set[TopicPartition] = set()
        self.rewinds: dict[TopicPartition, int] = {}
        self.timeout_ms: int | None = None
        self.commit_requested = False
        self.commit_deadline: float | None = None
        self.closing = False

    def configs(self) -> Mapping[str, str]:
        return self._config

    def offset(self, offsets: Mapping[TopicPartition, int]) -> None:
        self.rewinds.update(offsets)

    def timeout(self, timeout_ms: int) -> None:
        self.timeout_ms = timeout_ms

    def assignment(self) -> set[TopicPartition]:
        return set(self.assigned)

    def pause(self, *partitions: TopicPartition) -> None:
        self._check_assigned(partitions)
        self.paused.update(partitions)

    def resume(self, *partitions: TopicPartition) -> None:
        self._check_assigned(partitions)
        self.paused.difference_update(partitions)

    def _check_assigned(self, partitions: Collection[TopicPartition]) -> None:
        unknown = [str(p) for p in partitions if p not in self.assigned]
        if unknown:
            raise ConnectError(
                f"Cannot pause or resume partitions not assigned to this task: {', '.join(unknown)}"
            )

    def request_commit(self) -> None:
        self.commit_requested = True

    def request_commit_within(self, timeout_ms: int) -> None:
        deadline = time.monotonic() + max(0, timeout_ms) / 1000
        self.commit_deadline = (
            deadline if self.commit_deadline is None else min(self.commit_deadline, deadline)
        )

    def errant_record_reporter(self) -> ErrantRecordReporter | None:
        return self._reporter

    def is_closing(self) -> bool:
        return self.closing


class SinkTaskLoop(TaskLoop[SinkTask], RebalanceListener):
    """Runs one sink task until its control says stop; raises when the task fails."""

    def __init__(self, spec: TaskSpec, control: TaskControl, log: Log, task: SinkTask) -> None:
        collect_less_often()
        self.spec = spec
        self.control = control
        self.log = log
        self.task = task
        config, worker = spec.connector_config, spec.worker_config
        self.connector = spec.id.connector
        self.task_index = spec.id.task
        self.flush_interval_s = worker.offset_flush_interval_ms / 1000
        subscription = SinkTopics.parse(config)
        self.topics = list(subscription.topics)
        self.topics_regex = re.compile(subscription.regex) if subscription.regex else None
        error_policy = ErrorPolicy.from_connector_config(config)
        self.dlq_producer = self._dead_letter_producer(error_policy)
        self.errors = ErrorHandler(
            error_policy, self.connector, spec.id.task, self.dlq_producer, TopicCreator(log, config)
        )
        self.pipeline = RecordPipeline.for_connector(config, worker, self.errors)
        self.batch_task = (
            task if isinstance(task, BatchSinkTask) and self.pipeline.passes_bytes_through() else None
        )
        self.column_task = (
            task
            if isinstance(task, ColumnSinkTask) and self.batch_task is None and not self.pipeline.chain
            else None
        )
        policy = self.errors.policy
        self.reporter = (
            RuntimeErrantRecordReporter(self.errors, self.pipeline)
            if policy.dlq_topic or policy.log_enable
            else None
        )
        self.context = RuntimeSinkTaskContext(spec.task_config, self.reporter)
        self.active_topics: set[str] = set()
        overrides = consumer_overrides(config, worker.client_override_policy)
        isolation = overrides.pop("isolation.level", "read_committed")
        defaults = {"auto.offset.reset": "earliest", **self._poll_records()}
        self.consumer: Consumer = built_with_overrides(
            ClientType.CONSUMER,
            overrides,
            lambda: self.log.consumer(
                consumer_group(self.connector),
                "read_uncommitted" if isolation == "read_uncommitted" else "read_committed",
                **{**defaults, **overrides},
            ),
        )
        self.subscribed: list[str] = []
        self.topic_layout: dict[str, int] | None = None
        self.current: dict[TopicPartition, int] = {}
        self.last_committed: dict[TopicPartition, int] = {}
        self.redeliver: list[SinkRecord] | None = None
        self.redeliver_advances: dict[TopicPartition, int] = {}
        self.metrics = SinkTaskMetrics()
        self.next_commit = time.monotonic() + self.flush_interval_s
        self.next_topic_refresh = 0.0
        self.records_lag = 0
        self.next_lag_refresh = 0.0
        self.state_reporter = StateReporter(control)
        self.state = TargetState.STARTED

    def _poll_records(self) -> dict[str, str]:
        """The task's own `max.poll.records` default, if it declares one (`SinkTask.max_poll_records`)."""
        wanted = self.task.max_poll_records(self.spec.task_config)
        return {} if wanted is None else {"max.poll.records": str(wanted)}

    def _initialize_task(self) -> None:
        self.task.initialize(self.context)

    def _commit_final(self) -> None:
        self._close_partitions(set(self.context.assigned))

    def _finish_after_failure(self) -> None:
        """A failed sink task still commits through a closing `pre_commit` and closes its partitions,
        as WorkerSinkTask's `closeAllPartitions` runs whatever ends its loop: only what was `put` is
        offered, and the task decides what is durable."""
        self._close_partitions(set(self.context.assigned))

    def _dead_letter_producer(self, policy: ErrorPolicy) -> Producer | None:
        """A producer for the dead letter queue, with the connector's producer overrides, only when there
        is one (as Kafka's sink, which has no other producer)."""
        if not policy.dlq_topic:
            return None
        worker = self.spec.worker_config
        overrides = allowed_overrides(
            worker.client_override_policy, self.spec.connector_config, ClientType.PRODUCER
        )
        return built_with_overrides(ClientType.PRODUCER, overrides, lambda: self.log.producer(**overrides))

    def _log_client(self) -> Closeable:
        return self.consumer

    def _close_client(self) -> None:
        """Leave the group, then close the dead letter queue's producer (flushing what it holds)."""
        try:
            super()._close_client()
        finally:
            if self.dlq_producer is not None:
                self.dlq_producer.close()

    def _loop(self) -> None:
        while True:
            target = self.control.target_state()
            if target is TargetState.STOPPED:
                return
            now = time.monotonic()
            if now >= self.next_topic_refresh:
                self._follow_topics()
            if self.context.commit_deadline is not None:
                self.next_commit = min(self.next_commit, self.context.commit_deadline)
                self.context.commit_deadline = None
            if self.context.commit_requested or now >= self.next_commit:
                self._commit(closing=False)
            if target is TargetState.PAUSED and self.state is TargetState.STARTED:
                # As WorkerSinkTask on a pause: commit soon, but nothing is being closed.
                self.context.commit_requested = True
            self.state = TargetState.PAUSED if target is TargetState.PAUSED else TargetState.STARTED
            self._apply_pauses()
            self._rewind()
            self._iteration()
            self._report()

    def _follow_topics(self) -> None:
        """Subscribe to the configured topics, or to those `topics.regex` matches now, and rejoin the
        group when their partitions changed; one look at the log's topics each time."""
        self.next_topic_refresh = time.monotonic() + TOPIC_REFRESH_S
        if self.topics_regex is None:
            wanted = sorted(self.topics)
            layout = self.log.admin().partition_counts(wanted)
        else:
            counts = self.log.admin().partition_counts()
            wanted = sorted(t for t in counts if self.topics_regex.fullmatch(t))
            layout = {t: counts[t] for t in wanted}
        if wanted != self.subscribed:
            self.subscribed = wanted
            self.consumer.subscribe(wanted, self)
        if layout != self.topic_layout:
            if self.topic_layout is not None:
                self.consumer.enforce_rebalance()
            self.topic_layout = layout

    def _apply_pauses(self) -> None:
        """Fetch nothing while the connector is paused or records wait for redelivery, and nothing of
        partitions the task paused."""
        pause_all = self.state is TargetState.PAUSED or self.redeliver is not None
        wanted = set(self.context.assigned) if pause_all else set(self.context.paused)
        paused = wanted
        current = self.consumer.paused()
        if paused != current:
            self.consumer.resume(current - paused)
            self.consumer.pause(paused - current)

    def _iteration(self) -> None:
        """Poll, then put what came; while records wait for redelivery the poll (every partition
        paused) is the back-off before the next attempt and keeps the task in its group's rebalances,
        as WorkerSinkTask's poll does while it is paused for redelivery."""
        retrying = self.redeliver is not None and self.state is TargetState.STARTED
        wait = min(MAX_POLL_WAIT_S, max(0.0, self.next_commit - time.monotonic()))
        if self.context.timeout_ms is not None:
            wait = min(wait, self.context.timeout_ms / 1000)
        for batch in self.consumer.poll_batch(wait):
            self.metrics.record_read(len(batch))
            self.active_topics.add(batch.topic)
            partition = TopicPartition(batch.topic, batch.partition)
            if partition not in self.context.assigned:
                continue
            if self.batch_task is not None and self.redeliver is None:
                self._put_batch(self.batch_task, batch, {partition: batch.next_offset})
                continue
            if self.column_task is not None and self.redeliver is None:
                columns = self.pipeline.columns_from_log(batch)
                if columns is not None:
                    self._put_columns(self.column_task, columns, {partition: batch.next_offset})
                    continue
            records = self.pipeline.from_log(batch)
            if self.redeliver is not None:
                # A put of this poll failed retriably: the rest of the poll waits with it, as the
                # one batch Kafka's WorkerSinkTask redelivers.
                self.redeliver.extend(records)
                self.redeliver_advances[partition] = batch.next_offset
                continue
            self._put(records, {partition: batch.next_offset})
        if retrying and self.redeliver is not None:
            records, self.redeliver = self.redeliver, None
            self._put(records, self.redeliver_advances)

    def _put(self, records: Sequence[SinkRecord], advanced: Mapping[TopicPartition, int]) -> None:
        self._deliver(lambda: self.task.put(records), len(records), advanced, lambda: list(records))

    def _put_batch(
        self, task: BatchSinkTask, batch: RecordBatch, advanced: Mapping[TopicPartition, int]
    ) -> None:
        """The batch's columns straight to the task; should it ask for them again, they come back to
        `put` as records."""
        self._deliver(
            lambda: task.put_batch(batch), len(batch), advanced, lambda: self.pipeline.from_log(batch)
        )

    def _put_columns(
        self, task: ColumnSinkTask, columns: SinkColumns, advanced: Mapping[TopicPartition, int]
    ) -> None:
        """The batch converted, as columns, to the task; should it ask for them again, they come back to
        `put` as records."""
        self._deliver(lambda: task.put_columns(columns), len(columns), advanced, columns.records)

    def _deliver(
        self,
        put: Callable[[], None],
        count: int,
        advanced: Mapping[TopicPartition, int],
        records: Callable[[], list[SinkRecord]],
    ) -> None:
        """Hand ``count`` records to the task with ``put``; ``records`` are what waits for redelivery."""
        started = self.metrics.now()
        self.control.calling("put()")
        try:
            put()
        except RetriableError as exc:
            logger.warning("%s-%d: put failed and will be retried: %s", self.connector, self.task_index, exc)
            # The positions stay where they were until a put succeeds: a commit meanwhile must not
            # cover records the task has not taken (Kafka advances its current offsets only then).
            self.redeliver, self.redeliver_advances = records(), dict(advanced)
            return
        except Exception as exc:
            raise ConnectError("Exiting WorkerSinkTask due to unrecoverable exception.") from exc
        finally:
            self.control.calling(None)
        if self.reporter is not None and self.reporter.failure is not None:
            raise ConnectError(
                "Exiting WorkerSinkTask due to unrecoverable exception."
            ) from self.reporter.failure
        self.context.timeout_ms = None
        self.metrics.record_put(count, self.metrics.since(started))
        self.current.update(advanced)
        self._record_active()

    def _commit(self, closing: bool, partitions: Collection[TopicPartition] | None = None) -> None:
        """Commit the offsets the task says are safe, as WorkerSinkTask does.

        1. Scope: the partitions with a consumed position (all of them, or those being closed).
        2. `pre_commit` with the offsets consumed so far (`is_closing()` true when closing). Only the
           task knows what it has written out; by default it flushes and returns them all.
        3. When closing, `close` the partitions right after, even if `pre_commit` failed: they are
           going away either way, and the task must drop their writers.
        4. If `pre_commit` failed: when closing, only a warning (the next owner resumes from the last
           commit); otherwise rewind to the last committed offsets, because what was put since may
           not be durable and must be delivered again.
        5. Keep only offsets of requested partitions and no further than consumed: a task may hold
           back, never jump ahead of what it was given. An empty result skips the commit.
        6. Skip a commit that changes nothing; otherwise commit to the consumer group and remember
           the offsets as the point to rewind to.
        """
        self.next_commit = time.monotonic() + self.flush_interval_s
        self.context.commit_requested = False
        scope = set(self.current if partitions is None else partitions) & set(self.current)
        if not scope:
            if closing and partitions:
                self.task.close(sorted(partitions))
            return
        requested = {p: self.current[p] for p in scope}
        self.context.closing = closing
        self.metrics.record_commit_attempt()
        started = self.metrics.now()
        try:
            offsets = self.task.pre_commit(dict(requested))
        except Exception as exc:
            self.metrics.record_commit(self.metrics.since(started), succeeded=False)
            if closing:
                logger.warning(
                    "%s-%d: pre_commit failed while closing: %s", self.connector, self.task_index, exc
                )
                return
            logger.error(
                "%s-%d: pre_commit failed; rewinding to the last committed offsets",
                self.connector,
                self.task_index,
                exc_info=exc,
            )
            self.context.rewinds.update(self.last_committed)
            return
        finally:
            self.context.closing = False
            if closing:
                self.task.close(sorted(set(partitions or scope)))
        to_commit = {p: o for p, o in offsets.items() if p in requested and o <= requested[p]}
        if not to_commit or all(self.last_committed.get(p) == o for p, o in to_commit.items()):
            self.metrics.record_commit_skipped()
            return
        self.consumer.commit(dict(to_commit))
        self.last_committed.update(to_commit)
        self.metrics.record_commit_completed(self.metrics.since(started))
        self._record_active()

    def _record_active(self) -> None:
        """Records put whose offsets are not committed: one subtraction per assigned partition."""
        self.metrics.record_active(
            sum(max(0, offset - self.last_committed.get(p, offset)) for p, offset in self.current.items())
        )

    def _close_partitions(self, partitions: set[TopicPartition]) -> None:
        if partitions:
            self._commit(closing=True, partitions=partitions)
        for partition in partitions:
            self.current.pop(partition, None)
            self.last_committed.pop(partition, None)

    def on_partitions_revoked(self, partitions: set[TopicPartition]) -> None:
        if self.task_stopped:
            # Closing the consumer gives the partitions up after the task stopped (its partitions were
            # closed before `stop`): as Kafka's WorkerSinkTask, ask the task nothing more.
            return
        revoked = partitions & self.context.assigned
        self._drop_redelivery(revoked)
        self._close_partitions(revoked)
        self._forget(revoked)

    def on_partitions_lost(self, partitions: set[TopicPartition]) -> None:
        """The group gave these partitions to others already: `close` them, commit nothing."""
        if self.task_stopped:
            return
        lost = partitions & self.context.assigned
        self._drop_redelivery(lost)
        if lost:
            self.task.close(sorted(lost))
        for partition in lost:
            self.current.pop(partition, None)
            self.last_committed.pop(partition, None)
        self._forget(lost)

    def _drop_redelivery(self, partitions: set[TopicPartition]) -> None:
        """Records waiting for redelivery stay, but not those of partitions going away (a cooperative
        rebalance keeps the others), as WorkerSinkTask removes them from its message batch."""
        if self.redeliver is None:
            return
        gone = {(p.topic, p.partition) for p in partitions}
        self.redeliver = [
            r for r in self.redeliver if (r.original_topic, r.original_kafka_partition) not in gone
        ] or None
        for partition in partitions:
            self.redeliver_advances.pop(partition, None)

    def _forget(self, partitions: set[TopicPartition]) -> None:
        self.context.assigned -= partitions
        self.context.paused -= partitions

    def on_partitions_assigned(self, partitions: set[TopicPartition]) -> None:
        if self.task_stopped:
            return
        added: list[TopicPartition] = []
        for partition in partitions:
            position = self.consumer.position(partition)
            self.last_committed[partition] = position
            self.current[partition] = position
            added.append(partition)
        self.context.assigned |= set(added)
        # As WorkerSinkTask: a paused task fetches nothing from what it is given, not even in this poll.
        self._apply_pauses()
        if added:
            self.task.open(sorted(added))
            # Offsets given in `start` or `open` apply before the first `put` of these partitions.
            self._rewind()
            self._drop_unassigned_rewinds()

    def _rewind(self) -> None:
        """Seek to the offsets the task gave, for the partitions it holds; the others wait for their
        assignment (an offset given in `start` names partitions the group has not handed out yet)."""
        ready = {p: o for p, o in self.context.rewinds.items() if p in self.context.assigned}
        if not ready:
            return
        for partition, offset in ready.items():
            self.consumer.seek(partition, offset)
            self.current[partition] = offset
            self.last_committed[partition] = offset
            del self.context.rewinds[partition]
        self.redeliver = None

    def _drop_unassigned_rewinds(self) -> None:
        """After an assignment, offsets for partitions this task did not get are not its to apply."""
        for partition in list(self.context.rewinds):
            logger.warning(
                "%s-%d: ignoring the offset %d given for %s, which is not assigned to this task",
                self.connector,
                self.task_index,
                self.context.rewinds.pop(partition),
                partition,
            )

    def _records_lag(self) -> int:
        """Records in the assigned partitions past this task's position, as the consumer's `records-lag`.

        Asking the log for its end offsets costs a call, so the figure is refreshed at most every second.
        """
        now = time.monotonic()
        if now >= self.next_lag_refresh:
            ends = self.consumer.end_offsets(self.consumer.assignment())
            self.records_lag = sum(max(0, end - self.consumer.position(tp)) for tp, end in ends.items())
            self.next_lag_refresh = now + LAG_REFRESH_S
        return self.records_lag

    def _report(self, force: bool = False) -> None:
        self.metrics.partition_count = len(self.context.assigned)
        self.metrics.track_state(self.state is TargetState.PAUSED)
        self.state_reporter(self.state, self._metric_values, force)

    def _metric_values(self) -> dict[str, Any]:
        values = {**self.metrics.snapshot(), **self.errors.metrics(), "records-lag": self._records_lag()}
        values[ACTIVE_TOPICS_METRIC] = sorted(self.active_topics)
        return with_plugin_metrics(values, self.context, self.pipeline.plugin_metric_samples())

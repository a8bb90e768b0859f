"""The sink task loop: the log, converters, transforms, `put`; offsets committed after `pre_commit`.

Follows Kafka Connect's `WorkerSinkTask`: the consumer group is `connect-<connector>`, offsets are
committed every `offset.flush.interval.ms` (or when the task asks) for what `pre_commit` returns,
capped at what was consumed; `SinkTaskContext.offset()` rewinds before the next poll; a
`RetriableError` from `put` pauses consumption and redelivers the same batch. When partitions are
about to be closed (a stop here), `is_closing()` is true during that last `pre_commit`.

Partitions are assigned statically: task *i* of *n* reads every *n*-th partition of the sorted
partitions of its topics, re-checked when topics appear (for `topics.regex`).
"""

from __future__ import annotations

import logging
import os
import re
import time
from collections.abc import Collection, Mapping, Sequence
from concurrent.futures import Future

from conveyor.api import ErrantRecordReporter, RetriableError, SinkTask, SinkTaskContext
from conveyor.api import TopicPartition as ApiPartition
from conveyor.data import ConnectError, SinkRecord
from conveyor.log import Consumer, Log
from conveyor.log import TopicPartition as LogPartition
from conveyor.runtime.control import TargetState, TaskControl
from conveyor.runtime.errors import ErrorHandler, ErrorPolicy, FailedRecord, Stage
from conveyor.runtime.pipeline import RecordPipeline
from conveyor.runtime.task_spec import TaskSpec
from conveyor.runtime.topics import TopicCreator

log = logging.getLogger(__name__)

REPORT_INTERVAL_S = 0.25
MAX_POLL_WAIT_S = 0.2
TOPIC_REFRESH_S = 5.0


def consumer_group(connector: str) -> str:
    """Kafka Connect's default sink consumer group (`SinkUtils.consumerGroupId`)."""
    return f"connect-{connector}"


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
        self._errors.report(Stage.TASK_PUT, error, failed)
        if not self._errors.policy.tolerance_all and self.failure is None:
            self.failure = error
        future: Future[None] = Future()
        future.set_result(None)
        return future


class RuntimeSinkTaskContext(SinkTaskContext):
    def __init__(self, config: Mapping[str, str], reporter: ErrantRecordReporter | None) -> None:
        self._config = dict(config)
        self._reporter = reporter
        self.assigned: set[ApiPartition] = set()
        self.paused: set[ApiPartition] = set()
        self.rewinds: dict[ApiPartition, int] = {}
        self.timeout_ms: int | None = None
        self.commit_requested = False
        self.closing = False

    def configs(self) -> Mapping[str, str]:
        return self._config

    def offset(self, offsets: Mapping[ApiPartition, int]) -> None:
        self.rewinds.update(offsets)

    def timeout(self, timeout_ms: int) -> None:
        self.timeout_ms = timeout_ms

    def assignment(self) -> set[ApiPartition]:
        return set(self.assigned)

    def pause(self, *partitions: ApiPartition) -> None:
        self._check_assigned(partitions)
        self.paused.update(partitions)

    def resume(self, *partitions: ApiPartition) -> None:
        self._check_assigned(partitions)
        self.paused.difference_update(partitions)

    def _check_assigned(self, partitions: Collection[ApiPartition]) -> None:
        unknown = [str(p) for p in partitions if p not in self.assigned]
        if unknown:
            raise ConnectError(
                f"Cannot pause or resume partitions not assigned to this task: {', '.join(unknown)}"
            )

    def request_commit(self) -> None:
        self.commit_requested = True

    def errant_record_reporter(self) -> ErrantRecordReporter | None:
        return self._reporter

    def is_closing(self) -> bool:
        return self.closing


class SinkTaskLoop:
    """Runs one sink task until its control says stop; raises when the task fails."""

    def __init__(self, spec: TaskSpec, control: TaskControl, log_: Log, task: SinkTask) -> None:
        self.spec = spec
        self.control = control
        self.log = log_
        self.task = task
        config, worker = spec.connector_config, spec.worker_config
        self.connector = spec.id.connector
        self.flush_interval_s = int(worker.get("offset.flush.interval.ms", "60000")) / 1000
        self.topics = [t.strip() for t in config.get("topics", "").split(",") if t.strip()]
        regex = config.get("topics.regex", "").strip()
        self.topics_regex = re.compile(regex) if regex else None
        self.task_index = spec.id.task
        self.task_count = max(1, int(config.get("conveyor.task.count", config.get("tasks.max", "1"))))
        dlq_producer = self.log.producer()
        self.errors = ErrorHandler(
            ErrorPolicy.from_connector_config(config),
            self.connector,
            spec.id.task,
            dlq_producer,
            TopicCreator(log_, config),
        )
        self.pipeline = RecordPipeline.for_connector(config, worker, self.errors)
        policy = self.errors.policy
        self.reporter = (
            RuntimeErrantRecordReporter(self.errors, self.pipeline)
            if policy.dlq_topic or policy.log_enable
            else None
        )
        self.context = RuntimeSinkTaskContext(spec.task_config, self.reporter)
        isolation = config.get("consumer.override.isolation.level", "read_committed")
        self.consumer: Consumer = self.log.consumer(
            consumer_group(self.connector),
            "read_uncommitted" if isolation == "read_uncommitted" else "read_committed",
            **{"auto.offset.reset": "earliest"},
        )
        self.current: dict[ApiPartition, int] = {}
        self.last_committed: dict[ApiPartition, int] = {}
        self.redeliver: list[SinkRecord] | None = None
        self.counters = {"records-read": 0, "records-put": 0, "offset-commits": 0, "offset-commit-skips": 0}
        self.next_commit = time.monotonic() + self.flush_interval_s
        self.next_topic_refresh = 0.0
        self.parked: dict[LogPartition, int] = {}
        self.last_report = 0.0
        self.state = TargetState.STARTED

    def run(self) -> None:
        self.task.initialize(self.context)
        self.task.start(self.spec.task_config)
        failed = True
        try:
            self._refresh_assignment()
            self._loop()
            failed = False
        finally:
            try:
                if not failed:
                    self._close_partitions(set(self.context.assigned))
            finally:
                self._report(force=True)
                self.task.stop()
                self.pipeline.close()
                self.consumer.close()

    def _loop(self) -> None:
        while True:
            target = self.control.target_state()
            if target is TargetState.STOPPED:
                return
            now = time.monotonic()
            if self.context.commit_requested or now >= self.next_commit:
                self._commit(closing=False)
            if target is TargetState.PAUSED:
                self.state = TargetState.PAUSED
                self._report()
                self.control.wait(MAX_POLL_WAIT_S)
                continue
            self.state = TargetState.STARTED
            if now >= self.next_topic_refresh:
                self._refresh_assignment()
            self._rewind()
            self._iteration()
            self._report()

    def _iteration(self) -> None:
        if self.redeliver is not None:
            records, self.redeliver = self.redeliver, None
            self._put(records, {})
            return
        wait = min(MAX_POLL_WAIT_S, max(0.0, self.next_commit - time.monotonic()))
        if self.context.timeout_ms is not None:
            wait = min(wait, self.context.timeout_ms / 1000)
        if not self._fetch_only_active():
            self.control.wait(wait)
            return
        batches = self.consumer.poll_batch(wait)
        for batch in batches:
            self.counters["records-read"] += len(batch)
            partition = ApiPartition(batch.topic, batch.partition)
            records = self.pipeline.from_log(batch)
            self._put(records, {partition: batch.next_offset})

    def _fetch_only_active(self) -> bool:
        """Point the consumer at the unpaused partitions, keeping every position; False if none."""
        active = {LogPartition(p.topic, p.partition) for p in self.context.assigned - self.context.paused}
        fetching = self.consumer.assignment()
        if active != fetching:
            positions = {p: self.consumer.position(p) for p in fetching}
            positions.update(self.parked)
            self.consumer.assign(sorted(active))
            for partition in active:
                self.consumer.seek(partition, positions[partition])
            self.parked = {p: o for p, o in positions.items() if p not in active}
        return bool(active)

    def _put(self, records: Sequence[SinkRecord], advanced: Mapping[ApiPartition, int]) -> None:
        try:
            self.task.put(records)
        except RetriableError as exc:
            log.warning("%s-%d: put failed and will be retried: %s", self.connector, self.task_index, exc)
            self.redeliver = list(records)
            self.current.update(advanced)
            return
        except Exception as exc:
            raise ConnectError("Exiting WorkerSinkTask due to unrecoverable exception.") from exc
        if self.reporter is not None and self.reporter.failure is not None:
            raise ConnectError(
                "Exiting WorkerSinkTask due to unrecoverable exception."
            ) from self.reporter.failure
        self.context.timeout_ms = None
        self.counters["records-put"] += len(records)
        self.current.update(advanced)

    def _commit(self, closing: bool, partitions: Collection[ApiPartition] | None = None) -> None:
        self.next_commit = time.monotonic() + self.flush_interval_s
        self.context.commit_requested = False
        scope = set(self.current if partitions is None else partitions) & set(self.current)
        if not scope:
            return
        requested = {p: self.current[p] for p in scope}
        self.context.closing = closing
        try:
            offsets = self.task.pre_commit(dict(requested))
        except Exception as exc:
            if closing:
                log.warning(
                    "%s-%d: pre_commit failed while closing: %s", self.connector, self.task_index, exc
                )
                return
            log.error(
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
                self.task.close(sorted(scope))
        to_commit = {p: o for p, o in offsets.items() if p in requested and o <= requested[p]}
        if not to_commit or all(self.last_committed.get(p) == o for p, o in to_commit.items()):
            self.counters["offset-commit-skips"] += 1
            return
        self.consumer.commit({LogPartition(p.topic, p.partition): o for p, o in to_commit.items()})
        self.last_committed.update(to_commit)
        self.counters["offset-commits"] += 1

    def _close_partitions(self, partitions: set[ApiPartition]) -> None:
        if self.current.keys() & partitions:
            self._commit(closing=True, partitions=partitions)
        else:
            self.task.close(sorted(partitions))

    def _matched_partitions(self) -> list[ApiPartition]:
        admin = self.log.admin()
        names = admin.list_topics()
        if self.topics_regex is not None:
            wanted = [t for t in names if self.topics_regex.fullmatch(t)]
        else:
            wanted = [t for t in self.topics if t in names]
        described = admin.describe_topics(wanted)
        every = sorted(ApiPartition(t, p) for t, d in described.items() for p in range(d.partitions))
        return [p for i, p in enumerate(every) if i % self.task_count == self.task_index]

    def _refresh_assignment(self) -> None:
        self.next_topic_refresh = time.monotonic() + TOPIC_REFRESH_S
        wanted = set(self._matched_partitions())
        if wanted == self.context.assigned:
            return
        revoked = self.context.assigned - wanted
        if revoked:
            self._close_partitions(revoked)
            for p in revoked:
                self.current.pop(p, None)
                self.last_committed.pop(p, None)
        added = wanted - self.context.assigned
        kept = {LogPartition(p.topic, p.partition) for p in self.context.assigned & wanted}
        positions = {p: self.consumer.position(p) for p in self.consumer.assignment() & kept}
        positions.update({p: o for p, o in self.parked.items() if p in kept})
        self.parked = {}
        self.consumer.assign([LogPartition(p.topic, p.partition) for p in sorted(wanted)])
        for log_partition, offset in positions.items():
            self.consumer.seek(log_partition, offset)
        committed = self.consumer.committed([LogPartition(p.topic, p.partition) for p in added])
        for log_partition, meta in committed.items():
            partition = ApiPartition(log_partition.topic, log_partition.partition)
            if meta is None:
                self.consumer.seek_to_beginning([log_partition])
            else:
                self.consumer.seek(log_partition, meta.offset)
            position = self.consumer.position(log_partition)
            self.last_committed[partition] = position
            self.current[partition] = position
        self.context.assigned = wanted
        self.context.paused &= wanted
        if added:
            self.task.open(sorted(added))

    def _rewind(self) -> None:
        if not self.context.rewinds:
            return
        for partition, offset in self.context.rewinds.items():
            if partition in self.context.assigned:
                log_partition = LogPartition(partition.topic, partition.partition)
                if log_partition in self.parked:
                    self.parked[log_partition] = offset
                else:
                    self.consumer.seek(log_partition, offset)
                self.current[partition] = offset
        self.context.rewinds.clear()
        self.redeliver = None

    def _report(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self.last_report < REPORT_INTERVAL_S:
            return
        self.last_report = now
        state = "PAUSED" if self.state is TargetState.PAUSED else "RUNNING"
        self.control.report(
            {
                "state": state,
                "pid": os.getpid(),
                "partition-count": len(self.context.assigned),
                **self.counters,
                **self.errors.metrics(),
            }
        )

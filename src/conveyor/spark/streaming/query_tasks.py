"""Runs tasks that are Spark Structured Streaming queries, driven from the worker (the Spark driver).

A streaming task's class names a query builder (its ``STREAMING_QUERY`` attribute, ``module:function``);
the `QueryTaskRunner` calls it to start the query, and one watcher thread per task then drives the query
towards its target state: PAUSED stops the query and keeps its checkpoint, STARTED starts it again from the
checkpoint, STOPPED stops it for good. After each micro-batch the watcher publishes the progress as the
task's metrics and commits the query's offsets to the connector's consumer group. A query that fails
ends the task with a FAILED outcome carrying Spark's error.
"""

from __future__ import annotations

import importlib
import logging
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any, Final

from pyspark.sql import SparkSession
from pyspark.sql.streaming.query import StreamingQuery

from conveyor.log import Log, TopicPartition, open_log
from conveyor.metrics.task_metrics import SinkTaskMetrics
from conveyor.plugins.task_classes import load_task_class
from conveyor.runtime.control import TargetState
from conveyor.runtime.task_runner import TaskEvents, TaskOutcome, TaskRunner
from conveyor.runtime.task_spec import TaskId, TaskSpec
from conveyor.settings.connector_config import SinkTopics
from conveyor.settings.names import consumer_group
from conveyor.spark.datasource.offsets import subscribed_partitions
from conveyor.spark.datasource.options import Subscription
from conveyor.spark.planner_server import PlannerServer
from conveyor.spark.streaming.progress import BatchProgress, batches_since, commit_to_group, lag
from conveyor.spark.streaming.wakeup import QueryWakeup

logger = logging.getLogger(__name__)

STREAMING_QUERY_ATTRIBUTE: Final = "STREAMING_QUERY"
"""The attribute of a task class naming its query builder; its presence makes the task a query."""

WATCH_INTERVAL_S: Final = 0.25
"""How often the watcher looks without being woken (Spark's listener wakes it at every batch's end)."""
LAG_INTERVAL_S: Final = 1.0

QueryBuilder = Callable[[SparkSession, TaskSpec], StreamingQuery | None]
"""Starts a task's query on the session it is given (one per query); None when it cannot start yet
(e.g. no record to learn the schema from)."""


def is_query_task(spec: TaskSpec) -> bool:
    """Whether the task's class is a Structured Streaming query rather than a task loop."""
    return query_builder_of(spec) is not None


def query_builder_of(spec: TaskSpec) -> QueryBuilder | None:
    """The query builder a task's class names, or None for an ordinary task."""
    class_name = spec.task_config.get("task.class", "")
    if not class_name:
        return None
    path = getattr(load_task_class(class_name), STREAMING_QUERY_ATTRIBUTE, None)
    if not path:
        return None
    module, _, name = str(path).partition(":")
    builder: QueryBuilder = getattr(importlib.import_module(module), name)
    return builder


def subscription_of(config: dict[str, str]) -> Subscription:
    """The topics a sink connector reads (``topics`` or ``topics.regex``)."""
    topics = SinkTopics.parse(config)
    if topics.regex:
        return Subscription(pattern=topics.regex)
    return Subscription(topics=topics.topics)


class _QueryTask:
    """One streaming task: its target state, its current query, and the thread that watches it."""

    def __init__(
        self,
        spark: SparkSession,
        spec: TaskSpec,
        build: QueryBuilder,
        events: TaskEvents,
        previous: _QueryTask | None = None,
    ) -> None:
        self.spec = spec
        self._previous = previous
        self._spark = spark
        self._build = build
        self._events = events
        self._target = TargetState.STARTED
        self._query: StreamingQuery | None = None
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._listening: tuple[SparkSession, QueryWakeup] | None = None
        self._metrics: dict[str, Any] = {"state": "RUNNING"}
        self._reported_state: str | None = None
        self._last_batch = -1
        self._last_report = ""
        self._rows = 0
        self._processing_ms = 0
        self._positions: dict[TopicPartition, int] = {}
        self._sink_metrics = SinkTaskMetrics()
        self._next_lag = 0.0
        self._subscription = subscription_of(spec.connector_config)
        self._group = consumer_group(spec.id.connector)
        self.thread = threading.Thread(target=self._watch, name=f"spark-query-{spec.id}", daemon=True)

    def set_target(self, state: TargetState) -> None:
        with self._lock:
            self._target = state
        self._wake.set()

    def metrics(self) -> dict[str, Any]:
        with self._lock:
            return dict(self._metrics)

    def _watch(self) -> None:
        if self._previous is not None:
            # An older incarnation that did not stop in time (e.g. still starting its query) must end
            # first: Spark refuses a second instance of the same query.
            self._previous.thread.join()
            self._previous = None
        outcome = TaskOutcome.stopped()
        try:
            with open_log(self.spec.worker_config.log_url) as log:
                outcome = self._drive(log)
        except Exception as exc:
            outcome = TaskOutcome(
                True,
                f"Streaming query of task {self.spec.id} failed: {exc}",
                "".join(traceback.format_exception(exc)),
            )
        finally:
            self._stop_query()
        if outcome.failed:
            logger.error("Task %s failed: %s", self.spec.id, outcome.error)
        self._events.exited(self.spec, outcome)

    def _drive(self, log: Log) -> TaskOutcome:
        while True:
            with self._lock:
                target = self._target
            if target is TargetState.STOPPED:
                return TaskOutcome.stopped()
            if target is TargetState.PAUSED:
                self._stop_query()
                self._publish(log, "PAUSED")
            else:
                if self._query is None:
                    self._query = self._build(self._session(), self.spec)
                elif not self._query.isActive:
                    return self._failure(self._query)
                self._publish(log, "RUNNING")
            self._wake.wait(WATCH_INTERVAL_S)
            self._wake.clear()

    def _session(self) -> SparkSession:
        """The query's own session, whose listener wakes the watcher as soon as a batch ends; kept while
        the builder waits for records, so that waiting does not pile up sessions and listeners."""
        if self._listening is None:
            listener = QueryWakeup(self._wake)
            session = self._spark.newSession()
            session.streams.addListener(listener)
            self._listening = (session, listener)
        return self._listening[0]

    def _failure(self, query: StreamingQuery) -> TaskOutcome:
        error = query.exception()
        message = str(error) if error is not None else "the query stopped on its own"
        return TaskOutcome(True, f"Streaming query of task {self.spec.id} failed: {message}", message)

    def _publish(self, log: Log, state: str) -> None:
        query = self._query
        updates: dict[str, Any] = {"state": state}
        latest = query.lastProgress if query is not None else None
        if query is not None and latest is not None:
            report = BatchProgress.of(latest)
            updates |= report.metrics()
            if report.timestamp != self._last_report:
                self._last_report = report.timestamp
                self._account(log, batches_since(self._last_batch, report, lambda: query.recentProgress))
        if time.monotonic() >= self._next_lag:
            self._next_lag = time.monotonic() + LAG_INTERVAL_S
            updates["lag"] = lag(log.admin(), self._subscription, self._positions)
            self._sink_metrics.partition_count = len(subscribed_partitions(log.admin(), self._subscription))
        updates["rows-read"] = self._rows
        updates["processing-time-ms"] = self._processing_ms
        self._sink_metrics.track_state(state == "PAUSED")
        updates |= self._sink_metrics.snapshot()
        if query is not None:
            updates["query-id"] = query.id
        with self._lock:
            self._metrics |= updates
        if state != self._reported_state:
            self._reported_state = state
            self._events.reported(self.spec, state)

    def _account(self, log: Log, finished: list[BatchProgress]) -> None:
        """Count the rows and time of micro-batches that finished since the last look (several may have),
        and commit the positions the last one reached."""
        for batch in finished:
            self._rows += batch.num_input_rows
            self._processing_ms += batch.batch_duration_ms if batch.num_input_rows else 0
            self._sink_metrics.record_read(batch.num_input_rows)
            self._sink_metrics.record_put(batch.num_input_rows, batch.batch_duration_ms / 1000)
        if finished:
            self._last_batch = finished[-1].batch_id
            self._sink_metrics.record_commit_attempt()
            if finished[-1].end_offsets and finished[-1].end_offsets != self._positions:
                started = self._sink_metrics.now()
                self._positions = dict(finished[-1].end_offsets)
                commit_to_group(log.admin(), self._group, self._positions)
                self._sink_metrics.record_commit_completed(self._sink_metrics.since(started))
            else:
                self._sink_metrics.record_commit_skipped()

    def _stop_query(self) -> None:
        query, self._query = self._query, None
        if query is not None and query.isActive:
            query.stop()
        listening, self._listening = self._listening, None
        if listening is not None:
            session, listener = listening
            session.streams.removeListener(listener)


class QueryTaskRunner(TaskRunner):
    """Starts, pauses, resumes, stops and watches the streaming queries of streaming tasks."""

    def __init__(self, spark: SparkSession) -> None:
        self._spark = spark
        self._tasks: dict[TaskId, _QueryTask] = {}
        self._lock = threading.Lock()

    def start(self, spec: TaskSpec, events: TaskEvents) -> None:
        """Start the task's query in the background, telling ``events`` how it goes."""
        build = query_builder_of(spec)
        if build is None:
            raise ValueError(f"Task {spec.id} is not a streaming query: no {STREAMING_QUERY_ATTRIBUTE}")
        PlannerServer.ensure_started()

        def exited(ended: TaskSpec, outcome: TaskOutcome) -> None:
            with self._lock:
                current = self._tasks.get(ended.id)
                if current is not None and current.spec.attempt == ended.attempt:
                    del self._tasks[ended.id]
            events.exited(ended, outcome)

        with self._lock:
            previous = self._tasks.get(spec.id)
            events_of_task = TaskEvents(exited, events.reported, events.unplaced)
            task = _QueryTask(self._spark, spec, build, events_of_task, previous)
            self._tasks[spec.id] = task
        if previous is not None:
            previous.set_target(TargetState.STOPPED)
        task.thread.start()

    def set_target(self, task: TaskId, state: TargetState) -> None:
        with self._lock:
            running = self._tasks.get(task)
        if running is not None:
            running.set_target(state)

    def stop(self, task: TaskId, timeout_s: float) -> bool:
        """Stop the query (Spark lets the running micro-batch finish or interrupts it); True if in time."""
        with self._lock:
            running = self._tasks.get(task)
        if running is None:
            return True
        running.set_target(TargetState.STOPPED)
        running.thread.join(timeout_s)
        return not running.thread.is_alive()

    def metrics(self, task: TaskId) -> dict[str, Any]:
        with self._lock:
            running = self._tasks.get(task)
        return running.metrics() if running is not None else {}

    def close(self) -> None:
        with self._lock:
            tasks = list(self._tasks)
        for task in tasks:
            self.stop(task, 10.0)

"""What a task loop measures, under Kafka Connect's metric names (`ConnectMetricsRegistry`).

A loop records once per batch or per commit, never per record; `snapshot()` turns the counts into the
values Kafka publishes (totals, rates and averages over its 30 s x 2 window, ratios) and is called only
when the loop reports to its worker. Values that have nothing to show yet are None (Kafka's NaN).
"""

from __future__ import annotations

import time
from typing import Any

from conveyor.api.plugin_metrics import PluginMetricsHolder
from conveyor.metrics.sampled_stats import DEFAULT_WINDOW, Clock, Meter, MetricWindow, SampledStat

MetricValues = dict[str, Any]

ACTIVE_TOPICS_METRIC = "active-topics"
"""The topics a task has produced to or consumed from, which its worker records as the connector's
active topics (KIP-558)."""

PLUGIN_METRICS_KEY = "plugin-metrics"
"""Where a task's report carries the samples of its plugin's own metrics (KIP-877)."""


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


class StateTimer:
    """The share of a task's life spent running and paused (Kafka's `StateTracker`), since it started."""

    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._since = clock()
        self._started = self._since
        self._paused = False
        self._paused_s = 0.0

    def track(self, paused: bool) -> None:
        if paused == self._paused:
            return
        now = self._clock()
        if self._paused:
            self._paused_s += now - self._since
        self._since, self._paused = now, paused

    def ratios(self) -> tuple[float, float]:
        """(running-ratio, pause-ratio)."""
        now = self._clock()
        lived = now - self._started
        if lived <= 0:
            return (0.0 if self._paused else 1.0, 1.0 if self._paused else 0.0)
        paused = self._paused_s + (now - self._since if self._paused else 0.0)
        return (1 - paused / lived, paused / lived)


class TaskMetrics:
    """The `connector-task-metrics` every task has: batch sizes, offset commits, time running and paused."""

    def __init__(self, window: MetricWindow = DEFAULT_WINDOW, clock: Clock = time.monotonic) -> None:
        self._window = window
        self._clock = clock
        self._batch_size = self._stat()
        self._commit_ms = self._stat()
        self._commit_succeeded = self._stat()
        self._states = StateTimer(clock)

    def _stat(self) -> SampledStat:
        return SampledStat(self._window, self._clock)

    def _meter(self) -> Meter:
        return Meter(self._window, self._clock)

    def track_state(self, paused: bool) -> None:
        self._states.track(paused)

    def record_batch(self, size: int) -> None:
        self._batch_size.record(size)

    def record_commit(self, duration_s: float, succeeded: bool) -> None:
        """An offset commit that took `duration_s` ended, well or not."""
        self._commit_ms.record(duration_s * 1000)
        self._commit_succeeded.record(1.0 if succeeded else 0.0)

    def since(self, started: float) -> float:
        """Seconds from `started` (a reading of `now()`) to now."""
        return self._clock() - started

    def now(self) -> float:
        return self._clock()

    def snapshot(self) -> MetricValues:
        running, paused = self._states.ratios()
        success = self._commit_succeeded.avg()
        return {
            "running-ratio": round(running, 4),
            "pause-ratio": round(paused, 4),
            "batch-size-max": self._batch_size.max(),
            "batch-size-avg": _round(self._batch_size.avg()),
            "offset-commit-max-time-ms": _round(self._commit_ms.max()),
            "offset-commit-avg-time-ms": _round(self._commit_ms.avg()),
            "offset-commit-success-percentage": 0.0 if success is None else round(success, 4),
            "offset-commit-failure-percentage": 0.0 if success is None else round(1 - success, 4),
        }


class SourceTaskMetrics(TaskMetrics):
    """`source-task-metrics`: records polled and written, poll times, records not yet durable, and the
    size of committed transactions (an aborted transaction is not recorded, as in KIP-618)."""

    def __init__(self, window: MetricWindow = DEFAULT_WINDOW, clock: Clock = time.monotonic) -> None:
        super().__init__(window, clock)
        self.active = 0
        self.transaction_records = 0
        self._polled = self._meter()
        self._written = self._meter()
        self._poll_ms = self._stat()
        self._active_count = self._stat()
        self._transaction_size = self._stat()

    def record_poll(self, records: int, duration_s: float) -> None:
        """A `poll` that took `duration_s` returned `records` records."""
        self._poll_ms.record(duration_s * 1000)
        self.record_batch(records)
        self._polled.record(records)
        self.active += records
        self._active_count.record(self.active)

    def record_write(self, records: int) -> None:
        self._written.record(records)
        self.transaction_records += records

    def record_durable(self, records: int | None = None) -> None:
        """Everything polled so far (or the first ``records`` of what was not yet) is in the log with its
        offsets; a transaction's records count from its first write, after its predecessor's commit."""
        self.active = 0 if records is None else self.active - records
        self.transaction_records = 0
        self._active_count.record(self.active)

    def record_transaction_committed(self) -> None:
        self._transaction_size.record(self.transaction_records)
        self.transaction_records = 0

    def record_transaction_aborted(self) -> None:
        self.transaction_records = 0

    def snapshot(self) -> MetricValues:
        return super().snapshot() | {
            "source-record-poll-total": self._polled.total,
            "source-record-poll-rate": _round(self._polled.rate()),
            "source-record-write-total": self._written.total,
            "source-record-write-rate": _round(self._written.rate()),
            "poll-batch-max-time-ms": _round(self._poll_ms.max()),
            "poll-batch-avg-time-ms": _round(self._poll_ms.avg()),
            "source-record-active-count": self.active,
            "source-record-active-count-max": self._active_count.max(),
            "source-record-active-count-avg": _round(self._active_count.avg()),
            "transaction-size-min": self._transaction_size.min(),
            "transaction-size-max": self._transaction_size.max(),
            "transaction-size-avg": _round(self._transaction_size.avg()),
        }


class SinkTaskMetrics(TaskMetrics):
    """`sink-task-metrics`: records read and put, put times, records put but not committed, commits."""

    def __init__(self, window: MetricWindow = DEFAULT_WINDOW, clock: Clock = time.monotonic) -> None:
        super().__init__(window, clock)
        self.commit_seq_no = 0
        self.partition_count = 0
        self.active = 0
        self._read = self._meter()
        self._sent = self._meter()
        self._put_ms = self._stat()
        self._active_count = self._stat()
        self._commits_completed = self._meter()
        self._commits_skipped = self._meter()

    def record_read(self, records: int) -> None:
        self._read.record(records)

    def record_put(self, records: int, duration_s: float) -> None:
        """A `put` of `records` records that took `duration_s` returned."""
        self._put_ms.record(duration_s * 1000)
        self.record_batch(records)
        self._sent.record(records)

    def record_active(self, records: int) -> None:
        """Records put whose offsets are not committed yet."""
        self.active = records
        self._active_count.record(records)

    def record_commit_attempt(self) -> None:
        self.commit_seq_no += 1

    def record_commit_completed(self, duration_s: float) -> None:
        self._commits_completed.record(1)
        self.record_commit(duration_s, succeeded=True)

    def record_commit_skipped(self) -> None:
        self._commits_skipped.record(1)

    def snapshot(self) -> MetricValues:
        return super().snapshot() | {
            "sink-record-read-total": self._read.total,
            "sink-record-read-rate": _round(self._read.rate()),
            "sink-record-send-total": self._sent.total,
            "sink-record-send-rate": _round(self._sent.rate()),
            "sink-record-active-count": self.active,
            "sink-record-active-count-max": self._active_count.max(),
            "sink-record-active-count-avg": _round(self._active_count.avg()),
            "partition-count": self.partition_count,
            "offset-commit-seq-no": self.commit_seq_no,
            "offset-commit-completion-total": self._commits_completed.total,
            "offset-commit-completion-rate": _round(self._commits_completed.rate()),
            "offset-commit-skip-total": self._commits_skipped.total,
            "offset-commit-skip-rate": _round(self._commits_skipped.rate()),
            "put-batch-max-time-ms": _round(self._put_ms.max()),
            "put-batch-avg-time-ms": _round(self._put_ms.avg()),
        }


def with_plugin_metrics(
    values: MetricValues, context: PluginMetricsHolder | None, pipeline_samples: list[dict[str, Any]]
) -> MetricValues:
    """``values`` and, when any were registered, the samples of the task's own metrics and those of its
    converters, transformations and predicates."""
    samples = (context.plugin_metric_samples() if context is not None else []) + pipeline_samples
    if samples:
        values[PLUGIN_METRICS_KEY] = samples
    return values

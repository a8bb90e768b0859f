"""A task loop's measurements under Kafka Connect's metric names."""

from __future__ import annotations

import pytest

from conveyor.metrics.task_metrics import SinkTaskMetrics, SourceTaskMetrics


class Clock:
    def __init__(self) -> None:
        self.now = 50.0

    def __call__(self) -> float:
        return self.now


def test_a_source_counts_polled_and_written_records_and_what_is_not_durable_yet() -> None:
    metrics = SourceTaskMetrics(clock=Clock())
    metrics.record_poll(10, 0.002)
    metrics.record_write(10)
    metrics.record_poll(30, 0.004)
    values = metrics.snapshot()
    assert values["source-record-poll-total"] == 40
    assert values["source-record-write-total"] == 10
    assert values["source-record-active-count"] == 40
    assert values["poll-batch-max-time-ms"] == 4.0
    assert values["batch-size-avg"] == 20
    metrics.record_durable()
    assert metrics.snapshot()["source-record-active-count"] == 0


def test_only_committed_transactions_are_measured() -> None:
    metrics = SourceTaskMetrics(clock=Clock())
    metrics.record_write(5)
    metrics.record_transaction_committed()
    metrics.record_write(100)
    metrics.record_transaction_aborted()
    metrics.record_write(7)
    metrics.record_transaction_committed()
    values = metrics.snapshot()
    assert (values["transaction-size-min"], values["transaction-size-max"]) == (5, 7)
    assert values["transaction-size-avg"] == 6


def test_the_time_paused_is_a_share_of_the_tasks_life() -> None:
    clock = Clock()
    metrics = SinkTaskMetrics(clock=clock)
    clock.now += 30
    metrics.track_state(paused=True)
    clock.now += 10
    values = metrics.snapshot()
    assert values["pause-ratio"] == 0.25
    assert values["running-ratio"] == 0.75


def test_a_sink_numbers_its_commit_attempts_and_counts_completions_and_skips() -> None:
    metrics = SinkTaskMetrics(clock=Clock())
    for completed in (True, False, True):
        metrics.record_commit_attempt()
        if completed:
            metrics.record_commit_completed(0.01)
        else:
            metrics.record_commit_skipped()
    values = metrics.snapshot()
    assert values["offset-commit-seq-no"] == 3
    assert values["offset-commit-completion-total"] == 2
    assert values["offset-commit-skip-total"] == 1
    assert values["offset-commit-avg-time-ms"] == pytest.approx(10.0)


def test_a_failed_commit_lowers_the_success_percentage() -> None:
    metrics = SinkTaskMetrics(clock=Clock())
    metrics.record_commit(0.001, succeeded=True)
    metrics.record_commit(0.001, succeeded=False)
    values = metrics.snapshot()
    assert values["offset-commit-success-percentage"] == 0.5
    assert values["offset-commit-failure-percentage"] == 0.5

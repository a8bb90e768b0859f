"""The error handler's counts, published as Kafka Connect's `task-error-metrics`."""

from __future__ import annotations

import pytest

from conveyor.api import RetriableError
from conveyor.log import IllegalStateError, Log
from conveyor.pipeline.error_handling import ErrorHandler, ErrorPolicy, FailedRecord, Stage
from conveyor.pipeline.topics import TopicCreator

RECORD = FailedRecord(b"k", b"v", "in", 0, 7, "record in@7")


def _raise(error: Exception) -> None:
    raise error


def test_each_retried_attempt_counts_as_a_failure_and_a_retry() -> None:
    attempts = iter([RetriableError("busy"), RetriableError("busy"), None])

    def flaky() -> str:
        error = next(attempts)
        if error is not None:
            raise error
        return "done"

    handler = ErrorHandler(ErrorPolicy(retry_timeout_ms=60_000), "c", 0, sleep=lambda _: None)
    assert handler.execute(Stage.TRANSFORMATION, flaky, lambda: RECORD) == "done"
    metrics = handler.metrics()
    assert (metrics["total-record-failures"], metrics["total-retries"], metrics["total-record-errors"]) == (
        2,
        2,
        0,
    )


def test_a_tolerated_error_counts_an_error_a_skip_and_when_it_happened() -> None:
    handler = ErrorHandler(ErrorPolicy(tolerance_all=True, log_enable=True), "c", 0)
    assert handler.execute(Stage.TRANSFORMATION, lambda: _raise(ValueError("bad")), lambda: RECORD) is None
    metrics = handler.metrics()
    assert metrics["total-record-failures"] == metrics["total-record-errors"] == 1
    assert metrics["total-records-skipped"] == metrics["total-errors-logged"] == 1
    assert metrics["last-error-timestamp"] > 0


def test_a_dead_letter_write_that_fails_is_counted_as_a_request_and_a_failure(log: Log) -> None:
    producer = log.producer()
    producer.close()
    handler = ErrorHandler(
        ErrorPolicy(tolerance_all=True, dlq_topic="dlq"), "c", 0, producer, TopicCreator(log, {})
    )
    with pytest.raises(IllegalStateError):
        handler.execute(Stage.VALUE_CONVERTER, lambda: _raise(ValueError("bad")), lambda: RECORD)
    metrics = handler.metrics()
    assert metrics["deadletterqueue-produce-requests"] == metrics["deadletterqueue-produce-failures"] == 1


def test_a_record_the_task_reports_counts_as_a_failed_record(log: Log) -> None:
    with log.producer() as producer:
        handler = ErrorHandler(
            ErrorPolicy(tolerance_all=True, dlq_topic="dlq"), "c", 0, producer, TopicCreator(log, {})
        )
        handler.report_errant(Stage.TASK_PUT, ValueError("cannot store"), RECORD)
    metrics = handler.metrics()
    assert metrics["total-record-failures"] == metrics["total-record-errors"] == 1
    assert metrics["deadletterqueue-produce-requests"] == 1
    assert metrics["deadletterqueue-produce-failures"] == 0

"""KIP-298 error handling: tolerance, retries and the dead letter queue, in the handler and the task loops."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest

from conveyor.api import RetriableError
from conveyor.data import INT32_SCHEMA, ConnectError, SinkRecord, SourceRecord
from conveyor.data.errors import DataError
from conveyor.log import ConsumerRecord, Log
from conveyor.pipeline.error_handling import (
    ErrorHandler,
    ErrorPolicy,
    FailedRecord,
    Stage,
    ToleranceExceededError,
)
from conveyor.runtime.control import LocalTaskControl
from conveyor.runtime.sink_task import SinkTaskLoop
from conveyor.runtime.source_task import SourceTaskLoop

from .support import (
    CONNECTOR,
    JSON_CONVERTER,
    produce,
    read_topic,
    running,
    task_spec,
    wait_until,
    worker_props,
)
from .tasks import RecordingSinkTask, ScriptedSourceTask

TOPIC = "in"
DLQ = "dlq"
VALUES = [b'"good-0"', b"not json {1", b'"good-2"', b"not json {3"]
JSON_VALUES = {"value.converter": JSON_CONVERTER, "value.converter.schemas.enable": "false"}
COORDINATES = ["topic", "partition", "offset", "connector.name", "task.id", "stage"]
CONTEXT_HEADERS = [
    *COORDINATES,
    "class.name",
    "exception.class.name",
    "exception.message",
    "exception.stacktrace",
]
TOLERATE_ALL = {"errors.tolerance": "all", "errors.deadletterqueue.topic.name": DLQ}


def sink_loop(log: Log, task: RecordingSinkTask, **config: str) -> tuple[SinkTaskLoop, LocalTaskControl]:
    control = LocalTaskControl()
    connector_config = {"topics": TOPIC, **JSON_VALUES, **config}
    spec = task_spec(connector_config, worker_props(log.url), kind="sink")
    return SinkTaskLoop(spec, control, log, task), control


def dead_letters(log: Log, count: int) -> list[ConsumerRecord]:
    wait_until(lambda: len(read_topic(log, DLQ)) == count, f"{count} dead letters")
    return read_topic(log, DLQ)


def headers_of(record: ConsumerRecord) -> dict[str, str | None]:
    return {key: None if value is None else value.decode() for key, value in record.headers}


def test_tolerance_all_skips_records_the_converter_rejects(log: Log) -> None:
    produce(log, TOPIC, VALUES)
    task = RecordingSinkTask()
    loop, control = sink_loop(log, task, **TOLERATE_ALL)
    with running(loop, control) as handle:
        wait_until(lambda: task.put_values() == ["good-0", "good-2"], "the good records put")
        wait_until(lambda: handle.metric("total-records-skipped") == 2, "two skipped records reported")


def test_skipped_records_go_to_the_dead_letter_queue_as_they_were_read(log: Log) -> None:
    produce(log, TOPIC, VALUES)
    task = RecordingSinkTask()
    loop, control = sink_loop(log, task, **TOLERATE_ALL)
    with running(loop, control):
        letters = dead_letters(log, 2)
    assert [letter.value for letter in letters] == [b"not json {1", b"not json {3"]
    assert all(letter.headers == [] for letter in letters)


def test_dead_letters_carry_the_error_context_headers_when_enabled(log: Log) -> None:
    produce(log, TOPIC, VALUES)
    task = RecordingSinkTask()
    context = {"errors.deadletterqueue.context.headers.enable": "true"}
    loop, control = sink_loop(log, task, **TOLERATE_ALL, **context)
    with running(loop, control):
        headers = headers_of(dead_letters(log, 2)[0])
    assert set(headers) == {f"__connect.errors.{name}" for name in CONTEXT_HEADERS}
    assert {name: headers[f"__connect.errors.{name}"] for name in COORDINATES} == {
        "topic": TOPIC,
        "partition": "0",
        "offset": "1",
        "connector.name": CONNECTOR,
        "task.id": "0",
        "stage": "VALUE_CONVERTER",
    }
    assert "serialization error" in (headers["__connect.errors.exception.message"] or "")
    assert "Traceback" in (headers["__connect.errors.exception.stacktrace"] or "")


def test_the_exception_class_header_is_the_fully_qualified_class_name(log: Log) -> None:
    produce(log, TOPIC, VALUES)
    task = RecordingSinkTask()
    context = {"errors.deadletterqueue.context.headers.enable": "true"}
    loop, control = sink_loop(log, task, **TOLERATE_ALL, **context)
    with running(loop, control):
        headers = headers_of(dead_letters(log, 2)[0])
    assert (
        headers["__connect.errors.exception.class.name"] == f"{DataError.__module__}.{DataError.__qualname__}"
    )


def test_tolerance_none_fails_the_task_naming_the_records_coordinates(log: Log) -> None:
    produce(log, TOPIC, VALUES)
    task = RecordingSinkTask()
    loop, control = sink_loop(log, task)
    with running(loop, control) as handle:
        error = handle.join()
    assert isinstance(error, ToleranceExceededError)
    assert "stage VALUE_CONVERTER" in str(error) and f"{TOPIC}-0@1" in str(error)
    assert task.put_values() == []


def test_a_record_reported_through_the_errant_record_reporter_goes_to_the_dead_letter_queue(log: Log) -> None:
    def report_first(task: RecordingSinkTask, records: Sequence[SinkRecord]) -> None:
        reporter = task.context.errant_record_reporter()
        assert reporter is not None
        reporter.report(records[0], ValueError("the sink cannot store it"))

    produce(log, TOPIC, [b'"only"'])
    task = RecordingSinkTask(on_put=report_first)
    loop, control = sink_loop(log, task, **TOLERATE_ALL)
    with running(loop, control):
        assert [letter.value for letter in dead_letters(log, 1)] == [b'"only"']
        wait_until(lambda: task.put_values() == ["only"], "the put accepted")


def test_a_reported_record_fails_the_task_under_tolerance_none(log: Log) -> None:
    def report_first(task: RecordingSinkTask, records: Sequence[SinkRecord]) -> None:
        reporter = task.context.errant_record_reporter()
        assert reporter is not None
        reporter.report(records[0], ValueError("the sink cannot store it"))

    produce(log, TOPIC, [b'"only"'])
    task = RecordingSinkTask(on_put=report_first)
    loop, control = sink_loop(log, task, **{"errors.deadletterqueue.topic.name": DLQ})
    with running(loop, control) as handle:
        error = handle.join()
    assert isinstance(error, ConnectError) and isinstance(error.__cause__, ValueError)


def test_a_source_record_the_converter_rejects_goes_to_the_dead_letter_queue(log: Log) -> None:
    records = [
        SourceRecord(
            topic="out", source_partition=None, source_offset=None, value_schema=INT32_SCHEMA, value=value
        )
        for value in (0, "one", 2)
    ]
    control = LocalTaskControl()
    spec = task_spec({"topic": "out", **JSON_VALUES, **TOLERATE_ALL}, worker_props(log.url))
    loop = SourceTaskLoop(spec, control, log, ScriptedSourceTask([records]))
    with running(loop, control):
        wait_until(lambda: [r.value for r in read_topic(log, "out")] == [b"0", b"2"], "the good records")
        assert [letter.value for letter in dead_letters(log, 1)] == [b"'one'"]


def failing(times: int, error: Exception) -> tuple[list[int], Callable[[], str]]:
    calls: list[int] = []

    def operation() -> str:
        calls.append(1)
        if len(calls) <= times:
            raise error
        return "done"

    return calls, operation


def broken_record() -> FailedRecord:
    return FailedRecord(b"k", b"v", TOPIC, 0, 7, f"record {TOPIC}-0@7")


def test_retriable_errors_are_retried_with_doubling_delays_up_to_the_maximum() -> None:
    sleeps: list[float] = []
    policy = ErrorPolicy(retry_timeout_ms=-1, retry_delay_max_ms=1000)
    handler = ErrorHandler(policy, CONNECTOR, 0, sleep=sleeps.append)
    _, operation = failing(4, RetriableError("not yet"))
    assert handler.execute(Stage.VALUE_CONVERTER, operation, broken_record) == "done"
    assert sleeps == [0.3, 0.6, 1.0, 1.0]
    assert handler.total_retries == 4


def test_without_a_retry_timeout_a_retriable_error_is_not_retried() -> None:
    sleeps: list[float] = []
    handler = ErrorHandler(ErrorPolicy(tolerance_all=True), CONNECTOR, 0, sleep=sleeps.append)
    calls, operation = failing(1, RetriableError("not yet"))
    assert handler.execute(Stage.VALUE_CONVERTER, operation, broken_record) is None
    assert (len(calls), sleeps, handler.total_records_skipped) == (1, [], 1)


def test_tolerance_all_does_not_cover_errors_of_the_task_itself() -> None:
    handler = ErrorHandler(ErrorPolicy(tolerance_all=True), CONNECTOR, 0)
    _, operation = failing(1, ValueError("put failed"))
    with pytest.raises(ToleranceExceededError, match="stage TASK_PUT"):
        handler.execute(Stage.TASK_PUT, operation, broken_record)


def test_an_unknown_tolerance_is_refused_naming_the_choices() -> None:
    with pytest.raises(ConnectError, match=r"Invalid value some for configuration errors\.tolerance"):
        ErrorPolicy.from_connector_config({"errors.tolerance": "some"})

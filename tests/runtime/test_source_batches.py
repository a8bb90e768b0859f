"""A `SourceRecordBatch` polled by a source task: with no transformation its columns go to the log
without a record each, and what lands in the log, the offsets and the counts are those of its records."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conveyor.data import INT32_SCHEMA, STRING_SCHEMA, SourceRecord, SourceRecordBatch
from conveyor.log import Log
from conveyor.pipeline.record_pipeline import OutgoingBatch
from conveyor.runtime.control import LocalTaskControl
from conveyor.runtime.source_task import SourceTaskLoop
from log_backends import BACKENDS, fresh_log_url

from .support import committed_source_offsets, read_topic, running, task_spec, wait_until, worker_props
from .tasks import ScriptedSourceTask
from .test_pipeline import JSON_BOTH, JSON_VALUES, PERSON, encoded_person, pipeline

ROUTE = {
    "transforms": "route",
    "transforms.route.type": "org.apache.kafka.connect.transforms.RegexRouter",
    "transforms.route.regex": "(.*)",
    "transforms.route.replacement": "$1-routed",
}


class UnbuiltBatch(SourceRecordBatch):
    """A batch that fails any use of its records: it passes only through a path that builds none."""

    __slots__ = ()

    def records(self) -> list[SourceRecord]:
        raise AssertionError("the batch's records were built")


def lines(count: int, *, start: int = 0, file: str = "input", **fields: Any) -> SourceRecordBatch:
    numbers = range(start, start + count)
    return SourceRecordBatch(
        "lines",
        [f"{file}-{n}" for n in numbers],
        [{"position": n + 1} for n in numbers],
        source_partition={"file": file},
        **fields,
    )


def sent(batches: list[OutgoingBatch]) -> list[tuple[Any, ...]]:
    return [(b.topic, b.partition, b.keys, b.values, b.headers, b.timestamps) for b in batches]


def test_a_batch_without_transformations_is_converted_without_building_its_records() -> None:
    batch = UnbuiltBatch(
        "lines", ["a", "b"], [{"n": 1}, {"n": 2}], keys=["k", "l"], value_schema=STRING_SCHEMA
    )
    assert sent(pipeline().to_log(batch)) == [("lines", None, [b"k", b"l"], [b"a", b"b"], None, None)]


def test_a_batch_sends_the_columns_its_records_would() -> None:
    batch = lines(3, keys=["x", None, "z"], kafka_partition=2, timestamp=7, value_schema=STRING_SCHEMA)
    assert sent(pipeline().to_log(batch)) == sent(pipeline().to_log(list(batch)))


def test_a_batch_whose_records_the_task_changed_sends_the_changed_records() -> None:
    batch = lines(2, value_schema=STRING_SCHEMA)
    batch[1].value = "changed"
    batch[1].kafka_partition = 3
    assert sent(pipeline().to_log(batch)) == [
        ("lines", None, None, [b"input-0"], None, None),
        ("lines", 3, None, [b"changed"], None, None),
    ]


def test_a_batch_with_a_transformation_goes_record_by_record() -> None:
    routed = pipeline(**ROUTE).to_log(lines(2))
    assert sent(routed) == [("lines-routed", None, None, [b"input-0", b"input-1"], None, None)]


def test_a_record_of_a_batch_the_converter_rejects_is_dropped_alone_when_tolerated() -> None:
    batch = SourceRecordBatch("t", [0, "one", 2], [None] * 3, value_schema=INT32_SCHEMA)
    tolerant = pipeline(tolerate=True, **JSON_VALUES)
    assert tolerant.to_log(batch)[0].values == [b"0", b"2"]
    assert tolerant.errors.total_records_skipped == 1


def test_encoded_json_in_a_batch_is_written_as_it_is_by_default_json_converters() -> None:
    person, encoded = encoded_person("ada", 36)
    batch = SourceRecordBatch("t", [encoded, person], [None, None], value_schema=PERSON)
    assert pipeline(**JSON_BOTH).to_log(batch)[0].values == [encoded.data, encoded.data]


def test_encoded_json_in_a_batch_is_read_back_for_other_converters() -> None:
    person, encoded = encoded_person("bob", 7)
    batch = SourceRecordBatch("t", [encoded], [None], value_schema=PERSON)
    expected = pipeline().to_log([SourceRecord("t", value_schema=PERSON, value=person)])[0].values
    assert pipeline().to_log(batch)[0].values == expected


texts = st.lists(st.one_of(st.none(), st.text()), max_size=12)


@given(texts, st.booleans())
def test_any_column_of_strings_reaches_the_log_as_its_records_would(
    values: list[str | None], keyed: bool
) -> None:
    keys = list(reversed(values)) if keyed else None
    batch = SourceRecordBatch("t", values, [{"n": n} for n in range(len(values))], keys=keys)
    records = [
        SourceRecord("t", key=key, value=value)
        for key, value in zip(keys or [None] * len(values), values, strict=True)
    ]
    assert sent(pipeline().to_log(batch)) == sent(pipeline().to_log(records))


@pytest.fixture(params=BACKENDS)
def log_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Batches go to each backend: both carry the records, offsets and transactions."""
    return fresh_log_url(request, request.param, tmp_path)


EOS = {"exactly.once.source.support": "enabled"}


def source_loop(
    log: Log, task: ScriptedSourceTask, config: dict[str, str] | None = None, **worker: str
) -> tuple[SourceTaskLoop, LocalTaskControl]:
    control = LocalTaskControl()
    spec = task_spec({"topic": "lines", **(config or {})}, worker_props(log.url, **worker))
    return SourceTaskLoop(spec, control, log, task), control


def landed(log: Log, topic: str) -> list[tuple[bytes | None, bytes | None, list[Any]]]:
    return [(r.key, r.value, list(r.headers)) for r in read_topic(log, topic)]


def test_a_batch_lands_in_the_log_as_its_records_do(log: Log) -> None:
    batch = SourceRecordBatch(
        "as-batch", ["a", None, "c"], [{"position": n} for n in (1, 2, 3)], keys=["k", "l", None]
    )
    as_records = [record.new_record(topic="as-records") for record in batch]
    task = ScriptedSourceTask([as_records, batch])
    loop, control = source_loop(log, task, config={"transaction.boundary": "poll"}, **EOS)
    with running(loop, control) as handle:
        wait_until(lambda: handle.metric("source-record-write-total") == 6, "both batches sent")
        wait_until(lambda: len(landed(log, "as-batch")) == 3, "the batch committed")
        assert landed(log, "as-batch") == landed(log, "as-records")


@pytest.mark.parametrize("exactly_once", [False, True], ids=["at-least-once", "exactly-once"])
def test_a_batch_commits_its_last_offset(log: Log, exactly_once: bool) -> None:
    task = ScriptedSourceTask([lines(3), lines(2, start=3)])
    loop, control = source_loop(log, task, **(EOS if exactly_once else {}))
    with running(loop, control) as handle:
        wait_until(lambda: task.batches_returned == 2, "both batches polled")
        handle.stop()
    assert committed_source_offsets(log) == {"input": {"position": 5}}
    assert [r.value for r in read_topic(log, "lines")] == [f"input-{n}".encode() for n in range(5)]


def test_a_batch_without_a_source_partition_commits_no_offset(log: Log) -> None:
    unpartitioned = SourceRecordBatch("lines", ["a", "b"], [{"position": 1}, {"position": 2}])
    task = ScriptedSourceTask([unpartitioned, lines(1)])
    loop, control = source_loop(log, task, **EOS)
    with running(loop, control) as handle:
        wait_until(lambda: task.batches_returned == 2, "both batches polled")
        handle.stop()
    assert committed_source_offsets(log) == {"input": {"position": 1}}
    assert [r.value for r in read_topic(log, "lines")] == [b"a", b"b", b"input-0"]


def test_a_batch_counts_its_records_as_polled_and_written(log: Log) -> None:
    task = ScriptedSourceTask([lines(4)])
    loop, control = source_loop(log, task)
    with running(loop, control) as handle:
        wait_until(lambda: handle.metric("source-record-write-total") == 4, "the batch sent")
        assert handle.metric("source-record-poll-total") == 4


def test_the_task_is_told_of_each_record_of_a_committed_batch(log: Log) -> None:
    batch = lines(3)
    task = ScriptedSourceTask([batch])
    loop, control = source_loop(log, task)
    with running(loop, control) as handle:
        wait_until(lambda: task.batches_returned == 1, "the batch polled")
        handle.stop()
    assert task.committed_records == list(batch)


def test_connector_boundary_commits_after_the_record_of_a_batch_the_task_names(log: Log) -> None:
    def commit_after_second(task: ScriptedSourceTask, index: int, batch: Any) -> None:
        context = task.context.transaction_context()
        assert context is not None
        context.commit_transaction(batch[1])

    task = ScriptedSourceTask([lines(4)], on_poll=commit_after_second)
    loop, control = source_loop(log, task, config={"transaction.boundary": "connector"}, **EOS)
    with running(loop, control) as handle:
        wait_until(lambda: handle.metric("source-record-write-total") == 4, "the four records sent")
        assert [r.value for r in read_topic(log, "lines")] == [b"input-0", b"input-1"]
        assert committed_source_offsets(log) == {"input": {"position": 2}}

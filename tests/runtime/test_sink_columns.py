"""A `ColumnSinkTask` takes consumed batches converted, as columns, when no transform needs records.

With no transforms, the sink loop converts each consumed batch a column at a time and hands it to
`put_columns`; with transforms, or when some record of a batch fails to convert (so that the error
handling deals with that record alone), the records go to `put`, as for any sink task. Records a
`put_columns` asks to have again (a `RetriableError`) come back to `put` as records.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence

from conveyor.api import ColumnSinkTask, RetriableError
from conveyor.data import OPTIONAL_STRING_SCHEMA, SinkColumns, SinkRecord
from conveyor.log import Log
from conveyor.log import TopicPartition as LogPartition
from conveyor.runtime.control import LocalTaskControl
from conveyor.runtime.sink_task import SinkTaskLoop
from conveyor.settings.names import consumer_group

from .support import (
    CONNECTOR,
    JSON_CONVERTER,
    committed_group_offsets,
    running,
    task_spec,
    wait_until,
    worker_props,
)

TOPIC = "in"


class ColumnsTask(ColumnSinkTask):
    """Keeps what reaches it, by which call; the first `retriable_batches` put_columns fail retriably."""

    def __init__(self, retriable_batches: int = 0) -> None:
        self.lock = threading.Lock()
        self.batches: list[SinkColumns] = []
        self.records: list[SinkRecord] = []
        self.retriable_batches = retriable_batches

    def version(self) -> str:
        return "1"

    def start(self, props: Mapping[str, str]) -> None:
        pass

    def put(self, records: Sequence[SinkRecord]) -> None:
        with self.lock:
            self.records.extend(records)

    def put_columns(self, batch: SinkColumns) -> None:
        with self.lock:
            if self.retriable_batches:
                self.retriable_batches -= 1
                raise RetriableError("not now")
            self.batches.append(batch)

    def stop(self) -> None:
        pass

    def column_values(self) -> list[object]:
        with self.lock:
            return [value for batch in self.batches for value in batch.values]

    def record_values(self) -> list[object]:
        with self.lock:
            return [record.value for record in self.records]


def produce_with_headers(log: Log, values: list[bytes]) -> None:
    log.admin().create_topic(TOPIC, partitions=1)
    with log.producer() as producer:
        producer.send_batch(TOPIC, values, partition=0, headers=[[("origin", b"A")] for _ in values])


def sink_loop(log: Log, task: ColumnsTask, **config: str) -> tuple[SinkTaskLoop, LocalTaskControl]:
    control = LocalTaskControl()
    worker = worker_props(log.url, **{"offset.flush.interval.ms": "100"})
    return SinkTaskLoop(
        task_spec({"topics": TOPIC, **config}, worker, kind="sink"), control, log, task
    ), control


def test_with_no_transforms_put_columns_gets_the_converted_columns(log: Log) -> None:
    produce_with_headers(log, [b"a", b"b", b"c"])
    task = ColumnsTask()
    loop, control = sink_loop(log, task)
    with running(loop, control):
        wait_until(lambda: task.column_values() == ["a", "b", "c"], "the three values in put_columns")
    [batch] = task.batches
    assert (batch.topic, batch.partition, list(batch.offsets), batch.next_offset) == (TOPIC, 0, [0, 1, 2], 3)
    assert list(batch.value_schemas) == [OPTIONAL_STRING_SCHEMA] * 3
    assert batch.headers is not None
    assert [[(h.key, h.value) for h in headers or []] for headers in batch.headers] == [[("origin", "A")]] * 3
    assert task.records == []


def test_the_offsets_after_a_put_columns_are_committed(log: Log) -> None:
    produce_with_headers(log, [b"a", b"b", b"c"])
    task = ColumnsTask()
    loop, control = sink_loop(log, task)
    with running(loop, control):
        wait_until(
            lambda: committed_group_offsets(log, consumer_group(CONNECTOR)) == {LogPartition(TOPIC, 0): 3},
            "offset 3 committed",
        )


def test_with_a_transform_every_record_goes_to_put(log: Log) -> None:
    produce_with_headers(log, [b"a", b"b", b"c"])
    task = ColumnsTask()
    loop, control = sink_loop(
        log,
        task,
        transforms="route",
        **{
            "transforms.route.type": "org.apache.kafka.connect.transforms.RegexRouter",
            "transforms.route.regex": "in",
            "transforms.route.replacement": "out",
        },
    )
    with running(loop, control):
        wait_until(lambda: task.record_values() == ["a", "b", "c"], "the three records in put")
    assert {record.topic for record in task.records} == {"out"}
    assert task.batches == []


def test_a_batch_with_a_record_that_fails_to_convert_goes_to_put_without_that_record(log: Log) -> None:
    produce_with_headers(log, [b"0", b"not json", b"2"])
    task = ColumnsTask()
    loop, control = sink_loop(
        log,
        task,
        **{
            "value.converter": JSON_CONVERTER,
            "value.converter.schemas.enable": "false",
            "errors.tolerance": "all",
        },
    )
    with running(loop, control):
        wait_until(lambda: task.record_values() == [0, 2], "the two convertible records in put")
    assert [record.kafka_offset for record in task.records] == [0, 2]
    assert loop.errors.total_records_skipped == 1
    assert task.batches == []


def test_records_a_put_columns_asks_again_for_come_back_to_put(log: Log) -> None:
    produce_with_headers(log, [b"a", b"b", b"c"])
    task = ColumnsTask(retriable_batches=1)
    loop, control = sink_loop(log, task)
    with running(loop, control):
        wait_until(lambda: task.record_values() == ["a", "b", "c"], "the batch redelivered to put")
    assert [(r.kafka_partition, r.kafka_offset) for r in task.records] == [(0, 0), (0, 1), (0, 2)]
    assert [[(h.key, h.value) for h in r.headers] for r in task.records] == [[("origin", "A")]] * 3

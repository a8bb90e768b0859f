"""A `BatchSinkTask` takes consumed batches as columns when nothing would change their bytes.

With no transforms and ByteArrayConverters for keys, values and headers, the sink loop hands each
consumed batch to `put_batch`; otherwise every record goes through the pipeline to `put`, as for any sink
task. Records a `put_batch` asks to have again (a `RetriableError`) come back to `put` as records.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence

from conveyor.api import BatchSinkTask, ConsumedBatch, RetriableError
from conveyor.data import SinkRecord
from conveyor.log import Log
from conveyor.log import TopicPartition as LogPartition
from conveyor.runtime.control import LocalTaskControl
from conveyor.runtime.sink_task import SinkTaskLoop
from conveyor.settings.names import consumer_group

from .support import CONNECTOR, committed_group_offsets, running, task_spec, wait_until, worker_props

TOPIC = "in"
BYTE_ARRAY = "org.apache.kafka.connect.converters.ByteArrayConverter"
BYTE_CONVERTERS = {"key.converter": BYTE_ARRAY, "value.converter": BYTE_ARRAY, "header.converter": BYTE_ARRAY}


class ColumnsTask(BatchSinkTask):
    """Records what reaches it, by which call; `retriable_batches` put_batch calls fail retriably first."""

    def __init__(self, retriable_batches: int = 0) -> None:
        self.lock = threading.Lock()
        self.batches: list[
            tuple[str, int, list[int], list[bytes | None], list[list[tuple[str, bytes | None]]]]
        ] = []
        self.records: list[SinkRecord] = []
        self.retriable_batches = retriable_batches

    def version(self) -> str:
        return "1"

    def start(self, props: Mapping[str, str]) -> None:
        pass

    def put(self, records: Sequence[SinkRecord]) -> None:
        with self.lock:
            self.records.extend(records)

    def put_batch(self, batch: ConsumedBatch) -> None:
        with self.lock:
            if self.retriable_batches:
                self.retriable_batches -= 1
                raise RetriableError("not now")
            self.batches.append(
                (batch.topic, batch.partition, list(batch.offsets), list(batch.values), list(batch.headers))
            )

    def stop(self) -> None:
        pass

    def batch_values(self) -> list[bytes | None]:
        with self.lock:
            return [value for batch in self.batches for value in batch[3]]

    def record_values(self) -> list[object]:
        with self.lock:
            return [record.value for record in self.records]


def produce_with_headers(log: Log, values: list[bytes]) -> None:
    log.admin().create_topic(TOPIC, partitions=1)
    with log.producer() as producer:
        producer.send_batch(TOPIC, values, partition=0, headers=[[("origin", b"A")] for _ in values])


def sink_loop(log: Log, task: ColumnsTask, **config: str) -> tuple[SinkTaskLoop, LocalTaskControl]:
    control = LocalTaskControl()
    props = {"topics": TOPIC, **BYTE_CONVERTERS, **config}
    worker = worker_props(log.url, **{"offset.flush.interval.ms": "100"})
    return SinkTaskLoop(task_spec(props, worker, kind="sink"), control, log, task), control


def test_with_byte_array_converters_and_no_transforms_put_batch_gets_the_consumed_columns(log: Log) -> None:
    produce_with_headers(log, [b"a", b"b", b"c"])
    task = ColumnsTask()
    loop, control = sink_loop(log, task)
    with running(loop, control):
        wait_until(lambda: task.batch_values() == [b"a", b"b", b"c"], "the three records in put_batch")
    assert [(topic, partition, offsets) for topic, partition, offsets, _, _ in task.batches] == [
        (TOPIC, 0, [0, 1, 2])
    ]
    assert task.batches[0][4] == [[("origin", b"A")]] * 3
    assert task.records == []


def test_the_offsets_after_a_put_batch_are_committed(log: Log) -> None:
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
        wait_until(lambda: task.record_values() == [b"a", b"b", b"c"], "the three records in put")
    assert {record.topic for record in task.records} == {"out"}
    assert task.batches == []


def test_with_a_converter_other_than_byte_array_every_record_goes_to_put(log: Log) -> None:
    produce_with_headers(log, [b"a", b"b", b"c"])
    task = ColumnsTask()
    loop, control = sink_loop(
        log, task, **{"value.converter": "org.apache.kafka.connect.storage.StringConverter"}
    )
    with running(loop, control):
        wait_until(lambda: task.record_values() == ["a", "b", "c"], "the three records in put, as strings")
    assert task.batches == []


def test_records_a_put_batch_asks_again_for_come_back_to_put(log: Log) -> None:
    produce_with_headers(log, [b"a", b"b", b"c"])
    task = ColumnsTask(retriable_batches=1)
    loop, control = sink_loop(log, task)
    with running(loop, control):
        wait_until(lambda: task.record_values() == [b"a", b"b", b"c"], "the batch redelivered to put")
    assert [(r.kafka_partition, r.kafka_offset) for r in task.records] == [(0, 0), (0, 1), (0, 2)]

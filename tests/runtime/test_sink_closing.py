"""KAFKA-6725 end to end: a buffering sink that writes its partial file when `is_closing()` keeps its
progress through a rebalance, so nothing is consumed twice; one that ignores it reads records again.

The sink writes a file per 10 records in `pre_commit` and commits the offsets it wrote. Tasks of one
connector are members of one consumer group: a task joining, or a task failing and leaving, makes the
group take partitions away from the others. Both backends run it: the embedded log's groups and Kafka's
(librdkafka's eager range assignment) revoke partitions alike.
"""

from __future__ import annotations

import dataclasses
from contextlib import ExitStack
from pathlib import Path

import pytest

from conveyor.api import TopicPartition as ApiPartition
from conveyor.data import ConnectError
from conveyor.log import Log
from conveyor.runtime.control import LocalTaskControl, TargetState
from conveyor.runtime.sink_task import SinkTaskLoop
from conveyor.runtime.task_spec import TaskId
from conveyor.settings.names import consumer_group
from log_backends import BACKENDS, fresh_log_url

from .support import CONNECTOR, RunningLoop, committed_group_offsets, task_spec, wait_until, worker_props
from .tasks import BufferingFileSink, FileStore


@pytest.fixture(params=BACKENDS)
def log_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Both backends' consumer groups take partitions from a task when another joins or leaves."""
    return fresh_log_url(request, request.param, tmp_path)


TOPIC = "archive"
PARTITIONS = 2
RECORDS_PER_FILE = 10


def produce(log: Log, values_per_partition: int, start: int = 0) -> None:
    """Append `values_per_partition` records to each partition, valued `p<partition>-<index>`."""
    admin = log.admin()
    if TOPIC not in admin.list_topics():
        admin.create_topic(TOPIC, partitions=PARTITIONS)
    with log.producer() as producer:
        for partition in range(PARTITIONS):
            for index in range(start, start + values_per_partition):
                producer.send(TOPIC, f"p{partition}-{index}".encode(), partition=partition)
        producer.flush()


def produce_value(log: Log, value: str, partition: int) -> None:
    with log.producer() as producer:
        producer.send(TOPIC, value.encode(), partition=partition)
        producer.flush()


def committed(log: Log) -> dict[int, int]:
    offsets = committed_group_offsets(log, consumer_group(CONNECTOR))
    return {tp.partition: offset for tp, offset in offsets.items() if tp.topic == TOPIC}


def all_consumed(store: FileStore, ends: dict[int, int]) -> bool:
    with store.lock:
        seen = set(store.consumed)
    return all((ApiPartition(TOPIC, p), offset) in seen for p, end in ends.items() for offset in range(end))


def start_task(
    log: Log, stack: ExitStack, index: int, store: FileStore, respect_closing: bool
) -> RunningLoop:
    """Run task `index` of the connector until the block ends (a failure is left to the test)."""
    spec = task_spec({"topics": TOPIC}, worker_props(log.url, **{"offset.flush.interval.ms": "100"}), "sink")
    spec = dataclasses.replace(spec, id=TaskId(CONNECTOR, index))
    control = LocalTaskControl()
    task = BufferingFileSink(store, RECORDS_PER_FILE, respect_closing=respect_closing)
    handle = RunningLoop(SinkTaskLoop(spec, control, log, task), control)
    stack.callback(handle.join)
    stack.callback(handle.set_target, TargetState.STOPPED)
    return handle


def a_task_joins(log: Log, respect_closing: bool) -> FileStore:
    """25 records per partition read by one task (two files written each), then a second task joins;
    3 more per partition (too few to fill a file) are read after the rebalance, then both stop."""
    store = FileStore()
    produce(log, 25)
    with ExitStack() as stack:
        tasks = [start_task(log, stack, 0, store, respect_closing)]
        wait_until(lambda: all_consumed(store, {0: 25, 1: 25}), "the first task reading every record")
        wait_until(lambda: committed(log) == {0: 20, 1: 20}, "the two full files committed")
        tasks.append(start_task(log, stack, 1, store, respect_closing))
        wait_until(lambda: all(t.metric("partition-count") == 1 for t in tasks), "a partition each")
        produce(log, 3, start=25)
        wait_until(lambda: all_consumed(store, {0: 28, 1: 28}), "the records after the rebalance read")
    return store


def a_task_fails(log: Log, respect_closing: bool) -> tuple[FileStore, BaseException | None]:
    """Two tasks share the partitions; the owner of partition 0 fails on a record its object store
    times out on and leaves the group; the survivor takes both partitions over."""
    store = FileStore(fail_on_value="timeout")
    produce(log, 0)
    with ExitStack() as stack:
        tasks = [start_task(log, stack, index, store, respect_closing) for index in (0, 1)]
        wait_until(lambda: all(t.metric("partition-count") == 1 for t in tasks), "a partition each")
        produce(log, 25)
        wait_until(lambda: all_consumed(store, {0: 25, 1: 25}), "every record read")
        wait_until(lambda: committed(log) == {0: 20, 1: 20}, "the two full files committed")
        produce_value(log, "timeout", partition=0)
        failed = wait_until(lambda: [t for t in tasks if t.error is not None], "a task failing")[0]
        survivor = next(t for t in tasks if t is not failed)
        wait_until(lambda: survivor.metric("partition-count") == 2, "the survivor taking both partitions")
        produce(log, 3, start=26)
        wait_until(lambda: all_consumed(store, {0: 29, 1: 28}), "the survivor reading on")
    return store, failed.error


def test_a_sink_that_writes_its_partial_file_when_closing_consumes_nothing_twice_when_a_task_joins(
    log: Log,
) -> None:
    store = a_task_joins(log, respect_closing=True)
    assert store.duplicates() == 0
    expected = sorted((ApiPartition(TOPIC, p), o) for p in range(PARTITIONS) for o in range(28))
    assert store.written() == expected


def test_a_sink_that_ignores_is_closing_consumes_records_again_when_a_task_joins(log: Log) -> None:
    store = a_task_joins(log, respect_closing=False)
    assert store.duplicates() > 0


def test_a_sink_that_writes_its_partial_file_when_closing_consumes_nothing_twice_when_a_task_fails(
    log: Log,
) -> None:
    store, error = a_task_fails(log, respect_closing=True)
    assert isinstance(error, ConnectError)
    assert store.duplicates() == 0
    assert committed(log)[0] >= 25


def test_a_sink_that_ignores_is_closing_consumes_records_again_when_a_task_fails(log: Log) -> None:
    store, error = a_task_fails(log, respect_closing=False)
    assert isinstance(error, ConnectError)
    assert store.duplicates() > 0

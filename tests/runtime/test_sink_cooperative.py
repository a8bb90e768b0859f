"""Sink tasks whose consumer uses `CooperativeStickyAssignor` (KIP-429): a rebalance closes only the
partitions that move, through a closing `pre_commit` of those alone, and opens only the new ones; the
partitions a task keeps stay open, with their buffers, and are never committed as closing."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from conveyor.api import RetriableError
from conveyor.api import TopicPartition as ApiPartition
from conveyor.data import ConnectError, SinkRecord
from conveyor.log import Log
from conveyor.log.assignment_strategy import COOPERATIVE_STICKY_ASSIGNOR
from conveyor.runtime.control import LocalTaskControl
from conveyor.runtime.sink_task import SinkTaskLoop

from .support import produce, running, task_spec, wait_until, worker_props
from .tasks import RecordingSinkTask

TOPIC = "in"
PARTITIONS = 4
COOPERATIVE = {"consumer.override.partition.assignment.strategy": COOPERATIVE_STICKY_ASSIGNOR}
EVERY_PARTITION = {ApiPartition(TOPIC, p) for p in range(PARTITIONS)}


def sink_loop(log: Log, task: RecordingSinkTask) -> tuple[SinkTaskLoop, LocalTaskControl]:
    control = LocalTaskControl()
    spec = task_spec({"topics": TOPIC, **COOPERATIVE}, worker_props(log.url), kind="sink")
    return SinkTaskLoop(spec, control, log, task), control


def opened(task: RecordingSinkTask) -> set[ApiPartition]:
    return {p for event in task.of("open") for p in event.offsets}


def closed(task: RecordingSinkTask) -> set[ApiPartition]:
    return {p for event in task.of("close") for p in event.offsets}


def held(task: RecordingSinkTask) -> set[ApiPartition]:
    """What the task holds now, by its `open` and `close` calls."""
    partitions: set[ApiPartition] = set()
    for event in task.events:
        if event.name == "open":
            partitions |= set(event.offsets)
        elif event.name == "close":
            partitions -= set(event.offsets)
    return partitions


def test_a_joining_task_makes_the_first_close_only_the_partitions_that_move(log: Log) -> None:
    produce(log, TOPIC, [f"v{n}".encode() for n in range(8)], partitions=PARTITIONS)  # all in partition 0
    first, second = RecordingSinkTask(), RecordingSinkTask()
    loop, control = sink_loop(log, first)
    with running(loop, control):
        wait_until(lambda: len(first.put_values()) == 8, "the first task's puts")
        joining, joining_control = sink_loop(log, second)
        with running(joining, joining_control):
            wait_until(lambda: len(held(second)) == 2, "the second task opening two partitions")
            moved = held(second)
            wait_until(lambda: closed(first) == moved, "the first task closing the moved partitions")
            closing = [event for event in first.events if event.closing]
            assert [event.name for event in closing] == ["pre_commit"]
            assert set(closing[0].offsets) == moved
            assert first.events[first.events.index(closing[0]) + 1].name == "close"
            assert [set(event.offsets) for event in first.of("open")] == [EVERY_PARTITION]
            assert held(first) == EVERY_PARTITION - moved
            assert not any(event.closing for event in second.events)


def test_a_failing_task_makes_the_survivor_open_its_partitions_and_close_none_of_its_own(log: Log) -> None:
    failures: list[RecordingSinkTask] = []

    def fail_once_on_boom(task: RecordingSinkTask, records: Sequence[SinkRecord]) -> None:
        if "boom" in [record.value for record in records] and not failures:
            failures.append(task)
            raise ConnectError("the object store timed out")

    log.admin().create_topic(TOPIC, partitions=PARTITIONS)
    tasks = [RecordingSinkTask(on_put=fail_once_on_boom) for _ in range(2)]
    loops = [sink_loop(log, task) for task in tasks]
    with running(*loops[0]) as first, running(*loops[1]) as second:
        wait_until(lambda: all(len(held(task)) == 2 for task in tasks), "two partitions each")
        doomed = next(task for task in tasks if ApiPartition(TOPIC, 0) in held(task))
        survivor = next(task for task in tasks if task is not doomed)
        kept, split_at = held(survivor), len(survivor.events)
        produce(log, TOPIC, [b"boom"])
        wait_until(lambda: (first.error or second.error) is not None, "the task failing")
        wait_until(lambda: held(survivor) == EVERY_PARTITION, "the survivor taking every partition")
        assert failures == [doomed]
        since_failure = survivor.events[split_at:]
        assert [event.name for event in since_failure if event.name in ("open", "close")] == ["open"]
        assert not any(event.closing for event in since_failure)
        assert [set(event.offsets) for event in since_failure if event.name == "open"] == [
            EVERY_PARTITION - kept
        ]


def test_a_task_retrying_a_put_rebalances_and_keeps_the_records_of_the_partitions_it_keeps(log: Log) -> None:
    log.admin().create_topic(TOPIC, partitions=PARTITIONS)
    with log.producer() as producer:
        for partition in range(PARTITIONS):
            producer.send_batch(TOPIC, [f"p{partition}".encode()], partition=partition)
    sink_ready = threading.Event()

    def retriable_until_ready(task: RecordingSinkTask, records: Sequence[SinkRecord]) -> None:
        if not sink_ready.is_set():
            raise RetriableError("the sink is not ready yet")

    first, second = RecordingSinkTask(on_put=retriable_until_ready), RecordingSinkTask()
    loop, control = sink_loop(log, first)
    with running(loop, control):
        wait_until(lambda: len(held(first)) == PARTITIONS, "the first task opening every partition")
        # The first task keeps retrying its put while the group rebalances around it.
        joining, joining_control = sink_loop(log, second)
        with running(joining, joining_control):
            wait_until(lambda: len(held(second)) == 2, "the second task opening two partitions")
            moved = held(second)
            wait_until(lambda: closed(first) == moved, "the first task closing them")
            assert first.put_values() == []
            sink_ready.set()
            every_value = sorted(f"p{partition}" for partition in range(PARTITIONS))
            wait_until(
                lambda: sorted(first.put_values() + second.put_values()) == every_value, "every record put"
            )
    assert sorted(first.put_values()) == sorted(f"p{p.partition}" for p in EVERY_PARTITION - moved)

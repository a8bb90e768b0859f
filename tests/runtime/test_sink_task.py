"""The sink task loop: `put`, then `pre_commit`, then the consumer group's committed offsets.

As Kafka's `WorkerSinkTask`: offsets are committed for what `pre_commit` returns (capped at what was
consumed), a `RetriableError` from `put` redelivers the same batch, and a stop ends with a closing
`pre_commit` and `close` of the task's partitions.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from conveyor.api import TopicPartition as ApiPartition
from conveyor.data import ConnectError, SinkRecord
from conveyor.log import Log
from conveyor.log import TopicPartition as LogPartition
from conveyor.log.errors import IllegalStateError
from conveyor.runtime.control import LocalTaskControl, TargetState
from conveyor.runtime.sink_task import SinkTaskLoop
from conveyor.settings.names import consumer_group
from log_backends import BACKENDS, fresh_log_url

from .support import (
    CONNECTOR,
    NEVER_MS,
    committed_group_offsets,
    produce,
    running,
    task_spec,
    wait_until,
    worker_props,
)
from .tasks import RecordingSinkTask


@pytest.fixture(params=BACKENDS)
def log_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The sink loop runs on each backend: both carry its records, offsets and transactions."""
    return fresh_log_url(request, request.param, tmp_path)


TOPIC = "in"
PARTITION = ApiPartition(TOPIC, 0)
GROUP = consumer_group(CONNECTOR)
EVICTED_AT_EACH_HEARTBEAT = {
    "consumer.override.session.timeout.ms": "100",
    "consumer.override.heartbeat.interval.ms": "300",
}
"""Heartbeats further apart than the session: the group takes the task's partitions away at each heartbeat
and gives them back."""


def sink_loop(
    log: Log, task: RecordingSinkTask, *, config: Mapping[str, str] | None = None, **worker: str
) -> tuple[SinkTaskLoop, LocalTaskControl]:
    control = LocalTaskControl()
    spec = task_spec({"topics": TOPIC, **(config or {})}, worker_props(log.url, **worker), kind="sink")
    return SinkTaskLoop(spec, control, log, task), control


def committed(log: Log) -> int | None:
    return committed_group_offsets(log, GROUP).get(LogPartition(TOPIC, 0))


def test_put_receives_the_topics_records_in_order(log: Log) -> None:
    produce(log, TOPIC, [b"a", b"b", b"c"])
    task = RecordingSinkTask()
    loop, control = sink_loop(log, task)
    with running(loop, control):
        wait_until(lambda: task.put_values() == ["a", "b", "c"], "the three records put")


def test_offsets_are_committed_after_put_and_pre_commit(log: Log) -> None:
    produce(log, TOPIC, [b"a", b"b", b"c"])
    task = RecordingSinkTask(observe=lambda: committed(log))
    loop, control = sink_loop(log, task, **{"offset.flush.interval.ms": "100"})
    with running(loop, control):
        wait_until(lambda: committed(log) == 3, "offset 3 committed")
    names = [event.name for event in task.events]
    first_pre_commit = next(e for e in task.of("pre_commit") if e.offsets == {PARTITION: 3})
    assert names.index("put") < task.events.index(first_pre_commit)
    assert first_pre_commit.observed is None


def test_the_committed_offsets_are_those_pre_commit_returns(log: Log) -> None:
    produce(log, TOPIC, [b"a", b"b", b"c"])
    task = RecordingSinkTask(commit_at=lambda offsets: {partition: 1 for partition in offsets})
    loop, control = sink_loop(log, task, **{"offset.flush.interval.ms": "100"})
    with running(loop, control):
        wait_until(
            lambda: any(e.offsets == {PARTITION: 3} for e in task.of("pre_commit")), "a pre_commit at 3"
        )
        wait_until(lambda: committed(log) == 1, "offset 1 committed")


def test_offsets_beyond_what_was_consumed_are_not_committed(log: Log) -> None:
    produce(log, TOPIC, [b"a", b"b", b"c"])
    task = RecordingSinkTask(commit_at=lambda offsets: {partition: 100 for partition in offsets})
    loop, control = sink_loop(log, task, **{"offset.flush.interval.ms": "100"})
    with running(loop, control) as handle:
        wait_until(lambda: len(task.of("pre_commit")) >= 2, "two pre_commits")
        wait_until(lambda: (handle.metric("offset-commit-skip-total") or 0) >= 1, "a skipped commit reported")
        assert committed(log) is None


def test_a_retriable_error_from_put_redelivers_the_same_batch(log: Log) -> None:
    produce(log, TOPIC, [b"a", b"b", b"c"])
    task = RecordingSinkTask(retriable_puts=2)
    loop, control = sink_loop(log, task)
    with running(loop, control):
        wait_until(lambda: task.put_values() == ["a", "b", "c"], "the batch put")
    attempts = [event.values for event in task.events if event.name in ("retriable-put", "put")]
    assert attempts == [["a", "b", "c"]] * 3


def test_a_retriable_error_redelivers_every_record_the_poll_brought_from_every_partition(log: Log) -> None:
    log.admin().create_topic(TOPIC, partitions=2)
    with log.producer() as producer:
        producer.send_batch(TOPIC, [b"a0", b"b0"], partition=0)
        producer.send_batch(TOPIC, [b"a1", b"b1"], partition=1)
    task = RecordingSinkTask(retriable_puts=2)
    loop, control = sink_loop(log, task)
    with running(loop, control):
        wait_until(lambda: sorted(task.put_values()) == ["a0", "a1", "b0", "b1"], "every record put")
    assert sorted(task.put_values()) == ["a0", "a1", "b0", "b1"]


def test_a_stop_commits_through_a_closing_pre_commit_then_closes_the_partitions(log: Log) -> None:
    produce(log, TOPIC, [b"a", b"b", b"c"])
    task = RecordingSinkTask()
    loop, control = sink_loop(log, task, **{"offset.flush.interval.ms": NEVER_MS})
    with running(loop, control) as handle:
        wait_until(lambda: len(task.put_values()) == 3, "the records put")
        assert committed(log) is None
        handle.stop()
    names = [event.name for event in task.events]
    assert names[-3:] == ["pre_commit", "close", "stop"]
    closing = task.events[-3]
    assert closing.closing and closing.offsets == {PARTITION: 3}
    assert committed(log) == 3


def test_a_failing_put_fails_the_task_without_committing(log: Log) -> None:
    produce(log, TOPIC, [b"a"])
    task = RecordingSinkTask(fail_put=ValueError("the sink broke"))
    loop, control = sink_loop(log, task, **{"offset.flush.interval.ms": "100"})
    with running(loop, control) as handle:
        error = handle.join()
    assert isinstance(error, ConnectError) and isinstance(error.__cause__, ValueError)
    assert committed(log) is None
    assert task.events[-1].name == "stop"


def test_no_records_are_put_while_paused_and_they_come_after_resume(log: Log) -> None:
    produce(log, TOPIC, [b"a"])
    task = RecordingSinkTask()
    loop, control = sink_loop(log, task)
    with running(loop, control) as handle:
        wait_until(lambda: task.put_values() == ["a"], "the first record put")
        handle.set_target(TargetState.PAUSED)
        handle.wait_for_state("PAUSED")
        produce(log, TOPIC, [b"b"])
        threading.Event().wait(0.5)
        assert task.put_values() == ["a"]
        handle.set_target(TargetState.STARTED)
        wait_until(lambda: task.put_values() == ["a", "b"], "the second record put after resuming")


def test_records_lag_reports_the_records_past_the_tasks_position(log: Log) -> None:
    produce(log, TOPIC, [b"a"])
    task = RecordingSinkTask()
    loop, control = sink_loop(log, task)
    with running(loop, control) as handle:
        wait_until(lambda: task.put_values() == ["a"], "the first record put")
        handle.set_target(TargetState.PAUSED)
        handle.wait_for_state("PAUSED")
        produce(log, TOPIC, [b"b", b"c", b"d"])
        wait_until(lambda: handle.metric("records-lag") == 3, "a lag of the 3 records produced while paused")
        handle.set_target(TargetState.STARTED)
        wait_until(lambda: handle.metric("records-lag") == 0, "no lag once they are put")


def test_request_commit_commits_before_the_flush_interval(log: Log) -> None:
    def ask_for_commit(task: RecordingSinkTask, records: Sequence[SinkRecord]) -> None:
        task.context.request_commit()

    produce(log, TOPIC, [b"a", b"b"])
    task = RecordingSinkTask(on_put=ask_for_commit)
    loop, control = sink_loop(log, task, **{"offset.flush.interval.ms": NEVER_MS})
    with running(loop, control):
        wait_until(lambda: committed(log) == 2, "offset 2 committed on request")


def test_a_commit_asked_for_within_an_interval_runs_before_the_flush_interval_though_no_record_comes(
    log: Log,
) -> None:
    def ask_for_commit_soon(task: RecordingSinkTask, records: Sequence[SinkRecord]) -> None:
        task.context.request_commit_within(50)

    produce(log, TOPIC, [b"a", b"b"])
    task = RecordingSinkTask(on_put=ask_for_commit_soon)
    loop, control = sink_loop(log, task, **{"offset.flush.interval.ms": NEVER_MS})
    with running(loop, control):
        wait_until(lambda: committed(log) == 2, "offset 2 committed within the interval asked for")


def test_a_rewind_through_the_context_redelivers_from_that_offset(log: Log) -> None:
    rewound: list[Any] = []

    def rewind_once(task: RecordingSinkTask, records: Sequence[SinkRecord]) -> None:
        if not rewound:
            rewound.append(True)
            task.context.offset({PARTITION: 1})

    produce(log, TOPIC, [b"a", b"b", b"c"])
    task = RecordingSinkTask(on_put=rewind_once)
    loop, control = sink_loop(log, task)
    with running(loop, control):
        wait_until(lambda: task.put_values() == ["a", "b", "c", "b", "c"], "the records after 1 again")


def test_no_call_reaches_the_task_after_its_stop(log: Log) -> None:
    produce(log, TOPIC, [b"a"])
    task = RecordingSinkTask()
    loop, control = sink_loop(log, task)
    with running(loop, control) as handle:
        wait_until(lambda: task.put_values() == ["a"], "the record put")
        handle.stop()
    assert task.events[-1].name == "stop"


def test_a_failure_closes_the_partitions_through_a_closing_pre_commit_of_what_was_put(log: Log) -> None:
    def fail_on_second(task: RecordingSinkTask, records: Sequence[SinkRecord]) -> None:
        if task.of("put"):
            raise ValueError("the sink broke")

    produce(log, TOPIC, [b"a"])
    task = RecordingSinkTask(on_put=fail_on_second)
    loop, control = sink_loop(log, task, **{"offset.flush.interval.ms": NEVER_MS})
    with running(loop, control) as handle:
        wait_until(lambda: task.put_values() == ["a"], "the first record put")
        produce(log, TOPIC, [b"b"])
        assert isinstance(handle.join(), ConnectError)
    names = [event.name for event in task.events]
    assert names[-3:] == ["pre_commit", "close", "stop"]
    closing = task.events[-3]
    assert closing.closing and closing.offsets == {PARTITION: 1}
    assert committed(log) == 1


def test_an_offset_given_in_start_applies_before_the_first_put(log: Log) -> None:
    produce(log, TOPIC, [b"a", b"b", b"c"])
    task = RecordingSinkTask(on_start=lambda task: task.context.offset({PARTITION: 2}))
    loop, control = sink_loop(log, task)
    with running(loop, control):
        wait_until(lambda: task.put_values() == ["c"], "the record after offset 2 put")
        produce(log, TOPIC, [b"d"])
        wait_until(lambda: task.put_values() == ["c", "d"], "the next record put")


def test_an_offset_given_in_open_applies_before_the_first_put(log: Log) -> None:
    def skip_to_1(task: RecordingSinkTask, partitions: object) -> None:
        task.context.offset({PARTITION: 1})

    produce(log, TOPIC, [b"a", b"b", b"c"])
    task = RecordingSinkTask(on_open=skip_to_1)
    loop, control = sink_loop(log, task)
    with running(loop, control):
        wait_until(lambda: task.put_values() == ["b", "c"], "the records after offset 1 put")


def test_is_closing_is_false_in_every_call_but_the_pre_commit_of_a_stop(log: Log) -> None:
    produce(log, TOPIC, [b"a", b"b", b"c"])
    task = RecordingSinkTask()
    loop, control = sink_loop(log, task, **{"offset.flush.interval.ms": "100"})
    with running(loop, control) as handle:
        wait_until(lambda: committed(log) == 3, "a periodic commit")
        handle.set_target(TargetState.PAUSED)
        handle.wait_for_state("PAUSED")
        handle.set_target(TargetState.STARTED)
        handle.wait_for_state("RUNNING")
        handle.stop()
    closing = [index for index, event in enumerate(task.events) if event.closing]
    assert closing == [len(task.events) - 3]
    assert task.events[closing[0]].name == "pre_commit"
    assert [e.name for e in task.events[-2:]] == ["close", "stop"]
    assert any(not event.closing for event in task.of("pre_commit"))


def test_is_closing_is_reset_before_close_even_when_the_closing_pre_commit_raises(log: Log) -> None:
    produce(log, TOPIC, [b"a"])

    def failing_when_closing(offsets: dict[ApiPartition, int]) -> dict[ApiPartition, int]:
        if task.context.is_closing():
            raise ConnectError("the sink could not flush")
        return offsets

    task = RecordingSinkTask(commit_at=failing_when_closing)
    loop, control = sink_loop(log, task)
    with running(loop, control) as handle:
        wait_until(lambda: task.put_values() == ["a"], "the record put")
        handle.stop()
    assert [(e.name, e.closing) for e in task.events[-3:]] == [
        ("pre_commit", True),
        ("close", False),
        ("stop", False),
    ]
    assert committed(log) is None


def test_a_pause_commits_without_closing(log: Log) -> None:
    produce(log, TOPIC, [b"a"])
    task = RecordingSinkTask()
    loop, control = sink_loop(log, task, **{"offset.flush.interval.ms": NEVER_MS})
    with running(loop, control) as handle:
        wait_until(lambda: task.put_values() == ["a"], "the record put")
        handle.set_target(TargetState.PAUSED)
        wait_until(lambda: committed(log) == 1, "offset 1 committed on the pause")
        assert [event.closing for event in task.of("pre_commit")] == [False]
        assert task.of("close") == []


def test_partitions_revoked_by_a_joining_task_are_committed_through_a_closing_pre_commit(log: Log) -> None:
    produce(log, TOPIC, [b"a", b"b"], partitions=2)
    first = RecordingSinkTask()
    second = RecordingSinkTask()
    loop, control = sink_loop(log, first)
    with running(loop, control):
        wait_until(lambda: first.put_values() == ["a", "b"], "the first task's puts")
        joining, joining_control = sink_loop(log, second)
        with running(joining, joining_control):
            wait_until(lambda: first.of("close"), "the first task closing its partitions")
            wait_until(lambda: second.of("open"), "the second task opening its partition")
            wait_until(lambda: len(first.of("open")) == 2, "the first task reopening a partition")
            closing = [event for event in first.events if event.closing]
            assert [event.name for event in closing] == ["pre_commit"]
            assert closing[0].offsets == {PARTITION: 2, ApiPartition(TOPIC, 1): 0}
            assert first.events[first.events.index(closing[0]) + 1].name == "close"
            assert committed(log) == 2
            assert not any(event.closing for event in second.events)


def test_partitions_lost_after_the_session_timed_out_are_closed_without_a_commit(log: Log) -> None:
    produce(log, TOPIC, [b"a"])
    task = RecordingSinkTask()
    loop, control = sink_loop(log, task, config=EVICTED_AT_EACH_HEARTBEAT)
    with running(loop, control):
        wait_until(lambda: task.put_values() == ["a"], "the record put")
        wait_until(lambda: len(task.of("open")) == 2, "the partition lost and assigned again")
        assert committed(log) is None
    lost_at = task.events.index(task.of("close")[0])
    assert "pre_commit" not in [event.name for event in task.events[:lost_at]]


def test_a_paused_task_reads_nothing_from_partitions_a_rebalance_gives_it_again(log: Log) -> None:
    produce(log, TOPIC, [b"a"])
    task = RecordingSinkTask()
    loop, control = sink_loop(log, task, config=EVICTED_AT_EACH_HEARTBEAT)
    with running(loop, control) as handle:
        wait_until(lambda: task.put_values() == ["a"], "the record put")
        handle.set_target(TargetState.PAUSED)
        handle.wait_for_state("PAUSED")
        produce(log, TOPIC, [b"b"])
        opened = len(task.of("open"))
        wait_until(lambda: len(task.of("open")) >= opened + 2, "the partition given back twice while paused")
        assert task.put_values() == ["a"]


def test_a_sink_without_a_dead_letter_queue_holds_no_producer(log: Log) -> None:
    loop, _ = sink_loop(log, RecordingSinkTask())
    loop.consumer.close()
    assert loop.dlq_producer is None


def test_the_dead_letter_queues_producer_is_closed_when_the_task_stops(log: Log) -> None:
    produce(log, TOPIC, [b"a"])
    task = RecordingSinkTask()
    dead_letters = {"errors.tolerance": "all", "errors.deadletterqueue.topic.name": "dead"}
    loop, control = sink_loop(log, task, config=dead_letters)
    with running(loop, control):
        wait_until(lambda: task.put_values() == ["a"], "the record put")
    assert loop.dlq_producer is not None
    with pytest.raises(IllegalStateError, match="closed"):
        loop.dlq_producer.send("dead", b"late")

"""The source task loop: records to the log, offsets committed only for what the log holds.

At-least-once: offsets wait for `offset.flush.interval.ms` (or a pause or stop) and are written after
the records are flushed. Exactly-once (KIP-618): records and offsets share one transaction whose
boundary is every poll, an interval, or what the connector asks for.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from conveyor.api import RetriableError
from conveyor.data import SourceRecord
from conveyor.log import Log, open_log
from conveyor.log.errors import IllegalStateError
from conveyor.runtime.control import LocalTaskControl, TargetState
from conveyor.runtime.source_task import SourceTaskLoop
from conveyor.runtime.task_generation import RevokedTaskError
from conveyor.runtime.task_spec import TaskOwner
from conveyor.settings.worker_config import WorkerConfig
from conveyor.storage import OffsetStore, Status
from conveyor.storage.errors import StorageError
from conveyor.storage.status_store import StatusStore
from log_backends import BACKENDS, fresh_log_url

from .support import (
    CONNECTOR,
    NEVER_MS,
    OFFSETS_TOPIC,
    committed_source_offsets,
    read_values,
    running,
    source_record,
    task_spec,
    wait_until,
    worker_props,
)
from .tasks import ScriptedSourceTask


@pytest.fixture(params=BACKENDS)
def log_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The source loop runs on each backend: both carry its records, offsets and transactions."""
    return fresh_log_url(request, request.param, tmp_path)


TOPIC = "lines"


def records(start: int, count: int) -> list[SourceRecord]:
    return [source_record(TOPIC, n) for n in range(start, start + count)]


def source_loop(
    log: Log, task: ScriptedSourceTask, *, config: Mapping[str, str] | None = None, **worker: str
) -> tuple[SourceTaskLoop, LocalTaskControl]:
    control = LocalTaskControl()
    spec = task_spec({"topic": TOPIC, **(config or {})}, worker_props(log.url, **worker))
    return SourceTaskLoop(spec, control, log, task), control


def exactly_once(boundary: str, **config: str) -> dict[str, str]:
    return {"transaction.boundary": boundary, **config}


EOS = {"exactly.once.source.support": "enabled"}


def test_polled_records_reach_the_topic_in_order(log: Log) -> None:
    task = ScriptedSourceTask([records(0, 3), records(3, 2)])
    loop, control = source_loop(log, task)
    with running(loop, control):
        wait_until(lambda: len(read_values(log, TOPIC)) == 5, "five records in the topic")
    assert read_values(log, TOPIC) == [f"input-{n}" for n in range(5)]


def test_offsets_wait_for_the_flush_interval(log: Log) -> None:
    task = ScriptedSourceTask([records(0, 3)])
    loop, control = source_loop(log, task, **{"offset.flush.interval.ms": NEVER_MS})
    with running(loop, control):
        wait_until(lambda: len(read_values(log, TOPIC)) == 3, "the records in the topic")
        assert committed_source_offsets(log) == {}
        assert task.commits == 0


def test_a_stop_commits_the_offsets_of_what_was_polled(log: Log) -> None:
    task = ScriptedSourceTask([records(0, 3), records(3, 1)])
    loop, control = source_loop(log, task)
    with running(loop, control) as handle:
        wait_until(lambda: task.batches_returned == 2, "both batches polled")
        handle.stop()
    assert committed_source_offsets(log) == {"input": {"position": 4}}
    assert task.commits == 1


def test_a_batch_from_several_source_partitions_commits_the_latest_offset_of_each(log: Log) -> None:
    unpartitioned = SourceRecord(TOPIC, value="no offset")
    batch = [
        source_record(TOPIC, 0, file="a"),
        source_record(TOPIC, 0, file="b"),
        unpartitioned,
        source_record(TOPIC, 1, file="a"),
    ]
    task = ScriptedSourceTask([batch])
    loop, control = source_loop(log, task)
    with running(loop, control) as handle:
        wait_until(lambda: task.batches_returned == 1, "the batch polled")
        handle.stop()
    assert committed_source_offsets(log) == {"a": {"position": 2}, "b": {"position": 1}}


def test_committed_offsets_never_run_ahead_of_the_records_in_the_log(log: Log) -> None:
    """At every commit (the task's `commit()` follows the offset write) the records are in the log."""
    observed: list[tuple[int, int]] = []

    def observe(_: ScriptedSourceTask) -> None:
        position = committed_source_offsets(log).get("input", {}).get("position", 0)
        observed.append((position, len(read_values(log, TOPIC))))

    task = ScriptedSourceTask([records(n * 2, 2) for n in range(5)], on_commit=observe)
    loop, control = source_loop(log, task, **{"offset.flush.interval.ms": "0"})
    with running(loop, control):
        wait_until(lambda: any(position == 10 for position, _ in observed), "the last offsets committed")
    assert observed
    assert all(position <= in_log for position, in_log in observed), observed


def test_a_failed_task_commits_no_offsets(log: Log) -> None:
    task = ScriptedSourceTask([records(0, 3)], fail_with=RuntimeError("the source broke"))
    loop, control = source_loop(log, task)
    with running(loop, control) as handle:
        error = handle.join()
    assert isinstance(error, RuntimeError)
    assert committed_source_offsets(log) == {}
    assert task.stopped


class FailingToStart(ScriptedSourceTask):
    def start(self, props: Mapping[str, str]) -> None:
        raise RuntimeError("the source cannot start")


def test_a_task_that_fails_to_start_releases_its_producer_and_is_not_stopped(log: Log) -> None:
    task = FailingToStart([])
    loop, _ = source_loop(log, task)
    with pytest.raises(RuntimeError, match="cannot start"):
        loop.run()
    with pytest.raises(IllegalStateError):
        loop.producer.send(TOPIC, b"after the release")
    assert not task.stopped


def test_an_exactly_once_task_whose_pipeline_cannot_be_built_stops_the_offset_stores_it_started(
    log: Log, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[OffsetStore] = []
    start = OffsetStore.start

    def recording_start(store: OffsetStore, *args: Any, **kwargs: Any) -> None:
        started.append(store)
        start(store, *args, **kwargs)

    monkeypatch.setattr(OffsetStore, "start", recording_start)
    unknown_transform = {"transforms": "t", "transforms.t.type": "com.example.NoSuchTransform"}

    with pytest.raises(Exception, match="NoSuchTransform"):
        source_loop(log, ScriptedSourceTask([]), config=unknown_transform, **EOS)

    assert started
    for store in started:
        with pytest.raises(StorageError, match="not started"):
            store.read_to_end()


def test_commit_record_is_called_for_each_written_record_once_offsets_are_committed(log: Log) -> None:
    task = ScriptedSourceTask([records(0, 3)])
    loop, control = source_loop(log, task)
    with running(loop, control) as handle:
        wait_until(lambda: task.batches_returned == 1, "the batch polled")
        assert task.committed_records == []
        handle.stop()
    assert [record.value for record in task.committed_records] == ["input-0", "input-1", "input-2"]


def test_no_polls_while_paused_and_polling_again_after_resume(log: Log) -> None:
    task = ScriptedSourceTask([records(0, 2)])
    loop, control = source_loop(log, task)
    with running(loop, control) as handle:
        wait_until(lambda: task.polls > 0, "a first poll")
        handle.set_target(TargetState.PAUSED)
        handle.wait_for_state("PAUSED")
        polls = task.polls
        threading.Event().wait(0.5)
        assert task.polls == polls
        handle.set_target(TargetState.STARTED)
        handle.wait_for_state("RUNNING")
        wait_until(lambda: task.polls > polls, "a poll after resuming")


def test_pausing_commits_the_offsets_of_what_was_polled(log: Log) -> None:
    task = ScriptedSourceTask([records(0, 2)])
    loop, control = source_loop(log, task)
    with running(loop, control) as handle:
        wait_until(lambda: task.batches_returned == 1, "the batch polled")
        handle.set_target(TargetState.PAUSED)
        handle.wait_for_state("PAUSED")
        assert committed_source_offsets(log) == {"input": {"position": 2}}


def test_exactly_once_records_and_offsets_are_invisible_until_their_transaction_commits(log: Log) -> None:
    task = ScriptedSourceTask([records(0, 3)])
    config = exactly_once("interval", **{"transaction.boundary.interval.ms": NEVER_MS})
    loop, control = source_loop(log, task, config=config, **EOS)
    with running(loop, control) as handle:
        wait_until(lambda: handle.metric("source-record-write-total") == 3, "the records sent")
        assert read_values(log, TOPIC) == []
        assert committed_source_offsets(log) == {}
        handle.stop()
    assert read_values(log, TOPIC) == ["input-0", "input-1", "input-2"]
    assert committed_source_offsets(log) == {"input": {"position": 3}}


def test_exactly_once_poll_boundary_commits_one_transaction_per_poll(log: Log) -> None:
    task = ScriptedSourceTask([records(0, 2), records(2, 2), records(4, 1)])
    loop, control = source_loop(log, task, config=exactly_once("poll"), **EOS)
    with running(loop, control) as handle:
        wait_until(lambda: handle.metric("transactions-committed") == 3, "three transactions")
        assert read_values(log, TOPIC) == [f"input-{n}" for n in range(5)]
        assert committed_source_offsets(log) == {"input": {"position": 5}}


class SendingProducer:
    """A log's real producer that also notes, in order, the topic of each send and each transaction end."""

    def __init__(self, producer: Any, sent: list[str]) -> None:
        self._producer = producer
        self._sent = sent

    def send(self, topic: str, *arguments: Any, **keywords: Any) -> None:
        self._sent.append(topic)
        self._producer.send(topic, *arguments, **keywords)

    def send_batch(self, topic: str, *arguments: Any, **keywords: Any) -> None:
        self._sent.append(topic)
        self._producer.send_batch(topic, *arguments, **keywords)

    def commit_transaction_nowait(self) -> None:
        self._sent.append("commit")
        self._producer.commit_transaction_nowait()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._producer, name)


class SendingLog:
    """A real log whose producers note what they send (`SendingProducer`)."""

    def __init__(self, log: Log) -> None:
        self._log = log
        self.sent: list[str] = []

    def producer(self, *arguments: Any, **keywords: Any) -> SendingProducer:
        return SendingProducer(self._log.producer(*arguments, **keywords), self.sent)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._log, name)


def test_a_poll_boundary_transaction_sends_its_offsets_before_its_records(log: Log) -> None:
    """The poll's offsets are known before its records go: sent first, a Kafka producer registers the
    two partitions with the transaction coordinator in one round trip instead of two."""
    sending = SendingLog(log)
    task = ScriptedSourceTask([records(0, 2), records(2, 1)])
    control = LocalTaskControl()
    spec = task_spec({"topic": TOPIC, **exactly_once("poll")}, worker_props(log.url, **EOS))
    loop = SourceTaskLoop(spec, control, sending, task)  # type: ignore[arg-type]
    with running(loop, control) as handle:
        wait_until(lambda: handle.metric("transactions-committed") == 2, "two transactions")
    assert sending.sent[:6] == [OFFSETS_TOPIC, TOPIC, "commit", OFFSETS_TOPIC, TOPIC, "commit"]
    assert read_values(log, TOPIC) == ["input-0", "input-1", "input-2"]
    assert committed_source_offsets(log) == {"input": {"position": 3}}


@pytest.mark.parametrize("boundary", ["poll", "interval"])
def test_exactly_once_source_that_polls_nothing_commits_no_transaction(log: Log, boundary: str) -> None:
    task = ScriptedSourceTask([records(0, 1)])
    config = exactly_once(boundary, **{"transaction.boundary.interval.ms": "50"})
    loop, control = source_loop(log, task, config=config, **EOS)
    with running(loop, control) as handle:
        wait_until(lambda: handle.metric("transactions-committed") == 1, "the one record's transaction")
        polls = task.polls
        wait_until(lambda: task.polls >= polls + 20, "twenty polls that return nothing")
        assert handle.metric("transactions-committed") == 1


def test_exactly_once_failure_mid_transaction_leaves_neither_records_nor_offsets(log: Log) -> None:
    task = ScriptedSourceTask([records(0, 3)], fail_with=RuntimeError("the source broke"))
    config = exactly_once("interval", **{"transaction.boundary.interval.ms": NEVER_MS})
    loop, control = source_loop(log, task, config=config, **EOS)
    with running(loop, control) as handle:
        assert isinstance(handle.join(), RuntimeError)
    assert read_values(log, TOPIC) == []
    assert committed_source_offsets(log) == {}


def test_connector_boundary_commits_after_the_record_the_task_names(log: Log) -> None:
    def commit_after_second(task: ScriptedSourceTask, index: int, batch: list[Any]) -> None:
        context = task.context.transaction_context()
        assert context is not None
        context.commit_transaction(batch[1])

    task = ScriptedSourceTask([records(0, 4)], on_poll=commit_after_second)
    loop, control = source_loop(log, task, config=exactly_once("connector"), **EOS)
    with running(loop, control) as handle:
        wait_until(lambda: handle.metric("source-record-write-total") == 4, "the four records sent")
        assert read_values(log, TOPIC) == ["input-0", "input-1"]
        assert committed_source_offsets(log) == {"input": {"position": 2}}


def test_connector_requested_abort_discards_the_records_but_commits_their_offsets(log: Log) -> None:
    """KIP-618: an aborted transaction's records are dropped; its offsets are still committed."""

    def abort_first(task: ScriptedSourceTask, index: int, batch: list[Any]) -> None:
        context = task.context.transaction_context()
        assert context is not None
        if index == 0:
            context.abort_transaction()
        else:
            context.commit_transaction()

    task = ScriptedSourceTask([records(0, 2), records(2, 1)], on_poll=abort_first)
    loop, control = source_loop(log, task, config=exactly_once("connector"), **EOS)
    with running(loop, control) as handle:
        wait_until(lambda: read_values(log, TOPIC) == ["input-2"], "the committed record")
        wait_until(lambda: handle.metric("transactions-aborted") == 1, "the abort to be reported")
        assert committed_source_offsets(log) == {"input": {"position": 3}}


def test_exactly_once_task_may_not_write_to_its_offsets_topic(log: Log) -> None:
    task = ScriptedSourceTask([[source_record(OFFSETS_TOPIC, 0)]])
    loop, control = source_loop(log, task, config=exactly_once("poll"), **EOS)
    with running(loop, control) as handle:
        error = handle.join()
    assert error is not None and "may not produce to their own offsets topics" in str(error)


def test_exactly_once_interval_boundary_commits_once_the_interval_passes(log: Log) -> None:
    task = ScriptedSourceTask([records(0, 2)])
    config = exactly_once("interval", **{"transaction.boundary.interval.ms": "100"})
    loop, control = source_loop(log, task, config=config, **EOS)
    with running(loop, control):
        wait_until(lambda: read_values(log, TOPIC) == ["input-0", "input-1"], "the records committed")
        assert committed_source_offsets(log) == {"input": {"position": 2}}


def test_a_retriable_error_from_poll_is_retried_and_the_task_keeps_running(log: Log) -> None:
    failures = iter([RetriableError("the source is not ready yet")])

    def fail_first(task: ScriptedSourceTask, index: int, batch: list[SourceRecord]) -> None:
        error = next(failures, None)
        if error is not None:
            raise error

    task = ScriptedSourceTask([records(0, 2)], on_poll=fail_first)
    loop, control = source_loop(log, task)
    with running(loop, control) as handle:
        wait_until(lambda: len(read_values(log, TOPIC)) == 2, "the batch polled after the retriable error")
        assert handle.error is None
    assert read_values(log, TOPIC) == ["input-0", "input-1"]


def test_a_stopped_task_releases_its_producer_and_its_offset_stores_clients(log: Log) -> None:
    task = ScriptedSourceTask([records(0, 1)])
    loop, control = source_loop(log, task)
    with running(loop, control) as handle:
        wait_until(lambda: task.batches_returned == 1, "the batch polled")
        handle.stop()
    with pytest.raises(IllegalStateError, match="closed"):
        loop.producer.send(TOPIC, b"late")
    with pytest.raises(StorageError, match="not started"):
        loop.offsets.read_to_end()


def owned_exactly_once_loop(log: Log, owner: TaskOwner) -> tuple[SourceTaskLoop, LocalTaskControl]:
    """An exactly-once task as a worker of a group starts it: `owner` was assigned it."""
    control = LocalTaskControl()
    spec = task_spec({"topic": TOPIC, **exactly_once("poll")}, worker_props(log.url, **EOS))
    task = ScriptedSourceTask([records(0, 1)])
    return SourceTaskLoop(dataclasses.replace(spec, owner=owner), control, log, task), control


def report_task_status(log: Log, worker_id: str, generation: int) -> None:
    statuses = StatusStore(log, WorkerConfig.from_props(worker_props(log.url)).status_topic)
    statuses.start()
    statuses.put_task(CONNECTOR, 0, Status("RUNNING", worker_id, None, generation))
    statuses.stop()


def test_an_exactly_once_task_taken_over_by_another_worker_refuses_to_start_without_fencing_it(
    log: Log,
) -> None:
    log.admin().create_topic(TOPIC, partitions=1)
    live_owner = log.producer(transactional_id=f"tests-{CONNECTOR}-0")
    live_owner.init_transactions()
    live_owner.begin_transaction()
    live_owner.send(TOPIC, b"from the live owner", key=b"live")
    report_task_status(log, "live:8083", generation=2)
    with pytest.raises(RevokedTaskError, match="already been revoked from this worker"):
        owned_exactly_once_loop(log, TaskOwner("stalled:8083", generation=1))
    live_owner.commit_transaction()
    live_owner.close()
    assert read_values(log, TOPIC) == ["from the live owner"]


def test_an_exactly_once_task_whose_last_status_is_from_an_earlier_generation_starts(log: Log) -> None:
    report_task_status(log, "departed:8083", generation=1)
    loop, control = owned_exactly_once_loop(log, TaskOwner("new-owner:8083", generation=2))
    with running(loop, control):
        wait_until(lambda: read_values(log, TOPIC) == ["input-0"], "the task's record committed")


def test_an_exactly_once_task_starts_while_the_worker_that_gave_it_up_is_still_stopping_it(log: Log) -> None:
    report_task_status(log, "slow-to-stop:8083", generation=3)
    statuses = StatusStore(log, WorkerConfig.from_props(worker_props(log.url)).status_topic)
    statuses.start()
    statuses.put_task(CONNECTOR, 0, Status("UNASSIGNED", "slow-to-stop:8083", None, 3))
    statuses.stop()
    loop, control = owned_exactly_once_loop(log, TaskOwner("new-owner:8083", generation=2))
    with running(loop, control):
        wait_until(lambda: read_values(log, TOPIC) == ["input-0"], "the task's record committed")


def test_a_task_with_an_offsets_topic_of_its_own_falls_back_to_the_workers_offsets(log: Log) -> None:
    worker_store = OffsetStore(log, OFFSETS_TOPIC, partitions=1)
    worker_store.start()
    try:
        worker_store.put(CONNECTOR, [({"file": "input"}, {"position": 7})])
    finally:
        worker_store.stop()
    seen: list[Mapping[str, Any] | None] = []

    def read_offset(task: ScriptedSourceTask, index: int, batch: list[SourceRecord]) -> None:
        seen.append(task.context.offset_storage_reader().offset({"file": "input"}))

    task = ScriptedSourceTask([records(0, 1)], on_poll=read_offset)
    loop, control = source_loop(log, task, config={"offsets.storage.topic": "own-offsets"})
    with running(loop, control):
        wait_until(lambda: seen, "the task to read its offset")
    assert seen == [{"position": 7}]


def test_an_at_least_once_source_producing_to_another_log_keeps_its_offsets_in_the_worker_offsets_topic(
    log: Log, tmp_path: Path
) -> None:
    """Without an offsets topic of its own, its offsets stay in the worker's offsets topic on the worker's
    log (Kafka's global store), written by that store, while its records go to the other log."""
    with open_log(f"embedded:{tmp_path / 'producer-cluster'}") as elsewhere:
        task = ScriptedSourceTask([records(0, 3)])
        control = LocalTaskControl()
        loop = SourceTaskLoop(
            task_spec({"topic": TOPIC}, worker_props(log.url)), control, elsewhere, task, log
        )
        with running(loop, control):
            wait_until(lambda: len(read_values(elsewhere, TOPIC)) == 3, "the records on the other log")
        assert committed_source_offsets(log) == {"input": {"position": 3}}
        assert read_values(log, TOPIC) == []
        assert committed_source_offsets(elsewhere) == {}

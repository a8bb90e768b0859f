"""The calls a sink task receives from its loop, run in this process on each backend of the log."""

from __future__ import annotations

import threading
import time
from collections.abc import Collection, Iterator, Mapping, Sequence
from pathlib import Path

import pytest

from conveyor.api import RetriableError, SinkTask, TopicPartition
from conveyor.data import ConnectError, SinkRecord
from conveyor.log import Log, open_log
from conveyor.runtime.control import LocalTaskControl, TargetState
from conveyor.runtime.sink_task import SinkTaskLoop
from conveyor.runtime.task_spec import TaskId, TaskKind, TaskSpec
from conveyor.settings.worker_config import WorkerConfig
from log_backends import BACKENDS, fresh_log_url

STRING = "org.apache.kafka.connect.storage.StringConverter"
WAIT_S = 60.0


class CallRecordingSinkTask(SinkTask):
    """Records the name of every call it receives; `put` raises when told to."""

    def __init__(self, fail_put: bool = False, retriable_failures: int = 0, fail_stop: bool = False) -> None:
        self.calls: list[str] = []
        self.fail_put = fail_put
        self.fail_stop = fail_stop
        self.retriable_failures = retriable_failures
        self.pre_commit_offsets: list[dict[TopicPartition, int]] = []

    def version(self) -> str:
        return "1.0"

    def start(self, props: Mapping[str, str]) -> None:
        self.calls.append("start")

    def open(self, partitions: Collection[TopicPartition]) -> None:
        self.calls.append("open")

    def put(self, records: Sequence[SinkRecord]) -> None:
        if records and self.retriable_failures:
            self.retriable_failures -= 1
            self.calls.append("put failed")
            self.context.request_commit()
            raise RetriableError("the external system is busy")
        self.calls.append("put")
        if self.fail_put:
            raise ValueError("the external system refused the batch")

    def pre_commit(self, current_offsets: Mapping[TopicPartition, int]) -> dict[TopicPartition, int]:
        self.calls.append("pre_commit")
        self.pre_commit_offsets.append(dict(current_offsets))
        return dict(current_offsets)

    def close(self, partitions: Collection[TopicPartition]) -> None:
        self.calls.append("close")

    def stop(self) -> None:
        self.calls.append("stop")
        if self.fail_stop:
            raise OSError("the external system's connection broke while closing")


@pytest.fixture(params=BACKENDS)
def log_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return fresh_log_url(request, request.param, tmp_path)


@pytest.fixture
def log(log_url: str) -> Iterator[Log]:
    with open_log(log_url) as opened:
        opened.admin().create_topic("lines", partitions=2)
        producer = opened.producer()
        producer.send("lines", b"one", partition=0)
        producer.close()
        yield opened


def sink_spec(log_url: str) -> TaskSpec:
    config = {
        "name": "recording",
        "connector.class": "RecordingSink",
        "topics": "lines",
        "key.converter": STRING,
        "value.converter": STRING,
    }
    worker = {
        "log.url": log_url,
        "key.converter": STRING,
        "value.converter": STRING,
        "header.converter": "org.apache.kafka.connect.storage.SimpleHeaderConverter",
    }
    return TaskSpec(
        TaskId("recording", 0), TaskKind.SINK, config, dict(config), WorkerConfig.from_props(worker)
    )


def run_until_put(log: Log, task: CallRecordingSinkTask) -> list[BaseException]:
    """Run the loop on a thread of its own, stop it once `put` was called; the errors it raised."""
    control = LocalTaskControl()
    loop = SinkTaskLoop(sink_spec(log.url), control, log, task)
    errors: list[BaseException] = []

    def run() -> None:
        try:
            loop.run()
        except BaseException as error:
            errors.append(error)

    thread = threading.Thread(target=run)
    thread.start()
    deadline = time.monotonic() + WAIT_S
    while "put" not in task.calls and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.01)
    control.set_target_state(TargetState.STOPPED)
    thread.join(WAIT_S)
    assert not thread.is_alive()
    return errors


def test_a_stopped_sink_task_closes_its_partitions_once_and_then_stops(log: Log) -> None:
    task = CallRecordingSinkTask()
    assert run_until_put(log, task) == []
    assert task.calls[-3:] == ["pre_commit", "close", "stop"]
    assert task.calls.count("close") == 1


def test_a_failed_sink_task_closes_its_partitions_once_and_gets_no_call_after_stop(log: Log) -> None:
    task = CallRecordingSinkTask(fail_put=True)
    errors = run_until_put(log, task)
    assert [type(error) for error in errors] == [ConnectError]
    assert task.calls[-4:] == ["put", "pre_commit", "close", "stop"]
    assert task.calls.count("close") == 1


def test_a_batch_to_redeliver_is_not_committed_before_put_succeeds(log: Log) -> None:
    task = CallRecordingSinkTask(retriable_failures=1)
    assert run_until_put(log, task) == []
    failed_at = task.calls.index("put failed")
    assert task.calls[failed_at + 1 : failed_at + 3] == ["pre_commit", "put"]
    assert task.pre_commit_offsets[0][TopicPartition("lines", 0)] == 0
    assert task.pre_commit_offsets[-1][TopicPartition("lines", 0)] == 1


def test_a_sink_task_whose_stop_raises_still_leaves_its_consumer_group(log: Log) -> None:
    task = CallRecordingSinkTask(fail_stop=True)
    errors = run_until_put(log, task)
    assert [type(error) for error in errors] == [OSError]
    log.admin().delete_consumer_group("connect-recording")
    assert "connect-recording" not in log.admin().list_consumer_groups()

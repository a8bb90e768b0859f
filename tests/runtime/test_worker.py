"""The worker over an in-process placement: task states, restarts with backoff, pause, stop, connectors."""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from conveyor import __version__
from conveyor.connectors.mirror.bytes_only import byte_array_converters
from conveyor.log import Log
from conveyor.runtime.control import TargetState
from conveyor.runtime.task_runner import TaskEvents
from conveyor.runtime.task_spec import TaskId, TaskSpec
from conveyor.runtime.worker import Worker
from conveyor.settings.worker_config import WorkerConfig
from conveyor.storage import Status, StatusStore

from .support import STRING_CONVERTER, wait_until
from .threads import ThreadTaskRunner

NAME = "conn"
TASK = TaskId(NAME, 0)
FAILING_SOURCE = "tests.worker.connectors:FailingSourceConnector"
RECORDING_SINK = "tests.worker.connectors:RecordingSinkConnector"
ONE_HOUR_MS = "3600000"
RESTART_DELAY = re.compile(r"Task conn-0 failed.*; restart \d+ in (\d+) ms")


@dataclass
class Placement:
    worker: Worker
    runner: ThreadTaskRunner
    statuses: StatusStore

    def task_status(self, task: TaskId = TASK) -> Status | None:
        self.statuses.read_to_end()
        return self.statuses.task(task.connector, task.task)

    def connector_status(self) -> Status | None:
        self.statuses.read_to_end()
        return self.statuses.connector(NAME)

    def wait_for_task(self, state: str, task: TaskId = TASK) -> Status:
        return wait_until(
            lambda: (status := self.task_status(task)) is not None and status.state == state and status,
            f"task {task} to be {state}",
        )

    def start(self, config: dict[str, str], target: TargetState = TargetState.STARTED) -> None:
        """Start the connector and its tasks, as the herder does."""
        assert self.worker.start_connector(NAME, config, target)
        for index, task_config in enumerate(self.worker.connector_task_configs(NAME, config)):
            self.worker.start_task(TaskId(NAME, index), config, task_config, target)


def make_placement(log: Log, tmp_path: Path, **props: str) -> Placement:
    config = WorkerConfig.from_props(
        {
            "data.dir": str(tmp_path / "data"),
            "log.url": log.url,
            "offset.storage.partitions": "1",
            "status.storage.partitions": "1",
            "key.converter": STRING_CONVERTER,
            "value.converter": STRING_CONVERTER,
            "task.restart.backoff.initial.ms": "50",
            **props,
        }
    )
    statuses = StatusStore(log, config.status_topic, config.status_partitions)
    statuses.start()
    runner = ThreadTaskRunner()
    return Placement(Worker(config, runner, statuses, "worker-1"), runner, statuses)


@pytest.fixture
def placement(log: Log, tmp_path: Path) -> Iterator[Placement]:
    started = make_placement(log, tmp_path)
    yield started
    started.worker.close()
    started.statuses.stop()


def file_source(tmp_path: Path) -> dict[str, str]:
    source = tmp_path / "input.txt"
    source.write_text("first\n")
    return {"connector.class": "FileStreamSource", "file": str(source), "topic": "lines", "tasks.max": "1"}


def failing_source(tmp_path: Path, once: bool) -> dict[str, str]:
    config = {"connector.class": FAILING_SOURCE, "fail.after.ms": "50", "tasks.max": "1"}
    if once:
        config["fail.once.marker"] = str(tmp_path / "failed-once")
    return config


def test_a_started_task_is_reported_running(placement: Placement, tmp_path: Path) -> None:
    placement.start(file_source(tmp_path))
    placement.wait_for_task("RUNNING")
    assert placement.connector_status() == Status("RUNNING", "worker-1", version=__version__)


def test_a_task_status_records_the_tasks_version(placement: Placement, tmp_path: Path) -> None:
    placement.start(file_source(tmp_path))
    assert placement.wait_for_task("RUNNING").version == __version__


def test_a_failed_task_status_records_the_tasks_version(log: Log, tmp_path: Path) -> None:
    placement = make_placement(log, tmp_path, **{"task.restart.enable": "false"})
    try:
        placement.start(failing_source(tmp_path, once=False))
        assert placement.wait_for_task("FAILED").version == "1.0"
    finally:
        placement.worker.close()


def test_a_connector_whose_class_does_not_load_is_failed_without_a_version(placement: Placement) -> None:
    assert not placement.worker.start_connector(
        NAME, {"connector.class": "tests.worker.connectors:NoSuchConnector"}, TargetState.STARTED
    )
    status = placement.connector_status()
    assert status is not None and status.state == "FAILED" and status.version is None


def test_a_failed_task_is_reported_failed_with_its_trace(log: Log, tmp_path: Path) -> None:
    placement = make_placement(log, tmp_path, **{"task.restart.enable": "false"})
    try:
        placement.start(failing_source(tmp_path, once=False))
        failed = placement.wait_for_task("FAILED")
        assert failed.trace is not None and "failed on purpose" in failed.trace
    finally:
        placement.worker.close()


def test_without_task_restart_a_failed_task_is_not_started_again(log: Log, tmp_path: Path) -> None:
    placement = make_placement(log, tmp_path, **{"task.restart.enable": "false"})
    try:
        placement.start(failing_source(tmp_path, once=False))
        placement.wait_for_task("FAILED")
        threading.Event().wait(0.5)
        assert len(placement.runner.launches_of(TASK)) == 1
        assert placement.worker.task_state(TASK) is not None
    finally:
        placement.worker.close()


def test_a_failed_task_is_restarted_after_the_backoff(placement: Placement, tmp_path: Path) -> None:
    placement.start(failing_source(tmp_path, once=True))
    placement.wait_for_task("FAILED")
    wait_until(lambda: len(placement.runner.launches_of(TASK)) == 2, "a second incarnation")
    placement.wait_for_task("RUNNING")
    first, second = placement.runner.launches_of(TASK)
    assert first.attempt != second.attempt


def test_a_restart_waits_for_the_initial_backoff(log: Log, tmp_path: Path) -> None:
    placement = make_placement(log, tmp_path, **{"task.restart.backoff.initial.ms": ONE_HOUR_MS})
    try:
        placement.start(failing_source(tmp_path, once=True))
        placement.wait_for_task("FAILED")
        threading.Event().wait(0.5)
        assert len(placement.runner.launches_of(TASK)) == 1
    finally:
        placement.worker.close()


def test_repeated_failures_keep_restarting_the_task(placement: Placement, tmp_path: Path) -> None:
    placement.start(failing_source(tmp_path, once=False))
    wait_until(lambda: len(placement.runner.launches_of(TASK)) >= 3, "a third incarnation")


def test_pausing_a_connector_pauses_its_tasks_and_resuming_runs_them(
    placement: Placement, tmp_path: Path
) -> None:
    placement.start(file_source(tmp_path))
    placement.wait_for_task("RUNNING")
    placement.worker.set_connector_target(NAME, TargetState.PAUSED)
    placement.wait_for_task("PAUSED")
    assert placement.connector_status() == Status("PAUSED", "worker-1", version=__version__)
    placement.worker.set_connector_target(NAME, TargetState.STARTED)
    placement.wait_for_task("RUNNING")


def test_a_task_started_paused_reports_paused(placement: Placement, tmp_path: Path) -> None:
    placement.start(file_source(tmp_path), TargetState.PAUSED)
    placement.wait_for_task("PAUSED")


def test_a_stopped_task_leaves_the_worker_without_failing(placement: Placement, tmp_path: Path) -> None:
    placement.start(file_source(tmp_path))
    placement.wait_for_task("RUNNING")
    placement.worker.stop_task(TASK)
    assert placement.worker.tasks_of(NAME) == []
    assert placement.runner.metrics(TASK) == {}
    status = placement.task_status()
    assert status is not None and status.state != "FAILED"


def test_restarting_a_task_starts_a_new_incarnation(placement: Placement, tmp_path: Path) -> None:
    placement.start(file_source(tmp_path))
    placement.wait_for_task("RUNNING")
    placement.worker.restart_task(TASK)
    first, second = placement.runner.launches_of(TASK)
    assert first.attempt != second.attempt
    placement.wait_for_task("RUNNING")
    assert placement.worker.tasks_of(NAME) == [TASK]


def test_a_connector_that_fails_to_start_is_failed_with_its_trace(placement: Placement) -> None:
    assert not placement.worker.start_connector(
        NAME, {"connector.class": "FileStreamSource"}, TargetState.STARTED
    )
    status = placement.connector_status()
    assert status is not None and status.state == "FAILED" and "topic" in (status.trace or "")
    assert not placement.worker.is_running(NAME)


UNSAFE_LOG_URL = "kafka://127.0.0.1:9?plugin.library.paths=/nonexistent/library.so"


def test_a_connector_whose_stored_log_url_carries_an_unsafe_setting_is_failed_before_it_starts(
    placement: Placement, tmp_path: Path
) -> None:
    """A config stored before the worker refused it (or by a laxer worker) never reaches a client."""
    config = {
        "connector.class": "MirrorSourceConnector",
        "source.cluster.log.url": UNSAFE_LOG_URL,
        "target.cluster.log.url": f"embedded:{tmp_path / 'target'}",
        **byte_array_converters(),
    }
    assert not placement.worker.start_connector(NAME, config, TargetState.STARTED)
    status = placement.connector_status()
    assert status is not None and status.state == "FAILED"
    assert "source.cluster.log.url" in (status.trace or "") and "loads native code" in (status.trace or "")


def test_a_task_whose_stored_config_names_an_unsafe_log_url_is_failed_before_it_starts(
    placement: Placement, tmp_path: Path
) -> None:
    config = file_source(tmp_path)
    task_config = {
        **config,
        "task.class": "org.apache.kafka.connect.file.FileStreamSourceTask",
        "target.cluster.log.url": UNSAFE_LOG_URL,
    }
    placement.worker.start_task(TASK, config, task_config, TargetState.STARTED)
    status = placement.wait_for_task("FAILED")
    assert "target.cluster.log.url" in (status.trace or "") and "loads native code" in (status.trace or "")


def test_a_connector_with_a_stopped_target_is_not_started(placement: Placement, tmp_path: Path) -> None:
    assert placement.worker.start_connector(NAME, file_source(tmp_path), TargetState.STOPPED)
    assert not placement.worker.is_running(NAME)
    assert placement.connector_status() == Status("STOPPED", "worker-1", version=__version__)


def test_task_configs_name_the_task_class_one_per_task(placement: Placement) -> None:
    config = {"connector.class": RECORDING_SINK, "topics": "in", "tasks.max": "2"}
    assert placement.worker.start_connector(NAME, config, TargetState.STARTED)
    configs = placement.worker.connector_task_configs(NAME, config)
    assert [c["task.class"] for c in configs] == ["tests.worker.connectors:RecordingSinkTask"] * 2
    assert [c["recording.task"] for c in configs] == ["0", "1"]


def test_task_configs_name_a_shipped_file_task_by_kafkas_java_class(
    placement: Placement, tmp_path: Path
) -> None:
    config = file_source(tmp_path)
    assert placement.worker.start_connector(NAME, config, TargetState.STARTED)
    configs = placement.worker.connector_task_configs(NAME, config)
    assert [c["task.class"] for c in configs] == ["org.apache.kafka.connect.file.FileStreamSourceTask"]


class UnplaceableRunner(ThreadTaskRunner):
    """A runner that cannot place any task (a Spark job that cannot be submitted)."""

    def start(self, spec: TaskSpec, events: TaskEvents) -> None:
        raise RuntimeError("no way to place the task")


def test_a_task_that_cannot_be_placed_is_failed_with_the_reason(log: Log, tmp_path: Path) -> None:
    placement = make_placement(log, tmp_path)
    placement.worker.runner = UnplaceableRunner()
    placement.start(file_source(tmp_path))
    status = placement.wait_for_task("FAILED")
    assert "no way to place the task" in (status.trace or "")


def test_restart_backoff_doubles_per_failure_up_to_its_maximum(
    log: Log, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    backoff = {"task.restart.backoff.initial.ms": "20", "task.restart.backoff.max.ms": "50"}
    placement = make_placement(log, tmp_path, **backoff)
    caplog.set_level(logging.INFO, logger="conveyor.runtime.worker")
    try:
        placement.start(failing_source(tmp_path, once=False))
        wait_until(lambda: len(placement.runner.launches_of(TASK)) >= 4, "a fourth incarnation")
    finally:
        placement.worker.close()
    delays = [int(m.group(1)) for r in caplog.records if (m := RESTART_DELAY.search(r.getMessage()))]
    assert delays[:3] == [20, 40, 50]

"""A task runner built in the background (Spark starting): the worker hands it tasks before it is built.

Tasks the worker starts meanwhile start once it is built, with the target they were last given; a task
stopped before then never starts; if it cannot be built, they fail with the reason.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from conveyor.log import Log
from conveyor.metrics.worker_usage import SlotUsage
from conveyor.runtime.control import TargetState
from conveyor.runtime.task_runner import TaskRunner
from conveyor.runtime.worker import Worker
from conveyor.settings.worker_config import WorkerConfig
from conveyor.spark.starting_runner import RunnerStartError, StartingTaskRunner
from conveyor.storage import StatusStore

from .support import STRING_CONVERTER, wait_until
from .test_worker import NAME, TASK, Placement, file_source
from .threads import ThreadTaskRunner

BUILD_TIMEOUT_S = 120.0


@dataclass
class Starting:
    """A worker whose runner is built only once `built` is set (as Spark starts), or fails to be."""

    placement: Placement
    runner: StartingTaskRunner
    inner: ThreadTaskRunner
    built: threading.Event
    failure: list[Exception]


@pytest.fixture
def starting(log: Log, tmp_path: Path) -> Iterator[Starting]:
    config = WorkerConfig.from_props(
        {
            "data.dir": str(tmp_path / "data"),
            "log.url": log.url,
            "offset.storage.partitions": "1",
            "status.storage.partitions": "1",
            "key.converter": STRING_CONVERTER,
            "value.converter": STRING_CONVERTER,
            "task.restart.enable": "false",
        }
    )
    statuses = StatusStore(log, config.status_topic, config.status_partitions)
    statuses.start()
    inner, built, failure = ThreadTaskRunner(), threading.Event(), list[Exception]()

    def build() -> TaskRunner:
        assert built.wait(BUILD_TIMEOUT_S)
        if failure:
            raise failure[0]
        return inner

    runner = StartingTaskRunner(build)
    worker = Worker(config, runner, statuses, "worker-1")
    yield Starting(Placement(worker, inner, statuses), runner, inner, built, failure)
    built.set()
    worker.close()
    statuses.stop()


def test_a_task_started_before_the_runner_is_built_runs_once_it_is(
    starting: Starting, tmp_path: Path
) -> None:
    starting.placement.start(file_source(tmp_path))
    assert starting.inner.launches == []
    starting.built.set()
    starting.placement.wait_for_task("RUNNING")


def test_a_task_paused_before_the_runner_is_built_starts_paused(starting: Starting, tmp_path: Path) -> None:
    starting.placement.start(file_source(tmp_path))
    starting.placement.worker.set_connector_target(NAME, TargetState.PAUSED)
    starting.built.set()
    starting.placement.wait_for_task("PAUSED")


def test_a_task_stopped_before_the_runner_is_built_never_starts(starting: Starting, tmp_path: Path) -> None:
    starting.placement.start(file_source(tmp_path))
    starting.placement.worker.stop_task(TASK)
    starting.built.set()
    starting.runner.wait_started(BUILD_TIMEOUT_S)
    assert starting.inner.launches == []


def test_tasks_fail_with_the_reason_when_the_runner_cannot_be_built(
    starting: Starting, tmp_path: Path
) -> None:
    starting.failure.append(RuntimeError("Java is missing"))
    starting.placement.start(file_source(tmp_path))
    starting.built.set()
    failed = starting.placement.wait_for_task("FAILED")
    assert failed.trace is not None and "Java is missing" in failed.trace
    with pytest.raises(RunnerStartError, match="Java is missing"):
        starting.runner.wait_started(BUILD_TIMEOUT_S)


def test_the_runner_says_what_it_waits_for_until_it_is_built(starting: Starting) -> None:
    assert starting.runner.waiting_for() == "Spark is starting."
    starting.built.set()
    starting.runner.wait_started(BUILD_TIMEOUT_S)
    wait_until(lambda: starting.runner.waiting_for() is None, "the runner built")


class RunnerWithUi(ThreadTaskRunner):
    def slot_usage(self) -> SlotUsage:
        return SlotUsage(total=2, in_use=1, waiting_tasks=0)

    def ui_url(self) -> str:
        return "http://127.0.0.1:4040"


def test_the_slots_and_ui_shown_are_the_built_runners_and_none_while_it_is_built() -> None:
    built, inner = threading.Event(), RunnerWithUi()

    def build() -> TaskRunner:
        assert built.wait(BUILD_TIMEOUT_S)
        return inner

    runner = StartingTaskRunner(build)
    try:
        assert (runner.slot_usage(), runner.ui_url()) == (None, None)
        built.set()
        runner.wait_started(BUILD_TIMEOUT_S)
        assert runner.slot_usage() == SlotUsage(total=2, in_use=1, waiting_tasks=0)
        assert runner.ui_url() == "http://127.0.0.1:4040"
    finally:
        built.set()
        runner.close()

"""A task beyond the worker's room for tasks says why it does not run, and runs once room frees."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from conveyor.connectors.generator.config import TASK_ID_CONFIG
from conveyor.log import open_log
from conveyor.runtime.control import TargetState
from conveyor.runtime.task_runner import TaskEvents, TaskOutcome
from conveyor.runtime.task_spec import TaskId, TaskKind, TaskSpec
from conveyor.runtime.worker import Worker
from conveyor.settings.worker_config import WorkerConfig
from conveyor.spark.session import get_or_create_session
from conveyor.spark.task_jobs import TaskJobRunner
from conveyor.storage import StatusStore

from .support import wait_until


class RecordedEvents:
    """What a runner told about its tasks, by task number."""

    def __init__(self) -> None:
        self.unplaced: dict[int, str] = {}
        self.reported: dict[int, str] = {}
        self.exited: dict[int, TaskOutcome] = {}
        self._lock = threading.Lock()

    def events(self) -> TaskEvents:
        return TaskEvents(self._exited, self._reported, self._unplaced)

    def _exited(self, spec: TaskSpec, outcome: TaskOutcome) -> None:
        with self._lock:
            self.exited[spec.id.task] = outcome

    def _reported(self, spec: TaskSpec, state: str) -> None:
        with self._lock:
            self.reported[spec.id.task] = state

    def _unplaced(self, spec: TaskSpec, reason: str) -> None:
        with self._lock:
            self.unplaced[spec.id.task] = reason


def generator_task(data_dir: Path, task: int) -> TaskSpec:
    worker = WorkerConfig.from_props({"data.dir": str(data_dir), "offset.flush.interval.ms": "200"})
    connector = {"connector.class": "GeneratorSourceConnector", "topic": "capacity", "rate": "10"}
    task_config = {
        **connector,
        TASK_ID_CONFIG: str(task),
        "task.class": "conveyor.connectors.generator.task:GeneratorSourceTask",
    }
    return TaskSpec(TaskId("capacity", task), TaskKind.SOURCE, connector, task_config, worker)


@pytest.fixture
def one_place() -> Iterator[TaskJobRunner]:
    runner = TaskJobRunner(get_or_create_session(), slots=1, tasks_per_slot=1)
    yield runner
    runner.close()


def test_a_task_beyond_capacity_reports_why_it_is_not_running(
    one_place: TaskJobRunner, tmp_path: Path
) -> None:
    recorded = RecordedEvents()
    one_place.start(generator_task(tmp_path, 0), recorded.events())
    one_place.start(generator_task(tmp_path, 1), recorded.events())
    assert list(recorded.unplaced) == [1]
    assert "1 Spark task slots" in recorded.unplaced[1]
    assert one_place.metrics(TaskId("capacity", 1)) == {"unplaced": 1}
    assert one_place.unplaced() == 1


def test_a_waiting_task_runs_once_a_place_frees(one_place: TaskJobRunner, tmp_path: Path) -> None:
    recorded = RecordedEvents()
    one_place.start(generator_task(tmp_path, 0), recorded.events())
    one_place.start(generator_task(tmp_path, 1), recorded.events())
    wait_until(lambda: recorded.reported.get(0) == "RUNNING", "task 0 to run")
    assert one_place.stop(TaskId("capacity", 0), 30.0)
    wait_until(lambda: recorded.reported.get(1) == "RUNNING", "task 1 to run in the freed place")
    assert one_place.unplaced() == 0


def test_a_worker_shows_an_unplaced_task_unassigned_with_the_reason_and_counts_it(
    one_place: TaskJobRunner, tmp_path: Path
) -> None:
    config = WorkerConfig.from_props({"data.dir": str(tmp_path)})
    with open_log(config.log_url) as log:
        statuses = StatusStore(log)
        statuses.start()
        worker = Worker(config, one_place, statuses, "capacity-worker")
        try:
            for task in (0, 1):
                spec = generator_task(tmp_path, task)
                worker.start_task(spec.id, spec.connector_config, spec.task_config, TargetState.STARTED)
            status = worker.status.task("capacity", 1)
            assert status is not None and status.state == "UNASSIGNED"
            assert status.trace is not None and "Waiting for room to run" in status.trace
            assert worker.metrics()["unplaced-task-count"] == 1
        finally:
            worker.close()
            statuses.stop()

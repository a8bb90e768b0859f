"""`task.placement`: a process per task while slots are free (spread), or tasks filling one process (pack)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from conveyor.api import ConfigError
from conveyor.settings.worker_config import TaskPlacement, WorkerConfig
from conveyor.spark.session import get_or_create_session
from conveyor.spark.task_jobs import TaskJobRunner

from .support import wait_until
from .test_task_capacity import RecordedEvents, generator_task


def _runner(placement: TaskPlacement) -> Iterator[TaskJobRunner]:
    runner = TaskJobRunner(get_or_create_session(), slots=2, tasks_per_slot=2, placement=placement)
    yield runner
    runner.close()


@pytest.fixture
def spread() -> Iterator[TaskJobRunner]:
    yield from _runner(TaskPlacement.SPREAD)


@pytest.fixture
def pack() -> Iterator[TaskJobRunner]:
    yield from _runner(TaskPlacement.PACK)


def _start(runner: TaskJobRunner, tmp_path: Path, tasks: int) -> RecordedEvents:
    recorded = RecordedEvents()
    for task in range(tasks):
        runner.start(generator_task(tmp_path, task), recorded.events())
    wait_until(lambda: len(recorded.reported) == tasks, f"{tasks} tasks to report")
    return recorded


def test_spread_gives_each_task_a_process_of_its_own_while_slots_are_free(
    spread: TaskJobRunner, tmp_path: Path
) -> None:
    _start(spread, tmp_path, 2)

    assert spread.slot_usage().in_use == 2


def test_pack_runs_tasks_in_one_process_up_to_tasks_per_slot(pack: TaskJobRunner, tmp_path: Path) -> None:
    _start(pack, tmp_path, 2)

    assert pack.slot_usage().in_use == 1


def test_pack_starts_another_process_once_one_holds_tasks_per_slot(
    pack: TaskJobRunner, tmp_path: Path
) -> None:
    recorded = _start(pack, tmp_path, 3)

    assert pack.slot_usage().in_use == 2
    assert recorded.unplaced == {}


def test_task_placement_is_a_worker_setting_that_ignores_case(tmp_path: Path) -> None:
    config = WorkerConfig.from_props({"data.dir": str(tmp_path), "task.placement": "Pack"})

    assert config.task_placement is TaskPlacement.PACK
    assert WorkerConfig.from_props({"data.dir": str(tmp_path)}).task_placement is TaskPlacement.SPREAD


def test_an_unknown_task_placement_raises_config_error_naming_the_key(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"task\.placement"):
        WorkerConfig.from_props({"data.dir": str(tmp_path), "task.placement": "scatter"})

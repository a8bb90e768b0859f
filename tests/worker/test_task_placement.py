"""`task.placement`: a process per task while slots are free (spread), a process per busy task or per task
of one connector up to one per core of the machine (cores, the worker's default), or tasks filling one
process (pack)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

from conveyor.api import ConfigError
from conveyor.runtime.task_spec import TaskId, TaskSpec
from conveyor.settings.worker_config import TaskPlacement, WorkerConfig
from conveyor.spark.session import get_or_create_session
from conveyor.spark.task_jobs import TaskJobRunner, machine_cores

from .support import wait_until
from .test_task_capacity import RecordedEvents, generator_task


def _runner(placement: TaskPlacement, slots: int = 2) -> Iterator[TaskJobRunner]:
    runner = TaskJobRunner(get_or_create_session(), slots=slots, tasks_per_slot=2, placement=placement)
    yield runner
    runner.close()


@pytest.fixture
def spread() -> Iterator[TaskJobRunner]:
    yield from _runner(TaskPlacement.SPREAD)


@pytest.fixture
def pack() -> Iterator[TaskJobRunner]:
    yield from _runner(TaskPlacement.PACK)


@pytest.fixture
def cores() -> Iterator[TaskJobRunner]:
    """A runner with a slot more than the machine has cores."""
    yield from _runner(TaskPlacement.CORES, slots=machine_cores() + 1)


def _connectors_task(data_dir: Path, connector: int) -> TaskSpec:
    """A task of a connector of its own (task `connector` of connector `capacity-<connector>`, so that the
    recorded events, kept by task number, tell the tasks apart)."""
    spec = generator_task(data_dir, connector)
    return dataclasses.replace(spec, id=TaskId(f"capacity-{connector}", connector))


def _busy_task(data_dir: Path, connector: int) -> TaskSpec:
    """A generator task without a rate, of a connector of its own: it keeps its process's core as busy
    as it can."""
    spec = _connectors_task(data_dir, connector)
    return dataclasses.replace(
        spec,
        connector_config={**spec.connector_config, "rate": "0"},
        task_config={**spec.task_config, "rate": "0"},
    )


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


def test_cores_runs_the_tasks_of_connectors_in_one_process_while_it_keeps_no_core_busy(
    cores: TaskJobRunner, tmp_path: Path
) -> None:
    recorded = RecordedEvents()
    for connector in range(2):
        cores.start(_connectors_task(tmp_path, connector), recorded.events())
    wait_until(lambda: len(recorded.reported) == 2, "2 tasks to report")

    assert cores.slot_usage().in_use == 1


def test_cores_gives_the_tasks_of_one_connector_a_process_each_up_to_one_per_core(
    cores: TaskJobRunner, tmp_path: Path
) -> None:
    _start(cores, tmp_path, machine_cores() + 1)

    assert cores.slot_usage().in_use == machine_cores()


def test_cores_gives_a_task_a_process_of_its_own_while_each_keeps_a_core_busy_up_to_one_per_core(
    cores: TaskJobRunner, tmp_path: Path
) -> None:
    recorded = RecordedEvents()
    for connector in range(machine_cores()):
        cores.start(_busy_task(tmp_path, connector), recorded.events())
        wait_until(
            lambda: cores.busy_hosts() == connector + 1,  # noqa: B023
            f"{connector + 1} busy processes",
        )
    cores.start(_busy_task(tmp_path, machine_cores()), recorded.events())
    wait_until(lambda: len(recorded.reported) == machine_cores() + 1, "every task to report")

    assert cores.slot_usage().in_use == machine_cores()


def test_cores_starts_another_process_once_one_per_core_hold_tasks_per_slot(
    cores: TaskJobRunner, tmp_path: Path
) -> None:
    recorded = _start(cores, tmp_path, 2 * machine_cores() + 1)

    assert cores.slot_usage().in_use == machine_cores() + 1
    assert recorded.unplaced == {}


def test_task_placement_is_a_worker_setting_that_ignores_case(tmp_path: Path) -> None:
    config = WorkerConfig.from_props({"data.dir": str(tmp_path), "task.placement": "Pack"})

    assert config.task_placement is TaskPlacement.PACK


def test_a_workers_tasks_are_placed_one_process_per_core_by_default(tmp_path: Path) -> None:
    assert WorkerConfig.from_props({"data.dir": str(tmp_path)}).task_placement is TaskPlacement.CORES


def test_an_unknown_task_placement_raises_config_error_naming_the_key(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"task\.placement"):
        WorkerConfig.from_props({"data.dir": str(tmp_path), "task.placement": "scatter"})


def test_up_to_64_tasks_share_a_process_by_default(tmp_path: Path) -> None:
    assert WorkerConfig.from_props({"data.dir": str(tmp_path)}).tasks_per_slot == 64

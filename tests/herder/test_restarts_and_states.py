"""KIP-745 restarts and the RUNNING, PAUSED and STOPPED target states, through the standalone herder."""

from __future__ import annotations

from pathlib import Path

import pytest

from conveyor import __version__
from conveyor.errors import NotFoundError
from conveyor.herder.standalone import StandaloneHerder
from conveyor.runtime.task_spec import TaskId

from .conftest import Standalone
from .support import NAME, failing_once_source, file_source, states, wait_for_states

TASK = TaskId(NAME, 0)


def launches(standalone: Standalone) -> int:
    return len(standalone.runner.launches_of(TASK))


def with_failed_task(standalone: Standalone, tmp_path: Path) -> StandaloneHerder:
    herder = standalone.herder
    herder.put_connector_config(NAME, failing_once_source(tmp_path), allow_replace=False)
    wait_for_states(herder, "RUNNING", ["FAILED"])
    return herder


def test_only_failed_restart_leaves_a_healthy_connector_alone(standalone: Standalone, tmp_path: Path) -> None:
    herder = standalone.herder
    herder.put_connector_config(NAME, file_source(tmp_path), allow_replace=False)
    wait_for_states(herder, "RUNNING", ["RUNNING"])
    restarting = herder.restart_connector(NAME, include_tasks=True, only_failed=True)
    assert (restarting.connector.state, [t.state for t in restarting.tasks]) == ("RUNNING", ["RUNNING"])
    assert launches(standalone) == 1


def test_restart_with_failed_tasks_restarts_only_those(standalone: Standalone, tmp_path: Path) -> None:
    herder = with_failed_task(standalone, tmp_path)
    restarting = herder.restart_connector(NAME, include_tasks=True, only_failed=True)
    assert (restarting.connector.state, [t.state for t in restarting.tasks]) == ("RUNNING", ["RESTARTING"])
    wait_for_states(herder, "RUNNING", ["RUNNING"])
    assert launches(standalone) == 2


def test_restart_without_tasks_restarts_the_connector_alone(standalone: Standalone, tmp_path: Path) -> None:
    herder = with_failed_task(standalone, tmp_path)
    restarting = herder.restart_connector(NAME, include_tasks=False, only_failed=False)
    assert (restarting.connector.state, [t.state for t in restarting.tasks]) == ("RESTARTING", ["FAILED"])
    assert launches(standalone) == 1
    assert states(herder) == ("RUNNING", ["FAILED"])


def test_a_restart_answers_with_the_plugin_versions(standalone: Standalone, tmp_path: Path) -> None:
    herder = with_failed_task(standalone, tmp_path)
    restarting = herder.restart_connector(NAME, include_tasks=True, only_failed=False)
    assert (restarting.connector.version, [t.version for t in restarting.tasks]) == ("1.0", ["1.0"])


def test_restart_of_everything_restarts_connector_and_every_task(
    standalone: Standalone, tmp_path: Path
) -> None:
    herder = standalone.herder
    herder.put_connector_config(NAME, file_source(tmp_path), allow_replace=False)
    wait_for_states(herder, "RUNNING", ["RUNNING"])
    restarting = herder.restart_connector(NAME, include_tasks=True, only_failed=False)
    assert (restarting.connector.state, [t.state for t in restarting.tasks]) == ("RESTARTING", ["RESTARTING"])
    wait_for_states(herder, "RUNNING", ["RUNNING"])
    assert launches(standalone) == 2


def test_a_task_restart_starts_a_new_incarnation(standalone: Standalone, tmp_path: Path) -> None:
    herder = with_failed_task(standalone, tmp_path)
    herder.restart_task(NAME, 0)
    wait_for_states(herder, "RUNNING", ["RUNNING"])
    first, second = standalone.runner.launches_of(TASK)
    assert first.attempt != second.attempt


def test_restarting_an_unknown_task_is_not_found(herder: StandaloneHerder, tmp_path: Path) -> None:
    herder.put_connector_config(NAME, file_source(tmp_path), allow_replace=False)
    with pytest.raises(NotFoundError, match=f"Unknown task: {NAME}-1"):
        herder.restart_task(NAME, 1)


def test_pause_pauses_the_connector_and_its_tasks(herder: StandaloneHerder, tmp_path: Path) -> None:
    herder.put_connector_config(NAME, file_source(tmp_path), allow_replace=False)
    wait_for_states(herder, "RUNNING", ["RUNNING"])
    herder.pause_connector(NAME)
    wait_for_states(herder, "PAUSED", ["PAUSED"])


def test_resume_runs_a_paused_connector_again(herder: StandaloneHerder, tmp_path: Path) -> None:
    herder.put_connector_config(NAME, file_source(tmp_path), allow_replace=False, initial_state="PAUSED")
    wait_for_states(herder, "PAUSED", ["PAUSED"])
    herder.resume_connector(NAME)
    wait_for_states(herder, "RUNNING", ["RUNNING"])


def test_stop_shuts_the_tasks_down_and_drops_their_configs(standalone: Standalone, tmp_path: Path) -> None:
    herder = standalone.herder
    herder.put_connector_config(NAME, file_source(tmp_path), allow_replace=False)
    wait_for_states(herder, "RUNNING", ["RUNNING"])
    herder.stop_connector(NAME)
    assert states(herder) == ("STOPPED", [])
    assert herder.task_configs(NAME) == []
    assert herder.worker.tasks_of(NAME) == []


def test_a_stopped_connector_shows_its_version(standalone: Standalone, tmp_path: Path) -> None:
    herder = standalone.herder
    herder.put_connector_config(NAME, file_source(tmp_path), allow_replace=False)
    wait_for_states(herder, "RUNNING", ["RUNNING"])
    herder.stop_connector(NAME)
    assert herder.connector_status(NAME).connector.version == __version__


def test_resuming_a_stopped_connector_starts_its_tasks_again(standalone: Standalone, tmp_path: Path) -> None:
    herder = standalone.herder
    herder.put_connector_config(NAME, file_source(tmp_path), allow_replace=False, initial_state="STOPPED")
    herder.resume_connector(NAME)
    wait_for_states(herder, "RUNNING", ["RUNNING"])
    assert launches(standalone) == 1

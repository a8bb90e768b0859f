"""Creating, reconfiguring and deleting connectors through the standalone herder, and validating configs."""

from __future__ import annotations

from pathlib import Path

import pytest

from conveyor.errors import AlreadyExistsError, BadRequestError, NotFoundError
from conveyor.herder.entities import TaskRef
from conveyor.herder.standalone import StandaloneHerder
from conveyor.runtime.task_spec import TaskId

from .conftest import Standalone
from .support import NAME, file_source, recording_sink, states, wait_for_states


def test_a_created_connector_runs_with_its_tasks(herder: StandaloneHerder, tmp_path: Path) -> None:
    created, info = herder.put_connector_config(NAME, file_source(tmp_path), allow_replace=False)
    assert created
    assert (info.name, info.type, info.tasks) == (NAME, "source", [TaskRef(NAME, 0)])
    assert info.config["name"] == NAME
    wait_for_states(herder, "RUNNING", ["RUNNING"])


def test_creating_a_connector_that_exists_is_refused(herder: StandaloneHerder, tmp_path: Path) -> None:
    herder.put_connector_config(NAME, file_source(tmp_path), allow_replace=False)
    with pytest.raises(AlreadyExistsError, match=f"Connector {NAME} already exists"):
        herder.put_connector_config(NAME, file_source(tmp_path), allow_replace=False)


def test_a_new_config_restarts_the_tasks_with_it(standalone: Standalone, tmp_path: Path) -> None:
    herder = standalone.herder
    herder.put_connector_config(NAME, file_source(tmp_path, "first"), allow_replace=False)
    wait_for_states(herder, "RUNNING", ["RUNNING"])
    created, _ = herder.put_connector_config(NAME, file_source(tmp_path, "second"), allow_replace=True)
    assert not created
    assert [task.config["topic"] for task in herder.task_configs(NAME)] == ["second"]
    launched = standalone.runner.launches_of(TaskId(NAME, 0))
    assert [spec.task_config["topic"] for spec in launched] == ["first", "second"]
    wait_for_states(herder, "RUNNING", ["RUNNING"])


def test_a_patch_sets_and_removes_keys(herder: StandaloneHerder, tmp_path: Path) -> None:
    herder.put_connector_config(NAME, {**file_source(tmp_path), "batch.size": "10"}, allow_replace=False)
    info = herder.patch_connector_config(NAME, {"batch.size": None, "topic": "patched"})
    assert "batch.size" not in info.config and info.config["topic"] == "patched"
    assert herder.connector_config(NAME) == info.config


def test_a_deleted_connector_is_forgotten_and_its_tasks_stopped(
    standalone: Standalone, tmp_path: Path
) -> None:
    herder = standalone.herder
    herder.put_connector_config(NAME, file_source(tmp_path), allow_replace=False)
    wait_for_states(herder, "RUNNING", ["RUNNING"])
    herder.delete_connector(NAME)
    assert herder.connectors() == []
    assert herder.worker.tasks_of(NAME) == []
    assert standalone.runner.metrics(TaskId(NAME, 0)) == {}
    with pytest.raises(NotFoundError):
        herder.connector_status(NAME)


def test_deleting_an_unknown_connector_is_not_found(herder: StandaloneHerder) -> None:
    with pytest.raises(NotFoundError, match="Connector missing not found"):
        herder.delete_connector("missing")


def test_a_config_without_connector_class_is_a_bad_request(herder: StandaloneHerder) -> None:
    with pytest.raises(BadRequestError, match="contains no connector type"):
        herder.validate_connector_config({"topic": "lines"})


def test_an_unknown_connector_class_is_a_bad_request_naming_close_plugins(herder: StandaloneHerder) -> None:
    with pytest.raises(BadRequestError) as refused:
        herder.validate_connector_config({"connector.class": "FileStreamSourc", "topic": "lines"})
    assert "FileStreamSource" in str(refused.value)


def test_validation_reports_the_errors_of_each_key(herder: StandaloneHerder, tmp_path: Path) -> None:
    config = {**recording_sink(tmp_path), "name": NAME}
    del config["topics"]
    infos = herder.validate_connector_config(config)
    errors = {entry["value"]["name"]: entry["value"]["errors"] for entry in infos["configs"]}
    assert infos["error_count"] == 2
    assert errors["topics"] == errors["topics.regex"] == ["Must configure one of topics or topics.regex"]


def test_an_invalid_config_is_refused_listing_its_errors(herder: StandaloneHerder, tmp_path: Path) -> None:
    config = recording_sink(tmp_path)
    del config["topics"]
    with pytest.raises(BadRequestError, match="contains the following 2 error"):
        herder.put_connector_config(NAME, config, allow_replace=False)
    assert herder.connectors() == []


def test_a_connector_created_stopped_has_no_tasks(herder: StandaloneHerder, tmp_path: Path) -> None:
    herder.put_connector_config(NAME, file_source(tmp_path), allow_replace=False, initial_state="STOPPED")
    assert states(herder) == ("STOPPED", [])
    assert herder.worker.tasks_of(NAME) == []

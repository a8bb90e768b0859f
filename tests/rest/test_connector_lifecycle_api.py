"""A connector's status and tasks, and restarting, pausing, resuming and stopping it over HTTP."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from conveyor import __version__
from conveyor.herder.standalone import StandaloneHerder
from conveyor.runtime.task_spec import TaskId

from .connectors import create_connector, file_source_config, unique_name, wait_for_status


@pytest.fixture
def running(client: httpx.Client, tmp_path: Path) -> str:
    """A file source connector whose one task is running."""
    name = unique_name()
    create_connector(client, name, file_source_config(tmp_path))
    wait_for_status(client, name, "RUNNING", ["RUNNING"])
    return name


def test_status_shows_the_connector_and_its_tasks(client: httpx.Client, running: str) -> None:
    response = client.get(f"/connectors/{running}/status")
    assert response.status_code == 200
    status = response.json()
    assert status["name"] == running
    assert status["type"] == "source"
    assert status["connector"]["state"] == "RUNNING"
    assert [(task["id"], task["state"]) for task in status["tasks"]] == [(0, "RUNNING")]
    assert "trace" not in status["connector"]


def test_status_shows_the_plugin_version_of_the_connector_and_each_task(
    client: httpx.Client, running: str
) -> None:
    status = client.get(f"/connectors/{running}/status").json()
    assert status["connector"]["version"] == __version__
    assert [task["version"] for task in status["tasks"]] == [__version__]
    assert client.get(f"/connectors/{running}/tasks/0/status").json()["version"] == __version__


def test_tasks_lists_each_task_id_and_config(client: httpx.Client, running: str) -> None:
    response = client.get(f"/connectors/{running}/tasks")
    assert response.status_code == 200
    tasks = response.json()
    assert [task["id"] for task in tasks] == [{"connector": running, "task": 0}]
    assert isinstance(tasks[0]["config"], dict)


def test_tasks_config_keys_each_task_config_by_connector_and_task(client: httpx.Client, running: str) -> None:
    tasks = client.get(f"/connectors/{running}/tasks").json()
    response = client.get(f"/connectors/{running}/tasks-config")
    assert response.status_code == 200
    assert response.json() == {f"{running}-0": tasks[0]["config"]}


def test_a_task_answers_its_own_status(client: httpx.Client, running: str) -> None:
    response = client.get(f"/connectors/{running}/tasks/0/status")
    assert response.status_code == 200
    assert response.json()["id"] == 0
    assert response.json()["state"] == "RUNNING"


def test_an_unknown_task_is_a_404(client: httpx.Client, running: str) -> None:
    assert client.get(f"/connectors/{running}/tasks/7/status").status_code == 404
    assert client.post(f"/connectors/{running}/tasks/7/restart").status_code == 404


@pytest.mark.parametrize("task", ["-1", "-2", "1"])
def test_a_task_id_outside_the_connectors_tasks_is_a_404(
    client: httpx.Client, running: str, task: str
) -> None:
    assert client.get(f"/connectors/{running}/tasks/{task}/status").status_code == 404
    assert client.post(f"/connectors/{running}/tasks/{task}/restart").status_code == 404


def test_restarting_a_negative_task_id_starts_no_task(
    client: httpx.Client, herder: StandaloneHerder, running: str
) -> None:
    client.post(f"/connectors/{running}/tasks/-1/restart")
    assert herder.worker.tasks_of(running) == [TaskId(running, 0)]


def test_restarting_a_task_answers_204(client: httpx.Client, running: str) -> None:
    response = client.post(f"/connectors/{running}/tasks/0/restart")
    assert response.status_code == 204
    wait_for_status(client, running, "RUNNING", ["RUNNING"])


@pytest.mark.parametrize("query", ["", "?includeTasks=false&onlyFailed=false", "?includeTasks=False"])
def test_restarting_only_the_connector_answers_204_without_a_body(
    client: httpx.Client, running: str, query: str
) -> None:
    response = client.post(f"/connectors/{running}/restart{query}")
    assert response.status_code == 204
    assert response.content == b""


def test_restarting_with_its_tasks_answers_202_showing_them_restarting(
    client: httpx.Client, running: str
) -> None:
    response = client.post(f"/connectors/{running}/restart?includeTasks=TRUE")
    assert response.status_code == 202
    status = response.json()
    assert status["name"] == running
    assert status["connector"]["state"] == "RESTARTING"
    assert [task["state"] for task in status["tasks"]] == ["RESTARTING"]
    wait_for_status(client, running, "RUNNING", ["RUNNING"])


def test_restarting_only_failed_instances_of_a_healthy_connector_restarts_nothing(
    client: httpx.Client, running: str
) -> None:
    response = client.post(f"/connectors/{running}/restart?includeTasks=true&onlyFailed=True")
    assert response.status_code == 202
    status = response.json()
    assert status["connector"]["state"] == "RUNNING"
    assert [task["state"] for task in status["tasks"]] == ["RUNNING"]


def test_restarting_an_unknown_connector_is_a_404(client: httpx.Client) -> None:
    assert client.post(f"/connectors/{unique_name('missing')}/restart").status_code == 404


def test_pausing_answers_202_and_pauses_the_connector_and_its_tasks(
    client: httpx.Client, running: str
) -> None:
    response = client.put(f"/connectors/{running}/pause")
    assert response.status_code == 202
    assert response.content == b""
    wait_for_status(client, running, "PAUSED", ["PAUSED"])


def test_resuming_answers_202_and_runs_a_paused_connector_again(client: httpx.Client, running: str) -> None:
    client.put(f"/connectors/{running}/pause")
    wait_for_status(client, running, "PAUSED", ["PAUSED"])
    response = client.put(f"/connectors/{running}/resume")
    assert response.status_code == 202
    wait_for_status(client, running, "RUNNING", ["RUNNING"])


def test_stopping_answers_204_and_stops_the_connector_without_tasks(
    client: httpx.Client, running: str
) -> None:
    response = client.put(f"/connectors/{running}/stop")
    assert response.status_code == 204
    wait_for_status(client, running, "STOPPED", [])


def test_pause_resume_and_stop_of_an_unknown_connector_are_404s(client: httpx.Client) -> None:
    name = unique_name("missing")
    for action in ("pause", "resume", "stop"):
        assert client.put(f"/connectors/{name}/{action}").status_code == 404, action

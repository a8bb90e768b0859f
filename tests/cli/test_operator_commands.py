"""`conveyor connectors ...`, `conveyor plugins` and `conveyor status` against a real worker over HTTP."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner, Result
from tests.worker.connectors import FAILING_SOURCE
from tests.worker.support import create_connector, unique, wait_for_states, wait_until

from conveyor.cli import main
from conveyor.cli.exit_codes import ExitCode
from conveyor.cli.worker_process import StandaloneWorker


def run(worker: StandaloneWorker, *args: str) -> Result:
    """The command's result, with the worker's URL given as operators give it, in CONVEYOR_URL."""
    return CliRunner().invoke(main, list(args), env={"CONVEYOR_URL": worker.url, "COLUMNS": "200"})


def run_json(worker: StandaloneWorker, *args: str) -> Any:
    result = run(worker, *args, "--output", "json")
    assert result.exit_code == ExitCode.OK, result.output
    return json.loads(result.output)


def file_source(tmp_path: Path, name: str, lines: int = 3) -> dict[str, str]:
    source = tmp_path / f"{name}.txt"
    source.write_text("".join(f"line {n}\n" for n in range(lines)))
    return {"connector.class": "FileStreamSource", "file": str(source), "topic": unique("lines")}


def test_create_from_a_json_file_creates_the_connector(
    worker: StandaloneWorker, rest: httpx.Client, tmp_path: Path
) -> None:
    name = unique("from-json")
    path = tmp_path / "connector.json"
    path.write_text(json.dumps({"name": name, "config": file_source(tmp_path, name)}))
    body = run_json(worker, "connectors", "create", "-f", str(path))
    assert body["name"] == name and body["type"] == "source"
    assert rest.get(f"/connectors/{name}").status_code == 200


def test_create_from_a_properties_file_creates_the_connector(
    worker: StandaloneWorker, rest: httpx.Client, tmp_path: Path
) -> None:
    name = unique("from-properties")
    path = tmp_path / "connector.properties"
    config = {"name": name, **file_source(tmp_path, name)}
    path.write_text("".join(f"{key}={value}\n" for key, value in config.items()))
    result = run(worker, "connectors", "create", "-f", str(path))
    assert result.exit_code == ExitCode.OK, result.output
    assert f"Created connector {name}" in result.output
    assert rest.get(f"/connectors/{name}/config").json()["file"] == config["file"]


def test_create_with_resume_offsets_carries_on_from_a_deleted_namesakes_offsets(
    worker: StandaloneWorker, rest: httpx.Client, tmp_path: Path
) -> None:
    name = unique("again")
    config = file_source(tmp_path, name)
    offsets = [{"partition": {"filename": config["file"]}, "offset": {"position": 7}}]
    body = {"name": name, "config": config, "initial_state": "STOPPED", "initial_offsets": offsets}
    assert rest.post("/connectors", json=body).status_code == 201
    assert rest.delete(f"/connectors/{name}").status_code == 204
    path = tmp_path / "again.json"
    path.write_text(json.dumps({"name": name, "config": config}))
    result = run(worker, "connectors", "create", "-f", str(path), "--resume-offsets")
    assert result.exit_code == ExitCode.OK, result.output
    assert rest.get(f"/connectors/{name}/offsets").json()["offsets"] == offsets


def test_creating_an_invalid_connector_exits_6_with_the_workers_message(
    worker: StandaloneWorker, rest: httpx.Client, tmp_path: Path
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"name": unique("bad"), "config": {"connector.class": "NoSuchConnector"}}))
    result = run(worker, "connectors", "create", "-f", str(path))
    assert result.exit_code == ExitCode.BAD_REQUEST
    assert "Error:" in result.output and "NoSuchConnector" in result.output


def test_list_shows_each_connector_with_its_state(
    worker: StandaloneWorker, rest: httpx.Client, tmp_path: Path
) -> None:
    name = unique("listed")
    create_connector(rest, name, file_source(tmp_path, name))
    wait_for_states(rest, name, "RUNNING", ["RUNNING"])
    assert run_json(worker, "connectors", "list")[name]["status"]["connector"]["state"] == "RUNNING"
    table = run(worker, "connectors", "list")
    assert table.exit_code == ExitCode.OK
    row = next(line for line in table.output.splitlines() if name in line)
    assert "RUNNING" in row and "1/1 running" in row


def test_status_shows_what_the_rest_api_shows(
    worker: StandaloneWorker, rest: httpx.Client, tmp_path: Path
) -> None:
    name = unique("status")
    create_connector(rest, name, file_source(tmp_path, name))
    wait_for_states(rest, name, "RUNNING", ["RUNNING"])
    body = run_json(worker, "connectors", "status", name)
    assert body["name"] == name
    assert [task["state"] for task in body["tasks"]] == ["RUNNING"]


def test_status_of_a_failed_task_exits_8_and_shows_why(worker: StandaloneWorker, rest: httpx.Client) -> None:
    name = unique("failing")
    create_connector(rest, name, {"connector.class": FAILING_SOURCE, "fail.after.ms": "100"})
    wait_for_states(rest, name, "RUNNING", ["FAILED"])
    result = run(worker, "connectors", "status", name)
    assert result.exit_code == ExitCode.FAILED
    assert "FAILED" in result.output and "the failing source failed on purpose" in result.output
    assert run(worker, "status").exit_code == ExitCode.FAILED


def test_an_unknown_connector_exits_4(worker: StandaloneWorker, rest: httpx.Client) -> None:
    for command in (["connectors", "status", "missing"], ["connectors", "delete", "missing"]):
        result = run(worker, *command)
        assert result.exit_code == ExitCode.NOT_FOUND, result.output


@pytest.mark.parametrize(
    ("command", "done", "state"), [("pause", "paused", "PAUSED"), ("stop", "stopped", "STOPPED")]
)
def test_pause_and_stop_change_the_connectors_state_and_resume_runs_it_again(
    worker: StandaloneWorker, rest: httpx.Client, tmp_path: Path, command: str, done: str, state: str
) -> None:
    name = unique(command)
    create_connector(rest, name, file_source(tmp_path, name))
    wait_for_states(rest, name, "RUNNING", ["RUNNING"])
    assert run_json(worker, "connectors", command, name) == {"name": name, "action": done}
    wait_for_states(rest, name, state, [] if state == "STOPPED" else [state])
    assert run(worker, "connectors", "resume", name).exit_code == ExitCode.OK
    wait_for_states(rest, name, "RUNNING", ["RUNNING"])


def test_restart_of_failed_tasks_restarts_only_the_failed_task(
    worker: StandaloneWorker, rest: httpx.Client, tmp_path: Path
) -> None:
    name, marker = unique("fails-once"), tmp_path / "failed-once"
    create_connector(
        rest,
        name,
        {"connector.class": FAILING_SOURCE, "fail.after.ms": "100", "fail.once.marker": str(marker)},
    )
    wait_for_states(rest, name, "RUNNING", ["FAILED"])
    body = run_json(worker, "connectors", "restart", name, "--tasks", "--only-failed")
    assert body["connector"]["state"] == "RUNNING"
    assert [task["state"] for task in body["tasks"]] == ["RESTARTING"]
    wait_for_states(rest, name, "RUNNING", ["RUNNING"])


def test_delete_removes_the_connector(worker: StandaloneWorker, rest: httpx.Client, tmp_path: Path) -> None:
    name = unique("deleted")
    create_connector(rest, name, file_source(tmp_path, name))
    result = run(worker, "connectors", "delete", name)
    assert result.exit_code == ExitCode.OK and f"Deleted connector {name}" in result.output
    assert rest.get(f"/connectors/{name}").status_code == 404


def test_plugins_lists_the_connector_plugins_and_with_all_the_transforms(worker: StandaloneWorker) -> None:
    connectors = {plugin["class"] for plugin in run_json(worker, "plugins")}
    assert "org.apache.kafka.connect.file.FileStreamSourceConnector" in connectors
    every = run_json(worker, "plugins", "--all")
    assert "transformation" in {plugin["type"] for plugin in every}
    assert connectors < {plugin["class"] for plugin in every}


def test_status_watch_redraws_the_cluster_table(
    worker: StandaloneWorker, rest: httpx.Client, tmp_path: Path
) -> None:
    name = unique("watched")
    create_connector(rest, name, file_source(tmp_path, name))
    wait_for_states(rest, name, "RUNNING", ["RUNNING"])
    result = run(worker, "status", "--watch", "--interval", "0.1", "--count", "3")
    assert result.exit_code == ExitCode.OK, result.output
    assert name in result.output and "RUNNING" in result.output


def test_the_installed_command_takes_the_url_option_and_exits_3_when_no_worker_answers(
    worker: StandaloneWorker,
) -> None:
    command = [sys.executable, "-m", "conveyor.cli", "connectors", "list", "--output", "json"]
    env = {key: value for key, value in os.environ.items() if key != "CONVEYOR_URL"}
    answered = subprocess.run([*command, "--url", worker.url], capture_output=True, text=True, env=env)
    assert answered.returncode == ExitCode.OK, answered.stderr
    assert isinstance(json.loads(answered.stdout), dict)
    unreachable = subprocess.run(
        [*command, "--url", "http://127.0.0.1:9"], capture_output=True, text=True, env=env
    )
    assert unreachable.returncode == ExitCode.UNREACHABLE
    assert "Cannot reach the worker at http://127.0.0.1:9" in unreachable.stderr


def test_records_written_by_a_source_show_in_the_status_table(
    worker: StandaloneWorker, rest: httpx.Client, tmp_path: Path
) -> None:
    name = unique("counted")
    create_connector(rest, name, file_source(tmp_path, name, lines=5))
    wait_until(
        lambda: (
            rest.get(f"/connectors/{name}/status")
            .json()["tasks"][0]
            .get("metrics", {})
            .get("source-record-write-total")
            == 5
        ),
        "the five lines written",
    )
    result = run(worker, "connectors", "status", name)
    task_row = next(line for line in result.output.splitlines() if "RUNNING" in line and name not in line)
    assert " 5 " in task_row

"""`conveyor offsets get|alter|reset|export|import` against real workers over HTTP."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from tests.worker.support import (
    create_connector,
    delete_all_connectors,
    rest_client,
    running_worker,
    unique,
    wait_for_states,
    wait_until,
)

from conveyor.cli.exit_codes import ExitCode
from conveyor.cli.worker_process import StandaloneWorker

from .test_operator_commands import file_source, run, run_json


def committed_offsets(rest: httpx.Client, name: str) -> list[dict[str, object]]:
    return wait_until(lambda: rest.get(f"/connectors/{name}/offsets").json()["offsets"], "offsets committed")


def stopped_source(rest: httpx.Client, tmp_path: Path, name: str) -> dict[str, str]:
    """A file source that read its four lines, committed their offsets, and was stopped."""
    config = file_source(tmp_path, name, lines=4)
    create_connector(rest, name, config)
    committed_offsets(rest, name)
    rest.put(f"/connectors/{name}/stop")
    wait_for_states(rest, name, "STOPPED", [])
    return config


@pytest.fixture(scope="module")
def other_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StandaloneWorker]:
    """A second worker on a log of its own: another cluster to move a connector to."""
    with running_worker(tmp_path_factory.mktemp("other"), **{"task.restart.enable": "false"}) as started:
        yield started


@pytest.fixture
def other_rest(other_cluster: StandaloneWorker) -> Iterator[httpx.Client]:
    with rest_client(other_cluster) as client:
        yield client
        delete_all_connectors(client)


def test_get_lists_the_committed_offsets(
    worker: StandaloneWorker, rest: httpx.Client, tmp_path: Path
) -> None:
    name = unique("offsets")
    config = file_source(tmp_path, name, lines=4)
    create_connector(rest, name, config)
    committed_offsets(rest, name)
    [entry] = run_json(worker, "offsets", "get", name)["offsets"]
    assert entry["partition"] == {"filename": config["file"]}


def test_reset_is_refused_until_the_connector_is_stopped(
    worker: StandaloneWorker, rest: httpx.Client, tmp_path: Path
) -> None:
    name = unique("reset")
    create_connector(rest, name, file_source(tmp_path, name, lines=4))
    committed_offsets(rest, name)
    refused = run(worker, "offsets", "reset", name)
    assert refused.exit_code == ExitCode.BAD_REQUEST and "STOPPED" in refused.output
    assert run(worker, "connectors", "stop", name).exit_code == ExitCode.OK
    wait_for_states(rest, name, "STOPPED", [])
    reset = run_json(worker, "offsets", "reset", name)
    assert reset["message"] == "The offsets for this connector have been reset successfully"
    assert run_json(worker, "offsets", "get", name) == {"offsets": []}


def test_alter_gives_a_stopped_connector_the_offsets_of_a_file(
    worker: StandaloneWorker, rest: httpx.Client, tmp_path: Path
) -> None:
    name = unique("alter")
    config = stopped_source(rest, tmp_path, name)
    wanted = [{"partition": {"filename": config["file"]}, "offset": {"position": 7}}]
    path = tmp_path / "offsets.json"
    path.write_text(json.dumps({"offsets": wanted}))
    assert run(worker, "offsets", "alter", name, "-f", str(path)).exit_code == ExitCode.OK
    assert rest.get(f"/connectors/{name}/offsets").json()["offsets"] == wanted


def test_an_export_imports_on_another_cluster_as_the_same_connector_at_the_same_offsets(
    worker: StandaloneWorker,
    rest: httpx.Client,
    other_cluster: StandaloneWorker,
    other_rest: httpx.Client,
    tmp_path: Path,
) -> None:
    name = unique("moved")
    config = stopped_source(rest, tmp_path, name)
    exported = tmp_path / "export.json"
    assert run(worker, "offsets", "export", name, "-f", str(exported)).exit_code == ExitCode.OK
    imported = run(other_cluster, "offsets", "import", "-f", str(exported), "--state", "stopped")
    assert imported.exit_code == ExitCode.OK, imported.output
    assert other_rest.get(f"/connectors/{name}/config").json() == {**config, "name": name}
    moved = other_rest.get(f"/connectors/{name}/offsets").json()["offsets"]
    assert moved == rest.get(f"/connectors/{name}/offsets").json()["offsets"] != []


def test_an_import_into_an_existing_stopped_connector_alters_its_offsets(
    worker: StandaloneWorker, rest: httpx.Client, tmp_path: Path
) -> None:
    name = unique("existing")
    config = stopped_source(rest, tmp_path, name)
    wanted = [{"partition": {"filename": config["file"]}, "offset": {"position": 2}}]
    path = tmp_path / "export.json"
    path.write_text(json.dumps({"name": name, "config": config, "offsets": wanted}))
    assert run(worker, "offsets", "import", "-f", str(path)).exit_code == ExitCode.OK
    assert rest.get(f"/connectors/{name}/offsets").json()["offsets"] == wanted


def test_an_import_into_a_running_connector_is_refused_and_changes_nothing(
    worker: StandaloneWorker, rest: httpx.Client, tmp_path: Path
) -> None:
    name = unique("running")
    config = file_source(tmp_path, name, lines=4)
    create_connector(rest, name, config)
    before = committed_offsets(rest, name)
    path = tmp_path / "export.json"
    wanted = [{"partition": {"filename": config["file"]}, "offset": {"position": 2}}]
    path.write_text(json.dumps({"name": name, "config": config, "offsets": wanted}))
    refused = run(worker, "offsets", "import", "-f", str(path))
    assert refused.exit_code == ExitCode.BAD_REQUEST and "STOPPED" in refused.output
    assert rest.get(f"/connectors/{name}/offsets").json()["offsets"] == before


def test_a_file_that_is_no_export_is_refused_naming_it(worker: StandaloneWorker, tmp_path: Path) -> None:
    path = tmp_path / "not-an-export.json"
    path.write_text('{"offsets": []}')
    result = run(worker, "offsets", "import", "-f", str(path))
    assert result.exit_code == ExitCode.ERROR and "not an export file" in result.output

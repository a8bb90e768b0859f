"""Request bodies past the worker's limit (`rest.request.max.bytes`, 1 MiB by default) are 413s."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx

from conveyor.herder.standalone import StandaloneHerder
from conveyor.rest import RestServer, create_app
from conveyor.settings.worker_config import WorkerConfig

from .connectors import file_source_config, unique_name

ONE_MIB = 1024 * 1024


def _config_of_size(directory: Path, size: int) -> dict[str, str]:
    return {**file_source_config(directory), "padding": "x" * size}


def test_a_body_past_one_mib_is_a_413_and_nothing_is_stored(client: httpx.Client, tmp_path: Path) -> None:
    name = unique_name()
    response = client.put(f"/connectors/{name}/config", json=_config_of_size(tmp_path, ONE_MIB))
    assert response.status_code == 413
    assert response.json() == {
        "error_code": 413,
        "message": f"Request body is larger than the worker's limit of {ONE_MIB} bytes",
    }
    assert name not in client.get("/connectors").json()


def test_a_body_streamed_without_a_length_is_cut_off_at_the_limit(
    client: httpx.Client, tmp_path: Path
) -> None:
    def chunks() -> Iterator[bytes]:
        for _ in range(2 * ONE_MIB // 4096):
            yield b"x" * 4096

    response = client.put(
        f"/connectors/{unique_name()}/config", content=chunks(), headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 413


def test_a_body_under_the_limit_is_read(client: httpx.Client, tmp_path: Path) -> None:
    response = client.put(f"/connectors/{unique_name()}/config", json=_config_of_size(tmp_path, ONE_MIB // 2))
    assert response.status_code == 201


def test_the_limit_is_the_worker_setting_rest_request_max_bytes(
    herder: StandaloneHerder, tmp_path: Path
) -> None:
    limit = WorkerConfig.from_props({"rest.request.max.bytes": "1000"}).rest_request_max_bytes
    app = create_app(herder, max_request_bytes=limit)
    with RestServer(app, listeners="http://127.0.0.1:0") as server:
        response = httpx.put(
            f"{server.url}/connectors/{unique_name()}/config", json=_config_of_size(tmp_path, 1000)
        )
    assert limit == 1000
    assert response.status_code == 413

"""Until a worker has read its internal topics and started its connectors, it serves no connector data."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from conveyor.herder.standalone import StandaloneHerder

from .connectors import file_source_config, unique_name
from .serving import serving
from .workers import unstarted_herder


@pytest.fixture
def starting(tmp_path: Path) -> Iterator[tuple[StandaloneHerder, httpx.Client]]:
    """A worker whose REST API is up and whose herder has not started yet."""
    with unstarted_herder(tmp_path / "worker") as herder, serving(herder) as client:
        try:
            yield herder, client
        finally:
            herder.stop()


def _assert_starting(response: httpx.Response) -> None:
    assert response.status_code == 503, response.text
    assert response.json()["error_code"] == 503
    assert "starting up" in response.json()["message"]


@pytest.mark.parametrize(
    "path", ["/connectors", "/connectors?expand=status", "/connectors/any", "/connectors/any/status"]
)
def test_reading_connectors_while_starting_is_a_503(
    starting: tuple[StandaloneHerder, httpx.Client], path: str
) -> None:
    _assert_starting(starting[1].get(path))


def test_a_config_written_while_starting_is_refused_and_not_stored(
    starting: tuple[StandaloneHerder, httpx.Client], tmp_path: Path
) -> None:
    herder, client = starting
    name = unique_name()
    _assert_starting(client.put(f"/connectors/{name}/config", json=file_source_config(tmp_path)))
    herder.start()
    assert client.get("/connectors").json() == []


def test_the_worker_itself_answers_while_starting(starting: tuple[StandaloneHerder, httpx.Client]) -> None:
    client = starting[1]
    assert client.get("/").status_code == 200
    assert client.get("/connector-plugins").status_code == 200

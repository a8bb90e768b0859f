"""A connector's offsets (KIP-875) and active topics (KIP-558) over HTTP."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from .connectors import create_connector, file_source_config, unique_name, wait_for_status


@pytest.fixture
def source_file(tmp_path: Path) -> dict[str, str]:
    return file_source_config(tmp_path)


@pytest.fixture
def stopped(client: httpx.Client, source_file: dict[str, str]) -> str:
    """A file source connector that ran, then was stopped so its offsets can change."""
    name = unique_name()
    create_connector(client, name, source_file)
    wait_for_status(client, name, "RUNNING", ["RUNNING"])
    client.put(f"/connectors/{name}/stop")
    wait_for_status(client, name, "STOPPED", [])
    return name


def _offsets(client: httpx.Client, name: str) -> list[dict[str, Any]]:
    response = client.get(f"/connectors/{name}/offsets")
    assert response.status_code == 200
    offsets: list[dict[str, Any]] = response.json()["offsets"]
    return offsets


def test_offsets_are_listed_under_offsets(client: httpx.Client, stopped: str) -> None:
    response = client.get(f"/connectors/{stopped}/offsets")
    assert response.status_code == 200
    assert set(response.json()) == {"offsets"}


def test_altering_offsets_of_a_stopped_connector_answers_a_message(
    client: httpx.Client, stopped: str, source_file: dict[str, str]
) -> None:
    partition = {"filename": source_file["file"]}
    body = {"offsets": [{"partition": partition, "offset": {"position": 6}}]}
    response = client.patch(f"/connectors/{stopped}/offsets", json=body)
    assert response.status_code == 200
    assert "altered successfully" in response.json()["message"]
    assert {"partition": partition, "offset": {"position": 6}} in _offsets(client, stopped)


def test_resetting_offsets_of_a_stopped_connector_answers_a_message(
    client: httpx.Client, stopped: str
) -> None:
    response = client.delete(f"/connectors/{stopped}/offsets")
    assert response.status_code == 200
    assert "reset successfully" in response.json()["message"]
    assert _offsets(client, stopped) == []


@pytest.mark.parametrize("body", [None, {}, {"offsets": []}], ids=["no body", "no offsets", "empty offsets"])
def test_altering_without_offsets_is_a_400(client: httpx.Client, stopped: str, body: Any) -> None:
    response = client.patch(f"/connectors/{stopped}/offsets", json=body)
    assert response.status_code == 400
    assert response.json()["message"] == (
        "Partitions / offsets need to be provided for an alter offsets request"
    )


def test_altering_an_offset_without_a_partition_is_a_400(client: httpx.Client, stopped: str) -> None:
    response = client.patch(f"/connectors/{stopped}/offsets", json={"offsets": [{"offset": {"position": 1}}]})
    assert response.status_code == 400
    assert "partition" in response.json()["message"]


def test_altering_offsets_of_a_running_connector_is_a_400(
    client: httpx.Client, source_file: dict[str, str]
) -> None:
    name = unique_name()
    create_connector(client, name, source_file)
    body = {"offsets": [{"partition": {"filename": source_file["file"]}, "offset": {"position": 0}}]}
    response = client.patch(f"/connectors/{name}/offsets", json=body)
    assert response.status_code == 400
    assert "STOPPED" in response.json()["message"]


def test_offsets_of_an_unknown_connector_are_a_404(client: httpx.Client) -> None:
    assert client.get(f"/connectors/{unique_name('missing')}/offsets").status_code == 404


def test_active_topics_are_keyed_by_the_connector_name(
    client: httpx.Client, source_file: dict[str, str]
) -> None:
    name = unique_name()
    create_connector(client, name, source_file)
    wait_for_status(client, name, "RUNNING", ["RUNNING"])
    response = client.get(f"/connectors/{name}/topics")
    assert response.status_code == 200
    assert list(response.json()) == [name]
    assert isinstance(response.json()[name]["topics"], list)


def test_resetting_active_topics_answers_202_and_empties_them(client: httpx.Client, stopped: str) -> None:
    response = client.put(f"/connectors/{stopped}/topics/reset")
    assert response.status_code == 202
    assert client.get(f"/connectors/{stopped}/topics").json() == {stopped: {"topics": []}}


@pytest.fixture
def stopped_sink(client: httpx.Client, tmp_path: Path) -> str:
    """A file sink connector created STOPPED, so its offsets can change."""
    name = unique_name("sink")
    config = {"connector.class": "FileStreamSink", "file": str(tmp_path / "out.txt"), "topics": "lines"}
    create_connector(client, name, config, initial_state="STOPPED")
    return name


@pytest.mark.parametrize(
    "entry",
    [
        {"partition": {"kafka_topic": "lines", "kafka_partition": -1}, "offset": {"kafka_offset": 1}},
        {"partition": {"kafka_topic": "lines", "kafka_partition": 0}, "offset": {"kafka_offset": -1}},
        {"partition": {"kafka_topic": "lines", "kafka_partition": 0}, "offset": {"position": 1}},
    ],
)
def test_altering_a_sink_offset_to_a_negative_or_missing_number_is_a_400(
    client: httpx.Client, stopped_sink: str, entry: dict[str, Any]
) -> None:
    response = client.patch(f"/connectors/{stopped_sink}/offsets", json={"offsets": [entry]})
    assert response.status_code == 400, response.text

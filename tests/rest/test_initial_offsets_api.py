"""Offsets on create (KIP-995): `initial_offsets` in the `POST /connectors` body, shaped as the
`PATCH /connectors/{c}/offsets` body, is where a new connector starts; one created under the name of a
deleted one starts afresh unless `?resume_offsets=true` asks for the offsets its namesake left."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.waiting import wait_until
from tests.worker.support import read_values

from conveyor.herder.standalone import StandaloneHerder
from conveyor.log import TopicPartition

from .connectors import create_connector, file_source_config, unique_name, wait_for_status

AFTER_FIRST_LINE = 6


def position_offsets(config: dict[str, str], position: int) -> list[dict[str, Any]]:
    return [{"partition": {"filename": config["file"]}, "offset": {"position": position}}]


def two_or_more(values: list[bytes | None]) -> list[bytes | None] | None:
    return values if len(values) >= 2 else None


def test_a_connector_created_with_offsets_starts_from_them(
    client: httpx.Client, herder: StandaloneHerder, tmp_path: Path
) -> None:
    topic = unique_name("topic")
    config = file_source_config(tmp_path, topic)
    name = unique_name()
    create_connector(client, name, config, initial_offsets=position_offsets(config, AFTER_FIRST_LINE))
    wait_for_status(client, name, "RUNNING", ["RUNNING"])
    values = wait_until(lambda: two_or_more(read_values(herder.log, topic)), f"two lines in {topic}")
    assert not any(value is not None and b"first" in value for value in values)
    assert any(value is not None and b"second" in value for value in values)


def test_the_patch_body_shape_is_accepted_and_the_initial_state_kept(
    client: httpx.Client, tmp_path: Path
) -> None:
    config = file_source_config(tmp_path)
    name = unique_name()
    body = {"offsets": position_offsets(config, AFTER_FIRST_LINE)}
    create_connector(client, name, config, initial_offsets=body, initial_state="STOPPED")
    wait_for_status(client, name, "STOPPED", [])
    offsets = client.get(f"/connectors/{name}/offsets").json()["offsets"]
    assert offsets == position_offsets(config, AFTER_FIRST_LINE)


def test_a_paused_initial_state_applies_after_the_offsets(client: httpx.Client, tmp_path: Path) -> None:
    config = file_source_config(tmp_path)
    name = unique_name()
    create_connector(
        client,
        name,
        config,
        initial_offsets=position_offsets(config, AFTER_FIRST_LINE),
        initial_state="PAUSED",
    )
    wait_for_status(client, name, "PAUSED")


@pytest.mark.parametrize(
    ("initial_offsets", "message"),
    [
        ([], "Partitions / offsets need to be provided"),
        ([{"offset": {"position": 1}}], "partition"),
    ],
)
def test_offsets_a_patch_would_refuse_are_a_400_and_no_connector_is_created(
    client: httpx.Client, tmp_path: Path, initial_offsets: Any, message: str
) -> None:
    name = unique_name()
    response = client.post(
        "/connectors",
        json={"name": name, "config": file_source_config(tmp_path), "initial_offsets": initial_offsets},
    )
    assert response.status_code == 400
    assert message in response.json()["message"]
    assert client.get(f"/connectors/{name}").status_code == 404


def test_offsets_the_connector_refuses_undo_the_creation(client: httpx.Client, tmp_path: Path) -> None:
    name = unique_name()
    bad = [{"partition": {"filename": "/elsewhere"}, "offset": {"position": "not a number"}}]
    response = client.post(
        "/connectors", json={"name": name, "config": file_source_config(tmp_path), "initial_offsets": bad}
    )
    assert "expected to be a Long value" in response.json()["message"]
    assert client.get(f"/connectors/{name}").status_code == 404


def created_again_stopped(client: httpx.Client, name: str, config: dict[str, str], query: str = "") -> Any:
    """Delete ``name``, create it again STOPPED with the same config, and read its offsets."""
    assert client.delete(f"/connectors/{name}").status_code == 204
    body = {"name": name, "config": config, "initial_state": "STOPPED"}
    assert client.post(f"/connectors{query}", json=body).status_code == 201
    wait_for_status(client, name, "STOPPED", [])
    return client.get(f"/connectors/{name}/offsets").json()["offsets"]


def test_a_source_created_under_a_deleted_ones_name_starts_afresh(
    client: httpx.Client, tmp_path: Path
) -> None:
    config = file_source_config(tmp_path)
    name = unique_name()
    offsets = position_offsets(config, AFTER_FIRST_LINE)
    create_connector(client, name, config, initial_offsets=offsets, initial_state="STOPPED")
    assert created_again_stopped(client, name, config) == []


def test_a_source_created_under_a_deleted_ones_name_resumes_when_asked(
    client: httpx.Client, tmp_path: Path
) -> None:
    config = file_source_config(tmp_path)
    name = unique_name()
    offsets = position_offsets(config, AFTER_FIRST_LINE)
    create_connector(client, name, config, initial_offsets=offsets, initial_state="STOPPED")
    assert created_again_stopped(client, name, config, "?resume_offsets=true") == offsets


def sink_offsets(topic: str, offset: int) -> list[dict[str, Any]]:
    return [{"partition": {"kafka_topic": topic, "kafka_partition": 0}, "offset": {"kafka_offset": offset}}]


def stopped_sink_with_offsets(
    client: httpx.Client, herder: StandaloneHerder, tmp_path: Path
) -> tuple[str, dict[str, str], list[dict[str, Any]]]:
    """A STOPPED file sink created at offset 0 of a new topic: its name, config and offsets."""
    topic = unique_name("topic")
    herder.log.admin().create_topic(topic, partitions=1)
    config = {"connector.class": "FileStreamSink", "topics": topic, "file": str(tmp_path / "out.txt")}
    name = unique_name()
    offsets = sink_offsets(topic, 0)
    create_connector(client, name, config, initial_offsets=offsets, initial_state="STOPPED")
    assert client.get(f"/connectors/{name}/offsets").json()["offsets"] == offsets
    return name, config, offsets


def test_a_sink_created_under_a_deleted_ones_name_starts_afresh(
    client: httpx.Client, herder: StandaloneHerder, tmp_path: Path
) -> None:
    name, config, _ = stopped_sink_with_offsets(client, herder, tmp_path)
    assert created_again_stopped(client, name, config) == []


def test_a_sink_created_under_a_deleted_ones_name_resumes_when_asked(
    client: httpx.Client, herder: StandaloneHerder, tmp_path: Path
) -> None:
    name, config, offsets = stopped_sink_with_offsets(client, herder, tmp_path)
    assert created_again_stopped(client, name, config, "?resume_offsets=true") == offsets


def test_a_sink_whose_group_another_consumer_uses_is_not_reset_and_not_created(
    client: httpx.Client, herder: StandaloneHerder, tmp_path: Path
) -> None:
    name, config, _ = stopped_sink_with_offsets(client, herder, tmp_path)
    assert client.delete(f"/connectors/{name}").status_code == 204
    stranger = herder.log.consumer(f"connect-{name}")
    stranger.subscribe([config["topics"]])
    stranger.poll(timeout=1)
    try:
        response = client.post("/connectors", json={"name": name, "config": config})
    finally:
        stranger.close()
    assert response.status_code == 500
    assert f"consumer group connect-{name} has active members" in response.json()["message"]
    assert "?resume_offsets=true" in response.json()["message"]
    assert client.get(f"/connectors/{name}").status_code == 404
    committed = herder.log.admin().list_consumer_group_offsets(f"connect-{name}")
    assert {partition: entry.offset for partition, entry in committed.items()} == {
        TopicPartition(config["topics"], 0): 0
    }

"""A connector's offsets (KIP-875) and active topics (KIP-558) over HTTP."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.waiting import wait_until

from conveyor.herder.standalone import StandaloneHerder

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


def _active_topics(client: httpx.Client, name: str) -> list[str]:
    response = client.get(f"/connectors/{name}/topics")
    assert response.status_code == 200
    topics: list[str] = response.json()[name]["topics"]
    return topics


def test_a_source_s_active_topics_are_those_it_wrote_to(client: httpx.Client, tmp_path: Path) -> None:
    topic = unique_name("written")
    name = unique_name()
    create_connector(client, name, file_source_config(tmp_path, topic))
    assert wait_until(lambda: _active_topics(client, name), "the topic recorded as active") == [topic]


def test_a_sink_s_active_topics_are_those_it_consumed(
    client: httpx.Client, herder: StandaloneHerder, tmp_path: Path
) -> None:
    topic = unique_name("consumed")
    herder.log.admin().create_topic(topic, partitions=1)
    with herder.log.producer() as producer:
        producer.send(topic, b"a line")
    name = unique_name("sink")
    config = {"connector.class": "FileStreamSink", "file": str(tmp_path / "out.txt"), "topics": topic}
    create_connector(client, name, config)
    assert wait_until(lambda: _active_topics(client, name), "the topic recorded as active") == [topic]


def test_resetting_active_topics_answers_202_and_empties_them(client: httpx.Client, tmp_path: Path) -> None:
    name = unique_name()
    create_connector(client, name, file_source_config(tmp_path, unique_name("reset")))
    wait_until(lambda: _active_topics(client, name), "the source's topic recorded as active")
    response = client.put(f"/connectors/{name}/topics/reset")
    assert response.status_code == 202
    assert client.get(f"/connectors/{name}/topics").json() == {name: {"topics": []}}


@pytest.fixture
def stopped_sink(client: httpx.Client, herder: StandaloneHerder, tmp_path: Path) -> tuple[str, str]:
    """A file sink connector created STOPPED, and the existing topic it reads."""
    topic = unique_name("sunk")
    herder.log.admin().create_topic(topic, partitions=1)
    name = unique_name("sink")
    config = {"connector.class": "FileStreamSink", "file": str(tmp_path / "out.txt"), "topics": topic}
    create_connector(client, name, config, initial_state="STOPPED")
    return name, topic


def _sink_offsets(topic: str, partition: Any = 0, offset: Any = None) -> dict[str, Any]:
    return {
        "offsets": [{"partition": {"kafka_topic": topic, "kafka_partition": partition}, "offset": offset}]
    }


def test_a_sink_offset_may_be_given_as_a_string_of_digits(
    client: httpx.Client, stopped_sink: tuple[str, str]
) -> None:
    name, topic = stopped_sink
    response = client.patch(
        f"/connectors/{name}/offsets", json=_sink_offsets(topic, "0", {"kafka_offset": "5"})
    )
    assert response.status_code == 200, response.text
    assert _offsets(client, name) == [
        {"partition": {"kafka_topic": topic, "kafka_partition": 0}, "offset": {"kafka_offset": 5}}
    ]


BAD_SINK_OFFSETS = {
    "not a number": (
        {"kafka_offset": "not a number"},
        "Failed to parse the following Kafka offset value in the provided offsets: 'not a number'. "
        "Offset values for sink connectors need to be integers.",
    ),
    "an object": ({"kafka_offset": {}}, "Failed to parse the following Kafka offset value"),
    "fractional": ({"kafka_offset": 1.5}, "Failed to parse the following Kafka offset value"),
    "a boolean": ({"kafka_offset": True}, "Failed to parse the following Kafka offset value"),
    "negative": ({"kafka_offset": -1}, "Invalid negative offset -1"),
    "without kafka_offset": (
        {},
        "The offset for a sink connector should either be null or contain the key 'kafka_offset'",
    ),
}


@pytest.mark.parametrize(("offset", "message"), BAD_SINK_OFFSETS.values(), ids=list(BAD_SINK_OFFSETS))
def test_altering_a_sink_offset_to_a_value_that_is_no_offset_is_a_400(
    client: httpx.Client, stopped_sink: tuple[str, str], offset: dict[str, Any], message: str
) -> None:
    name, topic = stopped_sink
    response = client.patch(f"/connectors/{name}/offsets", json=_sink_offsets(topic, 0, offset))
    assert response.status_code == 400, response.text
    assert response.json()["message"].startswith(message)
    assert _offsets(client, name) == []


@pytest.mark.parametrize("partition", ["first", 0.5, None], ids=["a word", "fractional", "null"])
def test_altering_a_sink_offset_of_a_partition_that_is_no_number_is_a_400(
    client: httpx.Client, stopped_sink: tuple[str, str], partition: Any
) -> None:
    name, topic = stopped_sink
    response = client.patch(
        f"/connectors/{name}/offsets", json=_sink_offsets(topic, partition, {"kafka_offset": 1})
    )
    assert response.status_code == 400, response.text
    assert "Partition values for sink connectors need to be integers" in response.json()["message"]


def test_altering_a_sink_offset_of_a_partition_the_log_does_not_have_is_a_400_naming_it(
    client: httpx.Client, stopped_sink: tuple[str, str]
) -> None:
    name, topic = stopped_sink
    response = client.patch(f"/connectors/{name}/offsets", json=_sink_offsets(topic, 7, {"kafka_offset": 1}))
    assert response.status_code == 400, response.text
    assert f"{topic}-7" in response.json()["message"]

"""`/conveyor/history` and the topic browser's endpoints, over HTTP against the session's real worker."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
from tests.rest.connectors import create_connector, file_source_config, unique_name

import waiting

from .console import wait_for_states


def lines_in(client: httpx.Client, tmp_path: Path) -> str:
    """A topic the three lines of a file source have reached."""
    topic = unique_name("browsed")
    name = unique_name("browsed-source")
    create_connector(client, name, file_source_config(tmp_path, topic=topic))
    wait_for_states(client, name, "RUNNING", ["RUNNING"])
    waiting.wait_until(lambda: end_offset(client, topic) == 3, f"3 records in {topic}", timeout_s=60)
    return topic


def end_offset(client: httpx.Client, topic: str) -> int | None:
    response = client.get(f"/conveyor/topics/{quote(topic, safe='')}")
    return int(response.json()["partitions"][0]["end_offset"]) if response.status_code == 200 else None


def history_of(client: httpx.Client, name: str) -> list[dict[str, Any]]:
    response = client.get("/conveyor/history")
    assert response.status_code == 200, response.text
    return [
        sample["connectors"][name] for sample in response.json()["samples"] if name in sample["connectors"]
    ]


def test_history_holds_samples_of_each_connector_taken_on_the_worker(client: httpx.Client) -> None:
    name = unique_name("sampled")
    config = {"connector.class": "GeneratorSourceConnector", "topic": unique_name("sampled"), "rate": "100"}
    create_connector(client, name, config)
    points = waiting.wait_until(
        lambda: [p for p in history_of(client, name) if p["rate"] > 0], f"a sample of {name} moving", 90
    )
    assert points[0]["lag"] is None


def test_history_since_leaves_out_older_samples(client: httpx.Client) -> None:
    first = waiting.wait_until(
        lambda: client.get("/conveyor/history").json()["samples"], "a first sample", 60
    )
    latest = first[-1]["t"]
    later = client.get("/conveyor/history", params={"since": latest}).json()["samples"]
    assert all(sample["t"] > latest for sample in later)


def test_topics_lists_the_logs_topics_with_their_partitions(client: httpx.Client, tmp_path: Path) -> None:
    topic = lines_in(client, tmp_path)
    topics = {entry["name"]: entry for entry in client.get("/conveyor/topics").json()}
    assert topics[topic] == {"name": topic, "partitions": 1, "internal": False}
    assert any(entry["internal"] for entry in topics.values())


def test_a_topic_shows_each_partitions_beginning_and_end_offsets(
    client: httpx.Client, tmp_path: Path
) -> None:
    topic = lines_in(client, tmp_path)
    body = client.get(f"/conveyor/topics/{topic}").json()
    assert body["partitions"] == [
        {"partition": 0, "beginning_offset": 0, "end_offset": 3, "last_stable_offset": 3}
    ]


def test_last_records_are_decoded_with_the_workers_converters(client: httpx.Client, tmp_path: Path) -> None:
    topic = lines_in(client, tmp_path)
    body = client.get(f"/conveyor/topics/{topic}/partitions/0/records", params={"limit": 2}).json()
    assert body["value_converter"] == "org.apache.kafka.connect.json.JsonConverter"
    assert [(r["offset"], r["value"]["text"]) for r in body["records"]] == [(1, "second"), (2, "third")]


def test_an_unknown_topic_is_answered_404_with_kafka_connects_error_body(client: httpx.Client) -> None:
    response = client.get("/conveyor/topics/no-such-topic")
    assert response.status_code == 404
    assert response.json() == {
        "error_code": 404,
        "message": "Topic no-such-topic does not exist: GET /conveyor/topics lists them",
    }


def test_a_partition_the_topic_lacks_is_answered_404(client: httpx.Client, tmp_path: Path) -> None:
    topic = lines_in(client, tmp_path)
    response = client.get(f"/conveyor/topics/{topic}/partitions/3/records")
    assert response.status_code == 404
    assert "partitions 0 to 0" in response.json()["message"]


def test_a_limit_out_of_range_is_answered_400(client: httpx.Client, tmp_path: Path) -> None:
    topic = lines_in(client, tmp_path)
    response = client.get(f"/conveyor/topics/{topic}/partitions/0/records", params={"limit": 0})
    assert response.status_code == 400
    assert response.json()["message"] == "limit must be between 1 and 500, got 0"


def test_workers_lists_this_worker_with_its_memory_cpu_and_spark_slots(client: httpx.Client) -> None:
    response = client.get("/conveyor/workers")
    assert response.status_code == 200, response.text
    [usage] = response.json()
    assert usage["error"] is None
    assert usage["memory_bytes"] > 0
    assert usage["cpu_percent"] >= 0
    assert usage["processes"] >= 2
    assert usage["slots"]["total"] >= 1

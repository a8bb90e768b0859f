"""Bad connector configs and unknown plugins are refused with Kafka Connect's status codes and messages."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from conveyor.cli.worker_process import StandaloneWorker

from .support import delete_all_connectors, rest_client, running_worker, unique

INVALID = "Connector configuration is invalid and contains the following {} error(s)"


@pytest.fixture(scope="module")
def worker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StandaloneWorker]:
    with running_worker(tmp_path_factory.mktemp("configs")) as started:
        yield started


@pytest.fixture
def client(worker: StandaloneWorker) -> Iterator[httpx.Client]:
    with rest_client(worker) as rest:
        yield rest
        delete_all_connectors(rest)


def post(client: httpx.Client, config: dict[str, str]) -> httpx.Response:
    return client.post("/connectors", json={"name": unique("bad"), "config": config})


def file_source(**settings: str) -> dict[str, str]:
    return {"connector.class": "FileStreamSource", "tasks.max": "1", "topic": "lines", **settings}


def errors_by_key(infos: dict[str, Any]) -> dict[str, list[str]]:
    return {c["value"]["name"]: c["value"]["errors"] for c in infos["configs"] if c["value"]["errors"]}


def test_an_unknown_connector_class_is_a_400_naming_the_closest_plugins(client: httpx.Client) -> None:
    response = post(client, file_source(**{"connector.class": "FileStreamSorce"}))
    assert response.status_code == 400
    body = response.json()
    assert body["error_code"] == 400
    assert "FileStreamSorce" in body["message"]
    assert "FileStreamSource" in body["message"]


def test_a_non_numeric_tasks_max_is_a_400_listing_its_errors(client: httpx.Client) -> None:
    response = post(client, file_source(**{"tasks.max": "abc"}))
    assert response.status_code == 400
    message = response.json()["message"]
    # As Kafka's ConfigDef: the parse error, then the validator's complaint about the missing value.
    assert message.startswith(INVALID.format(2))
    assert "Invalid value abc for configuration tasks.max" in message


def test_a_missing_required_topic_is_a_400_listing_the_error(client: httpx.Client) -> None:
    config = file_source()
    del config["topic"]
    response = post(client, config)
    assert response.status_code == 400
    message = response.json()["message"]
    assert message.startswith(INVALID.format(1))
    assert "topic" in message


def test_the_message_counts_every_error_the_validate_endpoint_finds(client: httpx.Client) -> None:
    config = file_source(**{"tasks.max": "abc"})
    del config["topic"]
    validated = client.put("/connector-plugins/FileStreamSource/config/validate", json=config | {"name": "x"})
    response = post(client, config)
    assert response.status_code == 400
    assert response.json()["message"].startswith(INVALID.format(validated.json()["error_count"]))


def test_a_refused_connector_is_not_created(client: httpx.Client) -> None:
    post(client, file_source(**{"tasks.max": "abc"}))
    assert client.get("/connectors").json() == []


def test_validate_answers_200_with_the_error_count_and_each_error_on_its_key(client: httpx.Client) -> None:
    config = file_source(name="checked", **{"tasks.max": "abc"})
    del config["topic"]
    response = client.put("/connector-plugins/FileStreamSource/config/validate", json=config)
    assert response.status_code == 200
    infos = response.json()
    errors = errors_by_key(infos)
    assert set(errors) == {"tasks.max", "topic"}
    assert infos["error_count"] == sum(len(messages) for messages in errors.values()) == 3


def test_validate_reports_a_missing_name_as_kafka_does(client: httpx.Client) -> None:
    response = client.put("/connector-plugins/FileStreamSource/config/validate", json=file_source())
    assert errors_by_key(response.json()) == {
        "name": ['Missing required configuration "name" which has no default value.']
    }


def test_validate_of_a_good_config_has_no_errors(client: httpx.Client) -> None:
    response = client.put(
        "/connector-plugins/FileStreamSource/config/validate", json=file_source(name="checked")
    )
    assert response.status_code == 200
    assert response.json()["error_count"] == 0


def test_the_worker_serves_on_after_refusing_bad_configs(client: httpx.Client) -> None:
    post(client, file_source(**{"connector.class": "NoSuchConnector"}))
    post(client, file_source(**{"tasks.max": "abc"}))
    name = unique("good")
    response = client.post("/connectors", json={"name": name, "config": file_source(file="/dev/null")})
    assert response.status_code == 201, response.text

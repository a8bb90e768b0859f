"""`/connector-plugins`: the plugins a worker can run, their config keys, and config validation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from .connectors import file_source_config


def _plugins(client: httpx.Client, query: str = "") -> set[tuple[str, str]]:
    """The (class, type) pairs listed; a class may be listed once per type it serves as."""
    response = client.get(f"/connector-plugins{query}")
    assert response.status_code == 200
    return {(plugin["class"], plugin["type"]) for plugin in response.json()}


def test_the_listing_holds_only_connectors_by_default(client: httpx.Client) -> None:
    plugins = _plugins(client)
    assert {kind for _, kind in plugins} <= {"source", "sink"}
    assert any(name.endswith("FileStreamSourceConnector") and kind == "source" for name, kind in plugins)


def test_connectors_only_false_lists_every_kind_of_plugin(client: httpx.Client) -> None:
    kinds = {kind for _, kind in _plugins(client, "?connectorsOnly=false")}
    assert kinds == {
        "source",
        "sink",
        "transformation",
        "predicate",
        "converter",
        "header_converter",
        "configprovider",
        "rest_extension",
    }


def test_config_providers_and_rest_extensions_are_listed_with_versions_under_kafkas_names(
    client: httpx.Client,
) -> None:
    listed = {
        (plugin["class"], plugin["type"]): plugin.get("version")
        for plugin in client.get("/connector-plugins?connectorsOnly=false").json()
    }
    provider = ("org.apache.kafka.common.config.provider.FileConfigProvider", "configprovider")
    extension = (
        "org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension",
        "rest_extension",
    )
    assert listed[provider]
    assert listed[extension]


def test_a_config_provider_answers_its_config_keys(client: httpx.Client) -> None:
    response = client.get(
        "/connector-plugins/org.apache.kafka.common.config.provider.FileConfigProvider/config"
    )
    assert response.status_code == 200, response.text
    assert [key["name"] for key in response.json()] == ["allowed.paths"]


def test_a_rest_extension_answers_its_config_keys(client: httpx.Client) -> None:
    response = client.get("/connector-plugins/BasicAuthSecurityRestExtension/config")
    assert response.status_code == 200, response.text
    assert response.json() == []


def test_a_plugin_config_of_a_version_not_installed_is_a_400_listing_the_installed_ones(
    client: httpx.Client,
) -> None:
    installed = next(
        listed["version"]
        for listed in client.get("/connector-plugins?connectorsOnly=false").json()
        if listed["class"] == "org.apache.kafka.connect.json.JsonConverter"
    )
    response = client.get(
        "/connector-plugins/org.apache.kafka.connect.json.JsonConverter/config", params={"version": "0.0.1"}
    )
    assert response.status_code == 400
    assert response.json()["error_code"] == 400
    assert "0.0.1" in response.json()["message"]
    assert installed in response.json()["message"]


def test_connectors_only_is_read_in_any_case(client: httpx.Client) -> None:
    assert _plugins(client, "?connectorsOnly=FALSE") == _plugins(client, "?connectorsOnly=false")
    assert _plugins(client, "?connectorsOnly=True") == _plugins(client)


def test_a_plugin_answers_its_config_keys(client: httpx.Client) -> None:
    response = client.get("/connector-plugins/FileStreamSource/config")
    assert response.status_code == 200
    assert {"file", "topic", "batch.size"} <= {key["name"] for key in response.json()}


def test_an_unknown_plugin_config_is_a_404(client: httpx.Client) -> None:
    response = client.get("/connector-plugins/NoSuchConnector/config")
    assert response.status_code == 404
    assert response.json() == {"error_code": 404, "message": "Unknown plugin NoSuchConnector."}


def test_validating_a_good_config_answers_200_with_no_errors(client: httpx.Client, tmp_path: Path) -> None:
    config = {**file_source_config(tmp_path), "name": "lines"}
    response = client.put("/connector-plugins/FileStreamSource/config/validate", json=config)
    assert response.status_code == 200
    assert response.json()["error_count"] == 0


def test_validating_a_bad_config_still_answers_200_and_counts_its_errors(
    client: httpx.Client, tmp_path: Path
) -> None:
    config = {**file_source_config(tmp_path), "batch.size": "-5"}
    response = client.put("/connector-plugins/FileStreamSource/config/validate", json=config)
    assert response.status_code == 200
    assert response.json()["error_count"] >= 1


@pytest.mark.parametrize(
    ("path_plugin", "connector_class"),
    [
        ("FileStreamSource", "FileStreamSourceConnector"),
        ("FileStreamSourceConnector", "FileStreamSource"),
        ("FileStreamSource", "org.apache.kafka.connect.file.FileStreamSourceConnector"),
    ],
)
def test_the_connector_suffix_is_ignored_when_matching_the_class_to_the_path(
    client: httpx.Client, tmp_path: Path, path_plugin: str, connector_class: str
) -> None:
    config = {**file_source_config(tmp_path), "connector.class": connector_class}
    response = client.put(f"/connector-plugins/{path_plugin}/config/validate", json=config)
    assert response.status_code == 200


def test_validating_a_class_other_than_the_path_names_is_a_400(client: httpx.Client, tmp_path: Path) -> None:
    config = file_source_config(tmp_path)
    response = client.put("/connector-plugins/FileStreamSink/config/validate", json=config)
    assert response.status_code == 400
    assert response.json()["message"] == (
        "Included connector type FileStreamSource does not match request type FileStreamSink"
    )


def test_validating_without_connector_class_is_a_400(client: httpx.Client, tmp_path: Path) -> None:
    config = file_source_config(tmp_path)
    del config["connector.class"]
    response = client.put("/connector-plugins/FileStreamSource/config/validate", json=config)
    assert response.status_code == 400
    assert "connector.class" in response.json()["message"]


def _errors_of(body: dict[str, Any], key: str) -> list[str]:
    return [
        message
        for entry in body["configs"]
        if entry["value"]["name"] == key
        for message in entry["value"]["errors"]
    ]


def test_validating_a_duplicate_transform_alias_reports_it_on_transforms(
    client: httpx.Client, tmp_path: Path
) -> None:
    config = {
        **file_source_config(tmp_path),
        "transforms": "t1,t1",
        "transforms.t1.type": "org.apache.kafka.connect.transforms.InsertField$Value",
        "transforms.t1.static.field": "origin",
    }
    response = client.put("/connector-plugins/FileStreamSource/config/validate", json=config)
    assert response.status_code == 200, response.text
    assert any(
        "Duplicate alias provided." in message for message in _errors_of(response.json(), "transforms")
    )


def test_validating_an_uncompilable_topics_regex_with_a_dead_letter_queue_reports_it_on_topics_regex(
    client: httpx.Client, tmp_path: Path
) -> None:
    config = {
        "connector.class": "FileStreamSink",
        "file": str(tmp_path / "out.txt"),
        "topics.regex": "lines-(",
        "errors.deadletterqueue.topic.name": "dead-letters",
    }
    response = client.put("/connector-plugins/FileStreamSink/config/validate", json=config)
    assert response.status_code == 200, response.text
    assert _errors_of(response.json(), "topics.regex")

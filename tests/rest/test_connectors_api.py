"""`/connectors`: listing, creating, reading, reconfiguring and deleting connectors over HTTP."""

from __future__ import annotations

from pathlib import Path

import httpx

from .connectors import create_connector, file_source_config, unique_name, wait_for_status


def test_creating_a_connector_answers_201_with_its_location_and_info(
    client: httpx.Client, tmp_path: Path
) -> None:
    name = unique_name()
    config = file_source_config(tmp_path)
    response = client.post("/connectors", json={"name": name, "config": config})
    assert response.status_code == 201
    assert response.headers["Location"] == f"{client.base_url}/connectors/{name}"
    body = response.json()
    assert body["name"] == name
    assert body["config"] == {**config, "name": name}
    assert body["type"] == "source"


def test_a_created_connector_is_listed(client: httpx.Client, tmp_path: Path) -> None:
    name = unique_name()
    create_connector(client, name, file_source_config(tmp_path))
    response = client.get("/connectors")
    assert response.status_code == 200
    assert name in response.json()


def test_the_connector_name_is_trimmed(client: httpx.Client, tmp_path: Path) -> None:
    name = unique_name()
    response = client.post("/connectors", json={"name": f"  {name} ", "config": file_source_config(tmp_path)})
    assert response.status_code == 201
    assert response.json()["name"] == name


def test_numbers_and_booleans_in_a_config_are_read_as_text(client: httpx.Client, tmp_path: Path) -> None:
    config: dict[str, object] = {**file_source_config(tmp_path), "tasks.max": 1, "errors.log.enable": True}
    response = client.post("/connectors", json={"name": unique_name(), "config": config})
    assert response.status_code == 201
    assert response.json()["config"]["tasks.max"] == "1"
    assert response.json()["config"]["errors.log.enable"] == "true"


def test_creating_an_existing_connector_is_a_409(client: httpx.Client, tmp_path: Path) -> None:
    name = unique_name()
    create_connector(client, name, file_source_config(tmp_path))
    response = client.post("/connectors", json={"name": name, "config": file_source_config(tmp_path)})
    assert response.status_code == 409
    assert response.json()["error_code"] == 409


def test_a_config_name_other_than_the_connector_name_is_a_400(client: httpx.Client, tmp_path: Path) -> None:
    config = {**file_source_config(tmp_path), "name": "other"}
    response = client.post("/connectors", json={"name": "mine", "config": config})
    assert response.status_code == 400
    assert response.json() == {
        "error_code": 400,
        "message": "Connector name configuration (other) doesn't match connector name in the URL (mine)",
    }


def test_a_config_without_connector_class_is_a_400(client: httpx.Client, tmp_path: Path) -> None:
    config = file_source_config(tmp_path)
    del config["connector.class"]
    response = client.post("/connectors", json={"name": unique_name(), "config": config})
    assert response.status_code == 400
    assert "connector.class" in response.json()["message"]


def test_a_create_request_without_config_is_a_400(client: httpx.Client) -> None:
    response = client.post("/connectors", json={"name": unique_name()})
    assert response.status_code == 400


def test_a_connector_can_start_in_the_initial_state_given_in_any_case(
    client: httpx.Client, tmp_path: Path
) -> None:
    name = unique_name()
    create_connector(client, name, file_source_config(tmp_path), initial_state="paused")
    wait_for_status(client, name, "PAUSED")


def test_an_unknown_initial_state_is_a_400(client: httpx.Client, tmp_path: Path) -> None:
    body = {"name": unique_name(), "config": file_source_config(tmp_path), "initial_state": "SLEEPING"}
    response = client.post("/connectors", json=body)
    assert response.status_code == 400
    assert "initial_state" in response.json()["message"]


def test_expand_status_lists_each_connector_with_its_status(client: httpx.Client, tmp_path: Path) -> None:
    name = unique_name()
    create_connector(client, name, file_source_config(tmp_path))
    response = client.get("/connectors", params={"expand": "status"})
    assert response.status_code == 200
    expanded = response.json()[name]
    assert list(expanded) == ["status"]
    assert expanded["status"]["name"] == name
    assert expanded["status"]["type"] == "source"


def test_expand_may_repeat_to_ask_for_status_and_info(client: httpx.Client, tmp_path: Path) -> None:
    name = unique_name()
    create_connector(client, name, file_source_config(tmp_path))
    response = client.get("/connectors?expand=status&expand=info")
    expanded = response.json()[name]
    assert set(expanded) == {"status", "info"}
    assert expanded["info"] == client.get(f"/connectors/{name}").json()


def test_unknown_expansions_are_ignored(client: httpx.Client, tmp_path: Path) -> None:
    name = unique_name()
    create_connector(client, name, file_source_config(tmp_path))
    response = client.get("/connectors?expand=everything&expand=info")
    assert response.status_code == 200
    assert set(response.json()[name]) == {"info"}


def test_a_connector_answers_its_info_and_config(client: httpx.Client, tmp_path: Path) -> None:
    name = unique_name()
    config = file_source_config(tmp_path)
    create_connector(client, name, config)
    info = client.get(f"/connectors/{name}")
    assert info.status_code == 200
    assert info.json()["config"] == {**config, "name": name}
    assert client.get(f"/connectors/{name}/config").json() == {**config, "name": name}


def test_an_unknown_connector_is_a_404(client: httpx.Client) -> None:
    for path in ("", "/config", "/status", "/tasks"):
        response = client.get(f"/connectors/{unique_name('missing')}{path}")
        assert response.status_code == 404, path
        assert response.json()["error_code"] == 404


def test_putting_a_config_for_a_new_connector_creates_it_with_201(
    client: httpx.Client, tmp_path: Path
) -> None:
    name = unique_name()
    response = client.put(f"/connectors/{name}/config", json=file_source_config(tmp_path))
    assert response.status_code == 201
    assert response.headers["Location"] == f"{client.base_url}/connectors/{name}"
    assert response.json()["config"]["name"] == name


def test_putting_a_config_for_an_existing_connector_updates_it_with_200(
    client: httpx.Client, tmp_path: Path
) -> None:
    name = unique_name()
    create_connector(client, name, file_source_config(tmp_path))
    updated = file_source_config(tmp_path, topic="other-lines")
    response = client.put(f"/connectors/{name}/config", json=updated)
    assert response.status_code == 200
    assert "Location" not in response.headers
    assert client.get(f"/connectors/{name}/config").json()["topic"] == "other-lines"


def test_putting_a_config_whose_name_differs_from_the_path_is_a_400(
    client: httpx.Client, tmp_path: Path
) -> None:
    response = client.put("/connectors/mine/config", json={**file_source_config(tmp_path), "name": "other"})
    assert response.status_code == 400
    assert response.json()["message"] == (
        "Connector name configuration (other) doesn't match connector name in the URL (mine)"
    )


def test_patching_a_config_merges_keys_and_null_removes_one(client: httpx.Client, tmp_path: Path) -> None:
    name = unique_name()
    create_connector(client, name, {**file_source_config(tmp_path), "batch.size": "10"})
    response = client.patch(f"/connectors/{name}/config", json={"topic": "patched", "batch.size": None})
    assert response.status_code == 200
    config = client.get(f"/connectors/{name}/config").json()
    assert config["topic"] == "patched"
    assert "batch.size" not in config
    assert response.json()["config"] == config


def test_deleting_a_connector_answers_204_and_forgets_it(client: httpx.Client, tmp_path: Path) -> None:
    name = unique_name()
    create_connector(client, name, file_source_config(tmp_path))
    response = client.delete(f"/connectors/{name}")
    assert response.status_code == 204
    assert response.content == b""
    assert client.get(f"/connectors/{name}").status_code == 404
    assert name not in client.get("/connectors").json()


def test_deleting_an_unknown_connector_is_a_404(client: httpx.Client) -> None:
    assert client.delete(f"/connectors/{unique_name('missing')}").status_code == 404


def _with_duplicate_transform_alias(config: dict[str, str]) -> dict[str, str]:
    return {
        **config,
        "transforms": "t1,t1",
        "transforms.t1.type": "org.apache.kafka.connect.transforms.InsertField$Value",
        "transforms.t1.static.field": "origin",
        "transforms.t1.static.value": "file",
    }


def test_creating_a_connector_with_a_duplicate_transform_alias_is_a_400(
    client: httpx.Client, tmp_path: Path
) -> None:
    config = _with_duplicate_transform_alias(file_source_config(tmp_path))
    response = client.post("/connectors", json={"name": unique_name(), "config": config})
    assert response.status_code == 400, response.text
    assert "transforms" in response.json()["message"]
    assert "Duplicate alias provided." in response.json()["message"]


def test_putting_a_config_with_a_duplicate_transform_alias_is_a_400(
    client: httpx.Client, tmp_path: Path
) -> None:
    config = _with_duplicate_transform_alias(file_source_config(tmp_path))
    response = client.put(f"/connectors/{unique_name()}/config", json=config)
    assert response.status_code == 400, response.text
    assert "Duplicate alias provided." in response.json()["message"]


def _sink_reading_a_bad_regex_with_a_dead_letter_queue(directory: Path) -> dict[str, str]:
    return {
        "connector.class": "FileStreamSink",
        "file": str(directory / "out.txt"),
        "topics.regex": "lines-(",
        "errors.tolerance": "all",
        "errors.deadletterqueue.topic.name": "dead-letters",
    }


def test_creating_a_sink_with_an_uncompilable_topics_regex_and_a_dead_letter_queue_is_a_400_naming_the_key(
    client: httpx.Client, tmp_path: Path
) -> None:
    config = _sink_reading_a_bad_regex_with_a_dead_letter_queue(tmp_path)
    response = client.post("/connectors", json={"name": unique_name(), "config": config})
    assert response.status_code == 400, response.text
    assert "topics.regex" in response.json()["message"]


def test_a_connector_whose_name_holds_a_slash_is_reached_with_an_encoded_slash(
    client: httpx.Client, tmp_path: Path
) -> None:
    name = f"{unique_name()}/b"
    created = client.post("/connectors", json={"name": name, "config": file_source_config(tmp_path)})
    assert created.status_code == 201
    path = f"/connectors/{name.replace('/', '%2F')}"
    assert created.headers["Location"] == f"{client.base_url}{path}"
    assert client.get(path).json()["name"] == name
    assert client.get(f"{path}/status").json()["name"] == name
    assert client.delete(path).status_code == 204
    assert name not in client.get("/connectors").json()


def test_a_connector_whose_name_holds_a_percent_sign_is_reached_with_it_encoded(
    client: httpx.Client, tmp_path: Path
) -> None:
    name = f"{unique_name()}%2F"
    create_connector(client, name, file_source_config(tmp_path))
    assert client.get(f"/connectors/{name.replace('%', '%25')}/config").json()["name"] == name


def test_a_name_with_a_control_character_is_refused(client: httpx.Client, tmp_path: Path) -> None:
    response = client.post("/connectors", json={"name": "a\nb", "config": file_source_config(tmp_path)})
    assert response.status_code == 400
    assert "control" in response.json()["message"]
    assert client.put("/connectors/a%0Ab/config", json=file_source_config(tmp_path)).status_code == 400

"""Configs echoed in error messages show no secret: PASSWORD values by their type, unknown keys not at all."""

from __future__ import annotations

import httpx

from .connectors import TOKEN_SOURCE, create_connector, unique_name

TOKEN, AWS_KEY = "tok-3f9a1c", "aws-7d2e4b"


def test_a_patch_removing_the_class_hides_password_values_in_its_400(client: httpx.Client) -> None:
    name = unique_name("tokens")
    config = {
        "connector.class": TOKEN_SOURCE,
        "topic": "shown",
        "api.token": TOKEN,
        "aws.secret.access.key": AWS_KEY,
    }
    create_connector(client, name, config)

    response = client.patch(f"/connectors/{name}/config", json={"connector.class": None})

    assert response.status_code == 400
    message = response.json()["message"]
    assert "contains no connector type" in message
    assert TOKEN not in message and AWS_KEY not in message
    assert "'api.token': '[hidden]'" in message
    assert "'topic': 'shown'" in message


def test_a_400_echoes_no_value_of_a_key_no_definition_knows(client: httpx.Client) -> None:
    name = unique_name("tokens")
    create_connector(client, name, {"connector.class": TOKEN_SOURCE, "topic": "shown", "api.token": TOKEN})

    response = client.patch(
        f"/connectors/{name}/config", json={"connector.class": None, "db.url": "db://u:p@h"}
    )

    assert response.status_code == 400
    message = response.json()["message"]
    assert "db://u:p@h" not in message
    assert "'db.url': '[hidden]'" in message

"""Every failure reaches the client as Kafka Connect's error body with Kafka Connect's status code."""

from __future__ import annotations

import pytest

from conveyor.herder.errors import (
    AlreadyExistsError,
    BadRequestError,
    ConflictError,
    ForbiddenError,
    HerderError,
    NotFoundError,
    NotReadyError,
)

from .error_raising_herder import ErrorRaisingHerder
from .serving import serving

VALID_CONFIG = {"connector.class": "FileStreamSource", "file": "/tmp/in.txt", "topic": "lines"}

HERDER_CALLS = [
    ("GET", "/connectors", None),
    ("POST", "/connectors", {"name": "c", "config": VALID_CONFIG}),
    ("GET", "/connectors/c", None),
    ("DELETE", "/connectors/c", None),
    ("GET", "/connectors/c/config", None),
    ("PUT", "/connectors/c/config", VALID_CONFIG),
    ("PATCH", "/connectors/c/config", {"topic": "other"}),
    ("GET", "/connectors/c/status", None),
    ("GET", "/connectors/c/tasks", None),
    ("GET", "/connectors/c/tasks-config", None),
    ("GET", "/connectors/c/tasks/0/status", None),
    ("POST", "/connectors/c/tasks/0/restart", None),
    ("POST", "/connectors/c/restart?includeTasks=true", None),
    ("PUT", "/connectors/c/pause", None),
    ("PUT", "/connectors/c/resume", None),
    ("PUT", "/connectors/c/stop", None),
    ("GET", "/connectors/c/offsets", None),
    ("PATCH", "/connectors/c/offsets", {"offsets": [{"partition": {"file": "a"}, "offset": None}]}),
    ("DELETE", "/connectors/c/offsets", None),
    ("GET", "/connectors/c/topics", None),
    ("PUT", "/connectors/c/topics/reset", None),
    ("GET", "/connector-plugins", None),
    ("GET", "/connector-plugins/FileStreamSource/config", None),
    ("PUT", "/connector-plugins/FileStreamSource/config/validate", VALID_CONFIG),
    ("GET", "/", None),
]

ERROR_CLASSES = [
    (BadRequestError, 400),
    (ForbiddenError, 403),
    (NotFoundError, 404),
    (AlreadyExistsError, 409),
    (ConflictError, 409),
    (NotReadyError, 503),
    (HerderError, 500),
]


@pytest.mark.parametrize(("error_class", "status"), ERROR_CLASSES, ids=lambda value: str(value))
def test_every_herder_call_answers_a_herder_error_with_its_class_status_and_message(
    error_class: type[HerderError], status: int
) -> None:
    message = f"refused by {error_class.__name__}"
    with serving(ErrorRaisingHerder(error_class(message))) as client:
        for method, path, body in HERDER_CALLS:
            response = client.request(method, path, json=body)
            assert (method, path, response.status_code) == (method, path, status)
            assert response.json() == {"error_code": status, "message": message}


def test_an_unexpected_exception_is_a_500_with_its_message_in_the_error_body() -> None:
    with serving(ErrorRaisingHerder(RuntimeError("disk on fire"))) as client:
        response = client.get("/connectors/c/status")
    assert response.status_code == 500
    assert response.json() == {"error_code": 500, "message": "disk on fire"}


def test_a_failing_health_check_answers_500_unhealthy() -> None:
    with serving(ErrorRaisingHerder(RuntimeError("tick thread stuck"))) as client:
        response = client.get("/health")
    assert response.status_code == 500
    assert response.json()["status"] == "unhealthy"


def test_an_unknown_path_is_a_404_in_the_error_body() -> None:
    with serving(ErrorRaisingHerder(RuntimeError("unused"))) as client:
        response = client.get("/no/such/path")
    assert response.status_code == 404
    assert response.json() == {"error_code": 404, "message": "HTTP 404 Not Found"}


def test_an_unsupported_method_is_a_405_in_the_error_body() -> None:
    with serving(ErrorRaisingHerder(RuntimeError("unused"))) as client:
        response = client.delete("/connector-plugins")
    assert response.status_code == 405
    assert response.json() == {"error_code": 405, "message": "HTTP 405 Method Not Allowed"}


def test_a_task_id_that_is_not_a_number_is_a_404() -> None:
    with serving(ErrorRaisingHerder(RuntimeError("unused"))) as client:
        response = client.get("/connectors/c/tasks/first/status")
    assert response.status_code == 404
    assert response.json()["error_code"] == 404


def test_malformed_json_is_a_400_saying_the_json_is_malformed_and_where() -> None:
    with serving(ErrorRaisingHerder(RuntimeError("unused"))) as client:
        response = client.put(
            "/connectors/c/config", content=b'{"topic": ', headers={"Content-Type": "application/json"}
        )
    assert response.status_code == 400
    body = response.json()
    assert body["error_code"] == 400
    assert body["message"].startswith("Malformed JSON in request body: Expecting value (at character 10)")


def test_a_config_value_that_is_an_object_is_a_400_naming_the_key() -> None:
    with serving(ErrorRaisingHerder(RuntimeError("unused"))) as client:
        response = client.put("/connectors/c/config", json={**VALID_CONFIG, "topic": {"nested": 1}})
    assert response.status_code == 400
    assert "topic" in response.json()["message"]


def test_a_missing_body_is_a_400() -> None:
    with serving(ErrorRaisingHerder(RuntimeError("unused"))) as client:
        response = client.post("/connectors", headers={"Content-Type": "application/json"})
    assert response.status_code == 400
    assert response.json() == {"error_code": 400, "message": "Request body is missing"}


def test_a_body_that_is_not_json_is_a_415() -> None:
    with serving(ErrorRaisingHerder(RuntimeError("unused"))) as client:
        response = client.put("/connectors/c/config", data={"topic": "lines"})
    assert response.status_code == 415
    assert response.json() == {"error_code": 415, "message": "HTTP 415 Unsupported Media Type"}

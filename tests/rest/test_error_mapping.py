"""Every failure reaches the client as Kafka Connect's error body with Kafka Connect's status code."""

from __future__ import annotations

import pytest

from conveyor.api.config import ClassNotFound
from conveyor.errors import (
    AlreadyExistsError,
    BadRequestError,
    ConfigError,
    ConnectError,
    ForbiddenError,
    NotFoundError,
    NotReadyError,
)
from conveyor.log import InvalidConfigError, RebalanceInProgressError
from conveyor.plugins import PluginNotFoundError
from conveyor.storage import StorageError, StorageTimeoutError

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

ERRORS = [
    (BadRequestError("refused by BadRequestError"), 400),
    (ConfigError("refused by ConfigError"), 400),
    (ForbiddenError("refused by ForbiddenError"), 403),
    (NotFoundError("refused by NotFoundError"), 404),
    (AlreadyExistsError("refused by AlreadyExistsError"), 409),
    (RebalanceInProgressError("refused by RebalanceInProgressError"), 409),
    (NotReadyError("refused by NotReadyError"), 503),
    (ConnectError("refused by ConnectError"), 500),
]

SUBCLASSES = [
    (InvalidConfigError("refused by InvalidConfigError"), 400),
    (PluginNotFoundError("refused by PluginNotFoundError", "Nope", []), 404),
    (ClassNotFound("refused by ClassNotFound"), 404),
    (StorageTimeoutError("refused by StorageTimeoutError"), 500),
    (StorageError("refused by StorageError"), 500),
]


@pytest.mark.parametrize(("error", "status"), ERRORS, ids=lambda value: str(value))
def test_every_herder_call_answers_a_conveyor_error_with_its_kind_status_and_message(
    error: ConnectError, status: int
) -> None:
    message = str(error)
    with serving(ErrorRaisingHerder(error)) as client:
        for method, path, body in HERDER_CALLS:
            response = client.request(method, path, json=body)
            assert (method, path, response.status_code) == (method, path, status)
            assert response.json() == {"error_code": status, "message": message}


@pytest.mark.parametrize(("error", "status"), SUBCLASSES, ids=lambda value: str(value))
def test_an_error_answers_the_status_of_its_nearest_mapped_kind(error: ConnectError, status: int) -> None:
    with serving(ErrorRaisingHerder(error)) as client:
        response = client.get("/connectors/c/status")
    assert response.json() == {"error_code": status, "message": str(error)}


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


def test_a_405_names_the_methods_the_path_allows() -> None:
    with serving(ErrorRaisingHerder(RuntimeError("unused"))) as client:
        response = client.delete("/connector-plugins")
    assert response.headers["Allow"] == "GET"


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

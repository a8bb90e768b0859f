"""`/admin/loggers` (KIP-495) over HTTP, at worker scope."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator

import httpx
import pytest

from conveyor.herder.api import Herder

from .serving import serving


@pytest.fixture
def namespace() -> Iterator[str]:
    name = f"conveyor_rest_test_{uuid.uuid4().hex}"
    logging.getLogger(name).setLevel(logging.INFO)
    yield name
    manager = logging.root.manager
    for logger_name in [key for key in manager.loggerDict if key == name or key.startswith(name + ".")]:
        del manager.loggerDict[logger_name]


def test_the_listing_includes_root_and_known_loggers_with_their_levels(
    client: httpx.Client, namespace: str
) -> None:
    response = client.get("/admin/loggers")
    assert response.status_code == 200
    loggers = response.json()
    assert "root" in loggers
    assert loggers[namespace] == {"level": "INFO", "last_modified": None}


def test_a_logger_answers_its_level(client: httpx.Client, namespace: str) -> None:
    response = client.get(f"/admin/loggers/{namespace}")
    assert response.status_code == 200
    assert response.json() == {"level": "INFO", "last_modified": None}


def test_an_unknown_logger_is_a_404(client: httpx.Client, namespace: str) -> None:
    response = client.get(f"/admin/loggers/{namespace}.absent")
    assert response.status_code == 404
    assert response.json() == {"error_code": 404, "message": f"Logger {namespace}.absent not found."}


def test_setting_a_level_answers_the_loggers_changed_and_records_when(
    client: httpx.Client, namespace: str
) -> None:
    logging.getLogger(f"{namespace}.child")
    response = client.put(f"/admin/loggers/{namespace}", json={"level": "debug"})
    assert response.status_code == 200
    assert response.json() == [namespace, f"{namespace}.child"]
    level = client.get(f"/admin/loggers/{namespace}.child").json()
    assert level["level"] == "DEBUG"
    assert isinstance(level["last_modified"], int)
    assert logging.getLogger(f"{namespace}.child").isEnabledFor(logging.DEBUG)


def test_setting_the_same_level_again_changes_nothing_and_keeps_the_timestamp(
    client: httpx.Client, namespace: str
) -> None:
    client.put(f"/admin/loggers/{namespace}", json={"level": "ERROR"})
    first = client.get(f"/admin/loggers/{namespace}").json()
    response = client.put(f"/admin/loggers/{namespace}", json={"level": "ERROR"})
    assert response.json() == []
    assert client.get(f"/admin/loggers/{namespace}").json() == first


def test_an_invalid_level_is_a_404(client: httpx.Client, namespace: str) -> None:
    response = client.put(f"/admin/loggers/{namespace}", json={"level": "LOUD"})
    assert response.status_code == 404
    assert response.json() == {"error_code": 404, "message": "invalid log level 'LOUD'."}


@pytest.mark.parametrize("body", [{}, {"level": None}], ids=["no level", "null level"])
def test_a_request_without_a_level_is_a_400(client: httpx.Client, namespace: str, body: object) -> None:
    response = client.put(f"/admin/loggers/{namespace}", json=body)
    assert response.status_code == 400
    assert response.json()["message"] == "Desired 'level' parameter was not specified in request."


def test_cluster_scope_is_served_as_worker_scope(client: httpx.Client, namespace: str) -> None:
    response = client.put(f"/admin/loggers/{namespace}?scope=cluster", json={"level": "WARN"})
    assert response.status_code == 200
    assert response.json() == [namespace]
    assert logging.getLogger(namespace).level == logging.WARNING


def test_loggers_are_not_served_when_admin_is_disabled(herder: Herder) -> None:
    with serving(herder, admin_enabled=False) as client:
        response = client.get("/admin/loggers")
    assert response.status_code == 404

"""Requests workers send each other pass basic authentication: their endpoints check signatures instead.

A test-only endpoint shaped like Kafka's `POST /connectors/{c}/tasks` sits behind the signature
verifier and the basic-auth extension loaded by Kafka's class name, served over HTTP.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import Depends, FastAPI

from conveyor.herder.distributed.request_signature import signature_headers
from conveyor.herder.distributed.session_keys import SessionKeyGenerator
from conveyor.rest import RestServer
from conveyor.rest.errors import install_error_handlers
from conveyor.rest.extensions import RequestFilterMiddleware, RestExtensions
from conveyor.rest.internal_requests import InternalRequestVerifier

from .credentials import BASIC_AUTH_EXTENSION, PLAIN_USER, write_credentials

KEY = SessionKeyGenerator().generate(1_700_000_000_000)
BODY = json.dumps([{"task.class": "FileStreamSourceTask"}]).encode()


class NoClusterState:
    """The extension under test never reads the cluster."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"unexpected cluster state call {name}")


@pytest.fixture
def client(tmp_path: Path) -> Iterator[httpx.Client]:
    props = {"java.security.auth.login.config": str(write_credentials(tmp_path))}
    extensions = RestExtensions.load([BASIC_AUTH_EXTENSION], props, NoClusterState())  # type: ignore[arg-type]
    verifier = InternalRequestVerifier(lambda: KEY, ["HmacSHA256"])
    app = FastAPI()

    @app.post("/connectors/{connector}/tasks")
    def put_task_configs(connector: str, body: bytes = Depends(verifier)) -> dict[str, Any]:
        return {"connector": connector}

    @app.get("/connectors/{connector}/tasks")
    def task_configs(connector: str) -> list[Any]:
        return []

    install_error_handlers(app)
    app.add_middleware(RequestFilterMiddleware, filters=extensions.filters)
    with (
        RestServer(app, "http://127.0.0.1:0") as server,
        httpx.Client(base_url=server.url, timeout=30) as http,
    ):
        yield http
    extensions.close()


def test_a_signed_internal_request_passes_without_user_credentials(client: httpx.Client) -> None:
    headers = {"Content-Type": "application/json", **signature_headers(KEY, BODY, "HmacSHA256")}
    response = client.post("/connectors/orders/tasks", content=BODY, headers=headers)
    assert response.status_code == 200
    assert response.json() == {"connector": "orders"}


def test_an_unsigned_internal_request_is_refused_by_the_signature_check(client: httpx.Client) -> None:
    response = client.post("/connectors/orders/tasks", content=BODY)
    assert response.status_code == 400
    assert response.json()["message"] == "Internal request missing required signature"


def test_the_same_path_with_another_method_needs_user_credentials(client: httpx.Client) -> None:
    assert client.get("/connectors/orders/tasks").status_code == 401
    assert client.get("/connectors/orders/tasks", auth=PLAIN_USER).status_code == 200

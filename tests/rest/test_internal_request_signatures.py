"""Internal endpoints refuse improperly signed requests over HTTP, as Kafka Connect's workers do (KIP-507).

A test-only endpoint shaped like Kafka's ``POST /connectors/{c}/tasks`` sits behind the verifier; the
session key comes from a real config store on an embedded log, as a worker's will.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import Depends, FastAPI

from conveyor.herder.distributed.request_signature import (
    SIGNATURE_ALGORITHM_HEADER,
    SIGNATURE_HEADER,
    signature_headers,
)
from conveyor.herder.distributed.session_keys import SessionKeyGenerator
from conveyor.log import open_log
from conveyor.rest import RestServer
from conveyor.rest.errors import install_error_handlers
from conveyor.rest.internal_requests import InternalRequestVerifier
from conveyor.storage import ConfigStore

TASKS = [{"task.class": "FileStreamSourceTask", "file": "/tmp/in.txt"}]
BODY = json.dumps(TASKS).encode()
KEY = SessionKeyGenerator().generate(1_700_000_000_000)
PATH = "/connectors/orders/tasks"


class Validation:
    """Whether the group signs its requests; on unless a test turns it off."""

    def __init__(self) -> None:
        self.enabled = True

    def __call__(self) -> bool:
        return self.enabled


@pytest.fixture
def store(tmp_path: Path) -> Iterator[ConfigStore]:
    with open_log(f"embedded:{tmp_path / 'log'}") as log:
        started = ConfigStore(log)
        started.start()
        yield started
        started.stop()


@pytest.fixture
def validation() -> Validation:
    return Validation()


@pytest.fixture
def client(store: ConfigStore, validation: Validation) -> Iterator[httpx.Client]:
    verifier = InternalRequestVerifier(lambda: store.snapshot().session_key, ["HmacSHA256"], validation)
    app = FastAPI()

    @app.post("/connectors/{connector}/tasks")
    def put_task_configs(connector: str, body: bytes = Depends(verifier)) -> dict[str, Any]:
        return {"connector": connector, "tasks": json.loads(body)}

    install_error_handlers(app)
    with (
        RestServer(app, listeners="http://127.0.0.1:0") as server,
        httpx.Client(base_url=server.url, timeout=30.0) as http,
    ):
        yield http


def post(client: httpx.Client, headers: dict[str, str], body: bytes = BODY) -> httpx.Response:
    return client.post(PATH, content=body, headers={"Content-Type": "application/json", **headers})


def test_a_request_signed_with_the_current_key_reaches_the_endpoint(
    client: httpx.Client, store: ConfigStore
) -> None:
    store.put_session_key(KEY)
    response = post(client, signature_headers(KEY, BODY, "HmacSHA256"))
    assert response.status_code == 200
    assert response.json() == {"connector": "orders", "tasks": TASKS}


def test_a_signature_of_another_body_is_forbidden(client: httpx.Client, store: ConfigStore) -> None:
    store.put_session_key(KEY)
    response = post(client, signature_headers(KEY, b"[]", "HmacSHA256"))
    assert response.status_code == 403
    assert response.json() == {"error_code": 403, "message": "Internal request contained invalid signature."}


def test_a_signature_made_with_another_key_is_forbidden(client: httpx.Client, store: ConfigStore) -> None:
    store.put_session_key(KEY)
    other = SessionKeyGenerator().generate(KEY.creation_timestamp)
    assert post(client, signature_headers(other, BODY, "HmacSHA256")).status_code == 403


def test_a_signature_made_with_a_rotated_out_key_is_forbidden(
    client: httpx.Client, store: ConfigStore
) -> None:
    store.put_session_key(KEY)
    store.put_session_key(SessionKeyGenerator().generate(KEY.creation_timestamp + 3_600_000))
    assert post(client, signature_headers(KEY, BODY, "HmacSHA256")).status_code == 403


@pytest.mark.parametrize("header", [SIGNATURE_HEADER, SIGNATURE_ALGORITHM_HEADER])
def test_a_request_missing_a_signature_header_is_a_bad_request(
    client: httpx.Client, store: ConfigStore, header: str
) -> None:
    store.put_session_key(KEY)
    headers = signature_headers(KEY, BODY, "HmacSHA256")
    del headers[header]
    response = post(client, headers)
    assert response.status_code == 400
    assert response.json()["message"] == "Internal request missing required signature"


def test_an_algorithm_the_worker_does_not_verify_is_a_bad_request(
    client: httpx.Client, store: ConfigStore
) -> None:
    store.put_session_key(KEY)
    response = post(client, signature_headers(KEY, BODY, "HmacSHA512"))
    assert response.status_code == 400
    assert "'HmacSHA512' key signing algorithm" in response.json()["message"]


def test_an_algorithm_unknown_to_the_worker_is_a_bad_request(
    client: httpx.Client, store: ConfigStore
) -> None:
    store.put_session_key(KEY)
    response = post(client, {SIGNATURE_HEADER: "AAAA", SIGNATURE_ALGORITHM_HEADER: "HmacWhirlpool"})
    assert response.status_code == 400


def test_a_worker_that_has_read_no_session_key_is_unavailable(client: httpx.Client) -> None:
    response = post(client, signature_headers(KEY, BODY, "HmacSHA256"))
    assert response.status_code == 503
    assert "has not been able to read a session key" in response.json()["message"]


def test_requests_pass_unsigned_while_the_group_does_not_sign_them(
    client: httpx.Client, validation: Validation
) -> None:
    validation.enabled = False
    assert post(client, {}).status_code == 200


def test_header_names_match_whatever_their_case(client: httpx.Client, store: ConfigStore) -> None:
    store.put_session_key(KEY)
    headers = {name.lower(): value for name, value in signature_headers(KEY, BODY, "HmacSHA256").items()}
    assert post(client, headers).status_code == 200

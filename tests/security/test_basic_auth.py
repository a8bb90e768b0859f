"""Kafka Connect's `BasicAuthSecurityRestExtension`, named by its Java class, on a real worker over HTTP."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from conveyor.cli.worker_process import StandaloneWorker

from .credentials import BCRYPT_USER, PLAIN_USER, SHA256_USER, basic_auth_props, stored_password
from .workers import running_worker


@pytest.fixture(scope="module")
def worker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StandaloneWorker]:
    folder = tmp_path_factory.mktemp("basic-auth")
    with running_worker(folder, basic_auth_props(folder)) as started:
        yield started


@pytest.fixture
def client(worker: StandaloneWorker) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=worker.url, timeout=30) as http:
        yield http


def test_a_request_without_credentials_is_401_with_a_basic_challenge(client: httpx.Client) -> None:
    response = client.get("/connectors")
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"] == 'Basic realm="KafkaConnect"'
    assert response.json() == {"error_code": 401, "message": "User cannot access the resource."}


def test_a_wrong_password_is_401(client: httpx.Client) -> None:
    assert client.get("/connectors", auth=(PLAIN_USER[0], "guess")).status_code == 401


def test_an_unknown_user_is_401(client: httpx.Client) -> None:
    assert client.get("/connectors", auth=("mallory", PLAIN_USER[1])).status_code == 401


def test_credentials_of_another_scheme_are_401(client: httpx.Client) -> None:
    assert client.get("/connectors", headers={"Authorization": "Bearer alice-secret"}).status_code == 401


@pytest.mark.parametrize("user", [PLAIN_USER, BCRYPT_USER, SHA256_USER], ids=["plain", "bcrypt", "sha256"])
def test_a_user_with_the_password_of_the_credentials_file_is_served(
    client: httpx.Client, user: tuple[str, str]
) -> None:
    response = client.get("/connectors", auth=user)
    assert response.status_code == 200
    assert response.json() == []


def test_a_stored_hash_itself_is_not_a_password(client: httpx.Client, worker: StandaloneWorker) -> None:
    jaas = Path(worker.config.props["java.security.auth.login.config"])
    stored = stored_password(jaas, BCRYPT_USER[0])
    assert stored.startswith("{bcrypt}$2b$")
    assert client.get("/connectors", auth=(BCRYPT_USER[0], stored)).status_code == 401


def test_every_endpoint_is_guarded_not_only_connectors(client: httpx.Client) -> None:
    for path in ["/", "/connector-plugins", "/admin/loggers", "/openapi.json"]:
        assert client.get(path).status_code == 401, path

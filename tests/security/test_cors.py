"""CORS (`access.control.allow.origin` and `.methods`) on a real worker, beside basic authentication."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from conveyor.cli.worker_process import StandaloneWorker

from .credentials import PLAIN_USER, basic_auth_props
from .workers import running_worker

CONSOLE = "https://console.example.com"


@pytest.fixture(scope="module")
def worker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StandaloneWorker]:
    folder = tmp_path_factory.mktemp("cors")
    props = {
        "access.control.allow.origin": f"{CONSOLE},https://*.ops.example.com",
        "access.control.allow.methods": "GET,POST,PUT,DELETE",
        **basic_auth_props(folder),
    }
    with running_worker(folder, props) as started:
        yield started


@pytest.fixture(scope="module")
def plain_worker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StandaloneWorker]:
    with running_worker(tmp_path_factory.mktemp("no-cors"), {}) as started:
        yield started


def preflight(worker: StandaloneWorker, origin: str, method: str) -> httpx.Response:
    headers = {"Origin": origin, "Access-Control-Request-Method": method}
    return httpx.options(f"{worker.url}/connectors/orders/config", headers=headers, timeout=30)


def test_a_preflight_from_an_allowed_origin_is_answered_without_credentials(worker: StandaloneWorker) -> None:
    response = preflight(worker, CONSOLE, "PUT")
    assert response.status_code == 200
    assert response.headers["Access-Control-Allow-Origin"] == CONSOLE
    assert "PUT" in response.headers["Access-Control-Allow-Methods"]


def test_an_origin_matching_a_wildcard_is_allowed(worker: StandaloneWorker) -> None:
    origin = "https://eu.ops.example.com"
    assert preflight(worker, origin, "GET").headers["Access-Control-Allow-Origin"] == origin


def test_a_preflight_from_another_origin_is_not_allowed(worker: StandaloneWorker) -> None:
    response = preflight(worker, "https://evil.example.net", "DELETE")
    assert "Access-Control-Allow-Origin" not in response.headers


def test_a_method_not_in_the_allowed_methods_is_not_allowed(worker: StandaloneWorker) -> None:
    assert preflight(worker, CONSOLE, "PATCH").status_code == 400


def test_an_authenticated_request_from_an_allowed_origin_carries_the_cors_headers(
    worker: StandaloneWorker,
) -> None:
    response = httpx.get(f"{worker.url}/connectors", headers={"Origin": CONSOLE}, auth=PLAIN_USER, timeout=30)
    assert response.status_code == 200
    assert response.headers["Access-Control-Allow-Origin"] == CONSOLE


def test_without_the_cors_keys_no_origin_is_allowed(plain_worker: StandaloneWorker) -> None:
    response = httpx.get(f"{plain_worker.url}/connectors", headers={"Origin": CONSOLE}, timeout=30)
    assert response.status_code == 200
    assert "Access-Control-Allow-Origin" not in response.headers

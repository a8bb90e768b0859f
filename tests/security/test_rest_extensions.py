"""A REST extension written by a user (`conveyor.api.ConnectRestExtension`), loaded by a real worker."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from tests.security.token_extension import TOKEN, TokenExtension

from conveyor.cli.worker_process import StandaloneWorker

from .workers import running_worker


def extension_props(token: str = TOKEN) -> dict[str, str]:
    return {
        "rest.extension.classes": "tests.security.token_extension:TokenExtension",
        "rest.token": token,
    }


@pytest.fixture(scope="module")
def worker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StandaloneWorker]:
    with running_worker(tmp_path_factory.mktemp("extension"), extension_props()) as started:
        yield started


def test_the_extensions_filter_refuses_a_request_without_its_token(worker: StandaloneWorker) -> None:
    response = httpx.get(f"{worker.url}/connectors", timeout=30)
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"] == "Bearer"
    assert response.json() == {"error_code": 401, "message": "Token required"}


def test_a_request_with_the_token_reaches_the_endpoint(worker: StandaloneWorker) -> None:
    headers = {"Authorization": f"Bearer {TOKEN}"}
    assert httpx.get(f"{worker.url}/connectors", headers=headers, timeout=30).status_code == 200


def test_filters_run_in_order_and_may_answer_from_the_cluster_state(worker: StandaloneWorker) -> None:
    headers = {"Authorization": f"Bearer {TOKEN}"}
    response = httpx.get(f"{worker.url}/token-extension/cluster", headers=headers, timeout=30)
    assert response.status_code == 200
    assert response.json()["connectors"] == []
    assert response.json()["id"]


def test_the_extension_is_closed_when_the_worker_stops(tmp_path: Path) -> None:
    with running_worker(tmp_path, extension_props("closing")):
        assert "closing" not in TokenExtension.closed
    assert "closing" in TokenExtension.closed

"""A REST extension written by a user (`conveyor.api.ConnectRestExtension`), loaded by a real worker."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import ClassVar

import httpx
import pytest

from conveyor.api import (
    ConnectClusterState,
    ConnectRestExtension,
    ConnectRestExtensionContext,
    RestRequest,
    RestResponse,
)
from conveyor.cli.worker_process import StandaloneWorker

from .workers import running_worker

TOKEN = "t0ken"


class TokenExtension(ConnectRestExtension):
    """Wants `Authorization: Bearer <rest.token>`, and answers `GET /token-extension/cluster` itself."""

    closed: ClassVar[list[str]] = []

    def configure(self, configs: Mapping[str, str]) -> None:
        self.token = configs["rest.token"]

    def register(self, context: ConnectRestExtensionContext) -> None:
        self.cluster: ConnectClusterState = context.cluster_state
        context.register_filter(self.check_token)
        context.register_filter(self.describe_cluster)

    def check_token(self, request: RestRequest) -> RestResponse | None:
        if request.headers.get("authorization") != f"Bearer {self.token}":
            return RestResponse.error(401, "Token required", {"WWW-Authenticate": "Bearer"})
        return None

    def describe_cluster(self, request: RestRequest) -> RestResponse | None:
        if request.path != "/token-extension/cluster":
            return None
        body = {"connectors": self.cluster.connectors(), "id": self.cluster.kafka_cluster_id()}
        return RestResponse(200, body)

    def close(self) -> None:
        TokenExtension.closed.append(self.token)


def extension_props(token: str = TOKEN) -> dict[str, str]:
    return {
        "rest.extension.classes": f"{TokenExtension.__module__}:{TokenExtension.__qualname__}",
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

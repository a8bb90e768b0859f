"""`GET /`, `GET /health`, the OpenAPI description, and how endpoints run."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import httpx
from fastapi.routing import APIRoute

import conveyor
from conveyor.herder.api import Herder
from conveyor.rest.app import api_routers

from .serving import serving
from .workers import unstarted_herder


def test_root_answers_version_commit_and_cluster_id(client: httpx.Client, herder: Herder) -> None:
    response = client.get("/")
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"version", "commit", "kafka_cluster_id"}
    assert body["version"] == conveyor.__version__
    assert body["kafka_cluster_id"] == herder.kafka_cluster_id
    assert re.fullmatch(r"[0-9a-f]{16}|unknown", body["commit"])


def test_a_started_worker_is_healthy(client: httpx.Client) -> None:
    response = client.get("/health")
    assert response.status_code == 200
    assert response.json() == {
        "status": "healthy",
        "message": "Worker has completed startup and is ready to handle requests.",
    }


def test_a_worker_whose_herder_has_not_started_answers_503_starting(tmp_path: Path) -> None:
    with unstarted_herder(tmp_path) as herder, serving(herder) as client:
        response = client.get("/health")
    assert response.status_code == 503
    assert response.json() == {"status": "starting", "message": "Worker is still starting up."}


def test_the_openapi_description_lists_every_endpoint_with_a_summary_and_tag(client: httpx.Client) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    assert "/connectors/{connector}/offsets" in paths
    operations = [operation for path in paths.values() for operation in path.values()]
    assert all(operation.get("summary") and operation.get("tags") for operation in operations)


def test_every_endpoint_is_a_plain_function_so_herder_calls_run_on_worker_threads(herder: Herder) -> None:
    routers = api_routers(herder, admin_enabled=True)
    routes = [route for router in routers for route in router.routes if isinstance(route, APIRoute)]
    assert routes
    assert [route.path for route in routes if inspect.iscoroutinefunction(route.endpoint)] == []

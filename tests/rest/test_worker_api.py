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
    assert body["kafka_cluster_id"] == herder.log.admin().cluster_id()
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


def test_the_openapi_description_declares_kafka_errors_and_no_422(client: httpx.Client) -> None:
    document = client.get("/openapi.json").json()
    operations = [operation for path in document["paths"].values() for operation in path.values()]
    assert not [operation for operation in operations if "422" in operation["responses"]]
    delete = document["paths"]["/connectors/{connector}"]["delete"]["responses"]
    assert "content" not in delete["204"]
    assert delete["404"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/ErrorBody"
    }
    assert document["components"]["schemas"]["ErrorBody"]["required"] == ["error_code", "message"]


def test_every_endpoint_runs_its_herder_call_on_a_worker_thread(herder: Herder) -> None:
    """Plain functions run on FastAPI's pool; changes are wrapped to run on the change pool."""
    routers = api_routers(herder, admin_enabled=True)
    routes = [route for router in routers for route in router.routes if isinstance(route, APIRoute)]
    assert routes
    on_the_event_loop = [
        route.path for route in routes if inspect.iscoroutinefunction(inspect.unwrap(route.endpoint))
    ]
    assert on_the_event_loop == []


def test_changes_run_on_the_change_pool_and_reads_on_the_shared_one(herder: Herder) -> None:
    routers = api_routers(herder, admin_enabled=True)
    routes = [route for router in routers for route in router.routes if isinstance(route, APIRoute)]
    changes = {
        (method, route.path)
        for route in routes
        for method in route.methods
        if inspect.iscoroutinefunction(route.endpoint)
    }
    assert ("DELETE", "/connectors/{connector:segment}") in changes
    assert ("POST", "/connectors") in changes
    assert not [change for change in changes if change[0] == "GET"]

"""`GET /` (server info) and `GET /health` (KIP-1017)."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from conveyor.herder.api import Herder
from conveyor.rest import server_info
from conveyor.rest.openapi import WorkerHealth, errors

logger = logging.getLogger(__name__)

HEALTHY_MESSAGE = "Worker has completed startup and is ready to handle requests."
STARTING_MESSAGE = "Worker is still starting up."
UNHEALTHY_MESSAGE = "Worker was unable to handle this request and may be unable to handle other requests."


def root_router(herder: Herder) -> APIRouter:
    router = APIRouter(tags=["worker"], responses=errors(500))

    @router.get("/", summary="Version, commit and log cluster id of this worker")
    def server_information() -> dict[str, Any]:
        return {
            "version": server_info.version(),
            "commit": server_info.commit_id(),
            "kafka_cluster_id": herder.kafka_cluster_id,
        }

    @router.get(
        "/health",
        summary="Whether the worker has started and can serve requests",
        response_model=WorkerHealth,
        responses={
            503: {"model": WorkerHealth, "description": "Still starting"},
            500: {"model": WorkerHealth, "description": "Unhealthy"},
        },
    )
    def health() -> JSONResponse:
        try:
            health = herder.health()
        except Exception:
            logger.exception("Health check failed")
            return _worker_status(500, "unhealthy", UNHEALTHY_MESSAGE)
        if health.failure is not None:
            return _worker_status(500, "unhealthy", _with_details(UNHEALTHY_MESSAGE, health.failure))
        if not health.ready:
            return _worker_status(503, "starting", _with_details(STARTING_MESSAGE, health.details))
        if health.stuck:
            return _worker_status(500, "unhealthy", _with_details(UNHEALTHY_MESSAGE, health.details))
        return _worker_status(200, "healthy", HEALTHY_MESSAGE)

    return router


def _with_details(message: str, details: str | None) -> str:
    return message if details is None else f"{message} {details}"


def _worker_status(status_code: int, status: str, message: str) -> JSONResponse:
    return JSONResponse(status_code=status_code, content={"status": status, "message": message})

"""`/admin/loggers` (KIP-495): read and adjust this worker's log levels at run time."""

from __future__ import annotations

import logging
from typing import Annotated, Any

from fastapi import APIRouter, Query

from conveyor.errors import BadRequestError, NotFoundError
from conveyor.rest.bodies import LoggerLevelRequest
from conveyor.rest.logger_levels import LoggerLevels, is_valid_level
from conveyor.rest.openapi import BODY_ERRORS, errors

logger = logging.getLogger(__name__)

TAG = "admin"


def loggers_router(levels: LoggerLevels) -> APIRouter:
    router = APIRouter(prefix="/admin/loggers", tags=[TAG], responses=errors(500))

    @router.get("", summary="Every logger whose level is not OFF, with its level and last change")
    def all_levels() -> dict[str, Any]:
        return {name: level.to_json() for name, level in levels.all_levels().items()}

    @router.get("/{name:segment}", summary="One logger's level and last change", responses=errors(404))
    def logger_level(name: str) -> dict[str, Any]:
        level = levels.level(name)
        if level is None:
            raise NotFoundError(f"Logger {name} not found.")
        return level.to_json()

    @router.put(
        "/{name:segment}",
        summary="Set a logger and every logger below it to a level; answers those changed",
        responses=errors(*BODY_ERRORS, 404),
    )
    def set_level(
        name: str,
        body: LoggerLevelRequest | None = None,
        scope: Annotated[str | None, Query(description="worker (cluster is served as worker)")] = None,
    ) -> list[str]:
        if body is None or body.level is None:
            raise BadRequestError("Desired 'level' parameter was not specified in request.")
        if not is_valid_level(body.level):
            raise NotFoundError(f"invalid log level '{body.level}'.")
        if scope is not None and scope.lower() == "cluster":
            logger.info("Cluster-scoped logging is not supported yet; setting %s on this worker only", name)
        return levels.set_level(name, body.level)

    return router

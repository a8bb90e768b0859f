"""The topics a connector has used (KIP-558), and forgetting them."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response

from conveyor.herder.api import Herder
from conveyor.rest.change_threads import on_change_threads
from conveyor.rest.openapi import errors, no_body

TAG = "topics"


def topics_router(herder: Herder) -> APIRouter:
    router = APIRouter(
        prefix="/connectors/{connector:segment}/topics", tags=[TAG], responses=errors(404, 500, 503)
    )

    @router.get("", summary="The topics a connector has produced to or consumed from")
    def active_topics(connector: str) -> dict[str, Any]:
        return {connector: {"topics": herder.connector_active_topics(connector)}}

    @router.put(
        "/reset",
        status_code=202,
        summary="Forget the topics a connector has used",
        responses=no_body(202, "Forgotten"),
    )
    @on_change_threads
    def reset_active_topics(connector: str) -> Response:
        herder.reset_connector_active_topics(connector)
        return Response(status_code=202)

    return router

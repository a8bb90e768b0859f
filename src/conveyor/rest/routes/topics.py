"""The topics a connector has used (KIP-558), and forgetting them."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from conveyor.herder.api import Herder
from conveyor.rest.change_routes import bodyless_change
from conveyor.rest.openapi import errors

TAG = "topics"


def topics_router(herder: Herder) -> APIRouter:
    router = APIRouter(
        prefix="/connectors/{connector:segment}/topics", tags=[TAG], responses=errors(404, 500, 503)
    )

    @router.get("", summary="The topics a connector has produced to or consumed from")
    def active_topics(connector: str) -> dict[str, Any]:
        return {connector: {"topics": herder.connector_active_topics(connector)}}

    @bodyless_change(router.put, "/reset", 202, "Forget the topics a connector has used", "Forgotten")
    def reset_active_topics(connector: str) -> None:
        herder.reset_connector_active_topics(connector)

    return router

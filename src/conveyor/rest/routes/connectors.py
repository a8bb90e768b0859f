"""Listing, creating, reading, reconfiguring and deleting connectors."""

from __future__ import annotations

import logging
from typing import Annotated, Any

from fastapi import APIRouter, Body, Query, Request
from fastapi.responses import JSONResponse

from conveyor.errors import BadRequestError, NotFoundError
from conveyor.herder.api import Herder
from conveyor.herder.entities import ConnectorInfo
from conveyor.rest.bodies import ConfigPatch, ConnectorConfig, CreateConnectorRequest
from conveyor.rest.change_routes import bodyless_change
from conveyor.rest.change_threads import on_change_threads
from conveyor.rest.connector_configs import connector_location, require_connector_class, with_connector_name
from conveyor.rest.openapi import BODY_ERRORS, connector_info_body, errors
from conveyor.rest.routes.offsets import requested_offsets

logger = logging.getLogger(__name__)

ResumeOffsets = Annotated[
    bool,
    Query(
        description="A connector created under the name of a deleted one continues from the offsets left "
        "under that name (as Kafka Connect does); by default they are reset and it starts afresh"
    ),
]

TAG = "connectors"


def connectors_router(herder: Herder) -> APIRouter:
    router = APIRouter(prefix="/connectors", tags=[TAG], responses=errors(500, 503))

    @router.get("", summary="List connectors, optionally expanded with their status and/or info")
    def list_connectors(
        expand: Annotated[list[str] | None, Query(description="status and/or info; may repeat")] = None,
    ) -> Any:
        if not expand:
            return herder.connectors()
        return _expanded_connectors(herder, expand)

    @router.post(
        "",
        status_code=201,
        summary="Create a connector",
        responses={**connector_info_body(201, description="Created"), **errors(*BODY_ERRORS, 404, 409)},
    )
    @on_change_threads
    def create_connector(
        request: Request, body: CreateConnectorRequest, resume_offsets: ResumeOffsets = False
    ) -> JSONResponse:
        name = (body.name or "").strip()
        if body.config is None:
            raise BadRequestError("Connector config is missing from the request")
        config = with_connector_name(name, body.config)
        require_connector_class(config)
        initial_state = body.initial_state.value if body.initial_state is not None else None
        initial_offsets = None if body.initial_offsets is None else requested_offsets(body.initial_offsets)
        _, info = herder.put_connector_config(
            name,
            config,
            allow_replace=False,
            initial_state=initial_state,
            initial_offsets=initial_offsets,
            resume_offsets=resume_offsets,
        )
        return _created(request, name, info)

    @router.get(
        "/{connector:segment}",
        summary="A connector's name, config, tasks and type",
        response_model=None,
        responses={**connector_info_body(200), **errors(404)},
    )
    def connector_info(connector: str) -> dict[str, Any]:
        return herder.connector_info(connector).to_json()

    @bodyless_change(router.delete, "/{connector:segment}", 204, "Delete a connector", responses=errors(404))
    def delete_connector(connector: str) -> None:
        herder.delete_connector(connector)

    @router.get("/{connector:segment}/config", summary="A connector's config", responses=errors(404))
    def connector_config(connector: str) -> dict[str, str]:
        return herder.connector_config(connector)

    @router.put(
        "/{connector:segment}/config",
        summary="Create a connector (201) or replace its config (200)",
        responses={
            **connector_info_body(200, description="Replaced"),
            **connector_info_body(201, description="Created"),
            **errors(*BODY_ERRORS, 404, 409),
        },
    )
    @on_change_threads
    def put_connector_config(
        request: Request,
        connector: str,
        config: Annotated[ConnectorConfig, Body()],
        resume_offsets: ResumeOffsets = False,
    ) -> JSONResponse:
        named_config = with_connector_name(connector, config)
        require_connector_class(named_config)
        created, info = herder.put_connector_config(
            connector, named_config, allow_replace=True, resume_offsets=resume_offsets
        )
        if not created:
            return JSONResponse(status_code=200, content=info.to_json())
        return _created(request, connector, info)

    @router.patch(
        "/{connector:segment}/config",
        summary="Merge keys into a connector's config; null removes a key",
        response_model=None,
        responses={**connector_info_body(200), **errors(*BODY_ERRORS, 404)},
    )
    @on_change_threads
    def patch_connector_config(connector: str, patch: Annotated[ConfigPatch, Body()]) -> dict[str, Any]:
        return herder.patch_connector_config(connector, patch).to_json()

    return router


def _created(request: Request, name: str, info: ConnectorInfo) -> JSONResponse:
    """201 Created with the new connector's info and its address in ``Location``."""
    return JSONResponse(
        status_code=201,
        content=info.to_json(),
        headers={"Location": connector_location(str(request.base_url), name)},
    )


def _expanded_connectors(herder: Herder, expansions: list[str]) -> dict[str, dict[str, Any]]:
    """`?expand=`: each connector's requested views; one deleted while listing is left out, as Kafka does."""
    expanded: dict[str, dict[str, Any]] = {}
    for name in herder.connectors():
        try:
            views: dict[str, Any] = {}
            for expansion in expansions:
                if expansion == "status":
                    views["status"] = herder.cluster_status(name).to_json()
                elif expansion == "info":
                    views["info"] = herder.connector_info(name).to_json()
                else:
                    logger.info("Ignoring unknown expansion type %s", expansion)
            expanded[name] = views
        except NotFoundError:
            logger.debug("Connector %s disappeared while listing connectors", name)
    return expanded

"""A connector's offsets (KIP-875): read them, alter them, or reset them while it is stopped."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from conveyor.errors import BadRequestError
from conveyor.herder.api import Herder
from conveyor.herder.entities import ConnectorOffset
from conveyor.rest.bodies import ConnectorOffsetsRequest, OffsetEntry
from conveyor.rest.change_threads import on_change_threads
from conveyor.rest.openapi import BODY_ERRORS, MessageBody, OffsetsBody, body, errors

TAG = "offsets"
NO_OFFSETS_MESSAGE = "Partitions / offsets need to be provided for an alter offsets request"
NO_PARTITION_MESSAGE = "The partition for a connector offset cannot be null or missing"


def offsets_router(herder: Herder) -> APIRouter:
    router = APIRouter(
        prefix="/connectors/{connector:segment}/offsets", tags=[TAG], responses=errors(404, 500, 503)
    )

    @router.get(
        "",
        summary="The offsets a connector has committed",
        response_model=None,
        responses=body(OffsetsBody, 200),
    )
    def connector_offsets(connector: str) -> dict[str, Any]:
        return {"offsets": [offset.to_json() for offset in herder.connector_offsets(connector)]}

    @router.patch(
        "",
        summary="Alter the offsets of a stopped connector; a null offset resets its partition",
        response_model=None,
        responses={**body(MessageBody, 200), **errors(*BODY_ERRORS)},
    )
    @on_change_threads
    def alter_connector_offsets(
        connector: str, body: ConnectorOffsetsRequest | None = None
    ) -> dict[str, str]:
        return {"message": herder.alter_connector_offsets(connector, _requested_offsets(body))}

    @router.delete(
        "",
        summary="Reset every offset of a stopped connector",
        response_model=None,
        responses={**body(MessageBody, 200), **errors(400)},
    )
    @on_change_threads
    def reset_connector_offsets(connector: str) -> dict[str, str]:
        return {"message": herder.reset_connector_offsets(connector)}

    return router


def _requested_offsets(body: ConnectorOffsetsRequest | None) -> list[ConnectorOffset]:
    return requested_offsets(body.offsets if body is not None else None)


def requested_offsets(entries: list[OffsetEntry] | None) -> list[ConnectorOffset]:
    """The offsets an alter request gives, or a 400 when it names none or an entry has no partition."""
    if not entries:
        raise BadRequestError(NO_OFFSETS_MESSAGE)
    offsets = []
    for entry in entries:
        if entry.partition is None:
            raise BadRequestError(NO_PARTITION_MESSAGE)
        offsets.append(ConnectorOffset(partition=entry.partition, offset=entry.offset))
    return offsets

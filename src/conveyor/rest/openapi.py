"""What the OpenAPI document declares beyond FastAPI's defaults: every error the API answers, in Kafka
Connect's body, and no 422 (request validation errors are answered 400, 404 or 415 instead)."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from pydantic import BaseModel, Field

ERROR_DESCRIPTIONS = {
    400: "Bad request: an invalid config, body or value",
    403: "Forbidden",
    404: "Unknown connector, task, plugin or logger (or a path value of the wrong type)",
    409: "Conflict: the connector exists already, or a concurrent change is under way",
    413: "The request body is larger than the worker's `rest.request.max.bytes`",
    415: "The request body is not JSON",
    500: "An unexpected error",
    503: "The worker is still starting up (or stopping) and cannot read its internal topics",
}
_VALIDATION_SCHEMAS = ("HTTPValidationError", "ValidationError")
_ERROR_SCHEMA = {"$ref": "#/components/schemas/ErrorBody"}


class ErrorBody(BaseModel):
    """Kafka Connect's error body, the same for every error status."""

    error_code: int
    message: str


class TaskIdBody(BaseModel):
    connector: str
    task: int


class ConnectorInfoBody(BaseModel):
    """A connector's name, config, task ids and type (`source`, `sink` or `unknown`)."""

    name: str
    config: dict[str, str]
    tasks: list[TaskIdBody]
    type: str


def connector_info_body(
    *codes: int, description: str = "The connector's info"
) -> dict[int | str, dict[str, Any]]:
    """Success answers whose body is a ConnectorInfo."""
    return {code: {"model": ConnectorInfoBody, "description": description} for code in codes}


class StateBody(BaseModel):
    state: str
    worker_id: str
    version: str | None = None
    trace: str | None = None


class TaskStateBody(StateBody):
    id: int
    metrics: dict[str, Any] | None = None


class ConnectorStateInfoBody(BaseModel):
    """A connector's state and each of its tasks', by task id."""

    name: str
    connector: StateBody
    tasks: list[TaskStateBody]
    type: str


class TaskInfoBody(BaseModel):
    id: TaskIdBody
    config: dict[str, str]


class PluginInfoBody(BaseModel):
    class_: str = Field(alias="class")
    type: str
    version: str | None = None


class OffsetBody(BaseModel):
    partition: dict[str, Any]
    offset: dict[str, Any] | None


class OffsetsBody(BaseModel):
    offsets: list[OffsetBody]


class MessageBody(BaseModel):
    message: str


def body(
    model: Any, *codes: int, description: str = "Successful Response"
) -> dict[int | str, dict[str, Any]]:
    """Success answers whose body has `model`'s schema (declared only: the route builds the body)."""
    return {code: {"model": model, "description": description} for code in codes}


class WorkerHealth(BaseModel):
    """`GET /health`'s body (KIP-1017), for every status it answers."""

    status: str
    message: str


def errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    """The `responses` of a route that may answer each of `codes` with Kafka Connect's error body."""
    return {code: {"model": ErrorBody, "description": ERROR_DESCRIPTIONS[code]} for code in codes}


_NO_BODY = "x-conveyor-no-body"


def no_body(code: int, description: str) -> dict[int | str, dict[str, Any]]:
    """A success answered without a body: the document declares no content for it."""
    return {code: {"description": description, _NO_BODY: True}}


BODY_ERRORS = (400, 413, 415)
"""What a request with a JSON body may be answered besides its route's own errors."""


def install_openapi(app: FastAPI) -> None:
    """Serve the app's document with the 422s FastAPI adds (and their schemas) left out."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            document = get_openapi(
                title=app.title, version=app.version, description=app.description, routes=app.routes
            )
            for path in document.get("paths", {}).values():
                for operation in path.values():
                    _declare_answers(operation.get("responses", {}))
            schemas = document.get("components", {}).get("schemas", {})
            for name in _VALIDATION_SCHEMAS:
                schemas.pop(name, None)
            app.openapi_schema = document
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def _declare_answers(responses: dict[str, Any]) -> None:
    """No 422; no content for bodiless answers; every error as JSON, whatever the route's own type."""
    responses.pop("422", None)
    for response in responses.values():
        if response.pop(_NO_BODY, False):
            response.pop("content", None)
        elif any(media.get("schema") == _ERROR_SCHEMA for media in response.get("content", {}).values()):
            response["content"] = {"application/json": {"schema": _ERROR_SCHEMA}}

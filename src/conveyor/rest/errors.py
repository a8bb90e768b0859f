"""Every error the REST API answers with, as Kafka Connect's body `{"error_code": int, "message": str}`.

`STATUS_OF_ERROR` is the one place a Conveyor error (`conveyor.errors`) gets its status code, as Kafka's
`ConnectExceptionMapper` does; FastAPI's own 404/405 and request-validation errors, and any unexpected
exception, are rewritten into the same body so clients only ever parse one shape.
"""

from __future__ import annotations

import email.message
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import Message, Receive, Scope, Send

from conveyor.errors import (
    AlreadyExistsError,
    BadRequestError,
    ConfigError,
    ConnectError,
    ForbiddenError,
    NotFoundError,
    NotReadyError,
)
from conveyor.herder.distributed.errors import ConflictError
from conveyor.log import RebalanceInProgressError
from conveyor.rest.http_middleware import HttpMiddleware

logger = logging.getLogger(__name__)

INTERNAL_SERVER_ERROR = 500

STATUS_OF_ERROR: dict[type[ConnectError], int] = {
    BadRequestError: 400,
    ConfigError: 400,
    ForbiddenError: 403,
    NotFoundError: 404,
    AlreadyExistsError: 409,
    ConflictError: 409,
    RebalanceInProgressError: 409,
    NotReadyError: 503,
}
"""The status of each kind of error; an error takes the entry of its nearest listed class, else 500."""


def status_of(error: ConnectError) -> int:
    """The status code Kafka Connect answers `error` with."""
    for klass in type(error).__mro__:
        status = STATUS_OF_ERROR.get(klass)
        if status is not None:
            return status
    return INTERNAL_SERVER_ERROR


def error_response(status: int, message: str, headers: Mapping[str, str] | None = None) -> JSONResponse:
    return JSONResponse(
        status_code=status, content={"error_code": status, "message": message}, headers=headers
    )


def install_error_handlers(app: FastAPI) -> None:
    """Map Conveyor's errors, routing and validation errors onto Kafka Connect's error body."""
    app.add_exception_handler(ConnectError, _connect_error)
    app.add_exception_handler(StarletteHTTPException, _http_exception)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_middleware(UnexpectedErrorMiddleware)


async def _connect_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ConnectError)
    status = status_of(exc)
    if status >= INTERNAL_SERVER_ERROR:
        logger.error("Error in REST call to %s", request.url.path, exc_info=exc)
    return error_response(status, str(exc) or type(exc).__name__)


async def _http_exception(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    return error_response(exc.status_code, f"HTTP {exc.status_code} {exc.detail}", exc.headers)


async def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    """Body errors are 400s (415 for a non-JSON body); bad path or query values are 404s, as in JAX-RS."""
    assert isinstance(exc, RequestValidationError)
    errors: Sequence[Any] = exc.errors()
    body_errors = [error for error in errors if error["loc"] and error["loc"][0] == "body"]
    if not body_errors:
        return error_response(404, "HTTP 404 Not Found")
    if _has_non_json_content_type(request):
        return error_response(415, "HTTP 415 Unsupported Media Type")
    return error_response(400, describe_body_errors(body_errors))


def _has_non_json_content_type(request: Request) -> bool:
    content_type = request.headers.get("content-type")
    if not content_type:
        return False
    parsed = email.message.Message()
    parsed["content-type"] = content_type
    subtype = parsed.get_content_subtype()
    json_subtype = subtype == "json" or subtype.endswith("+json")
    return parsed.get_content_maintype() != "application" or not json_subtype


def describe_body_errors(errors: Sequence[Any]) -> str:
    """One line naming what is wrong with a request body, and where."""
    first = errors[0]
    if first["type"] == "json_invalid":
        position = first["loc"][1] if len(first["loc"]) > 1 else "?"
        return f"Malformed JSON in request body: {first['ctx']['error']} (at character {position})"
    if first["type"] == "missing" and len(first["loc"]) == 1:
        return "Request body is missing"
    problems = []
    for error in errors:
        where = ".".join(str(part) for part in error["loc"][1:]) or "body"
        problems.append(f"{where}: {error['msg']}")
    return "Invalid request body: " + "; ".join(problems)


class UnexpectedErrorMiddleware(HttpMiddleware):
    """Answers any exception no handler took with a 500 in Kafka's error body, and logs its trace."""

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        response_started = False

        async def send_tracking_start(message: Message) -> None:
            nonlocal response_started
            if message["type"] == "http.response.start":
                response_started = True
            await send(message)

        try:
            await self.app(scope, receive, send_tracking_start)
        except Exception as exc:
            logger.error("Uncaught exception in REST call to %s", scope.get("path"), exc_info=exc)
            if response_started:
                raise
            await error_response(500, str(exc) or type(exc).__name__)(scope, receive, send)

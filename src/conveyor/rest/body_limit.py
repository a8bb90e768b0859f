"""A cap on request body size: a larger body is answered 413 before it is read whole or parsed."""

from __future__ import annotations

import contextlib

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from conveyor.errors import ConnectError
from conveyor.rest.errors import error_response
from conveyor.rest.http_middleware import HttpMiddleware

DEFAULT_MAX_REQUEST_BYTES = 1024 * 1024
"""1 MiB, the largest record Kafka's config topic takes by default: no bigger config could be stored."""


class _BodyTooLarge(ConnectError):
    """Stops the app reading; whatever it answers then (FastAPI makes it a 400) is replaced by the 413."""


class RequestBodyLimitMiddleware(HttpMiddleware):
    """Answers 413 to a request whose `Content-Length`, or whose streamed body, passes `max_bytes`."""

    def __init__(self, app: ASGIApp, max_bytes: int = DEFAULT_MAX_REQUEST_BYTES) -> None:
        super().__init__(app)
        self.max_bytes = max_bytes

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self._declared_length(scope) > self.max_bytes:
            await self._too_large(scope, receive, send)
            return
        received = 0
        exceeded = False
        response_started = False

        async def receive_counting() -> Message:
            nonlocal received, exceeded
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes and not response_started:
                    exceeded = True
                    raise _BodyTooLarge
            return message

        async def send_unless_exceeded(message: Message) -> None:
            nonlocal response_started
            if exceeded:
                return
            response_started = response_started or message["type"] == "http.response.start"
            await send(message)

        with contextlib.suppress(_BodyTooLarge):
            await self.app(scope, receive_counting, send_unless_exceeded)
        if exceeded:
            await self._too_large(scope, receive, send)

    @staticmethod
    def _declared_length(scope: Scope) -> int:
        for key, value in scope.get("headers", []):
            if key == b"content-length":
                try:
                    return int(value)
                except ValueError:
                    return 0
        return 0

    async def _too_large(self, scope: Scope, receive: Receive, send: Send) -> None:
        message = f"Request body is larger than the worker's limit of {self.max_bytes} bytes"
        await error_response(413, message)(scope, receive, send)

"""Forwarding a request the herder says another worker must serve, as Kafka's `HerderRequestHandler`.

A follower asked to change something only the leader may change raises `RequestTargetError` with the
leader's URL. Its handler marks the response with the target; `ForwardingMiddleware`, which kept the
request's body, then sends the same request there and answers with that worker's response. A request
from a user (no `forward` parameter) may take two hops (follower, leader, then the owner of a task);
a forwarded one is marked `forward=false` for its last hop, and a third hop is a 409.
"""

from __future__ import annotations

import ssl
from urllib.parse import parse_qsl, urlencode

import httpx
from fastapi import Request
from fastapi.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from conveyor.herder.distributed.errors import NO_LEADER, RebalanceNeededError, RequestTargetError
from conveyor.herder.distributed.request_signature import SIGNATURE_ALGORITHM_HEADER, SIGNATURE_HEADER
from conveyor.rest.errors import error_response
from conveyor.rest.http_middleware import HttpMiddleware

FORWARD_TO_HEADER = "x-conveyor-forward-to"
FORWARD_TIMEOUT_S = 90.0
FORWARDED_HEADERS = (
    "content-type",
    "authorization",
    "accept",
    SIGNATURE_HEADER.lower(),
    SIGNATURE_ALGORITHM_HEADER.lower(),
)
TOO_MANY_HOPS = "Cannot complete request because of a conflicting operation (e.g. worker rebalance)"
STALE_CONFIG = (
    "Cannot complete request momentarily due to stale configuration (typically caused by a concurrent "
    "config change)"
)


async def request_target_error(request: Request, exc: Exception) -> Response:
    """A response telling `ForwardingMiddleware` where to send the request, or the 409 that ends it."""
    assert isinstance(exc, RequestTargetError)
    if exc.url is None:
        return error_response(409, NO_LEADER)
    forward = request.query_params.get("forward")
    if forward is not None and forward.lower() == "false":
        return error_response(409, TOO_MANY_HOPS)
    recursive = "true" if forward is None else "false"
    return JSONResponse({}, status_code=307, headers={FORWARD_TO_HEADER: f"{exc.url}|{recursive}"})


async def rebalance_needed_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RebalanceNeededError)
    return error_response(409, STALE_CONFIG)


class ForwardingMiddleware(HttpMiddleware):
    """Keeps each request's body and, when the app names another worker, answers with its response."""

    def __init__(self, app: ASGIApp, tls: ssl.SSLContext | None = None) -> None:
        super().__init__(app)
        self.tls = tls
        """How to reach other workers' HTTPS listeners; None trusts the system's CAs."""

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        body = bytearray()
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body.extend(message.get("body", b""))
            more = message.get("more_body", False)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": bytes(body), "more_body": False}

        target: str | None = None

        async def intercept(message: Message) -> None:
            nonlocal target
            if message["type"] == "http.response.start":
                for key, value in message.get("headers", []):
                    if key.decode().lower() == FORWARD_TO_HEADER:
                        target = value.decode()
            if target is None:
                await send(message)

        await self.app(scope, replay, intercept)
        if target is not None:
            response = await _forward(scope, bytes(body), target, self.tls or True)
            await response(scope, receive, send)


async def _forward(scope: Scope, body: bytes, target: str, verify: ssl.SSLContext | bool) -> Response:
    base_url, recursive = target.rsplit("|", 1)
    query = [(k, v) for k, v in parse_qsl(scope.get("query_string", b"").decode()) if k != "forward"]
    query.append(("forward", recursive))
    path = scope.get("raw_path", scope["path"].encode()).decode()
    url = f"{base_url.rstrip('/')}{path}?{urlencode(query)}"
    headers = {
        key.decode(): value.decode()
        for key, value in scope.get("headers", [])
        if key.decode().lower() in FORWARDED_HEADERS
    }
    try:
        async with httpx.AsyncClient(timeout=FORWARD_TIMEOUT_S, verify=verify) as client:
            forwarded = await client.request(scope["method"], url, content=body, headers=headers)
    except httpx.HTTPError as error:
        return error_response(500, f"Failed to forward the request to {base_url}: {error}")
    kept = {k: v for k, v in forwarded.headers.items() if k.lower() in ("content-type", "location")}
    return Response(forwarded.content, status_code=forwarded.status_code, headers=kept)

"""The shape every Conveyor ASGI middleware shares: it acts on HTTP requests and passes any other scope on."""

from __future__ import annotations

from abc import ABC, abstractmethod

from starlette.types import ASGIApp, Receive, Scope, Send


class HttpMiddleware(ABC):
    """An ASGI middleware for HTTP requests; lifespan and websocket scopes go to the app untouched."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        await self.handle(scope, receive, send)

    @abstractmethod
    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer one HTTP request, or pass it on to ``self.app``."""

"""One log line per request: method, path, status, duration, and the connector named in the path.

The path is logged as it was sent, percent-encoded, so no decoded character can break the line.
Request bodies are never logged: connector configs may hold passwords.
"""

from __future__ import annotations

import logging
import re
import time
from urllib.parse import quote

from starlette.types import Message, Receive, Scope, Send

from conveyor.log_lines import escape_control_characters
from conveyor.rest.http_middleware import HttpMiddleware

logger = logging.getLogger("conveyor.rest.requests")

_CONNECTOR_IN_PATH = re.compile(r"^/connectors/([^/]+)")


def connector_in_path(path: str) -> str | None:
    """The connector a `/connectors/{c}/...` path addresses, or None for any other path."""
    match = _CONNECTOR_IN_PATH.match(path)
    return match.group(1) if match else None


class RequestLogMiddleware(HttpMiddleware):
    """Logs every HTTP request once it has been answered (or has failed without an answer)."""

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = time.perf_counter()
        status = 500

        async def send_recording_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_recording_status)
        finally:
            self._log(scope, status, time.perf_counter() - started)

    @staticmethod
    def _log(scope: Scope, status: int, elapsed_s: float) -> None:
        raw_path: bytes = scope.get("raw_path") or quote(scope.get("path", "")).encode()
        path = escape_control_characters(raw_path.decode("latin-1"))
        query = escape_control_characters(scope.get("query_string", b"").decode("latin-1"))
        target = f"{path}?{query}" if query else path
        connector = connector_in_path(path)
        suffix = f" connector={connector}" if connector is not None else ""
        logger.info("%s %s %d %.0fms%s", scope.get("method"), target, status, elapsed_s * 1000, suffix)

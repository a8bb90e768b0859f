"""Routing on the raw request path, so a connector whose name holds `/` is reached as `%2F`.

Servers hand the app a percent-decoded path, in which `a%2Fb` and `a/b` are the same two segments.
`PathSegmentsMiddleware` rebuilds the path from the raw one with every `/` and `%` inside a segment
still escaped, and the `segment` path convertor decodes each path parameter back to the name it spells.
"""

from __future__ import annotations

from urllib.parse import unquote

from starlette.convertors import Convertor, register_url_convertor
from starlette.types import ASGIApp, Receive, Scope, Send

SEGMENT = "segment"


def escape_segment(value: str) -> str:
    """`value` as one path segment: only `%` and `/` escaped, so decoding it gives `value` back."""
    return value.replace("%", "%25").replace("/", "%2F")


def segment_preserving_path(raw_path: str) -> str:
    """The decoded path, except that an escaped `/` or `%` stays escaped inside its segment."""
    return "/".join(escape_segment(unquote(segment)) for segment in raw_path.split("/"))


class SegmentConvertor(Convertor[str]):
    """A path parameter of one segment, as `PathSegmentsMiddleware` leaves it, decoded."""

    regex = "[^/]+"

    def convert(self, value: str) -> str:
        return unquote(value)

    def to_string(self, value: str) -> str:
        return escape_segment(value)


def register_segment_convertor() -> None:
    """Make `{param:segment}` usable in route paths (Starlette keeps convertors in one global table)."""
    register_url_convertor(SEGMENT, SegmentConvertor())


class PathSegmentsMiddleware:
    """Routes HTTP requests on their raw path (see the module's docstring)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        raw_path = scope.get("raw_path")
        if scope["type"] == "http" and raw_path:
            scope = {**scope, "path": segment_preserving_path(raw_path.decode("latin-1"))}
        await self.app(scope, receive, send)

"""Endpoints that change something and answer a bare status (pause, restart, delete, ...), declared in
one line each: run on the change threads, answered without a body."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, ParamSpec

from fastapi import Response

from conveyor.rest.change_threads import on_change_threads
from conveyor.rest.openapi import no_body

P = ParamSpec("P")

Route = Callable[..., Callable[[Callable[..., Any]], Callable[..., Any]]]
"""A router's method decorator, such as ``router.put``."""


def bodyless_change(
    route: Route,
    path: str,
    status_code: int,
    summary: str,
    answer: str | None = None,
    responses: dict[int | str, dict[str, Any]] | None = None,
) -> Callable[[Callable[P, None]], Callable[P, None]]:
    """Serve the decorated change at ``path`` through ``route``, answering ``status_code`` with no body.

    ``answer`` describes that status in the OpenAPI document; ``responses`` adds the route's errors.
    """
    declared = {**(no_body(status_code, answer) if answer is not None else {}), **(responses or {})}

    def serve(change: Callable[P, None]) -> Callable[P, None]:
        @functools.wraps(change)
        def answered(*args: P.args, **kwargs: P.kwargs) -> Response:
            change(*args, **kwargs)
            return Response(status_code=status_code)

        route(path, status_code=status_code, summary=summary, responses=declared or None)(
            on_change_threads(answered)
        )
        return change

    return serve

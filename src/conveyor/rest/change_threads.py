"""Requests that change connectors run on a thread pool of their own, so reads always find a thread.

FastAPI runs every plain endpoint on one shared pool (anyio's default limiter, 40 threads). A change
can block its thread for as long as a connector's tasks take to stop; a burst of such changes used to
take every thread and leave `GET /` waiting. Changes now wait for each other, never reads for changes.
"""

from __future__ import annotations

import asyncio
import functools
import weakref
from collections.abc import Awaitable, Callable
from typing import ParamSpec, TypeVar

import anyio
import anyio.to_thread

CHANGE_THREADS = 64
"""At most this many changes run at once; more wait (without a thread) for one to finish."""

P = ParamSpec("P")
R = TypeVar("R")

_limiters: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, anyio.CapacityLimiter] = (
    weakref.WeakKeyDictionary()
)


def _change_limiter() -> anyio.CapacityLimiter:
    """The change pool's limiter of the running event loop (a limiter belongs to one loop)."""
    loop = asyncio.get_running_loop()
    limiter = _limiters.get(loop)
    if limiter is None:
        limiter = anyio.CapacityLimiter(CHANGE_THREADS)
        _limiters[loop] = limiter
    return limiter


def on_change_threads(endpoint: Callable[P, R]) -> Callable[P, Awaitable[R]]:
    """The endpoint, run on the change pool instead of FastAPI's shared one; its signature is kept."""

    @functools.wraps(endpoint)
    async def run_on_change_thread(*args: P.args, **kwargs: P.kwargs) -> R:
        call = functools.partial(endpoint, *args, **kwargs)
        return await anyio.to_thread.run_sync(call, limiter=_change_limiter())

    return run_on_change_thread

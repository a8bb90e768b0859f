"""The distributed herder's queue of work for its one thread, ordered by due time and then arrival.

As Kafka's `DistributedHerder.requests`: any thread adds a request (a REST call, a delayed retry) and
waits on its future; the herder thread runs each one when it is due and completes the future with the
result or the error.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any


@dataclass(order=True)
class HerderRequest:
    """One action for the herder thread; `at` is its due time on `time.monotonic()`."""

    at: float
    seq: int
    action: Callable[[], Any] = field(compare=False)
    future: Future[Any] = field(compare=False, default_factory=Future)
    description: str = field(compare=False, default="handling a request")
    """What the herder does while it runs the request, as a stage the health check and timeouts name."""


class RequestQueue:
    """Requests sorted by (due time, sequence); safe to add to from any thread."""

    def __init__(self) -> None:
        self._requests: list[HerderRequest] = []
        self._seq = itertools.count()
        self._lock = threading.Lock()

    def add(
        self, action: Callable[[], Any], delay_s: float = 0.0, description: str = "handling a request"
    ) -> tuple[HerderRequest, bool]:
        """Queue `action`; returns the request and whether it is now the first due (so the herder
        thread must be woken to recompute how long it may wait)."""
        request = HerderRequest(time.monotonic() + delay_s, next(self._seq), action, description=description)
        with self._lock:
            self._requests.append(request)
            self._requests.sort()
            return request, self._requests[0] is request

    def __len__(self) -> int:
        with self._lock:
            return len(self._requests)

    def pop_due(self, now: float) -> HerderRequest | None:
        with self._lock:
            if self._requests and self._requests[0].at <= now:
                return self._requests.pop(0)
            return None

    def wait_s(self, now: float, longest_s: float) -> float:
        """How long the herder thread may wait before the next request is due, at most `longest_s`."""
        with self._lock:
            if not self._requests:
                return longest_s
            return max(0.0, min(longest_s, self._requests[0].at - now))

    def fail_all(self, error: BaseException) -> None:
        """Complete every waiting request with `error` (the herder is shutting down)."""
        with self._lock:
            requests, self._requests = self._requests, []
        for request in requests:
            if not request.future.done():
                request.future.set_exception(error)

"""Calls into connector code on a thread of the connector's own, each with a deadline (Kafka runs a
connector on its own executor since KAFKA-9374).

A caller waits for its call at most until the deadline, or until it is told that the call no longer
matters (a newer start or a stop of the same connector superseded it). A call that overruns is
abandoned, never interrupted (a Python thread cannot be killed): its thread is a daemon, so it never
holds the process at exit, and nothing is queued on it after it but the cleanup its caller leaves there.
"""

from __future__ import annotations

import queue
import sys
import threading
import time
import traceback
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

from conveyor.api import Connector
from conveyor.errors import ConnectError

T = TypeVar("T")

WAIT_SLICE_S = 0.05


def instant(epoch_s: float) -> str:
    """An instant as Java's `Instant.toString()` writes it, e.g. 2024-05-01T12:00:00.123Z."""
    return datetime.fromtimestamp(epoch_s, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(frozen=True)
class ConnectorCall:
    """A call into connector code: what was called and when it began (seconds since the epoch)."""

    what: str
    began: float


class StuckCallError(ConnectError):
    """A call into connector code did not return within its deadline; it was abandoned."""

    def __init__(self, owner: str, call: ConnectorCall, timeout_s: float) -> None:
        self.call = call
        super().__init__(
            f"{owner} did not return from {call.what} within {timeout_s * 1000:.0f} ms: it has been blocked "
            f"in {call.what} since {instant(call.began)}, and was abandoned"
        )


class SupersededError(ConnectError):
    """The caller stopped waiting: a newer start or a stop of the same connector made the call moot."""


class ConnectorThread:
    """One daemon thread that runs the calls into one connector instance in order, so that connector
    code never runs on two threads at once."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._calls: queue.SimpleQueue[tuple[str, Callable[[], Any], Future[Any]] | None] = (
            queue.SimpleQueue()
        )
        self._current: ConnectorCall | None = None
        self._thread = threading.Thread(target=self._run, name=f"connector-{name}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while (item := self._calls.get()) is not None:
            what, function, future = item
            if not future.set_running_or_notify_cancel():
                continue
            self._current = ConnectorCall(what, time.time())
            try:
                future.set_result(function())
            except BaseException as error:
                future.set_exception(error)
            finally:
                self._current = None

    def submit(self, what: str, function: Callable[[], T]) -> Future[T]:
        """Queue a call without waiting for it."""
        future: Future[T] = Future()
        self._calls.put((what, function, future))
        return future

    def call(
        self,
        what: str,
        function: Callable[[], T],
        timeout_s: float,
        superseded: Callable[[], bool] = lambda: False,
    ) -> T:
        """`function()` run on this thread; `StuckCallError` once `timeout_s` has passed since it began,
        `SupersededError` as soon as `superseded()` turns true."""
        future = self.submit(what, function)
        queued = time.time()
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                return future.result(WAIT_SLICE_S)
            except TimeoutError:
                pass
            if superseded():
                raise SupersededError(f"{what} of connector {self._name} was superseded")
            if time.monotonic() >= deadline:
                current = self._current
                began = current if current is not None and current.what == what else None
                raise StuckCallError(
                    f"Connector {self._name}", began or ConnectorCall(what, queued), timeout_s
                )

    def blocked_call(self) -> str | None:
        """The connector method this thread is inside now, e.g. ``MyConnector.validate()``, if any."""
        frame = sys._current_frames().get(self._thread.ident or -1)
        found: str | None = None
        while frame is not None:
            owner = frame.f_locals.get("self")
            if isinstance(owner, Connector):
                found = f"{type(owner).__qualname__}.{frame.f_code.co_name}()"
            frame = frame.f_back
        return found

    def stack(self) -> str:
        """Where the thread is now, as a traceback reads, to show where a stuck call waits."""
        frame = sys._current_frames().get(self._thread.ident or -1)
        return "".join(traceback.format_stack(frame)) if frame is not None else ""

    def close(self) -> None:
        """End the thread once what is queued on it has run."""
        self._calls.put(None)


def call_once(name: str, what: str, function: Callable[[], T], timeout_s: float) -> T:
    """`function()` on a thread of its own with a deadline: plugin code a caller must not wait on forever
    (a plugin's constructor or `version()`, a validation)."""
    thread = ConnectorThread(name)
    try:
        return thread.call(what, function, timeout_s)
    finally:
        thread.close()

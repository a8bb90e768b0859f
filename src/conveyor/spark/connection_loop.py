"""One thread that serves many connections of a process: each task's control connection of a task host.

A task host runs up to `tasks.per.slot` tasks, each with a control connection to its worker. Serving
each with two threads of its own (one to heartbeat, one to read) cost a task about 50 KB; one loop per
process serves them all. What the loop serves says when it next wants to run (`Served.due`) and reads
what arrives on the sockets it watches (`Served.readable`).
"""

from __future__ import annotations

import contextlib
import logging
import os
import selectors
import socket
import threading
import time
from typing import Protocol

logger = logging.getLogger(__name__)

_CALLING = float("inf")


class Served(Protocol):
    def due(self, now: float) -> float | None:
        """Do what is due by `now`; when to be called again (a monotonic time), or None when done."""

    def readable(self) -> None:
        """Read what arrived on the socket this watches."""


class ConnectionLoop:
    """Calls each `Served` when it is due and when its socket is readable, on one thread that runs
    while anything is served."""

    def __init__(self) -> None:
        self._selector = selectors.DefaultSelector()
        self._wake_in, self._wake_out = socket.socketpair()
        self._wake_in.setblocking(False)
        self._wake_out.setblocking(False)
        self._selector.register(self._wake_in, selectors.EVENT_READ, None)
        self._served: dict[Served, float] = {}
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def serve(self, served: Served) -> None:
        """Call `served` from now on until its `due` returns None."""
        with self._lock:
            self._served[served] = 0.0
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="conveyor-control-loop", daemon=True)
                self._thread.start()
        self.wake()

    def wake(self, served: Served | None = None) -> None:
        """Have `served` (or none) called at once, without waiting for its time."""
        if served is not None:
            with self._lock:
                if served in self._served:
                    self._served[served] = 0.0
        with contextlib.suppress(BlockingIOError, OSError):
            self._wake_out.send(b"\0")

    def watch(self, sock: socket.socket, served: Served) -> None:
        self._selector.register(sock, selectors.EVENT_READ, served)

    def unwatch(self, sock: socket.socket) -> None:
        with contextlib.suppress(KeyError, ValueError, OSError):
            self._selector.unregister(sock)

    def _run(self) -> None:
        while True:
            now = time.monotonic()
            with self._lock:
                ready = [served for served, when in self._served.items() if when <= now]
                for served in ready:
                    self._served[served] = _CALLING
            for served in ready:
                self._call_due(served, now)
            with self._lock:
                if not self._served:
                    self._thread = None
                    return
                timeout = max(0.0, min(self._served.values()) - time.monotonic())
            for key, _ in self._selector.select(timeout):
                if key.data is None:
                    with contextlib.suppress(BlockingIOError, OSError):
                        self._wake_in.recv(4096)
                    continue
                try:
                    key.data.readable()
                except Exception:
                    logger.exception("Could not read a control connection")

    def _call_due(self, served: Served, now: float) -> None:
        try:
            when = served.due(now)
        except Exception:
            logger.exception("A control connection failed")
            when = None
        with self._lock:
            if when is None:
                self._served.pop(served, None)
            elif served in self._served:
                self._served[served] = min(when, self._served[served])


_process_loop: tuple[int, ConnectionLoop] | None = None
_process_lock = threading.Lock()


def process_loop() -> ConnectionLoop:
    """This process's loop, made on first use: a process forked from one that had a loop (a task host
    from the executors' daemon) must not share its selector."""
    global _process_loop
    with _process_lock:
        if _process_loop is None or _process_loop[0] != os.getpid():
            _process_loop = (os.getpid(), ConnectionLoop())
        return _process_loop[1]

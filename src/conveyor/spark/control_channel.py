"""The control channel between a worker (the Spark driver) and its tasks on Spark executors.

Each running task keeps one TCP connection to its worker and exchanges a JSON line every heartbeat:
the task sends its incarnation and latest metrics, the worker answers with the target state. A task
whose incarnation is no longer current is told to stop, and a task that cannot reach its worker for
longer than the lease stops on its own, so a lost worker never leaves tasks running unsupervised.
"""

from __future__ import annotations

import contextlib
import json
import logging
import socket
import socketserver
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from conveyor.runtime.control import TargetState, TaskControl

log = logging.getLogger(__name__)


@dataclass
class TaskChannelState:
    """What the worker knows of one task through the channel."""

    attempt: str
    target: TargetState = TargetState.STARTED
    metrics: dict[str, Any] = field(default_factory=dict)
    last_seen: float | None = None


class ControlServer:
    """The worker's side: holds each task's target state and its last reported metrics."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self._tasks: dict[str, TaskChannelState] = {}
        self._connections: set[socket.socket] = set()
        self._lock = threading.Lock()
        server = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                with server._lock:
                    server._connections.add(self.connection)
                try:
                    self._serve()
                finally:
                    with server._lock:
                        server._connections.discard(self.connection)

            def _serve(self) -> None:
                for line in self.rfile:
                    try:
                        message = json.loads(line)
                        reply = server._on_heartbeat(message)
                    except (ValueError, KeyError) as exc:
                        reply = {"state": TargetState.STOPPED.value, "error": str(exc)}
                    self.wfile.write(json.dumps(reply).encode() + b"\n")
                    self.wfile.flush()

        socketserver.ThreadingTCPServer.allow_reuse_address = True
        self._server = socketserver.ThreadingTCPServer((host, port), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="conveyor-control", daemon=True
        )

    @property
    def address(self) -> tuple[str, int]:
        host, port = self._server.server_address[:2]
        return str(host), int(port)

    def start(self) -> None:
        self._thread.start()

    def close(self) -> None:
        """Stop serving and drop every task's connection, so that their leases start running out."""
        self._server.shutdown()
        self._server.server_close()
        with self._lock:
            connections = list(self._connections)
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)

    def register(self, task: str, attempt: str) -> None:
        """Make `attempt` the task's current incarnation; any older one will be told to stop."""
        with self._lock:
            self._tasks[task] = TaskChannelState(attempt)

    def set_target(self, task: str, state: TargetState) -> None:
        with self._lock:
            if task in self._tasks:
                self._tasks[task].target = state

    def forget(self, task: str) -> None:
        with self._lock:
            self._tasks.pop(task, None)

    def state(self, task: str) -> TaskChannelState | None:
        with self._lock:
            current = self._tasks.get(task)
            if current is None:
                return None
            return TaskChannelState(current.attempt, current.target, dict(current.metrics), current.last_seen)

    def _on_heartbeat(self, message: Mapping[str, Any]) -> dict[str, Any]:
        task, attempt = str(message["task"]), str(message["attempt"])
        with self._lock:
            current = self._tasks.get(task)
            if current is None or current.attempt != attempt:
                return {"state": TargetState.STOPPED.value, "reason": "superseded"}
            current.last_seen = time.monotonic()
            current.metrics = dict(message.get("metrics", {}))
            return {"state": current.target.value}


class RemoteTaskControl(TaskControl):
    """The executor's side: a heartbeat thread that keeps the task's view of its target state fresh."""

    def __init__(
        self,
        address: tuple[str, int],
        task: str,
        attempt: str,
        heartbeat_s: float = 0.2,
        lease_s: float = 10.0,
    ) -> None:
        self._address = address
        self._task = task
        self._attempt = attempt
        self._heartbeat_s = heartbeat_s
        self._lease_s = lease_s
        self._state = TargetState.STARTED
        self._metrics: dict[str, Any] = {}
        self._last_contact = time.monotonic()
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"conveyor-control-{task}", daemon=True)
        self._thread.start()

    def target_state(self) -> TargetState:
        with self._lock:
            if time.monotonic() - self._last_contact > self._lease_s:
                return TargetState.STOPPED
            return self._state

    def worker_lost(self) -> bool:
        """True once the worker has been unreachable for longer than the lease.

        A task that lost its worker stops on its own: the worker (or its successor) may have given the
        task to another incarnation meanwhile, and a task nobody supervises could neither be paused nor
        stopped, so it would run on as a zombie beside the new one, duplicating records. The lease bounds
        that overlap; a worker that merely restarts quickly keeps its tasks.
        """
        with self._lock:
            return time.monotonic() - self._last_contact > self._lease_s

    def report(self, metrics: Mapping[str, Any]) -> None:
        with self._lock:
            self._metrics = dict(metrics)

    def close(self) -> None:
        """Send the last metrics, then stop heartbeating."""
        self._closed.set()
        self._thread.join(timeout=self._heartbeat_s * 5 + 1)

    def _run(self) -> None:
        connection: socket.socket | None = None
        reader = None
        while True:
            closing = self._closed.is_set()
            try:
                if connection is None:
                    connection = socket.create_connection(
                        self._address, timeout=max(self._heartbeat_s * 5, 1.0)
                    )
                    reader = connection.makefile("rb")
                with self._lock:
                    metrics = dict(self._metrics)
                message = {"task": self._task, "attempt": self._attempt, "metrics": metrics}
                connection.sendall(json.dumps(message).encode() + b"\n")
                assert reader is not None
                line = reader.readline()
                if not line:
                    raise ConnectionError("worker closed the control channel")
                reply = json.loads(line)
                with self._lock:
                    self._state = TargetState(reply["state"])
                    self._last_contact = time.monotonic()
            except (OSError, ValueError) as exc:
                log.debug("control channel to %s: %s", self._address, exc)
                if connection is not None:
                    connection.close()
                connection, reader = None, None
            if closing:
                break
            self._closed.wait(self._heartbeat_s)
        if connection is not None:
            connection.close()

"""The control channel between a worker (the Spark driver) and its tasks on Spark executors.

Each running task keeps one TCP connection to its worker, carrying JSON lines both ways. The task sends
its incarnation, its latest metrics and its host's CPU seconds so far every heartbeat, and at once when
it reports a new state; the worker answers each with the target state, and pushes a new target state
down the connection as soon as it is set, so a pause, resume or stop reaches the task without waiting
for a heartbeat. A task whose incarnation is no longer current is told to stop, and a task that cannot
reach its worker for longer than the lease stops on its own, so a lost worker never leaves tasks running
unsupervised.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import socket
import socketserver
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from conveyor.runtime.control import TargetState, TaskControl
from conveyor.spark.connection_loop import process_loop
from conveyor.spark.host_cpu import HostCpu

logger = logging.getLogger(__name__)

FINISH_TIMEOUT_S = 5.0
"""How long a closing task waits for its worker to take its last report."""

StateReportCallback = Callable[[str, str, str], None]
"""Called with a task's name, attempt and the state it now reports (RUNNING or PAUSED)."""
TaskEndCallback = Callable[[str, str, Mapping[str, Any]], None]
"""Called with a task's name, attempt and its outcome (``failed``, ``error``, ``trace``) when it ends."""
HostCallback = Callable[[str], None]
"""Called with a task host's name when it (re)connects."""


@dataclass
class TaskChannelState:
    """What the worker knows of one task through the channel."""

    attempt: str
    target: TargetState = TargetState.STARTED
    metrics: dict[str, Any] = field(default_factory=dict)
    last_seen: float | None = None


class _Peer:
    """The worker's end of one task's connection: replies and pushes are whole lines, one at a time."""

    def __init__(self, wfile: io.BufferedIOBase) -> None:
        self._wfile = wfile
        self._lock = threading.Lock()

    def send(self, message: Mapping[str, Any]) -> None:
        with self._lock:
            self._wfile.write(json.dumps(message).encode() + b"\n")
            self._wfile.flush()

    def push(self, message: Mapping[str, Any]) -> None:
        """Send without waiting to be asked; a broken connection is the task's to re-open."""
        with contextlib.suppress(OSError, ValueError):
            self.send(message)


class ControlServer:
    """The worker's side: holds each task's target state and its last reported metrics, and reaches the
    task hosts (the Spark jobs that run tasks) to hand them tasks.

    The callbacks run on the connection's thread: `on_state_report` when a task reports a state other
    than the last one it reported, `on_task_end` when a task sends its outcome, `on_host` when a task
    host connects.
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        on_state_report: StateReportCallback = lambda task, attempt, state: None,
        on_task_end: TaskEndCallback = lambda task, attempt, outcome: None,
        on_host: HostCallback = lambda host: None,
    ) -> None:
        self._tasks: dict[str, TaskChannelState] = {}
        self._peers: dict[str, _Peer] = {}
        self._hosts: dict[str, _Peer] = {}
        self._host_cpu: dict[str, HostCpu] = {}
        self._connections: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._on_state_report = on_state_report
        self._on_task_end = on_task_end
        self._on_host = on_host
        server = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                peer = _Peer(self.wfile)
                with server._lock:
                    server._connections.add(self.connection)
                try:
                    for line in self.rfile:
                        try:
                            message = json.loads(line)
                            if "host" in message:
                                server._on_host_hello(str(message["host"]), peer)
                                continue
                            reply = server._on_heartbeat(message, peer)
                        except (ValueError, KeyError) as exc:
                            reply = {"state": TargetState.STOPPED.value, "error": str(exc)}
                        peer.send(reply)
                finally:
                    server._forget_peer(peer)
                    with server._lock:
                        server._connections.discard(self.connection)

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
        """Make `attempt` the task's current incarnation; an older one connected is told to stop now."""
        with self._lock:
            self._tasks[task] = TaskChannelState(attempt)
            superseded = self._peers.pop(task, None)
        if superseded is not None:
            superseded.push({"state": TargetState.STOPPED.value, "reason": "superseded"})

    def set_target(self, task: str, state: TargetState) -> None:
        """Record the task's target state and push it to the task if it is connected."""
        with self._lock:
            if task not in self._tasks:
                return
            self._tasks[task].target = state
            peer = self._peers.get(task)
        if peer is not None:
            peer.push({"state": state.value})

    def send_to_host(self, host: str, message: Mapping[str, Any]) -> bool:
        """Send a message to a connected task host; False if it is not connected (it will be told when it
        connects)."""
        with self._lock:
            peer = self._hosts.get(host)
        if peer is None:
            return False
        try:
            peer.send(message)
        except (OSError, ValueError):
            return False
        return True

    def host_busy(self, host: str) -> bool:
        """Whether the host's process used a busy share of a core lately, as its tasks' heartbeats tell
        (`conveyor.spark.host_cpu`); False before they tell."""
        with self._lock:
            cpu = self._host_cpu.get(host)
            return cpu is not None and cpu.busy()

    def forget_host(self, host: str) -> None:
        with self._lock:
            self._host_cpu.pop(host, None)

    def forget(self, task: str) -> None:
        with self._lock:
            self._tasks.pop(task, None)
            self._peers.pop(task, None)

    def state(self, task: str) -> TaskChannelState | None:
        with self._lock:
            current = self._tasks.get(task)
            if current is None:
                return None
            return TaskChannelState(current.attempt, current.target, dict(current.metrics), current.last_seen)

    def _on_heartbeat(self, message: Mapping[str, Any], peer: _Peer) -> dict[str, Any]:
        task, attempt = str(message["task"]), str(message["attempt"])
        metrics = dict(message.get("metrics", {}))
        with self._lock:
            current = self._tasks.get(task)
            if current is None or current.attempt != attempt:
                return {"state": TargetState.STOPPED.value, "reason": "superseded"}
            self._peers[task] = peer
            current.last_seen = time.monotonic()
            self._take_host_cpu(message.get("host-cpu"), current.last_seen)
            reported = metrics.get("state")
            changed = reported is not None and reported != current.metrics.get("state")
            current.metrics = metrics
            reply = {"state": current.target.value}
        if changed:
            try:
                self._on_state_report(task, attempt, str(reported))
            except Exception:
                logger.exception("Could not take the state task %s reported", task)
        outcome = message.get("outcome")
        if isinstance(outcome, Mapping):
            try:
                self._on_task_end(task, attempt, outcome)
            except Exception:
                logger.exception("Could not take the outcome of task %s", task)
        return reply

    def _take_host_cpu(self, reading: Any, now: float) -> None:
        """Keep a heartbeat's reading of its host's CPU seconds (under the lock)."""
        if not isinstance(reading, Mapping):
            return
        host, seconds = reading.get("host"), reading.get("seconds")
        if isinstance(host, str) and isinstance(seconds, int | float):
            self._host_cpu.setdefault(host, HostCpu()).add(now, float(seconds))

    def _on_host_hello(self, host: str, peer: _Peer) -> None:
        with self._lock:
            self._hosts[host] = peer
        try:
            self._on_host(host)
        except Exception:
            logger.exception("Could not hand task host %s its tasks", host)

    def _forget_peer(self, peer: _Peer) -> None:
        with self._lock:
            for task in [task for task, known in self._peers.items() if known is peer]:
                del self._peers[task]
            for host in [host for host, known in self._hosts.items() if known is peer]:
                del self._hosts[host]


class RemoteTaskControl(TaskControl):
    """The executor's side: heartbeats that keep the worker's lease, and the target state the worker
    answers or pushes. The process's `ConnectionLoop` sends and reads for every task of the host."""

    def __init__(
        self,
        address: tuple[str, int],
        task: str,
        attempt: str,
        heartbeat_s: float = 0.2,
        lease_s: float = 10.0,
        memory_limit_bytes: int | None = None,
        host: str | None = None,
    ) -> None:
        super().__init__(memory_limit_bytes)
        self._host = host
        """The task host the task runs on, whose CPU seconds each heartbeat carries; None for none."""
        self._address = address
        self._task = task
        self._attempt = attempt
        self._heartbeat_s = heartbeat_s
        self._lease_s = lease_s
        self._state = TargetState.STARTED
        self._metrics: dict[str, Any] = {}
        self._sent_state: Any = None
        self._outcome: dict[str, Any] | None = None
        self._last_contact = time.monotonic()
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._done = threading.Event()
        self._socket: socket.socket | None = None
        self._received = bytearray()
        self._finish_by: float | None = None
        self._finishing = False
        self._loop = process_loop()
        self._loop.serve(self)

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
        """Keep the metrics for the next heartbeat; a new state is sent at once."""
        with self._lock:
            self._metrics = dict(metrics)
            now = metrics.get("state") != self._sent_state
        if now:
            self._loop.wake(self)

    def close(self, outcome: Mapping[str, Any] | None = None) -> None:
        """Send the last metrics (and how the task ended, if given), then stop heartbeating."""
        with self._lock:
            self._outcome = dict(outcome) if outcome is not None else None
        self._closed.set()
        self._loop.wake(self)
        self._done.wait(timeout=min(self._heartbeat_s * 5, 10.0) + 2 * FINISH_TIMEOUT_S)

    def due(self, now: float) -> float | None:
        """Send a heartbeat (connecting first if need be); once closed, the last one, then wait for the
        worker to take it and close its end. None once done."""
        if self._done.is_set():
            self._drop()
            return None
        if self._finishing:
            if self._finish_by is not None and now < self._finish_by:
                return self._finish_by
            self._end()
            return None
        closing = self._closed.is_set()
        sent = False
        try:
            if self._socket is None:
                self._connect()
            assert self._socket is not None
            self._socket.sendall(json.dumps(self._heartbeat(closing)).encode() + b"\n")
            sent = True
        except OSError as exc:
            logger.debug("control channel of task %s to %s: %s", self._task, self._address, exc)
            self._drop()
        if not closing:
            return time.monotonic() + self._heartbeat_s
        if sent and self._socket is not None:
            with contextlib.suppress(OSError):
                self._socket.shutdown(socket.SHUT_WR)
            self._finishing = True
            self._finish_by = time.monotonic() + FINISH_TIMEOUT_S
            return self._finish_by
        self._finish_by = self._finish_by or now + FINISH_TIMEOUT_S
        if now > self._finish_by:
            self._end()
            return None
        return time.monotonic() + 0.1

    def readable(self) -> None:
        """Take every target state the worker sent; at the end of the connection, connect again (or,
        once the last heartbeat is sent, be done)."""
        connection = self._socket
        if connection is None:
            return
        try:
            data = connection.recv(65536)
        except BlockingIOError:
            return
        except OSError as exc:
            logger.debug("control channel of task %s to %s: %s", self._task, self._address, exc)
            data = b""
        if not data:
            self._broken()
            return
        self._received += data
        while (end := self._received.find(b"\n")) >= 0:
            line = bytes(self._received[:end])
            del self._received[: end + 1]
            try:
                state = TargetState(json.loads(line)["state"])
            except (ValueError, KeyError) as exc:
                logger.debug("control channel of task %s to %s: %s", self._task, self._address, exc)
                self._broken()
                return
            with self._lock:
                changed = state is not self._state
                self._state = state
                self._last_contact = time.monotonic()
            if changed:
                self._notify_change()

    def _heartbeat(self, closing: bool) -> dict[str, Any]:
        with self._lock:
            metrics = {**self._metrics, **self.current_call()}
            self._sent_state = metrics.get("state")
            message: dict[str, Any] = {"task": self._task, "attempt": self._attempt, "metrics": metrics}
            if self._host is not None:
                message["host-cpu"] = {"host": self._host, "seconds": time.process_time()}
            if closing and self._outcome is not None:
                message["outcome"] = self._outcome
        return message

    def _connect(self) -> None:
        timeout_s = max(self._heartbeat_s * 5, 1.0)
        connection = socket.create_connection(self._address, timeout=timeout_s)
        self._received.clear()
        self._socket = connection
        self._loop.watch(connection, self)

    def _broken(self) -> None:
        self._drop()
        if self._finishing:
            self._end()
        else:
            self._loop.wake(self)

    def _drop(self) -> None:
        connection, self._socket = self._socket, None
        if connection is not None:
            self._loop.unwatch(connection)
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
            connection.close()

    def _end(self) -> None:
        self._drop()
        self._done.set()
        self._loop.wake(self)

"""What runs on a Spark executor: a task host, one partition that runs the tasks its worker hands it.

A host is a long-running, one-partition Spark job. It connects to its worker's control channel, and
runs every task the worker sends it as a thread of its own, each with its own control connection over
which it reports its state, its metrics and, at the end, its outcome. A worker gives each host one task
before it gives any host a second, so up to the number of Spark slots every task has a Python process
of its own; beyond it, light tasks share processes instead of waiting for a slot. A host with a memory
limit (`task.memory.limit`) watches its resident memory (`conveyor.spark.memory_watchdog`).

If the executor dies, Spark re-runs the partition: the new host connects under the same name and the
worker hands it the same task incarnations again, which resume from their committed offsets.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import pickle
import socket
import threading
import time
import traceback
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from conveyor.errors import ConnectError
from conveyor.log_format import use_worker_log_format
from conveyor.runtime.task_entry import run_task
from conveyor.runtime.task_spec import TaskSpec
from conveyor.spark.control_channel import RemoteTaskControl
from conveyor.spark.memory_watchdog import MemoryWatchdog, over_limit_message

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class HostLaunch:
    """The one row of a task host's Spark job: its name and how to reach its worker."""

    host: str
    control_address: tuple[str, int]
    heartbeat_s: float
    lease_s: float
    memory_limit_bytes: int | None = None
    """The resident memory the host may hold (`task.memory.limit`); None for no limit."""


def spec_message(spec: TaskSpec) -> dict[str, Any]:
    """The task as the worker sends it to a host: pickled, as Spark ships the host's own function, since
    its typed worker settings are no JSON."""
    return {"spec": base64.b64encode(pickle.dumps(spec)).decode("ascii")}


def spec_of(message: Mapping[str, Any]) -> TaskSpec:
    spec = pickle.loads(base64.b64decode(message["spec"]))
    assert isinstance(spec, TaskSpec)
    return spec


def run_task_incarnation(spec: TaskSpec, launch: HostLaunch) -> None:
    """Run one task incarnation to its end and send its outcome over its control connection.

    A task's own error is sent as a FAILED outcome instead of raised, so that Spark re-runs the host
    only when the executor itself dies.
    """
    control = RemoteTaskControl(
        launch.control_address,
        str(spec.id),
        spec.attempt,
        launch.heartbeat_s,
        launch.lease_s,
        launch.memory_limit_bytes,
        launch.host,
    )
    outcome: dict[str, Any] = {"failed": False}
    try:
        run_task(spec, control)
    except BaseException as exc:
        outcome = {"failed": True, "error": f"{type(exc).__name__}: {exc}", "trace": traceback.format_exc()}
    finally:
        control.close(outcome)


class HostMemoryError(MemoryError, ConnectError):
    """A host that was over its memory limit still is once its tasks have ended: it must not run more."""


class TaskHost:
    """Runs the tasks the worker hands it until told to end, or until the worker is lost for a lease."""

    def __init__(self, launch: HostLaunch) -> None:
        self._launch = launch
        self._started: set[tuple[str, str]] = set()
        self._threads: list[threading.Thread] = []
        limit = launch.memory_limit_bytes
        self._watchdog = (
            None if limit is None else MemoryWatchdog(launch.host, limit, lambda: list(self._threads))
        )

    def run(self) -> None:
        """Serve tasks until told to end; a host still over its memory limit then raises, so that its
        process is not reused for another host."""
        if self._watchdog is not None:
            self._watchdog.start()
        try:
            self._serve_until_ended()
        finally:
            if self._watchdog is not None:
                self._watchdog.stop()
        held = self._watchdog.held_over_limit() if self._watchdog is not None else None
        if self._watchdog is not None and held is not None:
            message = over_limit_message(self._launch.host, held, self._watchdog.limit_bytes)
            logger.warning("%s once its tasks ended; its process ends instead of hosting more", message)
            raise HostMemoryError(message)

    def _serve_until_ended(self) -> None:
        lost_since: float | None = None
        while True:
            try:
                if self._serve():
                    break
                lost_since = None
            except (OSError, ValueError, KeyError) as exc:
                logger.debug("task host %s: %s", self._launch.host, exc)
            now = time.monotonic()
            lost_since = lost_since or now
            if now - lost_since > self._launch.lease_s:
                logger.warning(
                    "task host %s lost its worker; its tasks stop by their leases", self._launch.host
                )
                break
            time.sleep(min(self._launch.heartbeat_s, 1.0))
        for thread in self._threads:
            thread.join()

    def _serve(self) -> bool:
        """Take tasks from one connection to the worker; True when told to end."""
        timeout = max(self._launch.heartbeat_s * 5, 1.0)
        with socket.create_connection(self._launch.control_address, timeout=timeout) as connection:
            connection.settimeout(None)
            connection.sendall(json.dumps({"host": self._launch.host}).encode() + b"\n")
            for line in connection.makefile("rb"):
                message = json.loads(line)
                if message.get("end"):
                    return True
                if "run" in message:
                    self._start(spec_of(message["run"]))
        return False

    def _start(self, spec: TaskSpec) -> None:
        key = (str(spec.id), spec.attempt)
        if key in self._started:
            return
        self._started.add(key)
        thread = threading.Thread(
            target=run_task_incarnation, args=(spec, self._launch), name=f"conveyor-task-{spec.id}"
        )
        self._threads.append(thread)
        thread.start()


def run_task_host(launches: Iterable[HostLaunch]) -> Iterator[str]:
    """The Spark partition function: be the task host each row names, until the worker ends it."""
    use_worker_log_format(os.environ.get("CONVEYOR_EXECUTOR_LOG_LEVEL", "WARNING"))
    for launch in launches:
        TaskHost(launch).run()
        yield launch.host

"""A `TaskRunner` that runs each task incarnation in a thread of this process.

It is a second real placement of task loops beside Spark's: the same entry function, driven through
a `LocalTaskControl` instead of the control channel. The worker and herder tests use it to stay
free of a SparkSession.
"""

from __future__ import annotations

import threading
import traceback
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from conveyor.runtime.control import LocalTaskControl, TargetState
from conveyor.runtime.task_entry import run_task
from conveyor.runtime.task_runner import TaskEvents, TaskOutcome, TaskRunner
from conveyor.runtime.task_spec import TaskId, TaskSpec


class _ReportingControl(LocalTaskControl):
    """A local control that tells the worker at once when the loop reports a new state."""

    def __init__(self, spec: TaskSpec, events: TaskEvents) -> None:
        super().__init__()
        self._spec = spec
        self._events = events

    def report(self, metrics: Mapping[str, Any]) -> None:
        previous = self.metrics.get("state")
        super().report(metrics)
        state = metrics.get("state")
        if isinstance(state, str) and state != previous:
            self._events.reported(self._spec, state)


@dataclass
class _RunningThread:
    spec: TaskSpec
    control: LocalTaskControl
    thread: threading.Thread


class ThreadTaskRunner(TaskRunner):
    """Runs `run_task` in a daemon thread per task; `launches` lists every incarnation started."""

    def __init__(self) -> None:
        self._running: dict[TaskId, _RunningThread] = {}
        self._lock = threading.Lock()
        self.launches: list[TaskSpec] = []
        self.stops: list[TaskId] = []
        """Every task its worker asked to stop, in order (running or already ended on its own)."""

    def start(self, spec: TaskSpec, events: TaskEvents) -> None:
        control = _ReportingControl(spec, events)
        thread = threading.Thread(
            target=self._run, args=(spec, control, events), name=f"task-{spec.id}", daemon=True
        )
        with self._lock:
            self._running[spec.id] = _RunningThread(spec, control, thread)
            self.launches.append(spec)
        thread.start()

    def _run(self, spec: TaskSpec, control: LocalTaskControl, events: TaskEvents) -> None:
        try:
            run_task(spec, control)
            outcome = TaskOutcome.stopped()
        except BaseException as exc:
            outcome = TaskOutcome(True, f"{type(exc).__name__}: {exc}", traceback.format_exc())
        with self._lock:
            current = self._running.get(spec.id)
            if current is not None and current.spec.attempt == spec.attempt:
                del self._running[spec.id]
        events.exited(spec, outcome)

    def _get(self, task: TaskId) -> _RunningThread | None:
        with self._lock:
            return self._running.get(task)

    def set_target(self, task: TaskId, state: TargetState) -> None:
        running = self._get(task)
        if running is not None:
            running.control.set_target_state(state)

    def stop(self, task: TaskId, timeout_s: float) -> bool:
        with self._lock:
            self.stops.append(task)
        running = self._get(task)
        if running is None:
            return True
        running.control.set_target_state(TargetState.STOPPED)
        running.thread.join(timeout_s)
        return not running.thread.is_alive()

    def metrics(self, task: TaskId) -> dict[str, Any]:
        running = self._get(task)
        return {} if running is None else dict(running.control.metrics)

    def running(self) -> set[TaskId]:
        """The tasks whose thread has not ended."""
        with self._lock:
            return {task for task, running in self._running.items() if running.thread.is_alive()}

    def launches_of(self, task: TaskId) -> list[TaskSpec]:
        with self._lock:
            return [spec for spec in self.launches if spec.id == task]

    def close(self) -> None:
        with self._lock:
            tasks = list(self._running)
        for task in tasks:
            self.stop(task, 30.0)

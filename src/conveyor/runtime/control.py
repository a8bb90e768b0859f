"""How a running task loop learns what its worker wants, and tells the worker how it is doing.

The task loops in this package only see the `TaskControl` interface. On Spark the executor side of
the worker's control channel implements it (`conveyor.spark.control_channel`); tests may run a loop in
process with `LocalTaskControl`.
"""

from __future__ import annotations

import enum
import os
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from typing import Any

from conveyor.metrics.metric_groups import TASK_MEMORY_LIMIT_METRIC, TASK_MEMORY_METRIC
from conveyor.metrics.process_memory import resident_bytes

CALL = "call"
"""The metric naming the call into task code a loop is inside now (`poll()`, `put()`), if any."""
CALL_BEGAN = "call-began"
"""When that call began, in seconds since the epoch."""
PRIVATE_METRICS = ("state", "pid", CALL, CALL_BEGAN)
"""What a task reports to its worker but the worker does not publish as a metric."""


class TargetState(enum.Enum):
    """What the worker wants a task to do, as in Kafka Connect (plus the graceful stop)."""

    STARTED = "STARTED"
    PAUSED = "PAUSED"
    STOPPED = "STOPPED"


class TaskControl(ABC):
    """The task loop's side of the control channel.

    An implementation calls `_notify_change` after its target state changes, which wakes `wait`.
    """

    def __init__(self, memory_limit_bytes: int | None = None) -> None:
        self._changed = threading.Condition()
        self._call: tuple[str, float] | None = None
        self.memory_limit_bytes = memory_limit_bytes
        """The memory limit of the process the task runs in (`task.memory.limit`), None without one."""

    def memory(self) -> dict[str, Any]:
        """The memory of the process the task runs in, and its limit where it has one, as metrics."""
        shown: dict[str, Any] = {TASK_MEMORY_METRIC: resident_bytes()}
        if self.memory_limit_bytes is not None:
            shown[TASK_MEMORY_LIMIT_METRIC] = self.memory_limit_bytes
        return shown

    def calling(self, what: str | None) -> None:
        """Note the call into task code the loop makes now (None once it has returned), so that its
        worker can tell a task blocked in it."""
        self._call = (what, time.time()) if what is not None else None

    def current_call(self) -> dict[str, Any]:
        """The call the loop is inside now as `CALL` and `CALL_BEGAN` metrics; empty between calls."""
        call = self._call
        return {} if call is None else {CALL: call[0], CALL_BEGAN: call[1]}

    @abstractmethod
    def target_state(self) -> TargetState:
        """The state the worker currently wants; STOPPED also when the worker is lost."""

    @abstractmethod
    def report(self, metrics: Mapping[str, Any]) -> None:
        """Publish the task's latest counters (records, commits, lag...) to its worker."""

    def should_stop(self) -> bool:
        return self.target_state() is TargetState.STOPPED

    def wait(self, seconds: float) -> bool:
        """Sleep up to `seconds`, waking as soon as the target state changes; returns True if stopping."""
        deadline = time.monotonic() + seconds
        with self._changed:
            seen = self.target_state()
            while seen is not TargetState.STOPPED:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or self.target_state() is not seen:
                    break
                self._changed.wait(remaining)
        return self.should_stop()

    def _notify_change(self) -> None:
        with self._changed:
            self._changed.notify_all()


class LocalTaskControl(TaskControl):
    """An in-process control: the caller sets the target state, the loop reads it."""

    def __init__(self, state: TargetState = TargetState.STARTED) -> None:
        super().__init__()
        self._state = state
        self._lock = threading.Lock()
        self.metrics: dict[str, Any] = {}

    def set_target_state(self, state: TargetState) -> None:
        with self._lock:
            self._state = state
        self._notify_change()

    def target_state(self) -> TargetState:
        with self._lock:
            return self._state

    def report(self, metrics: Mapping[str, Any]) -> None:
        with self._lock:
            self.metrics = dict(metrics)


class StateReporter:
    """Sends a task loop's state and counters to its worker, at most every `interval_s` unless forced.

    Loops call it every iteration; the throttle keeps the cost off the hot path. A change of state is
    always sent at once, so that a pause or resume shows in the task's status without waiting.
    """

    def __init__(self, control: TaskControl, interval_s: float = 0.25) -> None:
        self._control = control
        self._interval_s = interval_s
        self._last = 0.0
        self._last_state: str | None = None

    def __call__(
        self, state: TargetState, metrics: Callable[[], Mapping[str, Any]], force: bool = False
    ) -> None:
        """Report `state` and what `metrics()` gives; `metrics` is called only when a report is sent."""
        reported = "PAUSED" if state is TargetState.PAUSED else "RUNNING"
        now = time.monotonic()
        if not force and reported == self._last_state and now - self._last < self._interval_s:
            return
        self._last = now
        self._last_state = reported
        self._control.report({"state": reported, "pid": os.getpid(), **self._control.memory(), **metrics()})

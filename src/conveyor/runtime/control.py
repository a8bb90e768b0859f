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
from collections.abc import Mapping
from typing import Any


class TargetState(enum.Enum):
    """What the worker wants a task to do, as in Kafka Connect (plus the graceful stop)."""

    STARTED = "STARTED"
    PAUSED = "PAUSED"
    STOPPED = "STOPPED"


class TaskControl(ABC):
    """The task loop's side of the control channel."""

    @abstractmethod
    def target_state(self) -> TargetState:
        """The state the worker currently wants; STOPPED also when the worker is lost."""

    @abstractmethod
    def report(self, metrics: Mapping[str, Any]) -> None:
        """Publish the task's latest counters (records, commits, lag...) to its worker."""

    def should_stop(self) -> bool:
        return self.target_state() is TargetState.STOPPED

    def wait(self, seconds: float) -> bool:
        """Sleep up to `seconds`, waking early when a stop arrives; returns True if stopping."""
        event = threading.Event()
        step = min(seconds, 0.05)
        waited = 0.0
        while waited < seconds:
            if self.should_stop():
                return True
            event.wait(step)
            waited += step
        return self.should_stop()


class LocalTaskControl(TaskControl):
    """An in-process control: the caller sets the target state, the loop reads it."""

    def __init__(self, state: TargetState = TargetState.STARTED) -> None:
        self._state = state
        self._lock = threading.Lock()
        self.metrics: dict[str, Any] = {}

    def set_target_state(self, state: TargetState) -> None:
        with self._lock:
            self._state = state

    def target_state(self) -> TargetState:
        with self._lock:
            return self._state

    def report(self, metrics: Mapping[str, Any]) -> None:
        with self._lock:
            self.metrics = dict(metrics)


class StateReporter:
    """Sends a task loop's state and counters to its worker, at most every `interval_s` unless forced.

    Loops call it every iteration; the throttle keeps the cost off the hot path.
    """

    def __init__(self, control: TaskControl, interval_s: float = 0.25) -> None:
        self._control = control
        self._interval_s = interval_s
        self._last = 0.0

    def __call__(self, state: TargetState, metrics: Mapping[str, Any], force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._last < self._interval_s:
            return
        self._last = now
        reported = "PAUSED" if state is TargetState.PAUSED else "RUNNING"
        self._control.report({"state": reported, "pid": os.getpid(), **metrics})

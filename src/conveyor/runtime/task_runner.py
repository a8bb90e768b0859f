"""Where task loops run: the interface the worker drives, implemented by `conveyor.spark`.

Named a *runner*, not an executor: in Conveyor "executor" means only Spark's executor processes, on
which a `TaskRunner` may (or, for a streaming query driven from the driver, may not) place a task.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from conveyor.metrics.worker_usage import SlotUsage
from conveyor.runtime.control import TargetState
from conveyor.runtime.task_spec import TaskId, TaskSpec


@dataclass(frozen=True)
class TaskOutcome:
    """How a task incarnation ended: stopped when asked, or failed with its error and trace."""

    failed: bool
    error: str | None = None
    trace: str | None = None

    @classmethod
    def stopped(cls) -> TaskOutcome:
        return cls(failed=False)


@dataclass(frozen=True)
class TaskEvents:
    """What a runner tells the worker about one task incarnation, as it happens."""

    exited: Callable[[TaskSpec, TaskOutcome], None]
    """Called once, when the incarnation ends."""
    reported: Callable[[TaskSpec, str], None]
    """Called when the task reports a new state (RUNNING or PAUSED)."""
    unplaced: Callable[[TaskSpec, str], None]
    """Called when the task cannot run yet for lack of room, with the reason; it runs once room frees."""


class TaskRunner(ABC):
    """Starts task loops somewhere, relays target states to them, and reports how they end."""

    @abstractmethod
    def start(self, spec: TaskSpec, events: TaskEvents) -> None:
        """Run the task described by `spec` until it is stopped, telling `events` how it goes."""

    @abstractmethod
    def set_target(self, task: TaskId, state: TargetState) -> None:
        """Ask a running task to pause, resume or stop."""

    @abstractmethod
    def stop(self, task: TaskId, timeout_s: float) -> bool:
        """Stop a task gracefully, forcing it after `timeout_s`; True if it stopped in time."""

    @abstractmethod
    def metrics(self, task: TaskId) -> dict[str, Any]:
        """The latest counters the task reported."""

    def waiting_for(self) -> str | None:
        """What the runner waits for before it can run tasks (e.g. Spark starting), or None when it can."""
        return None

    @abstractmethod
    def close(self) -> None:
        """Stop serving; running tasks learn it through their lease."""

    def slot_usage(self) -> SlotUsage | None:
        """The runner's slots and how many run tasks; None for a runner without slots."""
        return None

    def ui_url(self) -> str | None:
        """Where the engine running the tasks shows them (Spark's UI), if it does."""
        return None

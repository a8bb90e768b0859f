"""A task runner still being built (Spark starting) while the REST server and the herder already work.

Starting Spark takes seconds; reading the internal topics, joining the group and serving REST need none
of it. A worker wraps its runner in a `StartingTaskRunner`, which builds the real one on a thread of its
own: tasks the herder starts meanwhile wait in order and start once it is built, a task stopped before
then never starts, and if the build fails they fail with its error.
"""

from __future__ import annotations

import logging
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from conveyor.errors import ConnectError
from conveyor.metrics.worker_usage import SlotUsage
from conveyor.runtime.control import TargetState
from conveyor.runtime.task_runner import TaskEvents, TaskOutcome, TaskRunner
from conveyor.runtime.task_spec import TaskId, TaskSpec

logger = logging.getLogger(__name__)


class RunnerStartError(ConnectError):
    """The task runner (Spark) could not start: the worker cannot run tasks."""


@dataclass
class _Waiting:
    spec: TaskSpec
    events: TaskEvents
    target: TargetState | None = None
    stopped: bool = False


STOP_AFTER_HANDOVER_S = 30.0
"""How long a task stopped while it was being handed to the built runner is given to stop."""


class StartingTaskRunner(TaskRunner):
    """Builds a runner with `build` on a thread named `name`, and stands in for it until it is built.

    Tasks started before then are handed to it in order once it is built, each outside this runner's lock
    (the built runner may call the worker back as it starts one); calls about a task waiting or being handed
    over change what is handed, calls about any other go to the built runner.
    """

    def __init__(
        self, build: Callable[[], TaskRunner], what: str = "Spark", name: str = "spark-start"
    ) -> None:
        self._what = what
        self._lock = threading.Lock()
        self._runner: TaskRunner | None = None
        self._failure: BaseException | None = None
        self._closed = False
        self._waiting: dict[TaskId, _Waiting] = {}
        self._handing: _Waiting | None = None
        self._handed_over = False
        self._built = threading.Event()
        threading.Thread(target=self._build, args=(build,), name=name, daemon=True).start()

    def _build(self, build: Callable[[], TaskRunner]) -> None:
        try:
            runner = build()
        except BaseException as error:
            logger.exception("%s could not start; this worker cannot run tasks", self._what)
            with self._lock:
                self._failure = error
                waiting = list(self._waiting.values())
                self._waiting.clear()
            self._built.set()
            for task in waiting:
                self._fail(task.spec, task.events)
            return
        with self._lock:
            self._runner = runner
        self._built.set()
        self._hand_over(runner)

    def _hand_over(self, runner: TaskRunner) -> None:
        while True:
            with self._lock:
                if self._closed:
                    self._waiting.clear()
                if not self._waiting:
                    self._handed_over, closed = True, self._closed
                    break
                self._handing = task = self._waiting.pop(next(iter(self._waiting)))
            runner.start(task.spec, task.events)
            with self._lock:
                self._handing = None
            if task.stopped:
                runner.stop(task.spec.id, STOP_AFTER_HANDOVER_S)
            elif task.target is not None:
                runner.set_target(task.spec.id, task.target)
        if closed:
            runner.close()

    def _fail(self, spec: TaskSpec, events: TaskEvents) -> None:
        error = f"{self._what} could not start: {self._failure!r}"
        events.exited(spec, TaskOutcome(True, error, "".join(traceback.format_exception(self._failure))))

    def _pending(self, task: TaskId) -> _Waiting | None:
        """The task if it waits for the built runner or is being handed to it (under the lock)."""
        if self._handing is not None and self._handing.spec.id == task:
            return self._handing
        return self._waiting.get(task)

    def waiting_for(self) -> str | None:
        if self._built.is_set():
            return None
        return f"{self._what} is starting."

    def wait_started(self, timeout_s: float | None = None) -> TaskRunner:
        """The built runner, once it is; raises `RunnerStartError` if building it failed or took too long."""
        if not self._built.wait(timeout_s):
            raise RunnerStartError(f"{self._what} did not start within {timeout_s or 0:.0f} s")
        with self._lock:
            if self._runner is None:
                raise RunnerStartError(f"{self._what} could not start: {self._failure!r}") from self._failure
            return self._runner

    def start(self, spec: TaskSpec, events: TaskEvents) -> None:
        with self._lock:
            runner, failed = self._runner, self._failure is not None
            if not failed and (runner is None or self._waiting or self._handing is not None):
                self._waiting[spec.id] = _Waiting(spec, events)
                return
        if runner is not None:
            runner.start(spec, events)
        else:
            self._fail(spec, events)

    def set_target(self, task: TaskId, state: TargetState) -> None:
        with self._lock:
            pending, runner = self._pending(task), self._runner
            if pending is not None:
                pending.target = state
                return
        if runner is not None:
            runner.set_target(task, state)

    def stop(self, task: TaskId, timeout_s: float) -> bool:
        with self._lock:
            runner = self._runner
            if self._waiting.pop(task, None) is not None:
                return True
            if self._handing is not None and self._handing.spec.id == task:
                self._handing.stopped = True
                return True
        return runner.stop(task, timeout_s) if runner is not None else True

    def metrics(self, task: TaskId) -> dict[str, Any]:
        runner = self._runner
        return runner.metrics(task) if runner is not None else {}

    def slot_usage(self) -> SlotUsage | None:
        """The built runner's slots; None while Spark starts."""
        runner = self._runner
        return runner.slot_usage() if runner is not None else None

    def ui_url(self) -> str | None:
        """The built runner's UI (Spark's); None while Spark starts."""
        runner = self._runner
        return runner.ui_url() if runner is not None else None

    def close(self) -> None:
        with self._lock:
            runner, handed_over = self._runner, self._handed_over
            self._closed = True
        if runner is not None and handed_over:
            runner.close()

"""The run every task loop shares: start, loop, a final commit (or the loop's own ending after a
failure), then release."""

from __future__ import annotations

import abc
import logging
from functools import partial
from typing import Generic, TypeVar

from conveyor.api import Task
from conveyor.log.api import Closeable
from conveyor.pipeline.record_pipeline import RecordPipeline
from conveyor.runtime.control import TargetState, TaskControl
from conveyor.runtime.task_spec import TaskSpec

logger = logging.getLogger(__name__)

TaskT = TypeVar("TaskT", bound=Task)


class TaskLoop(abc.ABC, Generic[TaskT]):
    """One incarnation of a task on its executor, from `start` to the release of what it holds.

    A loop sets `spec`, `control`, `task` and `pipeline`, and says how its task is initialized, what one
    run of its loop does, what its final commit is, how it reports, and which log client it holds.
    """

    spec: TaskSpec
    control: TaskControl
    task: TaskT
    pipeline: RecordPipeline
    task_stopped = False
    """True once the task's `stop` was called: nothing more may be asked of it after that."""

    def run(self) -> None:
        """Initialize and start the task, and report it RUNNING (as Kafka's `onStartup`, before its first
        `poll` or `put`); loop; if the loop returned (a stop, not a failure) commit a
        last time, else let the loop end its work after the failure; then, whatever happened, release
        in order: the last status report, the task's `stop`, the record pipeline, the log client. A
        failure propagates after the release, so the task is reported FAILED. A task that fails to
        initialize or start still releases its clients, but is not asked to `stop`: it never started."""
        try:
            self._initialize_task()
            self.task.start(self.spec.task_config)
        except BaseException:
            self._release(raise_errors=False, started=False)
            raise
        if self.control.target_state() is TargetState.STARTED:
            self._report(force=True)
        ended_cleanly = False
        try:
            try:
                self._loop()
            except Exception:
                self._finish_quietly()
                raise
            self._commit_final()
            ended_cleanly = True
        finally:
            self._release(raise_errors=ended_cleanly)

    def _release(self, raise_errors: bool, started: bool = True) -> None:
        """Run every release step even if one before it raised: a task whose `stop` fails still closes
        its producer or leaves its consumer group, instead of holding its partitions until the group's
        session times out. The first error is raised if nothing else is on its way out, else logged."""
        first_error: Exception | None = None
        steps = (
            partial(self._report, force=True),
            *((self._stop_task,) if started else ()),
            self.pipeline.close,
            self._close_client,
        )
        for step in steps:
            try:
                step()
            except Exception as error:
                if first_error is None and raise_errors:
                    first_error = error
                else:
                    logger.error("Releasing task %s failed", self.spec.id, exc_info=error)
        if first_error is not None:
            raise first_error

    def _finish_quietly(self) -> None:
        try:
            self._finish_after_failure()
        except Exception as error:
            logger.error("Ending task %s after its failure failed", self.spec.id, exc_info=error)

    def _finish_after_failure(self) -> None:
        """What is done before `stop` when the loop failed: nothing by default, so the next
        incarnation redoes the work rather than skipping it (a failed source task commits nothing)."""

    def _stop_task(self) -> None:
        self.task_stopped = True
        self.task.stop()

    def _close_client(self) -> None:
        self._log_client().close()

    @abc.abstractmethod
    def _initialize_task(self) -> None:
        """Give the task its context (before `start`)."""

    @abc.abstractmethod
    def _loop(self) -> None:
        """Do the task's work until the control says stop; return then, raise on a failure."""

    @abc.abstractmethod
    def _commit_final(self) -> None:
        """Commit what the task finished, once, after the loop returned."""

    @abc.abstractmethod
    def _report(self, force: bool = False) -> None:
        """Report the task's state and metrics to its worker (`force`: even if nothing changed)."""

    @abc.abstractmethod
    def _log_client(self) -> Closeable:
        """The producer or consumer the loop holds, closed last."""

"""What runs on a Spark executor: one partition that is one task incarnation, start to stop."""

from __future__ import annotations

import json
import logging
import os
import traceback
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from conveyor.runtime.task_entry import run_task
from conveyor.runtime.task_spec import TaskSpec
from conveyor.spark.control_channel import RemoteTaskControl


@dataclass(frozen=True)
class TaskLaunch:
    """The one row of a task's Spark job: the task and how to reach its worker."""

    spec: TaskSpec
    control_address: tuple[str, int]
    heartbeat_s: float
    lease_s: float


def run_task_partition(launches: Iterable[TaskLaunch]) -> Iterator[str]:
    """The Spark partition function: run each launched task and yield its outcome as JSON.

    A task's own error is returned as a FAILED outcome instead of raised, so that Spark re-runs the
    partition only when the executor itself dies.
    """
    logging.basicConfig(level=os.environ.get("CONVEYOR_EXECUTOR_LOG_LEVEL", "WARNING"))
    for launch in launches:
        spec = launch.spec
        control = RemoteTaskControl(
            launch.control_address, str(spec.id), spec.attempt, launch.heartbeat_s, launch.lease_s
        )
        try:
            run_task(spec, control)
            outcome: dict[str, object] = {"failed": False}
        except BaseException as exc:
            outcome = {
                "failed": True,
                "error": f"{type(exc).__name__}: {exc}",
                "trace": traceback.format_exc(),
            }
        finally:
            control.close()
        yield json.dumps(outcome)

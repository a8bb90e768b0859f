"""Runs each task loop as one long-running, one-partition Spark job."""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import dataclass
from typing import Any

from pyspark.sql import SparkSession

from conveyor.runtime.control import TargetState
from conveyor.runtime.task_runner import TaskEvents, TaskOutcome, TaskRunner
from conveyor.runtime.task_spec import TaskId, TaskSpec
from conveyor.spark.control_channel import ControlServer
from conveyor.spark.task_partition import TaskLaunch, run_task_partition

log = logging.getLogger(__name__)


@dataclass
class _RunningJob:
    spec: TaskSpec
    thread: threading.Thread
    job_group: str
    events: TaskEvents


class TaskJobRunner(TaskRunner):
    """Places task loops on Spark executors and supervises them through the control channel.

    Spark schedules the job and re-runs its partition if the executor dies (up to the master's
    task attempts); a stop goes through the control channel first and cancels the job group only
    if the task does not return within the graceful timeout.
    """

    def __init__(
        self,
        spark: SparkSession,
        control_host: str = "127.0.0.1",
        heartbeat_s: float = 0.2,
        lease_s: float = 10.0,
    ) -> None:
        self._spark = spark
        self._control = ControlServer(control_host, on_state_report=self._on_state_report)
        self._control.start()
        self._heartbeat_s = heartbeat_s
        self._lease_s = lease_s
        self._jobs: dict[TaskId, _RunningJob] = {}
        self._lock = threading.Lock()

    def start(self, spec: TaskSpec, events: TaskEvents) -> None:
        task_name = str(spec.id)
        job_group = f"conveyor-{task_name}-{spec.attempt}"
        self._control.register(task_name, spec.attempt)
        launch = TaskLaunch(spec, self._control.address, self._heartbeat_s, self._lease_s)
        thread = threading.Thread(
            target=self._run_job,
            args=(launch, job_group, events),
            name=f"spark-job-{task_name}",
            daemon=True,
        )
        with self._lock:
            self._jobs[spec.id] = _RunningJob(spec, thread, job_group, events)
        thread.start()

    def _run_job(self, launch: TaskLaunch, job_group: str, events: TaskEvents) -> None:
        spec = launch.spec
        context = self._spark.sparkContext
        try:
            context.setJobGroup(job_group, f"Conveyor task {spec.id}", interruptOnCancel=True)
            results = context.parallelize([launch], 1).mapPartitions(run_task_partition).collect()
            fields: dict[str, Any] = (
                json.loads(results[0]) if results else {"failed": True, "error": "no outcome"}
            )
            outcome = TaskOutcome(
                failed=bool(fields["failed"]), error=fields.get("error"), trace=fields.get("trace")
            )
        except Exception as exc:
            outcome = TaskOutcome(
                failed=True, error=f"Spark job of task {spec.id} failed: {exc}", trace=str(exc)
            )
        with self._lock:
            current = self._jobs.get(spec.id)
            if current is not None and current.spec.attempt == spec.attempt:
                del self._jobs[spec.id]
        events.exited(spec, outcome)

    def _on_state_report(self, task: str, attempt: str, state: str) -> None:
        with self._lock:
            job = next((job for job in self._jobs.values() if str(job.spec.id) == task), None)
        if job is not None and job.spec.attempt == attempt:
            job.events.reported(job.spec, state)

    def set_target(self, task: TaskId, state: TargetState) -> None:
        self._control.set_target(str(task), state)

    def stop(self, task: TaskId, timeout_s: float) -> bool:
        with self._lock:
            job = self._jobs.get(task)
        if job is None:
            return True
        self._control.set_target(str(task), TargetState.STOPPED)
        job.thread.join(timeout_s)
        if job.thread.is_alive():
            log.warning("task %s did not stop within %.1f s; cancelling its Spark job", task, timeout_s)
            self._spark.sparkContext.cancelJobGroup(job.job_group)
            job.thread.join(timeout_s)
            return False
        return True

    def metrics(self, task: TaskId) -> dict[str, Any]:
        state = self._control.state(str(task))
        return state.metrics if state else {}

    def close(self) -> None:
        with self._lock:
            tasks = list(self._jobs)
        for task in tasks:
            self.stop(task, 5.0)
        self._control.close()

"""The worker's task runner on Spark: each task goes to the runner its task class calls for."""

from __future__ import annotations

import threading
from typing import Any

from pyspark.sql import SparkSession

from conveyor.metrics.worker_usage import SlotUsage
from conveyor.runtime.control import TargetState
from conveyor.runtime.task_runner import TaskEvents, TaskRunner
from conveyor.runtime.task_spec import TaskId, TaskSpec
from conveyor.settings.worker_config import DEFAULT_TASKS_PER_SLOT, TaskPlacement
from conveyor.spark.streaming import QueryTaskRunner, is_query_task
from conveyor.spark.task_jobs import TaskJobRunner


class SparkTaskRunner(TaskRunner):
    """Routes a task whose class is a Structured Streaming query (``conveyor.spark.streaming``) to a
    `QueryTaskRunner`, driven from the driver, and every other task to a `TaskJobRunner`, a task loop in
    a long-running Spark job on an executor."""

    def __init__(
        self,
        spark: SparkSession,
        control_host: str = "127.0.0.1",
        heartbeat_s: float = 1.0,
        lease_s: float = 10.0,
        tasks_per_slot: int = DEFAULT_TASKS_PER_SLOT,
        advertised_control_host: str | None = None,
        control_port: int = 0,
        placement: TaskPlacement = TaskPlacement.SPREAD,
        memory_limit_bytes: int | None = None,
    ) -> None:
        self._jobs = TaskJobRunner(
            spark,
            control_host,
            heartbeat_s,
            lease_s,
            tasks_per_slot=tasks_per_slot,
            advertised_control_host=advertised_control_host,
            control_port=control_port,
            placement=placement,
            memory_limit_bytes=memory_limit_bytes,
        )
        self._queries = QueryTaskRunner(spark)
        self._spark = spark
        self._runner_of: dict[TaskId, TaskRunner] = {}
        self._lock = threading.Lock()

    def start(self, spec: TaskSpec, events: TaskEvents) -> None:
        runner: TaskRunner = self._queries if is_query_task(spec) else self._jobs
        with self._lock:
            self._runner_of[spec.id] = runner
        runner.start(spec, events)

    def _runner(self, task: TaskId) -> TaskRunner | None:
        with self._lock:
            return self._runner_of.get(task)

    def set_target(self, task: TaskId, state: TargetState) -> None:
        runner = self._runner(task)
        if runner is not None:
            runner.set_target(task, state)

    def stop(self, task: TaskId, timeout_s: float) -> bool:
        with self._lock:
            runner = self._runner_of.pop(task, None)
        return runner.stop(task, timeout_s) if runner is not None else True

    def metrics(self, task: TaskId) -> dict[str, Any]:
        runner = self._runner(task)
        return runner.metrics(task) if runner is not None else {}

    def slot_usage(self) -> SlotUsage:
        return self._jobs.slot_usage()

    def ui_url(self) -> str | None:
        """Spark's UI of the worker's session; None when `spark.ui.enabled` is false."""
        url: str | None = self._spark.sparkContext.uiWebUrl
        return url

    def close(self) -> None:
        self._jobs.close()
        self._queries.close()

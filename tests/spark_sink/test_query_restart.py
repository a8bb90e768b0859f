"""A streaming task restarted while its previous incarnation still starts its query waits for it to end."""

from __future__ import annotations

import importlib
import time
from pathlib import Path

from pyspark.sql import SparkSession

from conveyor.runtime.task_runner import TaskEvents
from conveyor.runtime.task_spec import TaskId, TaskKind, TaskSpec
from conveyor.settings.worker_config import WorkerConfig
from conveyor.spark.streaming import QueryTaskRunner

from .support import wait_until

TASK_CLASS = "tests.spark_sink.slow_query:SlowStartingQueryTask"
slow_query = importlib.import_module("tests.spark_sink.slow_query")
"""The module as the runner imports it, by the task class's dotted name."""


def incarnation(log_url: str) -> TaskSpec:
    config = {"connector.class": "SparkFileSink", "topics": "people", "task.class": TASK_CLASS}
    return TaskSpec(
        TaskId("slow", 0), TaskKind.SINK, config, config, WorkerConfig.from_props({"log.url": log_url})
    )


def test_a_new_incarnation_starts_its_query_only_after_the_previous_one_ended(
    spark: SparkSession, tmp_path: Path
) -> None:
    runner = QueryTaskRunner(spark)
    events = TaskEvents(lambda spec, outcome: None, lambda spec, state: None, lambda spec, reason: None)
    log_url = f"embedded:{tmp_path / 'log'}"
    first, second = incarnation(log_url), incarnation(log_url)
    try:
        runner.start(first, events)
        wait_until(lambda: slow_query.calls == [first.attempt], "the first query to be starting")
        assert not runner.stop(first.id, 0.1)
        runner.start(second, events)
        time.sleep(1.0)  # room for a second builder to (wrongly) start beside the first
        slow_query.gate.set()
        wait_until(lambda: second.attempt in slow_query.calls, "the second query to start")
        assert not slow_query.overlapping.is_set()
    finally:
        slow_query.gate.set()
        runner.close()

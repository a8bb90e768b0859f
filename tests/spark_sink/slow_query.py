"""A streaming task whose query takes as long as the test wants to start (and then cannot start yet)."""

from __future__ import annotations

import threading

from pyspark.sql import SparkSession

from conveyor.connectors.spark_sink.task import SparkStreamingSinkTask
from conveyor.runtime.task_spec import TaskSpec

gate = threading.Event()
"""Set to let the builders return."""
calls: list[str] = []
"""The attempt of each builder call, in order."""
overlapping = threading.Event()
"""Set if two builders were ever running at once."""
_running = threading.Semaphore(1)


def build_slowly(spark: SparkSession, spec: TaskSpec) -> None:
    calls.append(spec.attempt)
    if not _running.acquire(blocking=False):
        overlapping.set()
        return None
    try:
        gate.wait()
    finally:
        _running.release()
    return None


class SlowStartingQueryTask(SparkStreamingSinkTask):
    STREAMING_QUERY = "tests.spark_sink.slow_query:build_slowly"

"""Executors' Python processes run under a memory limit by default (`spark.executor.pyspark.memory`), so a
task that allocates without bound gets a `MemoryError` instead of taking the machine's memory."""

from __future__ import annotations

from pyspark.sql import SparkSession

from conveyor.spark.session import TASK_MEMORY_LIMIT

GIB = 1024**3


def test_executor_python_processes_are_limited_to_the_default_task_memory(spark: SparkSession) -> None:
    assert TASK_MEMORY_LIMIT == "4g"
    resource = __import__("resource")
    limits = spark.sparkContext.parallelize([0], 1).map(lambda _: resource.getrlimit(resource.RLIMIT_AS)[0])
    (limit,) = limits.collect()
    assert limit == 4 * GIB

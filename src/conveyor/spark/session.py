"""The worker's SparkSession: the worker process is the Spark driver of its tasks."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

from pyspark.sql import SparkSession

from conveyor.spark.python_exec import python_for_spark

DEFAULT_SLOTS = 16
DEFAULT_TASK_ATTEMPTS = 4


def default_master(slots: int = DEFAULT_SLOTS, attempts: int = DEFAULT_TASK_ATTEMPTS) -> str:
    """`local[N,F]`: N slots for long-running tasks, and F attempts so a dead executor is re-run."""
    return f"local[{slots},{attempts}]"


def executor_python(conf: Mapping[str, str] | None = None) -> str:
    """The Python executors run: the worker's `spark.pyspark.python` (a path on the executors' machines),
    else `PYSPARK_PYTHON`, else this interpreter. PySpark hands executors `PYSPARK_PYTHON`, not the
    conf key, so the session sets one from the other."""
    return (conf or {}).get("spark.pyspark.python") or os.environ.get("PYSPARK_PYTHON") or python_for_spark()


def get_or_create_session(
    master: str | None = None, app_name: str = "conveyor", conf: Mapping[str, str] | None = None
) -> SparkSession:
    """Start (or join) the process's SparkSession with executors on this interpreter."""
    os.environ["PYSPARK_PYTHON"] = executor_python(conf)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    builder = (
        SparkSession.builder.master(master or default_master())
        .appName(app_name)
        .config("spark.pyspark.python", os.environ["PYSPARK_PYTHON"])
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", os.environ["SPARK_LOCAL_IP"])
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.python.worker.reuse", "true")
    )
    for key, value in (conf or {}).items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session

"""The executors' Python daemon: pyspark's, with the task host imported once before it forks workers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from pyspark.sql import SparkSession

from conveyor.spark.session import EXECUTOR_DAEMON_MODULE, start_executor_daemons


def test_python_workers_are_forked_from_the_conveyor_daemon(spark: SparkSession) -> None:
    def _parent_command(_: object) -> str:  # defined here: Spark ships it by value
        import os

        return Path(f"/proc/{os.getppid()}/cmdline").read_bytes().replace(b"\0", b" ").decode()

    start_executor_daemons(spark)

    (parent,) = spark.sparkContext.parallelize([0], 1).map(_parent_command).collect()

    assert f"-m {EXECUTOR_DAEMON_MODULE}" in parent


def _after_importing_the_daemon(expression: str) -> str:
    """What ``expression`` prints in a fresh interpreter that has imported the daemon module."""
    return subprocess.run(
        [sys.executable, "-c", f"import sys, threading, {EXECUTOR_DAEMON_MODULE}; print({expression})"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


def test_the_daemon_imports_the_task_host_before_it_forks() -> None:
    assert _after_importing_the_daemon("'conveyor.spark.task_partition' in sys.modules") == "True"


def test_the_daemon_starts_no_thread_before_it_forks() -> None:
    assert _after_importing_the_daemon("threading.active_count()") == "1"

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


def test_the_daemon_imports_the_task_host_before_it_forks() -> None:
    imported = subprocess.run(
        [
            sys.executable,
            "-c",
            f"import sys, {EXECUTOR_DAEMON_MODULE}; print('conveyor.spark.task_partition' in sys.modules)",
        ],
        capture_output=True,
        text=True,
        check=True,
    )

    assert imported.stdout.strip() == "True"


def test_the_daemon_starts_no_thread_before_it_forks() -> None:
    threads = subprocess.run(
        [
            sys.executable,
            "-c",
            f"import threading, {EXECUTOR_DAEMON_MODULE}; print(threading.active_count())",
        ],
        capture_output=True,
        text=True,
        check=True,
    )

    assert threads.stdout.strip() == "1"

"""The executors' Python daemon: pyspark's, with what task hosts import loaded before it forks workers."""

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


def test_python_workers_start_with_the_daemons_objects_frozen(spark: SparkSession) -> None:
    def _frozen(_: object) -> int:  # defined here: Spark ships it by value
        import gc

        return gc.get_freeze_count()

    start_executor_daemons(spark)

    (frozen,) = spark.sparkContext.parallelize([0], 1).map(_frozen).collect()

    assert frozen > 0


def _after_preloading(expression: str) -> str:
    """What ``expression`` prints in a fresh interpreter that has loaded what the daemon loads first."""
    preload = "from conveyor.spark import host_preload; host_preload.preload()"
    code = f"import os, sys, threading; {preload}; print({expression})"
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()


def test_the_daemon_loads_the_log_clients_and_built_in_connectors_before_it_forks() -> None:
    modules = (
        "pyspark.worker",
        "conveyor.log.kafka",
        "conveyor.log.embedded",
        "conveyor.connectors.file.source",
    )
    assert _after_preloading(f"all(m in sys.modules for m in {modules!r})") == "True"


def test_what_the_daemon_loads_starts_no_thread_not_even_a_native_one() -> None:
    assert _after_preloading("threading.active_count(), len(os.listdir('/proc/self/task'))") == "1 1"


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

"""A worker's Spark JVM writes no line of its launcher's raw to the worker's stderr: the launcher's notes
(`WARNING: Using incubator modules: ...`) go to the worker's log at DEBUG, which does not show by default.

The worker is a `conveyor standalone` process, started until its SparkSession is up."""

from __future__ import annotations

from pathlib import Path

import httpx
from tests.conveyor_process import start_standalone, with_test_plugins

from .support import wait_until

STARTUP_S = 240.0
INCUBATOR_NOTE = "Using incubator modules"


def test_the_jvm_launchers_incubator_note_is_not_on_a_workers_stderr(tmp_path: Path) -> None:
    props = {
        "data.dir": str(tmp_path / "data"),
        "listeners": "http://127.0.0.1:0",
        "spark.master": "local[1,1]",
    }
    worker = start_standalone(tmp_path, props, STARTUP_S, with_test_plugins())
    try:
        wait_until(
            lambda: httpx.get(worker.url + "/health", timeout=5).status_code == 200,
            "the worker's SparkSession",
            STARTUP_S,
        )
        assert INCUBATOR_NOTE not in worker.log
    finally:
        worker.stop()

"""A `conveyor standalone` worker process with its own SparkSession, as a user would start one on a
cluster: nothing of the test suite on its Python path, so that it (and its executors) see only what is
installed and what plugin.path holds."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.conveyor_process import ConveyorProcess, start_standalone

STARTUP_S = 240.0


@contextmanager
def conveyor_standalone(directory: Path, props: dict[str, str]) -> Iterator[ConveyorProcess]:
    """Start `conveyor standalone` on ``props`` in ``directory``; stopped on the way out."""
    env = {
        key: value for key, value in os.environ.items() if not key.startswith(("PYTHON", "PYSPARK", "SPARK_"))
    }
    worker = start_standalone(directory, props, STARTUP_S, env)
    try:
        yield worker
    finally:
        worker.stop()

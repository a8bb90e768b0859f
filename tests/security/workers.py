"""Standalone workers (embedded log, the test process's Spark session, REST) started from properties."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from conveyor.cli.worker_process import StandaloneWorker
from conveyor.settings.worker_config import WorkerConfig


@contextmanager
def running_worker(data_dir: Path, props: dict[str, str]) -> Iterator[StandaloneWorker]:
    """A started worker with `props` (over a free local http port unless `listeners` is given)."""
    config = WorkerConfig.from_props({"data.dir": str(data_dir), "listeners": "http://127.0.0.1:0", **props})
    worker = StandaloneWorker(config)
    try:
        worker.start()
        yield worker
    finally:
        worker.stop()

"""A `conveyor distributed` worker process whose tasks run in threads, for `bench/rebalance_bench.py`.

Everything but the task runner is the product's: the same `DistributedWorker` (group membership, the
config, offset and status topics, REST and the HTTP between workers), only its tasks run in threads of
this process (the suite's `ThreadTaskRunner`) instead of Spark, so that a worker starts in a couple of
seconds. Run: ``PYTHONPATH=<repo> python bench/rebalance_worker.py worker.properties``; stops on SIGTERM.
SIGUSR2 stalls the herder's work thread (a stuck herder, for the bench's stall phase); the next one
releases it.
"""

from __future__ import annotations

import faulthandler
import signal
import sys
import threading
from pathlib import Path

from tests.runtime.threads import ThreadTaskRunner

from conveyor.cli.logging_setup import configure_logging
from conveyor.cli.worker_process import DistributedWorker, load_worker_config
from conveyor.log import open_log
from conveyor.settings.worker_config import WorkerConfig


class StartedThreadTaskRunner(ThreadTaskRunner):
    """A `ThreadTaskRunner` is ready at once: nothing to wait for where a worker waits for Spark."""

    def wait_started(self, timeout_s: float | None = None) -> StartedThreadTaskRunner:
        return self


class ThreadedDistributedWorker(DistributedWorker):
    """`DistributedWorker` with a `ThreadTaskRunner`: no SparkSession is started."""

    def __init__(self, config: WorkerConfig) -> None:
        self.config = config
        self.log = open_log(config.log_url)
        self.runner = StartedThreadTaskRunner()  # type: ignore[assignment]
        self.server = None
        self.herder = None


class HerderStall:
    """Blocks the herder's work thread with a call queued as its own work, as a call that never returns
    would (the herder keeps heartbeating from its other thread); a second signal releases it."""

    def __init__(self, worker: DistributedWorker) -> None:
        self.worker = worker
        self.release: threading.Event | None = None

    def toggle(self, *_: object) -> None:
        herder = self.worker.herder
        if herder is None:
            return
        if self.release is None:
            release = self.release = threading.Event()
            herder._requests.add(release.wait, description="a stall the bench asked for")
            herder.wakeup()
            print("The herder's work thread is stalled", file=sys.stderr, flush=True)
        else:
            self.release.set()
            self.release = None
            print("The herder's work thread is released", file=sys.stderr, flush=True)


def main() -> None:
    configure_logging("INFO")
    faulthandler.register(signal.SIGUSR1)
    worker = ThreadedDistributedWorker(load_worker_config(Path(sys.argv[1]), standalone=False))
    stopping = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopping.set())
    worker.start()
    signal.signal(signal.SIGUSR2, HerderStall(worker).toggle)
    print(f"REST API at {worker.url}", file=sys.stderr, flush=True)
    try:
        # With a timeout: a signal another thread receives runs its handler only once this thread
        # runs Python code again, and a wait without one may never return to do so.
        while not stopping.wait(0.5):
            pass
    finally:
        worker.stop()


if __name__ == "__main__":
    main()

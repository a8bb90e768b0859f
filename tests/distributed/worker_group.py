"""Real `conveyor distributed` worker processes sharing one embedded log, as a user would run them.

Each worker is its own process with its own SparkSession; the tests break them (SIGKILL, SIGSTOP) and
read the log back to count what arrived.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from tests.conveyor_process import ConveyorProcess, start_conveyor
from tests.waiting import wait_until

STARTUP_S = 180.0
GENERATOR = "conveyor.connectors.generator.connector:GeneratorSourceConnector"


def worker_properties(data_dir: Path, **overrides: str) -> str:
    """A test group's worker: short session timeouts so that failures are noticed quickly."""
    props = {
        "group.id": "chaos-group",
        "data.dir": str(data_dir),
        "listeners": "http://127.0.0.1:0",
        "rest.advertised.host.name": "127.0.0.1",
        "session.timeout.ms": "4000",
        "heartbeat.interval.ms": "500",
        "rebalance.timeout.ms": "30000",
        "scheduled.rebalance.max.delay.ms": "4000",
        "offset.flush.interval.ms": "200",
        "offset.storage.partitions": "1",
        "status.storage.partitions": "1",
        "task.shutdown.graceful.timeout.ms": "3000",
        "spark.master": "local[4]",
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.storage.StringConverter",
        **overrides,
    }
    return "".join(f"{key}={value}\n" for key, value in props.items())


@dataclass
class WorkerGroup:
    """Workers of one group on one embedded log under `data_dir`."""

    directory: Path
    overrides: dict[str, str]
    workers: list[ConveyorProcess] = field(default_factory=list)

    @property
    def data_dir(self) -> Path:
        return self.directory / "data"

    @property
    def log_url(self) -> str:
        return f"embedded:{self.data_dir / 'log'}"

    def add_worker(self, startup_s: float = STARTUP_S) -> ConveyorProcess:
        properties = self.directory / f"worker-{len(self.workers)}.properties"
        properties.write_text(worker_properties(self.data_dir, **self.overrides))
        worker = start_conveyor(["distributed", str(properties)], self.directory, startup_s)
        self.workers.append(worker)
        return worker

    def remove(self, worker: ConveyorProcess) -> None:
        self.workers.remove(worker)

    def live(self) -> list[ConveyorProcess]:
        return [w for w in self.workers if w.process.poll() is None]

    def request(self, worker: ConveyorProcess, method: str, path: str, body: Any = None) -> httpx.Response:
        return httpx.request(method, worker.url + path, json=body, timeout=120)

    def leader(self) -> ConveyorProcess:
        """The worker that serves a leader-only request itself when told not to forward it: deleting an
        unknown connector with `forward=false` is a 404 there and a 409 on every follower."""

        def find() -> ConveyorProcess | None:
            for worker in self.live():
                response = self.request(worker, "DELETE", "/connectors/no-such-connector?forward=false")
                if response.status_code == 404:
                    return worker
            return None

        return wait_until(find, "a worker that is the leader", 60.0, every_s=0.5)

    def status(self, connector: str, worker: ConveyorProcess | None = None) -> dict[str, Any]:
        response = self.request(worker or self.live()[0], "GET", f"/connectors/{connector}/status")
        return response.json() if response.status_code == 200 else {}

    def tasks_running_on(self, connector: str, task_count: int, workers: list[ConveyorProcess]) -> bool:
        """Every task RUNNING, each on one of `workers` (the first of which is asked)."""
        ids = {w.worker_id for w in workers}
        tasks = self.status(connector, workers[0]).get("tasks", [])
        return len(tasks) == task_count and all(
            t["state"] == "RUNNING" and t["worker_id"] in ids for t in tasks
        )

    def wait_for_tasks_running(self, connector: str, task_count: int, what: str, timeout_s: float) -> None:
        """Wait until `tasks_running_on` the live workers holds; a timeout names the last status seen and
        ends with each worker's last lines, since a group that never settles leaves its reason there."""
        try:
            wait_until(lambda: self.tasks_running_on(connector, task_count, self.live()), what, timeout_s)
        except AssertionError as timeout:
            tails = "\n".join(f"--- {w.worker_id}:\n{w.tail(40)}" for w in self.workers)
            raise AssertionError(f"{timeout}; last status: {self.status(connector)}\n{tails}") from None


@contextmanager
def worker_group(directory: Path, size: int, **overrides: str) -> Iterator[WorkerGroup]:
    group = WorkerGroup(directory, dict(overrides))
    try:
        for _ in range(size):
            group.add_worker()
        yield group
    finally:
        for worker in group.workers:
            worker.stop()


def generator(topic: str, tasks: int, records: int, rate: int) -> dict[str, str]:
    return {
        "connector.class": GENERATOR,
        "topic": topic,
        "tasks.max": str(tasks),
        "records": str(records),
        "rate": str(rate),
    }

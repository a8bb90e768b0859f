"""A rolling move between Apache Kafka Connect and Conveyor: one group, both runtimes in it at once.

Three workers of one runtime run an exactly-once `FileStreamSource` and a `FileStreamSink` under the
`sessioned` protocol while lines keep being appended to the source file. One at a time, a worker of the
other runtime joins the group and then one of the first runtime's workers is stopped, as operators
replace workers; the group keeps both connectors running throughout. A read_committed reader then finds
every line of the file in the topic exactly once, and the sink's file holds every line.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.distributed.worker_group import WorkerGroup, generator, worker_group
from tests.waiting import wait_until

from conveyor.kafka_broker import KafkaConnect

from .test_kafka_connect_takeover import group_settings
from .topics import LineTally, append_lines, committed_position, create_topic, line, tally_lines

pytestmark = pytest.mark.timeout(900)

SOURCE = "file-source"
SINK = "file-sink"
WORKERS = 3
SETTLE_S = 240.0
JVM_STARTUP_S = 300.0
LINES_PER_APPEND = 200


def rolling_settings(bootstrap: str) -> dict[str, str]:
    """Both runtimes' settings: one sessioned group, and a departed worker's work reassigned within
    seconds rather than Kafka's default five minutes."""
    return {
        **group_settings(bootstrap),
        "connect.protocol": "sessioned",
        "scheduled.rebalance.max.delay.ms": "5000",
    }


def connector_configs(source: Path, sink: Path, topic: str) -> dict[str, dict[str, str]]:
    return {
        SOURCE: {
            "connector.class": "org.apache.kafka.connect.file.FileStreamSourceConnector",
            "tasks.max": "1",
            "file": str(source),
            "topic": topic,
            "batch.size": "200",
            "exactly.once.support": "required",
        },
        SINK: {
            "connector.class": "org.apache.kafka.connect.file.FileStreamSinkConnector",
            "tasks.max": "1",
            "file": str(sink),
            "topics": topic,
        },
    }


@dataclass
class Appender:
    """Appends lines to the source file on a thread of its own until stopped; counts what it wrote."""

    path: Path
    written: int = 0
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def run(self) -> None:
        while not self._stop.wait(0.25):
            append_lines(self.path, self.written, LINES_PER_APPEND)
            self.written += LINES_PER_APPEND

    def __enter__(self) -> Appender:
        self._thread = threading.Thread(target=self.run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()

    def stop(self) -> int:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(30)
        return self.written


@dataclass
class MixedGroup:
    """The Kafka Connect and Conveyor workers of one group, any of them asked over HTTP."""

    directory: Path
    settings: dict[str, str]
    conveyor: WorkerGroup
    kafka_connect: list[KafkaConnect] = field(default_factory=list)

    def urls(self) -> list[str]:
        return [k.url for k in self.kafka_connect] + [w.url for w in self.conveyor.live()]

    def worker_ids(self) -> set[str]:
        return {k.worker_id for k in self.kafka_connect} | {w.worker_id for w in self.conveyor.live()}

    def add_kafka_connect(self) -> KafkaConnect:
        worker = KafkaConnect(self.directory / f"kafka-connect-{uuid.uuid4().hex[:6]}", self.settings)
        worker.start(JVM_STARTUP_S)
        self.kafka_connect.append(worker)
        return worker

    def stop_kafka_connect(self, worker: KafkaConnect) -> None:
        self.kafka_connect.remove(worker)
        worker.stop()

    def request(self, method: str, path: str, body: Any = None) -> httpx.Response:
        return httpx.request(method, self.urls()[0] + path, json=body, timeout=120)

    def running_here(self, connector: str) -> bool:
        """The connector and its task RUNNING, each on a worker that is still in the group."""
        try:
            response = self.request("GET", f"/connectors/{connector}/status")
        except httpx.HTTPError:
            return False
        if response.status_code != 200:
            return False
        status = response.json()
        self._restart_tasks_kafka_connect_left_failed(connector, status["tasks"])
        units = [status["connector"], *status["tasks"]]
        return len(units) == 2 and all(
            unit["state"] == "RUNNING" and unit["worker_id"] in self.worker_ids() for unit in units
        )

    def _restart_tasks_kafka_connect_left_failed(self, connector: str, tasks: list[dict[str, Any]]) -> None:
        """What docs/migrating.md tells an operator to do: a Kafka Connect 4.3.1 exactly-once task that
        failed on its own on a commit the broker had already completed (`InvalidTxnStateException`, seen
        under heavy load) is restarted; Kafka Connect does not restart it itself."""
        for task in tasks:
            if task["state"] == "FAILED" and "InvalidTxnStateException" in task.get("trace", ""):
                self.request("POST", f"/connectors/{connector}/tasks/{task['id']}/restart")

    def settled(self) -> bool:
        return all(self.running_here(name) for name in (SOURCE, SINK))

    def close(self) -> None:
        for worker in list(self.kafka_connect):
            worker.stop()


@contextmanager
def mixed_group(directory: Path, settings: dict[str, str]) -> Iterator[MixedGroup]:
    with worker_group(directory, 0, **settings) as conveyor:
        group = MixedGroup(directory, settings, conveyor)
        try:
            yield group
        finally:
            group.close()


def create_connectors(group: MixedGroup, configs: dict[str, dict[str, str]]) -> None:
    for name, config in configs.items():
        created = group.request("POST", "/connectors", {"name": name, "config": config})
        assert created.status_code == 201, created.text
    wait_until(group.settled, "both connectors running", SETTLE_S, every_s=1.0)


def roll(group: MixedGroup, join: Callable[[], object], leave: Callable[[], None], source: Path) -> None:
    """One step of the move: a worker of the new runtime joins, then one of the old one leaves, the
    group runs both connectors again, and the source commits past where it was before the step."""
    before = source_position(group, source)
    join()
    wait_until(group.settled, "both connectors running after a worker joined", SETTLE_S, every_s=1.0)
    leave()
    wait_until(group.settled, "both connectors running after a worker left", SETTLE_S, every_s=1.0)
    wait_until(lambda: source_position(group, source) > before, "the source to commit further", SETTLE_S, 1.0)


def source_position(group: MixedGroup, source: Path) -> int:
    bootstrap, offsets = group.settings["bootstrap.servers"], group.settings["offset.storage.topic"]
    return committed_position(bootstrap, offsets, SOURCE, str(source)) or 0


def every_line_arrived(bootstrap: str, topic: str, total: int) -> LineTally | None:
    tally = tally_lines(bootstrap, topic, total)
    return tally if tally.distinct >= total else None


def sink_holds_every_line(sink: Path, total: int) -> bool:
    return sink.exists() and {line(n) for n in range(total)} <= set(sink.read_text().splitlines())


def check_every_line_once(bootstrap: str, topic: str, sink: Path, total: int) -> None:
    tally = wait_until(
        lambda: every_line_arrived(bootstrap, topic, total), "every line in the topic", SETTLE_S, every_s=2.0
    )
    assert tally == LineTally(total, total, total, duplicates=0, gaps=0)
    wait_until(lambda: sink_holds_every_line(sink, total), "every line in the sink's file", SETTLE_S, 1.0)


def test_kafka_connect_workers_are_replaced_one_by_one_by_conveyor_with_every_line_once(
    tmp_path: Path, kafka_bootstrap: str
) -> None:
    settings = rolling_settings(kafka_bootstrap)
    topic = f"lines-{uuid.uuid4().hex[:8]}"
    create_topic(kafka_bootstrap, topic)
    source, sink = tmp_path / "input.txt", tmp_path / "output.txt"
    source.touch()

    with mixed_group(tmp_path, settings) as group, Appender(source) as appender:
        for _ in range(WORKERS):
            group.add_kafka_connect()
        create_connectors(group, connector_configs(source, sink, topic))
        for _ in range(WORKERS):
            roll(
                group,
                group.conveyor.add_worker,
                lambda: group.stop_kafka_connect(group.kafka_connect[0]),
                source,
            )
        assert not group.kafka_connect and len(group.conveyor.live()) == WORKERS
        total = appender.stop()
        check_every_line_once(kafka_bootstrap, topic, sink, total)


def test_conveyor_workers_are_replaced_one_by_one_by_kafka_connect_with_every_line_once(
    tmp_path: Path, kafka_bootstrap: str
) -> None:
    settings = rolling_settings(kafka_bootstrap)
    topic = f"lines-{uuid.uuid4().hex[:8]}"
    create_topic(kafka_bootstrap, topic)
    source, sink = tmp_path / "input.txt", tmp_path / "output.txt"
    source.touch()

    def stop_a_conveyor_worker() -> None:
        worker = group.conveyor.live()[0]
        worker.stop()
        group.conveyor.remove(worker)

    with mixed_group(tmp_path, settings) as group, Appender(source) as appender:
        for _ in range(WORKERS):
            group.conveyor.add_worker()
        create_connectors(group, connector_configs(source, sink, topic))
        for _ in range(WORKERS):
            roll(group, group.add_kafka_connect, stop_a_conveyor_worker, source)
        assert not group.conveyor.live() and len(group.kafka_connect) == WORKERS
        total = appender.stop()
        check_every_line_once(kafka_bootstrap, topic, sink, total)


def test_a_conveyor_leader_keeps_a_python_connector_on_conveyor_workers_of_a_mixed_group(
    tmp_path: Path, kafka_bootstrap: str
) -> None:
    settings = rolling_settings(kafka_bootstrap)
    topic = f"generated-{uuid.uuid4().hex[:8]}"
    create_topic(kafka_bootstrap, topic)
    tasks = 3

    with mixed_group(tmp_path, settings) as group:
        leader = group.conveyor.add_worker()
        group.add_kafka_connect()
        created = group.conveyor.request(
            leader, "POST", "/connectors", {"name": "python-gen", "config": generator(topic, tasks, 10**9, 5)}
        )
        assert created.status_code == 201, created.text

        def running_on_conveyor() -> bool:
            status = group.conveyor.status("python-gen", leader)
            units = [status.get("connector", {}), *status.get("tasks", [])]
            return len(units) == tasks + 1 and all(
                unit.get("state") == "RUNNING" and unit.get("worker_id") == leader.worker_id for unit in units
            )

        wait_until(running_on_conveyor, "the Python connector's work running on Conveyor", SETTLE_S, 1.0)

"""KIP-618 on two Kafka clusters: a source whose producer writes to another cluster than the worker's
keeps its offsets there, beside its records, and still reads the worker's offsets for what it has not
stored there yet.

A real `conveyor distributed` worker runs on cluster A (its config, status and offsets topics); the
connector's `producer.override.bootstrap.servers` names cluster B, a second broker this module starts.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.conveyor_process import ConveyorProcess, start_conveyor
from tests.distributed.worker_group import worker_properties

from conveyor.connectors import verify
from conveyor.connectors.generator.payload import parse_header
from conveyor.kafka_broker import KafkaBroker
from conveyor.log import ConsumerRecord, Log, LogError, ProducerFencedError, open_log

from .support import unique, wait_until

STARTUP_S = 180.0
DONE_S = 120.0
READ_S = 60.0
GENERATOR = "GeneratorSourceConnector"


@pytest.fixture(scope="module")
def cluster_b(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The bootstrap servers of a second Kafka broker, for this module only."""
    with KafkaBroker(tmp_path_factory.mktemp("cluster-b"), heap="384m") as broker:
        yield broker.bootstrap_servers


@pytest.fixture
def logs(kafka_bootstrap: str, cluster_b: str) -> Iterator[tuple[Log, Log]]:
    """Clients of cluster A (the worker's) and cluster B (the connector's producer's)."""
    with open_log(f"kafka://{kafka_bootstrap}") as a, open_log(f"kafka://{cluster_b}") as b:
        yield a, b


class Worker:
    """One worker process at a time on cluster A, restartable with the same settings."""

    def __init__(self, directory: Path, bootstrap: str, **settings: str) -> None:
        run = unique("two-clusters")
        self.group_id = run
        self.offsets_topic = f"{run}-offsets"
        self.configs_topic = f"{run}-configs"
        self.properties = directory / "worker.properties"
        self.properties.write_text(
            worker_properties(
                directory / "data",
                **{
                    "bootstrap.servers": bootstrap,
                    "group.id": run,
                    "config.storage.topic": self.configs_topic,
                    "offset.storage.topic": self.offsets_topic,
                    "status.storage.topic": f"{run}-status",
                    "config.storage.replication.factor": "1",
                    "offset.storage.replication.factor": "1",
                    "status.storage.replication.factor": "1",
                    "exactly.once.source.support": "enabled",
                    "spark.master": "local[2]",
                    **settings,
                },
            )
        )
        self.directory = directory
        self.process: ConveyorProcess | None = None

    def start(self) -> ConveyorProcess:
        self.process = start_conveyor(["distributed", str(self.properties)], self.directory, STARTUP_S)
        return self.process

    def request(self, method: str, path: str, body: Any = None) -> httpx.Response:
        assert self.process is not None
        return httpx.request(method, self.process.url + path, json=body, timeout=120)

    def task_states(self, name: str) -> list[str]:
        response = self.request("GET", f"/connectors/{name}/status")
        tasks = response.json().get("tasks", []) if response.status_code == 200 else []
        return [task["state"] for task in tasks]

    def offsets(self, name: str) -> list[dict[str, Any]]:
        response = self.request("GET", f"/connectors/{name}/offsets")
        assert response.status_code == 200, response.text
        offsets: list[dict[str, Any]] = response.json()["offsets"]
        return offsets

    def stop(self) -> None:
        if self.process is not None:
            self.process.stop()


@pytest.fixture
def worker(tmp_path: Path, kafka_bootstrap: str) -> Iterator[Worker]:
    worker = Worker(tmp_path, kafka_bootstrap)
    try:
        yield worker
    finally:
        worker.stop()


@pytest.fixture
def worker_without_task_restarts(tmp_path: Path, kafka_bootstrap: str) -> Iterator[Worker]:
    """A worker that leaves a failed task FAILED, as Kafka Connect does."""
    worker = Worker(tmp_path, kafka_bootstrap, **{"task.restart.enable": "false"})
    try:
        yield worker
    finally:
        worker.stop()


def generator(topic: str, records: int, **settings: str) -> dict[str, str]:
    return {
        "connector.class": GENERATOR,
        "topic": topic,
        "tasks.max": "1",
        "records": str(records),
        "batch.size": "50",
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.storage.StringConverter",
        **settings,
    }


def committed(log: Log, topic: str) -> list[ConsumerRecord]:
    """The committed records of `topic` up to its last stable offset when asked (none while it does not
    exist): a source that keeps producing does not hold the reader."""
    admin = log.admin()
    if topic not in admin.list_topics():
        return []
    partitions = admin.describe_topics([topic])[topic].topic_partitions()
    records: list[ConsumerRecord] = []
    with log.consumer(isolation_level="read_committed", auto_offset_reset="earliest") as consumer:
        consumer.assign(partitions)
        consumer.seek_to_beginning()
        ends = consumer.end_offsets(partitions)
        wait_until(
            lambda: (
                records.extend(consumer.poll(timeout=0.2, max_records=10_000))
                or all(consumer.position(tp) >= ends[tp] for tp in partitions)
            ),
            f"the committed records of {topic}",
            READ_S,
            every_s=0.0,
        )
    return records


def committed_values(log: Log, topic: str) -> list[bytes | None]:
    return [record.value for record in committed(log, topic)]


def offset_keys(log: Log, topic: str) -> list[Any]:
    """The keys of the committed offset records of `topic` (`[connector, partition]`)."""
    return [json.loads(record.key) for record in committed(log, topic) if record.key]


def task_count_records(log: Log, configs_topic: str, name: str) -> list[Any]:
    """The task counts the leader recorded for connector `name` (`tasks-fencing-<name>`), oldest first:
    each written only once it has fenced the producers of the previous task generation."""
    key = f"tasks-fencing-{name}".encode()
    return [
        json.loads(record.value)["task-count"]
        for record in committed(log, configs_topic)
        if record.key == key and record.value is not None
    ]


def last_seqno(log: Log, topic: str) -> int:
    headers = [parse_header(value) for value in committed_values(log, topic) if value is not None]
    return max(header[1] for header in headers if header is not None)


def test_an_exactly_once_source_producing_to_another_cluster_keeps_its_offsets_there_across_a_kill_9(
    worker: Worker, logs: tuple[Log, Log], cluster_b: str
) -> None:
    a, b = logs
    topic, name = unique("to-b"), unique("to-b")
    config = generator(topic, -1, rate="100", **{"producer.override.bootstrap.servers": cluster_b})
    worker.start()
    response = worker.request("PUT", f"/connectors/{name}/config", config)
    assert response.status_code == 201, response.text
    wait_until(lambda: len(committed_values(b, topic)) >= 300, "records on cluster B before the kill", DONE_S)
    assert worker.process is not None
    worker.process.kill()
    before_kill = len(committed_values(b, topic))
    worker.start()
    wait_until(
        lambda: len(committed_values(b, topic)) >= before_kill + 300, "records after the restart", DONE_S, 1.0
    )
    response = worker.request("PUT", f"/connectors/{name}/stop")
    assert response.status_code == 204, response.text
    wait_until(
        lambda: (
            worker.offsets(name) == [{"partition": {"task": 0}, "offset": {"seqno": last_seqno(b, topic)}}]
        ),
        "the stopped connector's offsets over REST to be those of its last record on cluster B",
        DONE_S,
        1.0,
    )
    result = verify(committed_values(b, topic))
    assert (result.duplicates, result.gaps, result.unreadable) == (0, 0, 0)
    assert [name, {"task": 0}] in offset_keys(b, worker.offsets_topic)
    assert all(key[0] != name for key in offset_keys(a, worker.offsets_topic))
    assert committed_values(a, topic) == []


def test_a_source_moved_to_another_cluster_resumes_from_the_worker_offsets_until_it_stores_its_own(
    worker: Worker, logs: tuple[Log, Log], cluster_b: str
) -> None:
    a, b = logs
    topic, name = unique("moved"), unique("moved")
    worker.start()
    response = worker.request("PUT", f"/connectors/{name}/config", generator(topic, 200))
    assert response.status_code == 201, response.text
    wait_until(
        lambda: worker.offsets(name) == [{"partition": {"task": 0}, "offset": {"seqno": 199}}],
        "the first 200 records' offsets in the worker's offsets topic on cluster A",
        DONE_S,
        1.0,
    )
    moved = generator(topic, 500, **{"producer.override.bootstrap.servers": cluster_b})
    response = worker.request("PUT", f"/connectors/{name}/config", moved)
    assert response.status_code == 200, response.text
    wait_until(
        lambda: len(committed_values(b, topic)) >= 300, "the remaining records on cluster B", DONE_S, 1.0
    )
    wait_until(
        lambda: worker.offsets(name) == [{"partition": {"task": 0}, "offset": {"seqno": 499}}],
        "the offsets the connector stored on cluster B, over REST",
        DONE_S,
        1.0,
    )
    headers = [parse_header(value) for value in committed_values(b, topic) if value is not None]
    assert sorted(header[1] for header in headers if header is not None) == list(range(200, 500))
    assert len(committed_values(a, topic)) == 200


def test_the_task_producers_of_a_source_on_another_cluster_are_fenced_on_that_cluster(
    worker_without_task_restarts: Worker, logs: tuple[Log, Log], cluster_b: str
) -> None:
    """Task 1 of the first generation is gone from the second (two tasks become one), and the task the
    zombie fenced is not restarted, so nothing but the leader's fencing can stop a zombie that holds its
    transactional id on cluster B."""
    a, b = logs
    worker = worker_without_task_restarts
    topic, name = unique("fenced"), unique("fenced")
    on_b = {"producer.override.bootstrap.servers": cluster_b, "rate": "20"}
    worker.start()
    response = worker.request(
        "PUT", f"/connectors/{name}/config", generator(topic, -1, **on_b, **{"tasks.max": "2"})
    )
    assert response.status_code == 201, response.text
    wait_until(lambda: committed_values(b, topic), "records on cluster B", DONE_S, 1.0)
    zombie = b.producer(transactional_id=f"{worker.group_id}-{name}-1")
    try:
        zombie.init_transactions()
        zombie.begin_transaction()
        zombie.send(topic, b"from a zombie")
        response = worker.request("PUT", f"/connectors/{name}/config", generator(topic, -1, **on_b))
        assert response.status_code == 200, response.text
        wait_until(
            lambda: task_count_records(a, worker.configs_topic, name)[-1:] == [1],
            "the leader to fence the first generation and record the second's task count",
            DONE_S,
            1.0,
        )
        with pytest.raises(ProducerFencedError):
            zombie.commit_transaction()
    finally:
        with contextlib.suppress(LogError):
            zombie.close()
    assert b"from a zombie" not in committed_values(b, topic)

"""A worker with ``spark.master=spark://...`` runs its tasks on a Spark standalone cluster, and loses
nothing when one Spark worker dies.

The cluster is a master and two workers started from the installed pyspark; the source connector lives
only in a plugin.path directory, so its code reaches the executors through the worker. Executors reach
Kafka and the worker's control channel, nothing of the worker's files. An exactly-once source writes
to Kafka and KIP-656's transactional MirrorSinkConnector copies that topic to another; one Spark
worker's process (with its executor and Python processes) is killed with ``kill -9`` mid-stream, and
a read_committed verifier finds every record of both topics exactly once.
"""

from __future__ import annotations

import shutil
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
from tests.waiting import wait_until

from conveyor.connectors import Verification, verify
from conveyor.log import Log, TopicPartition, open_log

from .conveyor_process import conveyor_standalone
from .standalone_cluster import StandaloneCluster, standalone_cluster

pytestmark = pytest.mark.timeout(600)

PLUGIN = Path(__file__).parent / "plugin_dir" / "ticket_counter.py"
RECORDS = 6_000
RATE = 250  # records/s: the source runs for about 24 s, so the kill lands mid-stream
KILL_AFTER = 1_500
DONE_WITHIN_S = 240.0
BYTE_ARRAY = "org.apache.kafka.connect.converters.ByteArrayConverter"
RECENT_OFFSETS = 200
"""How far back from a partition's end to look for a record: its last offsets may be transaction markers."""


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[StandaloneCluster]:
    """Two Spark workers of two cores: one executor each, so that a survivor has a slot to spare."""
    directory = tmp_path / "spark"
    directory.mkdir()
    with standalone_cluster(directory, workers=2, cores=2, memory="768m") as started:
        yield started


@pytest.fixture
def plugin_path(tmp_path: Path) -> Path:
    directory = tmp_path / "plugins"
    directory.mkdir()
    shutil.copy(PLUGIN, directory)
    return directory


def worker_props(
    kafka_bootstrap: str, cluster: StandaloneCluster, plugin_path: Path, tmp_path: Path
) -> dict[str, str]:
    run = uuid.uuid4().hex[:8]
    return {
        "bootstrap.servers": kafka_bootstrap,
        "group.id": f"spark-cluster-{run}",
        "offset.storage.topic": f"spark-cluster-{run}-offsets",
        "config.storage.topic": f"spark-cluster-{run}-configs",
        "status.storage.topic": f"spark-cluster-{run}-status",
        "offset.storage.partitions": "1",
        "status.storage.partitions": "1",
        "exactly.once.source.support": "enabled",
        "listeners": "http://127.0.0.1:0",
        "data.dir": str(tmp_path / "worker-data"),
        "plugin.path": str(plugin_path),
        "offset.flush.interval.ms": "500",
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.storage.StringConverter",
        "spark.master": cluster.master_url,
        "spark.executor.memory": "512m",
        "spark.executor.cores": "2",
        "spark.driver.host": "127.0.0.1",
    }


def source_config(topic: str) -> dict[str, str]:
    return {
        "connector.class": "TicketCounterConnector",
        "tasks.max": "1",
        "topic": topic,
        "records": str(RECORDS),
        "rate": str(RATE),
        "exactly.once.support": "required",
    }


def sink_config(kafka_url: str, topic: str) -> dict[str, str]:
    return {
        "connector.class": "MirrorSinkConnector",
        "tasks.max": "1",
        "topics": topic,
        "source.cluster.alias": "A",
        "target.cluster.alias": "B",
        "source.cluster.log.url": kafka_url,
        "target.cluster.log.url": kafka_url,
        "consumer.override.log.url": kafka_url,
        "transactional.producer": "true",
        "consumer.override.session.timeout.ms": "6000",
        "consumer.override.heartbeat.interval.ms": "1000",
        "key.converter": BYTE_ARRAY,
        "value.converter": BYTE_ARRAY,
        "header.converter": BYTE_ARRAY,
    }


def read_committed(log: Log, topic: str) -> list[bytes | None]:
    """Every value a read_committed consumer reads from the start of ``topic`` to its end."""
    admin = log.admin()
    if topic not in admin.list_topics():
        return []
    partitions = [TopicPartition(topic, p) for p in range(admin.describe_topics([topic])[topic].partitions)]
    ends = {tp: offsets.latest for tp, offsets in admin.list_offsets(partitions).items()}
    consumer = log.consumer(None, "read_committed", **{"auto.offset.reset": "earliest"})  # type: ignore[arg-type]
    try:
        consumer.assign(partitions)
        consumer.seek_to_beginning(partitions)
        values: list[bytes | None] = []
        deadline = time.monotonic() + 60
        while any(consumer.position(tp) < end for tp, end in ends.items()) and time.monotonic() < deadline:
            values.extend(record.value for record in consumer.poll(timeout=1.0, max_records=50_000))
        return values
    finally:
        consumer.close()


def writer_pid(log: Log, topic: str) -> int | None:
    """The ``pid`` header of the newest of the last records of ``topic``: where its source task runs."""
    admin = log.admin()
    if topic not in admin.list_topics():
        return None
    partitions = admin.describe_topics([topic])[topic].topic_partitions()
    consumer = log.consumer(None, "read_uncommitted")  # type: ignore[arg-type]
    try:
        newest: tuple[int, int] | None = None
        for tp, offsets in admin.list_offsets(partitions).items():
            if offsets.latest == 0:
                continue
            consumer.assign([tp])
            consumer.seek(tp, max(0, offsets.latest - RECENT_OFFSETS))
            for record in consumer.poll(timeout=5.0):
                pid = dict(record.headers).get("pid")
                if pid is not None and (newest is None or record.timestamp > newest[0]):
                    newest = (record.timestamp, int(pid))
        return newest[1] if newest else None
    finally:
        consumer.close()


def end_offset(log: Log, topic: str) -> int:
    admin = log.admin()
    if topic not in admin.list_topics():
        return 0
    partitions = admin.describe_topics([topic])[topic].topic_partitions()
    return sum(offsets.latest for offsets in admin.list_offsets(partitions).values())


@dataclass
class Progress:
    """End offsets of some topics, sampled on a thread, to tell how long each stood still."""

    log: Log
    topics: list[str]
    samples: list[tuple[float, list[int]]] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        while not self._stop.wait(0.25):
            self.samples.append((time.monotonic(), [end_offset(self.log, topic) for topic in self.topics]))

    def stop(self) -> None:
        self._stop.set()

    def longest_stall_after(self, since: float, topic: int) -> float:
        """The longest time ``topic`` did not grow after ``since``, before it reached its last offset."""
        series = [(t, ends[topic]) for t, ends in self.samples if t >= since]
        final = series[-1][1] if series else 0
        longest, last_growth, last_value = 0.0, since, None
        for t, value in series:
            if value != last_value:
                longest = max(longest, t - last_growth)
                last_growth, last_value = t, value
            if value >= final:
                break
        return longest


def connector_states(client: httpx.Client, name: str) -> tuple[str, list[str]]:
    body = client.get(f"/connectors/{name}/status").json()
    return body["connector"]["state"], [task["state"] for task in body["tasks"]]


def create(client: httpx.Client, name: str, config: dict[str, str]) -> None:
    def created() -> bool:
        response = client.post("/connectors", json={"name": name, "config": config})
        assert response.status_code in (201, 409), response.text
        return response.status_code == 201

    wait_until(created, f"{name} to be created", 60, every_s=1.0)
    wait_until(lambda: connector_states(client, name) == ("RUNNING", ["RUNNING"]), f"{name} to run", 180, 1.0)


def test_a_spark_standalone_cluster_loses_no_record_when_a_spark_worker_is_killed(
    kafka_bootstrap: str, cluster: StandaloneCluster, plugin_path: Path, tmp_path: Path
) -> None:
    source_topic = f"tickets-{uuid.uuid4().hex[:8]}"
    copy_topic = f"A.{source_topic}"
    props = worker_props(kafka_bootstrap, cluster, plugin_path, tmp_path)
    with (
        conveyor_standalone(tmp_path, props) as worker,
        worker.client() as client,
        open_log(f"kafka://{kafka_bootstrap}") as kafka,
    ):
        kafka.admin().create_topic(source_topic, partitions=2)
        create(client, "tickets", source_config(source_topic))
        create(client, "copy", sink_config(kafka.url, source_topic))
        progress = Progress(kafka, [source_topic, copy_topic])
        sampler = threading.Thread(target=progress.run, daemon=True)
        sampler.start()
        try:
            wait_until(
                lambda: end_offset(kafka, copy_topic) >= KILL_AFTER, "records before the kill", 180, 0.5
            )
            source_pid = wait_until(lambda: writer_pid(kafka, source_topic), "the source task's process")
            victim = cluster.worker_running(source_pid)
            before_kill = (end_offset(kafka, source_topic), end_offset(kafka, copy_topic))
            assert before_kill[0] < RECORDS, "the kill came too late"
            killed_at = time.monotonic()
            killed = victim.kill()

            results = wait_until(
                lambda: _complete(kafka, source_topic, copy_topic),
                "both topics to hold every record",
                DONE_WITHIN_S,
                3.0,
            )
            done_after = time.monotonic() - killed_at
        finally:
            progress.stop()
        assert connector_states(client, "tickets") == ("RUNNING", ["RUNNING"])
        assert connector_states(client, "copy") == ("RUNNING", ["RUNNING"])
        print(
            f"spark standalone kill -9 of {victim.name} ({len(killed)} processes, the source task's among "
            f"them) at {before_kill} records: "
            f"source stalled {progress.longest_stall_after(killed_at, 0):.1f} s, copy stalled "
            f"{progress.longest_stall_after(killed_at, 1):.1f} s, all {RECORDS} records verified "
            f"{done_after:.1f} s after the kill; {results}"
        )
    for result in results:
        assert (result.distinct, result.duplicates, result.gaps, result.unreadable) == (RECORDS, 0, 0, 0), (
            result
        )


def _complete(kafka: Log, *topics: str) -> list[Verification] | None:
    results = [verify(read_committed(kafka, topic), RECORDS, 1) for topic in topics]
    return results if all(result.distinct == RECORDS for result in results) else None

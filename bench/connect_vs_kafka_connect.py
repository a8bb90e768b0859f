"""One file through FileStreamSource to a topic and back out through FileStreamSink: Apache Kafka Connect
4.3 beside Conveyor, on the same broker, in the same run.

Run: ``.venv/bin/python bench/connect_vs_kafka_connect.py [lines] [rounds]`` (1,000,000 lines, 1 round).
Each runtime runs as users run it (``ConnectDistributed`` from Kafka's Maven jars; ``conveyor
distributed``), one worker, a group and topics of its own, exactly-once source support enabled and the
source connector requiring it, the sink reading read_committed, string converters. The clock starts
when both connectors are created on a ready worker and stops when the output file is as long as the
input; the source alone is timed to the offset record of the file's last line (its CreateTime, read back
from the worker's offsets topic after the copy: asking the worker's REST API for the offsets every 50 ms
during the copy took a third of a core in this process and had Kafka Connect read its offsets topic with
a new consumer each time, load that the timed runtime ran under). Every other round runs Conveyor
first. Each worker first copies a tenth of the file with connectors of their own, reported as its cold
run and not compared: the first runtime of a round would otherwise pay alone for the broker's and its
own JVM's warm-up, which moved the ratio by half. Each line ends with the machine's load average, which
moves these figures. A real broker is started with ``conveyor.kafka_broker`` unless
``CONVEYOR_KAFKA_BOOTSTRAP`` names one.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from conveyor.kafka_broker import KafkaBroker, KafkaConnect
from conveyor.kafka_broker.connect import group_settings
from conveyor.kafka_broker.jvm import free_port

CONVEYOR = Path(sys.executable).parent / "conveyor"
STRING_CONVERTER = "org.apache.kafka.connect.storage.StringConverter"
DEADLINE_S = 1800.0


@dataclass(frozen=True)
class Worker:
    """A ready worker of either runtime: its REST URL, and the broker and offsets topic of its group."""

    url: str
    bootstrap: str
    offsets_topic: str


@dataclass(frozen=True)
class Timing:
    """Seconds from creating the connectors to the source's last offset and to the whole output file."""

    runtime: str
    source_s: float
    end_to_end_s: float


def worker_settings(bootstrap: str, name: str) -> dict[str, str]:
    """Either runtime's worker: a group of its own, exactly-once sources, read_committed sinks."""
    return {
        **group_settings(bootstrap, name),
        "config.storage.replication.factor": "1",
        "offset.storage.replication.factor": "1",
        "status.storage.replication.factor": "1",
        "offset.storage.partitions": "1",
        "status.storage.partitions": "1",
        "offset.flush.interval.ms": "1000",
        "exactly.once.source.support": "enabled",
        "consumer.isolation.level": "read_committed",
        "key.converter": STRING_CONVERTER,
        "value.converter": STRING_CONVERTER,
    }


def write_input(path: Path, lines: int) -> None:
    with open(path, "w") as file:
        for start in range(0, lines, 100_000):
            file.write("".join(f"line-{n:09d}\n" for n in range(start, min(lines, start + 100_000))))


def connectors(source: Path, sink: Path, topic: str, prefix: str) -> list[dict[str, object]]:
    """The two connectors, named after the run: a sink's consumer group is named after its connector,
    and each runtime's group must be its own on the shared broker."""
    return [
        {
            "name": f"{prefix}-file-source",
            "config": {
                "connector.class": "org.apache.kafka.connect.file.FileStreamSourceConnector",
                "file": str(source),
                "topic": topic,
                "exactly.once.support": "required",
            },
        },
        {
            "name": f"{prefix}-file-sink",
            "config": {
                "connector.class": "org.apache.kafka.connect.file.FileStreamSinkConnector",
                "file": str(sink),
                "topics": topic,
            },
        },
    ]


def wait_for(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        time.sleep(0.05)


def source_finished_at(bootstrap: str, offsets_topic: str, connector: str, position: int) -> float:
    """When the source produced the offset of `position` (epoch seconds, the record's CreateTime), read
    back from the worker's one-partition offsets topic once the copy is over. Both runtimes write it into
    the transaction of the file's last line, so it is committed once the sink has that line."""
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"bench-{uuid.uuid4().hex}",
            "isolation.level": "read_committed",
            "enable.auto.commit": False,
            "enable.partition.eof": True,
        }
    )
    try:
        consumer.assign([TopicPartition(offsets_topic, 0, OFFSET_BEGINNING)])
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            message = consumer.poll(1.0)
            if message is None:
                continue
            if message.error():
                if message.error().code() == KafkaError._PARTITION_EOF:
                    break
                raise RuntimeError(f"reading {offsets_topic}: {message.error()}")
            key, value = message.key(), message.value()
            if key is None or value is None or json.loads(key)[0] != connector:
                continue
            if json.loads(value).get("position") == position:
                created_ms: int = message.timestamp()[1]
                return created_ms / 1000
    finally:
        consumer.close()
    raise AssertionError(f"{connector} has no offset at position {position} in {offsets_topic}")


def create(runtime: str, url: str, connector: dict[str, object]) -> None:
    """POST the connector, retrying the 409 of a rebalance that the previous creation started."""
    while (response := httpx.post(f"{url}/connectors", json=connector, timeout=60)).status_code == 409:
        time.sleep(0.1)
    if response.status_code != 201:
        raise RuntimeError(f"{runtime}: creating {connector['name']}: {response.text}")


def run(runtime: str, worker: Worker, source: Path, name: str, directory: Path) -> Timing:
    """Create both connectors of run `name` on `worker`, then time the whole copy into
    `directory`/`name`.out, and the source alone from its offsets once the copy is over."""
    size = source.stat().st_size
    sink = directory / f"{name}.out"
    started_at = time.time()
    started = time.monotonic()
    for connector in connectors(source, sink, f"{name}-lines", name):
        create(runtime, worker.url, connector)
    while not (sink.exists() and sink.stat().st_size >= size):
        if time.monotonic() - started > DEADLINE_S:
            raise TimeoutError(f"{runtime} did not copy the file within {DEADLINE_S:.0f} s")
        time.sleep(0.05)
    end_to_end_s = time.monotonic() - started
    if sink.read_bytes() != source.read_bytes():
        raise AssertionError(f"{runtime}: the output file is not the input file")
    finished_at = source_finished_at(worker.bootstrap, worker.offsets_topic, f"{name}-file-source", size)
    return Timing(runtime, finished_at - started_at, end_to_end_s)


@contextlib.contextmanager
def conveyor_worker(directory: Path, settings: dict[str, str]) -> Iterator[str]:
    """`conveyor distributed` with `settings`; yields its REST URL once `GET /health` answers 200."""
    directory.mkdir(parents=True)
    properties = directory / "worker.properties"
    port = free_port()
    all_settings = {
        **settings,
        "listeners": f"http://127.0.0.1:{port}",
        "data.dir": str(directory / "data"),
    }
    properties.write_text("".join(f"{key}={value}\n" for key, value in all_settings.items()))
    with open(directory / "worker.out", "wb") as output:
        process = subprocess.Popen(
            [str(CONVEYOR), "distributed", str(properties)], stdout=output, stderr=subprocess.STDOUT
        )
        url = f"http://127.0.0.1:{port}"
        try:
            wait_for(lambda: _healthy(url, process), "the Conveyor worker to be ready")
            yield url
        finally:
            process.terminate()
            process.wait(120)


def _healthy(url: str, process: subprocess.Popen[bytes]) -> bool:
    if process.poll() is not None:
        raise RuntimeError("the Conveyor worker exited during start-up")
    try:
        return httpx.get(f"{url}/health", timeout=5).status_code == 200
    except httpx.HTTPError:
        return False


def create_topic(bootstrap: str, topic: str) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(30)


def warm_then_run(runtime: str, worker: Worker, source: Path, name: str, directory: Path) -> Timing:
    """Copy the warm-up file with connectors of their own, report it as the cold run, then time the copy
    of `source` on the same worker."""
    warm_up = directory / "warm-up.txt"
    create_topic(worker.bootstrap, f"{name}-warm-lines")
    cold = run(f"{runtime} (cold)", worker, warm_up, f"{name}-warm", directory)
    report(len(warm_up.read_bytes().splitlines()), cold)
    create_topic(worker.bootstrap, f"{name}-lines")
    return run(runtime, worker, source, name, directory)


def bench_kafka_connect(bootstrap: str, directory: Path, source: Path) -> Timing:
    name = f"kc-{uuid.uuid4().hex[:6]}"
    settings = worker_settings(bootstrap, name)
    with KafkaConnect(directory / name, settings, heap="1g") as connect:
        worker = Worker(connect.url, bootstrap, settings["offset.storage.topic"])
        return warm_then_run("Kafka Connect", worker, source, name, directory)


def bench_conveyor(bootstrap: str, directory: Path, source: Path) -> Timing:
    name = f"conveyor-{uuid.uuid4().hex[:6]}"
    settings = worker_settings(bootstrap, name)
    with conveyor_worker(directory / name, settings) as url:
        worker = Worker(url, bootstrap, settings["offset.storage.topic"])
        return warm_then_run("Conveyor", worker, source, name, directory)


def report(lines: int, timing: Timing) -> None:
    print(
        f"{timing.runtime:>21}: source {lines / timing.source_s:>9,.0f} records/s ({timing.source_s:.1f} s), "
        f"end to end {lines / timing.end_to_end_s:>9,.0f} records/s ({timing.end_to_end_s:.1f} s), "
        f"load average {os.getloadavg()[0]:.1f}",
        flush=True,
    )


def bench(bootstrap: str, lines: int, rounds: int) -> None:
    with tempfile.TemporaryDirectory(prefix="connect-bench-") as tmp:
        directory = Path(tmp)
        source = directory / "input.txt"
        write_input(source, lines)
        write_input(directory / "warm-up.txt", max(1, lines // 10))
        print(f"{lines:,} lines ({source.stat().st_size:,} bytes) on the broker at {bootstrap}", flush=True)
        for round_number in range(rounds):
            if round_number % 2:
                conveyor = bench_conveyor(bootstrap, directory, source)
                report(lines, conveyor)
            kafka_connect = bench_kafka_connect(bootstrap, directory, source)
            report(lines, kafka_connect)
            if not round_number % 2:
                conveyor = bench_conveyor(bootstrap, directory, source)
                report(lines, conveyor)
            print(
                f"{'Conveyor/Kafka':>21}: source {kafka_connect.source_s / conveyor.source_s:.0%}, "
                f"end to end {kafka_connect.end_to_end_s / conveyor.end_to_end_s:.0%}",
                flush=True,
            )


def main() -> None:
    lines = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    external = os.environ.get("CONVEYOR_KAFKA_BOOTSTRAP")
    if external:
        bench(external, lines, rounds)
        return
    with (
        tempfile.TemporaryDirectory(prefix="kafka-bench-") as directory,
        KafkaBroker(Path(directory), heap="1g") as broker,
    ):
        bench(broker.bootstrap_servers, lines, rounds)


if __name__ == "__main__":
    main()

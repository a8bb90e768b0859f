"""Raw writes of a connector's own records to a fresh topic: the ceiling that the broker and the client put
on any runtime writing them, apart from making them.

- ``read_back``: a topic's key and value bytes, read committed, once.
- ``java_write``: Kafka's own Java producer (``kafka-producer-perf-test``'s ``ProducerPerformance`` from
  Kafka's jars) sending the values, transactional, a commit every ``interval_ms``.
- ``python_write``: a plain confluent-kafka loop handing the pre-encoded keys and values to librdkafka in
  batches (``produce_batch``, as Conveyor's Kafka producer does), with that producer's settings,
  transactional, a commit every ``interval_ms``.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition

from conveyor.kafka_broker.fetch import KafkaFetchError, fetch_kafka, fetch_once, run_maven
from conveyor.log.kafka.producer import PRODUCER_DEFAULTS

DEPENDENCY_PLUGIN = "org.apache.maven.plugins:maven-dependency-plugin:3.11.0"
PERFORMANCE_CLASS = "org.apache.kafka.tools.ProducerPerformance"
#: ``ProducerPerformance``'s closing line: "N records sent, R records/sec (M MB/sec), ...".
TOTAL_LINE = re.compile(r"^(\d+) records sent, ([\d.]+) records/sec \(([\d.]+) MB/sec\)", re.MULTILINE)
BATCH = 10_000
READ_BACK_S = 600.0


@dataclass(frozen=True)
class Written:
    """Records written, their key and value bytes, and the seconds it took."""

    records: int
    bytes: int
    seconds: float

    @property
    def rate(self) -> float:
        return self.records / self.seconds

    @property
    def megabytes_per_s(self) -> float:
        return self.bytes / self.seconds / 1e6


def read_back(bootstrap: str, topic: str, records: int) -> list[tuple[bytes | None, bytes]]:
    """The first ``records`` committed records of partition 0 of ``topic``: (key, value) bytes."""
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"bench-read-back-{uuid.uuid4().hex[:6]}",
            "isolation.level": "read_committed",
            "enable.auto.commit": False,
            "fetch.max.bytes": 64 << 20,
        }
    )
    consumer.assign([TopicPartition(topic, 0, 0)])
    read: list[tuple[bytes | None, bytes]] = []
    deadline = time.monotonic() + READ_BACK_S
    try:
        while len(read) < records:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{topic}: {len(read)} of {records} records read back")
            for message in consumer.consume(min(10_000, records - len(read)), 5.0):
                value = message.value()
                if message.error() is None and value is not None:
                    read.append((message.key(), value))
    finally:
        consumer.close()
    return read


def kafka_tools_jar_dir() -> Path:
    """A directory holding Kafka's ``kafka-tools`` jar of the fetched Kafka version (whose other jars it
    runs with), fetched with Maven once."""
    kafka = fetch_kafka()
    home = kafka.home / "tools"

    def fetch() -> None:
        mvn = shutil.which("mvn")
        if mvn is None:
            raise KafkaFetchError("Maven (mvn) is not on PATH; it is needed to fetch kafka-tools")
        run_maven(
            mvn,
            kafka.home,
            f"{DEPENDENCY_PLUGIN}:copy",
            f"-Dartifact=org.apache.kafka:kafka-tools:{kafka.version}",
            f"-DoutputDirectory={home}",
        )

    fetch_once(home, kafka.version, fetch)
    return home


def java_write(
    bootstrap: str,
    topic: str,
    values: list[bytes],
    records: int,
    compression: str,
    interval_ms: int,
    directory: Path,
) -> Written:
    """``ProducerPerformance`` sending ``records`` values, each drawn at random from ``values``, acks=all,
    transactional; its own rate from its first send to its last commit (the JVM's start-up left out)."""
    if any(b"\n" in value for value in values):
        raise ValueError("a value holds a newline, ProducerPerformance's payload delimiter")
    payloads = directory / f"{topic}.payloads"
    payloads.write_bytes(b"\n".join(values))
    kafka = fetch_kafka()
    classpath = f"{kafka_tools_jar_dir() / '*'}:{kafka.classpath}"
    settings = {
        "bootstrap.servers": bootstrap,
        "acks": "all",
        "linger.ms": str(PRODUCER_DEFAULTS["linger.ms"]),
        "batch.size": str(PRODUCER_DEFAULTS["batch.size"]),
        "compression.type": compression,
    }
    result = subprocess.run(
        [
            "java",
            f"-Dlog4j2.configurationFile={kafka.log4j_config}",
            "-cp",
            classpath,
            PERFORMANCE_CLASS,
            "--topic",
            topic,
            "--num-records",
            str(records),
            "--throughput",
            "-1",
            "--payload-file",
            str(payloads),
            "--transactional-id",
            f"bench-java-{topic}",
            "--transaction-duration-ms",
            str(interval_ms),
            "--reporting-interval",
            "600000",
            "--command-property",
            *(f"{key}={value}" for key, value in settings.items()),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    payloads.unlink()
    totals = TOTAL_LINE.findall(result.stdout)
    if result.returncode != 0 or not totals:
        raise RuntimeError(f"ProducerPerformance failed:\n{result.stdout[-3000:]}{result.stderr[-3000:]}")
    sent, rate, megabytes = totals[-1]
    seconds = int(sent) / float(rate)
    return Written(int(sent), round(float(megabytes) * 1024 * 1024 * seconds), seconds)


def python_write(
    bootstrap: str,
    topic: str,
    records: list[tuple[bytes | None, bytes]],
    compression: str,
    interval_ms: int,
) -> Written:
    """A confluent-kafka producer with Conveyor's Kafka producer settings writing ``records`` in batches,
    a transaction committed every ``interval_ms``; from the producer's creation to the last commit."""
    started = time.monotonic()
    producer = Producer(
        {
            "bootstrap.servers": bootstrap,
            **PRODUCER_DEFAULTS,
            "compression.type": compression,
            "transactional.id": f"bench-python-{topic}",
        }
    )
    producer.init_transactions(30)
    producer.begin_transaction()
    committed = time.monotonic()
    for start in range(0, len(records), BATCH):
        messages: list[dict[str, Any]] = [
            {"key": key, "value": value} for key, value in records[start : start + BATCH]
        ]
        while messages:
            producer.produce_batch(topic, messages)
            failed = [message for message in messages if "_error" in message]
            if any(message["_error"].code() != KafkaError._QUEUE_FULL for message in failed):
                raise RuntimeError(f"producing to {topic}: {failed[0]['_error']}")
            if failed:
                producer.poll(0.05)
            messages = [{"key": message["key"], "value": message["value"]} for message in failed]
        producer.poll(0)
        if (time.monotonic() - committed) * 1000 >= interval_ms:
            producer.commit_transaction(60)
            producer.begin_transaction()
            committed = time.monotonic()
    producer.commit_transaction(60)
    seconds = time.monotonic() - started
    producer.flush(30)
    size = sum(len(value) + (len(key) if key is not None else 0) for key, value in records)
    return Written(len(records), size, seconds)

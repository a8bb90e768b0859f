"""Moving a group between Apache Kafka Connect and Conveyor without losing its place.

Both runtimes run as users run them, on the test broker, with the same `group.id` and internal topics:
Kafka Connect 4.3 from its Maven jars (`ConnectDistributed`), Conveyor as `conveyor distributed`. An
exactly-once `FileStreamSource` is started by one, stopped mid-file, and carried on by the other from
the configs, source offsets and statuses the first wrote; a read_committed reader then finds every line
of the file in the topic exactly once.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import httpx
from tests.distributed.worker_group import worker_group
from tests.waiting import wait_until

from conveyor.kafka_broker import KafkaConnect

from .topics import LineTally, append_lines, committed_position, create_topic, tally_lines

CONNECTOR = "file-source"
BEFORE_THE_STOP = 20_000
AFTER_THE_STOP = 10_000
TOTAL = BEFORE_THE_STOP + AFTER_THE_STOP
DEADLINE_S = 120.0

#: The beginnings of what Kafka Connect 4.3 logs when a record of its config, offset or status topic does
#: not parse (read in the strings of its KafkaConfigBackingStore, KafkaStatusBackingStore, OffsetUtils).
UNREADABLE_RECORD_MESSAGES = (
    "Failed to convert config data",
    "Failed to deserialize",
    "Failed to parse",
    "Discarding config update record",
    "Discarding record with invalid",
    "Ignoring configuration for connector",
    "Ignoring task configuration",
    "Ignoring target state",
    "Ignoring session key",
    "Ignoring offset partition key",
    "Invalid data for",
    "Invalid connector status",
    "Invalid task status",
    "CRITICAL: Failed",
)


def group_settings(bootstrap: str) -> dict[str, str]:
    """The worker settings both runtimes get: one group, its own internal topics, exactly-once sources."""
    suffix = uuid.uuid4().hex[:8]
    return {
        "bootstrap.servers": bootstrap,
        "group.id": f"takeover-{suffix}",
        "config.storage.topic": f"connect-configs-{suffix}",
        "offset.storage.topic": f"connect-offsets-{suffix}",
        "status.storage.topic": f"connect-status-{suffix}",
        "config.storage.replication.factor": "1",
        "offset.storage.replication.factor": "1",
        "status.storage.replication.factor": "1",
        "offset.storage.partitions": "1",
        "status.storage.partitions": "1",
        "exactly.once.source.support": "enabled",
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.storage.StringConverter",
    }


def file_source(source: Path, topic: str) -> dict[str, str]:
    """Kafka's connect-file-source.properties, exactly-once required, small batches (many transactions)."""
    return {
        "connector.class": "org.apache.kafka.connect.file.FileStreamSourceConnector",
        "tasks.max": "1",
        "file": str(source),
        "topic": topic,
        "batch.size": "500",
        "exactly.once.support": "required",
        "name": CONNECTOR,
    }


def every_line_arrived(bootstrap: str, topic: str) -> LineTally | None:
    tally = tally_lines(bootstrap, topic, TOTAL)
    return tally if tally.distinct >= TOTAL else None


def test_conveyor_carries_on_from_a_killed_kafka_connect_with_every_line_once(
    tmp_path: Path, kafka_bootstrap: str
) -> None:
    settings = group_settings(kafka_bootstrap)
    topic = f"lines-{uuid.uuid4().hex[:8]}"
    create_topic(kafka_bootstrap, topic)
    source = tmp_path / "input.txt"
    append_lines(source, 0, BEFORE_THE_STOP)
    config = file_source(source, topic)
    offsets_topic = settings["offset.storage.topic"]

    with KafkaConnect(tmp_path / "kafka-connect", settings) as kafka_connect:
        created = httpx.post(
            f"{kafka_connect.url}/connectors", json={"name": CONNECTOR, "config": config}, timeout=60
        )
        assert created.status_code == 201, created.text
        wait_until(
            lambda: committed_position(kafka_bootstrap, offsets_topic, CONNECTOR, str(source)),
            "Kafka Connect to commit a source offset",
            DEADLINE_S,
        )
        kafka_connect.kill()
    stopped_at = committed_position(kafka_bootstrap, offsets_topic, CONNECTOR, str(source))
    append_lines(source, BEFORE_THE_STOP, AFTER_THE_STOP)
    assert stopped_at is not None and 0 < stopped_at < source.stat().st_size

    with worker_group(tmp_path, 1, **settings) as conveyor:
        tally = wait_until(
            lambda: every_line_arrived(kafka_bootstrap, topic), "every line in the topic", DEADLINE_S
        )
        worker = conveyor.workers[0]
        assert conveyor.request(worker, "GET", f"/connectors/{CONNECTOR}/config").json() == config
        assert conveyor.tasks_running_on(CONNECTOR, 1, [worker])

    assert tally == LineTally(TOTAL, TOTAL, TOTAL, duplicates=0, gaps=0)


def test_kafka_connect_carries_on_from_conveyors_configs_offsets_and_statuses(
    tmp_path: Path, kafka_bootstrap: str
) -> None:
    settings = group_settings(kafka_bootstrap)
    topic = f"lines-{uuid.uuid4().hex[:8]}"
    create_topic(kafka_bootstrap, topic)
    source = tmp_path / "input.txt"
    append_lines(source, 0, BEFORE_THE_STOP)
    config = file_source(source, topic)
    offsets_topic = settings["offset.storage.topic"]

    with worker_group(tmp_path, 1, **settings) as conveyor:
        worker = conveyor.workers[0]
        created = conveyor.request(worker, "POST", "/connectors", {"name": CONNECTOR, "config": config})
        assert created.status_code == 201, created.text
        wait_until(
            lambda: committed_position(kafka_bootstrap, offsets_topic, CONNECTOR, str(source)),
            "Conveyor to commit a source offset",
            DEADLINE_S,
        )
        worker.stop()
    append_lines(source, BEFORE_THE_STOP, AFTER_THE_STOP)

    with KafkaConnect(tmp_path / "kafka-connect", settings) as kafka_connect:
        tally = wait_until(
            lambda: every_line_arrived(kafka_bootstrap, topic), "every line in the topic", DEADLINE_S
        )
        status = httpx.get(f"{kafka_connect.url}/connectors/{CONNECTOR}/status", timeout=60).json()
        read_config = httpx.get(f"{kafka_connect.url}/connectors/{CONNECTOR}/config", timeout=60).json()
        output = kafka_connect.output

    assert tally == LineTally(TOTAL, TOTAL, TOTAL, duplicates=0, gaps=0)
    assert read_config == config
    assert [(task["state"], task["worker_id"]) for task in status["tasks"]] == [
        ("RUNNING", kafka_connect.worker_id)
    ]
    assert not [line for line in output.splitlines() if any(m in line for m in UNREADABLE_RECORD_MESSAGES)]

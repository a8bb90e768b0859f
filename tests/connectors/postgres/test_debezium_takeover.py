"""Taking over a running Debezium: Debezium 3.6.1's PostgreSQL connector streams a table on Apache Kafka
Connect and is killed; Conveyor, started on the same group, topics and config, carries on from
Debezium's offsets and slot, and every change reaches the topic once."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.connectors.postgres.cdc_tasks import cdc_config
from tests.connectors.postgres.databases import execute, fresh_database
from tests.distributed.worker_group import worker_group
from tests.takeover.test_kafka_connect_takeover import group_settings
from tests.takeover.topics import create_topic
from tests.waiting import wait_until
from tests.worker.support import JSON_CONVERTER, read_topic

from conveyor.connectors.postgres.connection import PostgresAddress
from conveyor.kafka_broker import KafkaConnect
from conveyor.kafka_broker.debezium import fetch_debezium_postgres
from conveyor.kafka_broker.fetch import fetch_kafka
from conveyor.log import open_log
from conveyor.postgres_server import PostgresServer

DEADLINE_S = 180.0
CONNECTOR = "cdc"
BATCH = 50
"""Transactions in each phase: under Debezium, with nothing running, and under Conveyor."""


@pytest.fixture
def database(postgres: PostgresServer) -> Iterator[PostgresAddress]:
    with fresh_database(postgres, "takeover") as target:
        execute(
            target,
            "CREATE TABLE items (id int PRIMARY KEY, version int NOT NULL)",
            "INSERT INTO items VALUES (0, 0)",
        )
        yield target


def write(database: PostgresAddress, first: int) -> None:
    """``BATCH`` transactions, each inserting a row and updating it."""
    for n in range(first, first + BATCH):
        execute(
            database,
            "INSERT INTO items VALUES (%(n)s, 0)",
            "UPDATE items SET version = 1 WHERE id = %(n)s",
            params={"n": n},
        )


def changes(bootstrap: str, topic: str) -> list[tuple[str, int, int]]:
    with open_log(f"kafka://{bootstrap}") as log:
        payloads = [json.loads(record.value)["payload"] for record in read_topic(log, topic) if record.value]
    return [(p["op"], p["after"]["id"], p["after"]["version"]) for p in payloads]


def streamed_offset(bootstrap: str, offsets_topic: str) -> dict[str, Any] | None:
    """Debezium's last committed streaming offset, if any."""
    with open_log(f"kafka://{bootstrap}") as log:
        found = [
            json.loads(record.value)
            for record in read_topic(log, offsets_topic)
            if record.key and record.value and json.loads(record.key)[0] == CONNECTOR
        ]
    streaming = [offset for offset in found if "lsn_commit" in offset]
    return streaming[-1] if streaming else None


@pytest.mark.timeout(900)
def test_conveyor_carries_on_from_a_killed_debeziums_offsets_and_slot_with_every_change_once(
    tmp_path: Path, database: PostgresAddress, kafka_bootstrap: str
) -> None:
    settings = {
        **group_settings(kafka_bootstrap),
        "plugin.path": f"{fetch_kafka().connect_file_plugin},{fetch_debezium_postgres()}",
    }
    suffix = uuid.uuid4().hex[:8]
    prefix = f"takeover{suffix}"
    topic = f"{prefix}.public.items"
    create_topic(kafka_bootstrap, topic)
    config = {
        **cdc_config(database, prefix, **{"slot.name": f"takeover_{suffix}"}),
        "tasks.max": "1",
        "key.converter": JSON_CONVERTER,
        "value.converter": JSON_CONVERTER,
    }
    offsets_topic = settings["offset.storage.topic"]

    with KafkaConnect(tmp_path / "kafka-connect", settings) as kafka_connect:
        created = httpx.post(
            f"{kafka_connect.url}/connectors", json={"name": CONNECTOR, "config": config}, timeout=60
        )
        assert created.status_code == 201, created.text
        wait_until(lambda: changes(kafka_bootstrap, topic), "Debezium's snapshot", DEADLINE_S)
        write(database, 1)
        wait_until(
            lambda: (
                len(changes(kafka_bootstrap, topic)) > BATCH
                and streamed_offset(kafka_bootstrap, offsets_topic)
            ),
            "Debezium to stream and commit an offset",
            DEADLINE_S,
        )
        kafka_connect.kill()
    written_by_debezium = len(changes(kafka_bootstrap, topic))
    write(database, 1 + BATCH)

    expected = [("r", 0, 0)] + [
        change for n in range(1, 1 + 3 * BATCH) for change in (("c", n, 0), ("u", n, 1))
    ]
    with worker_group(tmp_path, 1, **settings):
        wait_until(
            lambda: len(changes(kafka_bootstrap, topic)) >= 1 + 4 * BATCH,
            "Conveyor to stream the changes made while nothing ran",
            DEADLINE_S,
        )
        write(database, 1 + 2 * BATCH)
        found = wait_until(
            lambda: (found := changes(kafka_bootstrap, topic)) and len(found) >= len(expected) and found,
            "every change",
            DEADLINE_S,
        )

    assert 1 < written_by_debezium < len(expected)
    assert found == expected

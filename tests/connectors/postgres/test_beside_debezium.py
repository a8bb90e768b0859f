"""Conveyor's CDC source beside Debezium 3.6.1's own PostgreSQL connector on Apache Kafka Connect: the
same config on the same table gives the same JsonConverter output, field by field.

Left out of the comparison are only what differs by nature between two connectors: processing times
(``ts_ms``/``ts_us``/``ts_ns`` of the envelope), ``source.version``, and for snapshot records the
snapshot's own position and time (each connector has its own slot and snapshot).
"""

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
from tests.takeover.topics import create_topic
from tests.waiting import wait_until
from tests.worker.support import JSON_CONVERTER, create_connector, read_topic, rest_client, running_worker

from conveyor.connectors.postgres.connection import PostgresAddress
from conveyor.kafka_broker import KafkaConnect
from conveyor.kafka_broker.debezium import fetch_debezium_postgres
from conveyor.kafka_broker.fetch import fetch_kafka
from conveyor.log import Log, open_log
from conveyor.postgres_server import PostgresServer

DEADLINE_S = 120.0
EVENTS = 6  # a snapshot read, a create, two updates, a delete and its tombstone

TABLE = """CREATE TABLE things (
    id integer PRIMARY KEY, name text NOT NULL, qty smallint, big bigint, ratio double precision,
    price numeric(10, 2), amount numeric, flag boolean, born date, at timestamp, at3 timestamp(3),
    zoned timestamptz, clock time, uid uuid, doc jsonb, raw bytea, tags text[], nums integer[], mood mood
)"""
ROW = (
    "'first', 3, 9000000000, 0.25, 12.50, 3.14159, true, '2024-02-29', '2024-02-29 10:11:12.123456', "
    "'2024-02-29 10:11:12.123', '2024-02-29 10:11:12.5+02', '10:11:12.345678', "
    "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{\"a\": [1, 2]}', '\\x00ff', ARRAY['x', 'y z'], "
    "ARRAY[1, 2], 'happy'"
)


@pytest.fixture
def database(postgres: PostgresServer) -> Iterator[PostgresAddress]:
    with fresh_database(postgres, "side") as target:
        execute(
            target,
            "CREATE TYPE mood AS ENUM ('sad', 'happy')",
            TABLE,
            f"INSERT INTO things VALUES (1, {ROW})",
        )
        yield target


def config(database: PostgresAddress, prefix: str, slot: str) -> dict[str, str]:
    return {
        **cdc_config(database, prefix, **{"slot.name": slot}),
        "tasks.max": "1",
        "key.converter": JSON_CONVERTER,
        "value.converter": JSON_CONVERTER,
    }


def decoded(log: Log, topic: str) -> list[tuple[Any, Any]]:
    return [
        (None if r.key is None else json.loads(r.key), None if r.value is None else json.loads(r.value))
        for r in read_topic(log, topic)
    ]


def comparable(event: tuple[Any, Any]) -> tuple[Any, Any]:
    """The event without what differs by nature between two connectors."""
    key, value = event
    if value is None:
        return key, None
    payload = dict(value["payload"])
    for volatile in ("ts_ms", "ts_us", "ts_ns"):
        payload.pop(volatile, None)
    source = dict(payload["source"])
    source.pop("version")
    if payload["op"] == "r":
        for per_snapshot in ("ts_ms", "ts_us", "ts_ns", "txId", "lsn", "sequence", "xmin"):
            source.pop(per_snapshot)
    payload["source"] = source
    return key, {"schema": value["schema"], "payload": payload}


def differences(left: Any, right: Any, path: str = "") -> list[str]:
    """Where two JSON values differ, by path."""
    if isinstance(left, dict) and isinstance(right, dict):
        found = []
        for name in sorted(set(left) | set(right)):
            if name not in left or name not in right:
                found.append(f"{path}.{name}: only in {'Debezium' if name in left else 'Conveyor'}")
            else:
                found.extend(differences(left[name], right[name], f"{path}.{name}"))
        return found
    if isinstance(left, list | tuple) and isinstance(right, list | tuple) and len(left) == len(right):
        return [
            d
            for n, (a, b) in enumerate(zip(left, right, strict=True))
            for d in differences(a, b, f"{path}[{n}]")
        ]
    return [] if left == right else [f"{path}: Debezium {left!r}, Conveyor {right!r}"]


@pytest.mark.timeout(900)
def test_conveyor_writes_what_debezium_writes_for_the_same_changes(
    tmp_path: Path, database: PostgresAddress, kafka_bootstrap: str
) -> None:
    suffix = uuid.uuid4().hex[:8]
    prefix = f"side{suffix}"
    topic = f"{prefix}.public.things"
    create_topic(kafka_bootstrap, topic)
    plugins = f"{fetch_kafka().connect_file_plugin},{fetch_debezium_postgres()}"
    settings = {
        "bootstrap.servers": kafka_bootstrap,
        "group.id": f"debezium-{suffix}",
        "config.storage.topic": f"dbz-configs-{suffix}",
        "offset.storage.topic": f"dbz-offsets-{suffix}",
        "status.storage.topic": f"dbz-status-{suffix}",
        "plugin.path": plugins,
    }
    with (
        KafkaConnect(tmp_path / "kafka-connect", settings) as kafka_connect,
        running_worker(tmp_path / "conveyor") as worker,
        rest_client(worker) as client,
        open_log(f"kafka://{kafka_bootstrap}") as kafka,
    ):
        created = httpx.post(
            f"{kafka_connect.url}/connectors",
            json={"name": "debezium", "config": config(database, prefix, f"dbz_{suffix}")},
            timeout=60,
        )
        assert created.status_code == 201, created.text
        create_connector(client, "conveyor", config(database, prefix, f"cvy_{suffix}"))
        try:
            wait_until(
                lambda: decoded(kafka, topic) and decoded(worker.log, topic), "both snapshots", DEADLINE_S
            )
        except AssertionError as error:
            debezium_status = httpx.get(f"{kafka_connect.url}/connectors/debezium/status", timeout=60).text
            conveyor_status = client.get("/connectors/conveyor/status").text
            raise AssertionError(
                f"{error}\nDebezium: {debezium_status}\nConveyor: {conveyor_status}\n"
                f"Kafka Connect's output:\n{kafka_connect.output[-3000:]}"
            ) from None
        execute(database, f"INSERT INTO things VALUES (2, {ROW})")
        execute(database, "UPDATE things SET qty = NULL, name = 'second', amount = 10 WHERE id = 2")
        execute(database, "UPDATE things SET tags = ARRAY[]::text[], doc = '{}' WHERE id = 2")
        execute(database, "DELETE FROM things WHERE id = 1")
        debezium = wait_until(
            lambda: (e := decoded(kafka, topic)) and len(e) >= EVENTS and e, "Debezium's events", DEADLINE_S
        )
        conveyor = wait_until(
            lambda: (e := decoded(worker.log, topic)) and len(e) >= EVENTS and e,
            "Conveyor's events",
            DEADLINE_S,
        )
    assert len(debezium) == len(conveyor) == EVENTS
    found = [
        f"event {n}: {difference}"
        for n, (left, right) in enumerate(zip(debezium, conveyor, strict=True))
        for difference in differences(comparable(left), comparable(right))
    ]
    assert found == []


PLAIN_TABLE = """CREATE TABLE plain (
    id bigint PRIMARY KEY, name text NOT NULL, code varchar(12), padded char(5), qty smallint,
    whole integer, flag boolean, amount numeric(10, 3), uid uuid, doc json, bdoc jsonb, mood mood
)"""
PLAIN_ROWS = (
    "(1, E'tab\\there \"quoted\" back\\\\slash \\u00e9 \\x01', 'code', 'ab', 3, -7, true, 12.5, "
    "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{\"a\":  [1, \"\\u00e9\"]}', '{\"b\": null}', 'sad')",
    "(2, '', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
)


@pytest.mark.timeout(900)
def test_a_snapshot_of_rows_written_as_postgres_json_is_what_debezium_writes(
    tmp_path: Path, database: PostgresAddress, kafka_bootstrap: str
) -> None:
    """A table whose every column PostgreSQL writes as JSON (so Conveyor's snapshot reads it so, with
    ``decimal.handling.mode=string``) gives Debezium's snapshot events."""
    execute(database, PLAIN_TABLE, f"INSERT INTO plain VALUES {', '.join(PLAIN_ROWS)}")
    suffix = uuid.uuid4().hex[:8]
    prefix = f"plain{suffix}"
    topic = f"{prefix}.public.plain"
    create_topic(kafka_bootstrap, topic)
    plugins = f"{fetch_kafka().connect_file_plugin},{fetch_debezium_postgres()}"
    settings = {
        "bootstrap.servers": kafka_bootstrap,
        "group.id": f"debezium-{suffix}",
        "config.storage.topic": f"dbz-configs-{suffix}",
        "offset.storage.topic": f"dbz-offsets-{suffix}",
        "status.storage.topic": f"dbz-status-{suffix}",
        "plugin.path": plugins,
    }
    only_plain = {"table.include.list": "public.plain", "decimal.handling.mode": "string"}
    with (
        KafkaConnect(tmp_path / "kafka-connect", settings) as kafka_connect,
        running_worker(tmp_path / "conveyor") as worker,
        rest_client(worker) as client,
        open_log(f"kafka://{kafka_bootstrap}") as kafka,
    ):
        created = httpx.post(
            f"{kafka_connect.url}/connectors",
            json={"name": "debezium", "config": {**config(database, prefix, f"dbz_{suffix}"), **only_plain}},
            timeout=60,
        )
        assert created.status_code == 201, created.text
        create_connector(client, "conveyor", {**config(database, prefix, f"cvy_{suffix}"), **only_plain})
        rows = len(PLAIN_ROWS)
        debezium = wait_until(
            lambda: (e := decoded(kafka, topic)) and len(e) >= rows and e, "Debezium's snapshot", DEADLINE_S
        )
        conveyor = wait_until(
            lambda: (e := decoded(worker.log, topic)) and len(e) >= rows and e,
            "Conveyor's snapshot",
            DEADLINE_S,
        )
    assert len(debezium) == len(conveyor) == rows
    found = [
        f"event {n}: {difference}"
        for n, (left, right) in enumerate(zip(debezium, conveyor, strict=True))
        for difference in differences(comparable(left), comparable(right))
    ]
    assert found == []

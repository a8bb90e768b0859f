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
from psycopg2 import sql
from tests.connectors.postgres.cdc_tasks import cdc_config
from tests.connectors.postgres.databases import execute, fresh_database
from tests.takeover.topics import create_topic
from tests.waiting import wait_until
from tests.worker.support import JSON_CONVERTER, create_connector, read_topic, rest_client, running_worker

from conveyor.connectors.postgres.connection import PostgresAddress, connect
from conveyor.connectors.postgres.snapshot_json import json_expression
from conveyor.connectors.postgres.types import DecimalHandlingMode, TimePrecisionMode, TypeOptions, load_types
from conveyor.kafka_broker import KafkaConnect
from conveyor.kafka_broker.connect import group_settings
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


def debezium_worker_settings(kafka_bootstrap: str, suffix: str) -> dict[str, str]:
    """A Kafka Connect worker with Debezium's PostgreSQL connector, on internal topics of its own."""
    return {
        **group_settings(kafka_bootstrap, f"debezium-{suffix}"),
        "plugin.path": f"{fetch_kafka().connect_file_plugin},{fetch_debezium_postgres()}",
    }


@pytest.mark.timeout(900)
def test_conveyor_writes_what_debezium_writes_for_the_same_changes(
    tmp_path: Path, database: PostgresAddress, kafka_bootstrap: str
) -> None:
    suffix = uuid.uuid4().hex[:8]
    prefix = f"side{suffix}"
    topic = f"{prefix}.public.things"
    create_topic(kafka_bootstrap, topic)
    settings = debezium_worker_settings(kafka_bootstrap, suffix)
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
    settings = debezium_worker_settings(kafka_bootstrap, suffix)
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


KINDS_TABLE = """CREATE TABLE kinds (
    id integer PRIMARY KEY, span interval, zone timetz, zone3 timetz(3), t0 time(0), t3 time(3),
    t6 time(6), t time, ts0 timestamp(0), ts3 timestamp(3), ts6 timestamp, tz0 timestamptz(0),
    tz3 timestamptz(3), d double precision, n numeric, n40 numeric(40, 5), n10 numeric(10, 2),
    nums numeric(6, 2)[], uns numeric[], stamps timestamp[], texts text[], ints integer[], empty bytea,
    mood mood, j json, jb jsonb, uid uuid, ip inet, far date, x xml, endless timestamptz, cash money,
    b1 bit(1), b12 bit(12), vb bit varying
)"""
KINDS_ROW = ", ".join(
    (
        "'1 year 2 months 3 days 04:05:06.789'",
        "'10:11:12.345+02'",
        "'10:11:12.5+02'",
        "'10:11:12'",
        "'10:11:12.345'",
        "'10:11:12.345678'",
        "'23:59:59.999999'",
        "'2024-02-29 10:11:12'",
        "'2024-02-29 10:11:12.123'",
        "'1969-12-31 23:59:59.999999'",
        "'2024-02-29 10:11:12+05'",
        "'2024-02-29 10:11:12.5-03'",
        "{d}",
        "12345678901234567890123456789.123456789",
        "123456789012345678901234567890123.45678",
        "-12.5",
        "ARRAY[1.5, NULL, -2.25]",
        "ARRAY[1.5, NULL, 12345678901234567890123456789.5]",
        "ARRAY['2024-02-29 10:11:12.5', NULL]::timestamp[]",
        "ARRAY['a', NULL, '']",
        "ARRAY[NULL, 1]",
        "'\\x'",
        "'sad'",
        '\'{{"a": 1,  "b": [true]}}\'',
        '\'{{"z": 1, "a": null}}\'',
        "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'",
        "'192.168.0.1/24'",
        "'9999-12-31'",
        "'<a>b</a>'",
        "'infinity'",
        "-1234567.89",
        "'0'",
        "'100000000011'",
        "'1111111111'",
    )
)
EXTRAS_TABLE = """CREATE TABLE extras (
    id integer PRIMARY KEY, r real, rs real[], cash money, b1 bit(1), b8 bit(8), vb bit varying,
    b3s bit(3)[], b1s bit(1)[], vbs bit varying[]
)"""
EXTRAS_ROW = (
    "{r}, ARRAY[1.5, 'NaN', NULL, 3.4028235e38]::real[], 12.34, '1', '10100001', '101', "
    "ARRAY['101', NULL, '011']::bit(3)[], ARRAY['1', NULL, '0']::bit(1)[], "
    "ARRAY['1', NULL, '', '100000010']::varbit[]"
)
NANS_TABLE = "CREATE TABLE nans (id integer PRIMARY KEY, n numeric, n10 numeric(10, 2), ns numeric[])"
NANS_ROW = "'NaN', 'NaN', ARRAY['NaN', 1.5]::numeric[]"
NAN, MINUS_INFINITY = "'NaN'", "'-Infinity'"
ERAS_TABLE = """CREATE TABLE eras (
    id integer PRIMARY KEY, d date, ts timestamp, ts3 timestamp(3), tz timestamptz, tz0 timestamptz(0)
)"""
ERAS_ROWS = (
    "'4713-01-01 BC', '4713-01-01 00:00:00 BC', '4713-01-01 00:00:00.001 BC', '4713-01-02 00:00:00+00 BC', "
    "'4713-01-02 00:00:00.5+00 BC'",
    "'0001-12-31 BC', '0001-12-31 23:59:59.999999 BC', '0001-02-29 12:00:00.5 BC', "
    "'0044-03-15 10:00:00.25+00 BC', '0001-12-31 23:59:59+00 BC'",
    "'0001-01-01', '0001-01-01 00:00:00', '1582-10-10 00:00:00', '1582-10-04 23:59:59+00', "
    "'0001-01-01 00:00:00+00'",
    "'9999-12-31', '9999-12-31 23:59:59.999999', '10000-01-01 00:00:00', '12345-06-07 08:09:10.5+00', "
    "'10000-01-01 00:00:00+00'",
    "'10000-01-01', '10000-01-01 00:00:00.000001', '99999-12-31 23:59:59.999', '1000-03-01 00:00:00+00', "
    "'99999-12-31 23:59:59+00'",
)
"""Dates and timestamps before year 1 (BC) and after 9999, and around the Julian calendar's end, which
Conveyor writes, as Debezium does, in the ``adaptive`` modes (``connect``'s values cannot hold them)."""
BC_ERAS = {1, 2}
"""The ids of ``ERAS_ROWS``' rows with a BC ``date`` when snapshotted."""
MODES = (("adaptive", "precise"), ("adaptive_time_microseconds", "double"), ("connect", "string"))
"""The ``time.precision.mode`` and ``decimal.handling.mode`` of each connector pair."""


def test_the_kinds_table_is_one_whose_snapshot_postgres_writes_as_json_in_each_mode(
    database: PostgresAddress,
) -> None:
    """So that the comparison below checks the snapshot read as JSON PostgreSQL writes, as well as the
    one read as Connect values."""
    execute(database, KINDS_TABLE)
    connection = connect(database)
    try:
        with connection.cursor() as cursor:
            types = load_types(cursor)
            cursor.execute(
                "SELECT attname, atttypid, atttypmod FROM pg_attribute "
                "WHERE attrelid = 'kinds'::regclass AND attnum > 0 AND NOT attisdropped"
            )
            columns = cursor.fetchall()
            cursor.execute("SELECT scale('0'::money::numeric)")
            (money_scale,) = cursor.fetchone()
            version = connection.server_version
    finally:
        connection.close()
    for time_mode, decimal_mode in MODES:
        options = TypeOptions(DecimalHandlingMode(decimal_mode), TimePrecisionMode(time_mode))
        kept = [
            name
            for name, oid, modifier in columns
            if json_expression(types[oid], modifier, options, sql.Identifier(name), version, money_scale)
            is None
        ]
        assert kept == [], (time_mode, decimal_mode)


def without_special_numeric_arrays(event: tuple[Any, Any]) -> tuple[Any, Any]:
    """``nans``'s event without its numeric array ``ns``, which always holds NaN or an infinity: Debezium
    writes null for such an array, Conveyor its elements (a difference on purpose, in docs/postgres.md)."""
    key, value = event
    if value is None:
        return event
    return key, {**value, "payload": payload_without(value["payload"], ("ns",))}


def payload_without(payload: dict[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    """A change event's payload without the columns ``names`` in its ``before`` and ``after``."""
    kept = dict(payload)
    for side in ("before", "after"):
        if kept.get(side) is not None:
            kept[side] = {name: v for name, v in kept[side].items() if name not in names}
    return kept


def without_snapshot_bc_dates(event: tuple[Any, Any]) -> tuple[Any, Any]:
    """``eras``'s event without the BC ``date`` of a snapshot read: Debezium's snapshot writes the day of
    the same date AD (its JDBC driver drops the era), Conveyor the real day, as Debezium's stream does (a
    difference on purpose, in docs/postgres.md)."""
    key, value = event
    if value is None or value["payload"]["op"] != "r" or value["payload"]["after"]["id"] not in BC_ERAS:
        return event
    after = {name: v for name, v in value["payload"]["after"].items() if name != "d"}
    return key, {**value, "payload": {**value["payload"], "after": after}}


def renamed(log: Log, topic: str, prefix: str, wanted: str) -> list[tuple[Any, Any]]:
    """The events of ``topic`` as if written with topic prefix ``wanted`` instead of ``prefix``."""
    return [
        tuple(  # type: ignore[misc]
            None if data is None else json.loads(data.decode().replace(prefix, wanted))
            for data in (r.key, r.value)
        )
        for r in read_topic(log, topic)
    ]


BIT_STRING_ARRAYS = ("b3s", "b1s", "vbs")
"""``extras``' bit string arrays: Debezium writes a ``bit(n)[]`` as a single null ``Bits`` (a boolean for
``bit(1)[]``) and leaves out a ``bit varying[]``, Conveyor their elements (a difference on purpose, in
docs/postgres.md)."""


def without_bit_string_arrays(event: tuple[Any, Any]) -> tuple[Any, Any]:
    """``extras``' event without its bit string arrays, in the schema and the payload."""
    key, value = event
    if value is None:
        return event
    payload = payload_without(value["payload"], BIT_STRING_ARRAYS)
    fields = [
        {**field, "fields": [f for f in field["fields"] if f["field"] not in BIT_STRING_ARRAYS]}
        if field["field"] in ("before", "after")
        else field
        for field in value["schema"]["fields"]
    ]
    return key, {"schema": {**value["schema"], "fields": fields}, "payload": payload}


SAME_BUT = {
    "nans": without_special_numeric_arrays,
    "eras": without_snapshot_bc_dates,
    "extras": without_bit_string_arrays,
}
"""Per table, its events without the fields that differ from Debezium's on purpose."""


@pytest.mark.timeout(900)
def test_every_mapped_type_is_written_as_debezium_writes_it_in_each_mode(
    tmp_path: Path, database: PostgresAddress, kafka_bootstrap: str
) -> None:
    """Intervals, times of every precision, floats with NaN and infinities, huge and unconstrained
    numerics, arrays with NULL elements, empty bytes, enums, JSON, uuid, inet, far dates, xml, real, money
    and bits, under each ``time.precision.mode`` and ``decimal.handling.mode``: Conveyor's snapshot (the
    JSON PostgreSQL writes, and the Connect value path) and stream give Debezium's events."""
    execute(
        database,
        KINDS_TABLE,
        EXTRAS_TABLE,
        NANS_TABLE,
        ERAS_TABLE,
        f"INSERT INTO kinds VALUES (1, {KINDS_ROW.format(d=NAN)})",
        "INSERT INTO kinds (id) VALUES (2)",
        f"INSERT INTO extras VALUES (1, {EXTRAS_ROW.format(r=3.14)})",
        "INSERT INTO extras (id) VALUES (2)",
        f"INSERT INTO nans VALUES (1, {NANS_ROW})",
        "INSERT INTO nans (id) VALUES (2)",
        f"INSERT INTO eras VALUES {', '.join(f'({n}, {row})' for n, row in enumerate(ERAS_ROWS, 1))}",
        # Made before the connectors start, which would otherwise race to create it.
        "CREATE PUBLICATION dbz_publication FOR ALL TABLES",
    )
    suffix = uuid.uuid4().hex[:8]
    settings = debezium_worker_settings(kafka_bootstrap, suffix)
    # A JsonConverter option that changes nothing here keeps Conveyor's snapshot on the Connect value path.
    value_path = {"value.converter.replace.null.with.default": "false"}
    pairs = []
    for n, (time_mode, decimal_mode) in enumerate(MODES):
        tables = ["kinds", "extras"] + (["nans"] if decimal_mode != "precise" else [])
        tables += ["eras"] if time_mode != "connect" else []
        modes = {
            "time.precision.mode": time_mode,
            "decimal.handling.mode": decimal_mode,
            "table.include.list": ",".join(f"public.{t}" for t in tables),
        }
        prefix, cursor_prefix = f"kinds{n}x{suffix}", f"kcurs{n}x{suffix}"
        for topic in (f"{p}.public.{t}" for p in (prefix, cursor_prefix) for t in tables):
            create_topic(kafka_bootstrap, topic)
        pairs.append((n, prefix, cursor_prefix, tables, modes))
    with (
        KafkaConnect(tmp_path / "kafka-connect", settings) as kafka_connect,
        running_worker(tmp_path / "conveyor") as worker,
        rest_client(worker) as client,
        open_log(f"kafka://{kafka_bootstrap}") as kafka,
    ):
        for n, prefix, _, _, modes in pairs:
            created = httpx.post(
                f"{kafka_connect.url}/connectors",
                json={
                    "name": f"debezium{n}",
                    "config": {**config(database, prefix, f"dbz{n}_{suffix}"), **modes},
                },
                timeout=60,
            )
            assert created.status_code == 201, created.text
        for n, prefix, cursor_prefix, _, modes in pairs:
            create_connector(client, f"fast{n}", {**config(database, prefix, f"cvy{n}_{suffix}"), **modes})
            create_connector(
                client,
                f"values{n}",
                {**config(database, cursor_prefix, f"cur{n}_{suffix}"), **modes, **value_path},
            )

        def outputs(count: int) -> list[tuple[str, list[Any], list[Any], list[Any]]] | None:
            found = []
            for _, prefix, cursor_prefix, tables, _ in pairs:
                for table in tables:
                    topic = f"{prefix}.public.{table}"
                    debezium = decoded(kafka, topic)
                    fast = decoded(worker.log, topic)
                    values = renamed(worker.log, f"{cursor_prefix}.public.{table}", cursor_prefix, prefix)
                    wanted = len(ERAS_ROWS) * count // 2 if table == "eras" else count
                    if min(len(debezium), len(fast), len(values)) < wanted:
                        return None
                    found.append((topic, debezium, fast, values))
            return found

        try:
            wait_until(lambda: outputs(2), "every snapshot", DEADLINE_S * 2)
        except AssertionError as error:
            statuses = {
                name: client.get(f"/connectors/{name}/status").text
                for n in range(len(MODES))
                for name in (f"fast{n}", f"values{n}")
            }
            raise AssertionError(
                f"{error}\nConveyor: {statuses}\nKafka Connect's output:\n{kafka_connect.output[-3000:]}"
            ) from None
        execute(
            database,
            f"INSERT INTO kinds VALUES (3, {KINDS_ROW.format(d=MINUS_INFINITY)})",
            "UPDATE kinds SET d = 1e300, span = '-3 days 01:00', zone = '23:00-05', t6 = NULL, "
            "endless = '-infinity' WHERE id = 3",
            f"INSERT INTO extras VALUES (3, {EXTRAS_ROW.format(r=MINUS_INFINITY)})",
            "UPDATE extras SET cash = -1.5, b8 = '00000001', rs = NULL WHERE id = 3",
            f"INSERT INTO nans VALUES (3, {NANS_ROW})",
            "UPDATE nans SET n = 'Infinity', ns = ARRAY['-Infinity']::numeric[] WHERE id = 3",
            f"INSERT INTO eras VALUES {', '.join(f'({n}, {row})' for n, row in enumerate(ERAS_ROWS, 11))}",
        )
        everything = wait_until(lambda: outputs(4), "every change", DEADLINE_S)
    found = [
        f"{topic} {path} event {n}: {difference}"
        for topic, debezium, fast, values in everything
        for path, conveyor in (("fast", fast), ("values", values))
        for same in [SAME_BUT.get(topic.rsplit(".", 1)[1], lambda event: event)]
        for n, (left, right) in enumerate(zip(debezium, conveyor, strict=False))
        for difference in differences(*(same(comparable(event)) for event in (left, right)))
    ]
    counts = {topic: (len(d), len(f), len(v)) for topic, d, f, v in everything}
    assert all(len(set(c)) == 1 for c in counts.values()), counts
    assert found == [], "\n".join(found)
    first_bc_dates = {
        (path, events[0][1]["payload"]["after"]["d"])
        for topic, *outputs in everything
        if topic.endswith(".eras")
        for path, events in zip(("debezium", "fast", "values"), outputs, strict=True)
    }
    bit_arrays = {
        (path, json.dumps([event[1]["payload"]["after"].get(name, "absent") for name in BIT_STRING_ARRAYS]))
        for topic, *outputs in everything
        if topic.endswith(".extras")
        for path, events in zip(("debezium", "fast", "values"), outputs, strict=True)
        for event in events
        if event[1] is not None and event[1]["payload"]["after"] and event[1]["payload"]["after"]["id"] != 2
    }
    written_bits = json.dumps([["BQ==", None, "Aw=="], [True, None, False], ["AQ==", None, "", "AgE="]])
    debezium_bits = json.dumps([None, None, "absent"])
    assert bit_arrays == {("debezium", debezium_bits), ("fast", written_bits), ("values", written_bits)}
    # 4713-01-01 BC: Debezium's snapshot writes the day of 4713-01-01 AD, Conveyor the real day.
    assert first_bc_dates == {("debezium", 1001860), ("fast", -2440550), ("values", -2440550)}

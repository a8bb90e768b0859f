"""CPU time per record of the PostgreSQL CDC source's snapshot in process: the task polled and its records
converted by the record pipeline with JsonConverter keys and values (Debezium's usual config), no runtime,
no log. Beside it, psycopg2's ``COPY ... TO STDOUT`` of the same table, same server, same run.

Two task runs: the task told that its records reach JsonConverters with no transforms (the records then
carry the converters' bytes, built from the JSON PostgreSQL writes), and told nothing (Connect values
converted by the pipeline, the path every other configuration takes).

    .venv/bin/python bench/cdc_snapshot_task_bench.py [--rows N] [--repeat R] [--typed]

``--typed`` adds the columns most tables have beside text: a timestamp, a timestamptz, a date, a double
and a numeric(12, 2) (Debezium's defaults: adaptive times, precise decimals).
"""

from __future__ import annotations

import argparse
import io
import os
import time
import uuid
from collections.abc import Mapping
from typing import Any

from conveyor.api import OffsetStorageReader, SourceTaskContext
from conveyor.connectors.postgres.cdc_source import PostgresCdcSourceTask
from conveyor.connectors.postgres.connection import PostgresAddress, connect
from conveyor.convert import JsonConverter, SimpleHeaderConverter
from conveyor.pipeline.error_handling import ErrorHandler, ErrorPolicy
from conveyor.pipeline.record_pipeline import RecordPipeline
from conveyor.postgres_server import PostgresServer
from conveyor.transforms import TransformationChain

NOTE = 180
ENCODINGS = [False, True]


class _Offsets(OffsetStorageReader):
    def offset(self, partition: Mapping[str, Any]) -> Mapping[str, Any] | None:
        return None

    def offsets(
        self, partitions: list[Mapping[str, Any]]
    ) -> list[tuple[Mapping[str, Any], Mapping[str, Any] | None]]:
        return [(partition, None) for partition in partitions]


class _Context(SourceTaskContext):
    def __init__(self, configs: Mapping[str, str], encoded: bool) -> None:
        self._configs = dict(configs)
        self._encoded = encoded

    def configs(self) -> Mapping[str, str]:
        return self._configs

    def offset_storage_reader(self) -> OffsetStorageReader:
        return _Offsets()

    def writes_json_unchanged(self) -> bool:
        return self._encoded


def _pipeline() -> RecordPipeline:
    key, value = JsonConverter(), JsonConverter()
    key.configure({}, True)
    value.configure({}, False)
    errors = ErrorHandler(ErrorPolicy(), "bench", 0)
    return RecordPipeline(key, value, SimpleHeaderConverter(), TransformationChain(), errors)


def run_task(database: PostgresAddress, table: str, rows: int, encoded: bool) -> tuple[float, float, int]:
    """Wall and CPU seconds of one snapshot of ``table``, polled and converted; bytes written."""
    prefix = f"b{uuid.uuid4().hex[:8]}"
    config = {
        "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
        "database.hostname": database.host,
        "database.port": str(database.port),
        "database.user": str(database.user),
        "database.password": str(database.password),
        "database.dbname": database.dbname,
        "topic.prefix": prefix,
        "slot.name": f"{prefix}_slot",
        "slot.drop.on.stop": "true",
        "publication.name": f"{prefix}_publication",
        "publication.autocreate.mode": "filtered",
        "table.include.list": f"public.{table}",
        "snapshot.mode": "initial_only",
    }
    task = PostgresCdcSourceTask()
    task.initialize(_Context(config, encoded))
    pipeline = _pipeline()
    task.start(config)
    count, written = 0, 0
    wall, cpu = time.perf_counter(), time.process_time()
    try:
        while count < rows:
            polled = task.poll() or []
            for batch in pipeline.to_log(polled):
                if batch.topic.startswith(prefix + ".public"):
                    count += len(batch.values)
                    written += sum(
                        len(value or b"") + len(key or b"")
                        for key, value in zip(batch.keys, batch.values, strict=True)
                    )
        return time.perf_counter() - wall, time.process_time() - cpu, written
    finally:
        task.stop()


def copy_out(database: PostgresAddress, table: str) -> float:
    connection = connect(database)
    started = time.perf_counter()
    try:
        with connection.cursor() as cursor:
            cursor.copy_expert(f"COPY {table} TO STDOUT", io.BytesIO())
    finally:
        connection.close()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--typed", action="store_true", help="add timestamp, date, float and numeric columns")
    arguments = parser.parse_args()
    rows = arguments.rows
    shape = "with timestamps, a date, a double and a numeric" if arguments.typed else "of integers and text"
    print(f"snapshot of {rows:,} rows {shape} in process; load average {os.getloadavg()[0]:.1f}", flush=True)
    with PostgresServer() as server:
        admin = connect(PostgresAddress(server.host, server.port, "postgres", server.user, server.password))
        admin.autocommit = True
        admin.cursor().execute("CREATE DATABASE bench")
        admin.close()
        database = PostgresAddress(server.host, server.port, "bench", server.user, server.password)
        connection = connect(database, autocommit=True)
        with connection.cursor() as cursor:
            typed_columns, typed_values = "", ""
            if arguments.typed:
                typed_columns = (
                    ", at timestamp NOT NULL, zoned timestamptz, born date, ratio double precision, "
                    "amount numeric(12, 2)"
                )
                typed_values = (
                    ", timestamp '2024-01-01' + n * interval '1.234567 second', "
                    "timestamptz '2024-01-01 00:00:00+00' - n * interval '1 minute', "
                    "date '2000-01-01' + n % 9000, n / 7.0, n * 1.25"
                )
            cursor.execute(
                "CREATE TABLE snap (id bigint PRIMARY KEY, writer integer NOT NULL, "
                f"version integer NOT NULL, note text NOT NULL{typed_columns})"
            )
            cursor.execute(
                f"INSERT INTO snap SELECT n, 0, 0, repeat(md5(n::text), 6)::varchar({NOTE}){typed_values} "
                f"FROM generate_series(1, {rows}) AS n"
            )
            cursor.execute("VACUUM ANALYZE snap")
        connection.close()
        copy_out(database, "snap")
        for _ in range(arguments.repeat):
            seconds = copy_out(database, "snap")
            print(f"  COPY ... TO STDOUT          {rows / seconds:>12,.0f} rows/s", flush=True)
            for encoded in ENCODINGS:
                wall, cpu, written = run_task(database, "snap", rows, encoded)
                label = "JSON from PostgreSQL" if encoded else "Connect values, converted"
                print(
                    f"  task + converters, {label:26s} {rows / wall:>10,.0f} records/s  "
                    f"{cpu / rows * 1e6:6.2f} CPU us/record  {written / rows:,.0f} bytes/record  "
                    f"(load {os.getloadavg()[0]:.1f})",
                    flush=True,
                )


if __name__ == "__main__":
    main()

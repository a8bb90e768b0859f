"""Rows per second into Parquet, Delta and Iceberg tables: the SparkFileSink connector from a Conveyor
topic, against plain Spark Structured Streaming reading the same JSON records from files into Parquet.
Goal: the connector into Parquet at 80% or more.

Run: ``.venv/bin/python bench/spark_sink_bench.py [--records N] [--partitions P] [--rounds R]
[--targets parquet,delta,iceberg]``. A table format runs only on a Spark its release runs on
(``conveyor.spark.table_formats``; Delta: put pyspark 4.2 first on ``PYTHONPATH``, e.g. the one the tests
install in ``~/.cache/conveyor/pyspark-4.2.1/site``); others are reported with the reason. The same
N records, JsonConverter envelopes as a Connect source writes them (schema and payload, about 340 bytes),
are

(a) in a topic of P partitions, delivered by a ``SparkFileSink`` connector created through the REST API
    of a standalone worker, into each target (Parquet files, a Delta table by path, an Iceberg table of
    the worker's catalog), and
(b) in P JSON-lines files, read by ``spark.readStream.json`` with the envelope's schema and written with
    ``payload.*`` to Parquet in one ``availableNow`` run.

Two figures for each, both in rows per second: end to end, (a) from the create request until the
query has read every record (its task metrics), (b) from ``start()`` until the query ends; and the
query alone, Spark's own measure: rows over the ``triggerExecution`` time of the micro-batches that
carried them (for (a) the task's ``rows-read`` over its ``processing-time-ms``). That leaves out
starting the query, which for (a) includes the query's builder and the Python process that plans a
Python streaming source's batches, forked from the driver's planner server (which the warm-up's query
starts), paid once per connector start. Both run on one SparkSession
(``local[P]``) after a warm-up, alternately, R rounds; the best round of each counts. Each round's
figures and ratios are printed too, and the median of the rounds' end-to-end ratios, which a loaded
machine moves less than the best rounds.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from pyspark.sql import SparkSession

from conveyor.cli.worker_process import StandaloneWorker
from conveyor.convert.json_converter import JsonConverter
from conveyor.data import OPTIONAL_FLOAT64_SCHEMA, OPTIONAL_STRING_SCHEMA, Schema, SchemaBuilder, Struct, Type
from conveyor.metrics.status import State
from conveyor.runtime.task_spec import TaskId
from conveyor.settings.worker_config import WorkerConfig
from conveyor.spark.session import get_or_create_session
from conveyor.spark.table_formats import TABLE_FORMATS, TableFormatError, resolve, session_conf

ORDER = (
    SchemaBuilder.struct()
    .name("order")
    .field("id", Schema(Type.INT64))
    .field("customer", OPTIONAL_STRING_SCHEMA)
    .field("amount", OPTIONAL_FLOAT64_SCHEMA)
    .field("status", OPTIONAL_STRING_SCHEMA)
    .build()
)
ENVELOPE_DDL = "payload struct<id:bigint,customer:string,amount:double,status:string>"
BATCH = 5000


@dataclass(frozen=True)
class Run:
    """One delivery's rows per second: end to end, and by the query's own measure."""

    end_to_end: float
    query: float

    @staticmethod
    def best(runs: list[Run]) -> Run:
        return Run(max(r.end_to_end for r in runs), max(r.query for r in runs))


def envelopes(start: int, stop: int) -> list[bytes | None]:
    """Orders ``start`` to ``stop`` as the JsonConverter writes them (what a Connect source would store)."""
    converter = JsonConverter()
    converter.configure({"schemas.enable": "true"}, is_key=False)
    orders = [
        Struct.unchecked(ORDER, [i, f"customer-{i % 1000}", i * 0.25, "NEW"]) for i in range(start, stop)
    ]
    return converter.from_connect_batch("orders", ORDER, orders)


def fill_topic(worker: StandaloneWorker, topic: str, records: int, partitions: int) -> None:
    worker.log.admin().create_topic(topic, partitions=partitions)
    with worker.log.producer() as producer:
        for start in range(0, records, BATCH):
            values = envelopes(start, min(start + BATCH, records))
            producer.send_batch(topic, values, partition=(start // BATCH) % partitions)


def fill_files(directory: Path, records: int, partitions: int) -> None:
    directory.mkdir(parents=True)
    files = [(directory / f"part-{p}.json").open("wb") for p in range(partitions)]
    for start in range(0, records, BATCH):
        lines = b"".join(value + b"\n" for value in envelopes(start, min(start + BATCH, records)) if value)
        files[(start // BATCH) % partitions].write(lines)
    for file in files:
        file.close()


def _query_rate(progress: list[dict[str, Any]]) -> float:
    """Rows per second over the micro-batches that read rows, by Spark's ``triggerExecution`` times."""
    batches = [p for p in progress if p["numInputRows"]]
    rows = sum(p["numInputRows"] for p in batches)
    millis = sum(p["durationMs"]["triggerExecution"] for p in batches)
    return rows / (millis / 1000)


def target_config(target: str, output: Path, name: str) -> dict[str, str]:
    """Where the connector writes: files or a Delta table at ``output``, or an Iceberg table."""
    if target == "iceberg":
        return {
            "format": target,
            "table": f"bench.{name.replace('-', '_')}",
            "checkpoint.location": str(output),
        }
    return {"format": target, "path": str(output)}


def connector_run(
    worker: StandaloneWorker, name: str, topic: str, output: Path, records: int, target: str = "parquet"
) -> Run:
    """Create the connector and wait until its query has read ``records`` rows."""
    config = {
        "connector.class": "SparkFileSink",
        "topics": topic,
        "trigger.interval.ms": "0",
        **target_config(target, output, name),
    }
    with httpx.Client(base_url=worker.url, timeout=60.0) as client:
        began = time.perf_counter()
        response = client.post("/connectors", json={"name": name, "config": config})
        assert response.status_code == 201, response.text
        task = TaskId(name, 0)
        while worker.runner.metrics(task).get("rows-read", 0) < records:
            if worker.herder is not None and worker.herder.worker.task_state(task) is State.FAILED:
                raise RuntimeError(client.get(f"/connectors/{name}/status").text)
            time.sleep(0.01)
        elapsed = time.perf_counter() - began
        metrics = worker.runner.metrics(task)
        client.delete(f"/connectors/{name}")
    return Run(records / elapsed, metrics["rows-read"] / (metrics["processing-time-ms"] / 1000))


def plain_spark_run(spark: SparkSession, source: Path, output: Path, checkpoint: Path, records: int) -> Run:
    """Plain Spark Structured Streaming turning the JSON files into Parquet."""
    began = time.perf_counter()
    query = (
        spark.readStream.schema(ENVELOPE_DDL)
        .json(str(source))
        .select("payload.*")
        .writeStream.format("parquet")
        .option("path", str(output))
        .option("checkpointLocation", str(checkpoint))
        .trigger(availableNow=True)
        .start()
    )
    query.awaitTermination()
    elapsed = time.perf_counter() - began
    return Run(records / elapsed, _query_rate(query.recentProgress))


def parquet_rows(spark: SparkSession, path: Path) -> int:
    return spark.read.parquet(str(path)).count()


def target_rows(spark: SparkSession, target: str, output: Path, name: str) -> int:
    if target == "iceberg":
        return spark.table(f"iceberg.bench.{name.replace('-', '_')}").count()
    return spark.read.format(target).load(str(output)).count()


def loadable(targets: list[str]) -> tuple[list[str], dict[str, str]]:
    """The targets this Spark can write, and the reason for each it cannot."""
    runnable, reasons = [], {}
    for target in targets:
        try:
            resolve([target] if target in TABLE_FORMATS else [])
            runnable.append(target)
        except TableFormatError as error:
            reasons[target] = str(error)
    return runnable, reasons


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--partitions", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--targets", default="parquet,delta,iceberg")
    args = parser.parse_args()
    targets, skipped = loadable([t.strip() for t in args.targets.split(",") if t.strip()])
    formats = [t for t in targets if t in TABLE_FORMATS]
    root = Path(tempfile.mkdtemp(prefix="conveyor-spark-sink-bench-"))
    props = {
        "data.dir": str(root / "worker"),
        "listeners": "http://127.0.0.1:0",
        "table.formats": ",".join(formats),
    }
    spark = get_or_create_session(
        f"local[{args.partitions}]", conf=session_conf({}, formats, root / "worker" / "iceberg")
    )
    worker = StandaloneWorker(
        WorkerConfig.from_props(
            props
            | {
                "key.converter": "org.apache.kafka.connect.storage.StringConverter",
                "value.converter": "org.apache.kafka.connect.json.JsonConverter",
                "value.converter.schemas.enable": "true",
            }
        )
    )
    worker.start()
    connector: dict[str, list[Run]] = {target: [] for target in targets}
    plain: list[Run] = []
    try:
        fill_topic(worker, "warmup", 20_000, args.partitions)
        fill_files(root / "warmup-files", 20_000, args.partitions)
        connector_run(worker, "warmup", "warmup", root / "warmup-out-a", 20_000)
        plain_spark_run(spark, root / "warmup-files", root / "warmup-out-b", root / "warmup-cp", 20_000)

        fill_topic(worker, "orders", args.records, args.partitions)
        fill_files(root / "files", args.records, args.partitions)
        for round_ in range(args.rounds):
            for target in targets:
                name, out_a = f"orders-{target}-{round_}", root / f"out-a-{target}-{round_}"
                connector[target].append(connector_run(worker, name, "orders", out_a, args.records, target))
                assert target_rows(spark, target, out_a, name) == args.records
            out_b = root / f"out-b-{round_}"
            plain.append(plain_spark_run(spark, root / "files", out_b, root / f"cp-b-{round_}", args.records))
            assert parquet_rows(spark, out_b) == args.records
            for target in targets:
                a, b = connector[target][-1], plain[-1]
                print(
                    f"round {round_}: {target} {a.end_to_end:,.0f} / {a.query:,.0f}, "
                    f"plain {b.end_to_end:,.0f} / {b.query:,.0f}: "
                    f"end to end {a.end_to_end / b.end_to_end:.0%}, query {a.query / b.query:.0%}",
                    flush=True,
                )
    finally:
        worker.stop()
    best_b = Run.best(plain)
    print(f"{args.records:,} records, {args.partitions} partitions, best of {args.rounds} rounds (rows/s)")
    print(f"{'':46}{'end to end':>14}{'query alone':>14}")
    for target in targets:
        best_a = Run.best(connector[target])
        label = f"(a) SparkFileSink, topic -> {target}"
        print(f"{label:46}{best_a.end_to_end:>14,.0f}{best_a.query:>14,.0f}")
        ratio_e2e, ratio_query = best_a.end_to_end / best_b.end_to_end, best_a.query / best_b.query
        print(
            f"{'    /(b)' + (' (goal: 80% or more)' if target == 'parquet' else ''):46}"
            f"{ratio_e2e:>14.0%}{ratio_query:>14.0%}"
        )
    label = "(b) Spark Structured Streaming, JSON -> parquet"
    print(f"{label:46}{best_b.end_to_end:>14,.0f}{best_b.query:>14,.0f}")
    for target in targets:
        ratios = sorted(a.end_to_end / b.end_to_end for a, b in zip(connector[target], plain, strict=True))
        print(f"{target}: median end-to-end ratio of the rounds {ratios[len(ratios) // 2]:.0%}")
    for target, reason in skipped.items():
        print(f"{target}: not run: {reason}")


if __name__ == "__main__":
    main()

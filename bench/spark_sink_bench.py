"""Rows per second into Parquet: the SparkFileSink connector from a Conveyor topic, against plain Spark
Structured Streaming reading the same JSON records from files. Goal: the connector at 80% or more.

Run: ``.venv/bin/python bench/spark_sink_bench.py [--records N] [--partitions P]``. The same N records,
JsonConverter envelopes (schema and payload, about 250 bytes each), are

(a) in a topic of P partitions, delivered by a ``SparkFileSink`` connector created through the REST API
    of a standalone worker; timed from the create request until the query has read every record
    (its task metrics), and
(b) in P JSON-lines files, read by ``spark.readStream.json`` with the envelope's schema and written with
    ``payload.*`` to Parquet in one ``availableNow`` run; timed from ``start()`` to its end.

Both run in one process on one SparkSession (``local[P]``) after a warm-up; start-up is not counted.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import httpx
from pyspark.sql import SparkSession

from conveyor.cli.worker_process import StandaloneWorker
from conveyor.convert.json_converter import JsonConverter
from conveyor.data import OPTIONAL_FLOAT64_SCHEMA, OPTIONAL_STRING_SCHEMA, Schema, SchemaBuilder, Struct, Type
from conveyor.runtime.status import State
from conveyor.runtime.task_spec import TaskId
from conveyor.runtime.worker_config import WorkerConfig
from conveyor.spark.session import get_or_create_session

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


def envelopes(start: int, stop: int) -> list[bytes | None]:
    """Orders ``start`` to ``stop`` as the JsonConverter writes them (what a Connect source would store)."""
    converter = JsonConverter()
    converter.configure({"schemas.enable": "true"}, is_key=False)
    orders = [
        Struct.unchecked(ORDER, [i, f"customer-{i % 1000}", i * 0.25, "NEW"])
        for i in range(start, stop)
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


def connector_run(worker: StandaloneWorker, name: str, topic: str, output: Path, records: int) -> float:
    """Seconds from creating the connector until its query has read ``records`` rows."""
    config = {
        "connector.class": "SparkFileSink",
        "topics": topic,
        "path": str(output),
        "trigger.interval.ms": "0",
    }
    with httpx.Client(base_url=worker.url, timeout=60.0) as client:
        began = time.perf_counter()
        response = client.post("/connectors", json={"name": name, "config": config})
        assert response.status_code == 201, response.text
        task = TaskId(name, 0)
        while worker.executor.metrics(task).get("rows-read", 0) < records:
            if worker.herder is not None and worker.herder.worker.task_state(task) is State.FAILED:
                raise RuntimeError(client.get(f"/connectors/{name}/status").text)
            time.sleep(0.01)
        elapsed = time.perf_counter() - began
        client.delete(f"/connectors/{name}")
    return elapsed


def plain_spark_run(spark: SparkSession, source: Path, output: Path, checkpoint: Path) -> float:
    """Seconds for plain Spark Structured Streaming to turn the JSON files into Parquet."""
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
    return time.perf_counter() - began


def parquet_rows(spark: SparkSession, path: Path) -> int:
    return spark.read.parquet(str(path)).count()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=500_000)
    parser.add_argument("--partitions", type=int, default=2)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="conveyor-spark-sink-bench-"))
    spark = get_or_create_session(f"local[{args.partitions}]")
    props = {"data.dir": str(root / "worker"), "listeners": "http://127.0.0.1:0"}
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
    try:
        fill_topic(worker, "warmup", 20_000, args.partitions)
        fill_files(root / "warmup-files", 20_000, args.partitions)
        connector_run(worker, "warmup", "warmup", root / "warmup-out-a", 20_000)
        plain_spark_run(spark, root / "warmup-files", root / "warmup-out-b", root / "warmup-cp")

        fill_topic(worker, "orders", args.records, args.partitions)
        fill_files(root / "files", args.records, args.partitions)
        connector_s = connector_run(worker, "orders-parquet", "orders", root / "out-a", args.records)
        plain_s = plain_spark_run(spark, root / "files", root / "out-b", root / "cp-b")
        assert parquet_rows(spark, root / "out-a") == args.records
        assert parquet_rows(spark, root / "out-b") == args.records
    finally:
        worker.stop()
    connector_rate, plain_rate = args.records / connector_s, args.records / plain_s
    print(f"(a) SparkFileSink from a Conveyor topic: {connector_rate:>10,.0f} rows/s ({connector_s:.2f} s)")
    print(f"(b) Spark Structured Streaming from JSON: {plain_rate:>10,.0f} rows/s ({plain_s:.2f} s)")
    print(f"(a)/(b) = {connector_rate / plain_rate:.0%} (goal: 80% or more) for {args.records:,} rows")


if __name__ == "__main__":
    main()

"""The conveyor Spark data source reading a Kafka topic beside Spark's own Kafka source, in one run.

Both read the same topic (N records of ``--size`` bytes in ``--partitions`` partitions, written without
transactions) under read_committed, with the same job (``count(1)``, ``sum(length(value))``, ``max(offset)``:
every row's value and offset reach Spark), in one SparkSession of ``local[P]``; the two sources take turns,
and each figure is the median of ``--rounds`` runs after one unreported warm-up run of each.

Spark's Kafka source is ``spark-sql-kafka-0-10_<scala>`` fetched from Maven Central through
``spark.jars.packages`` into ``$CONVEYOR_KAFKA_CACHE/spark-ivy`` (``~/.cache/conveyor/spark-ivy``),
outside the repository. Its version should be the installed pyspark's, but Maven Central serves no
Spark 4.3.0 artifacts (checked 2026-11-23; its newest spark-sql-kafka is 4.2.0), so the default is
``SPARK_KAFKA_VERSION``, which Spark 4.3.0 runs; ``--spark-kafka-version`` picks another. Starts a
broker with ``conveyor.kafka_broker`` unless ``CONVEYOR_KAFKA_BOOTSTRAP`` names one.

    .venv/bin/python bench/spark_kafka_source_bench.py [--records N] [--size BYTES] [--partitions P]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
import uuid
from collections.abc import Callable

import pyspark
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic
from pyspark.sql import DataFrame, SparkSession

from conveyor.kafka_broker.fetch import default_cache_dir
from conveyor.spark.datasource import register
from conveyor.spark.session import get_or_create_session
from kafka_bench import broker

SCALA_BINARY = "2.13"
"""The Scala version of the installed pyspark's jars (``scala-library-2.13.*``)."""

SPARK_KAFKA_VERSION = "4.2.0"
"""The newest spark-sql-kafka that Maven Central serves (the installed pyspark is 4.3.0)."""


def fill(bootstrap: str, topic: str, records: int, size: int, partitions: int) -> None:
    """``records`` values of ``size`` bytes, spread evenly over the partitions, without transactions."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, partitions, 1)])[topic].result()
    producer = Producer(
        {"bootstrap.servers": bootstrap, "linger.ms": 20, "batch.size": 1 << 20, "compression.type": "none"}
    )
    value = os.urandom(size)
    per_call = 10_000
    for start in range(0, records, per_call):
        count = min(per_call, records - start)
        messages = [{"value": value, "partition": (start + i) % partitions} for i in range(count)]
        while messages:
            producer.produce_batch(topic, messages)
            messages = [{"value": value, "partition": m["partition"]} for m in messages if "_error" in m]
            producer.poll(0)
            if messages:
                producer.flush(1)
    producer.flush()


def session(spark_kafka_version: str, partitions: int) -> SparkSession:
    package = f"org.apache.spark:spark-sql-kafka-0-10_{SCALA_BINARY}:{spark_kafka_version}"
    spark = get_or_create_session(
        f"local[{partitions}]",
        app_name="conveyor-spark-kafka-bench",
        conf={
            "spark.jars.packages": package,
            "spark.jars.ivy": str(default_cache_dir() / "spark-ivy"),
        },
    )
    register(spark)
    return spark


def conveyor_frame(spark: SparkSession, bootstrap: str, topic: str) -> DataFrame:
    return (
        spark.read.format("conveyor")
        .option("log.url", f"kafka://{bootstrap}")
        .option("subscribe", topic)
        .load()
    )


def spark_kafka_frame(spark: SparkSession, bootstrap: str, topic: str) -> DataFrame:
    return (
        spark.read.format("kafka")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("kafka.isolation.level", "read_committed")
        .option("subscribe", topic)
        .option("startingOffsets", "earliest")
        .load()
    )


def scan(frame: DataFrame, records: int) -> Callable[[], float]:
    """A timed run of the job, checking that it saw every record."""

    def run() -> float:
        started = time.perf_counter()
        ((total, _, _),) = frame.selectExpr("count(1)", "sum(length(value))", "max(offset)").collect()
        seconds = time.perf_counter() - started
        assert total == records, f"read {total} records of {records}"
        return seconds

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--size", type=int, default=100)
    parser.add_argument("--partitions", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--spark-kafka-version", default=SPARK_KAFKA_VERSION)
    arguments = parser.parse_args()
    with broker() as bootstrap:
        topic = f"spark-kafka-bench-{uuid.uuid4().hex[:8]}"
        began = time.perf_counter()
        fill(bootstrap, topic, arguments.records, arguments.size, arguments.partitions)
        filled = time.perf_counter() - began
        spark = session(arguments.spark_kafka_version, arguments.partitions)
        jobs = {
            "conveyor data source (kafka://)": scan(
                conveyor_frame(spark, bootstrap, topic), arguments.records
            ),
            f"Spark's Kafka source ({arguments.spark_kafka_version})": scan(
                spark_kafka_frame(spark, bootstrap, topic), arguments.records
            ),
        }
        for job in jobs.values():
            job()  # warm-up: JVM, Python workers, connections
        seconds: dict[str, list[float]] = {name: [] for name in jobs}
        for round_number in range(arguments.rounds):
            order = list(jobs) if round_number % 2 == 0 else list(reversed(jobs))
            for name in order:
                seconds[name].append(jobs[name]())
    rates = {name: arguments.records / statistics.median(runs) for name, runs in seconds.items()}
    print(
        f"{arguments.records:,} records of {arguments.size} B in {arguments.partitions} partitions "
        f"(written in {filled:.1f} s), pyspark {pyspark.__version__}, local[{arguments.partitions}], "
        f"read_committed; median of {arguments.rounds} runs"
    )
    for name, rate in rates.items():
        runs = ", ".join(f"{s:.2f}" for s in seconds[name])
        print(f"  {name:42s} {rate:>12,.0f} records/s   (runs: {runs} s)")
    ours, theirs = rates.values()
    print(f"  conveyor at {ours / theirs:.0%} of Spark's Kafka source")


if __name__ == "__main__":
    main()

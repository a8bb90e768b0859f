"""Records per second through the conveyor Spark data source: a batch read and a batch write.

Run: ``.venv/bin/python bench/spark_source_bench.py [--records N] [--partitions P]``. The read is
timed as a Spark job that scans every column (``sum(length(value))``), best of three; the write as a
DataFrame of the same size written to a fresh topic in P tasks. Session start-up is not counted.
Baselines from the same run: for the read, Spark reading the same values from text files with the same
job, and the data source's range reader alone in this process (no Spark); for the write, Spark writing
the same DataFrame as text files, and the log's ``send_batch`` of the same values in this process.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from pyspark.sql import SparkSession

from conveyor.log import Log, open_log
from conveyor.spark.datasource import register
from conveyor.spark.datasource.columns import record_schema
from conveyor.spark.datasource.options import parse_read_options
from conveyor.spark.datasource.planning import batch_bounds
from conveyor.spark.datasource.range_reader import RangeReader
from conveyor.spark.datasource.ranges import plan_ranges
from conveyor.spark.session import get_or_create_session

PAYLOAD = b"x" * 100
BATCH = 1000


def fill(log: Log, topic: str, records: int, partitions: int) -> None:
    log.admin().create_topic(topic, partitions=partitions)
    with log.producer() as producer:
        for start in range(0, records, BATCH):
            count = min(BATCH, records - start)
            producer.send_batch(topic, [PAYLOAD] * count, partition=(start // BATCH) % partitions)


def best_of(runs: int, job: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(runs):
        began = time.perf_counter()
        job()
        best = min(best, time.perf_counter() - began)
    return best


def bench_read(spark: SparkSession, url: str, records: int) -> float:
    frame = spark.read.format("conveyor").option("log.url", url).option("subscribe", "bench").load()
    return best_of(3, lambda: frame.selectExpr("sum(length(value))", "max(offset)").collect())


def bench_write(spark: SparkSession, url: str, log: Log, records: int, partitions: int) -> float:
    frame = spark.range(records, numPartitions=partitions).selectExpr("cast(id as string) AS value").cache()
    frame.count()
    runs = iter(range(100))

    def write() -> None:
        topic = f"written-{next(runs)}"
        log.admin().create_topic(topic, partitions=partitions)
        frame.write.format("conveyor").option("log.url", url).option("topic", topic).mode("append").save()

    return best_of(3, write)


def bench_text_read(spark: SparkSession, directory: Path, records: int, partitions: int) -> float:
    directory.mkdir()
    for part in range(partitions):
        count = records // partitions + (1 if part < records % partitions else 0)
        (directory / f"part-{part}.txt").write_bytes((PAYLOAD + b"\n") * count)
    frame = spark.read.text(str(directory))
    return best_of(3, lambda: frame.selectExpr("sum(length(value))", "count(1)").collect())


def bench_reader_alone(url: str, partitions: int) -> float:
    options = parse_read_options({"log.url": url, "subscribe": "bench"}, streaming=False)
    reader = RangeReader(options, record_schema(False))
    start, end = batch_bounds(options)
    ranges = plan_ranges(start, end)
    return best_of(3, lambda: [sum(b.num_rows for b in reader.read(r)) for r in ranges])


def bench_text_write(spark: SparkSession, directory: Path, records: int, partitions: int) -> float:
    frame = spark.range(records, numPartitions=partitions).selectExpr("cast(id as string) AS value").cache()
    frame.count()
    runs = iter(range(100))
    return best_of(3, lambda: frame.write.text(str(directory / f"run-{next(runs)}")))


def bench_send_batch(log: Log, records: int, partitions: int) -> float:
    values = [str(i).encode() for i in range(records)]
    runs = iter(range(100))

    def send() -> None:
        topic = f"appended-{next(runs)}"
        log.admin().create_topic(topic, partitions=partitions)
        with log.producer(transactional_id=topic) as producer:
            producer.init_transactions()
            producer.begin_transaction()
            for start in range(0, records, BATCH):
                producer.send_batch(
                    topic, values[start : start + BATCH], partition=(start // BATCH) % partitions
                )
            producer.commit_transaction()

    return best_of(3, send)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=300_000)
    parser.add_argument("--partitions", type=int, default=2)
    args = parser.parse_args()
    url = f"embedded:{tempfile.mkdtemp(prefix='conveyor-spark-bench-')}"
    spark = get_or_create_session(f"local[{args.partitions}]")
    register(spark)
    files = Path(tempfile.mkdtemp(prefix="conveyor-spark-bench-files-"))
    with open_log(url) as log:
        fill(log, "bench", args.records, args.partitions)
        figures = {
            "read through Spark": bench_read(spark, url, args.records),
            "  baseline: Spark reading text files": bench_text_read(
                spark, files / "in", args.records, args.partitions
            ),
            "  baseline: the range reader alone": bench_reader_alone(url, args.partitions),
            "write through Spark (exactly once)": bench_write(spark, url, log, args.records, args.partitions),
            "  baseline: Spark writing text files": bench_text_write(
                spark, files, args.records, args.partitions
            ),
            "  baseline: the log's send_batch alone": bench_send_batch(log, args.records, args.partitions),
        }
    print(f"{args.records:,} records of {len(PAYLOAD)} bytes, {args.partitions} partitions, best of 3")
    for name, seconds in figures.items():
        print(f"{name:42} {args.records / seconds:>12,.0f} records/s")


if __name__ == "__main__":
    main()

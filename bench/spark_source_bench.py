"""Records per second through the conveyor Spark data source: a batch read and a batch write.

Run: ``.venv/bin/python bench/spark_source_bench.py [--records N] [--partitions P]``. The read is
timed as a Spark job that scans every column (``sum(length(value))``), best of three; the write as a
DataFrame of the same size written to a fresh topic in P tasks. Session start-up is not counted.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable

from pyspark.sql import SparkSession

from conveyor.log import Log, open_log
from conveyor.spark.datasource import register
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=300_000)
    parser.add_argument("--partitions", type=int, default=2)
    args = parser.parse_args()
    url = f"embedded:{tempfile.mkdtemp(prefix='conveyor-spark-bench-')}"
    spark = get_or_create_session(f"local[{args.partitions}]")
    register(spark)
    with open_log(url) as log:
        fill(log, "bench", args.records, args.partitions)
        read_s = bench_read(spark, url, args.records)
        write_s = bench_write(spark, url, log, args.records, args.partitions)
    print(f"read : {args.records / read_s:>12,.0f} records/s ({read_s:.2f} s for {args.records:,})")
    print(f"write: {args.records / write_s:>12,.0f} records/s ({write_s:.2f} s for {args.records:,})")


if __name__ == "__main__":
    main()

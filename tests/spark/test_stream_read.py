"""``spark.readStream.format("conveyor")``: micro-batches of committed records, resumable from checkpoints."""

from __future__ import annotations

import itertools
from pathlib import Path

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.streaming import StreamingQuery

from conveyor.log import Log
from conveyor.spark.datasource import register

from .conftest import on_both_backends
from .records import aborted, committed, read_committed_values

_query_numbers = itertools.count()

pytestmark = on_both_backends


def stream(spark: SparkSession, log_url: str, topic: str, **options: str) -> DataFrame:
    return (
        spark.readStream.format("conveyor")
        .option("log.url", log_url)
        .option("subscribe", topic)
        .option("startingOffsets", "earliest")
        .options(**options)
        .load()
    )


def into_memory(frame: DataFrame, checkpoint: Path) -> tuple[StreamingQuery, str]:
    name = f"conveyor_stream_{next(_query_numbers)}"
    query = (
        frame.writeStream.format("memory")
        .queryName(name)
        .option("checkpointLocation", str(checkpoint))
        .start()
    )
    return query, name


def values_in(spark: SparkSession, table: str) -> list[bytes]:
    return sorted(bytes(row.value) for row in spark.table(table).collect())


def test_a_stream_returns_committed_records_as_they_commit_and_never_aborted_ones(
    spark: SparkSession, log: Log, log_url: str, topic: str, tmp_path: Path
) -> None:
    committed(log, topic, [b"a"], 0)
    aborted(log, topic, [b"x"], 0)
    query, table = into_memory(stream(spark, log_url, topic), tmp_path / "checkpoint")
    try:
        query.processAllAvailable()
        assert values_in(spark, table) == [b"a"]
        aborted(log, topic, [b"y"], 1)
        committed(log, topic, [b"b"], 1)
        query.processAllAvailable()
        assert values_in(spark, table) == [b"a", b"b"]
    finally:
        query.stop()


def test_max_records_per_trigger_bounds_every_micro_batch(
    spark: SparkSession, log: Log, log_url: str, topic: str, tmp_path: Path
) -> None:
    for partition in range(3):
        committed(log, topic, [b"%d-%d" % (partition, i) for i in range(10)], partition)
    frame = stream(spark, log_url, topic, maxRecordsPerTrigger="12")
    query, table = into_memory(frame, tmp_path / "checkpoint")
    try:
        query.processAllAvailable()
        sizes = [progress["numInputRows"] for progress in query.recentProgress if progress["numInputRows"]]
    finally:
        query.stop()
    assert sizes == [12, 12, 6]
    assert len(values_in(spark, table)) == 30


def test_an_available_now_query_reads_what_is_there_in_bounded_batches_and_stops(
    spark: SparkSession, log: Log, log_url: str, topic: str, tmp_path: Path
) -> None:
    for partition in range(3):
        committed(log, topic, [b"%d-%d" % (partition, i) for i in range(10)], partition)
    name = f"conveyor_stream_{next(_query_numbers)}"
    query = (
        stream(spark, log_url, topic, maxRecordsPerTrigger="12")
        .writeStream.format("memory")
        .queryName(name)
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .trigger(availableNow=True)
        .start()
    )
    assert query.awaitTermination(120)
    sizes = [progress["numInputRows"] for progress in query.recentProgress if progress["numInputRows"]]
    assert sizes == [12, 12, 6]
    assert len(values_in(spark, name)) == 30


def test_a_query_restarted_from_its_checkpoint_continues_where_it_stopped(
    spark: SparkSession, log: Log, log_url: str, topic: str, tmp_path: Path
) -> None:
    log.admin().create_topic("copied", partitions=2)

    def run_copy() -> None:
        register(spark)  # a stream written to the conveyor format needs the thread's active session
        query = (
            stream(spark, log_url, topic)
            .select("key", "value")
            .writeStream.format("conveyor")
            .option("log.url", log_url)
            .option("topic", "copied")
            .option("checkpointLocation", str(tmp_path / "checkpoint"))
            .start()
        )
        try:
            query.processAllAvailable()
        finally:
            query.stop()

    committed(log, topic, [b"1", b"2"], 0)
    run_copy()
    committed(log, topic, [b"3"], 2)
    run_copy()
    assert sorted(r.value for r in read_committed_values(log, ["copied"])) == [b"1", b"2", b"3"]

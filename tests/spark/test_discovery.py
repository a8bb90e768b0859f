"""Spark finds the ``conveyor`` data source by itself once Conveyor is installed (``pyspark_conveyor``)."""

from __future__ import annotations

import threading
from pathlib import Path

from pyspark.sql import SparkSession

from conveyor.log import Log
from conveyor.spark.datasource import register

from .records import committed, read_committed_values


def test_a_session_nobody_registered_the_source_in_reads_format_conveyor(
    spark: SparkSession, log: Log, log_url: str, topic: str
) -> None:
    committed(log, topic, [b"found"], 0)
    unregistered = spark.newSession()
    frame = unregistered.read.format("conveyor").option("log.url", log_url).option("subscribe", topic).load()
    assert [bytes(row.value) for row in frame.select("value").collect()] == [b"found"]


def test_a_thread_without_an_active_session_writes_a_stream_to_conveyor_once_it_registers(
    spark: SparkSession, log: Log, log_url: str, topic: str, tmp_path: Path
) -> None:
    committed(log, topic, [b"copied"], 0)
    log.admin().create_topic(f"{topic}-copy", partitions=1)
    failures: list[Exception] = []

    def copy_in_a_fresh_thread() -> None:
        spark._jvm.SparkSession.clearActiveSession()  # as in a JVM thread py4j has just started
        register(spark)
        try:
            query = (
                spark.readStream.format("conveyor")
                .option("log.url", log_url)
                .option("subscribe", topic)
                .option("startingOffsets", "earliest")
                .load()
                .select("key", "value")
                .writeStream.format("conveyor")
                .option("log.url", log_url)
                .option("topic", f"{topic}-copy")
                .option("checkpointLocation", str(tmp_path / "checkpoint"))
                .start()
            )
            query.processAllAvailable()
            query.stop()
        except Exception as error:
            failures.append(error)

    copier = threading.Thread(target=copy_in_a_fresh_thread)
    copier.start()
    copier.join()
    assert failures == []
    assert [r.value for r in read_committed_values(log, [f"{topic}-copy"])] == [b"copied"]

"""Spark finds the ``conveyor`` data source by itself once Conveyor is installed (``pyspark_conveyor``)."""

from __future__ import annotations

from pyspark.sql import SparkSession

from conveyor.log import Log

from .records import committed


def test_a_session_nobody_registered_the_source_in_reads_format_conveyor(
    spark: SparkSession, log: Log, log_url: str, topic: str
) -> None:
    committed(log, topic, [b"found"], 0)
    unregistered = spark.newSession()
    frame = unregistered.read.format("conveyor").option("log.url", log_url).option("subscribe", topic).load()
    assert [bytes(row.value) for row in frame.select("value").collect()] == [b"found"]

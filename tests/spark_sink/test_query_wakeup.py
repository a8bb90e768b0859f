"""The watcher of a query task is woken by Spark at each finished micro-batch, without reading the event."""

from __future__ import annotations

import threading
from pathlib import Path

from pyspark.sql import SparkSession

from conveyor.spark.streaming.wakeup import QueryWakeup, WakeOnEvent

from .support import WAIT_S


class Unreadable:
    """An event that fails any reading of it."""

    def __getattr__(self, name: str) -> object:
        raise AssertionError(f"the event was read: {name}")


def test_a_progress_event_wakes_the_watcher_without_being_read() -> None:
    wake = threading.Event()
    WakeOnEvent(wake).onQueryProgress(Unreadable())
    assert wake.is_set()


def test_the_end_of_a_query_wakes_the_watcher_and_its_start_does_not() -> None:
    wake = threading.Event()
    listener = WakeOnEvent(wake)
    listener.onQueryStarted(Unreadable())
    listener.onQueryIdle(Unreadable())
    assert not wake.is_set()
    listener.onQueryTerminated(Unreadable())
    assert wake.is_set()


def test_a_micro_batch_of_a_query_of_the_session_wakes_its_listener_through_spark(
    spark: SparkSession, tmp_path: Path
) -> None:
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "rows.json").write_text('{"id": 1}\n{"id": 2}\n')
    session = spark.newSession()
    wake = threading.Event()
    listener = QueryWakeup(wake)
    session.streams.addListener(listener)
    try:
        query = (
            session.readStream.schema("id bigint")
            .json(str(tmp_path / "in"))
            .writeStream.format("noop")
            .option("checkpointLocation", str(tmp_path / "checkpoint"))
            .trigger(availableNow=True)
            .start()
        )
        query.awaitTermination(WAIT_S)
        assert wake.wait(WAIT_S), "Spark did not call the listener"
    finally:
        session.streams.removeListener(listener)

"""Reading Spark's progress reports: every micro-batch counted once, idle triggers left out."""

from __future__ import annotations

from typing import Any

from conveyor.log import TopicPartition
from conveyor.spark.streaming.progress import BatchProgress, batches_after, batches_since


def ran(batch_id: int, rows: int, end: int) -> dict[str, Any]:
    """The report of a trigger that ran micro-batch ``batch_id``."""
    return {
        "batchId": batch_id,
        "timestamp": f"2026-01-01T00:00:{batch_id:02d}.000Z",
        "numInputRows": rows,
        "durationMs": {"addBatch": 90, "latestOffset": 5, "triggerExecution": 100},
        "sources": [{"endOffset": f'{{"orders":{{"0":{end}}}}}'}],
    }


def idle(next_batch_id: int) -> dict[str, Any]:
    """The report of a trigger that found no data (it carries the id of the batch to come)."""
    return {
        "batchId": next_batch_id,
        "timestamp": "2026-01-01T00:01:00.000Z",
        "numInputRows": 0,
        "durationMs": {"latestOffset": 5, "triggerExecution": 5},
    }


def test_every_batch_finished_since_the_last_look_is_returned_in_order() -> None:
    reports = [ran(3, 10, 10), ran(4, 7, 17), ran(5, 7, 24)]
    assert [batch.batch_id for batch in batches_after(3, reports)] == [4, 5]
    assert [batch.num_input_rows for batch in batches_after(3, reports)] == [7, 7]


def unread() -> list[dict[str, Any]]:
    raise AssertionError("Spark's retained reports were read")


def test_the_latest_report_alone_is_taken_when_it_is_the_next_batch() -> None:
    (batch,) = batches_since(4, BatchProgress.of(ran(5, 3, 20)), unread)
    assert (batch.batch_id, batch.num_input_rows) == (5, 3)


def test_the_retained_reports_are_read_when_a_look_missed_a_batch() -> None:
    reports = [ran(4, 7, 17), ran(5, 3, 20), ran(6, 2, 22)]
    finished = batches_since(4, BatchProgress.of(reports[-1]), lambda: reports)
    assert [batch.batch_id for batch in finished] == [5, 6]


def test_the_retained_reports_are_read_after_an_idle_trigger() -> None:
    reports = [ran(4, 7, 17), ran(5, 3, 20), idle(6)]
    finished = batches_since(4, BatchProgress.of(reports[-1]), lambda: reports)
    assert [batch.batch_id for batch in finished] == [5]


def test_an_idle_trigger_is_not_a_batch_and_does_not_hide_the_batch_that_takes_its_id() -> None:
    assert batches_after(4, [ran(4, 7, 17), idle(5)]) == []
    (batch,) = batches_after(4, [ran(4, 7, 17), idle(5), ran(5, 3, 20)])
    assert (batch.batch_id, batch.num_input_rows) == (5, 3)
    assert batch.end_offsets == {TopicPartition("orders", 0): 20}

"""A streaming query's progress as task metrics, and as consumer-group offsets.

Spark reports each finished micro-batch (``StreamingQuery.lastProgress``): rows per second in and out,
how long the batch took, how many rows it read, and the source's end offsets. Those offsets are the
next offset of every partition the query has written out, which is what Kafka Connect keeps for a sink
in its consumer group ``connect-<connector>``; committing them there makes ``GET /connectors/<c>/offsets``
show the query's progress. Lag is how far the readable end of each partition is past them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from conveyor.log import Admin, TopicPartition
from conveyor.spark.datasource.offsets import from_json_dict, subscribed_partitions
from conveyor.spark.datasource.options import Subscription


@dataclass(frozen=True)
class BatchProgress:
    """What one finished micro-batch reported."""

    batch_id: int
    timestamp: str
    executed: bool
    num_input_rows: int
    input_rows_per_second: float
    processed_rows_per_second: float
    batch_duration_ms: int
    end_offsets: dict[TopicPartition, int]

    @classmethod
    def of(cls, progress: Mapping[str, Any]) -> BatchProgress:
        """Spark's progress report (``StreamingQueryProgress`` or its JSON as a dict)."""
        fields: dict[str, Any] = json.loads(progress.json) if hasattr(progress, "json") else dict(progress)
        end_offsets: dict[TopicPartition, int] = {}
        for source in fields.get("sources") or []:
            end = source.get("endOffset")
            if isinstance(end, str):
                end = json.loads(end) if end.strip().startswith("{") else None
            if isinstance(end, dict):
                end_offsets.update(from_json_dict(end))
        durations = fields.get("durationMs") or {}
        duration = durations.get("triggerExecution", 0)
        return cls(
            batch_id=int(fields.get("batchId", -1)),
            timestamp=str(fields.get("timestamp", "")),
            executed="addBatch" in durations,
            num_input_rows=int(fields.get("numInputRows") or 0),
            input_rows_per_second=_rate(fields.get("inputRowsPerSecond")),
            processed_rows_per_second=_rate(fields.get("processedRowsPerSecond")),
            batch_duration_ms=int(duration or 0),
            end_offsets=end_offsets,
        )

    def metrics(self) -> dict[str, Any]:
        """The progress under the metric names ``/status`` shows."""
        return {
            "batch-id": self.batch_id,
            "num-input-rows": self.num_input_rows,
            "input-rows-per-second": round(self.input_rows_per_second, 1),
            "processed-rows-per-second": round(self.processed_rows_per_second, 1),
            "batch-duration-ms": self.batch_duration_ms,
        }


def batches_after(batch_id: int, reports: Iterable[Mapping[str, Any]]) -> list[BatchProgress]:
    """The micro-batches Spark ran after ``batch_id``, in order, from its reports (``recentProgress``).

    While a query waits for data Spark also reports, under the id of the batch it will run next, triggers
    that ran no batch; those are left out (they did not execute ``addBatch``)."""
    later = {batch.batch_id: batch for batch in map(BatchProgress.of, reports) if batch.executed}
    return [later[key] for key in sorted(later) if key > batch_id]


def batches_since(
    batch_id: int, latest: BatchProgress, reports: Callable[[], Iterable[Mapping[str, Any]]]
) -> list[BatchProgress]:
    """The micro-batches Spark ran after ``batch_id``: the ``latest`` report alone when it is the very next
    batch, else those of ``reports()`` (Spark's retained reports, ``recentProgress``, which pyspark reads
    through py4j one report at a time: read only when a look missed a batch)."""
    if latest.executed and latest.batch_id == batch_id + 1:
        return [latest]
    return batches_after(batch_id, reports())


def _rate(value: Any) -> float:
    try:
        rate = float(value)
    except (TypeError, ValueError):
        return 0.0
    return rate if rate == rate and rate != float("inf") else 0.0  # NaN and infinity read as 0


def lag(admin: Admin, subscription: Subscription, positions: Mapping[TopicPartition, int]) -> int:
    """Committed records still to be written: each partition's last stable offset minus the query's
    position in it (its earliest offset where the query has no position yet)."""
    partitions = subscribed_partitions(admin, subscription)
    behind = 0
    for tp, bounds in admin.list_offsets(partitions).items():
        behind += max(0, bounds.last_stable - positions.get(tp, bounds.earliest))
    return behind


def commit_to_group(admin: Admin, group: str, positions: Mapping[TopicPartition, int]) -> None:
    """Record the query's positions as the group's committed offsets, as a sink task's commit does."""
    if positions:
        admin.alter_consumer_group_offsets(group, dict(positions))

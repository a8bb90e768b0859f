"""MirrorMaker 2's replication metrics per replicated partition, under Kafka's names (`MirrorSourceMetrics`):
`record-count`, `record-rate`, `byte-count`, `byte-rate`, `record-age-ms` (how old a record was when the
task read it from the source) and `replication-latency-ms` (how old the newest record of a commit was when
it became durable on the target), each age with `-min`, `-max` and `-avg` over Kafka's window.

They are the task's own plugin metrics (KIP-877), tagged `source`, `target`, `topic` (the remote topic)
and `partition`: the `new` format of `metric.names.formats` (KIP-1280).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from conveyor.api import PluginMetrics
from conveyor.errors import ConfigError
from conveyor.metrics.sampled_stats import SampledStat

METRIC_NAMES_FORMATS_CONFIG = "metric.names.formats"
_FORMATS = ("legacy", "new")


def check_metric_names_formats(name: str, value: object) -> None:
    """Kafka's values (`legacy`, `new`, or both); Conveyor publishes the `new` names either way."""
    formats = [part.strip() for part in str(value).split(",") if part.strip()]
    unknown = [part for part in formats if part not in _FORMATS]
    if not formats or unknown:
        raise ConfigError(name, value, "must be legacy, new, or legacy,new")


def batch_bytes(keys: Sequence[bytes | None], values: Sequence[bytes | None]) -> int:
    """The bytes of a batch's keys and values, summed without a Python call per record."""
    return sum(map(len, filter(None, keys))) + sum(map(len, filter(None, values)))


@dataclass
class _PartitionStats:
    records: int = 0
    bytes: int = 0
    newest_timestamp_ms: int | None = None
    last_age_ms: float | None = None
    last_latency_ms: float | None = None
    rate: SampledStat = field(default_factory=SampledStat)
    byte_rate: SampledStat = field(default_factory=SampledStat)
    ages: SampledStat = field(default_factory=SampledStat)
    latencies: SampledStat = field(default_factory=SampledStat)


class ReplicationMetrics:
    """Counts what a mirror task replicated, per remote topic-partition, into its plugin metrics."""

    def __init__(self, metrics: PluginMetrics, source_alias: str, target_alias: str) -> None:
        self._metrics = metrics
        self._source, self._target = source_alias, target_alias
        self._lock = threading.Lock()
        self._partitions: dict[tuple[str, int], _PartitionStats] = {}
        self._uncommitted: set[tuple[str, int]] = set()

    def read(self, topic: str, partition: int, sizes: int, timestamps: Sequence[int]) -> None:
        """A batch of one partition read from the source: ``sizes`` bytes of keys and values in all."""
        if not timestamps:
            return
        now_ms = time.time() * 1000
        stats = self._stats(topic, partition)
        with self._lock:
            stats.records += len(timestamps)
            stats.bytes += sizes
            stats.rate.record(len(timestamps))
            stats.byte_rate.record(sizes)
            for timestamp in (timestamps[0], timestamps[-1]):  # a batch's ends: no work per record
                stats.ages.record(max(0.0, now_ms - timestamp))
            stats.last_age_ms = max(0.0, now_ms - timestamps[-1])
            newest = max(timestamps[-1], stats.newest_timestamp_ms or 0)
            stats.newest_timestamp_ms = newest
            self._uncommitted.add((topic, partition))

    def committed(self) -> None:
        """What was read so far is durable on the target: record each partition's replication latency."""
        now_ms = time.time() * 1000
        with self._lock:
            for key in self._uncommitted:
                stats = self._partitions[key]
                if stats.newest_timestamp_ms is not None:
                    stats.last_latency_ms = max(0.0, now_ms - stats.newest_timestamp_ms)
                    stats.latencies.record(stats.last_latency_ms)
            self._uncommitted.clear()

    def _stats(self, topic: str, partition: int) -> _PartitionStats:
        key = (topic, partition)
        stats = self._partitions.get(key)
        if stats is not None:
            return stats
        stats = self._partitions[key] = _PartitionStats()
        tags = {"source": self._source, "target": self._target, "topic": topic, "partition": str(partition)}
        readings = {
            "record-count": ("Number of replicated records.", lambda: stats.records),
            "record-rate": ("Average number of replicated records per second.", stats.rate.rate),
            "byte-count": ("Number of replicated bytes.", lambda: stats.bytes),
            "byte-rate": ("Average number of replicated bytes per second.", stats.byte_rate.rate),
            "record-age-ms": (
                "The age of incoming source records when replicated.",
                lambda: stats.last_age_ms,
            ),
            "replication-latency-ms": (
                "Time it takes records to replicate from source to target cluster.",
                lambda: stats.last_latency_ms,
            ),
        }
        for name, what, window in (
            ("record-age-ms", "age of incoming source records", stats.ages),
            ("replication-latency-ms", "replication latency", stats.latencies),
        ):
            readings[f"{name}-min"] = (f"The min {what}.", window.min)
            readings[f"{name}-max"] = (f"The max {what}.", window.max)
            readings[f"{name}-avg"] = (f"The average {what}.", window.avg)
        for name, (description, reading) in readings.items():
            self._metrics.add_metric(self._metrics.metric_name(name, description, tags), reading)
        return stats

"""MirrorMaker's replication metrics per remote partition, as the task's own plugin metrics."""

from __future__ import annotations

import math
import time
from typing import Any

import pytest
from tests.connectors.connector_contexts import DictSourceTaskContext

from conveyor.api import PluginMetrics
from conveyor.connectors.mirror.config import SOURCE_CONFIG_DEF
from conveyor.connectors.mirror.replication_metrics import ReplicationMetrics
from conveyor.connectors.mirror.source import MirrorSourceTask
from conveyor.errors import ConfigError
from conveyor.log import Log

from .replication import produce
from .test_mirror_source import connector_config

TAGS = {"source": "A", "target": "B", "topic": "A.orders", "partition": "0"}


def values(samples: list[dict[str, Any]], tags: dict[str, str] = TAGS) -> dict[str, float]:
    return {s["name"]: s["value"] for s in samples if s["tags"] == tags}


def test_a_batch_read_counts_records_and_bytes_and_its_records_age() -> None:
    metrics = PluginMetrics()
    replication = ReplicationMetrics(metrics, "A", "B")
    now_ms = int(time.time() * 1000)
    replication.read("A.orders", 0, 30, [now_ms - 5_000, now_ms - 1_000])
    read = values(metrics.samples())
    assert (read["record-count"], read["byte-count"]) == (2, 30)
    assert 1_000 <= read["record-age-ms"] < 5_000 <= read["record-age-ms-max"]
    assert math.isnan(read["replication-latency-ms"])


def test_a_commit_records_the_latency_of_the_newest_record_read() -> None:
    metrics = PluginMetrics()
    replication = ReplicationMetrics(metrics, "A", "B")
    replication.read("A.orders", 0, 10, [int(time.time() * 1000) - 2_000])
    replication.committed()
    assert values(metrics.samples())["replication-latency-ms"] >= 2_000


def test_the_source_task_publishes_what_it_replicated(cluster_a: Log, cluster_b: Log) -> None:
    cluster_a.admin().create_topic("orders", partitions=1)
    produce(cluster_a, "orders", 1, 0, 5)
    task = MirrorSourceTask()
    context = DictSourceTaskContext({})
    task.initialize(context)
    task.start({**connector_config(cluster_a, cluster_b), "task.assigned.partitions": "orders-0"})
    try:
        polled = 0
        deadline = time.monotonic() + 30
        while polled < 5 and time.monotonic() < deadline:
            polled += len(task.poll() or [])
    finally:
        task.stop()
    assert values(context.plugin_metric_samples())["record-count"] == 5


@pytest.mark.parametrize("formats", ["legacy", "new", "legacy,new"])
def test_kafka_s_metric_name_formats_are_accepted(formats: str) -> None:
    assert SOURCE_CONFIG_DEF.parse({"metric.names.formats": formats})["metric.names.formats"] == formats


def test_an_unknown_metric_name_format_is_refused_naming_the_key() -> None:
    with pytest.raises(ConfigError, match=r"metric\.names\.formats"):
        SOURCE_CONFIG_DEF.parse({"metric.names.formats": "jmx"})

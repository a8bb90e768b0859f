"""A Spark sink's micro-batches, counted by Spark from its executors, show in `GET /metrics` as a sink
task's metrics."""

from __future__ import annotations

from pathlib import Path

import httpx

from conveyor.log import Log
from scraping import Samples, measured, scrape, value

from .support import sink_config, wait_until, write_people

SINK = "kafka_connect_sink_task_metrics_"
RECORDS = 300


def test_a_spark_sinks_rows_partitions_and_commits_are_its_sink_task_metrics(
    client: httpx.Client, log: Log, output: Path
) -> None:
    log.admin().create_topic("metered-people", partitions=3)
    write_people(log, "metered-people", range(RECORDS))
    config = sink_config("metered-people", output, **{"max.records.per.trigger": "100"})
    assert client.post("/connectors", json={"name": "metered", "config": config}).status_code == 201
    labels = {"connector": "metered", "task": "0"}

    def all_sent() -> Samples | None:
        samples = scrape(client)
        done = value(samples, SINK + "sink_record_send_total", **labels) == RECORDS
        return samples if done and value(samples, SINK + "partition_count", **labels) == 3 else None

    samples = wait_until(all_sent, "every row written and the partitions counted")
    assert value(samples, SINK + "sink_record_read_total", **labels) == RECORDS
    assert (value(samples, SINK + "offset_commit_completion_total", **labels) or 0) >= 1
    assert (value(samples, "kafka_connect_connector_task_metrics_batch_size_max", **labels) or 0) <= 100
    assert measured(value(samples, SINK + "put_batch_avg_time_ms", **labels))
    read_rate = value(samples, SINK + "sink_record_read_rate", **labels)
    assert read_rate is not None and RECORDS / 60 <= read_rate <= RECORDS / 30

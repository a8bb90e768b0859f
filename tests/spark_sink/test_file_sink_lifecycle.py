"""A SparkFileSink connector managed through REST: records of a topic become Parquet rows, exactly; its
progress shows in /status and /offsets; pause stops new files, resume continues, delete stops the query."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
from pyspark.sql import SparkSession

from conveyor.log import Log

from .support import data_files, rows, sink_config, task_status, wait_until, write_people

PROGRESS_METRICS = {
    "input-rows-per-second",
    "processed-rows-per-second",
    "batch-duration-ms",
    "num-input-rows",
    "lag",
}


def ids_in(spark: SparkSession, path: Path) -> list[int]:
    return sorted(row["id"] for row in rows(spark, path))


def test_a_file_sink_connector_writes_pauses_resumes_and_stops_through_rest(
    client: httpx.Client, log: Log, spark: SparkSession, output: Path
) -> None:
    log.admin().create_topic("people", partitions=3)
    write_people(log, "people", range(0, 300))

    created = client.post(
        "/connectors", json={"name": "people-files", "config": sink_config("people", output)}
    )
    assert created.status_code == 201, created.text
    wait_until(lambda: ids_in(spark, output) == list(range(300)), "the first 300 rows in Parquet")
    assert set(rows(spark, output)[0]) == {"id", "name", "email"}

    running = wait_until(
        lambda: (status := task_status(client, "people-files")).get("metrics", {}).get("lag") == 0 and status,
        "the task's progress metrics",
    )
    assert running["state"] == "RUNNING"
    assert set(running["metrics"]) >= PROGRESS_METRICS
    offsets = client.get("/connectors/people-files/offsets").json()["offsets"]
    assert sum(entry["offset"]["kafka_offset"] for entry in offsets) == 300

    assert client.put("/connectors/people-files/pause").status_code == 202
    wait_until(lambda: task_status(client, "people-files").get("state") == "PAUSED", "the task to pause")
    files_when_paused = data_files(output)
    write_people(log, "people", range(300, 400))
    time.sleep(2.0)
    assert data_files(output) == files_when_paused
    assert wait_until(lambda: task_status(client, "people-files").get("metrics", {}).get("lag"), "lag") == 100

    assert client.put("/connectors/people-files/resume").status_code == 202
    wait_until(lambda: ids_in(spark, output) == list(range(400)), "all 400 rows after resuming")

    assert client.delete("/connectors/people-files").status_code == 204
    wait_until(lambda: not any(q.name == "conveyor-people-files" for q in spark.streams.active), "no query")
    files_when_deleted = data_files(output)
    write_people(log, "people", range(400, 450))
    time.sleep(1.5)
    assert data_files(output) == files_when_deleted


def test_rows_read_counts_every_micro_batch_even_when_several_finish_between_two_looks(
    client: httpx.Client, log: Log, output: Path
) -> None:
    log.admin().create_topic("small-batches", partitions=3)
    write_people(log, "small-batches", range(0, 300))
    config = sink_config(
        "small-batches", output, **{"max.records.per.trigger": "7", "trigger.interval.ms": "0"}
    )
    assert client.post("/connectors", json={"name": "small-batches", "config": config}).status_code == 201

    metrics = wait_until(
        lambda: (found := task_status(client, "small-batches").get("metrics", {})).get("lag") == 0 and found,
        "every batch read",
    )
    assert metrics["rows-read"] == 300
    assert metrics["processing-time-ms"] > 0


def test_altering_and_resetting_offsets_of_a_stopped_sink_moves_where_its_query_resumes(
    client: httpx.Client, log: Log, spark: SparkSession, output: Path
) -> None:
    log.admin().create_topic("rewound", partitions=1)
    write_people(log, "rewound", range(0, 20))
    assert (
        client.post(
            "/connectors", json={"name": "rewound", "config": sink_config("rewound", output)}
        ).status_code
        == 201
    )
    wait_until(lambda: ids_in(spark, output) == list(range(20)), "the first 20 rows")

    def stopped() -> bool:
        assert client.put("/connectors/rewound/stop").status_code == 204
        return wait_until(
            lambda: client.get("/connectors/rewound/status").json()["connector"]["state"] == "STOPPED",
            "STOPPED",
        )

    stopped()
    partition = {"kafka_topic": "rewound", "kafka_partition": 0}
    altered = client.patch(
        "/connectors/rewound/offsets",
        json={"offsets": [{"partition": partition, "offset": {"kafka_offset": 15}}]},
    )
    assert altered.status_code == 200, altered.text
    write_people(log, "rewound", range(20, 25))
    assert client.put("/connectors/rewound/resume").status_code == 202
    wait_until(lambda: len(ids_in(spark, output)) == 30, "rows 15 to 24 after the alteration")
    assert ids_in(spark, output) == sorted([*range(25), *range(15, 20)])

    stopped()
    assert client.delete("/connectors/rewound/offsets").status_code == 200
    assert client.put("/connectors/rewound/resume").status_code == 202
    wait_until(lambda: len(ids_in(spark, output)) == 55, "every row again after the reset")
    assert ids_in(spark, output) == sorted([*range(25), *range(15, 20), *range(25)])

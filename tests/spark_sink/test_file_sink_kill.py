"""A worker running a SparkFileSink, killed with SIGKILL mid-stream and started again on the same data dir
(so the same checkpoint), leaves every input row in the Parquet output exactly once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

from pyspark.sql import SparkSession

from conveyor.log import open_log

from .support import JSON_CONVERTER, STRING_CONVERTER, rows, sink_config, wait_until, write_people

INPUT_ROWS = 3000
ROWS_PER_BATCH = "200"
REPOSITORY = Path(__file__).resolve().parents[2]


def write_worker_files(data_dir: Path, output: Path) -> tuple[Path, Path]:
    properties = data_dir / "worker.properties"
    properties.write_text(
        "\n".join(
            [
                f"data.dir={data_dir}",
                "listeners=http://127.0.0.1:0",
                "spark.master=local[2]",
                f"key.converter={STRING_CONVERTER}",
                f"value.converter={JSON_CONVERTER}",
                "value.converter.schemas.enable=true",
            ]
        )
    )
    connector = data_dir / "people-files.json"
    config = sink_config("people", output, **{"max.records.per.trigger": ROWS_PER_BATCH})
    connector.write_text(
        json.dumps({"name": "people-files", "config": config | {"trigger.interval.ms": "0"}})
    )
    return properties, connector


def start_worker(properties: Path, connector: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "conveyor.cli", "standalone", "--no-status", str(properties), str(connector)],
        cwd=REPOSITORY,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # its own process group: the JVM and Python workers die with it
    )


def committed_batches(output: Path) -> int:
    metadata = output / "_spark_metadata"
    return len([p for p in metadata.iterdir() if p.name.isdigit()]) if metadata.exists() else 0


def test_a_worker_killed_mid_stream_and_restarted_writes_every_row_exactly_once(
    spark: SparkSession, tmp_path: Path
) -> None:
    data_dir, output = tmp_path / "worker", tmp_path / "output"
    data_dir.mkdir()
    with open_log(f"embedded:{data_dir / 'log'}") as log:
        log.admin().create_topic("people", partitions=3)
        write_people(log, "people", range(INPUT_ROWS))
    properties, connector = write_worker_files(data_dir, output)

    first = start_worker(properties, connector)
    try:
        wait_until(lambda: committed_batches(output) >= 3, "a few committed micro-batches", timeout_s=120)
    finally:
        os.killpg(first.pid, signal.SIGKILL)
        first.wait()
    assert len(rows(spark, output)) < INPUT_ROWS

    second = start_worker(properties, connector)
    try:
        wait_until(lambda: len(rows(spark, output)) >= INPUT_ROWS, "every row after the restart", 150)
    finally:
        os.killpg(second.pid, signal.SIGKILL)
        second.wait()

    written = Counter(row["id"] for row in rows(spark, output))
    duplicates = {i: count for i, count in written.items() if count > 1}
    assert (duplicates, set(range(INPUT_ROWS)) - set(written), len(written)) == ({}, set(), INPUT_ROWS)

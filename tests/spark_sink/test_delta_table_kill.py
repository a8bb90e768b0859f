"""Records of a topic land in a partitioned Delta table through a real worker (on a Spark Delta runs on:
the virtualenv's, or the one ``delta_runtime`` installs) that is killed with SIGKILL mid-stream and
started again on the same data dir: read back with Spark, the table holds every record exactly once,
partitioned as asked.

The scenario runs once for the module (each worker start is a JVM and a SparkSession); each test reads
one fact off it. Progress is followed in the table's own log (``_delta_log``), without Spark.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from conveyor.kafka_broker.fetch import default_cache_dir
from conveyor.log import open_log

from .delta_runtime import delta_site, environment, read_table, runs_delta
from .support import JSON_CONVERTER, STRING_CONVERTER, wait_until, write_people

INPUT_ROWS = 1200
ROWS_PER_BATCH = "200"
START_S = 600.0
"""A worker's start (a JVM, Delta's jars, a SparkSession) and a few batches on a loaded 2-core machine."""
FINISH_S = 1200.0
"""A restarted worker's start and the rest of the topic's batches, each a Delta commit."""
REPOSITORY = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.timeout(3600),
    pytest.mark.skipif(
        not runs_delta() and os.environ.get("CONVEYOR_DELTA_TESTS") != "1",
        reason="Delta runs on pyspark 4.2, not on the installed one: the test then installs pyspark 4.2.1 "
        "(about 450 MB) beside it; run it with CONVEYOR_DELTA_TESTS=1",
    ),
]


@dataclass(frozen=True)
class Outcome:
    rows_at_kill: int
    table: dict[str, Any]


def committed_rows(table: Path) -> int:
    """The rows the table's committed versions added, from each added file's statistics."""
    log = table / "_delta_log"
    if not log.is_dir():
        return 0
    rows = 0
    for commit in log.glob("*.json"):
        for line in commit.read_text().splitlines():
            added = json.loads(line).get("add")
            if added and added.get("stats"):
                rows += int(json.loads(added["stats"])["numRecords"])
    return rows


def commits(table: Path) -> int:
    log = table / "_delta_log"
    return len(list(log.glob("*.json"))) if log.is_dir() else 0


def write_worker_files(data_dir: Path, table: Path) -> tuple[Path, Path]:
    properties = data_dir / "worker.properties"
    properties.write_text(
        "\n".join(
            [
                f"data.dir={data_dir}",
                "listeners=http://127.0.0.1:0",
                "spark.master=local[2]",
                "table.formats=delta",
                f"key.converter={STRING_CONVERTER}",
                f"value.converter={JSON_CONVERTER}",
                "value.converter.schemas.enable=true",
            ]
        )
    )
    config = {
        "connector.class": "SparkFileSink",
        "topics": "people",
        "format": "delta",
        "path": str(table),
        "sql": "SELECT id, name, kafka_partition FROM records",
        "partition.by": "kafka_partition",
        "max.records.per.trigger": ROWS_PER_BATCH,
        "trigger.interval.ms": "0",
    }
    connector = data_dir / "people-delta.json"
    connector.write_text(json.dumps({"name": "people-delta", "config": config}))
    return properties, connector


def start_worker(properties: Path, connector: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """The worker, its output appended to ``worker.log`` beside its properties."""
    with open(properties.parent / "worker.log", "ab") as output:
        return subprocess.Popen(
            [
                sys.executable,
                "-m",
                "conveyor.cli",
                "standalone",
                "--no-status",
                str(properties),
                str(connector),
            ],
            cwd=REPOSITORY,
            env=env,
            stdout=output,
            stderr=output,
            start_new_session=True,  # its own process group: the JVM and Python workers die with it
        )


def wait_for(table: Path, condition: Callable[[], bool], what: str, timeout_s: float, data_dir: Path) -> None:
    """``wait_until``, failing with the worker's last lines."""
    try:
        wait_until(condition, what, timeout_s)
    except AssertionError as error:
        lines = (data_dir / "worker.log").read_text(errors="replace").splitlines()[-40:]
        raise AssertionError(
            f"{error}; {committed_rows(table)} rows committed; worker:\n" + "\n".join(lines)
        ) from error


def kill(worker: subprocess.Popen[bytes]) -> None:
    os.killpg(worker.pid, signal.SIGKILL)
    worker.wait()


@pytest.fixture(scope="module")
def outcome(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Outcome]:
    site = delta_site(default_cache_dir())
    env = environment(site)
    data_dir, table = tmp_path_factory.mktemp("delta-worker"), tmp_path_factory.mktemp("tables") / "people"
    with open_log(f"embedded:{data_dir / 'log'}") as log:
        log.admin().create_topic("people", partitions=3)
        write_people(log, "people", range(INPUT_ROWS))
    properties, connector = write_worker_files(data_dir, table)

    first = start_worker(properties, connector, env)
    try:
        wait_for(table, lambda: commits(table) >= 2, "a few committed micro-batches", START_S, data_dir)
    finally:
        kill(first)
    rows_at_kill = committed_rows(table)

    second = start_worker(properties, connector, env)
    try:
        wait_for(
            table,
            lambda: committed_rows(table) >= INPUT_ROWS,
            "every row after the restart",
            FINISH_S,
            data_dir,
        )
    finally:
        kill(second)
    yield Outcome(rows_at_kill, read_table(site, table))


def test_the_worker_was_killed_with_part_of_the_topic_in_the_table(outcome: Outcome) -> None:
    assert 0 < outcome.rows_at_kill < INPUT_ROWS


def test_every_record_of_the_topic_is_in_the_delta_table_exactly_once(outcome: Outcome) -> None:
    written = Counter(row["id"] for row in outcome.table["rows"])
    duplicates = {i: count for i, count in written.items() if count > 1}
    assert (duplicates, set(range(INPUT_ROWS)) - set(written), len(written)) == ({}, set(), INPUT_ROWS)


def test_the_table_is_partitioned_by_the_partition_columns(outcome: Outcome) -> None:
    assert outcome.table["partition_columns"] == ["kafka_partition"]
    assert {row["kafka_partition"] for row in outcome.table["rows"]} == {0, 1, 2}

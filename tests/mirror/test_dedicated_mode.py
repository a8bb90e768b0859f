"""`conveyor mirror mm2.properties` (dedicated mode) killed with SIGKILL three times mid-stream, worker,
Spark and all, and started again each time: through the source design (with
`B.exactly.once.source.support = enabled`) and through the transactional sink design, cluster B ends up
holding every record of A exactly once, in order, per partition."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from tests.worker.support import wait_until

from conveyor.log import Log

from .replication import compare, distinct_replicated, replicated_count
from .upstream import UpstreamWriter

REPOSITORY = Path(__file__).resolve().parents[2]
TOPIC = "orders"
REMOTE = "A.orders"
PARTITIONS = 3
KILLS = 3
GROWTH_BEFORE_KILL = 400
WAIT_S = 180.0


def write_mm2_properties(tmp_path: Path, a: Log, b: Log, design: str, *extra: str) -> Path:
    """A flow A->B of TOPIC; every process of a flow's group may run on this one file."""
    path = tmp_path / "mm2.properties"
    path.write_text(
        "\n".join(
            [
                "clusters = A, B",
                f"A.log.url = {a.url}",
                f"B.log.url = {b.url}",
                "A->B.enabled = true",
                f"A->B.topics = {TOPIC}",
                "B.exactly.once.source.support = enabled",
                f"A->B.mirror.design = {design}",
                "consumer.override.session.timeout.ms = 6000",
                "consumer.override.heartbeat.interval.ms = 1000",
                "offset.flush.interval.ms = 200",
                "spark.master = local[2]",
                f"data.dir = {tmp_path / 'mirror-data'}",
                "session.timeout.ms = 6000",
                "heartbeat.interval.ms = 1000",
                *extra,
            ]
        )
    )
    return path


def start_mirror_maker(properties: Path, log_file: Path | None = None) -> subprocess.Popen[bytes]:
    """``conveyor mirror`` on ``properties``; its INFO log in ``log_file`` when given."""
    level = "INFO" if log_file is not None else "WARNING"
    return subprocess.Popen(
        [sys.executable, "-m", "conveyor.cli", "mirror", "--log-level", level, str(properties)],
        cwd=REPOSITORY,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL if log_file is None else log_file.open("wb"),
        start_new_session=True,  # its own process group: the JVM and the Python workers die with it
    )


def kill_group(process: subprocess.Popen[bytes]) -> None:
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()


@pytest.mark.timeout(1200)  # four process starts, each starting Spark, on a busy machine
@pytest.mark.parametrize("design", ["source", "sink"])
def test_dedicated_mode_killed_three_times_replicates_exactly_once(
    tmp_path: Path, cluster_a: Log, cluster_b: Log, design: str
) -> None:
    cluster_a.admin().create_topic(TOPIC, partitions=PARTITIONS)
    properties = write_mm2_properties(tmp_path, cluster_a, cluster_b, design)
    with UpstreamWriter(cluster_a, TOPIC, PARTITIONS) as upstream:
        for kill in range(KILLS):
            before = replicated_count(cluster_b, REMOTE)
            process = start_mirror_maker(properties)
            try:
                wait_until(
                    lambda before=before: replicated_count(cluster_b, REMOTE) >= before + GROWTH_BEFORE_KILL,
                    f"replication to grow before kill {kill + 1}",
                    WAIT_S,
                    every_s=1.0,
                )
            finally:
                kill_group(process)
        written = upstream.stop()
    process = start_mirror_maker(properties)
    try:
        wait_until(
            lambda: distinct_replicated(cluster_b, REMOTE) >= written, f"{written} records in B", WAIT_S, 1.0
        )
    finally:
        kill_group(process)
    reports = compare(cluster_a, TOPIC, cluster_b, REMOTE)
    assert all(r.exactly_once and r.replicated == written // PARTITIONS for r in reports), reports
    assert "heartbeats" in cluster_b.admin().list_topics()

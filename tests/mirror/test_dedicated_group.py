"""Two `conveyor mirror` processes on one mm2.properties (KIP-710): the flow's group shares its tasks
between them, each task running once, and when the one running the first source task is killed with
SIGKILL the other takes its tasks over; cluster B ends up holding every record of A exactly once."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
from tests.worker.support import wait_until

from conveyor.log import Log

from .replication import compare, distinct_replicated, replicated_count
from .test_dedicated_mode import (
    PARTITIONS,
    REMOTE,
    TOPIC,
    WAIT_S,
    kill_group,
    start_mirror_maker,
    write_mm2_properties,
)
from .upstream import UpstreamWriter

SOURCE_CONNECTOR = "MirrorSourceConnector"
GROWTH = 400


def rest_url(log_file: Path) -> str | None:
    """The REST URL the flow's worker logged once it started."""
    found = (
        re.search(r"REST API at (http://\S+)", log_file.read_text(errors="replace"))
        if log_file.exists()
        else None
    )
    return found.group(1) if found else None


def task_workers(url: str) -> dict[int, str] | None:
    """Each RUNNING task of the source connector and the REST port of the worker it runs on (worker ids
    are `<host name>:<port>`), as the group's status says."""
    try:
        response = httpx.get(f"{url}/connectors/{SOURCE_CONNECTOR}/status", timeout=10)
    except httpx.HTTPError:
        return None
    if response.status_code != 200:
        return None
    return {t["id"]: port_of(t["worker_id"]) for t in response.json()["tasks"] if t["state"] == "RUNNING"}


def both_source_tasks_running(url: str, ids: list[str]) -> dict[int, str] | None:
    """The source tasks' processes once both tasks run in the two processes (the group balances all the
    flow's tasks, heartbeats and checkpoints included, so both may run in one)."""
    placed = task_workers(url)
    return placed if placed is not None and len(placed) == 2 and set(placed.values()) <= set(ids) else None


def port_of(address: str) -> str:
    return address.rstrip("/").rsplit(":", 1)[1]


@pytest.mark.timeout(900)  # three process starts, each starting Spark, on a busy machine
def test_two_processes_share_a_flow_and_one_survives_the_other_s_kill(
    tmp_path: Path, cluster_a: Log, cluster_b: Log
) -> None:
    cluster_a.admin().create_topic(TOPIC, partitions=PARTITIONS)
    properties = write_mm2_properties(
        tmp_path, cluster_a, cluster_b, "source", "A->B.tasks.max = 2", "scheduled.rebalance.max.delay.ms = 0"
    )
    logs = [tmp_path / "first.log", tmp_path / "second.log"]
    with UpstreamWriter(cluster_a, TOPIC, PARTITIONS) as upstream:
        first = start_mirror_maker(properties, logs[0])
        second = start_mirror_maker(properties, logs[1])
        try:
            urls = [
                wait_until(lambda log=log: rest_url(log), f"the REST URL in {log.name}", WAIT_S)
                for log in logs
            ]
            ids = [port_of(url) for url in urls]
            placed = wait_until(
                lambda: both_source_tasks_running(urls[0], ids),
                "the flow's two source tasks running, each in one of the processes",
                WAIT_S,
                every_s=1.0,
            )
            before = replicated_count(cluster_b, REMOTE)
            wait_until(
                lambda: replicated_count(cluster_b, REMOTE) >= before + GROWTH, "replication", WAIT_S, 1.0
            )
            victim = ids.index(placed[0])
            survivor = 1 - victim
            kill_group((first, second)[victim])
            wait_until(
                lambda: task_workers(urls[survivor]) == {0: ids[survivor], 1: ids[survivor]},
                "both source tasks running in the surviving process",
                WAIT_S,
                every_s=1.0,
            )
            after_kill = replicated_count(cluster_b, REMOTE)
            wait_until(
                lambda: replicated_count(cluster_b, REMOTE) >= after_kill + GROWTH,
                "replication goes on",
                WAIT_S,
                1.0,
            )
            written = upstream.stop()
            wait_until(
                lambda: distinct_replicated(cluster_b, REMOTE) >= written,
                f"{written} records in B",
                WAIT_S,
                1.0,
            )
        finally:
            for process in (first, second):
                if process.poll() is None:
                    kill_group(process)
    reports = compare(cluster_a, TOPIC, cluster_b, REMOTE)
    assert all(r.exactly_once and r.replicated == written // PARTITIONS for r in reports), reports

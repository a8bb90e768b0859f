"""Incremental cooperative assignment (KIP-415): the work of a worker that left waits
`scheduled.rebalance.max.delay.ms` for it to come back, then the group rebalances by itself and the
work moves to the workers that remain."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

from tests.herder.distributed.cluster import Member, followers_of, group
from tests.waiting import wait_until

GENERATOR = "conveyor.connectors.generator.connector:GeneratorSourceConnector"
DELAY_MS = "2000"


def endless_generator(tasks: int) -> dict[str, str]:
    return {"connector.class": GENERATOR, "topic": "generated", "tasks.max": str(tasks), "rate": "20"}


def running_per_worker(member: Member) -> Counter[str]:
    """Workers by the number of the connector's tasks each reports RUNNING."""
    tasks = member.http("GET", "/connectors/gen/status").json().get("tasks", [])
    return Counter(task["worker_id"] for task in tasks if task["state"] == "RUNNING")


def test_the_work_of_a_departed_worker_moves_once_the_delay_ends(tmp_path: Path) -> None:
    with group(tmp_path, 3, **{"scheduled.rebalance.max.delay.ms": DELAY_MS}) as members:
        first = members[0]
        first.http("POST", "/connectors", {"name": "gen", "config": endless_generator(tasks=6)})
        wait_until(lambda: len(running_per_worker(first)) == 3, "six tasks running on three workers")
        leaver = followers_of(members)[-1]
        members.remove(leaver)
        leaver.stop()
        remaining = {m.herder.worker_id for m in members}

        wait_until(
            lambda: (
                set(running_per_worker(first)) == remaining and sum(running_per_worker(first).values()) == 6
            ),
            "the departed worker's tasks running on the two that remain",
            timeout_s=40,
        )


def test_a_connector_created_after_a_departed_workers_delay_ended_runs(tmp_path: Path) -> None:
    with group(tmp_path, 3, **{"scheduled.rebalance.max.delay.ms": DELAY_MS}) as members:
        first = members[0]
        first.http("POST", "/connectors", {"name": "gen", "config": endless_generator(tasks=3)})
        wait_until(lambda: len(running_per_worker(first)) == 3, "three tasks running on three workers")
        leaver = followers_of(members)[-1]
        generation = first.herder.generation
        members.remove(leaver)
        leaver.stop()
        wait_until(
            lambda: all(m.herder.generation > generation and m.herder.ready() for m in members),
            "the remaining workers to settle without the departed one",
        )
        delay_over = time.monotonic() + int(DELAY_MS) / 1000
        wait_until(lambda: time.monotonic() > delay_over, "the departed worker's delay to end")

        created = first.http("POST", "/connectors", {"name": "late", "config": late_generator()})
        assert created.status_code == 201, created.text

        wait_until(
            lambda: running_tasks(first, "late") == 2,
            "the new connector's two tasks running",
            timeout_s=40,
        )


def late_generator() -> dict[str, str]:
    return {**endless_generator(tasks=2), "topic": "late"}


def running_tasks(member: Member, connector: str) -> int:
    response = member.http("GET", f"/connectors/{connector}/status")
    if response.status_code != 200:
        return 0
    return sum(task["state"] == "RUNNING" for task in response.json()["tasks"])

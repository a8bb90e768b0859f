"""A worker is in its group and runs its work, or is out of it and runs none: a herder whose work thread
fails or stalls, or that cannot catch up with the config topic, gives its tasks up for the group to run
elsewhere."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from tests.herder.distributed.cluster import Member, followers_of, group, leader_of, start_member
from tests.herder.distributed.cluster import group_props as base_props
from tests.waiting import wait_until

from conveyor.runtime.task_spec import TaskId

GENERATOR = "conveyor.connectors.generator.connector:GeneratorSourceConnector"
WAIT_S = 90.0


def endless_generator(tasks: int, topic: str = "generated") -> dict[str, str]:
    return {"connector.class": GENERATOR, "topic": topic, "tasks.max": str(tasks), "rate": "20"}


def tasks_of(connector: str, count: int) -> set[TaskId]:
    return {TaskId(connector, n) for n in range(count)}


def runs(member: Member, tasks: set[TaskId]) -> bool:
    """The member's herder runs every one of `tasks` and its runner has a live thread for each."""
    return tasks <= set(member.herder.running.tasks) and tasks <= member.runner.running()


def runs_none(member: Member) -> bool:
    """Neither the member's herder nor its runner runs any task any more."""
    return not member.herder.running.tasks and not member.runner.running()


def create(member: Member, name: str, config: dict[str, str]) -> None:
    response = member.http("POST", "/connectors", {"name": name, "config": config})
    assert response.status_code == 201, response.text


def test_a_herder_stalled_in_its_tick_leaves_the_group_its_tasks_stop_and_run_elsewhere(
    tmp_path: Path,
) -> None:
    """The stall is a call that blocks on the herder's work thread, queued as the herder queues its own
    work, so that nothing but the membership's poll timer can notice it."""
    with group(tmp_path, 2, **{"rebalance.timeout.ms": "5000"}) as members:
        leader, stalled = leader_of(members), followers_of(members)[0]
        create(leader, "gen", endless_generator(tasks=4))
        wait_until(lambda: bool(stalled.herder.running.tasks), "the follower running some tasks", WAIT_S)
        release = threading.Event()
        stalled.herder._requests.add(lambda: release.wait(WAIT_S * 2))
        stalled.herder.wakeup()
        try:
            wait_until(lambda: runs(leader, tasks_of("gen", 4)), "every task running on the leader", WAIT_S)
            wait_until(lambda: runs_none(stalled), "the stalled worker's tasks stopped", WAIT_S)
        finally:
            release.set()


def test_a_herder_whose_work_thread_fails_stops_its_tasks_leaves_the_group_and_reports_the_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An error nothing handles, raised here by a step of the leader's tick."""
    with group(tmp_path, 2) as members:
        leader, follower = leader_of(members), followers_of(members)[0]
        create(leader, "gen", endless_generator(tasks=4))
        wait_until(lambda: bool(leader.herder.running.tasks), "the leader running some tasks", WAIT_S)

        def fail() -> None:
            raise RuntimeError("a step of the tick failed")

        monkeypatch.setattr(leader.herder._leader, "rotate_session_key", fail)

        wait_until(lambda: runs_none(leader), "the failed worker's tasks stopped", WAIT_S)
        wait_until(
            lambda: runs(follower, tasks_of("gen", 4)),
            "every task running on the worker that remains",
            WAIT_S,
        )
        health = leader.http("GET", "/health")
        assert (health.status_code, health.json()["status"]) == (500, "unhealthy"), health.text
        assert "a step of the tick failed" in health.json()["message"]
        refused = leader.http("GET", "/connectors")
        assert refused.status_code == 503 and "shutting down" in refused.json()["message"], refused.text


def test_a_cooperative_worker_that_cannot_catch_up_with_the_config_topic_stops_its_tasks_after_its_backoffs(
    tmp_path: Path,
) -> None:
    """It leaves the group and backs off fractions of `scheduled.rebalance.max.delay.ms` (not the
    300 s `worker.unsync.backoff.ms`), then stops its work before the leader may hand it to others."""
    delays = {"scheduled.rebalance.max.delay.ms": "10000", "connect.protocol": "sessioned"}
    with group(tmp_path, 1, **delays) as members:
        leader = members[0]
        create(leader, "gen", endless_generator(tasks=4))
        wait_until(lambda: runs(leader, tasks_of("gen", 4)), "every task running on the first worker", WAIT_S)
        behind = start_member(base_props(tmp_path, **delays, **{"worker.unsync.backoff.ms": "300000"}))
        members.append(behind)
        wait_until(lambda: bool(behind.herder.running.tasks), "the second worker running some tasks", WAIT_S)
        behind.herder.configs.stop()
        create(leader, "more", endless_generator(tasks=1, topic="more"))

        wait_until(lambda: runs_none(behind), "the worker that cannot catch up to stop its tasks", WAIT_S)
        wait_until(
            lambda: runs(leader, tasks_of("gen", 4) | tasks_of("more", 1)),
            "every task running on the worker that can read the config topic",
            WAIT_S,
        )

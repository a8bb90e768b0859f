"""How a group rebalances under each `connect.protocol`: eager stops everything, cooperative only moves.

The workers run in this process (tasks in threads) and leave or join the group for real.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.herder.distributed.cluster import Member, group, group_props, settled, start_member
from tests.waiting import wait_until

GENERATOR = "conveyor.connectors.generator.connector:GeneratorSourceConnector"
TASKS = 6


def endless_generator(tasks: int = TASKS) -> dict[str, str]:
    return {"connector.class": GENERATOR, "topic": "endless", "tasks.max": str(tasks), "rate": "50"}


def tasks_running(members: list[Member], connector: str = "gen", count: int = TASKS) -> bool:
    """Every task RUNNING on one of `members`, as the status topic says."""
    ids = {m.herder.worker_id for m in members}
    response = members[0].http("GET", f"/connectors/{connector}/status")
    if response.status_code != 200:
        return False
    tasks = response.json()["tasks"]
    return len(tasks) == count and all(t["state"] == "RUNNING" and t["worker_id"] in ids for t in tasks)


def create_and_wait(members: list[Member]) -> None:
    assert (
        members[0].http("POST", "/connectors", {"name": "gen", "config": endless_generator()}).status_code
        == 201
    )
    wait_until(lambda: tasks_running(members), "every task running")


def test_the_group_speaks_the_oldest_protocol_of_its_members(tmp_path: Path) -> None:
    with group(tmp_path, 2) as members:
        eager = start_member(group_props(tmp_path, **{"connect.protocol": "eager"}))
        try:
            everyone = [*members, eager]
            wait_until(lambda: settled(everyone), "three workers settled")
            assert {m.herder.signing_required() for m in everyone} == {False}
            assert {m.herder._protocol.subprotocol for m in everyone} == {"default"}
        finally:
            eager.stop()


def test_under_eager_a_join_stops_every_task_of_the_workers_already_there(tmp_path: Path) -> None:
    with group(tmp_path, 2, **{"connect.protocol": "eager"}) as members:
        create_and_wait(members)
        stops_before = [len(m.runner.stops) for m in members]
        joining = start_member(group_props(tmp_path, **{"connect.protocol": "eager"}))
        try:
            everyone = [*members, joining]
            wait_until(
                lambda: settled(everyone) and joining.herder.running.tasks and tasks_running(everyone),
                "tasks running on three workers, some on the new one",
            )
            stopped = sum(
                len(m.runner.stops) - before for m, before in zip(members, stops_before, strict=True)
            )
            assert stopped == TASKS, [m.runner.stops for m in members]
        finally:
            joining.stop()


def test_under_cooperative_a_join_stops_only_the_tasks_that_move_to_the_new_worker(tmp_path: Path) -> None:
    with group(tmp_path, 2) as members:
        create_and_wait(members)
        stops_before = [len(m.runner.stops) for m in members]
        joining = start_member(group_props(tmp_path))
        try:
            everyone = [*members, joining]
            wait_until(
                lambda: settled(everyone) and joining.herder.running.tasks and tasks_running(everyone),
                "tasks running on three workers, some on the new one",
            )
            stopped = [
                t for m, before in zip(members, stops_before, strict=True) for t in m.runner.stops[before:]
            ]
            assert sorted(stopped, key=str) == sorted(joining.herder.running.tasks, key=str), [
                m.runner.stops for m in members
            ]
            assert len(stopped) < TASKS
        finally:
            joining.stop()


@pytest.mark.parametrize("protocol", ["eager", "compatible"])
def test_a_late_notice_of_the_task_configs_the_tasks_started_with_stops_nothing_and_rebalances_nothing(
    tmp_path: Path, protocol: str
) -> None:
    """A worker can read a task config commit while catching up for the very assignment that starts
    those tasks; the listener's notice then arrives after they run, and must not restart them."""
    with group(tmp_path, 2, **{"connect.protocol": protocol}) as members:
        create_and_wait(members)
        wait_until(lambda: settled(members), "both workers settled")
        before = [(m.herder.generation, len(m.runner.stops)) for m in members]
        for member in members:
            member.herder._tick.changes.on_task_configs_committed("gen", list(range(TASKS)))
        for member in members:
            wait_until(lambda m=member: not m.herder._tick.changes.needs_rebalance, "the notice taken")
        after = [(m.herder._submit(lambda m=m: m.herder.generation), len(m.runner.stops)) for m in members]
        assert after == before


def test_under_cooperative_the_work_of_a_departed_worker_waits_for_the_delay_then_moves(
    tmp_path: Path,
) -> None:
    with group(tmp_path, 3, **{"scheduled.rebalance.max.delay.ms": "1500"}) as members:
        create_and_wait(members)
        departing = next(m for m in members if m.herder.running.tasks and not m.herder.is_leader())
        stayed = [m for m in members if m is not departing]
        departing.stop()
        wait_until(
            lambda: any(m.herder._assignment and m.herder._assignment.delay_ms > 0 for m in stayed),
            "an assignment that holds the departed worker's work back",
        )
        wait_until(lambda: tasks_running(stayed), "every task running on the two workers that stayed")


def test_under_eager_the_work_of_a_departed_worker_moves_at_the_next_rebalance(tmp_path: Path) -> None:
    with group(
        tmp_path, 3, **{"connect.protocol": "eager", "scheduled.rebalance.max.delay.ms": "600000"}
    ) as members:
        create_and_wait(members)
        departing = next(m for m in members if m.herder.running.tasks)
        stayed = [m for m in members if m is not departing]
        departing.stop()
        wait_until(lambda: tasks_running(stayed), "every task running on the two workers that stayed")

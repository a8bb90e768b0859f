"""A group of real worker processes, broken on purpose: killed, frozen, their leader lost.

Every scenario ends by reading the generator's topic back, read_committed, and counting duplicates and
gaps per task: both zero, since the workers run with exactly-once source support enabled.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from tests.distributed.worker_group import WorkerGroup, generator, worker_group
from tests.waiting import wait_until
from tests.worker.support import read_values

from conveyor.connectors.generator.verify import Verification, verify
from conveyor.log import open_log

TASKS = 6
RECORDS = 1500
RATE = 200
WAIT_S = 120.0

pytestmark = pytest.mark.timeout(900)
"""Starting a group of worker processes, each with its SparkSession, takes long on a busy machine."""


def placements(status: dict[str, Any]) -> dict[str, Any]:
    """A status without the task metrics, which change from one request to the next."""
    return {
        "connector": status["connector"],
        "tasks": [{k: v for k, v in task.items() if k != "metrics"} for task in status["tasks"]],
    }


@pytest.fixture(scope="module")
def group(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WorkerGroup]:
    with worker_group(tmp_path_factory.mktemp("chaos"), 3, **{"exactly.once.source.support": "enabled"}) as g:
        yield g


def start_generator(group: WorkerGroup, name: str) -> None:
    follower = next(w for w in group.live() if w is not group.leader())
    response = group.request(
        follower, "POST", "/connectors", {"name": name, "config": generator(name, TASKS, RECORDS, RATE)}
    )
    assert response.status_code == 201, response.text
    group.wait_for_tasks_running(name, TASKS, f"{name}'s tasks running", WAIT_S)


def assert_every_record_once(group: WorkerGroup, topic: str) -> None:
    """Wait until every task's records have arrived, then count duplicates and gaps: none of either."""
    seen: list[Verification] = []

    def all_arrived() -> Verification | None:
        seen.append(verify(read_values(log, topic), RECORDS, TASKS))
        return seen[-1] if seen[-1].distinct == TASKS * RECORDS else None

    with open_log(group.log_url) as log:
        try:
            result = wait_until(all_arrived, f"all {TASKS * RECORDS} records in {topic}", WAIT_S, every_s=1.0)
        except AssertionError as timeout:
            raise AssertionError(f"{timeout}; last read: {seen[-1]}") from None
    assert (result.duplicates, result.gaps, result.unreadable) == (0, 0, 0)


def test_every_worker_reports_the_same_status_for_a_connector_created_on_a_follower(
    group: WorkerGroup,
) -> None:
    start_generator(group, "created-on-follower")
    statuses = [placements(group.status("created-on-follower", worker)) for worker in group.live()]
    assert all(status == statuses[0] for status in statuses[1:])
    assert_every_record_once(group, "created-on-follower")


def test_the_tasks_of_a_killed_worker_run_on_the_others_and_nothing_is_lost_or_repeated(
    group: WorkerGroup,
) -> None:
    start_generator(group, "killed-worker")
    status = group.status("killed-worker")
    victim = next(w for w in group.live() if any(t["worker_id"] == w.worker_id for t in status["tasks"]))
    victim.kill()
    group.remove(victim)
    group.wait_for_tasks_running("killed-worker", TASKS, "tasks moved", WAIT_S)
    assert_every_record_once(group, "killed-worker")
    group.add_worker()


def test_a_frozen_worker_that_wakes_as_a_zombie_is_fenced_and_repeats_nothing(group: WorkerGroup) -> None:
    start_generator(group, "zombie")
    status = group.status("zombie")
    zombie = next(w for w in group.live() if any(t["worker_id"] == w.worker_id for t in status["tasks"]))
    others = [w for w in group.live() if w is not zombie]
    zombie.freeze()
    try:
        wait_until(
            lambda: group.tasks_running_on("zombie", TASKS, others),
            "tasks moved off the frozen worker",
            WAIT_S,
        )
    finally:
        zombie.thaw()
    assert_every_record_once(group, "zombie")


def test_a_new_leader_is_elected_when_the_leader_is_killed(group: WorkerGroup) -> None:
    leader = group.leader()
    leader.kill()
    group.remove(leader)
    new_leader = group.leader()
    assert new_leader is not leader
    group.add_worker()

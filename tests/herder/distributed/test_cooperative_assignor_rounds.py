"""Round-by-round allocations of the cooperative assignor, in the scenarios of Kafka Connect's own
`IncrementalCooperativeAssignorTest`, with the per-member counts and delays Kafka expects.

Two connectors of four tasks each unless a scenario adds one; `scheduled.rebalance.max.delay.ms` is
Kafka's default 300000. Allocations are the sorted per-member counts after members apply each round.
"""

from __future__ import annotations

from conveyor.herder.distributed.assignment import ConnectorsAndTasks, configured_work
from conveyor.herder.distributed.cooperative_assignor import (
    ClusterAssignment,
    CooperativeState,
    perform_task_assignment,
)

from .support import config_of, tasks

DEFAULT_MAX_DELAY_MS = 300_000


class Rounds:
    """Kafka's test harness: members apply each round's revocations and assignments at once."""

    def __init__(self, max_delay_ms: int = DEFAULT_MAX_DELAY_MS) -> None:
        self.max_delay_ms = max_delay_ms
        self.task_counts = {"connector1": 4, "connector2": 4}
        self.members: dict[str, ConnectorsAndTasks] = {"worker1": ConnectorsAndTasks()}
        self.generation = 1000
        self.now_ms = 0
        self.state = CooperativeState(previous_generation=self.generation)
        self.last = ClusterAssignment({}, {}, {})

    def new_leader(self) -> None:
        self.state = CooperativeState(previous_generation=self.generation)

    def add_workers(self, *names: str) -> None:
        for name in names:
            self.members[name] = ConnectorsAndTasks()

    def rebalance(self, delivered: bool = True, leader_missed_a_generation: bool = False) -> None:
        """One round; an undelivered one is computed by the leader but never reaches the members."""
        self.generation += 1
        self.last, self.state = perform_task_assignment(
            self.state,
            configured_work(config_of(self.task_counts)),
            dict(self.members),
            self.generation - (2 if leader_missed_a_generation else 1),
            self.generation,
            self.now_ms,
            self.max_delay_ms,
        )
        if not delivered:
            return
        for worker, work in self.members.items():
            revoked, assigned = self.last.revoked[worker], self.last.assigned[worker]
            after = ConnectorsAndTasks.of(
                [c for c in work.connectors if c not in revoked.connectors] + list(assigned.connectors),
                [t for t in work.tasks if t not in revoked.tasks] + list(assigned.tasks),
            )
            assert set(after.connectors) == set(self.last.all_assigned[worker].connectors)
            assert set(after.tasks) == set(self.last.all_assigned[worker].tasks)
            self.members[worker] = after
        running = [t for work in self.members.values() for t in work.tasks]
        assert len(running) == len(set(running))

    @property
    def delay(self) -> int:
        return self.state.delay_ms

    def connector_allocations(self) -> list[int]:
        return sorted(len(work.connectors) for work in self.members.values())

    def task_allocations(self) -> list[int]:
        return sorted(len(work.tasks) for work in self.members.values())

    def nothing_moved(self) -> bool:
        return self.no_revocations() and all(work.is_empty() for work in self.last.assigned.values())

    def no_revocations(self) -> bool:
        return all(work.is_empty() for work in self.last.revoked.values())

    def complete(self) -> bool:
        running = sorted(str(t) for work in self.members.values() for t in work.tasks)
        return running == sorted(f"{c}-{n}" for c, count in self.task_counts.items() for n in range(count))


def test_worker_joins() -> None:
    group = Rounds()
    group.rebalance()
    assert (group.delay, group.connector_allocations(), group.task_allocations()) == (0, [2], [8])

    group.add_workers("worker2")
    group.rebalance()
    assert (group.delay, group.connector_allocations(), group.task_allocations()) == (0, [0, 1], [0, 4])

    group.rebalance()
    assert group.no_revocations()
    assert (group.delay, group.connector_allocations(), group.task_allocations()) == (0, [1, 1], [4, 4])

    group.rebalance()
    assert group.delay == 0 and group.nothing_moved()


def test_workers_join_after_revocations_with_growing_delays_between_revoking_rounds() -> None:
    group = Rounds()
    group.task_counts["connector3"] = 4
    group.rebalance()
    assert (group.connector_allocations(), group.task_allocations()) == ([3], [12])

    group.add_workers("worker2")
    group.rebalance()
    assert (group.connector_allocations(), group.task_allocations()) == ([0, 2], [0, 6])

    group.add_workers("worker3")
    group.rebalance()
    assert group.delay > 0
    assert (group.connector_allocations(), group.task_allocations()) == ([0, 1, 2], [3, 3, 6])

    group.now_ms += group.delay
    group.add_workers("worker4")
    group.rebalance()
    assert (group.connector_allocations(), group.task_allocations()) == ([0, 0, 1, 1], [0, 3, 3, 3])

    group.add_workers("worker5")
    group.rebalance()
    assert group.delay > 40
    assert (group.connector_allocations(), group.task_allocations()) == ([0, 0, 1, 1, 1], [1, 2, 3, 3, 3])

    group.now_ms += group.delay
    group.add_workers("worker6")
    group.rebalance()
    assert group.delay == 0
    assert (group.connector_allocations(), group.task_allocations()) == (
        [0, 0, 0, 1, 1, 1],
        [0, 1, 2, 2, 2, 2],
    )

    group.rebalance()
    assert (group.connector_allocations(), group.task_allocations()) == ([0, 0, 0, 1, 1, 1], [2] * 6)
    assert group.complete()


def test_revocations_are_immediate_when_the_max_delay_is_0() -> None:
    group = Rounds(max_delay_ms=0)
    group.task_counts["connector3"] = 4
    group.rebalance()
    group.add_workers("worker2")
    group.rebalance()
    assert (group.connector_allocations(), group.task_allocations()) == ([0, 2], [0, 6])

    group.add_workers("worker3")
    group.rebalance()
    assert group.delay == 0
    assert (group.connector_allocations(), group.task_allocations()) == ([0, 1, 1], [3, 3, 4])

    group.rebalance()
    assert group.no_revocations()
    assert (group.connector_allocations(), group.task_allocations()) == ([1, 1, 1], [4, 4, 4])


def test_successive_revocations_wait_the_max_delay_when_it_is_the_initial_backoff() -> None:
    group = Rounds(max_delay_ms=1)
    group.task_counts["connector3"] = 4
    group.rebalance()
    group.add_workers("worker2")
    group.rebalance()
    group.add_workers("worker3")
    group.rebalance()
    assert group.delay == 1
    assert (group.connector_allocations(), group.task_allocations()) == ([0, 1, 2], [3, 3, 6])


def test_worker_joining_during_a_delayed_rebalance() -> None:
    group = Rounds()
    group.task_counts["connector3"] = 4
    group.rebalance()
    group.add_workers("worker2")
    group.rebalance()
    group.add_workers("worker3")
    group.rebalance()
    assert group.delay > 0 and group.no_revocations()
    assert (group.connector_allocations(), group.task_allocations()) == ([0, 1, 2], [3, 3, 6])

    group.now_ms += group.delay // 2
    group.add_workers("worker4")
    group.rebalance()
    assert group.delay > 0 and group.no_revocations()
    assert (group.connector_allocations(), group.task_allocations()) == ([0, 0, 1, 2], [0, 3, 3, 6])

    group.now_ms += group.delay
    group.add_workers("worker5")
    group.rebalance()
    assert group.delay == 0
    assert (group.connector_allocations(), group.task_allocations()) == ([0, 0, 0, 1, 1], [0, 0, 2, 3, 3])

    group.rebalance()
    assert group.delay == 0 and group.no_revocations()
    assert (group.connector_allocations(), group.task_allocations()) == ([0, 0, 1, 1, 1], [2, 2, 2, 3, 3])
    assert group.complete()


def test_worker_leaves_permanently() -> None:
    group = Rounds()
    group.add_workers("worker2")
    group.rebalance()
    assert (group.connector_allocations(), group.task_allocations()) == ([1, 1], [4, 4])

    del group.members["worker2"]
    group.rebalance()
    assert group.delay == DEFAULT_MAX_DELAY_MS and group.nothing_moved()

    group.now_ms += DEFAULT_MAX_DELAY_MS // 2
    group.rebalance()
    assert group.delay == DEFAULT_MAX_DELAY_MS // 2 and group.nothing_moved()

    group.now_ms += DEFAULT_MAX_DELAY_MS // 2 + 1
    group.rebalance()
    assert group.delay == 0
    assert (group.connector_allocations(), group.task_allocations()) == ([2], [8])
    assert group.complete()


def test_worker_bounces() -> None:
    group = Rounds()
    group.add_workers("worker2")
    group.rebalance()
    del group.members["worker2"]
    group.rebalance()
    assert group.delay == DEFAULT_MAX_DELAY_MS and group.nothing_moved()

    group.now_ms += DEFAULT_MAX_DELAY_MS // 2
    group.rebalance()
    assert group.delay == DEFAULT_MAX_DELAY_MS // 2 and group.nothing_moved()

    group.now_ms += DEFAULT_MAX_DELAY_MS // 4
    group.add_workers("worker2")
    group.rebalance()
    assert group.delay == DEFAULT_MAX_DELAY_MS // 4 and group.nothing_moved()

    group.now_ms += DEFAULT_MAX_DELAY_MS // 4
    group.rebalance()
    assert group.delay == 0 and group.no_revocations()
    assert (group.connector_allocations(), group.task_allocations()) == ([1, 1], [4, 4])
    assert group.complete()


def test_leader_bounces() -> None:
    group = Rounds()
    group.add_workers("worker2", "worker3")
    group.rebalance()
    assert (group.connector_allocations(), group.task_allocations()) == ([0, 1, 1], [2, 3, 3])

    del group.members["worker1"]
    group.new_leader()
    group.rebalance()
    assert group.delay == 0
    assert (group.connector_allocations(), group.task_allocations()) == ([1, 1], [4, 4])

    group.add_workers("worker1")
    group.rebalance()
    assert group.delay == 0
    assert (group.connector_allocations(), group.task_allocations()) == ([0, 1, 1], [0, 3, 3])

    group.rebalance()
    assert group.delay == 0 and group.no_revocations()
    assert (group.connector_allocations(), group.task_allocations()) == ([0, 1, 1], [2, 3, 3])
    assert group.complete()


def test_first_assignment_attempt_fails() -> None:
    group = Rounds()
    group.add_workers("worker2")
    group.rebalance(delivered=False)
    assert (group.delay, group.connector_allocations(), group.task_allocations()) == (0, [0, 0], [0, 0])

    group.rebalance()
    assert (group.delay, group.connector_allocations(), group.task_allocations()) == (0, [1, 1], [4, 4])
    assert group.complete()


def test_subsequent_assignment_attempt_fails() -> None:
    group = Rounds()
    group.add_workers("worker2")
    group.rebalance()
    group.add_workers("worker3")
    group.rebalance(delivered=False)
    assert (group.delay, group.connector_allocations(), group.task_allocations()) == (0, [0, 1, 1], [0, 4, 4])

    group.rebalance()
    assert group.delay > 0
    assert (group.connector_allocations(), group.task_allocations()) == ([0, 1, 1], [0, 4, 4])

    group.now_ms += group.delay
    group.rebalance()
    assert (group.delay, group.connector_allocations(), group.task_allocations()) == (0, [0, 1, 1], [0, 3, 3])

    group.rebalance()
    assert (group.connector_allocations(), group.task_allocations()) == ([0, 1, 1], [2, 3, 3])
    assert group.complete()


def test_subsequent_assignment_attempt_fails_and_the_leader_misses_the_generation() -> None:
    group = Rounds()
    group.add_workers("worker2")
    group.rebalance()
    group.add_workers("worker3")
    group.rebalance(delivered=False)

    group.rebalance(leader_missed_a_generation=True)
    assert group.delay > 0
    assert (group.connector_allocations(), group.task_allocations()) == ([0, 1, 1], [0, 4, 4])

    group.now_ms += group.delay
    group.rebalance()
    assert (group.connector_allocations(), group.task_allocations()) == ([0, 1, 1], [0, 3, 3])

    group.rebalance()
    assert (group.connector_allocations(), group.task_allocations()) == ([0, 1, 1], [2, 3, 3])
    assert group.complete()


def test_connectors_are_deleted() -> None:
    group = Rounds()
    group.task_counts["connector3"] = 4
    group.add_workers("worker2")
    group.rebalance()
    assert (group.connector_allocations(), group.task_allocations()) == ([1, 2], [6, 6])

    del group.task_counts["connector3"]
    group.rebalance()
    assert (group.delay, group.connector_allocations(), group.task_allocations()) == (0, [1, 1], [4, 4])
    assert group.complete()


def test_tasks_duplicated_in_a_joining_workers_assignment() -> None:
    group = Rounds()
    group.rebalance()
    group.members["worker2"] = ConnectorsAndTasks.of(["connector1"], tasks("connector1", range(4)))
    group.rebalance()
    assert (group.delay, group.connector_allocations(), group.task_allocations()) == (0, [0, 1], [0, 4])

    group.rebalance()
    assert group.no_revocations()
    assert (group.delay, group.connector_allocations(), group.task_allocations()) == (0, [1, 1], [4, 4])
    assert group.complete()

    group.rebalance()
    assert group.delay == 0 and group.nothing_moved()


def test_duplicated_assignments_of_a_connector_deleted_at_the_same_time() -> None:
    group = Rounds()
    group.rebalance()
    del group.task_counts["connector1"]
    group.members["worker2"] = ConnectorsAndTasks.of(["connector1"], tasks("connector1", range(4)))
    group.rebalance()
    assert (group.delay, group.connector_allocations(), group.task_allocations()) == (0, [0, 1], [0, 2])

    group.rebalance()
    assert group.no_revocations()
    assert (group.delay, group.connector_allocations(), group.task_allocations()) == (0, [0, 1], [2, 2])
    assert group.complete()

    group.rebalance()
    assert group.delay == 0 and group.nothing_moved()

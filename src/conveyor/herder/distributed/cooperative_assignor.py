"""Kafka Connect's incremental cooperative assignor (KIP-415, protocol versions 1 and 2).

Members keep running what they have across a rebalance; the leader only tells each one what to stop
(revoked) and what to start (assigned). Work of a member that left is held back for
`scheduled.rebalance.max.delay.ms` in case it returns, and load is balanced in two rounds: revoke from
the busiest members first, hand the revoked work out in the follow-up rebalance.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field, replace
from typing import TypeVar

from conveyor.herder.distributed.assignment import (
    ConnectorsAndTasks,
    GroupAssignment,
    configured_work,
    current_work,
    java_order,
    leader_snapshot,
)
from conveyor.herder.distributed.protocol import NO_ERROR, ConnectAssignment, WorkerMetadata
from conveyor.herder.distributed.runtimes import ALL_RUNTIMES, Placement, Runtime, runtimes_of
from conveyor.runtime.task_spec import TaskId
from conveyor.storage.cluster_config_state import ClusterConfigState

T = TypeVar("T")

NO_PLACEMENT = Placement()

BACKOFF_MULTIPLIER = 40
"""Consecutive revoking rebalances are spaced by 1 ms, 40 ms, 1.6 s, ... up to the maximum delay."""


@dataclass(frozen=True)
class CooperativeState:
    """What the leader's assignor remembers from one rebalance to the next."""

    previous_assignment: ConnectorsAndTasks = field(default_factory=ConnectorsAndTasks)
    """Everything assigned after the last round, including lost work still held back."""
    previous_revocation: ConnectorsAndTasks = field(default_factory=ConnectorsAndTasks)
    previous_generation: int = -1
    previous_members: frozenset[str] = frozenset()
    scheduled_rebalance_ms: int = 0
    """When held-back lost work is due for reassignment (0: nothing is held back)."""
    delay_ms: int = 0
    candidate_workers: tuple[str, ...] = ()
    """Members that joined empty while lost work was held back: it goes to them when the delay ends."""
    revoked_in_previous: bool = False
    successive_revoking_rebalances: int = 0


@dataclass
class ClusterAssignment:
    """Per member: what to start and what to stop this round, and all it runs once it has done both."""

    assigned: dict[str, ConnectorsAndTasks]
    revoked: dict[str, ConnectorsAndTasks]
    all_assigned: dict[str, ConnectorsAndTasks]


@dataclass
class _WorkerLoad:
    """What one member will run after this round, edited step by step."""

    worker: str
    connectors: list[str] = field(default_factory=list)
    tasks: list[TaskId] = field(default_factory=list)

    def is_empty(self) -> bool:
        return not self.connectors and not self.tasks

    def remove(self, work: ConnectorsAndTasks) -> None:
        connectors, tasks = set(work.connectors), set(work.tasks)
        self.connectors = [c for c in self.connectors if c not in connectors]
        self.tasks = [t for t in self.tasks if t not in tasks]

    def work(self) -> ConnectorsAndTasks:
        return ConnectorsAndTasks.of(self.connectors, self.tasks)


def perform_task_assignment(
    state: CooperativeState,
    configured: ConnectorsAndTasks,
    member_assignments: Mapping[str, ConnectorsAndTasks],
    last_completed_generation: int,
    generation: int,
    now_ms: int,
    max_delay_ms: int,
    placement: Placement = NO_PLACEMENT,
) -> tuple[ClusterAssignment, CooperativeState]:
    """One round of Kafka's `performTaskAssignment`, from what is configured and what members run.

    With a `placement` (a group of two runtimes), work of a pinned connector running on a member that
    cannot run it is revoked, is never revoked for balance, and new work of it goes to the least loaded
    member that can run it.

    1. Start from the previous assignment P; forget it if the leader missed the last generation.
       If work revoked last round is still running (a member did not stop it), P is what runs now.
    2. Derive: deleted = P - configured; lost = P - active - deleted; created = configured - P - active;
       duplicated = what runs on more than one member.
    3. Revoke the deleted and the duplicated from every member that runs them.
    4. Lost work: reassign it now if no member left (a missed assignment) or the delay is 0; else hold it
       for `max_delay_ms`, noting members that join empty meanwhile, and when the delay ends give it to
       those members (or treat it as created work if there are none).
    5. With no delay running, revoke from each member what exceeds its balanced share (floor or ceil of
       configured / members) -- unless the last round revoked too, in which case the revocation waits
       an exponentially growing delay. Revoked work is handed out in the follow-up rebalance.
    6. Assign created and reassigned lost work to the least loaded members, round-robin.
    7. Each member is sent only what it newly starts, what it stops, and the delay; P becomes what runs
       after this round plus the lost work still held back.
    """
    # 1.
    previous = state.previous_assignment
    if state.previous_generation != last_completed_generation:
        previous = ConnectorsAndTasks()
    active = ConnectorsAndTasks.union(member_assignments.values())
    if _overlaps(state.previous_revocation, active):
        previous = active
    # 2.
    deleted = previous.minus(configured)
    lost = previous.minus(active, deleted)
    created = configured.minus(previous, active)
    duplicated = _duplicated(member_assignments)
    # 3.
    members = sorted(member_assignments, key=java_order)
    current = {m: (set(member_assignments[m].connectors), set(member_assignments[m].tasks)) for m in members}
    to_revoke = {
        m: ConnectorsAndTasks.union(
            [
                member_assignments[m].intersection(deleted),
                member_assignments[m].intersection(duplicated),
                _misplaced(m, member_assignments[m], placement),
            ]
        )
        for m in members
    }
    loads = [
        _WorkerLoad(m, list(member_assignments[m].connectors), list(member_assignments[m].tasks))
        for m in members
    ]
    for load in loads:
        load.remove(to_revoke[load.worker])
    # 4.
    state, lost_to_reassign = _handle_lost_assignments(state, lost, loads, now_ms, max_delay_ms)
    # 5.
    if state.delay_ms == 0:
        state, balancing = _balancing_revocations(state, configured, loads, now_ms, max_delay_ms)
        for load in loads:
            revoked = _unpinned(balancing.get(load.worker, ConnectorsAndTasks()), placement)
            to_revoke[load.worker] = ConnectorsAndTasks.union([to_revoke[load.worker], revoked])
            load.remove(revoked)
    else:
        state = replace(state, revoked_in_previous=False)
    # 6.
    to_assign = ConnectorsAndTasks.union([created, lost_to_reassign])
    _assign_connectors(loads, to_assign.connectors)
    _assign_tasks(loads, to_assign.tasks)
    _move_misplaced_new_work(loads, current, placement)
    # 7.
    after = {load.worker: load.work() for load in loads}
    assigned = {
        m: ConnectorsAndTasks(
            tuple(c for c in after[m].connectors if c not in current[m][0]),
            tuple(t for t in after[m].tasks if t not in current[m][1]),
        )
        for m in members
    }
    revoked_now = ConnectorsAndTasks.union(to_revoke.values())
    state = replace(
        state,
        previous_assignment=ConnectorsAndTasks.union(
            [ConnectorsAndTasks.union(after.values()).minus(revoked_now), lost]
        ),
        previous_revocation=revoked_now,
        previous_generation=generation,
        previous_members=frozenset(members),
    )
    return ClusterAssignment(assigned, {m: to_revoke[m] for m in members}, after), state


def _misplaced(member: str, work: ConnectorsAndTasks, placement: Placement) -> ConnectorsAndTasks:
    return ConnectorsAndTasks.of(
        (c for c in work.connectors if not placement.can_run(member, c)),
        (t for t in work.tasks if not placement.can_run(member, t.connector)),
    )


def _unpinned(work: ConnectorsAndTasks, placement: Placement) -> ConnectorsAndTasks:
    return ConnectorsAndTasks(
        tuple(c for c in work.connectors if not placement.pinned(c)),
        tuple(t for t in work.tasks if not placement.pinned(t.connector)),
    )


def _move_misplaced_new_work(
    loads: list[_WorkerLoad], current: Mapping[str, tuple[set[str], set[TaskId]]], placement: Placement
) -> None:
    """Hand each newly assigned connector or task that its member cannot run to the least loaded member
    that can (by count, then id, as the round-robin deals)."""
    if not placement.allowed:
        return
    for load in list(loads):
        running_connectors, running_tasks = current[load.worker]
        for connector in [c for c in load.connectors if c not in running_connectors]:
            if not placement.can_run(load.worker, connector):
                load.connectors.remove(connector)
                _least_loaded(loads, connector, placement, lambda other: other.connectors).connectors.append(
                    connector
                )
        for task in [t for t in load.tasks if t not in running_tasks]:
            if not placement.can_run(load.worker, task.connector):
                load.tasks.remove(task)
                _least_loaded(loads, task.connector, placement, lambda other: other.tasks).tasks.append(task)


def _least_loaded(
    loads: list[_WorkerLoad], connector: str, placement: Placement, held: Callable[[_WorkerLoad], list[T]]
) -> _WorkerLoad:
    able = [load for load in loads if placement.can_run(load.worker, connector)]
    return min(able, key=lambda load: (len(held(load)), java_order(load.worker)))


def _overlaps(one: ConnectorsAndTasks, other: ConnectorsAndTasks) -> bool:
    return bool(set(one.connectors) & set(other.connectors) or set(one.tasks) & set(other.tasks))


def _duplicated(member_assignments: Mapping[str, ConnectorsAndTasks]) -> ConnectorsAndTasks:
    connectors = Counter(c for work in member_assignments.values() for c in work.connectors)
    tasks = Counter(t for work in member_assignments.values() for t in work.tasks)
    return ConnectorsAndTasks.of(
        (c for c, count in connectors.items() if count > 1), (t for t, count in tasks.items() if count > 1)
    )


def _handle_lost_assignments(
    state: CooperativeState,
    lost: ConnectorsAndTasks,
    loads: list[_WorkerLoad],
    now_ms: int,
    max_delay_ms: int,
) -> tuple[CooperativeState, ConnectorsAndTasks]:
    """Step 4: the new state, and the lost work to assign as new work this round. Lost work that goes to
    candidate members is added to their loads here."""
    if lost.is_empty() and not state.revoked_in_previous:
        return _reset_delay(state), ConnectorsAndTasks()
    present = {load.worker for load in loads}
    if state.scheduled_rebalance_ms <= 0 and state.previous_members <= present:
        return state, lost
    if max_delay_ms == 0:
        return state, lost
    if 0 < state.scheduled_rebalance_ms <= now_ms:
        by_worker = {load.worker: load for load in loads}
        returned = [by_worker[w] for w in state.candidate_workers if w in by_worker]
        state = replace(_reset_delay(state), revoked_in_previous=False)
        if not returned:
            return state, lost
        for index, connector in enumerate(lost.connectors):
            returned[index % len(returned)].connectors.append(connector)
        for index, task in enumerate(lost.tasks):
            returned[index % len(returned)].tasks.append(task)
        return state, ConnectorsAndTasks()
    empty_members = sorted((load.worker for load in loads if load.is_empty()), key=java_order)
    candidates = tuple(dict.fromkeys([*state.candidate_workers, *empty_members]))
    if now_ms < state.scheduled_rebalance_ms:
        delay = min(state.scheduled_rebalance_ms - now_ms, max_delay_ms)
    else:
        delay = max_delay_ms
    state = replace(
        state, candidate_workers=candidates, delay_ms=delay, scheduled_rebalance_ms=now_ms + delay
    )
    return state, ConnectorsAndTasks()


def _reset_delay(state: CooperativeState) -> CooperativeState:
    return replace(state, candidate_workers=(), scheduled_rebalance_ms=0, delay_ms=0)


def _balancing_revocations(
    state: CooperativeState,
    configured: ConnectorsAndTasks,
    loads: list[_WorkerLoad],
    now_ms: int,
    max_delay_ms: int,
) -> tuple[CooperativeState, dict[str, ConnectorsAndTasks]]:
    """Step 5: what to revoke for balance this round (possibly nothing yet), and the new state."""
    revocations = _load_balancing_revocations(configured, loads)
    if state.revoked_in_previous and revocations:
        successive = state.successive_revoking_rebalances + 1
        delay = _revoking_backoff(successive, max_delay_ms)
        state = replace(state, successive_revoking_rebalances=successive, delay_ms=delay)
        if delay != 0:
            return replace(state, scheduled_rebalance_ms=now_ms + delay), {}
        return state, revocations
    if revocations:
        return replace(state, revoked_in_previous=True), revocations
    if state.revoked_in_previous:
        return replace(state, revoked_in_previous=False, successive_revoking_rebalances=0), {}
    return state, {}


def _revoking_backoff(attempts: int, max_delay_ms: int) -> int:
    """Kafka's `ExponentialBackoff(1, 40, max_delay_ms, jitter 0)` (initial 0 when the maximum is 0)."""
    initial = min(max_delay_ms, 0 if max_delay_ms == 0 else 1)
    if max_delay_ms <= initial:
        return initial
    exponent = min(attempts, math.log(max_delay_ms / max(initial, 1)) / math.log(BACKOFF_MULTIPLIER))
    return min(int(initial * BACKOFF_MULTIPLIER**exponent), max_delay_ms)


def _load_balancing_revocations(
    configured: ConnectorsAndTasks, loads: list[_WorkerLoad]
) -> dict[str, ConnectorsAndTasks]:
    if all(load.is_empty() for load in loads) or configured.is_empty():
        return {}
    connectors = _excess(len(configured.connectors), {load.worker: load.connectors for load in loads})
    tasks = _excess(len(configured.tasks), {load.worker: load.tasks for load in loads})
    return {
        worker: ConnectorsAndTasks(tuple(connectors.get(worker, ())), tuple(tasks.get(worker, ())))
        for worker in connectors.keys() | tasks.keys()
    }


def _excess(total: int, allocations: Mapping[str, list[T]]) -> dict[str, list[T]]:
    """Per member, the first items beyond its balanced share: `total // members`, plus one for as many
    members as `total % members`, given first to members that already run more than the minimum."""
    minimum, extras = divmod(total, len(allocations))
    sizes = [len(items) for items in allocations.values()]
    if sizes.count(minimum + 1) == extras and sizes.count(minimum) + extras == len(sizes):
        return {}
    excess: dict[str, list[T]] = {}
    extras_given = 0
    for worker, items in allocations.items():
        if len(items) <= minimum:
            continue
        allowed = minimum
        if extras_given < extras:
            extras_given += 1
            if len(items) == minimum + 1:
                continue
            allowed = minimum + 1
        excess[worker] = items[: len(items) - allowed]
    return excess


def _assign_connectors(loads: list[_WorkerLoad], connectors: Collection[str]) -> None:
    _assign_round_robin(loads, list(connectors), lambda load: load.connectors)


def _assign_tasks(loads: list[_WorkerLoad], tasks: Collection[TaskId]) -> None:
    _assign_round_robin(loads, list(tasks), lambda load: load.tasks)


def _assign_round_robin(
    loads: list[_WorkerLoad], items: list[T], held: Callable[[_WorkerLoad], list[T]]
) -> None:
    """Deal `items` to the least loaded members first: sorted by load then id, each pass goes over the
    members whose load equals the lightest one's (Kafka's `assignConnectors` and `assignTasks`)."""
    if not loads:
        return
    loads.sort(key=lambda load: (len(held(load)), java_order(load.worker)))
    remaining = iter(items)
    pending = len(items)
    while pending:
        lightest = len(held(loads[0]))
        level = next((i for i, load in enumerate(loads) if len(held(load)) > lightest), len(loads))
        for load in loads[:level]:
            held(load).append(next(remaining))
            pending -= 1
            if not pending:
                break


class IncrementalCooperativeAssignor:
    """The leader's assignor under the compatible and sessioned protocols; it keeps its state between
    rebalances and reads time from `clock_ms` (milliseconds), so tests can drive it."""

    def __init__(self, max_delay_ms: int, clock_ms: Callable[[], int]) -> None:
        self.max_delay_ms = max_delay_ms
        self._clock_ms = clock_ms
        self.state = CooperativeState()

    def assign(
        self,
        leader_id: str,
        members: Mapping[str, WorkerMetadata],
        config: ClusterConfigState,
        *,
        last_completed_generation: int,
        generation: int,
        read_fresh_config: Callable[[], ClusterConfigState] | None = None,
        member_runtimes: Callable[[], Mapping[str, Runtime]] | None = None,
    ) -> GroupAssignment:
        """Kafka's `performAssignment`: catch the leader's config up to the newest member offset (else
        CONFIG_MISMATCH for all), then one round of `perform_task_assignment`, keeping work on members
        whose runtime (`member_runtimes()`, by member id, asked only when some connector is not runnable
        by both runtimes) can run it."""
        leader = leader_snapshot(leader_id, members, config, read_fresh_config)
        if isinstance(leader, GroupAssignment):
            return leader
        snapshot, offset, leader_url = leader.config, leader.offset, leader.leader_url
        cluster, self.state = perform_task_assignment(
            self.state,
            configured_work(snapshot),
            {m: current_work(metadata) for m, metadata in members.items()},
            last_completed_generation,
            generation,
            self._clock_ms(),
            self.max_delay_ms,
            _placement(snapshot, member_runtimes),
        )
        assignments = {
            m: ConnectAssignment(
                leader_id,
                leader_url,
                offset,
                list(cluster.assigned[m].connectors),
                list(cluster.assigned[m].tasks),
                list(cluster.revoked[m].connectors),
                list(cluster.revoked[m].tasks),
                self.state.delay_ms,
                NO_ERROR,
            )
            for m in members
        }
        return GroupAssignment(assignments, config=snapshot, all_assigned=cluster.all_assigned)


def _placement(
    snapshot: ClusterConfigState, member_runtimes: Callable[[], Mapping[str, Runtime]] | None
) -> Placement:
    if member_runtimes is None:
        return NO_PLACEMENT
    classes = {
        name: (snapshot.connector_config(name) or {}).get("connector.class", "")
        for name in snapshot.connectors()
    }
    if all(runtimes_of(connector_class) == ALL_RUNTIMES for connector_class in classes.values()):
        return NO_PLACEMENT
    return Placement.of(member_runtimes(), classes.items())

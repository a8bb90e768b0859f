"""Kafka Connect's eager assignor (protocol version 0): every rebalance hands out all the work afresh."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from conveyor.herder.distributed.assignment import (
    ConnectorsAndTasks,
    GroupAssignment,
    configured_tasks,
    java_order,
    leader_snapshot,
    task_order,
)
from conveyor.herder.distributed.protocol import NO_ERROR, ConnectAssignment, WorkerMetadata
from conveyor.runtime.task_spec import TaskId
from conveyor.storage.cluster_config_state import ClusterConfigState


def eager_assignment(
    leader_id: str,
    members: Mapping[str, WorkerMetadata],
    config: ClusterConfigState,
    read_fresh_config: Callable[[], ClusterConfigState] | None = None,
) -> GroupAssignment:
    """Assign the leader's configured connectors and tasks round-robin over the members, as Kafka's
    `EagerAssignor` does.

    1. The assignment is made at the newest config offset any member has read; if the leader cannot
       reach it (even with a fresh snapshot), every member gets CONFIG_MISMATCH and nothing else.
    2. One circular iterator runs over the member ids, sorted. The sorted connectors are dealt first, then
       each sorted connector's tasks in task order, continuing the same iterator: dealing a connector
       and its tasks together would leave connectors on some members and tasks on others.
    """
    leader = leader_snapshot(leader_id, members, config, read_fresh_config)
    if isinstance(leader, GroupAssignment):
        return leader
    snapshot, offset, leader_url = leader.config, leader.offset, leader.leader_url

    member_ids = sorted(members, key=java_order)
    connectors: dict[str, list[str]] = {member: [] for member in member_ids}
    tasks: dict[str, list[TaskId]] = {member: [] for member in member_ids}
    dealt = 0
    sorted_connectors = sorted(snapshot.connectors(), key=java_order)
    for connector in sorted_connectors:
        connectors[member_ids[dealt % len(member_ids)]].append(connector)
        dealt += 1
    for connector in sorted_connectors:
        for task in sorted(configured_tasks(snapshot, connector), key=task_order):
            tasks[member_ids[dealt % len(member_ids)]].append(task)
            dealt += 1

    return GroupAssignment(
        {
            member: ConnectAssignment(
                leader_id, leader_url, offset, connectors[member], tasks[member], error=NO_ERROR
            )
            for member in member_ids
        },
        config=snapshot,
        all_assigned={
            member: ConnectorsAndTasks.of(connectors[member], tasks[member]) for member in member_ids
        },
    )

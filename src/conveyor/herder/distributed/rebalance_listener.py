"""How this worker takes part in its group's rebalances, as Kafka's `DistributedHerder` does in its
`RebalanceListener` and `WorkerCoordinator`: what it tells the group when it joins, the assignment it
makes as leader, and what it does when it is given work, loses it, or falls out of the group.

It owns what the leader learned in its last assignment (which member runs what, the members' URLs)
and the history of this worker's rebalances. It runs on the work thread inside the group member's
`ensure_active`, except `on_left`, which the heartbeat thread calls; starting what an assignment gives
is the tick's, once the assignment is settled.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import TYPE_CHECKING

from conveyor.herder.distributed.assignment import ConnectorsAndTasks, GroupAssignment
from conveyor.herder.distributed.cooperative_assignor import IncrementalCooperativeAssignor
from conveyor.herder.distributed.eager_assignor import eager_assignment
from conveyor.herder.distributed.protocol import (
    ConnectAssignment,
    ConnectProtocolCompatibility,
    WorkerMetadata,
    decode_assignment,
    decode_metadata,
    encode_assignment,
    join_protocols,
)
from conveyor.herder.distributed.runtimes import MemberRuntimes
from conveyor.log import JoinResult
from conveyor.log.group_member import Assignment
from conveyor.runtime.task_spec import TaskId
from conveyor.storage.cluster_config_state import ClusterConfigState

if TYPE_CHECKING:
    from conveyor.herder.distributed.herder import DistributedHerder

logger = logging.getLogger(__name__)


class RebalanceHistory:
    """When this worker's rebalances began and how long each took to settle, for
    `connect-worker-rebalance-metrics`."""

    def __init__(self) -> None:
        self.count = 0
        self.durations_ms: list[float] = []
        self.last_completed: float | None = None
        self._began: float | None = None

    @property
    def in_progress(self) -> bool:
        return self._began is not None

    def began(self) -> None:
        if self._began is None:
            self._began = time.monotonic()

    def completed(self) -> None:
        now = time.monotonic()
        if self._began is not None:
            self.durations_ms.append((now - self._began) * 1000)
            self._began = None
        self.count += 1
        self.last_completed = now


class WorkerRebalanceListener:
    """The group member's callbacks for one worker's herder."""

    def __init__(self, herder: DistributedHerder) -> None:
        self._herder = herder
        self.history = RebalanceHistory()
        self._cooperative = IncrementalCooperativeAssignor(
            herder.config.scheduled_rebalance_max_delay_ms, lambda: int(time.time() * 1000)
        )
        self._runtimes = MemberRuntimes(herder.internal, herder.url)
        self.member_urls: tuple[str, ...] = ()
        """The URLs of the group's members, as the last assignment this worker made as leader saw them."""
        self.owners: dict[str | TaskId, str] = {}
        """Which member's URL runs each connector and task, as the last assignment this worker made as
        leader gave them."""

    def join_protocols(self) -> list[tuple[str, bytes]]:
        self.history.began()
        owned = self._herder._work.owned
        current = None
        if self._herder._assignment is not None:
            current = ConnectAssignment(
                self._herder._assignment.leader,
                self._herder._assignment.leader_url,
                self._herder._assignment.config_offset,
                list(owned.connectors),
                list(owned.tasks),
            )
        metadata = WorkerMetadata(self._herder.url, self._herder._config_state.offset, current)
        return join_protocols(metadata, self._herder.mode)

    def assign(self, joined: JoinResult) -> dict[str, bytes]:
        """The leader's assignment for every member, under the protocol the group settled on."""
        protocol = ConnectProtocolCompatibility.from_subprotocol(joined.protocol)
        members = {member: decode_metadata(data) for member, data in joined.members.items()}

        def fresh() -> ClusterConfigState:
            self._herder.configs.read_to_end(self._herder.config.worker_sync_timeout_ms / 1000)
            self._herder._config_state = self._herder.configs.snapshot()
            return self._herder._config_state

        result: GroupAssignment
        if protocol is ConnectProtocolCompatibility.EAGER:
            result = eager_assignment(joined.leader_id, members, self._herder._config_state, fresh)
        else:
            result = self._cooperative.assign(
                joined.leader_id,
                members,
                self._herder._config_state,
                last_completed_generation=self._herder._generation,
                generation=joined.generation,
                read_fresh_config=fresh,
                member_runtimes=lambda: {member: self._runtimes.of(m.url) for member, m in members.items()},
            )
        owners: dict[str | TaskId, str] = {}
        for member, work in result.all_assigned.items():
            for connector in work.connectors:
                owners[connector] = members[member].url
            for task in work.tasks:
                owners[task] = members[member].url
        self.owners = owners
        self.member_urls = tuple(sorted({metadata.url for metadata in members.values()}))
        return {member: encode_assignment(a, protocol) for member, a in result.assignments.items()}

    def on_assigned(self, group_assignment: Assignment) -> None:
        assignment = decode_assignment(group_assignment.data)
        self._herder._protocol = ConnectProtocolCompatibility.from_subprotocol(group_assignment.protocol)
        logger.info(
            "Joined group at generation %d (%s) and got assignment: connectors %s, tasks %s, revoked %s %s, "
            "delay %d ms",
            group_assignment.generation,
            self._herder._protocol.subprotocol,
            assignment.connectors,
            [str(t) for t in assignment.tasks],
            assignment.revoked_connectors,
            [str(t) for t in assignment.revoked_tasks],
            assignment.delay_ms,
        )
        self._herder._assignment = assignment
        self._herder._generation = group_assignment.generation
        self._herder.worker.generation = group_assignment.generation
        self._herder._rebalance_resolved = False
        added = ConnectorsAndTasks.of(assignment.connectors, assignment.tasks)
        if self._herder._protocol is ConnectProtocolCompatibility.EAGER:
            self._herder._work.owned = added
        else:
            revoked = ConnectorsAndTasks.of(assignment.revoked_connectors, assignment.revoked_tasks)
            if not revoked.is_empty():
                self._herder._work.release(revoked)
                self._herder._member.request_rejoin()
            self._herder._work.owned = ConnectorsAndTasks.union(
                [self._herder._work.owned.minus(revoked), added]
            )
        if self._herder.is_leader():
            self._herder._leader.delete_removed_connector_statuses()
            self._herder._leader.claim_config_topic()
        else:
            self._herder._leader.give_up_config_topic()
        self._herder._member.wakeup()

    def on_revoked(self, previous: Assignment) -> None:
        if (
            ConnectProtocolCompatibility.from_subprotocol(previous.protocol)
            is ConnectProtocolCompatibility.EAGER
        ):
            logger.info("Rebalance started; stopping every connector and task (eager protocol)")
            self._herder._work.give_up_all()

    def on_lost(self, previous: Assignment) -> None:
        """The group went on without this worker: whatever it runs may run elsewhere already."""
        logger.warning("This worker fell out of the group; stopping every connector and task it ran")
        self._herder._work.give_up_all()
        self._herder._assignment = None
        self._herder._leader.give_up_config_topic()

    def on_left(self, previous: Assignment) -> None:
        """On the heartbeat thread: this worker is out of the group while its work thread is elsewhere
        (stuck in a tick, or yet to poll). Its tasks may be started by others any moment, so they stop
        now, on a thread of their own; the work thread releases the rest once it rejoins (`on_lost`)."""
        tasks = ConnectorsAndTasks.of(tasks=self._herder._work.running.tasks)
        if tasks.is_empty():
            return
        logger.warning("Out of the group; stopping tasks %s now", [str(t) for t in tasks.tasks])
        threading.Thread(
            target=self._herder._work.release_now, args=(tasks,), name="herder-left-group", daemon=True
        ).start()

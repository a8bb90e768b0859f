"""A subscribed consumer's membership of its group: ``GroupMember`` with Kafka's consumer protocol.

Eager (the default strategy): every partition is revoked before each rebalance and the listener
then hears of the whole new assignment. Cooperative (``CooperativeStickyAssignor`` alone): the
consumer keeps its partitions while it rejoins, offering them as owned; afterwards the listener hears
only of the partitions taken away (then the consumer rejoins at once, so the group can hand them to
their new owners) and of those newly added, as Kafka's ``ConsumerCoordinator`` does under KIP-429.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping

from conveyor.log.api import RebalanceListener
from conveyor.log.assignment_strategy import (
    RebalanceProtocol,
    assignors_from_config,
    group_assignor,
    rebalance_protocol,
)
from conveyor.log.client_config import int_setting
from conveyor.log.consumer_protocol import (
    NO_GENERATION,
    PROTOCOL_TYPE,
    Subscription,
    decode_assignment,
    encode_subscription,
)
from conveyor.log.embedded.database import Database
from conveyor.log.embedded.groups import EmbeddedGroupCoordinator
from conveyor.log.embedded.topics import find_topic
from conveyor.log.group_member import Assignment, GroupMember
from conveyor.positions import TopicPartition

REBALANCE_LOOK_S = 0.1
"""How often a polling member looks whether its group waits for it to rejoin. Kafka's consumer learns it
from its next heartbeat (every ``heartbeat.interval.ms``, 3 s); the embedded log's group is a row away, so
a member that polls rejoins within a tenth of a second, and consumers started together (a sink
connector's tasks) share the partitions from the start instead of the first one taking them all for up
to a heartbeat interval."""


class GroupSubscription:
    """Keeps a consumer's partitions in step with its group; ``apply`` receives each new assignment."""

    def __init__(
        self,
        database: Database,
        group_id: str,
        topics: Iterable[str],
        listener: RebalanceListener,
        apply: Callable[[list[TopicPartition]], None],
        config: Mapping[str, object],
    ) -> None:
        self._database = database
        self._listener = listener
        self._apply = apply
        self._topics = tuple(sorted(set(topics)))
        self._held: set[TopicPartition] = set()
        self._generation = NO_GENERATION
        self._group_id = group_id
        self._coordinator = EmbeddedGroupCoordinator(database)
        self._next_look = 0.0
        assignors = assignors_from_config(config)
        cooperative = rebalance_protocol(assignors) is RebalanceProtocol.COOPERATIVE
        self._member = GroupMember(
            self._coordinator,
            group_id,
            PROTOCOL_TYPE,
            lambda: [(assignor.name, self._subscription()) for assignor in assignors],
            group_assignor(assignors, self._partition_count),
            self._assigned_cooperatively if cooperative else self._assigned,
            None if cooperative else self._revoked,
            self._lost,
            session_timeout_ms=int_setting(config, "session.timeout.ms", 45_000, minimum=1),
            rebalance_timeout_ms=int_setting(config, "max.poll.interval.ms", 300_000, minimum=1),
            heartbeat_interval_ms=int_setting(config, "heartbeat.interval.ms", 3_000, minimum=1),
        )

    def ensure_active(self) -> None:
        """Carry out a pending rebalance, if any (blocks while the group rebalances), including one the
        group started since the last look (`REBALANCE_LOOK_S`) that no heartbeat has reported yet."""
        now = time.monotonic()
        if self._generation != NO_GENERATION and now >= self._next_look:
            self._next_look = now + REBALANCE_LOOK_S
            if self._coordinator.rebalancing(self._group_id, self._generation):
                self._member.request_rejoin()
        self._member.ensure_active()

    def request_rejoin(self) -> None:
        """Rejoin at the next poll, so that the group's assignment is computed again."""
        self._member.request_rejoin()

    def close(self) -> None:
        """Give the partitions up (telling the listener) and leave the group."""
        if self._held:
            self._listener.on_partitions_revoked(set(self._held))
            self._held = set()
        self._member.close()

    def _subscription(self) -> bytes:
        return encode_subscription(Subscription(self._topics, tuple(self._held), self._generation))

    def _assigned(self, assignment: Assignment) -> None:
        partitions = decode_assignment(assignment.data)
        self._held, self._generation = set(partitions), assignment.generation
        self._apply(partitions)
        self._listener.on_partitions_assigned(set(partitions))

    def _assigned_cooperatively(self, assignment: Assignment) -> None:
        partitions = decode_assignment(assignment.data)
        revoked, added = self._held - set(partitions), set(partitions) - self._held
        if revoked:
            self._listener.on_partitions_revoked(revoked)
        self._held, self._generation = set(partitions), assignment.generation
        self._apply(partitions)
        self._listener.on_partitions_assigned(added)
        if revoked:
            self._member.request_rejoin()

    def _revoked(self, _previous: Assignment) -> None:
        revoked, self._held = self._held, set()
        self._listener.on_partitions_revoked(revoked)
        self._apply([])

    def _lost(self, _previous: Assignment) -> None:
        lost, self._held, self._generation = self._held, set(), NO_GENERATION
        self._listener.on_partitions_lost(lost)
        self._apply([])

    def _partition_count(self, topic: str) -> int:
        """Partitions of a subscribed topic; a topic that does not exist (yet) has none to hand out."""
        with self._database.read() as conn:
            info = find_topic(conn, topic)
        return 0 if info is None else info.partitions

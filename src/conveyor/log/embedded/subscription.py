"""A subscribed consumer's membership of its group: ``GroupMember`` with Kafka's range assignment."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from conveyor.log.api import RebalanceListener
from conveyor.log.client_config import int_setting
from conveyor.log.embedded.database import Database
from conveyor.log.embedded.groups import EmbeddedGroupCoordinator
from conveyor.log.embedded.topics import find_topic
from conveyor.log.group_member import Assignment, GroupMember
from conveyor.log.range_assignor import (
    PROTOCOL_NAME,
    PROTOCOL_TYPE,
    decode_assignment,
    encode_subscription,
    range_assignor,
)
from conveyor.positions import TopicPartition


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
        self._held: set[TopicPartition] = set()
        subscription = encode_subscription(topics)
        self._member = GroupMember(
            EmbeddedGroupCoordinator(database),
            group_id,
            PROTOCOL_TYPE,
            lambda: [(PROTOCOL_NAME, subscription)],
            range_assignor(self._partition_count),
            self._assigned,
            self._revoked,
            self._lost,
            session_timeout_ms=int_setting(config, "session.timeout.ms", 45_000, minimum=1),
            rebalance_timeout_ms=int_setting(config, "max.poll.interval.ms", 300_000, minimum=1),
            heartbeat_interval_ms=int_setting(config, "heartbeat.interval.ms", 3_000, minimum=1),
        )

    def ensure_active(self) -> None:
        """Carry out a pending rebalance, if any (blocks while the group rebalances)."""
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

    def _assigned(self, assignment: Assignment) -> None:
        partitions = decode_assignment(assignment.data)
        self._held = set(partitions)
        self._apply(partitions)
        self._listener.on_partitions_assigned(set(partitions))

    def _revoked(self, _previous: Assignment) -> None:
        revoked, self._held = self._held, set()
        self._listener.on_partitions_revoked(revoked)
        self._apply([])

    def _lost(self, _previous: Assignment) -> None:
        lost, self._held = self._held, set()
        self._listener.on_partitions_lost(lost)
        self._apply([])

    def _partition_count(self, topic: str) -> int:
        """Partitions of a subscribed topic; a topic that does not exist (yet) has none to hand out."""
        with self._database.read() as conn:
            info = find_topic(conn, topic)
        return 0 if info is None else info.partitions

"""Group membership over Kafka's own group coordinator, for any protocol type (the herder's ``connect``).

librdkafka joins only ``consumer`` groups, so this speaks the classic group protocol itself:
FindCoordinator v1, JoinGroup v5, SyncGroup v3, Heartbeat v3 and LeaveGroup v3.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from conveyor.log import errors
from conveyor.log.api import GroupCoordinator, JoinResult
from conveyor.log.kafka.coordinators import GROUP, REQUEST_S, Coordinators
from conveyor.log.kafka.names import Namespace
from conveyor.log.kafka.settings import KafkaSettings
from conveyor.log.kafka.wire import Reader, Writer

JOIN_GROUP, HEARTBEAT, LEAVE_GROUP, SYNC_GROUP = 11, 12, 13, 14
_MEMBER_ID_REQUIRED = 79
_ERRORS: dict[int, type[errors.LogError]] = {
    22: errors.IllegalGenerationError,
    23: errors.InconsistentGroupProtocolError,
    24: errors.InvalidGroupIdError,
    25: errors.UnknownMemberIdError,
    26: errors.InvalidConfigError,
    27: errors.RebalanceInProgressError,
}
_NAMES = {
    22: "ILLEGAL_GENERATION",
    23: "INCONSISTENT_GROUP_PROTOCOL",
    24: "INVALID_GROUP_ID",
    25: "UNKNOWN_MEMBER_ID",
    26: "INVALID_SESSION_TIMEOUT",
    27: "REBALANCE_IN_PROGRESS",
}


class KafkaGroupCoordinator(GroupCoordinator):
    """Kafka's group coordinator, reached as the log's clients reach the cluster (TLS and SASL included)."""

    def __init__(self, settings: KafkaSettings, coordinators: Coordinators) -> None:
        self._names = Namespace(settings.namespace)
        self._coordinators = coordinators

    def join_group(
        self,
        group_id: str,
        member_id: str | None,
        protocol_type: str,
        protocols: Sequence[tuple[str, bytes]],
        session_timeout_ms: int,
        rebalance_timeout_ms: int,
    ) -> JoinResult:
        member = member_id or ""
        wait_s = (rebalance_timeout_ms + session_timeout_ms) / 1000 + REQUEST_S
        while True:
            body = (
                Writer()
                .string(self._names.outer(group_id))
                .int32(session_timeout_ms)
                .int32(rebalance_timeout_ms)
                .string(member)
                .string(None)
                .string(protocol_type)
                .array(protocols, lambda w, p: w.string(p[0]).bytes_(p[1]))  # type: ignore[index]
                .build()
            )
            reader = self._call(group_id, JOIN_GROUP, 5, body, wait_s)
            reader.int32()
            error = reader.int16()
            generation = reader.int32()
            protocol = reader.string() or ""
            leader = reader.string() or ""
            member = reader.string() or ""
            if error == _MEMBER_ID_REQUIRED:
                continue
            self._check(error, group_id, f"protocol type {protocol_type}")
            members: dict[str, bytes] = {}
            for _ in range(reader.count()):
                other = reader.string() or ""
                reader.string()
                members[other] = reader.bytes_() or b""
            return JoinResult(generation, member, leader, protocol, members)

    def sync_group(
        self, group_id: str, generation: int, member_id: str, assignments: Mapping[str, bytes] | None
    ) -> bytes:
        body = (
            Writer()
            .string(self._names.outer(group_id))
            .int32(generation)
            .string(member_id)
            .string(None)
            .array(list((assignments or {}).items()), lambda w, a: w.string(a[0]).bytes_(a[1]))  # type: ignore[index]
            .build()
        )
        reader = self._checked_call(group_id, SYNC_GROUP, 3, body, REQUEST_S * 2, f"member {member_id}")
        return reader.bytes_() or b""

    def heartbeat(self, group_id: str, generation: int, member_id: str) -> None:
        body = Writer().string(self._names.outer(group_id)).int32(generation).string(member_id).string(None)
        self._checked_call(group_id, HEARTBEAT, 3, body.build(), REQUEST_S, f"member {member_id}")

    def leave_group(self, group_id: str, member_id: str) -> None:
        leaving = [member_id]
        body = (
            Writer()
            .string(self._names.outer(group_id))
            .array(
                leaving,
                lambda w, m: w.string(m).string(None),  # type: ignore[arg-type]
            )
        )
        reader = self._checked_call(group_id, LEAVE_GROUP, 3, body.build(), REQUEST_S, f"member {member_id}")
        for _ in range(reader.count()):
            reader.string()
            reader.string()
            self._check(reader.int16(), group_id, f"member {member_id}")

    def _call(self, group_id: str, api_key: int, version: int, body: bytes, timeout_s: float) -> Reader:
        return self._coordinators.call(self._names.outer(group_id), GROUP, api_key, version, body, timeout_s)

    def _checked_call(
        self, group_id: str, api_key: int, version: int, body: bytes, timeout_s: float, about: str
    ) -> Reader:
        """The answer read past its throttle time and error code; raises that error, if any."""
        reader = self._call(group_id, api_key, version, body, timeout_s)
        reader.int32()
        self._check(reader.int16(), group_id, about)
        return reader

    @staticmethod
    def _check(error: int, group_id: str, about: str) -> None:
        if error == 0:
            return
        kind = _ERRORS.get(error, errors.LogError)
        raise kind(f"Group {group_id}: {_NAMES.get(error, f'error {error}')} ({about})")

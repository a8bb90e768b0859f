"""Group membership over Kafka's own group coordinator, for any protocol type (the herder's ``connect``).

librdkafka joins only ``consumer`` groups, so this speaks the classic group protocol itself:
FindCoordinator v1, JoinGroup v5, SyncGroup v3, Heartbeat v3 and LeaveGroup v3.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping, Sequence

from conveyor.log import errors
from conveyor.log.api import GroupCoordinator, JoinResult
from conveyor.log.kafka.names import Namespace
from conveyor.log.kafka.settings import KafkaSettings
from conveyor.log.kafka.wire import Address, ConnectionPool, Reader, Writer

FIND_COORDINATOR, JOIN_GROUP, HEARTBEAT, LEAVE_GROUP, SYNC_GROUP = 10, 11, 12, 13, 14
_RETRY_S = 30.0
_REQUEST_S = 30.0

_NOT_AVAILABLE = {14, 15, 16}  # COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR
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


class _CoordinatorMoved(Exception):
    """The broker asked is not (or not yet) the group's coordinator: find it again and retry."""


class KafkaGroupCoordinator(GroupCoordinator):
    """Kafka's group coordinator, reached over plain connections (``security.protocol=PLAINTEXT`` only)."""

    def __init__(self, settings: KafkaSettings) -> None:
        protocol = settings.common.get("security.protocol", "PLAINTEXT").upper()
        if protocol != "PLAINTEXT":
            raise errors.InvalidConfigError(
                f"Group membership over Kafka speaks PLAINTEXT only, not security.protocol={protocol}"
            )
        self._names = Namespace(settings.namespace)
        self._bootstrap = [
            Address(host, int(port))
            for host, _, port in (server.rpartition(":") for server in settings.bootstrap_servers.split(","))
        ]
        self._pool = ConnectionPool(f"conveyor-{uuid.uuid4().hex[:8]}", _REQUEST_S)
        self._coordinators: dict[str, Address] = {}

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
        wait_s = (rebalance_timeout_ms + session_timeout_ms) / 1000 + _REQUEST_S
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
        reader = self._call(group_id, SYNC_GROUP, 3, body, _REQUEST_S * 2)
        reader.int32()
        self._check(reader.int16(), group_id, f"member {member_id}")
        return reader.bytes_() or b""

    def heartbeat(self, group_id: str, generation: int, member_id: str) -> None:
        body = Writer().string(self._names.outer(group_id)).int32(generation).string(member_id).string(None)
        reader = self._call(group_id, HEARTBEAT, 3, body.build(), _REQUEST_S)
        reader.int32()
        self._check(reader.int16(), group_id, f"member {member_id}")

    def leave_group(self, group_id: str, member_id: str) -> None:
        leaving = [member_id]
        body = Writer().string(self._names.outer(group_id)).array(
            leaving,
            lambda w, m: w.string(m).string(None),  # type: ignore[arg-type]
        )
        reader = self._call(group_id, LEAVE_GROUP, 3, body.build(), _REQUEST_S)
        reader.int32()
        self._check(reader.int16(), group_id, f"member {member_id}")
        for _ in range(reader.count()):
            reader.string()
            reader.string()
            self._check(reader.int16(), group_id, f"member {member_id}")

    def close(self) -> None:
        self._pool.close()

    def _call(self, group_id: str, api_key: int, version: int, body: bytes, timeout_s: float) -> Reader:
        """Send to the group's coordinator, finding it (again) while it is unknown, moving or loading."""
        deadline = time.monotonic() + _RETRY_S
        while True:
            try:
                address = self._coordinator(group_id)
                reader = self._pool.request(address, api_key, version, body, timeout_s)
                if reader.peek_error_code() in _NOT_AVAILABLE:
                    raise _CoordinatorMoved("the coordinator moved")
                return reader
            except (_CoordinatorMoved, OSError) as problem:
                self._coordinators.pop(group_id, None)
                if time.monotonic() > deadline:
                    raise errors.LogError(f"Group {group_id}: no coordinator reachable ({problem})") from None
                time.sleep(0.1)

    def _coordinator(self, group_id: str) -> Address:
        known = self._coordinators.get(group_id)
        if known is not None:
            return known
        body = Writer().string(self._names.outer(group_id)).int8(0).build()
        problem: Exception | None = None
        for bootstrap in self._bootstrap:
            try:
                reader = self._pool.request(bootstrap, FIND_COORDINATOR, 1, body, _REQUEST_S)
            except OSError as error:
                problem = error
                continue
            reader.int32()
            error_code = reader.int16()
            reader.string()
            reader.int32()
            host, port = reader.string() or "", reader.int32()
            if error_code in _NOT_AVAILABLE:
                raise _CoordinatorMoved(f"coordinator not available yet (error {error_code})")
            self._check(error_code, group_id, "finding the coordinator")
            address = Address(host, port)
            self._coordinators[group_id] = address
            return address
        raise _CoordinatorMoved(f"no bootstrap server answered ({problem})")

    @staticmethod
    def _check(error: int, group_id: str, about: str) -> None:
        if error == 0:
            return
        kind = _ERRORS.get(error, errors.LogError)
        raise kind(f"Group {group_id}: {_NAMES.get(error, f'error {error}')} ({about})")


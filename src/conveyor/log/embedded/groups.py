"""The group coordinator of the embedded log: Kafka's JoinGroup/SyncGroup/Heartbeat/LeaveGroup on SQLite.

Group state lives in the database, so members in different processes share one coordinator without a
broker process. A blocked join or sync polls the database; any member's call first evicts members whose
session timed out, which moves a settled group back to rebalancing. A join round completes when every
known member has rejoined or the largest rebalance timeout has passed (stragglers are removed); whoever
sees that first completes it: bumps the generation, keeps the leader (or picks the earliest joiner), and
chooses the first protocol in the leader's preference that every member supports.
"""

from __future__ import annotations

import sqlite3
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from conveyor.log.api import GroupCoordinator, JoinResult
from conveyor.log.embedded.database import Database, now_ms
from conveyor.log.embedded.named_bytes import pack_named_bytes, unpack_named_bytes
from conveyor.log.errors import (
    IllegalGenerationError,
    InconsistentGroupProtocolError,
    InvalidGroupIdError,
    LogError,
    RebalanceInProgressError,
    UnknownMemberIdError,
)

EMPTY = "Empty"
PREPARING_REBALANCE = "PreparingRebalance"
COMPLETING_REBALANCE = "CompletingRebalance"
STABLE = "Stable"
_FIRST_WAIT_S = 0.005
_MAX_WAIT_S = 0.05


@dataclass(slots=True)
class _Group:
    group_id: str
    protocol_type: str
    state: str
    generation: int
    leader_id: str | None
    protocol: str | None
    rebalance_deadline_ms: int


@dataclass(slots=True)
class _Member:
    member_id: str
    protocols: list[tuple[str, bytes]]
    session_timeout_ms: int
    rebalance_timeout_ms: int
    last_heartbeat_ms: int
    joined: bool
    generation: int
    join_seq: int
    leader_id: str | None
    protocol: str | None
    members: bytes | None
    assignment: bytes | None


class EmbeddedGroupCoordinator(GroupCoordinator):
    """Group membership for members in any process that opens the same log directory."""

    def __init__(self, database: Database) -> None:
        self._database = database

    def join_group(
        self,
        group_id: str,
        member_id: str | None,
        protocol_type: str,
        protocols: Sequence[tuple[str, bytes]],
        session_timeout_ms: int,
        rebalance_timeout_ms: int,
    ) -> JoinResult:
        _require_group_id(group_id)
        if not protocols:
            raise InconsistentGroupProtocolError(
                f"Group {group_id}: a member must offer at least one protocol"
            )
        with self._database.write() as conn:
            now = now_ms()
            _evict_expired(conn, group_id, now)
            group = _load_group(conn, group_id) or _create_group(conn, group_id, protocol_type)
            members = _load_members(conn, group_id)
            _check_protocols(group, members, member_id, protocol_type, protocols)
            if group.protocol_type != protocol_type:
                _adopt_protocol_type(conn, group, protocol_type)
            if member_id is not None and member_id not in members:
                raise UnknownMemberIdError(f"Group {group_id} has no member {member_id}")
            current = members.get(member_id) if member_id is not None else None
            if current is not None and _can_skip_rebalance(group, current, protocols):
                return _join_result(current, group_id)
            member_id = member_id or f"member-{uuid.uuid4()}"
            _upsert_joining_member(
                conn, group_id, member_id, protocols, session_timeout_ms, rebalance_timeout_ms, now
            )
            if group.state != PREPARING_REBALANCE:
                _start_rebalance(conn, group, now, rejoined=member_id)
            _extend_deadline(conn, group_id, now + rebalance_timeout_ms)
            start_generation = group.generation
        return self._await_join(group_id, member_id, start_generation)

    def sync_group(
        self, group_id: str, generation: int, member_id: str, assignments: Mapping[str, bytes] | None
    ) -> bytes:
        error: LogError | None = None
        with self._database.write() as conn:
            now = now_ms()
            _evict_expired(conn, group_id, now)
            group, member = _require_member(conn, group_id, member_id)
            if generation != group.generation:
                raise _illegal_generation(group, member_id, "syncs", generation)
            _touch(conn, group_id, member_id, now)
            if group.state == PREPARING_REBALANCE:
                error = _rebalancing(group_id)
            elif (
                group.state == COMPLETING_REBALANCE
                and member_id == group.leader_id
                and assignments is not None
            ):
                conn.executemany(
                    "UPDATE group_members SET assignment = ? WHERE group_id = ? AND member_id = ?",
                    [
                        (assignments.get(other, b""), group_id, other)
                        for other in _load_members(conn, group_id)
                    ],
                )
                conn.execute("UPDATE groups SET state = ? WHERE group_id = ?", (STABLE, group_id))
                return assignments.get(member_id, b"")
            elif group.state == STABLE:
                return member.assignment or b""
        if error is not None:
            raise error
        return self._await_assignment(group_id, generation, member_id)

    def heartbeat(self, group_id: str, generation: int, member_id: str) -> None:
        error: LogError | None = None
        with self._database.write() as conn:
            now = now_ms()
            _evict_expired(conn, group_id, now)
            group, _ = _require_member(conn, group_id, member_id)
            if generation != group.generation:
                error = _illegal_generation(group, member_id, "heartbeats", generation)
            else:
                _touch(conn, group_id, member_id, now)
                if group.state == PREPARING_REBALANCE:
                    error = _rebalancing(group_id)
        if error is not None:
            raise error

    def rebalancing(self, group_id: str, generation: int) -> bool:
        """Whether the group, still at ``generation``, waits for its members to rejoin: a read of one row,
        cheap enough for a member to ask at each poll rather than learn it at its next heartbeat."""
        with self._database.read() as conn:
            row = conn.execute(
                "SELECT state, generation FROM groups WHERE group_id = ?", (group_id,)
            ).fetchone()
        return row is not None and row[0] == PREPARING_REBALANCE and row[1] == generation

    def leave_group(self, group_id: str, member_id: str) -> None:
        with self._database.write() as conn:
            group, _ = _require_member(conn, group_id, member_id)
            conn.execute(
                "DELETE FROM group_members WHERE group_id = ? AND member_id = ?", (group_id, member_id)
            )
            _after_members_removed(conn, group, now_ms())

    def _await_join(self, group_id: str, member_id: str, start_generation: int) -> JoinResult:
        wait = _FIRST_WAIT_S
        while True:
            with self._database.read() as conn:
                member = _load_members(conn, group_id).get(member_id)
                group = _load_group(conn, group_id)
            if member is None or group is None:
                raise UnknownMemberIdError(f"Group {group_id}: member {member_id} was removed while joining")
            if member.generation > start_generation:
                return _join_result(member, group_id)
            if group.state == PREPARING_REBALANCE:
                with self._database.write() as conn:
                    _evict_expired(conn, group_id, now_ms())
                    _try_complete_join(conn, group_id, now_ms())
            time.sleep(wait)
            wait = min(wait * 2, _MAX_WAIT_S)

    def _await_assignment(self, group_id: str, generation: int, member_id: str) -> bytes:
        wait = _FIRST_WAIT_S
        while True:
            time.sleep(wait)
            wait = min(wait * 2, _MAX_WAIT_S)
            with self._database.write() as conn:
                now = now_ms()
                _evict_expired(conn, group_id, now)
                group = _load_group(conn, group_id)
                member = _load_members(conn, group_id).get(member_id)
                if member is not None:
                    _touch(conn, group_id, member_id, now)
            if group is None or member is None:
                raise UnknownMemberIdError(f"Group {group_id}: member {member_id} was removed while syncing")
            if group.generation != generation or group.state == PREPARING_REBALANCE:
                raise _rebalancing(group_id)
            if group.state == STABLE:
                return member.assignment or b""


def _require_group_id(group_id: str) -> None:
    if not group_id:
        raise InvalidGroupIdError("Group membership needs a non-empty group id")


def _rebalancing(group_id: str) -> RebalanceInProgressError:
    return RebalanceInProgressError(f"Group {group_id} is rebalancing: rejoin")


def _load_group(conn: sqlite3.Connection, group_id: str) -> _Group | None:
    row = conn.execute(
        "SELECT group_id, protocol_type, state, generation, leader_id, protocol, rebalance_deadline_ms"
        " FROM groups WHERE group_id = ?",
        (group_id,),
    ).fetchone()
    return None if row is None else _Group(*row)


def _create_group(conn: sqlite3.Connection, group_id: str, protocol_type: str) -> _Group:
    group = _Group(group_id, protocol_type, EMPTY, 0, None, None, 0)
    conn.execute(
        "INSERT INTO groups VALUES (?, ?, ?, ?, ?, ?, ?)",
        (group_id, protocol_type, EMPTY, 0, None, None, 0),
    )
    return group


def _load_members(conn: sqlite3.Connection, group_id: str) -> dict[str, _Member]:
    rows = conn.execute(
        "SELECT member_id, protocols, session_timeout_ms, rebalance_timeout_ms, last_heartbeat_ms, joined,"
        " generation, join_seq, leader_id, protocol, members, assignment"
        " FROM group_members WHERE group_id = ? ORDER BY join_seq",
        (group_id,),
    ).fetchall()
    return {
        row[0]: _Member(row[0], unpack_named_bytes(row[1]), row[2], row[3], row[4], bool(row[5]), *row[6:])
        for row in rows
    }


def _illegal_generation(
    group: _Group, member_id: str, action: str, generation: int
) -> IllegalGenerationError:
    """The error of a member that ``action``s (syncs, heartbeats) an old generation of ``group``."""
    return IllegalGenerationError(
        f"Group {group.group_id}: member {member_id} {action} generation {generation}, "
        f"the group is at {group.generation}"
    )


def _require_member(conn: sqlite3.Connection, group_id: str, member_id: str) -> tuple[_Group, _Member]:
    group = _load_group(conn, group_id)
    member = _load_members(conn, group_id).get(member_id) if group is not None else None
    if group is None or member is None:
        raise UnknownMemberIdError(f"Group {group_id} has no member {member_id}")
    return group, member


def _check_protocols(
    group: _Group,
    members: Mapping[str, _Member],
    member_id: str | None,
    protocol_type: str,
    protocols: Sequence[tuple[str, bytes]],
) -> None:
    others = [member for other_id, member in members.items() if other_id != member_id]
    if not others:
        return
    if group.protocol_type != protocol_type:
        raise InconsistentGroupProtocolError(
            f"Group {group.group_id} has protocol type {group.protocol_type}, not {protocol_type}"
        )
    common = {name for name, _ in protocols}
    for member in others:
        common &= {name for name, _ in member.protocols}
    if not common:
        offered = [name for name, _ in protocols]
        raise InconsistentGroupProtocolError(
            f"Group {group.group_id}: protocols {offered} share none with the members'"
        )


def _adopt_protocol_type(conn: sqlite3.Connection, group: _Group, protocol_type: str) -> None:
    """A group without other members takes the protocol type of the member joining it."""
    conn.execute("UPDATE groups SET protocol_type = ? WHERE group_id = ?", (protocol_type, group.group_id))
    group.protocol_type = protocol_type


def _can_skip_rebalance(group: _Group, member: _Member, protocols: Sequence[tuple[str, bytes]]) -> bool:
    """A known member rejoining a settled group with unchanged metadata gets the current generation back."""
    unchanged = member.protocols == list(protocols) and member.generation == group.generation
    if group.state == COMPLETING_REBALANCE:
        return unchanged
    return group.state == STABLE and unchanged and member.member_id != group.leader_id


def _join_result(member: _Member, group_id: str) -> JoinResult:
    if member.leader_id is None or member.protocol is None:
        raise UnknownMemberIdError(f"Group {group_id}: member {member.member_id} has not completed a join")
    members = dict(unpack_named_bytes(member.members)) if member.members is not None else {}
    return JoinResult(member.generation, member.member_id, member.leader_id, member.protocol, members)


def _upsert_joining_member(
    conn: sqlite3.Connection,
    group_id: str,
    member_id: str,
    protocols: Sequence[tuple[str, bytes]],
    session_timeout_ms: int,
    rebalance_timeout_ms: int,
    now: int,
) -> None:
    updated = conn.execute(
        "UPDATE group_members SET protocols = ?, session_timeout_ms = ?, rebalance_timeout_ms = ?,"
        " last_heartbeat_ms = ?, joined = 1 WHERE group_id = ? AND member_id = ?",
        (pack_named_bytes(protocols), session_timeout_ms, rebalance_timeout_ms, now, group_id, member_id),
    ).rowcount
    if updated:
        return
    next_seq = conn.execute(
        "SELECT coalesce(max(join_seq), 0) + 1 FROM group_members WHERE group_id = ?", (group_id,)
    ).fetchone()[0]
    conn.execute(
        "INSERT INTO group_members VALUES (?, ?, ?, ?, ?, ?, 1, -1, ?, NULL, NULL, NULL, NULL)",
        (
            group_id,
            member_id,
            pack_named_bytes(protocols),
            session_timeout_ms,
            rebalance_timeout_ms,
            now,
            next_seq,
        ),
    )


def _start_rebalance(conn: sqlite3.Connection, group: _Group, now: int, rejoined: str = "") -> None:
    """Move the group to PreparingRebalance: every member but ``rejoined`` (the caller) must rejoin."""
    members = _load_members(conn, group.group_id)
    longest = max((member.rebalance_timeout_ms for member in members.values()), default=0)
    conn.execute(
        "UPDATE groups SET state = ?, rebalance_deadline_ms = ? WHERE group_id = ?",
        (PREPARING_REBALANCE, now + longest, group.group_id),
    )
    conn.execute(
        "UPDATE group_members SET joined = 0 WHERE group_id = ? AND last_heartbeat_ms < ?",
        (group.group_id, now),
    )
    group.state = PREPARING_REBALANCE


def _extend_deadline(conn: sqlite3.Connection, group_id: str, deadline_ms: int) -> None:
    conn.execute(
        "UPDATE groups SET rebalance_deadline_ms = max(rebalance_deadline_ms, ?) WHERE group_id = ?",
        (deadline_ms, group_id),
    )


def _touch(conn: sqlite3.Connection, group_id: str, member_id: str, now: int) -> None:
    conn.execute(
        "UPDATE group_members SET last_heartbeat_ms = ? WHERE group_id = ? AND member_id = ?",
        (now, group_id, member_id),
    )


def _evict_expired(conn: sqlite3.Connection, group_id: str, now: int) -> None:
    """Remove members whose session timed out (a member waiting in a join round is not timed out)."""
    group = _load_group(conn, group_id)
    if group is None:
        return
    expired = [
        member.member_id
        for member in _load_members(conn, group_id).values()
        if member.last_heartbeat_ms + member.session_timeout_ms < now
        and not (group.state == PREPARING_REBALANCE and member.joined)
    ]
    if not expired:
        return
    conn.executemany(
        "DELETE FROM group_members WHERE group_id = ? AND member_id = ?",
        [(group_id, member_id) for member_id in expired],
    )
    _after_members_removed(conn, group, now)


def _after_members_removed(conn: sqlite3.Connection, group: _Group, now: int) -> None:
    remaining = _load_members(conn, group.group_id)
    if not remaining:
        conn.execute(
            "UPDATE groups SET state = ?, leader_id = NULL WHERE group_id = ?", (EMPTY, group.group_id)
        )
    elif group.state in (STABLE, COMPLETING_REBALANCE):
        _start_rebalance(conn, group, now)


def _try_complete_join(conn: sqlite3.Connection, group_id: str, now: int) -> None:
    """Complete the join round if every member rejoined or its deadline passed."""
    group = _load_group(conn, group_id)
    if group is None or group.state != PREPARING_REBALANCE:
        return
    members = _load_members(conn, group_id)
    joined = [member for member in members.values() if member.joined]
    if len(joined) < len(members) and now < group.rebalance_deadline_ms:
        return
    for member in members.values():
        if not member.joined:
            conn.execute(
                "DELETE FROM group_members WHERE group_id = ? AND member_id = ?", (group_id, member.member_id)
            )
    if not joined:
        conn.execute("UPDATE groups SET state = ?, leader_id = NULL WHERE group_id = ?", (EMPTY, group_id))
        return
    by_id = {member.member_id: member for member in joined}
    leader = by_id.get(group.leader_id or "") or joined[0]
    protocol = _choose_protocol(leader, joined)
    generation = group.generation + 1
    metadata = pack_named_bytes((member.member_id, dict(member.protocols)[protocol]) for member in joined)
    for member in joined:
        conn.execute(
            "UPDATE group_members SET joined = 0, generation = ?, leader_id = ?, protocol = ?, members = ?,"
            " assignment = NULL, last_heartbeat_ms = ? WHERE group_id = ? AND member_id = ?",
            (
                generation,
                leader.member_id,
                protocol,
                metadata if member is leader else None,
                now,
                group_id,
                member.member_id,
            ),
        )
    conn.execute(
        "UPDATE groups SET state = ?, generation = ?, leader_id = ?, protocol = ? WHERE group_id = ?",
        (COMPLETING_REBALANCE, generation, leader.member_id, protocol, group_id),
    )


def _choose_protocol(leader: _Member, joined: Sequence[_Member]) -> str:
    supported = [{name for name, _ in member.protocols} for member in joined]
    for name, _ in leader.protocols:
        if all(name in names for names in supported):
            return name
    raise InconsistentGroupProtocolError(
        f"Members of the group share no protocol with leader {leader.member_id}"
    )

"""Group membership, the broker side of Kafka's group protocol, as the herder and sink groups use it."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from conveyor.log import (
    GroupCoordinator,
    IllegalGenerationError,
    InconsistentGroupProtocolError,
    JoinResult,
    Log,
    RebalanceInProgressError,
    UnknownMemberIdError,
    open_log,
)

SESSION_MS = 10_000
REBALANCE_MS = 5_000


def join(
    coordinator: GroupCoordinator,
    member_id: str | None = None,
    protocols: list[tuple[str, bytes]] | None = None,
    session_timeout_ms: int = SESSION_MS,
    rebalance_timeout_ms: int = REBALANCE_MS,
    protocol_type: str = "connect",
) -> JoinResult:
    return coordinator.join_group(
        "workers",
        member_id,
        protocol_type,
        protocols or [("sessioned", b"meta")],
        session_timeout_ms,
        rebalance_timeout_ms,
    )


def settle(coordinator: GroupCoordinator, result: JoinResult) -> None:
    """Finish the join round of a lone member, so that the group is stable."""
    coordinator.sync_group("workers", result.generation, result.member_id, {result.member_id: b""})


def await_rebalance(coordinator: GroupCoordinator, member: JoinResult) -> None:
    """Heartbeat until the coordinator announces a rebalance (fails if it never does)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            coordinator.heartbeat("workers", member.generation, member.member_id)
        except RebalanceInProgressError:
            return
        time.sleep(0.02)
    raise AssertionError(f"no rebalance announced to {member.member_id}")


def add_member(
    coordinator: GroupCoordinator,
    existing: JoinResult,
    existing_protocols: list[tuple[str, bytes]],
    newcomer_protocols: list[tuple[str, bytes]],
) -> tuple[JoinResult, JoinResult]:
    """A newcomer joins a stable group; the existing member learns of it and rejoins. Returns both results."""
    settle(coordinator, existing)
    with ThreadPoolExecutor(1) as pool:
        newcomer = pool.submit(join, coordinator, None, newcomer_protocols)
        await_rebalance(coordinator, existing)
        rejoined = join(coordinator, existing.member_id, existing_protocols)
        return rejoined, newcomer.result(timeout=10)


def test_first_member_becomes_leader_of_generation_one(log: Log) -> None:
    coordinator = log.group_coordinator()
    result = join(coordinator, protocols=[("sessioned", b"worker-a")])
    assert result.generation == 1
    assert result.is_leader
    assert result.protocol == "sessioned"
    assert result.members == {result.member_id: b"worker-a"}


def test_leader_assignment_is_handed_to_every_member(log: Log) -> None:
    coordinator = log.group_coordinator()
    first = join(coordinator, protocols=[("sessioned", b"a")])
    leader, follower = add_member(coordinator, first, [("sessioned", b"a")], [("sessioned", b"b")])
    with ThreadPoolExecutor(1) as pool:
        assert leader.is_leader and not follower.is_leader
        assert leader.generation == follower.generation == 2
        assert leader.members == {leader.member_id: b"a", follower.member_id: b"b"}
        assert follower.members == {}
        follower_sync = pool.submit(coordinator.sync_group, "workers", 2, follower.member_id, None)
        assignments = {leader.member_id: b"tasks-0", follower.member_id: b"tasks-1"}
        assert coordinator.sync_group("workers", 2, leader.member_id, assignments) == b"tasks-0"
        assert follower_sync.result(timeout=10) == b"tasks-1"


def test_chosen_protocol_is_the_leaders_first_choice_that_all_members_support(log: Log) -> None:
    coordinator = log.group_coordinator()
    first = join(coordinator, protocols=[("sessioned", b""), ("compatible", b""), ("eager", b"")])
    leader, other = add_member(
        coordinator, first, [("sessioned", b""), ("compatible", b"")], [("eager", b""), ("compatible", b"")]
    )
    assert leader.protocol == other.protocol == "compatible"


def test_member_without_a_common_protocol_is_refused(log: Log) -> None:
    coordinator = log.group_coordinator()
    join(coordinator, protocols=[("sessioned", b"")])
    with pytest.raises(InconsistentGroupProtocolError, match="workers"):
        join(coordinator, protocols=[("eager", b"")])


def test_member_of_another_protocol_type_is_refused(log: Log) -> None:
    coordinator = log.group_coordinator()
    join(coordinator)
    with pytest.raises(InconsistentGroupProtocolError, match="consumer"):
        join(coordinator, protocol_type="consumer")


def test_heartbeat_tells_members_to_rejoin_when_a_member_joins(log: Log) -> None:
    coordinator = log.group_coordinator()
    first = join(coordinator)
    settle(coordinator, first)
    with ThreadPoolExecutor(1) as pool:
        newcomer = pool.submit(join, coordinator)
        await_rebalance(coordinator, first)
        with pytest.raises(RebalanceInProgressError, match="workers"):
            coordinator.heartbeat("workers", first.generation, first.member_id)
        rejoined = join(coordinator, first.member_id)
        assert rejoined.generation == newcomer.result(timeout=10).generation == 2


def test_heartbeat_of_an_unknown_member_fails_naming_the_group(log: Log) -> None:
    coordinator = log.group_coordinator()
    join(coordinator)
    with pytest.raises(UnknownMemberIdError, match="workers"):
        coordinator.heartbeat("workers", 1, "nobody")


def test_heartbeat_with_an_old_generation_is_an_illegal_generation(log: Log) -> None:
    coordinator = log.group_coordinator()
    result = join(coordinator)
    with pytest.raises(IllegalGenerationError, match="workers"):
        coordinator.heartbeat("workers", result.generation - 1, result.member_id)


def test_member_missing_its_session_timeout_is_evicted_and_triggers_a_rebalance(log: Log) -> None:
    coordinator = log.group_coordinator()
    doomed = join(coordinator, session_timeout_ms=1_000)
    settle(coordinator, doomed)
    with ThreadPoolExecutor(1) as pool:
        newcomer = pool.submit(join, coordinator)
        result = newcomer.result(timeout=10)
    assert result.generation == 2
    assert result.is_leader
    assert result.members.keys() == {result.member_id}
    with pytest.raises(UnknownMemberIdError):
        coordinator.heartbeat("workers", 2, doomed.member_id)


def test_join_round_stops_waiting_for_a_silent_member_after_the_rebalance_timeout(log: Log) -> None:
    coordinator = log.group_coordinator()
    silent = join(coordinator, rebalance_timeout_ms=300)
    settle(coordinator, silent)
    result = join(coordinator, rebalance_timeout_ms=300)
    assert result.members.keys() == {result.member_id}


def test_leaving_member_triggers_a_rebalance_for_the_others(log: Log) -> None:
    coordinator = log.group_coordinator()
    first = join(coordinator)
    first_result, second_result = add_member(coordinator, first, [("sessioned", b"")], [("sessioned", b"")])
    coordinator.leave_group("workers", second_result.member_id)
    with pytest.raises(RebalanceInProgressError):
        coordinator.heartbeat("workers", first_result.generation, first_result.member_id)
    alone = join(coordinator, first_result.member_id)
    assert alone.generation == 3
    assert alone.members.keys() == {first_result.member_id}


def test_sync_during_a_rebalance_is_told_to_rejoin(log: Log) -> None:
    coordinator = log.group_coordinator()
    first = join(coordinator)
    settle(coordinator, first)
    with ThreadPoolExecutor(1) as pool:
        pool.submit(join, coordinator)
        await_rebalance(coordinator, first)
        with pytest.raises(RebalanceInProgressError):
            coordinator.sync_group("workers", first.generation, first.member_id, {first.member_id: b""})
        join(coordinator, first.member_id)


def test_members_on_separately_opened_logs_share_one_coordinator(log: Log, log_url: str) -> None:
    with open_log(log_url) as elsewhere:
        first = join(log.group_coordinator(), protocols=[("sessioned", b"here")])
        settle(log.group_coordinator(), first)
        with ThreadPoolExecutor(1) as pool:
            remote = pool.submit(join, elsewhere.group_coordinator(), None, [("sessioned", b"there")])
            await_rebalance(log.group_coordinator(), first)
            local = join(log.group_coordinator(), first.member_id, [("sessioned", b"here")])
            assert local.members == {first.member_id: b"here", remote.result(timeout=10).member_id: b"there"}

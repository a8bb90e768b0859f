"""GroupMember: the join/sync/heartbeat loop the herder and sink groups share."""

from __future__ import annotations

import threading
from collections.abc import Mapping

from conveyor.log import Assignment, GroupMember, JoinResult, Log
from waiting import wait_until


def round_robin(joined: JoinResult) -> Mapping[str, bytes]:
    """Hand out six numbered tasks over the members, in member id order."""
    members = sorted(joined.members)
    return {member: bytes(t for t in range(6) if t % len(members) == i) for i, member in enumerate(members)}


class Recorder:
    """Collects what a member's callbacks saw."""

    def __init__(self) -> None:
        self.assigned: list[Assignment] = []
        self.revoked: list[Assignment] = []
        self.left: list[Assignment] = []

    def member(self, log: Log) -> GroupMember:
        return GroupMember(
            log.group_coordinator(),
            "sink-group",
            "consumer",
            lambda: [("range", b"")],
            round_robin,
            self.assigned.append,
            self.revoked.append,
            on_left=self.left.append,
            session_timeout_ms=2_000,
            rebalance_timeout_ms=3_000,
            heartbeat_interval_ms=50,
        )


def poll_until(members: list[GroupMember], done: threading.Event) -> None:
    while not done.is_set():
        for member in members:
            member.poll(0.02)


def test_single_member_is_assigned_everything(log: Log) -> None:
    recorder = Recorder()
    member = recorder.member(log)
    member.ensure_active()
    assert [a.data for a in recorder.assigned] == [bytes(range(6))]
    assert recorder.assigned[0].is_leader
    member.close()


def test_second_member_splits_the_work_and_the_first_is_revoked_then_reassigned(log: Log) -> None:
    first, second = Recorder(), Recorder()
    first_member = first.member(log)
    first_member.ensure_active()
    done = threading.Event()
    polling = threading.Thread(target=poll_until, args=([first_member], done))
    polling.start()
    second_member = second.member(log)
    second_member.ensure_active()
    wait_until(lambda: len(first.assigned) >= 2, "a second assignment", 10)
    done.set()
    polling.join()
    assert len(first.revoked) == 1
    latest_first, latest_second = first.assigned[-1], second.assigned[-1]
    assert latest_first.generation == latest_second.generation == 2
    assert sorted(latest_first.data + latest_second.data) == list(range(6))
    first_member.close()
    second_member.close()


def test_closing_a_member_hands_its_work_to_the_others(log: Log) -> None:
    first, second = Recorder(), Recorder()
    first_member, second_member = first.member(log), second.member(log)
    first_done, second_done = threading.Event(), threading.Event()
    first_polling = threading.Thread(target=poll_until, args=([first_member], first_done))
    second_polling = threading.Thread(target=poll_until, args=([second_member], second_done))
    first_polling.start()
    second_polling.start()
    wait_until(lambda: sharing_one_generation(first, second), "both members in one generation", 10)
    second_done.set()
    second_polling.join()
    assert sharing_one_generation(first, second)
    second_member.close()
    wait_until(lambda: first.assigned[-1].data == bytes(range(6)), "every task assigned to the first", 10)
    first_done.set()
    first_polling.join()
    assert first.assigned[-1].data == bytes(range(6))
    assert first.assigned[-1].generation > second.assigned[-1].generation
    first_member.close()


def sharing_one_generation(first: Recorder, second: Recorder) -> bool:
    """Both members hold assignments of the same generation, each part of the work."""
    if not first.assigned or not second.assigned:
        return False
    mine, theirs = first.assigned[-1], second.assigned[-1]
    return mine.generation == theirs.generation and len(mine.data) == len(theirs.data) == 3


def test_a_member_not_polled_within_the_rebalance_timeout_leaves_and_its_work_goes_to_the_others(
    log: Log,
) -> None:
    polled, stalled = Recorder(), Recorder()
    polled_member, stalled_member = polled.member(log), stalled.member(log)
    done, stall = threading.Event(), threading.Event()
    polling = threading.Thread(target=poll_until, args=([polled_member], done))
    polling.start()
    stalling = threading.Thread(target=poll_until, args=([stalled_member], stall))
    stalling.start()
    try:
        wait_until(lambda: sharing_one_generation(polled, stalled), "both members in one generation", 30)
        stall.set()
        stalling.join()
        wait_until(lambda: stalled.left, "the stalled member to leave the group", 30)
        wait_until(lambda: polled.assigned[-1].data == bytes(range(6)), "every task on the other member", 30)
        assert stalled.left == [stalled.assigned[-1]]
        assert polled.assigned[-1].generation > stalled.assigned[-1].generation
    finally:
        done.set()
        stall.set()
        polling.join()
        polled_member.close()
        stalled_member.close()

"""GroupMember: the join/sync/heartbeat loop the herder and sink groups share."""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping

from conveyor.log import Assignment, GroupMember, JoinResult, Log


def round_robin(joined: JoinResult) -> Mapping[str, bytes]:
    """Hand out six numbered tasks over the members, in member id order."""
    members = sorted(joined.members)
    return {member: bytes(t for t in range(6) if t % len(members) == i) for i, member in enumerate(members)}


class Recorder:
    """Collects what a member's callbacks saw."""

    def __init__(self) -> None:
        self.assigned: list[Assignment] = []
        self.revoked: list[Assignment] = []

    def member(self, log: Log) -> GroupMember:
        return GroupMember(
            log.group_coordinator(),
            "sink-group",
            "consumer",
            lambda: [("range", b"")],
            round_robin,
            self.assigned.append,
            self.revoked.append,
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
    deadline = time.monotonic() + 10
    while len(first.assigned) < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
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
    done = threading.Event()
    polling = threading.Thread(target=poll_until, args=([first_member], done))
    polling.start()
    second_member.ensure_active()
    time.sleep(0.3)
    second_member.close()
    deadline = time.monotonic() + 10
    while (not first.assigned or first.assigned[-1].data != bytes(range(6))) and time.monotonic() < deadline:
        time.sleep(0.02)
    done.set()
    polling.join()
    assert first.assigned[-1].data == bytes(range(6))
    first_member.close()

"""A group member run as its own process by the multi-process group tests.

Usage: group_process_worker.py URL GROUP
Stays in GROUP (protocol type ``connect``), printing ``assigned GENERATION DATA`` after every rebalance,
where DATA is the member count the leader saw, until it is killed.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping

from conveyor.log import Assignment, GroupMember, JoinResult, open_log


def count_members(joined: JoinResult) -> Mapping[str, bytes]:
    """Tell every member how many members the group has."""
    return {member: str(len(joined.members)).encode() for member in joined.members}


def report(assignment: Assignment) -> None:
    print(f"assigned {assignment.generation} {assignment.data.decode()}", flush=True)


def main(url: str, group_id: str) -> None:
    log = open_log(url)
    member = GroupMember(
        log.group_coordinator(),
        group_id,
        "connect",
        lambda: [("sessioned", b"")],
        count_members,
        report,
        session_timeout_ms=3_000,
        rebalance_timeout_ms=10_000,
        heartbeat_interval_ms=100,
    )
    while True:
        member.poll(0.1)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

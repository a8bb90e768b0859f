"""Several processes on one log: kill -9 of a writer mid-transaction, concurrent transactional writers,
and group members (and cooperative consumers) joining and dying in other processes."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import conveyor
from conveyor.log import Assignment, GroupMember, Log, TopicPartition
from conveyor.log.assignment_strategy import COOPERATIVE_STICKY_ASSIGNOR
from waiting import wait_until

from .conftest import backend_of, read_all
from .test_cooperative_rebalancing import CallbackLog, group_consumer, polling

WORKER = Path(__file__).with_name("log_process_worker.py")


def worker_environment() -> dict[str, str]:
    """This environment, with Conveyor's sources importable by the worker process."""
    source_root = str(Path(conveyor.__file__).resolve().parents[1])
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [source_root, os.environ.get("PYTHONPATH")])),
    }


def start_writer(
    log_url: str,
    topic: str,
    transactional_id: str,
    writer: int,
    transactions: int,
    records: int,
    option: str | None = None,
) -> subprocess.Popen[str]:
    arguments = [log_url, topic, transactional_id, str(writer), str(transactions), str(records)]
    return subprocess.Popen(
        [sys.executable, str(WORKER), *arguments, *([option] if option else [])],
        stdout=subprocess.PIPE,
        text=True,
        env=worker_environment(),
    )


def kill(process: subprocess.Popen[str]) -> None:
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=30)


def transactions_seen(values: list[bytes | None]) -> Counter[str]:
    """How many records of each ``writer:transaction`` were read."""
    return Counter(value.decode().rsplit(":", 1)[0] for value in values if value is not None)


def test_kill_9_mid_transaction_loses_nothing_committed_and_exposes_nothing_open(
    log: Log, log_url: str
) -> None:
    log.admin().create_topic("killed", partitions=3)
    writer = start_writer(log_url, "killed", "doomed-writer", 0, 3, 10, "hold")
    assert writer.stdout is not None
    lines = [writer.stdout.readline().strip() for _ in range(4)]
    assert lines == ["committed 0", "committed 1", "committed 2", "open"]
    kill(writer)
    assert len(read_all(log, "killed", "read_uncommitted")) == 40
    assert transactions_seen([r.value for r in read_all(log, "killed")]) == {"0:0": 10, "0:1": 10, "0:2": 10}
    successor = log.producer("doomed-writer")
    successor.init_transactions()
    successor.begin_transaction()
    successor.send("killed", b"9:0:0", partition=0)
    successor.commit_transaction()
    assert transactions_seen([r.value for r in read_all(log, "killed")]) == {
        "0:0": 10,
        "0:1": 10,
        "0:2": 10,
        "9:0": 1,
    }


def test_kill_9_at_random_moments_keeps_every_acknowledged_transaction_whole(log: Log, log_url: str) -> None:
    log.admin().create_topic("crashing", partitions=2)
    acknowledged: set[str] = set()
    for attempt in range(3):
        writer = start_writer(log_url, "crashing", "crash-writer", attempt, -1, 25)
        assert writer.stdout is not None
        for _ in range(random.randint(2, 6)):
            acknowledged.add(f"{attempt}:{writer.stdout.readline().split()[1]}")
        time.sleep(random.random() * 0.05)
        kill(writer)
    log.admin().fence_producers(["crash-writer"])
    seen = transactions_seen([r.value for r in read_all(log, "crashing")])
    assert acknowledged <= set(seen)
    assert all(count == 25 for count in seen.values()), seen


def test_concurrent_transactional_writers_in_separate_processes_lose_and_duplicate_nothing(
    log: Log, log_url: str
) -> None:
    log.admin().create_topic("shared", partitions=3)
    writers = [start_writer(log_url, "shared", f"writer-{n}", n, 15, 40) for n in range(3)]
    for writer in writers:
        assert writer.wait(timeout=120) == 0
    records = read_all(log, "shared")
    values = Counter(record.value for record in records)
    assert len(values) == 3 * 15 * 40
    assert set(values.values()) == {1}
    if backend_of(log) == "kafka":
        # Kafka differs on purpose: each commit wrote a control record, so offsets are not dense.
        return
    for partition in range(3):
        offsets = [r.offset for r in records if r.partition == partition]
        assert offsets == list(range(len(offsets)))
    tp = TopicPartition("shared", 0)
    assert log.admin().list_offsets([tp])[tp].last_stable == len([r for r in records if r.partition == 0])


def test_reader_beside_concurrent_writers_sees_every_committed_record_once_and_no_aborted_one(
    log: Log, log_url: str
) -> None:
    log.admin().create_topic("busy", partitions=3)
    writers = [
        start_writer(log_url, "busy", f"busy-writer-{n}", n, 12, 30, "abort-every=3") for n in range(3)
    ]
    consumer = log.consumer(auto_offset_reset="earliest")
    consumer.assign([TopicPartition("busy", p) for p in range(3)])
    seen: list[bytes | None] = []
    while any(writer.poll() is None for writer in writers):
        seen.extend(record.value for record in consumer.poll(timeout=0.05))
    while remaining := consumer.poll(timeout=0.2, max_records=100_000):
        seen.extend(record.value for record in remaining)
    assert all(writer.returncode == 0 for writer in writers)
    expected = {f"{w}:{t}:{r}".encode() for w in range(3) for t in range(12) if t % 3 != 2 for r in range(30)}
    assert len(seen) == len(set(seen))
    assert set(seen) == expected


def test_group_member_killed_with_kill_9_is_evicted_and_the_others_rebalance(log: Log, log_url: str) -> None:
    from .group_process_worker import count_members

    child = subprocess.Popen(
        [sys.executable, str(WORKER.with_name("group_process_worker.py")), log_url, "workers"],
        stdout=subprocess.PIPE,
        text=True,
        env=worker_environment(),
    )
    assert child.stdout is not None
    assert child.stdout.readline().split() == ["assigned", "1", "1"]
    assigned: list[Assignment] = []
    member = GroupMember(
        log.group_coordinator(),
        "workers",
        "connect",
        lambda: [("sessioned", b"")],
        count_members,
        assigned.append,
        session_timeout_ms=3_000,
        rebalance_timeout_ms=10_000,
        heartbeat_interval_ms=100,
    )
    member.ensure_active()
    assert assigned[-1].data == b"2"
    assert child.stdout.readline().split() == ["assigned", str(assigned[-1].generation), "2"]
    kill(child)
    deadline = time.monotonic() + 30
    while assigned[-1].data != b"1" and time.monotonic() < deadline:
        member.poll(0.1)
    assert assigned[-1].data == b"1"
    assert assigned[-1].is_leader
    member.close()


def test_cooperative_consumers_in_two_processes_move_only_the_partitions_that_change_hands(
    log: Log, log_url: str
) -> None:
    log.admin().create_topic("shared-out", partitions=6)
    child = subprocess.Popen(
        [
            sys.executable,
            str(WORKER.with_name("consumer_process_worker.py")),
            log_url,
            "cooperative",
            "shared-out",
            COOPERATIVE_STICKY_ASSIGNOR,
        ],
        stdout=subprocess.PIPE,
        text=True,
        env=worker_environment(),
    )
    child_calls = CallbackLog()
    reader = threading.Thread(target=read_callbacks, args=(child, child_calls), daemon=True)
    reader.start()
    every = {TopicPartition("shared-out", p) for p in range(6)}
    wait_until(lambda: child_calls.held() == every, "the child holding all six partitions")
    parent_calls = CallbackLog()
    parent = group_consumer(log, "cooperative")
    parent.subscribe(["shared-out"], parent_calls)
    with polling(parent, parent_calls):
        wait_until(lambda: len(parent_calls.held()) == 3, "the parent holding three partitions", 60)
        moved = parent_calls.held()
        wait_until(lambda: child_calls.held() == every - moved, "the child holding the other three", 60)
        assert [call for call in child_calls.calls if call[0] != "assigned"] == [("revoked", moved)]
        kill(child)
        wait_until(lambda: parent_calls.held() == every, "the parent taking the dead child's partitions", 60)
    assert [call for call in parent_calls.calls if call[0] != "assigned"] == []
    assert [p for call, p in parent_calls.calls if p] == [moved, every - moved]
    parent.close()


def read_callbacks(process: subprocess.Popen[str], calls: CallbackLog) -> None:
    """Turn the child's printed callbacks into ``calls``, as if its listener were ours."""
    assert process.stdout is not None
    for line in process.stdout:
        call, _, numbers = line.strip().partition(" ")
        partitions = {TopicPartition("shared-out", int(n)) for n in numbers.split(",") if n}
        calls.calls.append((call, partitions))

"""A streaming query writing to a topic, killed with SIGKILL mid-stream and restarted from its checkpoint,
leaves every input record in the output topic exactly once (read_committed)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from conveyor.log import Log, TopicPartition

from .conftest import on_both_backends
from .records import aborted, committed, read_committed_values

# Two Spark start-ups and about ten micro-batches: on a busy 2-core machine this takes minutes.
pytestmark = [on_both_backends, pytest.mark.timeout(900)]

COPY_SCRIPT = Path(__file__).with_name("stream_copy_process.py")
INPUT_RECORDS = 1200
PER_TRANSACTION = 100
MAX_RECORDS_PER_TRIGGER = "150"


def start_copy(log_url: str, checkpoint: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            sys.executable,
            str(COPY_SCRIPT),
            log_url,
            str(checkpoint),
            "input",
            "output",
            MAX_RECORDS_PER_TRIGGER,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,  # its own process group: the JVM and Python workers die with it
    )


def appended_to_output(log: Log) -> int:
    """Records appended to the output so far, committed or not (the high watermarks)."""
    partitions = [TopicPartition("output", p) for p in range(2)]
    return sum(offsets.latest for offsets in log.admin().list_offsets(partitions).values())


def kill_when_output_passes(process: subprocess.Popen[str], log: Log, records: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while appended_to_output(log) < records:
        assert process.poll() is None, "the copy ended before it could be killed"
        assert time.monotonic() < deadline, "the copy wrote nothing in time"
        time.sleep(0.02)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def fill_input(log: Log) -> list[bytes]:
    """The input topic: committed transactions with aborted ones between them."""
    log.admin().create_topic("input", partitions=3)
    log.admin().create_topic("output", partitions=2)
    expected: list[bytes] = []
    for start in range(0, INPUT_RECORDS, PER_TRANSACTION):
        values = [b"record-%05d" % i for i in range(start, start + PER_TRANSACTION)]
        committed(log, "input", values, partition=(start // PER_TRANSACTION) % 3)
        aborted(log, "input", [b"aborted-%05d" % start], partition=start % 3)
        expected.extend(values)
    return expected


def test_a_query_killed_mid_stream_and_restarted_writes_every_record_exactly_once(
    log: Log, log_url: str, tmp_path: Path
) -> None:
    expected = fill_input(log)
    checkpoint = tmp_path / "checkpoint"

    kill_when_output_passes(start_copy(log_url, checkpoint), log, 300, timeout=300)
    assert len(read_committed_values(log, ["output"])) < INPUT_RECORDS

    restarted = start_copy(log_url, checkpoint)
    out, _ = restarted.communicate(timeout=600)
    assert "caught-up" in out

    written = Counter(record.value for record in read_committed_values(log, ["output"]))
    duplicates = {value: count for value, count in written.items() if count > 1}
    missing = set(expected) - set(written)
    assert (duplicates, missing, len(written)) == ({}, set(), INPUT_RECORDS)

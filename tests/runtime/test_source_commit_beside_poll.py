"""Exactly-once: a task told nothing of commits polls its next batch while its last transaction commits.

The log's write of a transaction (a database commit on the embedded log, the coordinator's round trips on
Kafka) then overlaps the task's work instead of following it; nothing else is sent, committed or aborted
before that commit ends, so the order of transactions and the fencing are those of a commit in line.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from conveyor.api import SourceTask
from conveyor.data import SourceRecord
from conveyor.log import Log, open_log
from conveyor.log.embedded.database import DATABASE_FILE
from conveyor.log.errors import ProducerFencedError
from conveyor.runtime.control import LocalTaskControl
from conveyor.runtime.source_task import SourceTaskLoop
from conveyor.settings.names import task_transactional_id
from log_backends import BACKENDS, fresh_log_url

from .support import (
    CONNECTOR,
    committed_source_offsets,
    read_values,
    running,
    source_record,
    task_spec,
    wait_until,
    worker_props,
)

TOPIC = "lines"
EOS = {"exactly.once.source.support": "enabled"}


class HeldWrites:
    """The embedded log's write lock held as another writer would hold it: every commit waits meanwhile."""

    def __init__(self, directory: Path) -> None:
        self._path = directory / DATABASE_FILE
        self._connection: sqlite3.Connection | None = None

    def take(self) -> None:
        self._connection = sqlite3.connect(self._path, isolation_level=None, check_same_thread=False)
        self._connection.execute("BEGIN IMMEDIATE")

    def release(self) -> None:
        if self._connection is not None:
            self._connection.execute("ROLLBACK")
            self._connection.close()
            self._connection = None


class BatchesTask(SourceTask):
    """Returns its batches one per poll, then nothing; overrides neither `commit` nor `commit_record`.
    `on_first_poll` runs in the first poll, before its batch is returned."""

    def __init__(self, batches: list[list[SourceRecord]], on_first_poll: Callable[[], None]) -> None:
        self.batches = batches
        self.polls = 0
        self.on_first_poll = on_first_poll
        self.loop: SourceTaskLoop | None = None
        self.active_at_polls: list[int] = []
        """When `loop` is set: how many records it counted as polled and not yet durable at each poll."""

    def version(self) -> str:
        return "1.0"

    def start(self, props: Mapping[str, str]) -> None:
        """Nothing to set up."""

    def poll(self) -> list[SourceRecord] | None:
        self.polls += 1
        if self.loop is not None:
            self.active_at_polls.append(self.loop.metrics.active)
        if self.polls == 1:
            self.on_first_poll()
        if self.batches:
            return self.batches.pop(0)
        threading.Event().wait(0.05)
        return None

    def stop(self) -> None:
        """Nothing to release."""


def batch(start: int, count: int) -> list[SourceRecord]:
    return [source_record(TOPIC, n) for n in range(start, start + count)]


def test_the_next_poll_runs_while_the_last_transaction_commits(tmp_path: Path) -> None:
    directory = tmp_path / "log"
    with open_log(f"embedded:{directory}") as log:
        log.admin().create_topic(TOPIC)
        held = HeldWrites(directory)
        task = BatchesTask([batch(0, 3), batch(3, 2)], on_first_poll=held.take)
        control = LocalTaskControl()
        spec = task_spec({"topic": TOPIC, "transaction.boundary": "poll"}, worker_props(log.url, **EOS))
        loop = SourceTaskLoop(spec, control, log, task)
        try:
            with running(loop, control):
                try:
                    wait_until(lambda: task.polls >= 2, "a second poll while the first transaction commits")
                    assert read_values(log, TOPIC) == []
                finally:
                    held.release()
                wait_until(lambda: len(read_values(log, TOPIC)) == 5, "both transactions committed")
        finally:
            held.release()
        assert read_values(log, TOPIC) == [f"input-{n}" for n in range(5)]
        assert committed_source_offsets(log) == {"input": {"position": 5}}


def test_a_task_fenced_before_its_commit_fails_and_writes_neither_batch(tmp_path: Path) -> None:
    with open_log(f"embedded:{tmp_path / 'log'}") as log:
        log.admin().create_topic(TOPIC)
        newer = log.producer(transactional_id=task_transactional_id("tests", CONNECTOR, 0))
        task = BatchesTask([batch(0, 3), batch(3, 2)], on_first_poll=newer.init_transactions)
        control = LocalTaskControl()
        spec = task_spec({"topic": TOPIC, "transaction.boundary": "poll"}, worker_props(log.url, **EOS))
        with pytest.raises(ProducerFencedError):
            SourceTaskLoop(spec, control, log, task).run()
        newer.close()
        assert read_values(log, TOPIC) == []
        assert committed_source_offsets(log) == {}


@pytest.fixture(params=BACKENDS)
def log_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return fresh_log_url(request, request.param, tmp_path)


def outlast_the_interval() -> None:
    """Wait longer than the 1 ms interval, so that the first batch's transaction ends with its poll and
    the later batches need at least one more, however fast the task starts and polls."""
    threading.Event().wait(0.005)


@pytest.mark.parametrize("boundary", ["poll", "interval"])
def test_transactions_committed_beside_polls_hold_every_record_once_with_its_offset(
    log: Log, boundary: str
) -> None:
    log.admin().create_topic(TOPIC)
    task = BatchesTask([batch(n, 10) for n in range(0, 50, 10)], on_first_poll=outlast_the_interval)
    control = LocalTaskControl()
    config = {"topic": TOPIC, "transaction.boundary": boundary, "transaction.boundary.interval.ms": "1"}
    loop = SourceTaskLoop(task_spec(config, worker_props(log.url, **EOS)), control, log, task)
    with running(loop, control):
        wait_until(lambda: len(read_values(log, TOPIC)) == 50, "every batch committed")
    assert read_values(log, TOPIC) == [f"input-{n}" for n in range(50)]
    assert committed_source_offsets(log) == {"input": {"position": 50}}
    assert loop.counters["transactions-committed"] >= 2


def test_records_polled_beside_a_commit_stay_active_until_their_own_commit(tmp_path: Path) -> None:
    directory = tmp_path / "log"
    with open_log(f"embedded:{directory}") as log:
        log.admin().create_topic(TOPIC)
        held = HeldWrites(directory)
        task = BatchesTask([batch(0, 3), batch(3, 2)], on_first_poll=held.take)
        control = LocalTaskControl()
        spec = task_spec({"topic": TOPIC, "transaction.boundary": "poll"}, worker_props(log.url, **EOS))
        loop = task.loop = SourceTaskLoop(spec, control, log, task)
        try:
            with running(loop, control):
                try:
                    wait_until(lambda: task.polls >= 2, "a second poll while the first transaction commits")
                finally:
                    held.release()
                wait_until(lambda: task.polls >= 3, "a poll after the second batch was sent")
        finally:
            held.release()
        assert task.active_at_polls[:3] == [0, 3, 2]

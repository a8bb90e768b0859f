"""`kill -9` of a task's executor process mid-stream: Spark re-runs the task, which resumes from its offsets.

Exactly-once (KIP-618): a read_committed reader sees every record once. At-least-once: every record
arrives, some maybe twice (Kafka Connect's `test_bounce` with hard bounces).

Both run on each backend. On Kafka the killed task's open transaction stays open on the broker until the
new incarnation's producer fences it (which aborts it), and the commit markers take offsets, so the
record count that decides when to kill includes a few of them.
"""

from __future__ import annotations

import logging
import os
import signal
from collections.abc import Iterator

import httpx
import pytest

from conveyor.cli.worker_process import StandaloneWorker
from conveyor.connectors import Verification, verify

from .support import (
    create_connector,
    delete_all_connectors,
    end_offset,
    exactly_once,
    generator_config,
    read_values,
    rest_client,
    running_worker,
    task_pid,
    unique,
    wait_for_states,
    wait_until,
)

log = logging.getLogger(__name__)

RECORDS_PER_TASK = 20_000
TASKS = 2
KILL_AFTER_RECORDS = 4_000
RATE_PER_TASK = 2_500  # records/s, so that a task runs for about 8 s and the kill lands mid-stream
DONE_WITHIN_S = 150.0


@pytest.fixture(scope="module")
def eos_worker(tmp_path_factory: pytest.TempPathFactory, worker_log_url: str) -> Iterator[StandaloneWorker]:
    with running_worker(tmp_path_factory.mktemp("kill-eos"), worker_log_url, **exactly_once(True)) as w:
        yield w


@pytest.fixture(scope="module")
def alo_worker(tmp_path_factory: pytest.TempPathFactory, worker_log_url: str) -> Iterator[StandaloneWorker]:
    with running_worker(tmp_path_factory.mktemp("kill-alo"), worker_log_url, **exactly_once(False)) as w:
        yield w


def generate_and_kill_task_0(worker: StandaloneWorker) -> Verification:
    """Run 2 generator tasks, SIGKILL task 0's Python process mid-stream, and verify the whole topic."""
    name, topic = unique("killed"), unique("killed-topic")
    with rest_client(worker) as client:
        try:
            create_connector(
                client,
                name,
                generator_config(
                    topic,
                    records=str(RECORDS_PER_TASK),
                    rate=str(RATE_PER_TASK),
                    **{"tasks.max": str(TASKS), "batch.size": "100"},
                ),
            )
            wait_for_states(client, name, "RUNNING", ["RUNNING"] * TASKS)
            victim = task_pid(worker, name, 0)
            wait_until(lambda: end_offset(worker.log, topic) >= KILL_AFTER_RECORDS, "records before the kill")
            assert end_offset(worker.log, topic) < RECORDS_PER_TASK * TASKS, "the kill came too late"
            os.kill(victim, signal.SIGKILL)
            wait_until(lambda: task_pid(worker, name, 0) != victim, "task 0 to run in a new process")
            result = wait_until(
                lambda: _complete(worker, topic), f"{topic} to hold every record", DONE_WITHIN_S, every_s=0.5
            )
            assert_still_running(client, name)
            return result
        finally:
            delete_all_connectors(client)


def _complete(worker: StandaloneWorker, topic: str) -> Verification | None:
    result = verify(read_values(worker.log, topic), RECORDS_PER_TASK, TASKS)
    return result if result.distinct == RECORDS_PER_TASK * TASKS else None


def assert_still_running(client: httpx.Client, name: str) -> None:
    wait_for_states(client, name, "RUNNING", ["RUNNING"] * TASKS)


def test_exactly_once_survives_kill_9_of_a_task_without_duplicates_or_gaps(
    eos_worker: StandaloneWorker,
) -> None:
    result = generate_and_kill_task_0(eos_worker)
    assert (result.duplicates, result.gaps, result.unreadable) == (0, 0, 0), result


def test_at_least_once_survives_kill_9_of_a_task_without_gaps(alo_worker: StandaloneWorker) -> None:
    result = generate_and_kill_task_0(alo_worker)
    print(f"at-least-once kill -9: {result.duplicates} duplicates of {RECORDS_PER_TASK * TASKS} records")
    assert (result.gaps, result.unreadable) == (0, 0), result

"""A zombie task: its executor process is frozen while a new incarnation replaces it (KIP-618 fencing).

The new incarnation's transactional producer fences the old one, and the control channel tells the old
one that it is superseded; when the old process wakes up it must not commit anything. (When the frozen
task's Spark job is cancelled after the graceful stop timeout, Spark may kill the frozen process
instead; either way nothing of the old incarnation may be committed twice.)

It runs on both backends. On Kafka the new producer's `InitProducerId` bumps the epoch and the
coordinator aborts the zombie's open transaction; the zombie learns it is fenced at its next request to
the broker (a flush or commit), not on `send` as on the embedded log. The verdict is the same: a
read_committed reader counts every record once, with no gap.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator

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

RECORDS = 15_000
RATE = 2_500
ZOMBIE_GRACE_S = 3.0
"""How long a woken zombie gets to try to commit; Spark may also have killed it when its job was cancelled."""


@pytest.fixture(scope="module")
def worker(tmp_path_factory: pytest.TempPathFactory, worker_log_url: str) -> Iterator[StandaloneWorker]:
    with running_worker(tmp_path_factory.mktemp("zombie"), worker_log_url, **exactly_once(True)) as w:
        yield w


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_a_superseded_task_woken_after_its_restart_commits_nothing(worker: StandaloneWorker) -> None:
    name, topic = unique("zombie"), unique("zombie-topic")
    with rest_client(worker) as client:
        try:
            create_connector(
                client,
                name,
                generator_config(topic, records=str(RECORDS), rate=str(RATE), **{"batch.size": "100"}),
            )
            wait_for_states(client, name, "RUNNING", ["RUNNING"])
            zombie = task_pid(worker, name)
            wait_until(lambda: end_offset(worker.log, topic) >= 2_000, "records before the freeze")
            os.kill(zombie, signal.SIGSTOP)
            try:
                started = time.monotonic()
                assert client.post(f"/connectors/{name}/tasks/0/restart").status_code == 204
                print(f"restart of a frozen task answered in {time.monotonic() - started:.1f} s")
                wait_until(lambda: task_pid(worker, name) != zombie, "the new incarnation's process")
            finally:
                if _alive(zombie):
                    os.kill(zombie, signal.SIGCONT)
            time.sleep(ZOMBIE_GRACE_S)
            result = wait_until(
                lambda: _complete(worker, topic), f"{topic} to hold every record", 90.0, every_s=0.5
            )
            assert (result.duplicates, result.gaps, result.unreadable) == (0, 0, 0), result
            wait_for_states(client, name, "RUNNING", ["RUNNING"])
        finally:
            delete_all_connectors(client)


def _complete(worker: StandaloneWorker, topic: str) -> Verification | None:
    result = verify(read_values(worker.log, topic), RECORDS, 1)
    return result if result.distinct == RECORDS else None

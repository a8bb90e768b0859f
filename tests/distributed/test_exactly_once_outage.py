"""Exactly-once sources on a group of real worker processes across a Kafka broker outage longer than the
clients' retry time: the tasks that failed while the broker was unreachable run again once it is back,
their statuses say so, and the topic holds every record once.

The broker is cut off from the network (clients reach it through a relay the test cuts and restores)
rather than stopped: a one-broker Kafka 4.3 cluster stopped gracefully, or killed and restarted, while
tasks commit can complete a transaction without writing its markers (its coordinator takes leaderless
partitions for deleted), a hanging transaction that blocks read_committed readers of the offsets topic
for good, Kafka Connect's as much as Conveyor's; a user ends it with ``kafka-transactions.sh
find-hanging`` and ``abort`` (docs/distributed.md)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from tests.distributed.tcp_relay import TcpRelay, tcp_relay
from tests.distributed.test_worker_liveness import healthy, kafka_group
from tests.distributed.worker_group import WorkerGroup, generator, worker_group
from tests.waiting import wait_until
from tests.worker.support import read_values

from conveyor.connectors.generator.verify import Verification, verify
from conveyor.kafka_broker import KafkaBroker
from conveyor.kafka_broker.jvm import free_ports
from conveyor.log import open_log

pytestmark = pytest.mark.timeout(900)

TASKS = 2
RECORDS = 1500
RATE = 20
WAIT_S = 300.0
CLIENT_RETRY_MS = 8_000
"""How long the workers' producers retry a record or a transaction before failing it."""


@pytest.fixture
def relayed_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TcpRelay]:
    """A broker of this test's own, which clients (and the broker itself) reach only through a relay the
    test cuts: the session's broker is shared."""
    broker_port, relay_port = free_ports(2)
    with tcp_relay(relay_port, ("127.0.0.1", broker_port)) as relay:
        advertised = {"advertised.listeners": f"PLAINTEXT://127.0.0.1:{relay_port}"}
        directory = tmp_path_factory.mktemp("eos-outage-broker")
        with KafkaBroker(directory, port=broker_port, overrides=advertised):
            yield relay


def exactly_once_group(bootstrap: str) -> dict[str, str]:
    """A group with exactly-once sources whose clients give up soon after the broker goes."""
    return {
        **kafka_group(bootstrap),
        "exactly.once.source.support": "enabled",
        "producer.delivery.timeout.ms": str(CLIENT_RETRY_MS),
        "producer.transaction.timeout.ms": str(CLIENT_RETRY_MS * 2),
        "task.restart.backoff.initial.ms": "500",
        "task.restart.backoff.max.ms": "5000",
    }


def tasks_failed_in_the_outage(group: WorkerGroup) -> bool:
    """Each task has failed at least once since the broker went (the workers' logs say so)."""
    log = "".join(worker.log for worker in group.workers)
    return all(f"Task gen-{task} failed" in log for task in range(TASKS))


def every_task_running(group: WorkerGroup) -> dict[str, Any] | None:
    """The connector's status, from each worker alike, once it and every task are RUNNING on a live worker."""
    live = {w.worker_id for w in group.live()}
    assert live, "every worker has exited"
    statuses = [group.status("gen", worker) for worker in group.live()]
    for status in statuses:
        tasks = status.get("tasks", [])
        if status.get("connector", {}).get("state") != "RUNNING" or len(tasks) != TASKS:
            return None
        if any(t["state"] != "RUNNING" or t["worker_id"] not in live for t in tasks):
            return None
    return statuses[0]


@contextmanager
def keeping_logs(group: WorkerGroup, directory: Path) -> Iterator[None]:
    """Write each worker's output to ``directory`` on the way out, to be read after a failed run."""
    try:
        yield
    finally:
        for index, worker in enumerate(group.workers):
            (directory / f"worker-{index}.log").write_text(worker.log)


def test_exactly_once_tasks_failed_by_a_broker_outage_run_again_after_it_with_no_duplicate_or_gap(
    tmp_path: Path, relayed_broker: TcpRelay
) -> None:
    bootstrap = f"127.0.0.1:{relayed_broker.port}"
    with worker_group(tmp_path, 2, **exactly_once_group(bootstrap)) as group, keeping_logs(group, tmp_path):
        response = group.request(
            group.workers[0],
            "POST",
            "/connectors",
            {"name": "gen", "config": generator("gen", TASKS, RECORDS, RATE)},
        )
        assert response.status_code == 201, response.text
        wait_until(lambda: every_task_running(group), "both tasks running", WAIT_S, every_s=1.0)

        relayed_broker.cut()
        wait_until(
            lambda: tasks_failed_in_the_outage(group), "every task to fail while the broker is away", WAIT_S
        )
        relayed_broker.restore()

        wait_until(lambda: healthy(group), "every worker healthy again", WAIT_S, every_s=2.0)
        wait_until(lambda: every_task_running(group), "every task running again", WAIT_S, every_s=2.0)
        seen: list[Verification] = []

        def all_arrived() -> Verification | None:
            seen.append(verify(read_values(log, "gen"), RECORDS, TASKS))
            return seen[-1] if seen[-1].distinct == TASKS * RECORDS else None

        with open_log(f"kafka://{bootstrap}") as log:
            try:
                result = wait_until(all_arrived, "every record generated", WAIT_S, every_s=2.0)
            except AssertionError as timeout:
                raise AssertionError(f"{timeout}; last read: {seen[-1] if seen else None}") from None
        assert (result.duplicates, result.gaps, result.unreadable) == (0, 0, 0)

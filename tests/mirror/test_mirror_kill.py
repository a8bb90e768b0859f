"""Replication from cluster A to the worker's cluster B on Spark, with the task's process killed (SIGKILL)
three times mid-stream while A keeps growing: through KIP-656's transactional sink design (a transaction
per polled batch, and transactions spanning several batches) and through
the KIP-618 source design, every partition of B holds every record of A exactly once, in order. Without
transactions the same run may hold duplicates (the problem KIP-656 exists to remove), never a gap.

On the Kafka backend both exactly-once designs run the same way with A and B two aliases of one Apache
Kafka broker (the same bootstrap servers), their topics told apart by the replication policy.

A sink task frozen (SIGSTOP) with a spanning transaction open, then replaced by a restart, is a zombie:
its successor's `init_transactions` aborts the open transaction and fences it, so once woken it adds
nothing to B."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.worker.support import (
    create_connector,
    delete_all_connectors,
    exactly_once,
    rest_client,
    running_worker,
    task_pid,
    unique,
    wait_for_states,
    wait_until,
)

from conveyor.cli.worker_process import StandaloneWorker
from conveyor.log import Log, open_log

from .replication import BYTES_CONVERTERS, PartitionReport, compare, distinct_replicated, replicated_count
from .upstream import UpstreamWriter

pytestmark = pytest.mark.timeout(900)  # three task restarts each, on a busy machine

PARTITIONS = 3
KILLS = 3
RECORDS_BETWEEN_KILLS = 600
DONE_WITHIN_S = 180.0
GROUP_TIMEOUTS = {
    "consumer.override.session.timeout.ms": "6000",
    "consumer.override.heartbeat.interval.ms": "1000",
}


@pytest.fixture(scope="module")
def eos_worker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StandaloneWorker]:
    with running_worker(tmp_path_factory.mktemp("mirror-eos"), **exactly_once(True)) as worker:
        yield worker


@pytest.fixture(scope="module")
def kafka_worker(
    tmp_path_factory: pytest.TempPathFactory, kafka_bootstrap: str
) -> Iterator[StandaloneWorker]:
    """An exactly-once worker whose log is the Kafka broker: cluster B."""
    with running_worker(
        tmp_path_factory.mktemp("mirror-kafka"),
        **{"bootstrap.servers": kafka_bootstrap},
        **exactly_once(True),
    ) as worker:
        yield worker


@pytest.fixture
def cluster_a(tmp_path: Path) -> Iterator[Log]:
    with open_log(f"embedded:{tmp_path / 'cluster-a'}") as log:
        yield log


def mirror_config(a: Log, worker: StandaloneWorker, connector_class: str, **settings: str) -> dict[str, str]:
    return {
        "connector.class": connector_class,
        "tasks.max": "1",
        "source.cluster.alias": "A",
        "target.cluster.alias": "B",
        "source.cluster.log.url": a.url,
        "target.cluster.log.url": worker.log.url,
        **BYTES_CONVERTERS,
        **settings,
    }


SPANNING = {
    "transaction.boundary": "interval",
    "transaction.boundary.interval.ms": "2000",
    "transaction.boundary.max.records": "1000",
}
"""Transactions that cover several polled batches: up to 1000 records or 2 s, or the worker's offset flush
(every 200 ms in these tests), while A grows by 60 records in a few batches every 50 ms."""
BOUNDARIES = {"poll": {"transaction.boundary": "poll"}, "interval": SPANNING}


def sink_design(
    a: Log, worker: StandaloneWorker, topic: str, transactional: bool, **boundary: str
) -> dict[str, str]:
    return mirror_config(
        a,
        worker,
        "MirrorSinkConnector",
        topics=topic,
        **{"consumer.override.log.url": a.url, "transactional.producer": str(transactional).lower()},
        **GROUP_TIMEOUTS,
        **boundary,
    )


def source_design(a: Log, worker: StandaloneWorker, topic: str) -> dict[str, str]:
    return mirror_config(a, worker, "MirrorSourceConnector", topics=topic)


def run_with_kills(
    worker: StandaloneWorker, a: Log, topic: str, config: dict[str, str]
) -> list[PartitionReport]:
    """Create the connector, kill its task's process KILLS times while A grows, then compare A and B."""
    name, remote = unique("mirror"), f"A.{topic}"
    a.admin().create_topic(topic, partitions=PARTITIONS)
    with rest_client(worker) as client, UpstreamWriter(a, topic, PARTITIONS) as upstream:
        try:
            create_connector(client, name, config)
            wait_for_states(client, name, "RUNNING", ["RUNNING"])
            for kill in range(1, KILLS + 1):
                victim = task_pid(worker, name)
                wait_until(
                    lambda k=kill: replicated_count(worker.log, remote) >= k * RECORDS_BETWEEN_KILLS,
                    f"replication before kill {kill}",
                    DONE_WITHIN_S,
                    every_s=0.3,
                )
                os.kill(victim, signal.SIGKILL)
                wait_until(lambda v=victim: task_pid(worker, name) != v, "the task to run in a new process")
            written = upstream.stop()
            wait_until(
                lambda: distinct_replicated(worker.log, remote) >= written,
                f"{written} records replicated",
                DONE_WITHIN_S,
                every_s=0.5,
            )
            return compare(a, topic, worker.log, remote)
        finally:
            delete_all_connectors(client)


def run_with_a_zombie(
    worker: StandaloneWorker, a: Log, topic: str, config: dict[str, str]
) -> list[PartitionReport]:
    """Freeze the task's process (SIGSTOP) while it replicates, restart the task, wake the frozen one
    once its successor runs, then compare A and B."""
    name, remote = unique("mirror"), f"A.{topic}"
    a.admin().create_topic(topic, partitions=PARTITIONS)
    with rest_client(worker) as client, UpstreamWriter(a, topic, PARTITIONS) as upstream:
        try:
            create_connector(client, name, config)
            wait_for_states(client, name, "RUNNING", ["RUNNING"])
            zombie = task_pid(worker, name)
            wait_until(
                lambda: replicated_count(worker.log, remote) >= RECORDS_BETWEEN_KILLS,
                "replication before the freeze",
                DONE_WITHIN_S,
                every_s=0.3,
            )
            os.kill(zombie, signal.SIGSTOP)
            try:
                assert client.post(f"/connectors/{name}/tasks/0/restart").status_code == 204
                wait_until(lambda: task_pid(worker, name) != zombie, "the new incarnation's process")
                wait_until(
                    lambda: replicated_count(worker.log, remote) >= 2 * RECORDS_BETWEEN_KILLS,
                    "replication by the new incarnation",
                    DONE_WITHIN_S,
                    every_s=0.3,
                )
            finally:
                if alive(zombie):
                    os.kill(zombie, signal.SIGCONT)
            written = upstream.stop()
            wait_until(
                lambda: distinct_replicated(worker.log, remote) >= written,
                f"{written} records replicated",
                DONE_WITHIN_S,
                every_s=0.5,
            )
            return compare(a, topic, worker.log, remote)
        finally:
            delete_all_connectors(client)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.parametrize("boundary", BOUNDARIES)
def test_the_transactional_sink_design_replicates_exactly_once_through_kill_9(
    eos_worker: StandaloneWorker, cluster_a: Log, boundary: str
) -> None:
    topic = unique("orders")
    config = sink_design(cluster_a, eos_worker, topic, True, **BOUNDARIES[boundary])
    reports = run_with_kills(eos_worker, cluster_a, topic, config)
    assert all(report.exactly_once for report in reports), reports


def test_a_frozen_sink_task_woken_after_its_restart_leaves_no_duplicate_of_its_spanning_transaction(
    eos_worker: StandaloneWorker, cluster_a: Log
) -> None:
    topic = unique("orders")
    config = sink_design(cluster_a, eos_worker, topic, True, **SPANNING)
    reports = run_with_a_zombie(eos_worker, cluster_a, topic, config)
    assert all(report.exactly_once for report in reports), reports


def test_the_source_design_on_an_exactly_once_worker_replicates_exactly_once_through_kill_9(
    eos_worker: StandaloneWorker, cluster_a: Log
) -> None:
    topic = unique("orders")
    reports = run_with_kills(eos_worker, cluster_a, topic, source_design(cluster_a, eos_worker, topic))
    assert all(report.exactly_once for report in reports), reports


def test_without_transactions_the_sink_design_loses_nothing_but_may_duplicate(
    eos_worker: StandaloneWorker, cluster_a: Log
) -> None:
    topic = unique("orders")
    reports = run_with_kills(eos_worker, cluster_a, topic, sink_design(cluster_a, eos_worker, topic, False))
    print(f"non-transactional sink design, {KILLS} kills: {sum(r.duplicates for r in reports)} duplicates")
    assert all(report.gaps == 0 and report.in_order for report in reports), reports


@pytest.mark.parametrize("boundary", BOUNDARIES)
def test_on_kafka_the_transactional_sink_design_replicates_exactly_once_between_two_aliases_of_one_broker(
    kafka_worker: StandaloneWorker, kafka_bootstrap: str, boundary: str
) -> None:
    topic = unique("orders")
    with open_log(f"kafka://{kafka_bootstrap}") as a:
        config = sink_design(a, kafka_worker, topic, True, **BOUNDARIES[boundary])
        reports = run_with_kills(kafka_worker, a, topic, config)
    assert all(report.exactly_once for report in reports), reports


def test_on_kafka_a_frozen_sink_task_woken_after_its_restart_leaves_no_duplicate_of_its_spanning_transaction(
    kafka_worker: StandaloneWorker, kafka_bootstrap: str
) -> None:
    topic = unique("orders")
    with open_log(f"kafka://{kafka_bootstrap}") as a:
        config = sink_design(a, kafka_worker, topic, True, **SPANNING)
        reports = run_with_a_zombie(kafka_worker, a, topic, config)
    assert all(report.exactly_once for report in reports), reports


def test_on_kafka_the_source_design_on_an_exactly_once_worker_replicates_exactly_once_between_two_aliases(
    kafka_worker: StandaloneWorker, kafka_bootstrap: str
) -> None:
    topic = unique("orders")
    with open_log(f"kafka://{kafka_bootstrap}") as a:
        reports = run_with_kills(kafka_worker, a, topic, source_design(a, kafka_worker, topic))
    assert all(report.exactly_once for report in reports), reports

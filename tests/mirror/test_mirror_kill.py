"""Replication from cluster A to the worker's cluster B on Spark, with the task's process killed (SIGKILL)
three times mid-stream while A keeps growing: through KIP-656's transactional sink design and through
the KIP-618 source design, every partition of B holds every record of A exactly once, in order. Without
transactions the same run may hold duplicates (the problem KIP-656 exists to remove), never a gap.

On the Kafka backend both exactly-once designs run the same way with A and B two aliases of one Apache
Kafka broker (the same bootstrap servers), their topics told apart by the replication policy."""

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

from .replication import BYTES_CONVERTERS, PartitionReport, compare, replicated_count
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


def sink_design(a: Log, worker: StandaloneWorker, topic: str, transactional: bool) -> dict[str, str]:
    return mirror_config(
        a,
        worker,
        "MirrorSinkConnector",
        topics=topic,
        **{"consumer.override.log.url": a.url, "transactional.producer": str(transactional).lower()},
        **GROUP_TIMEOUTS,
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
                lambda: replicated_count(worker.log, remote) >= written,
                f"{written} records replicated",
                DONE_WITHIN_S,
                every_s=0.5,
            )
            return compare(a, topic, worker.log, remote)
        finally:
            delete_all_connectors(client)


def test_the_transactional_sink_design_replicates_exactly_once_through_kill_9(
    eos_worker: StandaloneWorker, cluster_a: Log
) -> None:
    topic = unique("orders")
    reports = run_with_kills(eos_worker, cluster_a, topic, sink_design(cluster_a, eos_worker, topic, True))
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


def test_on_kafka_the_transactional_sink_design_replicates_exactly_once_between_two_aliases_of_one_broker(
    kafka_worker: StandaloneWorker, kafka_bootstrap: str
) -> None:
    topic = unique("orders")
    with open_log(f"kafka://{kafka_bootstrap}") as a:
        config = sink_design(a, kafka_worker, topic, True)
        reports = run_with_kills(kafka_worker, a, topic, config)
    assert all(report.exactly_once for report in reports), reports


def test_on_kafka_the_source_design_on_an_exactly_once_worker_replicates_exactly_once_between_two_aliases(
    kafka_worker: StandaloneWorker, kafka_bootstrap: str
) -> None:
    topic = unique("orders")
    with open_log(f"kafka://{kafka_bootstrap}") as a:
        reports = run_with_kills(kafka_worker, a, topic, source_design(a, kafka_worker, topic))
    assert all(report.exactly_once for report in reports), reports

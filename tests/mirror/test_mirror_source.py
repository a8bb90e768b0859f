"""MirrorSourceConnector and its task: topics chosen and created on the target, records replicated through
the exactly-once source loop (KIP-618) from cluster A into the worker's log, cluster B."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from tests.runtime.support import running, task_spec, wait_until, worker_props
from tests.runtime.test_task_entry import SpecLoop

from conveyor.api import ConnectorContext, ExactlyOnceSupport
from conveyor.connectors.mirror import MirrorSourceConnector
from conveyor.connectors.mirror.offset_syncs import OffsetSync
from conveyor.errors import ConfigError
from conveyor.log import Log
from conveyor.runtime.control import LocalTaskControl

from .replication import BYTES_CONVERTERS, compare, produce, read_partition, replicated_count

TOPIC = "orders"
REMOTE = "A.orders"


class RecordingConnectorContext(ConnectorContext):
    def __init__(self) -> None:
        self.reconfigurations = threading.Semaphore(0)

    def request_task_reconfiguration(self) -> None:
        self.reconfigurations.release()

    def raise_error(self, error: Exception) -> None:
        raise AssertionError("no connector error expected") from error


def connector_config(a: Log, b: Log, **overrides: str) -> dict[str, str]:
    return {
        "name": "mirror-source",
        "source.cluster.alias": "A",
        "target.cluster.alias": "B",
        "source.cluster.log.url": a.url,
        "target.cluster.log.url": b.url,
        "topics": "orders|payments|B\\..*",
        **BYTES_CONVERTERS,
        **overrides,
    }


@pytest.fixture
def connector(cluster_a: Log, cluster_b: Log) -> Iterator[MirrorSourceConnector]:
    cluster_a.admin().create_topic(TOPIC, partitions=3, config={"cleanup.policy": "compact"})
    cluster_a.admin().create_topic("B.orders", partitions=1)
    cluster_a.admin().create_topic("ignored", partitions=1)
    started = MirrorSourceConnector()
    started.initialize(RecordingConnectorContext())
    started.start(connector_config(cluster_a, cluster_b, **{"refresh.topics.interval.seconds": "1"}))
    yield started
    started.stop()


def test_remote_topics_are_created_with_the_source_partitions_and_configs(
    cluster_b: Log, connector: MirrorSourceConnector
) -> None:
    description = cluster_b.admin().describe_topics([REMOTE])[REMOTE]
    assert (description.partitions, description.config.get("cleanup.policy")) == (3, "compact")


def test_topics_that_came_from_the_target_and_unselected_topics_are_not_replicated(
    cluster_b: Log, connector: MirrorSourceConnector
) -> None:
    assert cluster_b.admin().list_topics() == [REMOTE]


def test_the_partitions_are_spread_over_the_tasks(connector: MirrorSourceConnector) -> None:
    configs = connector.task_configs(2)
    assert [c["task.assigned.partitions"] for c in configs] == ["orders-0,orders-2", "orders-1"]


def test_a_new_topic_on_the_source_reconfigures_the_tasks(
    cluster_a: Log, cluster_b: Log, connector: MirrorSourceConnector
) -> None:
    cluster_a.admin().create_topic("payments", partitions=1)
    context = connector.context
    assert isinstance(context, RecordingConnectorContext)
    assert context.reconfigurations.acquire(timeout=30)
    assert "A.payments" in cluster_b.admin().list_topics()
    assert [c["task.assigned.partitions"] for c in connector.task_configs(1)] == [
        "orders-0,orders-1,orders-2,payments-0"
    ]


def test_exactly_once_is_supported_only_while_reading_committed_records() -> None:
    connector = MirrorSourceConnector()
    assert connector.exactly_once_support({}) is ExactlyOnceSupport.SUPPORTED
    unsupported = connector.exactly_once_support({"consumer.isolation.level": "read_uncommitted"})
    assert unsupported is ExactlyOnceSupport.UNSUPPORTED


def test_converters_other_than_byte_array_are_refused(cluster_a: Log, cluster_b: Log) -> None:
    config = connector_config(
        cluster_a, cluster_b, **{"value.converter": "org.apache.kafka.connect.json.JsonConverter"}
    )
    with pytest.raises(ConfigError, match=r"value\.converter"):
        MirrorSourceConnector().start(config)


def run_task_once(a: Log, b: Log, expected: int) -> None:
    """Run the connector's one task on worker log B, exactly once, until B holds `expected` records."""
    connector = MirrorSourceConnector()
    connector.initialize(RecordingConnectorContext())
    config = connector_config(a, b, **{"refresh.topics.enabled": "false"})
    connector.start(config)
    try:
        (task_config,) = connector.task_configs(1)
    finally:
        connector.stop()
    task_config["task.class"] = "conveyor.connectors.mirror.source:MirrorSourceTask"
    worker = worker_props(b.url, **{"exactly.once.source.support": "enabled", **BYTES_CONVERTERS})
    control = LocalTaskControl()
    with running(SpecLoop(task_spec(task_config, worker), control), control) as handle:
        wait_until(lambda: replicated_count(b, REMOTE) >= expected, f"{expected} records in {REMOTE}")
        handle.stop()


def test_the_task_replicates_transactional_records_exactly_once_and_resumes_after_a_restart(
    cluster_a: Log, cluster_b: Log
) -> None:
    cluster_a.admin().create_topic(TOPIC, partitions=3)
    produce(cluster_a, TOPIC, partitions=3, start=0, count=100, transactional_id="upstream")
    run_task_once(cluster_a, cluster_b, 300)
    produce(cluster_a, TOPIC, partitions=3, start=100, count=50, transactional_id="upstream")
    run_task_once(cluster_a, cluster_b, 450)
    reports = compare(cluster_a, TOPIC, cluster_b, REMOTE)
    assert all(report.exactly_once and report.replicated == 150 for report in reports), reports


def test_the_task_keeps_keys_headers_timestamps_and_partitions(cluster_a: Log, cluster_b: Log) -> None:
    cluster_a.admin().create_topic(TOPIC, partitions=3)
    produce(cluster_a, TOPIC, partitions=3, start=0, count=5)
    run_task_once(cluster_a, cluster_b, 15)
    for partition in range(3):
        source, copied = (
            read_partition(cluster_a, TOPIC, partition),
            read_partition(cluster_b, REMOTE, partition),
        )
        assert [(r.key, r.value, r.headers, r.timestamp) for r in copied] == [
            (r.key, r.value, r.headers, r.timestamp) for r in source
        ]


def test_heartbeats_topics_are_replicated_whatever_topics_says(cluster_a: Log, cluster_b: Log) -> None:
    cluster_a.admin().create_topic("heartbeats", partitions=1)
    cluster_a.admin().create_topic("C.heartbeats", partitions=1)
    connector = MirrorSourceConnector()
    connector.initialize(RecordingConnectorContext())
    connector.start(
        connector_config(cluster_a, cluster_b, topics="orders", **{"refresh.topics.enabled": "false"})
    )
    connector.stop()
    assert cluster_b.admin().list_topics() == ["A.C.heartbeats", "A.heartbeats"]


def test_heartbeats_topics_follow_topics_when_heartbeats_replication_is_off(
    cluster_a: Log, cluster_b: Log
) -> None:
    cluster_a.admin().create_topic("heartbeats", partitions=1)
    cluster_a.admin().create_topic("C.heartbeats", partitions=1)
    connector = MirrorSourceConnector()
    connector.initialize(RecordingConnectorContext())
    connector.start(
        connector_config(
            cluster_a,
            cluster_b,
            topics="heartbeats",
            **{"refresh.topics.enabled": "false", "heartbeats.replication.enabled": "false"},
        )
    )
    connector.stop()
    assert cluster_b.admin().list_topics() == ["A.heartbeats"]


def test_offset_syncs_pair_each_synced_upstream_record_with_where_it_landed_downstream(
    cluster_a: Log, cluster_b: Log
) -> None:
    cluster_a.admin().create_topic(TOPIC, partitions=3)
    produce(cluster_a, TOPIC, partitions=3, start=0, count=300, transactional_id="upstream")
    run_task_once(cluster_a, cluster_b, 900)
    syncs = [
        OffsetSync.decode(r.key or b"", r.value or b"")
        for r in read_partition(cluster_b, "mm2-offset-syncs.B.internal", 0)
    ]
    assert {s.partition.partition for s in syncs} == {0, 1, 2}
    for sync in syncs:
        upstream = read_partition(cluster_a, TOPIC, sync.partition.partition)
        downstream = read_partition(cluster_b, REMOTE, sync.partition.partition)
        (source_record,) = [r for r in upstream if r.offset == sync.upstream_offset]
        (copied,) = [r for r in downstream if r.offset == sync.downstream_offset]
        assert copied.value == source_record.value

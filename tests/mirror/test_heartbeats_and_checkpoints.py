"""MirrorHeartbeatConnector's heartbeats, and MirrorCheckpointConnector translating group offsets through the
offset syncs that the sink design writes, in Kafka MirrorMaker 2's record formats."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from tests.connectors.connector_contexts import DictSourceTaskContext

from conveyor.connectors.mirror import MirrorSinkTask
from conveyor.connectors.mirror.checkpoint import MirrorCheckpointConnector, MirrorCheckpointTask
from conveyor.connectors.mirror.heartbeat import MirrorHeartbeatConnector, MirrorHeartbeatTask
from conveyor.connectors.mirror.wire import Checkpoint, Heartbeat
from conveyor.errors import ConfigError
from conveyor.log import Log, OffsetAndMetadata, TopicPartition
from conveyor.runtime.sink_task import RuntimeSinkTaskContext

from .replication import BYTES_CONVERTERS, produce
from .test_mirror_sink_task import PARTITION, TOPIC, sink_records, task_config

REMOTE_PARTITION = TopicPartition("A.orders", 0)


def test_a_heartbeat_names_the_flow_and_is_emitted_on_the_heartbeats_topic() -> None:
    task = MirrorHeartbeatTask()
    task.initialize(DictSourceTaskContext({}))
    task.start(
        {"source.cluster.alias": "A", "target.cluster.alias": "B", "emit.heartbeats.interval.seconds": "0.01"}
    )
    records = None
    while not records:
        records = task.poll()
    (record,) = records
    heartbeat = Heartbeat.decode(record.key, record.value)
    assert (record.topic, heartbeat.source_alias, heartbeat.target_alias) == ("heartbeats", "A", "B")
    assert heartbeat.timestamp == record.timestamp


def test_heartbeats_can_be_turned_off() -> None:
    connector = MirrorHeartbeatConnector()
    connector.start({"emit.heartbeats.enabled": "false", **BYTES_CONVERTERS})
    assert connector.task_configs(1) == []


@pytest.fixture
def replicated_in_three_batches(cluster_a: Log, cluster_b: Log) -> Iterator[None]:
    """A's orders-0 (10 records) replicated to B by the sink design in batches ending at 3, 6 and 9."""
    cluster_a.admin().create_topic(TOPIC, partitions=1)
    produce(cluster_a, TOPIC, partitions=1, start=0, count=10)
    sink = MirrorSinkTask()
    sink.initialize(RuntimeSinkTaskContext({}, None))
    sink.start(task_config(cluster_a, cluster_b))
    sink.open([PARTITION])
    records = sink_records(cluster_a, TOPIC, 0)
    for batch in (records[:4], records[4:7], records[7:]):
        sink.put(batch)
    sink.stop()
    yield


def checkpoint_task(a: Log, b: Log, **settings: str) -> MirrorCheckpointTask:
    task = MirrorCheckpointTask()
    task.initialize(DictSourceTaskContext({}))
    config = task_config(a, b, **{"source.cluster.log.url": a.url, "groups": "app.*", **settings})
    task.start(config)
    return task


@pytest.mark.parametrize(("committed", "translated"), [(10, 10), (7, 7), (5, 4), (2, None)])
def test_a_group_offset_translates_to_the_last_sync_at_or_before_it_never_past_an_unread_record(
    cluster_a: Log, cluster_b: Log, replicated_in_three_batches: None, committed: int, translated: int | None
) -> None:
    cluster_a.admin().alter_consumer_group_offsets("app", {PARTITION: committed})
    task = checkpoint_task(cluster_a, cluster_b)
    try:
        found = task.checkpoints()
    finally:
        task.stop()
    expected = [] if translated is None else [Checkpoint("app", REMOTE_PARTITION, committed, translated)]
    assert found == expected


def test_checkpoints_are_returned_for_the_checkpoints_topic_and_excluded_groups_are_left_out(
    cluster_a: Log, cluster_b: Log, replicated_in_three_batches: None
) -> None:
    cluster_a.admin().alter_consumer_group_offsets("app", {PARTITION: 10})
    cluster_a.admin().alter_consumer_group_offsets("other", {PARTITION: 10})
    task = checkpoint_task(cluster_a, cluster_b, **{"emit.checkpoints.interval.seconds": "0.01"})
    try:
        records = None
        while not records:
            records = task.poll()
    finally:
        task.stop()
    assert [(r.topic, Checkpoint.decode(r.key, r.value).group) for r in records] == [
        ("A.checkpoints.internal", "app")
    ]


def test_a_kafka_task_config_checkpoints_only_the_groups_assigned_to_it(
    cluster_a: Log, cluster_b: Log, replicated_in_three_batches: None
) -> None:
    for group in ("app", "app-reports", "other"):
        cluster_a.admin().alter_consumer_group_offsets(group, {PARTITION: 10})
    task = checkpoint_task(cluster_a, cluster_b, **{"task.assigned.groups": "app-reports,other"})
    try:
        found = task.checkpoints()
    finally:
        task.stop()
    assert sorted(checkpoint.group for checkpoint in found) == ["app-reports", "other"]


def test_translated_offsets_are_committed_to_the_group_on_the_target_when_asked(
    cluster_a: Log, cluster_b: Log, replicated_in_three_batches: None
) -> None:
    cluster_a.admin().alter_consumer_group_offsets("app", {PARTITION: 7})
    task = checkpoint_task(cluster_a, cluster_b, **{"sync.group.offsets.enabled": "true"})
    try:
        task.sync_group_offsets(task.checkpoints())
    finally:
        task.stop()
    assert cluster_b.admin().list_consumer_group_offsets("app") == {REMOTE_PARTITION: OffsetAndMetadata(7)}


@pytest.mark.parametrize(
    ("key", "message"),
    [
        ("emit.checkpoints.enabled", "can't run with emit.checkpoints.enabled set to false"),
        ("emit.offset-syncs.enabled", "can't run without offset syncs"),
    ],
)
def test_the_checkpoint_connector_refuses_to_run_with_nothing_to_do(key: str, message: str) -> None:
    config = {
        "source.cluster.log.url": "embedded:/a",
        "target.cluster.log.url": "embedded:/b",
        key: "false",
        **BYTES_CONVERTERS,
    }
    with pytest.raises(ConfigError, match=re.escape(message)) as refused:
        MirrorCheckpointConnector().start(config)
    assert refused.value.name == key
    MirrorCheckpointConnector().start({**config, "enabled": "false"})


def test_the_checkpoint_connector_runs_one_task() -> None:
    connector = MirrorCheckpointConnector()
    connector.start(
        {"source.cluster.log.url": "embedded:/a", "target.cluster.log.url": "embedded:/b", **BYTES_CONVERTERS}
    )
    assert len(connector.task_configs(4)) == 1

"""`mm2.properties` as Kafka's MirrorMaker 2 reads it: clusters, flows, and per-flow settings."""

from __future__ import annotations

import re

import pytest

from conveyor.connectors.mirror.maker_config import MirrorMakerConfig
from conveyor.errors import ConfigError
from conveyor.settings.worker_config import WorkerConfig

PROPS = {
    "clusters": "A, B",
    "A.log.url": "embedded:/data/a",
    "B.bootstrap.servers": "b1:9092,b2:9092",
    "A->B.enabled": "true",
    "A->B.topics": "orders.*",
    "B->A.enabled": "false",
    "replication.policy.separator": "_",
    "B.exactly.once.source.support": "enabled",
}


def test_only_enabled_flows_run() -> None:
    flows = MirrorMakerConfig.from_props(PROPS).flows()
    assert [str(flow) for flow in flows] == ["A->B"]


def test_a_flows_connector_gets_top_level_and_flow_settings_and_both_clusters() -> None:
    (flow,) = MirrorMakerConfig.from_props(PROPS).flows()
    connector = flow.connectors["MirrorSourceConnector"]
    assert connector["topics"] == "orders.*"
    assert connector["replication.policy.separator"] == "_"
    assert (connector["source.cluster.log.url"], connector["target.cluster.log.url"]) == (
        "embedded:/data/a",
        "kafka://b1:9092,b2:9092",
    )
    assert "A->B.topics" not in connector and "B.exactly.once.source.support" not in connector


def test_a_flow_runs_on_a_worker_on_its_target_with_internal_topics_named_after_its_source() -> None:
    (flow,) = MirrorMakerConfig.from_props(PROPS).flows()
    worker = flow.worker_props
    assert worker["log.url"] == "kafka://b1:9092,b2:9092"
    assert worker["exactly.once.source.support"] == "enabled"
    assert (worker["group.id"], worker["offset.storage.topic"]) == ("A-mm2", "mm2-offsets.A.internal")


def test_flows_can_be_limited_to_some_target_clusters() -> None:
    props = {**PROPS, "B->A.enabled": "true"}
    assert [str(f) for f in MirrorMakerConfig.from_props(props).flows(["A"])] == ["B->A"]


def test_a_cluster_without_a_log_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"B\.log\.url"):
        MirrorMakerConfig.from_props({"clusters": "A, B", "A.log.url": "embedded:/a"})


def test_a_flow_also_runs_heartbeats_and_checkpoints_unless_checkpoints_are_off() -> None:
    (flow,) = MirrorMakerConfig.from_props(PROPS).flows()
    assert sorted(flow.connectors) == [
        "MirrorCheckpointConnector",
        "MirrorHeartbeatConnector",
        "MirrorSourceConnector",
    ]
    (quiet,) = MirrorMakerConfig.from_props({**PROPS, "emit.checkpoints.enabled": "false"}).flows()
    assert "MirrorCheckpointConnector" not in quiet.connectors
    (no_syncs,) = MirrorMakerConfig.from_props({**PROPS, "emit.offset-syncs.enabled": "false"}).flows()
    assert "MirrorCheckpointConnector" not in no_syncs.connectors


def test_the_sink_design_reads_the_source_cluster_and_turns_the_topic_regexes_into_topics_regex() -> None:
    (flow,) = MirrorMakerConfig.from_props({**PROPS, "A->B.mirror.design": "sink"}).flows()
    sink = flow.connectors["MirrorSinkConnector-B"]
    assert sink["consumer.override.log.url"] == "embedded:/data/a"
    assert "topics" not in sink
    regex = re.compile(sink["topics.regex"])
    chosen = [
        t
        for t in ["orders", "orders-eu", "payments", "orders.internal", "mm2-orders.internal", "B_orders"]
        if regex.fullmatch(t)
    ]
    assert chosen == ["orders", "orders-eu", "orders.internal"]


def test_a_flows_worker_lets_its_connectors_use_the_unsafe_settings_of_the_operators_cluster_urls() -> None:
    """mm2.properties is the operator's: a CA file in a cluster's URL must not make the flow's own
    connectors refused as unsafe (connectors posted by others still are, for any other setting)."""
    tls = "kafka://a1:9093?security.protocol=SSL&ssl.ca.location=/etc/ca.pem&consumer.debug=all"
    (flow,) = MirrorMakerConfig.from_props({**PROPS, "A.log.url": tls}).flows()
    policy = WorkerConfig.from_props(flow.worker_props).client_override_policy
    assert policy.unsafe.log_url_refusal(tls) is None
    assert policy.unsafe.refusal("plugin.library.paths", "/tmp/x.so") is not None
